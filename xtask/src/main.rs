//! Developer tasks: `cargo xtask ci`.
fn main() {}
