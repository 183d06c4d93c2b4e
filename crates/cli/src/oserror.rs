//! `strerror`'s text for an I/O error, as redis-server prints it (the server's sockets and files and the configuration file reader all report errors this way), and the check `dir` gets where Redis changes into it.

/// `strerror`'s text of an I/O error, without Rust's " (os error N)".
pub(crate) fn os_error_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Whether `path` is a directory `chdir` would enter, else its error text.
pub(crate) fn check_dir(path: &str) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err("Not a directory".into()),
        Err(e) => Err(os_error_text(&e)),
    }
}
