//! server_protocol: integration tests (being written).
