//! `redsim sentinel` as users run it: redis-py's `Sentinel` finds the master, the master is shut down, and the client follows the sentinels' failover (the example in crates/testing/examples/sentinel_failover.py).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// The addresses after `label` in the ready line, up to the next `;` or `(`.
fn addrs_after(line: &str, label: &str) -> Vec<u16> {
    let rest = line
        .split(label)
        .nth(1)
        .unwrap_or_else(|| panic!("{label} in {line:?}"));
    let rest = rest.split([';', '(']).next().unwrap();
    rest.split(", ")
        .map(|a| a.trim().rsplit(':').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn redis_py_follows_a_sentinel_failover() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_redsim"))
        .args([
            "sentinel",
            "--port",
            "0",
            "--sentinel-port",
            "0",
            "--seed",
            "3",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("redsim sentinel starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let nodes = addrs_after(&line, "replicas ready on ");
    let sentinels = addrs_after(&line, "sentinels on ");
    assert_eq!((nodes.len(), sentinels.len()), (3, 3), "{line}");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testing/examples/sentinel_failover.py"
    );
    let out = Command::new("python3")
        .arg(script)
        .args(sentinels.iter().map(|p| p.to_string()))
        .output()
        .expect("python3 with redis-py (installed by the test command)");
    child.kill().unwrap();
    child.wait().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("the script's JSON");
    let port = |v: &serde_json::Value| v[1].as_u64().unwrap() as u16;
    assert_eq!(port(&v["before"]), nodes[0], "node 0 is the first master");
    let after = port(&v["after"]);
    assert!(nodes[1..].contains(&after), "a replica took over: {v}");
    let replicas: Vec<u16> = v["replicas"].as_array().unwrap().iter().map(port).collect();
    assert_eq!(replicas.len(), 2);
    assert_eq!(
        v["greeting"], "hello",
        "the write before the crash survived"
    );
    assert_eq!(v["after_write"], "failover");
    // The sentinel's own channels, in the order sentinel.c emits them.
    let channels: Vec<&str> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e[0].as_str().unwrap())
        .collect();
    let pos = |c: &str| channels.iter().position(|x| *x == c);
    let (sdown, odown, switch) = (pos("+sdown"), pos("+odown"), pos("+switch-master"));
    assert!(
        sdown.is_some() && odown > sdown && switch > odown,
        "{channels:?}"
    );
    let switched = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e[0] == "+switch-master")
        .unwrap();
    let want = format!("mymaster 127.0.0.1 {} 127.0.0.1 {after}", nodes[0]);
    assert_eq!(switched[1], want.as_str());
}
