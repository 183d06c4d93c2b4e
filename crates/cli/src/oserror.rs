//! `strerror`'s text for an I/O error, as redis-server prints it: the server's sockets and files and the configuration file reader all report errors this way.

/// `strerror`'s text of an I/O error, without Rust's " (os error N)".
pub(crate) fn os_error_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
