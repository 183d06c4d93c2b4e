//! The `redsim` binary as a user runs it: help texts, exit codes for bad options, and a foreground server announcing its address.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;
use common::{fails, succeeds};

#[test]
fn help_and_version() {
    let text = succeeds(&["--help"]);
    assert!(
        text.contains("redsim server [redis.conf] [--port N]"),
        "{text}"
    );

    let text = succeeds(&["server", "--help"]);
    for p in redsim_engine::server::config::PARAMS {
        assert!(
            text.contains(&format!("--{}", p.name)),
            "{} missing:\n{text}",
            p.name
        );
    }

    assert!(succeeds(&["--version"]).contains(redsim_engine::REDIS_VERSION));

    // No command: usage on stderr, and a usage error code.
    fails(&[], 2, "Usage:");
    fails(&["serve"], 2, "unknown command 'serve'");
}

#[test]
fn bad_options_exit_non_zero_with_redis_style_message() {
    let out = fails(
        &["server", "--foo", "bar"],
        1,
        "*** FATAL CONFIG FILE ERROR",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(">>> 'foo \"bar\"'\nBad directive or wrong number of arguments"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing starts");

    let integer = "argument couldn't be parsed into an integer";
    fails(&["server", "--hz", "abc"], 1, integer);
}

#[test]
fn port_already_in_use_is_reported() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let socket = "Could not create server TCP listening socket";
    fails(&["server", "--port", &port], 1, socket);
}

#[test]
fn foreground_server_announces_its_address_and_serves() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_redsim"))
        .args(["server", "--port", "0", "--hz", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("redsim server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("connections on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .map(|a| a.trim_end_matches(','))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    assert!(line.contains("hz 20"), "{line}");
    let mut s = TcpStream::connect(&addr).expect("connect to the announced address");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"PING\r\nCONFIG GET hz\r\n").unwrap();
    let want = b"+PONG\r\n*2\r\n$2\r\nhz\r\n$2\r\n20\r\n";
    let mut got = vec![0u8; want.len()];
    s.read_exact(&mut got).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want));
}

/// `redsim server -` reads its configuration from standard input, and the
/// command line's options come after it: here the file's `hz` stands and
/// its port is overridden.
#[test]
fn configuration_from_standard_input_then_the_options() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_redsim"))
        .args(["server", "-", "--port", "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("redsim server starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"# from a pipe\nport 1\nhz 25\n")
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(line.contains("ready to accept connections"), "{line}");
    assert!(line.contains("hz 25"), "{line}");
    assert!(
        !line.contains(":1,") && !line.contains(":1 "),
        "the command line's port wins: {line}"
    );
}
