//! clients: integration tests (being written).
