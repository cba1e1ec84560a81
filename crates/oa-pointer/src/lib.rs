//! oa-pointer: RFC 6901 JSON Pointer in plain and URI-fragment forms.
