//! Test harness: real `redis-server` processes, the in-process `redsim` server, a small blocking RESP client, and the Pair that compares their replies (differ, random and commands hold the multi-client scripts, the randomised runs and the command-table checks).

use std::fmt::{Debug, Display};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use redsim_engine::proto::clifmt::format_reply;
use redsim_engine::proto::resp::fmt_double;

pub mod cluster;
pub use cluster::RedisCluster;
pub use redsim_engine::proto::resp::{encode_request, parse_frame, Frame};

mod commands;
mod differ;
mod random;
pub use commands::*;
pub use differ::*;
pub use random::*;

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A real `redis-server` on a private port, killed on drop.
pub struct RedisServer {
    child: Child,
    pub port: u16,
    /// Its working directory, unless the test gave one (`--dir`).
    _dir: Option<TempDir>,
}

/// A private directory (a reference server's RDB and AOF files, cluster
/// nodes' `nodes.conf`), removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(what: &str) -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "redsim-{what}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    /// A file path inside it.
    pub fn file(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl RedisServer {
    /// Starts `redis-server` (or `$REDSIM_REDIS_SERVER`) with persistence off,
    /// in a directory of its own unless `extra` names one: a SAVE, a full
    /// sync or a SHUTDOWN writes `dump.rdb` there, and a file shared between
    /// servers (or left by another server version) would be loaded by the
    /// next. Panics with a clear message if the binary is missing: the test
    /// command (`cargo xtask test`) installs it.
    pub fn start(extra: &[&str]) -> RedisServer {
        let bin = std::env::var("REDSIM_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        RedisServer::start_bin(&bin, extra)
    }

    /// [`RedisServer::start`] with another server binary (Valkey's). A
    /// first `extra` that is not an option is a configuration file, which
    /// goes first, as redis-server wants it.
    pub fn start_bin(bin: &str, extra: &[&str]) -> RedisServer {
        let (file, extra) = match extra {
            [f, rest @ ..] if !f.starts_with('-') => (Some(*f), rest),
            _ => (None, extra),
        };
        let dir = (!extra.contains(&"--dir")).then(|| TempDir::new("redis"));
        let own_dir: Vec<String> = dir
            .iter()
            .flat_map(|d| ["--dir".to_string(), d.0.display().to_string()])
            .collect();
        // Another test may take the port between `free_port` and the
        // server's bind (a cluster node's bus port is its port + 10000): the
        // server then exits, and whatever else listens there answers. Only a
        // listener reporting our child's pid counts; otherwise try again.
        for _ in 0..8 {
            let port = free_port();
            let mut child = Command::new(bin)
                .args(file)
                .args([
                    "--port",
                    &port.to_string(),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ])
                .args(&own_dir)
                .args(extra)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("cannot start {bin} ({e}); run `cargo xtask test`, which installs it")
                });
            if listening_pid(port, &mut child) == Some(child.id()) {
                return RedisServer {
                    child,
                    port,
                    _dir: dir,
                };
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("{bin} did not come up on a free port in 8 attempts");
    }

    /// A new connection to it.
    pub fn conn(&self) -> Conn {
        Conn::connect(self.port)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `redsim` RESP server running in this process, on a private port.
pub struct RedsimServer {
    pub port: u16,
    _server: redsim_cli::RunningServer,
}

impl RedsimServer {
    /// Starts a server with `--name value` style options (e.g. `["--hz", "100"]`),
    /// after a configuration file if the first of them is not an option.
    pub fn start(extra: &[&str]) -> RedsimServer {
        let (file, extra) = match extra {
            [f, rest @ ..] if !f.starts_with('-') => (Some(f.to_string()), rest),
            _ => (None, extra),
        };
        // As for redis-server, the free port may be taken before the bind:
        // a failed start tries another one.
        let mut last_err = String::new();
        for _ in 0..8 {
            let port = free_port();
            let mut args: Vec<String> = file.iter().cloned().collect();
            args.extend(["--port".into(), port.to_string()]);
            args.extend(extra.iter().map(|s| s.to_string()));
            let opts = redsim_cli::ServerOptions::from_args(&args).expect("valid server options");
            match redsim_cli::spawn(opts) {
                Ok(server) => {
                    wait_for_port(port);
                    return RedsimServer {
                        port,
                        _server: server,
                    };
                }
                Err(e) => last_err = format!("{e:?}"),
            }
        }
        panic!("redsim server did not start on a free port in 8 attempts: {last_err}");
    }

    /// A new connection to it.
    pub fn conn(&self) -> Conn {
        Conn::connect(self.port)
    }
}

/// The pid of the redis-server answering on `port` once it listens (None if
/// `child` exited first, or something else answers).
fn listening_pid(port: u16, child: &mut Child) -> Option<u32> {
    for _ in 0..500 {
        if child.try_wait().ok().flatten().is_some() {
            return None;
        }
        if let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) {
            let mut c = Conn {
                stream,
                buf: Vec::new(),
            };
            c.stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .ok()?;
            // Whatever answers may also hang up (a server exiting after a
            // failed bind resets the connection): that is "not ours" too.
            let info = match c.try_cmd(&["INFO", "server"])? {
                Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8_lossy(&b).into_owned(),
                _ => return None,
            };
            return info
                .lines()
                .find_map(|l| l.strip_prefix("process_id:"))
                .and_then(|v| v.trim().parse().ok());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// An address of this machine outside the loopback interface (the one its
/// default route leaves by), for connections a server must see as remote.
/// Finding it sends nothing: a UDP socket is only connected.
pub fn non_loopback_ip() -> Option<std::net::IpAddr> {
    let sock = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    for target in ["192.0.2.1:9", "10.255.255.1:9", "8.8.8.8:53"] {
        if sock.connect(target).is_ok() {
            if let Ok(a) = sock.local_addr() {
                if !a.ip().is_loopback() && !a.ip().is_unspecified() {
                    return Some(a.ip());
                }
            }
        }
    }
    None
}

/// Waits (wall clock, real servers) until `f` holds, for at most `within`.
pub fn eventually(what: &str, within: Duration, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < within, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_port(port: u16) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("nothing listening on port {port} after 10 s");
}

/// A blocking RESP connection.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    /// Connects to `127.0.0.1:port`.
    pub fn connect(port: u16) -> Conn {
        Conn::connect_to(std::net::Ipv4Addr::LOCALHOST.into(), port)
    }

    /// Connects to `ip:port`: an address other than loopback makes a
    /// client the server sees as remote (protected mode).
    pub fn connect_to(ip: std::net::IpAddr, port: u16) -> Conn {
        let stream = TcpStream::connect((ip, port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        stream.set_nodelay(true).ok();
        Conn {
            stream,
            buf: Vec::new(),
        }
    }

    /// Sends one command and reads its reply.
    pub fn cmd(&mut self, args: &[&str]) -> Frame {
        let args: Vec<&[u8]> = args.iter().map(|s| s.as_bytes()).collect();
        self.cmd_bytes(&args)
    }

    /// Sends one command and reads its reply; `None` if the connection
    /// fails or closes first (for probing a port that may not be ours).
    pub fn try_cmd(&mut self, args: &[&str]) -> Option<Frame> {
        let args: Vec<&[u8]> = args.iter().map(|s| s.as_bytes()).collect();
        self.stream.write_all(&encode_request(&args)).ok()?;
        loop {
            if let Some((f, used)) = parse_frame(&self.buf).ok()? {
                self.buf.drain(..used);
                return Some(f);
            }
            let mut chunk = [0u8; 65536];
            match self.stream.read(&mut chunk) {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
    }

    /// Sends one command given as byte strings and reads its reply.
    pub fn cmd_bytes(&mut self, args: &[&[u8]]) -> Frame {
        self.send_raw(&encode_request(args));
        self.read_frame()
            .expect("a reply before the connection closed")
    }

    /// Sends one command given as owned byte strings (as [`parse`] and
    /// [`args`] make them) and reads its reply.
    pub fn cmd_args(&mut self, args: &[Vec<u8>]) -> Frame {
        let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
        self.cmd_bytes(&refs)
    }

    /// Writes raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("write");
    }

    /// Reads one reply; `None` if the server closed the connection first.
    pub fn read_frame(&mut self) -> Option<Frame> {
        loop {
            if let Some((f, used)) = parse_frame(&self.buf).expect("well-formed reply") {
                self.buf.drain(..used);
                return Some(f);
            }
            let mut chunk = [0u8; 65536];
            match self.stream.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) => panic!("read failed: {e}"),
            }
        }
    }

    /// Sends `cmds` pipelined, in batches of 500, and returns the replies.
    pub fn pipeline(&mut self, cmds: &[Vec<Vec<u8>>]) -> Vec<Frame> {
        let mut out = Vec::with_capacity(cmds.len());
        for batch in cmds.chunks(500) {
            let mut bytes = Vec::new();
            for cmd in batch {
                bytes.extend(encode_request(cmd));
            }
            self.send_raw(&bytes);
            for _ in batch {
                out.push(self.read_frame().expect("a reply"));
            }
        }
        out
    }

    /// True once the server has closed the connection (reads EOF).
    /// Whether the server closes the connection within `wait`: for a
    /// connection expected to stay open, without waiting the full read
    /// timeout. Bytes that arrive meanwhile are kept for the next reply.
    pub fn closes_within(&mut self, wait: Duration) -> bool {
        self.stream.set_read_timeout(Some(wait)).expect("timeout");
        let mut b = [0u8; 4096];
        let closed = match self.stream.read(&mut b) {
            Ok(0) => true,
            Ok(n) => {
                self.buf.extend_from_slice(&b[..n]);
                false
            }
            Err(_) => false,
        };
        self.stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        closed
    }

    /// How long a read may wait for the server (20 s by default), for a
    /// test whose reply comes only after work that a loaded machine may
    /// stretch (a script run to Redsim's horizon in a debug build).
    pub fn set_read_timeout(&mut self, wait: Duration) {
        self.stream.set_read_timeout(Some(wait)).expect("timeout");
    }

    /// A reply if one arrives within `wait`, for a test that must not
    /// block on a reply that may come only after it acts (a busy script).
    pub fn reply_within(&mut self, wait: Duration) -> Option<Frame> {
        if let Some((f, used)) = parse_frame(&self.buf).expect("well-formed reply") {
            self.buf.drain(..used);
            return Some(f);
        }
        if self.closes_within(wait) {
            return None;
        }
        let (f, used) = parse_frame(&self.buf).expect("well-formed reply")?;
        self.buf.drain(..used);
        Some(f)
    }

    pub fn is_closed(&mut self) -> bool {
        let mut b = [0u8; 1];
        matches!(self.stream.read(&mut b), Ok(0))
    }
}

/// A command line split as redis-cli splits it (quotes, `\x00` escapes).
pub fn parse(line: &str) -> Vec<Vec<u8>> {
    redsim_engine::proto::resp::split_args(line.as_bytes()).expect("balanced quotes in test line")
}

/// A command from its words.
pub fn args(parts: &[&str]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.as_bytes().to_vec()).collect()
}

/// `s` cut to at most `max` bytes (on a character boundary), marked `...` if cut.
fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut at = max;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
        s.push_str("...");
    }
    s
}

/// A command for a failure message: long arguments and long commands
/// (PFADD of a thousand elements, a 512 MB SETRANGE) are abridged.
pub fn show(args: &[Vec<u8>]) -> String {
    const MAX_ARGS: usize = 16;
    let mut words: Vec<String> = args
        .iter()
        .take(MAX_ARGS)
        .map(|a| {
            let t = format!("{:?}", String::from_utf8_lossy(a));
            if a.len() > 60 {
                format!("{}({} bytes)", cut(t, 60), a.len())
            } else {
                t
            }
        })
        .collect();
    if args.len() > MAX_ARGS {
        words.push(format!("... ({} arguments)", args.len()));
    }
    words.join(" ")
}

/// The message of a failed comparison: what was sent and both replies,
/// abridged so that a 12 KB HyperLogLog does not flood the output.
pub(crate) fn differ_message(what: &str, want: &Frame, got: &Frame) -> String {
    format!(
        "replies differ {what}\n  redis:  {}\n  redsim: {}",
        cut(format_reply(want), 2000),
        cut(format_reply(got), 2000)
    )
}

/// The integer field `name` of a server's `INFO section`, if it has one.
pub fn info_int(c: &mut Conn, section: &str, name: &str) -> Option<i64> {
    let text = match c.cmd(&["INFO", section]) {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8_lossy(&b).into_owned(),
        other => panic!("INFO {section} replies {other:?}"),
    };
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.trim().parse().ok())
}

/// A server's `used_memory` (INFO memory).
pub fn used_memory(c: &mut Conn) -> i64 {
    info_int(c, "memory", "used_memory").expect("used_memory in INFO memory")
}

/// `(keyspace_hits, keyspace_misses)` from a server's `INFO stats`.
pub fn keyspace_stats(c: &mut Conn) -> (i64, i64) {
    let Frame::Bulk(info) = c.cmd(&["INFO", "stats"]) else {
        panic!("INFO stats replies a bulk string");
    };
    let info = String::from_utf8_lossy(&info).into_owned();
    let field = |name: &str| -> i64 {
        info.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in INFO"))
    };
    (field("keyspace_hits:"), field("keyspace_misses:"))
}

/// What a RESP2 client reads back of a frame: Redis' downgrade of each
/// RESP3 type (for the properties of the codec and of command replies).
pub fn as_resp2(f: &Frame) -> Frame {
    match f {
        Frame::Array(v) | Frame::Set(v) | Frame::Push(v) => {
            Frame::Array(v.iter().map(as_resp2).collect())
        }
        Frame::Map(p) => Frame::Array(
            p.iter()
                .flat_map(|(k, v)| [as_resp2(k), as_resp2(v)])
                .collect(),
        ),
        Frame::Double(d) => Frame::Bulk(fmt_double(*d).into_bytes()),
        Frame::Boolean(b) => Frame::Integer(*b as i64),
        Frame::BigNumber(s) => Frame::Bulk(s.clone().into_bytes()),
        Frame::Verbatim(_, t) => Frame::Bulk(t.clone()),
        other => other.clone(),
    }
}

/// The bulk strings of an array or set reply (keys, members).
pub fn bulk_items(f: &Frame) -> Vec<Vec<u8>> {
    match f {
        Frame::Array(v) | Frame::Set(v) => bulk_strings(v),
        other => panic!("array expected, got {other:?}"),
    }
}

/// The bytes of frames that must all be bulk strings.
pub fn bulk_strings(items: &[Frame]) -> Vec<Vec<u8>> {
    items
        .iter()
        .map(|x| match x {
            Frame::Bulk(b) => b.clone(),
            other => panic!("bulk string expected, got {other:?}"),
        })
        .collect()
}

/// The options full SCAN-family iterations are compared with: none, a
/// COUNT below and above the collection's size, MATCH patterns (`{}` is
/// the elements' prefix) alone and with COUNT, a class, and no match.
pub const SCAN_OPTIONS: [&[&str]; 9] = [
    &[],
    &["COUNT", "1"],
    &["COUNT", "1000"],
    &["COUNT", "5000"],
    &["MATCH", "{}1*"],
    &["MATCH", "*7", "COUNT", "3"],
    &["MATCH", "*9", "COUNT", "2"],
    &["MATCH", "[a-c]"],
    &["MATCH", "nothing*"],
];

/// A full SCAN-family iteration on one connection: `cmd` (`["SCAN"]`,
/// `["HSCAN", key]`) with each cursor in turn, then `opts`, until the
/// cursor is 0 again; each page's elements go to `page`. Returns the
/// number of pages, or the first reply that is not a page (an error).
pub fn scan_all(
    c: &mut Conn,
    cmd: &[&str],
    opts: &[&str],
    mut page: impl FnMut(&[Frame]),
) -> Result<usize, Frame> {
    let mut cursor = "0".to_string();
    for pages in 1..=100_000 {
        let mut a = cmd.to_vec();
        a.push(&cursor);
        a.extend_from_slice(opts);
        let reply = c.cmd(&a);
        let Frame::Array(parts) = &reply else {
            return Err(reply);
        };
        let [Frame::Bulk(next), Frame::Array(items)] = parts.as_slice() else {
            panic!("{} reply shape {reply:?}", cmd[0]);
        };
        page(items);
        cursor = String::from_utf8_lossy(next).into_owned();
        if cursor == "0" {
            return Ok(pages);
        }
    }
    panic!("{} never finished", cmd.join(" "));
}

/// Whether two replies agree: `want` is Redis', `got` redsim's.
pub type Agree = fn(want: &Frame, got: &Frame) -> bool;

/// A real Redis and a redsim server with one connection to each: the
/// differential tests send every command to both and compare the replies.
/// (For several clients per server, see [`Differ`].)
pub struct Pair {
    /// The connection to Redis, for what a test sends to one side only.
    pub redis: Conn,
    /// The connection to redsim.
    pub sim: Conn,
    /// Replies compared so far.
    pub compared: usize,
    agree: Agree,
    redis_7_0: Option<bool>,
    servers: (RedisServer, RedsimServer),
}

impl Pair {
    /// Both servers with the same `extra` options.
    pub fn start(extra: &[&str]) -> Pair {
        Pair::start_with(extra, extra)
    }

    /// Servers with their own options (for parameters only 7.2 knows).
    pub fn start_with(redis_extra: &[&str], sim_extra: &[&str]) -> Pair {
        let r = RedisServer::start(redis_extra);
        let s = RedsimServer::start(sim_extra);
        Pair {
            redis: r.conn(),
            sim: s.conn(),
            compared: 0,
            agree: |want, got| want == got,
            redis_7_0: None,
            servers: (r, s),
        }
    }

    /// Compares replies with `agree` instead of `==`: for the differences
    /// between the 7.0 reference and the 7.2 redsim follows that a file
    /// accepts everywhere (the printing of doubles, in sorted sets).
    pub fn agreeing(mut self, agree: Agree) -> Pair {
        self.agree = agree;
        self
    }

    /// Sends `args` to both; returns (Redis' reply, redsim's reply).
    pub fn both_args(&mut self, args: &[Vec<u8>]) -> (Frame, Frame) {
        (self.redis.cmd_args(args), self.sim.cmd_args(args))
    }

    /// Sends a redis-cli style `line` to both; returns both replies.
    pub fn both(&mut self, line: &str) -> (Frame, Frame) {
        self.both_args(&parse(line))
    }

    /// Sends `args` to both and asserts the replies agree once each went
    /// through `norm` (e.g. sorting an unordered reply); returns Redis'
    /// normalised reply.
    pub fn check_with(&mut self, args: &[Vec<u8>], norm: fn(Frame) -> Frame) -> Frame {
        let (want, got) = self.both_args(args);
        let (want, got) = (norm(want), norm(got));
        assert!(
            (self.agree)(&want, &got),
            "{}",
            differ_message(
                &format!("after {} commands for {}", self.compared, show(args)),
                &want,
                &got
            )
        );
        self.compared += 1;
        want
    }

    /// Sends `args` to both and asserts the replies agree; returns Redis'.
    pub fn check_args(&mut self, args: &[Vec<u8>]) -> Frame {
        self.check_with(args, |f| f)
    }

    /// [`Pair::check_args`] for a redis-cli style `line`.
    pub fn check(&mut self, line: &str) -> Frame {
        self.check_args(&parse(line))
    }

    /// Runs a corpus: one command per line, each checked; blank lines and
    /// `#` comments are skipped. Returns the number of commands.
    pub fn corpus(&mut self, text: &str) -> usize {
        self.corpus_by(text, |p, line| {
            p.check(line);
        })
    }

    /// Runs a corpus whose lines `run` interprets (a file's own markers,
    /// such as `~` for an unordered reply); blank lines and `#` comments are
    /// skipped. Returns the number of lines run.
    pub fn corpus_by(&mut self, text: &str, mut run: impl FnMut(&mut Pair, &str)) -> usize {
        let mut n = 0;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            run(self, line);
            n += 1;
        }
        n
    }

    /// A further connection to each server: (Redis, redsim).
    pub fn new_conns(&self) -> (Conn, Conn) {
        (self.servers.0.conn(), self.servers.1.conn())
    }

    /// Runs a line on Redis only.
    pub fn redis_only(&mut self, line: &str) -> Frame {
        self.redis.cmd_args(&parse(line))
    }

    /// Runs a line on redsim only.
    pub fn sim_only(&mut self, line: &str) -> Frame {
        self.sim.cmd_args(&parse(line))
    }

    /// Switches both connections to RESP3. The HELLO replies differ in
    /// version and client id: only their shape is compared.
    pub fn hello3(&mut self) {
        let (r, s) = self.both("HELLO 3");
        assert!(
            matches!(r, Frame::Map(_)) && matches!(s, Frame::Map(_)),
            "HELLO 3: {r:?} / {s:?}"
        );
    }

    /// The same servers, both connections switched to RESP3 by
    /// [`Pair::hello3`]: how the RESP3 tests start.
    pub fn resp3(mut self) -> Pair {
        self.hello3();
        self
    }

    /// True if the reference server is Redis 7.0, for the places where 7.0
    /// and 7.2 differ (redsim follows 7.2). Asked once, then remembered.
    pub fn redis_is_7_0(&mut self) -> bool {
        if let Some(v) = self.redis_7_0 {
            return v;
        }
        let v = is_redis_7_0(&mut self.redis);
        self.redis_7_0 = Some(v);
        v
    }

    /// `(keyspace_hits, keyspace_misses)` of each server: (Redis, redsim).
    pub fn stats(&mut self) -> ((i64, i64), (i64, i64)) {
        (
            keyspace_stats(&mut self.redis),
            keyspace_stats(&mut self.sim),
        )
    }

    /// Asserts that both servers counted the same keyspace hits and misses
    /// so far; returns Redis' `(keyspace_hits, keyspace_misses)`.
    pub fn assert_same_stats(&mut self) -> (i64, i64) {
        let (want, got) = self.stats();
        assert_eq!(got, want, "(keyspace_hits, keyspace_misses)");
        want
    }

    /// Runs `step` (commands sent to both) and asserts that it moved both
    /// servers' keyspace hits and misses by as much: which lookups count
    /// is part of a command's behaviour. `what` names the step in a failure.
    pub fn same_lookups<R>(&mut self, what: impl Display, step: impl FnOnce(&mut Pair) -> R) -> R {
        let (r0, s0) = self.stats();
        let out = step(self);
        let (r1, s1) = self.stats();
        assert_eq!(
            (s1.0 - s0.0, s1.1 - s0.1),
            (r1.0 - r0.0, r1.1 - r0.1),
            "(hits, misses) counted by {what}"
        );
        out
    }

    /// Asserts that full SCAN-family iterations agree on both servers for
    /// each of [`SCAN_OPTIONS`] (`{}` in a pattern stands for `prefix`):
    /// `scan` makes one on a connection with the options it is given, and
    /// returns what it gathered. `what` names the scan in a failure.
    pub fn check_full_scans<T: PartialEq + Debug>(
        &mut self,
        what: &str,
        prefix: &str,
        mut scan: impl FnMut(&mut Conn, &[&str]) -> T,
    ) {
        for opts in SCAN_OPTIONS {
            let opts: Vec<String> = opts.iter().map(|o| o.replace("{}", prefix)).collect();
            let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
            let r = scan(&mut self.redis, &opts);
            let s = scan(&mut self.sim, &opts);
            assert_eq!(s, r, "{what} {opts:?}");
        }
    }

    /// Sends a HELP `line` to both and compares the replies with
    /// [`assert_help`]; returns the lines above the footer.
    pub fn check_help(&mut self, line: &str) -> Vec<Frame> {
        let v70 = self.redis_is_7_0();
        let (want, got) = self.both(line);
        self.compared += 1;
        assert_help(line, want, got, v70)
    }
}

/// True if `c` is connected to Redis 7.0 (see [`Pair::redis_is_7_0`]).
pub fn is_redis_7_0(c: &mut Conn) -> bool {
    let Frame::Bulk(info) = c.cmd(&["INFO", "server"]) else {
        panic!("INFO server replies a bulk string");
    };
    String::from_utf8_lossy(&info).contains("redis_version:7.0.")
}

/// Asserts that a HELP reply of Redis (`want`) and of redsim (`got`) have
/// the same lines above the footer ([`help_bodies`]); returns them.
pub fn assert_help(what: &str, want: Frame, got: Frame, redis_7_0: bool) -> Vec<Frame> {
    let (want, got) = help_bodies(what, want, got, redis_7_0);
    assert_eq!(got, want, "{what}: the lines above the footer");
    got
}

/// Asserts the footers of a HELP reply of Redis (`want`) and of redsim
/// (`got`): "Prints this help." in 7.0 and "Print this help." in 7.2
/// (addReplyHelp), which redsim follows whatever the reference. Returns
/// the lines above them: (Redis', redsim's).
pub fn help_bodies(
    what: &str,
    want: Frame,
    got: Frame,
    redis_7_0: bool,
) -> (Vec<Frame>, Vec<Frame>) {
    let (Frame::Array(mut want), Frame::Array(mut got)) = (want, got) else {
        panic!("{what}: HELP replies with an array");
    };
    assert_eq!(
        got.pop(),
        Some(Frame::simple("    Print this help.")),
        "{what}: redsim's footer"
    );
    let footer = if redis_7_0 {
        "    Prints this help."
    } else {
        "    Print this help."
    };
    assert_eq!(
        want.pop(),
        Some(Frame::simple(footer)),
        "{what}: Redis' footer"
    );
    (want, got)
}

/// One `#[test]` per corpus, each on fresh servers started with no options
/// and replayed by the file's own `run(&mut Pair, &str)` (which knows the
/// file's line markers, such as `~` for an unordered reply): most families
/// have several tests that are a corpus and nothing more.
#[macro_export]
macro_rules! corpus_tests {
    ($run:path => $($(#[$meta:meta])* $name:ident: $text:expr;)+) => {
        $(
            $(#[$meta])*
            #[test]
            fn $name() {
                let mut p = $crate::Pair::start(&[]);
                $run(&mut p, $text);
            }
        )+
    };
}
