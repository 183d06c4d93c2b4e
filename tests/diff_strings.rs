//! diff_strings: integration tests (being written).
