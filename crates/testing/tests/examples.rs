//! Runs the crate's examples as tests, so the code users copy is compiled and checked on every run.

#[path = "../examples/rate_limiter.rs"]
mod rate_limiter;

#[test]
fn rate_limiter_example_holds() {
    rate_limiter::main();
}

#[path = "../examples/cluster_client.rs"]
mod cluster_client;

#[test]
fn cluster_client_example_holds() {
    cluster_client::main();
}
