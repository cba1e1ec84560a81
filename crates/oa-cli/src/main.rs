//! The `oa` command.
fn main() {}
