//! oa-observe: placeholder crate; its work is tracked by issue 8 and nothing is implemented here yet.
