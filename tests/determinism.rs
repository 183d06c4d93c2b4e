//! determinism: integration tests (being written).
