//! The wire and the terminal: RESP2/RESP3 frames and parsers, replies rendered as redis-cli prints them, and console sessions as text.

pub mod clifmt;
pub mod link;
pub mod resp;
pub mod session;

pub use clifmt::format_reply;
pub use resp::{split_args, Frame};
