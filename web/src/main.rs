//! The playground app.
fn main() {}
