//! The wire and the terminal: RESP2/RESP3 frames and parsers, and replies rendered as redis-cli prints them.

pub mod clifmt;
pub mod resp;

pub use clifmt::format_reply;
pub use resp::{split_args, Frame};
