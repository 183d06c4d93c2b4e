//! Test harness: real `redis-server` processes, the in-process `redsim` server, and a small blocking RESP client.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use redsim_engine::resp::{encode_request, parse_frame, Frame};

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
        let port = free_port();
        let child = Command::new(&bin)
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
        wait_for_port(port);
        RedisServer { child, port }
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
        let port = free_port();
        let mut args: Vec<String> = vec!["--port".into(), port.to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let opts = redsim_cli::ServerOptions::from_args(&args).expect("valid server options");
        let server = redsim_cli::spawn(opts).expect("redsim server starts");
        wait_for_port(port);
        RedsimServer {
            port,
            _server: server,
        }
    }

    /// A new connection to it.
    pub fn conn(&self) -> Conn {
        Conn::connect(self.port)
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

    /// Sends one command given as byte strings and reads its reply.
    pub fn cmd_bytes(&mut self, args: &[&[u8]]) -> Frame {
        self.send_raw(&encode_request(args));
        self.read_frame()
            .expect("a reply before the connection closed")
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
        let args = redsim_engine::resp::split_args(line.as_bytes()).expect("balanced quotes");
        let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
        let want = self.redis[i].cmd_bytes(&refs);
        let got = self.sim[i].cmd_bytes(&refs);
        assert_eq!(
            got,
            want,
            "replies differ on connection {i} for `{line}`\n  redis:  {}\n  redsim: {}",
            redsim_engine::clifmt::format_reply(&want),
            redsim_engine::clifmt::format_reply(&got)
        );
        self.compared += 1;
        want
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
