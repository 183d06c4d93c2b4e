//! The `redsim` binary as a user runs it: help texts, exit codes for bad options, and a foreground server announcing its address.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

use common::{fails, redsim};

#[test]
fn help_and_version() {
    let out = redsim(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("redsim server [--port N]"), "{text}");

    let out = redsim(&["server", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for p in redsim_engine::server::config::PARAMS {
        assert!(
            text.contains(&format!("--{}", p.name)),
            "{} missing:\n{text}",
            p.name
        );
    }

    let out = redsim(&["--version"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(redsim_engine::REDIS_VERSION));

    // No command: usage on stderr, and a usage error code.
    assert!(fails(&[], 2).contains("Usage:"));
    assert!(fails(&["serve"], 2).contains("unknown command 'serve'"));
}

#[test]
fn bad_options_exit_non_zero_with_redis_style_message() {
    let err = fails(&["server", "--foo", "bar"], 1);
    assert!(err.contains("*** FATAL CONFIG ERROR"), "{err}");
    assert!(
        err.contains(">>> 'foo \"bar\"'\nBad directive or wrong number of arguments"),
        "{err}"
    );

    let err = fails(&["server", "--hz", "abc"], 1);
    assert!(
        err.contains("argument couldn't be parsed into an integer"),
        "{err}"
    );
}

#[test]
fn port_already_in_use_is_reported() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let err = fails(&["server", "--port", &port], 1);
    assert!(
        err.contains("Could not create server TCP listening socket"),
        "{err}"
    );
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
