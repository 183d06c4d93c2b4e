//! A real server's side, for `redsim replay` and `redsim run --against`: the `--against` URL, a blocking RESP connection per client, and for a cluster a connection per node with commands routed to their slot's owner, MOVED learned and ASK followed, as cluster clients do.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_engine::cmd::Flags;
use redsim_engine::proto::resp::{encode_request, parse_frame, Frame};

/// Where `--against` points: `redis://[:password@]host:port[/db][?cluster=1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub addr: String,
    pub password: Option<String>,
    pub db: Option<u32>,
    pub cluster: bool,
}

impl Target {
    pub fn parse(url: &str) -> Result<Target, String> {
        let bad = || format!("--against wants redis://HOST:PORT[?cluster=1], not '{url}'");
        let rest = url.strip_prefix("redis://").ok_or_else(bad)?;
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (auth, hostpart) = match rest.rsplit_once('@') {
            Some((a, h)) => (Some(a), h),
            None => (None, rest),
        };
        let (hostport, db) = match hostpart.split_once('/') {
            Some((h, "")) => (h, None),
            Some((h, d)) => (h, Some(d.parse::<u32>().map_err(|_| bad())?)),
            None => (hostpart, None),
        };
        let (host, port) = hostport.rsplit_once(':').unwrap_or((hostport, "6379"));
        if host.is_empty() || port.parse::<u16>().is_err() {
            return Err(bad());
        }
        let password = auth
            .map(|a| a.rsplit_once(':').map_or(a, |(_, p)| p).to_string())
            .filter(|p| !p.is_empty());
        let mut cluster = false;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=').unwrap_or((pair, "1")) {
                ("cluster", v) => cluster = matches!(v, "1" | "true" | "yes"),
                (k, _) => return Err(format!("--against: unknown option '{k}' in '{url}'")),
            }
        }
        if cluster && db.is_some_and(|d| d != 0) {
            return Err("--against: a cluster has only database 0".into());
        }
        Ok(Target {
            addr: format!("{host}:{port}"),
            password,
            db,
            cluster,
        })
    }
}

/// One blocking RESP connection.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn connect(addr: &str) -> io::Result<Conn> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true).ok();
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Conn {
            stream,
            buf: Vec::new(),
        })
    }

    pub fn send(&mut self, args: &[Vec<u8>]) -> io::Result<()> {
        self.stream.write_all(&encode_request(args))
    }

    /// A whole reply already in the buffer, taken out of it.
    fn buffered(&mut self) -> io::Result<Option<Frame>> {
        let parsed =
            parse_frame(&self.buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        Ok(parsed.map(|(f, used)| {
            self.buf.drain(..used);
            f
        }))
    }

    /// The next reply; `Ok(None)` if none came within `wait` (when given).
    pub fn read(&mut self, wait: Option<Duration>) -> io::Result<Option<Frame>> {
        let limit = wait.unwrap_or(Duration::from_secs(30));
        self.stream
            .set_read_timeout(Some(limit.max(Duration::from_millis(1))))?;
        loop {
            if let Some(f) = self.buffered()? {
                return Ok(Some(f));
            }
            let mut chunk = [0u8; 16384];
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if wait.is_some()
                        && matches!(
                            e.kind(),
                            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                        ) =>
                {
                    return Ok(None)
                }
                Err(e) => return Err(e),
            }
        }
    }

    pub fn call(&mut self, args: &[Vec<u8>]) -> io::Result<Frame> {
        self.send(args)?;
        self.read(None)?
            .ok_or_else(|| io::ErrorKind::TimedOut.into())
    }

    /// A reply that has already arrived, without waiting for one.
    pub fn try_read(&mut self) -> io::Result<Option<Frame>> {
        loop {
            if let Some(f) = self.buffered()? {
                return Ok(Some(f));
            }
            self.stream.set_nonblocking(true)?;
            let mut chunk = [0u8; 16384];
            let got = self.stream.read(&mut chunk);
            self.stream.set_nonblocking(false)?;
            match got {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) => return Err(e),
            }
        }
    }
}

/// One script client on the real server: one connection, or one per
/// cluster node.
pub struct Remote {
    target: Target,
    /// Connections by node address; a standalone server has one.
    conns: BTreeMap<String, Conn>,
    /// Slot owners learned from MOVED (cluster only).
    slots: Vec<Option<String>>,
    /// The node a sent-but-unread command went to.
    pending: Option<String>,
}

impl Remote {
    pub fn open(target: &Target) -> io::Result<Remote> {
        let mut r = Remote {
            target: target.clone(),
            conns: BTreeMap::new(),
            slots: if target.cluster {
                vec![None; SLOTS]
            } else {
                Vec::new()
            },
            pending: None,
        };
        r.conn(&target.addr)?;
        Ok(r)
    }

    /// The connection to `addr`, opened (authenticated, database selected)
    /// on first use.
    fn conn(&mut self, addr: &str) -> io::Result<&mut Conn> {
        if !self.conns.contains_key(addr) {
            let mut c = Conn::connect(addr)?;
            let mut setup = Vec::new();
            if let Some(p) = &self.target.password {
                setup.push(vec![b"AUTH".to_vec(), p.as_bytes().to_vec()]);
            }
            if let Some(db) = self.target.db {
                setup.push(vec![b"SELECT".to_vec(), db.to_string().into_bytes()]);
            }
            for args in setup {
                if let Frame::Error(e) = c.call(&args)? {
                    return Err(io::Error::other(format!("{addr}: {e}")));
                }
            }
            self.conns.insert(addr.to_string(), c);
        }
        Ok(self.conns.get_mut(addr).expect("just opened"))
    }

    /// Where a command goes first: its first key's slot owner, if known.
    fn route(&self, args: &[Vec<u8>]) -> String {
        if !self.target.cluster {
            return self.target.addr.clone();
        }
        first_key(args)
            .and_then(|k| self.slots[key_hash_slot(k) as usize].clone())
            .unwrap_or_else(|| self.target.addr.clone())
    }

    /// Runs one command to its reply, following MOVED and ASK.
    pub fn call(&mut self, args: &[Vec<u8>]) -> io::Result<Frame> {
        let mut addr = self.route(args);
        let mut asking = false;
        for _ in 0..16 {
            let c = self.conn(&addr)?;
            if asking {
                c.call(&[b"ASKING".to_vec()])?;
            }
            let reply = c.call(args)?;
            if !self.target.cluster {
                return Ok(reply);
            }
            match redirect(&reply) {
                Some(("MOVED", slot, to)) => {
                    self.slots[slot] = Some(to.clone());
                    addr = to;
                    asking = false;
                }
                Some(("ASK", _, to)) => {
                    addr = to;
                    asking = true;
                }
                _ => return Ok(reply),
            }
        }
        Err(io::Error::other("more than 16 redirections"))
    }

    /// Sends a command whose reply comes later (it blocks on the server).
    pub fn send(&mut self, args: &[Vec<u8>]) -> io::Result<()> {
        let addr = self.route(args);
        self.conn(&addr)?.send(args)?;
        self.pending = Some(addr);
        Ok(())
    }

    /// The reply to what [`Remote::send`] sent, if it came within `wait`.
    pub fn receive(&mut self, wait: Duration) -> io::Result<Option<Frame>> {
        let Some(addr) = self.pending.clone() else {
            return Ok(None);
        };
        let got = self.conn(&addr)?.read(Some(wait))?;
        if got.is_some() {
            self.pending = None;
        }
        Ok(got)
    }

    /// A reply or pushed message that has already arrived on a standalone
    /// server's connection, without waiting.
    pub fn poll(&mut self) -> io::Result<Option<Frame>> {
        let addr = self.target.addr.clone();
        let got = self.conn(&addr)?.try_read()?;
        if got.is_some() {
            self.pending = None;
        }
        Ok(got)
    }
}

/// Whether a command can block on the server (BLPOP, WAIT, XREAD with BLOCK...).
/// XREAD and XREADGROUP without BLOCK answer at once.
pub fn is_blocking(args: &[Vec<u8>]) -> bool {
    let Some(cmd) = args.first().and_then(|a| redsim_engine::cmd::lookup(a)) else {
        return false;
    };
    if !cmd.flags.contains(Flags::BLOCKING) {
        return false;
    }
    let name = args[0].to_ascii_uppercase();
    if name == b"XREAD" || name == b"XREADGROUP" {
        return args.iter().any(|a| a.eq_ignore_ascii_case(b"BLOCK"));
    }
    true
}

/// The first key a command names, by the command table's key positions.
pub fn first_key(args: &[Vec<u8>]) -> Option<&[u8]> {
    let cmd = redsim_engine::cmd::lookup(args.first()?)?;
    let cmd = match args.get(1) {
        Some(w) if !cmd.subcommands.is_empty() => cmd.subcommand(w).unwrap_or(cmd),
        _ => cmd,
    };
    let positions = redsim_engine::cmd::cluster::key_positions(cmd, args);
    positions.first().map(|&p| args[p].as_slice())
}

/// `MOVED 3999 127.0.0.1:6381` / `ASK …` as (kind, slot, address).
fn redirect(reply: &Frame) -> Option<(&str, usize, String)> {
    let Frame::Error(msg) = reply else {
        return None;
    };
    let mut words = msg.split(' ');
    let kind = words.next()?;
    let slot = words.next()?.parse::<usize>().ok().filter(|&s| s < SLOTS)?;
    let addr = words.next()?.to_string();
    matches!(kind, "MOVED" | "ASK").then_some((kind, slot, addr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_bad_ones_say_why() {
        let t = Target::parse("redis://127.0.0.1:7000?cluster=1").unwrap();
        assert_eq!(
            (t.addr.as_str(), t.cluster, t.db),
            ("127.0.0.1:7000", true, None)
        );
        let t = Target::parse("redis://:secret@localhost:6390/2").unwrap();
        assert_eq!(t.password.as_deref(), Some("secret"));
        assert_eq!((t.addr.as_str(), t.db), ("localhost:6390", Some(2)));
        assert_eq!(Target::parse("redis://h").unwrap().addr, "h:6379");
        for bad in [
            "localhost:6379",
            "redis://:x",
            "redis://h:99999",
            "redis://h:1?tls=1",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
        assert!(Target::parse("redis://h:1/3?cluster=1").is_err());
    }

    #[test]
    fn reads_block_only_with_block() {
        let cmd = |s: &str| {
            s.split(' ')
                .map(|w| w.as_bytes().to_vec())
                .collect::<Vec<_>>()
        };
        assert!(is_blocking(&cmd("BRPOP q 0")));
        assert!(is_blocking(&cmd(
            "xreadgroup GROUP g c BLOCK 0 STREAMS s >"
        )));
        assert!(!is_blocking(&cmd(
            "XREADGROUP GROUP g c COUNT 10 STREAMS s >"
        )));
        assert!(!is_blocking(&cmd("XREAD COUNT 1 STREAMS s 0-0")));
        assert!(!is_blocking(&cmd("GET k")));
    }

    #[test]
    fn redirections_are_read_from_errors() {
        let moved = Frame::Error("MOVED 3999 127.0.0.1:6381".into());
        assert_eq!(
            redirect(&moved),
            Some(("MOVED", 3999, "127.0.0.1:6381".into()))
        );
        assert_eq!(redirect(&Frame::Error("ERR MOVED 1 x".into())), None);
        assert_eq!(redirect(&Frame::Error("ASK 99999 h:1".into())), None);
    }
}
