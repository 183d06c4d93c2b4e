//! The `redsim` binary.
fn main() {}
