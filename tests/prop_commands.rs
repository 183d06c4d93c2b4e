//! prop_commands: integration tests (being written).
