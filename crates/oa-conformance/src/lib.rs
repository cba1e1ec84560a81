//! oa-conformance: placeholder crate; its work is tracked by issue 7 and nothing is implemented here yet.
