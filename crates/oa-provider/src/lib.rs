//! oa-provider: placeholder crate; its work is tracked by issue 6 and nothing is implemented here yet.
