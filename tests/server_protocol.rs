//! The RESP server's wire behaviour, byte for byte against a real redis-server: inline and multibulk requests, pipelining, split writes, RESP3, protocol errors, QUIT, and many concurrent clients.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use redsim_cli::{RunningServer, ServerOptions};
use redsim_engine::proto::resp::PROTO_INLINE_MAX_SIZE;
use redsim_tests::{encode_request, parse_frame, Conn, Frame, RedisServer, RedsimServer};

/// A raw connection: what goes in and comes out are bytes, not frames.
struct Raw {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Raw {
    fn connect(port: u16) -> Raw {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.set_nodelay(true).unwrap();
        Raw {
            stream,
            buf: Vec::new(),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("write");
    }

    /// The exact bytes of the next `n` replies.
    fn replies(&mut self, n: usize) -> Vec<u8> {
        let mut used = 0;
        for _ in 0..n {
            loop {
                if let Some((_, len)) = parse_frame(&self.buf[used..]).expect("well-formed reply") {
                    used += len;
                    break;
                }
                self.fill();
            }
        }
        self.buf.drain(..used).collect()
    }

    /// The next reply, parsed.
    fn frame(&mut self) -> Frame {
        let bytes = self.replies(1);
        parse_frame(&bytes).unwrap().unwrap().0
    }

    fn fill(&mut self) {
        let mut chunk = [0u8; 65536];
        match self.stream.read(&mut chunk) {
            Ok(0) => panic!(
                "connection closed; unparsed bytes: {:?}",
                String::from_utf8_lossy(&self.buf)
            ),
            Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
            Err(e) => panic!("read failed: {e}"),
        }
    }

    /// Everything the server sends until it closes the connection. Fails if
    /// it stays open (read timeout) or resets instead of closing cleanly.
    fn until_closed(&mut self) -> Vec<u8> {
        let mut chunk = [0u8; 65536];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return std::mem::take(&mut self.buf),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    panic!(
                        "connection still open after {:?}",
                        String::from_utf8_lossy(&self.buf)
                    )
                }
                Err(e) => panic!("read failed instead of a clean close: {e}"),
            }
        }
    }
}

/// The same bytes sent on a new connection to each server; what `read`
/// gets from each: (Redis', redsim's).
fn both(
    redis: &RedisServer,
    redsim: &RedsimServer,
    bytes: &[u8],
    read: impl Fn(&mut Raw) -> Vec<u8>,
) -> (Vec<u8>, Vec<u8>) {
    let mut a = Raw::connect(redis.port);
    let mut b = Raw::connect(redsim.port);
    a.send(bytes);
    b.send(bytes);
    (read(&mut a), read(&mut b))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn inline_commands_with_quotes_and_blank_lines() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    // Blank lines, `*0` and `*-1` are skipped; `\x0b` is a blank to C's
    // `isspace` (between arguments) but not inside an unquoted one.
    let input = b"PING\r\n\r\nPING hello\r\n   \nECHO \"a b\\x41\\n\"\nECHO 'it\\'s'\r\n*0\r\n*-1\r\nECHO \"\"\r\n\x0bECHO \"v\"\x0b\r\nPING\n";
    let (want, got) = both(&redis, &redsim, input, |c| c.replies(7));
    assert_eq!(
        text(&got),
        "+PONG\r\n$5\r\nhello\r\n$5\r\na bA\n\r\n$4\r\nit's\r\n$0\r\n\r\n$1\r\nv\r\n+PONG\r\n"
    );
    assert_eq!(text(&got), text(&want));
}

#[test]
fn pipelined_requests_get_replies_in_order() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for i in 0..2000 {
        if i % 3 == 0 {
            input.extend_from_slice(format!("ECHO inline-{i}\r\n").as_bytes());
            expected.push(Frame::bulk(format!("inline-{i}")));
        } else {
            input.extend_from_slice(&encode_request(&["ECHO", &format!("bulk-{i}")]));
            expected.push(Frame::bulk(format!("bulk-{i}")));
        }
    }
    let (want, got) = both(&redis, &redsim, &input, |c| c.replies(expected.len()));
    let mut frames = Vec::new();
    let mut rest = &got[..];
    while let Some((f, used)) = parse_frame(rest).unwrap() {
        frames.push(f);
        rest = &rest[used..];
    }
    assert_eq!(frames, expected);
    assert_eq!(got, want);
}

#[test]
fn requests_split_across_many_writes() {
    let redsim = RedsimServer::start(&[]);
    let mut c = Raw::connect(redsim.port);
    let binary: Vec<u8> = (0..=255u8)
        .chain(b"\r\n$3\r\n*1\r\n".iter().copied())
        .collect();
    let mut input = encode_request(&[&b"ECHO"[..], &binary]);
    input.extend_from_slice(b"PING split\r\n");
    input.extend_from_slice(&encode_request(&["ECHO", ""]));
    // One byte per write, with pauses so they arrive as separate segments.
    for (i, b) in input.iter().enumerate() {
        c.send(&[*b]);
        if i % 64 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    assert_eq!(c.frame(), Frame::Bulk(binary));
    assert_eq!(c.frame(), Frame::bulk("split"));
    assert_eq!(c.frame(), Frame::bulk(""));

    // A 3 MB argument in uneven pieces, and a pipeline split mid-request.
    let big = vec![b'z'; 3 << 20];
    let req = encode_request(&[&b"ECHO"[..], &big]);
    for piece in req.chunks(7919) {
        c.send(piece);
    }
    assert_eq!(c.frame(), Frame::Bulk(big));
    let mut pipeline = Vec::new();
    for i in 0..100 {
        pipeline.extend_from_slice(&encode_request(&["ECHO", &i.to_string()]));
    }
    for piece in pipeline.chunks(13) {
        c.send(piece);
    }
    for i in 0..100 {
        assert_eq!(c.frame(), Frame::bulk(i.to_string()));
    }
}

#[test]
fn hello_switches_between_resp2_and_resp3() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    for port in [redis.port, redsim.port] {
        let mut c = Raw::connect(port);
        c.send(&encode_request(&["GET", "missing"]));
        assert_eq!(text(&c.replies(1)), "$-1\r\n");

        c.send(&encode_request(&["HELLO", "3"]));
        let hello = c.replies(1);
        assert!(text(&hello).starts_with("%7\r\n"), "{}", text(&hello));
        let Some((Frame::Map(pairs), _)) = parse_frame(&hello).unwrap() else {
            panic!("HELLO 3 is not a map: {}", text(&hello));
        };
        let keys: Vec<Frame> = pairs.iter().map(|(k, _)| k.clone()).collect();
        let want: Vec<Frame> = [
            "server", "version", "proto", "id", "mode", "role", "modules",
        ]
        .iter()
        .map(Frame::bulk)
        .collect();
        assert_eq!(keys, want);
        assert!(pairs.contains(&(Frame::bulk("proto"), Frame::Integer(3))));

        c.send(&encode_request(&["GET", "missing"]));
        assert_eq!(text(&c.replies(1)), "_\r\n");
        c.send(b"PING\r\n");
        assert_eq!(text(&c.replies(1)), "+PONG\r\n");

        c.send(&encode_request(&["HELLO", "2"]));
        let hello = c.replies(1);
        assert!(text(&hello).starts_with("*14\r\n"), "{}", text(&hello));
        c.send(&encode_request(&["GET", "missing"]));
        assert_eq!(text(&c.replies(1)), "$-1\r\n");

        // A refused version leaves the protocol alone.
        c.send(&encode_request(&["HELLO", "4"]));
        assert_eq!(
            text(&c.replies(1)),
            "-NOPROTO unsupported protocol version\r\n"
        );
        c.send(&encode_request(&["GET", "missing"]));
        assert_eq!(text(&c.replies(1)), "$-1\r\n");
    }
}

#[test]
fn protocol_errors_match_redis_and_close_the_connection() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    // Sizes are chosen so the server has read every byte when it gives up
    // (it errs once more than PROTO_INLINE_MAX_SIZE bytes are buffered):
    // unread bytes would turn the close into a reset.
    let max = PROTO_INLINE_MAX_SIZE;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("invalid multibulk length", b"*x\r\n".to_vec()),
        ("multibulk count over INT_MAX", b"*3000000000\r\n".to_vec()),
        ("expected '$'", b"*1\r\n:1\r\n".to_vec()),
        (
            "expected '$' mid-request",
            b"*2\r\n$4\r\nECHO\r\nfoo\r\n".to_vec(),
        ),
        ("negative bulk length", b"*1\r\n$-5\r\n".to_vec()),
        ("non-numeric bulk length", b"*1\r\n$abc\r\n".to_vec()),
        (
            "bulk over proto-max-bulk-len",
            b"*1\r\n$536870913\r\n".to_vec(),
        ),
        ("unbalanced double quote", b"ECHO \"abc\r\n".to_vec()),
        ("unbalanced single quote", b"ECHO 'abc\r\n".to_vec()),
        ("quote not followed by a space", b"ECHO \"a\"b\r\n".to_vec()),
        ("too big inline request", vec![b'a'; max + 1]),
        ("too big mbulk count string", {
            let mut v = b"*".to_vec();
            v.resize(max + 1, b'1');
            v
        }),
        ("too big bulk count string", {
            let mut v = b"*1\r\n$".to_vec();
            v.resize(4 + max + 1, b'1');
            v
        }),
        // Redis looks for the newline with strchr, so a NUL hides it and the
        // line grows until it is too big.
        ("NUL before the newline", {
            let mut v = b"PING\0\r\nPING\r\n".to_vec();
            v.resize(max + 1, b'a');
            v
        }),
        (
            "error after good requests",
            b"PING\r\nECHO x\r\n*1\r\n$-5\r\n".to_vec(),
        ),
    ];
    for (name, bytes) in &cases {
        let (want, got) = both(&redis, &redsim, bytes, Raw::until_closed);
        assert!(
            text(&got).contains("-ERR Protocol error: "),
            "{name}: {}",
            text(&got)
        );
        assert_eq!(text(&got), text(&want), "{name}");
    }
    // The server itself is fine afterwards.
    let mut c = Raw::connect(redsim.port);
    c.send(b"PING\r\n");
    assert_eq!(text(&c.replies(1)), "+PONG\r\n");
}

#[test]
fn quit_replies_then_closes_and_runs_nothing_after_it() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    let input = b"PING\r\nQUIT\r\nPING\r\nECHO never\r\n";
    let (want, got) = both(&redis, &redsim, input, Raw::until_closed);
    assert_eq!(text(&got), "+PONG\r\n+OK\r\n");
    assert_eq!(got, want);
}

#[test]
fn errors_for_unknown_commands_and_arity_match_redis() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    let long_arg = "x".repeat(300);
    let requests: Vec<Vec<&str>> = vec![
        vec!["FOO"],
        vec!["foo", "a", "b"],
        vec!["nosuch", "with\nnewline", "and\rreturn"],
        vec!["nosuch", &long_arg, "second"],
        vec!["GET"],
        vec!["get", "a", "b"],
        vec!["ECHO"],
        vec!["echo", "a", "b"],
        vec!["SELECT"],
        vec!["SELECT", "99"],
        vec!["SELECT", "x"],
        vec!["PING", "a", "b"],
        vec!["HELLO", "abc"],
        vec!["HELLO", "3", "BOGUS"],
    ];
    let mut input = Vec::new();
    for r in &requests {
        input.extend_from_slice(&encode_request(r));
    }
    let (want, got) = both(&redis, &redsim, &input, |c| c.replies(requests.len()));
    assert!(text(&got).contains("-ERR wrong number of arguments for 'get' command\r\n"));
    assert!(text(&got).contains("-ERR unknown command 'FOO', with args beginning with: \r\n"));
    assert_eq!(text(&got), text(&want));
}

#[test]
fn a_hundred_concurrent_clients_incr_exactly() {
    assert!(
        redsim_engine::cmd::lookup(b"incr").is_some(),
        "INCR is part of the engine's string commands"
    );
    let redsim = RedsimServer::start(&[]);
    const CLIENTS: usize = 100;
    const EACH: usize = 50;
    // Every client connects before any starts, so all 100 are open at once.
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(CLIENTS));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let barrier = barrier.clone();
            let port = redsim.port;
            std::thread::spawn(move || {
                let mut c = Raw::connect(port);
                barrier.wait();
                let mut seen = Vec::with_capacity(EACH);
                for _ in 0..EACH {
                    c.send(&encode_request(&["INCR", "counter"]));
                    match c.frame() {
                        Frame::Integer(n) => seen.push(n),
                        other => panic!("INCR replied {other:?}"),
                    }
                }
                seen
            })
        })
        .collect();
    let mut all: Vec<i64> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("client thread"))
        .collect();
    all.sort_unstable();
    let total = (CLIENTS * EACH) as i64;
    // Each increment was atomic: every value from 1 to the total seen exactly once.
    assert_eq!(all, (1..=total).collect::<Vec<_>>());
    let mut c = Raw::connect(redsim.port);
    c.send(&encode_request(&["GET", "counter"]));
    assert_eq!(c.frame(), Frame::bulk(total.to_string()));
}

/// A server on a free port, with the handle that can look at its engine.
fn spawn(args: &[&str]) -> RunningServer {
    let mut all = vec!["--port".to_string(), "0".to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    redsim_cli::spawn(ServerOptions::from_args(&all).expect("options")).expect("server starts")
}

#[test]
fn the_clock_follows_wall_time_and_keys_expire_while_idle() {
    let server = spawn(&["--hz", "50"]);
    let mut c = Conn::connect(server.port());

    // TIME is the wall clock's Unix time.
    let Frame::Array(t) = c.cmd(&["TIME"]) else {
        panic!("TIME is an array")
    };
    let secs: u64 = match &t[0] {
        Frame::Bulk(b) => String::from_utf8_lossy(b).parse().expect("seconds"),
        other => panic!("TIME seconds {other:?}"),
    };
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(secs.abs_diff(wall) <= 2, "TIME {secs} vs wall clock {wall}");

    for i in 0..20 {
        let key = format!("tmp:{i}");
        assert_eq!(c.cmd(&["SET", &key, "v", "PX", "100"]), Frame::ok());
    }
    assert_eq!(c.cmd(&["SET", "keep", "v"]), Frame::ok());
    let keys = |s: &RunningServer| s.inspect(|e| e.keys_snapshot(0, usize::MAX).len()).unwrap();
    let now = |s: &RunningServer| s.inspect(|e| e.now_us()).unwrap();
    assert_eq!(keys(&server), 21);
    let before = now(&server);
    std::thread::sleep(Duration::from_millis(700));
    // No command since: only the cron ticker can have moved the clock and
    // reclaimed the expired keys (a command would catch the cron up first).
    let idle = now(&server) - before;
    assert!(
        idle >= 500_000,
        "clock moved {idle} µs in 700 ms of idleness"
    );
    assert_eq!(keys(&server), 1);
    assert_eq!(c.cmd(&["DBSIZE"]), Frame::Integer(1));

    // TTLs count down in real time.
    assert_eq!(c.cmd(&["SET", "slow", "v", "PX", "5000"]), Frame::ok());
    std::thread::sleep(Duration::from_millis(300));
    match c.cmd(&["PTTL", "slow"]) {
        // Lenient below: a loaded machine may stall; above, 300 ms must show.
        Frame::Integer(ms) => assert!((3000..=4750).contains(&ms), "PTTL {ms}"),
        other => panic!("PTTL {other:?}"),
    }
}

#[test]
fn client_list_shows_the_real_addresses() {
    let server = spawn(&[]);
    let mut c = Raw::connect(server.port());
    let local = c.stream.local_addr().unwrap();
    c.send(&encode_request(&["CLIENT", "INFO"]));
    let Frame::Bulk(info) = c.frame() else {
        panic!("CLIENT INFO is a bulk string")
    };
    let info = text(&info);
    assert!(info.contains(&format!(" addr={local} ")), "{info}");
    assert!(
        info.contains(&format!(" laddr=127.0.0.1:{} ", server.port())),
        "{info}"
    );
    assert!(!info.contains(" fd=-1 "), "{info}");
}

#[test]
fn stopping_the_server_closes_connections_and_frees_the_port() {
    let server = spawn(&[]);
    let port = server.port();
    let mut c = Raw::connect(port);
    c.send(b"PING\r\n");
    assert_eq!(text(&c.replies(1)), "+PONG\r\n");
    server.stop();
    assert_eq!(c.until_closed(), b"");
    assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok());
}
