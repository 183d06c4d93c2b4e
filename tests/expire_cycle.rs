//! expire_cycle: integration tests (being written).
