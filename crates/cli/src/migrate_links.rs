//! MIGRATE's connections for the native server: blocking TCP sockets cached per `host:port` as Redis caches them (at most 64, closed after 10 seconds unused), so the engine's MIGRATE blocks the server while it talks to the target, as Redis' does.

use redsim_engine::cluster::link::MigrateLinks;
use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `MIGRATE_SOCKET_CACHE_ITEMS`.
const CACHE_ITEMS: usize = 64;
/// `MIGRATE_SOCKET_CACHE_TTL`.
const CACHE_TTL: Duration = Duration::from_secs(10);

struct Cached {
    /// `None` when connecting failed: like Redis' `connBlockingConnect`,
    /// which reports a refused or timed-out connection only through the
    /// first write, the failure shows when MIGRATE writes (and whether it
    /// timed out).
    stream: Result<TcpStream, bool>,
    last_db: i64,
    last_use: Instant,
}

/// The cache of MIGRATE's sockets.
#[derive(Default)]
pub struct TcpLinks(Mutex<HashMap<String, Cached>>);

fn name(host: &str, port: &str) -> String {
    format!("{host}:{port}")
}

/// C's `atoi` for the port: digits after optional blanks and sign, the rest ignored.
fn atoi_port(port: &str) -> u16 {
    let t = port.trim_start();
    let digits: String = t
        .strip_prefix('+')
        .unwrap_or(t)
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse::<u64>().map_or(0, |p| p as u16)
}

fn timed_out(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

impl TcpLinks {
    fn with<R>(&self, host: &str, port: &str, f: impl FnOnce(&mut Cached) -> R) -> Option<R> {
        let mut cache = self.0.lock().ok()?;
        cache.get_mut(&name(host, port)).map(f)
    }
}

impl MigrateLinks for TcpLinks {
    fn open(&self, host: &str, port: &str, timeout_ms: u64) -> Option<i64> {
        let mut cache = self.0.lock().ok()?;
        let key = name(host, port);
        // `migrateCloseTimedoutSockets`, done when the cache is next used.
        cache.retain(|_, c| c.last_use.elapsed() <= CACHE_TTL);
        if let Some(c) = cache.get_mut(&key) {
            c.last_use = Instant::now();
            return Some(c.last_db);
        }
        if cache.len() >= CACHE_ITEMS {
            if let Some(k) = cache.keys().next().cloned() {
                cache.remove(&k);
            }
        }
        let timeout = Duration::from_millis(timeout_ms.max(1));
        // Only an address that does not resolve fails here.
        let addrs: Vec<_> = (host, atoi_port(port)).to_socket_addrs().ok()?.collect();
        let mut stream = Err(false);
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(s) => {
                    let _ = s.set_nodelay(true);
                    stream = Ok(s);
                    break;
                }
                Err(e) => stream = Err(timed_out(&e)),
            }
        }
        cache.insert(
            key,
            Cached {
                stream,
                last_db: -1,
                last_use: Instant::now(),
            },
        );
        Some(-1)
    }

    fn write(&self, host: &str, port: &str, data: &[u8], timeout_ms: u64) -> Result<(), bool> {
        let timeout = Duration::from_millis(timeout_ms.max(1));
        self.with(host, port, |c| {
            let s = c.stream.as_mut().map_err(|t| *t)?;
            let _ = s.set_write_timeout(Some(timeout));
            s.write_all(data).map_err(|e| timed_out(&e))
        })
        .unwrap_or(Err(false))
    }

    /// `connSyncReadLine`: byte by byte up to the newline, the whole line
    /// within the timeout.
    fn read_line(&self, host: &str, port: &str, timeout_ms: u64) -> Result<Vec<u8>, bool> {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms.max(1));
        self.with(host, port, |c| {
            let s = c.stream.as_mut().map_err(|t| *t)?;
            let mut line = Vec::new();
            let mut byte = [0u8; 1];
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(true);
                }
                let _ = s.set_read_timeout(Some(left));
                match s.read(&mut byte) {
                    Ok(0) => return Err(false),
                    Ok(_) if byte[0] == b'\n' => {
                        if line.last() == Some(&b'\r') {
                            line.pop();
                        }
                        return Ok(line);
                    }
                    Ok(_) => line.push(byte[0]),
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => return Err(timed_out(&e)),
                }
            }
        })
        .unwrap_or(Err(false))
    }

    fn set_last_db(&self, host: &str, port: &str, db: i64) {
        self.with(host, port, |c| c.last_db = db);
    }

    fn close(&self, host: &str, port: &str) {
        if let Ok(mut cache) = self.0.lock() {
            cache.remove(&name(host, port));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_read_as_atoi_reads_them() {
        assert_eq!(atoi_port("6379"), 6379);
        assert_eq!(atoi_port(" 80x"), 80);
        assert_eq!(atoi_port("x"), 0);
    }

    #[test]
    fn a_refused_connection_fails_when_written() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port().to_string();
        drop(listener);
        let links = TcpLinks::default();
        assert_eq!(links.open("127.0.0.1", &port, 200), Some(-1));
        assert_eq!(links.write("127.0.0.1", &port, b"x", 200), Err(false));
        links.close("127.0.0.1", &port);
        assert_eq!(links.write("127.0.0.1", &port, b"x", 200), Err(false));
        assert_eq!(links.open("no such host.invalid", "1", 200), None);
    }

    #[test]
    fn a_silent_target_times_out_reading() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port().to_string();
        let links = TcpLinks::default();
        assert_eq!(links.open("127.0.0.1", &port, 500), Some(-1));
        links.set_last_db("127.0.0.1", &port, 3);
        assert_eq!(links.open("127.0.0.1", &port, 500), Some(3));
        assert_eq!(links.write("127.0.0.1", &port, b"PING\r\n", 500), Ok(()));
        assert_eq!(links.read_line("127.0.0.1", &port, 50), Err(true));
    }
}
