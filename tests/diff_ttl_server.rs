//! diff_ttl_server: integration tests (being written).
