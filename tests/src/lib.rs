//! Test harness: real `redis-server` processes, the in-process `redsim` server, and a small blocking RESP client.

use std::collections::BTreeSet;
use std::fmt::{Debug, Display};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use redsim_engine::proto::clifmt::format_reply;
use redsim_engine::proto::resp::fmt_double;
pub use redsim_engine::proto::resp::{encode_request, parse_frame, Frame};

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
}

impl RedisServer {
    /// Starts `redis-server` (or `$REDSIM_REDIS_SERVER`) with persistence off.
    /// Panics with a clear message if the binary is missing: the test command
    /// (`cargo xtask test`) installs it.
    pub fn start(extra: &[&str]) -> RedisServer {
        let bin = std::env::var("REDSIM_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        // Another test may take the port between `free_port` and the
        // server's bind (a cluster node's bus port is its port + 10000): the
        // server then exits, and whatever else listens there answers. Only a
        // listener reporting our child's pid counts; otherwise try again.
        for _ in 0..8 {
            let port = free_port();
            let mut child = Command::new(&bin)
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
                .args(extra)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("cannot start {bin} ({e}); run `cargo xtask test`, which installs it")
                });
            if listening_pid(port, &mut child) == Some(child.id()) {
                return RedisServer { child, port };
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
    /// Starts a server with `--name value` style options (e.g. `["--hz", "100"]`).
    pub fn start(extra: &[&str]) -> RedsimServer {
        // As for redis-server, the free port may be taken before the bind:
        // a failed start tries another one.
        let mut last_err = String::new();
        for _ in 0..8 {
            let port = free_port();
            let mut args: Vec<String> = vec!["--port".into(), port.to_string()];
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
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
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
    pub fn is_closed(&mut self) -> bool {
        let mut b = [0u8; 1];
        matches!(self.stream.read(&mut b), Ok(0))
    }
}

/// A real Redis and a redsim server started with the same options, with
/// `n` connections to each; commands go to connection `i` of both and the
/// replies must be equal. For differential tests that need several clients.
pub struct Differ {
    pub redis: Vec<Conn>,
    pub sim: Vec<Conn>,
    /// Replies compared so far.
    pub compared: usize,
    _servers: (RedisServer, RedsimServer),
}

impl Differ {
    /// Starts both servers with `extra` options and opens `n` connections to each.
    pub fn start(n: usize, extra: &[&str]) -> Differ {
        let r = RedisServer::start(extra);
        let s = RedsimServer::start(extra);
        Differ {
            redis: (0..n).map(|_| r.conn()).collect(),
            sim: (0..n).map(|_| s.conn()).collect(),
            compared: 0,
            _servers: (r, s),
        }
    }

    /// Sends a redis-cli style `line` on connection `i` of both servers and
    /// asserts equal replies; returns the reply.
    pub fn check(&mut self, i: usize, line: &str) -> Frame {
        let args = parse(line);
        let want = self.redis[i].cmd_args(&args);
        let got = self.sim[i].cmd_args(&args);
        assert!(
            got == want,
            "{}",
            differ_message(&format!("on connection {i} for `{line}`"), &want, &got)
        );
        self.compared += 1;
        want
    }

    /// A WATCH round: connection 0 watches `key`, connection 1 runs `cmd`,
    /// then 0 runs MULTI, PING, EXEC; every reply is compared. Returns
    /// EXEC's: a null array if `cmd` touched the key (a signalled write).
    pub fn watch_round(&mut self, key: &str, cmd: &str) -> Frame {
        self.check(0, &format!("WATCH {key}"));
        self.check(1, cmd);
        self.check(0, "MULTI");
        self.check(0, "PING");
        self.check(0, "EXEC")
    }

    /// WATCH rounds ([`Differ::watch_round`]) on `key`, one a scenario
    /// `(setup, cmd)`: connection 0 runs `prepare`, then `setup`; after the
    /// round, GET `key` shows what `cmd` left.
    pub fn watch_scenarios(&mut self, key: &str, prepare: &[&str], scenarios: &[(&str, &str)]) {
        for (setup, cmd) in scenarios {
            for line in prepare.iter().chain([setup]) {
                self.check(0, line);
            }
            self.watch_round(key, cmd);
            self.check(0, &format!("GET {key}"));
        }
    }

    /// Runs a script: each line is `<conn> <command>` (e.g. `1 SET k v`);
    /// blank lines and `#` comments are skipped; `sleep <ms>` waits on both.
    pub fn script(&mut self, text: &str) {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (who, cmd) = line.split_once(' ').expect("`<conn> <command>`");
            if who == "sleep" {
                std::thread::sleep(Duration::from_millis(cmd.parse().expect("ms")));
                continue;
            }
            self.check(who.parse().expect("connection index"), cmd);
        }
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

/// A command from its words, owned: what the random tests' generators
/// build and extend.
pub fn words(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
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
fn differ_message(what: &str, want: &Frame, got: &Frame) -> String {
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

/// The seeded xorshift generator of the randomised differential tests:
/// the same seed gives the same commands on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `N` of `items`, picked in turn (repeats allowed).
    pub fn picks<'a, const N: usize>(&mut self, items: &[&'a str]) -> [&'a str; N] {
        std::array::from_fn(|_| self.pick(items))
    }

    /// True once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// True `percent` times in a hundred.
    pub fn percent(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A seeded random differential test on fresh servers (no options):
/// `steps` times, `next` draws a command from the generator and `check`
/// sends it to both servers and compares (given the step number). Only
/// `next` draws, so the commands depend on the seed alone, whatever the
/// checks send. Returns the servers, for the final comparisons.
pub fn random_steps<C>(
    seed: u64,
    steps: usize,
    mut next: impl FnMut(&mut Rng) -> C,
    mut check: impl FnMut(&mut Pair, usize, C),
) -> Pair {
    let mut p = Pair::start(&[]);
    let mut rng = Rng(seed);
    for step in 0..steps {
        let cmd = next(&mut rng);
        check(&mut p, step, cmd);
    }
    p
}

/// A command's words as arguments.
pub fn word_args(words: &[String]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

/// The largest 64-bit integer, as the random tests' alphabets spell it
/// (Redis' integer parsing and overflow checks live at the bounds).
pub const I64_MAX: &str = "9223372036854775807";
/// The smallest 64-bit integer, as the random tests' alphabets spell it.
pub const I64_MIN: &str = "-9223372036854775808";

/// The counts the random tests give HRANDFIELD, SRANDMEMBER and SPOP:
/// zero, positive (distinct picks), negative (repeats allowed) and not a
/// number.
pub const RANDOM_COUNTS: [&str; 9] = ["0", "1", "2", "3", "5", "-1", "-3", "-8", "x"];

/// The seeds of a randomised test: `base` alone by default; `{PREFIX}_SEED`
/// (hex) replays one failing seed, and `{PREFIX}_SEEDS=n` adds n more, so a
/// longer soak needs no code change.
pub fn fuzz_seeds(prefix: &str, base: u64) -> Vec<u64> {
    if let Some(only) = std::env::var(format!("{prefix}_SEED"))
        .ok()
        .and_then(|v| u64::from_str_radix(v.trim_start_matches("0x"), 16).ok())
    {
        return vec![only];
    }
    let more: u64 = std::env::var(format!("{prefix}_SEEDS"))
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    (0..=more)
        .map(|i| base.wrapping_add(i.wrapping_mul(0x9e37_79b9)))
        .collect()
}

/// One `#[test]` per line, each calling `run(seed, args...)` for every
/// seed of [`fuzz_seeds`]`(prefix, base)`: the randomised tests of a family
/// differ only in their base seed and the run's settings.
#[macro_export]
macro_rules! seeded_tests {
    ($prefix:literal, $run:path => $($(#[$meta:meta])* $name:ident: $base:expr, ($($arg:expr),*);)+) => {
        $(
            $(#[$meta])*
            #[test]
            fn $name() {
                for seed in $crate::fuzz_seeds($prefix, $base) {
                    $run(seed, $($arg),*);
                }
            }
        )+
    };
}

/// Redis' `COMMAND INFO` entry for `name` (`get`, `config|get`).
pub fn command_info(c: &mut Conn, name: &str) -> Vec<Frame> {
    let Frame::Array(mut infos) = c.cmd(&["COMMAND", "INFO", name]) else {
        panic!("COMMAND INFO reply");
    };
    let Some(Frame::Array(info)) = infos.pop() else {
        panic!("no COMMAND INFO for {name}");
    };
    info
}

/// Asserts that `cmd`'s table entry says what Redis' `COMMAND INFO` entry
/// `info` says: name (`full`, e.g. `object|encoding`), arity, flags, key
/// positions and ACL categories.
pub fn assert_command_info(info: &[Frame], cmd: &redsim_engine::cmd::Command, full: &str) {
    assert!(
        info.len() >= 7,
        "{full}: COMMAND INFO has {} fields",
        info.len()
    );
    assert_eq!(info[0], Frame::bulk(full), "{full} name");
    assert_eq!(info[1], Frame::Integer(cmd.arity as i64), "{full} arity");
    let flags: Vec<Frame> = cmd
        .flags
        .names()
        .map(|f| Frame::simple(f.to_string()))
        .collect();
    assert_eq!(info[2], Frame::Array(flags), "{full} flags");
    let keys = [cmd.keys.0, cmd.keys.1, cmd.keys.2].map(|k| Frame::Integer(k as i64));
    assert_eq!(&info[3..6], &keys, "{full} key positions");
    let acl: Vec<Frame> = cmd
        .acl
        .names()
        .map(|a| Frame::simple(format!("@{a}")))
        .collect();
    assert_eq!(info[6], Frame::Array(acl), "{full} ACL categories");
}

/// The commands of `group` (`string`, `hash`, ...), from the one command
/// list, in table order.
pub fn group_commands(group: &str) -> Vec<&'static redsim_engine::cmd::Command> {
    redsim_engine::cmd::all()
        .filter(|c| c.group == group)
        .collect()
}

/// Asserts [`assert_command_info`] for every command of a group's table
/// and its subcommands ([`assert_subcommands`]), each of which must be in
/// `group`.
pub fn assert_command_table<'a>(
    c: &mut Conn,
    commands: impl IntoIterator<Item = &'a redsim_engine::cmd::Command>,
    group: &str,
) {
    for cmd in commands {
        let info = command_info(c, cmd.name);
        assert_command_info(&info, cmd, cmd.name);
        assert_subcommands(&info, cmd);
        assert_eq!(cmd.group, group, "{} group", cmd.name);
    }
}

/// Asserts that the subcommands in Redis' `COMMAND INFO` entry `info` of
/// `cmd` (its tenth field, empty for a plain command) are those of `cmd`'s
/// table, each agreeing as [`assert_command_info`] says.
pub fn assert_subcommands(info: &[Frame], cmd: &redsim_engine::cmd::Command) {
    let Some(Frame::Array(subs)) = info.get(9) else {
        panic!("{} has no subcommand list", cmd.name);
    };
    assert_eq!(
        subs.len(),
        cmd.subcommands.len(),
        "{} subcommands",
        cmd.name
    );
    for sub in subs {
        let Frame::Array(sub) = sub else {
            panic!("{}: subcommand entry {sub:?}", cmd.name);
        };
        let Some(Frame::Bulk(full)) = sub.first() else {
            panic!("{}: subcommand name {sub:?}", cmd.name);
        };
        let full = String::from_utf8_lossy(full).into_owned();
        let word = full.split('|').nth(1).expect("container|sub");
        let ours = cmd
            .subcommand(word.as_bytes())
            .unwrap_or_else(|| panic!("missing subcommand {full}"));
        assert_command_info(sub, ours, &full);
    }
}

/// Asserts that the table's commands of `group` agree with Redis'
/// `COMMAND INFO` ([`assert_command_table`]) and are the whole family:
/// `count` of them, as many as Redis' `COMMAND DOCS` puts in the group;
/// and that they (containers by their subcommands) are Redis' ACL
/// category of the same name, besides `others`, commands of other groups
/// in it.
pub fn assert_command_group(c: &mut Conn, group: &str, count: usize, others: &[&str]) {
    let cmds = group_commands(group);
    assert_eq!(cmds.len(), count, "Redis 7.2's {group} commands");
    assert_command_table(c, cmds.iter().copied(), group);
    assert_eq!(
        commands_in_group(c, group),
        count,
        "Redis' {group} commands"
    );
    let mut theirs = commands_in_acl_category(c, group);
    theirs.retain(|n| !others.contains(&n.as_str()));
    // A container is listed by its subcommands only.
    let ours: BTreeSet<String> = cmds
        .iter()
        .flat_map(|cmd| match cmd.subcommands {
            [] => vec![cmd.name.to_string()],
            subs => subs
                .iter()
                .map(|sub| format!("{}|{}", cmd.name, sub.name))
                .collect(),
        })
        .collect();
    assert_eq!(theirs, ours, "@{group}");
}

/// How many commands Redis' `COMMAND DOCS` puts in `group`.
pub fn commands_in_group(c: &mut Conn, group: &str) -> usize {
    let Frame::Array(docs) = c.cmd(&["COMMAND", "DOCS"]) else {
        panic!("COMMAND DOCS reply");
    };
    docs.chunks(2)
        .filter(|pair| {
            let Some(Frame::Array(fields)) = pair.get(1) else {
                return false;
            };
            fields
                .chunks(2)
                .any(|kv| kv[0] == Frame::bulk("group") && kv.get(1) == Some(&Frame::bulk(group)))
        })
        .count()
}

/// The names of the commands in ACL category `category`
/// (`COMMAND LIST FILTERBY ACLCAT`).
pub fn commands_in_acl_category(c: &mut Conn, category: &str) -> BTreeSet<String> {
    let Frame::Array(names) = c.cmd(&["COMMAND", "LIST", "FILTERBY", "ACLCAT", category]) else {
        panic!("COMMAND LIST reply");
    };
    names
        .iter()
        .map(|n| match n {
            Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
            other => panic!("command name {other:?}"),
        })
        .collect()
}
