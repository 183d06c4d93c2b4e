//! prop_resp: integration tests (being written).
