//! diff_keys: integration tests (being written).
