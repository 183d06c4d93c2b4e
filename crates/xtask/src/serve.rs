//! `cargo xtask serve`: builds `dist/`, then serves it with a small static file server (std `TcpListener`, a thread per keep-alive connection, correct MIME types including `application/wasm`, and the precompressed `.br` / `.gz` copies sent with `Content-Encoding` to browsers that accept them).

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// Builds, then serves `dist/` on 127.0.0.1:`port` until interrupted; with
/// `dir`, serves that directory as it is. Port 0 takes a free port; the line
/// printed says which (the browser benchmark reads it).
pub fn serve(port: u16, dir: Option<PathBuf>) -> Result<(), String> {
    let dir = match dir {
        Some(d) if d.join("index.html").is_file() => d,
        Some(d) => return Err(format!("{} has no index.html", d.display())),
        None => crate::dist::dist()?.dir,
    };
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    println!(
        "serving {} on http://127.0.0.1:{port}/ (Ctrl+C to stop)",
        dir.display()
    );
    for stream in listener.incoming().flatten() {
        let dir = dir.clone();
        std::thread::spawn(move || {
            let _ = handle(stream, &dir);
        });
    }
    Ok(())
}

/// Answers the requests of one connection (keep-alive) with files of `root`.
fn handle(stream: TcpStream, root: &Path) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    // Each answer goes out in one write, and at once: with Nagle's algorithm a response split
    // over writes can wait for the browser's delayed acknowledgement (tens of milliseconds).
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line)? == 0 {
            return Ok(());
        }
        // Of the headers only Accept-Encoding changes the answer.
        let mut accept = String::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
                break;
            }
            if let Some((name, value)) = h.split_once(':') {
                if name.trim().eq_ignore_ascii_case("accept-encoding") {
                    accept = value.trim().to_ascii_lowercase();
                }
            }
        }
        let mut parts = request_line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
        let mut encoding = None;
        let (status, ctype, body) = match method {
            "GET" | "HEAD" => match resolve(root, target) {
                Some(p) => {
                    let (file, enc) = encoded(&p, &accept);
                    encoding = enc;
                    match fs::read(&file) {
                        Ok(b) => ("200 OK", mime(&p), b),
                        Err(_) => ("500 Internal Server Error", "text/plain", Vec::new()),
                    }
                }
                None => (
                    "404 Not Found",
                    "text/plain; charset=utf-8",
                    b"not found\n".to_vec(),
                ),
            },
            _ => (
                "405 Method Not Allowed",
                "text/plain; charset=utf-8",
                b"GET or HEAD only\n".to_vec(),
            ),
        };
        let shown = encoding.map_or(String::new(), |e| format!(" ({e})"));
        println!("{method} {target} -> {status}{shown}");
        let content_encoding =
            encoding.map_or(String::new(), |e| format!("Content-Encoding: {e}\r\n"));
        let mut answer = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\n{content_encoding}Vary: Accept-Encoding\r\nContent-Length: {}\r\nCache-Control: no-cache\r\n\r\n",
            body.len()
        )
        .into_bytes();
        if method != "HEAD" {
            answer.extend_from_slice(&body);
        }
        out.write_all(&answer)?;
        out.flush()?;
    }
}

/// The file to send for `path` given the request's Accept-Encoding: its
/// `.br` copy if brotli is accepted and the copy exists, else its `.gz`
/// copy likewise, else the file itself.
pub fn encoded(path: &Path, accept: &str) -> (PathBuf, Option<&'static str>) {
    let accepts = |coding: &str| {
        accept.split(',').any(|part| {
            let mut it = part.split(';');
            let name = it.next().unwrap_or("").trim();
            // `br;q=0` refuses it.
            let refused = it.any(|p| p.trim().replace(' ', "") == "q=0");
            name == coding && !refused
        })
    };
    for (coding, suffix) in [("br", "br"), ("gzip", "gz")] {
        let copy = crate::dist::with_suffix(path, suffix);
        if accepts(coding) && copy.is_file() {
            return (copy, Some(coding));
        }
    }
    (path.to_path_buf(), None)
}

/// The file a request target names under `root`: query and fragment cut,
/// percent-escapes decoded, `index.html` for directories, and no way out of
/// `root` (`..` and absolute components are refused).
pub fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let decoded = percent_decode(path)?;
    let mut p = root.to_path_buf();
    for c in Path::new(decoded.trim_start_matches('/')).components() {
        match c {
            Component::Normal(part) => p.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if p.is_dir() {
        p.push("index.html");
    }
    p.is_file().then_some(p)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Content type by extension; wasm must be `application/wasm` for streaming compilation.
pub fn mime(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_root_only() {
        let root = std::env::temp_dir().join(format!("xtask-serve-{}", std::process::id()));
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("index.html"), "i").unwrap();
        fs::write(root.join("a b.js"), "j").unwrap();
        fs::write(root.join("sub/index.html"), "s").unwrap();
        assert_eq!(resolve(&root, "/"), Some(root.join("index.html")));
        assert_eq!(
            resolve(&root, "/?cmd=GET%20a#x"),
            Some(root.join("index.html"))
        );
        assert_eq!(resolve(&root, "/a%20b.js"), Some(root.join("a b.js")));
        assert_eq!(resolve(&root, "/sub/"), Some(root.join("sub/index.html")));
        assert_eq!(resolve(&root, "/../etc/passwd"), None);
        assert_eq!(resolve(&root, "/%2e%2e/x"), None);
        assert_eq!(resolve(&root, "/missing.css"), None);
        assert_eq!(resolve(&root, "/%zz"), None);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn precompressed_copies_are_chosen_by_accept_encoding() {
        let root = std::env::temp_dir().join(format!("xtask-enc-{}", std::process::id()));
        fs::create_dir_all(&root).unwrap();
        let wasm = root.join("a.wasm");
        fs::write(&wasm, "w").unwrap();
        fs::write(root.join("a.wasm.gz"), "g").unwrap();
        fs::write(root.join("a.wasm.br"), "b").unwrap();
        let css = root.join("b.css");
        fs::write(&css, "c").unwrap();
        fs::write(root.join("b.css.gz"), "g").unwrap();
        let pick = |p: &Path, a: &str| {
            let (f, e) = encoded(p, a);
            (f.file_name().unwrap().to_string_lossy().into_owned(), e)
        };
        assert_eq!(
            pick(&wasm, "gzip, deflate, br, zstd"),
            ("a.wasm.br".into(), Some("br"))
        );
        assert_eq!(pick(&wasm, "gzip"), ("a.wasm.gz".into(), Some("gzip")));
        assert_eq!(
            pick(&wasm, "br;q=0, gzip"),
            ("a.wasm.gz".into(), Some("gzip"))
        );
        assert_eq!(pick(&wasm, ""), ("a.wasm".into(), None));
        assert_eq!(pick(&css, "br, gzip"), ("b.css.gz".into(), Some("gzip")));
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn wasm_and_scripts_get_their_types() {
        assert_eq!(mime(Path::new("x_bg.wasm")), "application/wasm");
        assert!(mime(Path::new("x.js")).starts_with("text/javascript"));
        assert!(mime(Path::new("x.css")).starts_with("text/css"));
        assert_eq!(mime(Path::new("x")), "application/octet-stream");
    }
}
