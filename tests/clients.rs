//! Real clients against the redsim server: redis-cli (output compared with a real redis-server), redis-benchmark (plain and pipelined), and redis-py over RESP2 and RESP3.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use redsim_tests::{Frame, RedisServer, RedsimServer};

/// Runs a client tool, failing clearly if it is not installed.
fn tool(program: &str, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {program} ({e}); `cargo xtask test` installs it (Debian's redis-tools)"
            )
        });
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("piped stdin")
            .write_all(input.as_bytes())
            .expect("write to the client's stdin");
    }
    child.wait_with_output().expect("client finished")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn cli(port: u16, args: &[&str]) -> String {
    let port = port.to_string();
    let mut all = vec!["-p", port.as_str()];
    all.extend_from_slice(args);
    let out = tool("redis-cli", &all, None);
    assert!(out.status.success(), "redis-cli {args:?}: {out:?}");
    stdout(&out)
}

#[test]
fn redis_cli_set_and_get() {
    let redsim = RedsimServer::start(&[]);
    let p = redsim.port;
    assert_eq!(cli(p, &["set", "greeting", "hello world"]), "OK\n");
    assert_eq!(cli(p, &["get", "greeting"]), "hello world\n");
    assert_eq!(cli(p, &["incr", "visits"]), "1\n");
    assert_eq!(
        cli(p, &["--no-raw", "get", "greeting"]),
        "\"hello world\"\n"
    );
}

/// The same session typed into redis-cli against both servers prints the same.
#[test]
fn redis_cli_output_matches_real_redis() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    // Run twice (RESP2, then RESP3 with `-3`), so it starts from empty.
    let session = "\
FLUSHALL
PING
SET k v
GET k
GET missing
SET bin \"a\\nb\\x00c\"
GET bin
INCR n
INCRBY n 41
MGET k missing n
MSET a 1 b 2
EXISTS a b missing
EXPIRE k 100
TTL k
TTL missing
DEL a b missing
TYPE k
ECHO \"two words\"
GET
SET k
INCR k
NOSUCH arg
SELECT 99
CONFIG GET maxmemory-policy
DBSIZE
";
    for extra in [&["--no-raw"][..], &["--no-raw", "-3"][..]] {
        let run = |port: u16| {
            let port = port.to_string();
            let mut args = vec!["-p", port.as_str()];
            args.extend_from_slice(extra);
            let out = tool("redis-cli", &args, Some(session));
            assert!(out.status.success(), "{out:?}");
            stdout(&out)
        };
        let want = run(redis.port);
        let got = run(redsim.port);
        assert!(got.contains("(integer) 42"), "{got}");
        assert!(
            got.contains("(error) ERR unknown command 'NOSUCH'"),
            "{got}"
        );
        assert_eq!(got, want, "redis-cli {extra:?}");
    }
}

/// Every test redis-benchmark runs must report a requests-per-second line,
/// and no error may show up in its output.
fn benchmark(port: u16, args: &[&str], tests: &[&str]) -> String {
    let port = port.to_string();
    let mut all = vec!["-p", port.as_str(), "-q"];
    all.extend_from_slice(args);
    let out = tool("redis-benchmark", &all, None);
    let text = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "redis-benchmark {args:?} failed:\n{text}"
    );
    for bad in ["ERR", "rror", "WARNING", "Could not"] {
        assert!(
            !text.contains(bad),
            "redis-benchmark printed {bad:?}:\n{text}"
        );
    }
    // -q prints progress lines ending in \r and one final line per test.
    let finals: Vec<&str> = text
        .split(['\r', '\n'])
        .filter(|l| l.contains("requests per second"))
        .collect();
    for test in tests {
        let line = finals
            .iter()
            .find(|l| l.starts_with(&format!("{test}: ")))
            .unwrap_or_else(|| panic!("no result line for {test}:\n{text}"));
        let rps: f64 = line[test.len() + 2..]
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("unreadable result line {line:?}"));
        assert!(rps > 0.0, "{line}");
        println!("{line}");
    }
    text
}

#[test]
fn redis_benchmark_completes_without_errors() {
    let redsim = RedsimServer::start(&[]);
    benchmark(
        redsim.port,
        &["-t", "set,get,incr,mset", "-n", "20000"],
        &["SET", "GET", "INCR", "MSET (10 keys)"],
    );
    let mut c = redsim.conn();
    // Without -r every INCR hits one key: it must have counted each request.
    assert_eq!(
        c.cmd(&["GET", "counter:__rand_int__"]),
        Frame::bulk("20000")
    );
    // SET and MSET wrote 3-byte values (the default -d 3).
    match c.cmd(&["GET", "key:__rand_int__"]) {
        Frame::Bulk(v) => assert_eq!(v.len(), 3),
        other => panic!("GET key:__rand_int__ -> {other:?}"),
    }

    // Pipelined: 16 requests per write from each of 50 clients.
    benchmark(
        redsim.port,
        &["-t", "ping,set,incr", "-n", "20000", "-P", "16"],
        &["PING_INLINE", "PING_MBULK", "SET", "INCR"],
    );
    assert_eq!(
        c.cmd(&["GET", "counter:__rand_int__"]),
        Frame::bulk("40000")
    );
}

#[test]
fn redis_py_over_resp2_and_resp3() {
    let probe = Command::new("python3")
        .args(["-c", "import redis"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 ({e}); `cargo xtask test` installs it"));
    assert!(
        probe.status.success(),
        "python3 cannot import redis-py ({}); `cargo xtask test` installs it",
        String::from_utf8_lossy(&probe.stderr).trim()
    );
    let redsim = RedsimServer::start(&[]);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/redis_py_check.py");
    let mut child = Command::new("python3")
        .arg(script)
        .arg(redsim.port.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    // A hung script must not hang the suite.
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("redis_py_check.py took over 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    let text = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "redis_py_check.py failed:\n{text}");
    assert!(text.contains("redis-py checks passed"), "{text}");
}
