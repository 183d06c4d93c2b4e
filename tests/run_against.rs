//! `redsim run <scenario> --against` on Debian's redis-server: `incr-vs-get-set` loses increments with GET+SET on the real server too while INCR loses none, the run flushes only its own database, `pubsub-vs-streams` loses messages with Pub/Sub but none with a consumer group, `client-side-caching`'s invalidations come from the server's CLIENT TRACKING, and a scenario that cannot run against a server, a bad URL and an unreachable server are refused with their exit statuses.
//!
//! The binary maps `run_command`'s `Err` to exit status 2 and prints it;
//! `Ok(status)` is the exit status itself, so the library is called here.

use redsim_cli::run::run_command;
use redsim_tests::{free_port, RedisServer};
use serde_json::Value;

/// Runs `redsim run` with `args`: the exit status and what it printed.
fn run(args: &[&str]) -> Result<(u8, String), String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut out = Vec::new();
    let status = run_command(&args, &mut out)?;
    Ok((status, String::from_utf8(out).expect("utf-8 output")))
}

/// Metric `name` of one side (`simulated` or `real`) of a `--json` report.
fn metric(doc: &Value, side: &str, name: &str) -> f64 {
    doc[side]["metrics"]
        .as_array()
        .and_then(|ms| ms.iter().find(|m| m["name"] == name))
        .and_then(|m| m["value"].as_f64())
        .unwrap_or_else(|| panic!("no metric {name:?} in {side}: {doc}"))
}

fn checks_passed(doc: &Value, side: &str) -> Vec<bool> {
    let checks = doc[side]["checks"].as_array().expect("checks");
    checks
        .iter()
        .map(|c| c["passed"].as_bool().unwrap())
        .collect()
}

#[test]
fn incr_vs_get_set_loses_increments_on_the_real_server_too() {
    let server = RedisServer::start(&[]);
    let mut c = server.conn();
    // Keys from before the run: database 0's stays, database 3's is flushed.
    c.cmd(&["SET", "kept", "1"]);
    c.cmd(&["SELECT", "3"]);
    c.cmd(&["SET", "leftover", "1"]);
    let url = format!("redis://127.0.0.1:{}/3", server.port);
    let small = ["--set", "clients=3", "--set", "increments=20"];
    let args = [
        &["incr-vs-get-set", "--against", &url, "--json"][..],
        &small,
    ]
    .concat();
    let (status, out) = run(&args).unwrap();
    assert_eq!(status, 0, "{out}");
    let doc: Value = serde_json::from_str(&out).expect("JSON report");
    for side in ["simulated", "real"] {
        assert_eq!(metric(&doc, side, "expected"), 60.0, "{side}");
        assert_eq!(metric(&doc, side, "lost updates (INCR)"), 0.0, "{side}");
        assert_eq!(metric(&doc, side, "INCR final"), 60.0, "{side}");
        let lost = metric(&doc, side, "lost updates (GET+SET)");
        assert!(lost > 0.0, "{side} lost no GET+SET increment: {doc}");
        assert_eq!(checks_passed(&doc, side), vec![true, true], "{side}");
    }
    assert!(doc["against"].as_str().unwrap().contains("FLUSHDB"));
    // The counters the run left on the server are the real run's finals.
    let real = |n: &str| metric(&doc, "real", n).to_string();
    let get = |c: &mut redsim_tests::Conn, k: &str| match c.cmd(&["GET", k]) {
        redsim_engine::Frame::Bulk(b) => String::from_utf8(b).unwrap(),
        other => panic!("GET {k}: {other:?}"),
    };
    let (incr, getset) = (get(&mut c, "ctr:incr"), get(&mut c, "ctr:getset"));
    assert_eq!((incr, getset), (real("INCR final"), real("GET+SET final")));
    assert_eq!(
        c.cmd(&["EXISTS", "leftover"]),
        redsim_engine::Frame::Integer(0)
    );
    c.cmd(&["SELECT", "0"]);
    assert_eq!(c.cmd(&["EXISTS", "kept"]), redsim_engine::Frame::Integer(1));

    // The text report puts both runs side by side.
    let args = [&["incr-vs-get-set", "--against", &url][..], &small].concat();
    let (status, text) = run(&args).unwrap();
    assert_eq!(status, 0);
    for want in [
        "simulated",
        "real server",
        "lost updates (GET+SET)",
        "INCR loses no update",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

/// Blocked clients and subscribers on the real server: messages published
/// while the subscriber is away are lost, the consumer group loses nothing.
#[test]
fn pubsub_loses_what_a_consumer_group_keeps_on_the_real_server() {
    let server = RedisServer::start(&[]);
    let url = format!("redis://127.0.0.1:{}", server.port);
    let args = [
        "pubsub-vs-streams",
        "--against",
        &url,
        "--json",
        "--set",
        "events=100",
    ];
    let (status, out) = run(&args).unwrap();
    assert_eq!(status, 0, "{out}");
    let doc: Value = serde_json::from_str(&out).expect("JSON report");
    let lost = metric(&doc, "real", "pub/sub: messages lost");
    assert!(lost > 0.0, "{doc}");
    assert_eq!(lost, metric(&doc, "real", "PUBLISH replies of 0 receivers"));
    assert_eq!(metric(&doc, "real", "consumer group: entries lost"), 0.0);
    assert!(metric(&doc, "real", "entries recovered by XAUTOCLAIM") > 0.0);
}

/// CLIENT TRACKING on the real server: its invalidations (default mode
/// and BCAST, redirected to a RESP2 subscriber) give the simulated figures,
/// and the pod that keeps its L1 across a reconnection serves stale reads.
#[test]
fn client_tracking_invalidations_come_from_the_real_server() {
    let server = RedisServer::start(&[]);
    let url = format!("redis://127.0.0.1:{}", server.port);
    for mode in ["tracking", "bcast"] {
        let args = [
            "client-side-caching",
            "--against",
            &url,
            "--json",
            "--speed",
            "20",
            "--set",
            &format!("mode={mode}"),
            "--set",
            "flush-on-reconnect=off",
        ];
        let (status, out) = run(&args).unwrap();
        assert_eq!(status, 0, "{out}");
        let doc: Value = serde_json::from_str(&out).expect("JSON report");
        for name in [
            "invalidation messages received",
            "stale reads",
            "stale reads on pod 1 after reconnecting",
        ] {
            let real = metric(&doc, "real", name);
            assert_eq!(real, metric(&doc, "simulated", name), "{mode} {name}");
        }
        assert!(metric(&doc, "real", "invalidation messages received") > 0.0);
        assert!(metric(&doc, "real", "stale reads on pod 1 after reconnecting") > 0.0);
        assert_eq!(checks_passed(&doc, "real"), vec![true, true], "{mode}");
    }
}

#[test]
fn refusals_say_why() {
    // A scenario that cannot run against a server: status 2 with its reason.
    let url = format!("redis://127.0.0.1:{}", free_port());
    let e = run(&["lru-approximation", "--against", &url]).unwrap_err();
    assert!(e.contains("does not run against a real server"), "{e}");
    assert!(e.contains("maxmemory"), "{e}");
    let e = run(&["redlock", "--against", &url]).unwrap_err();
    assert!(e.contains("five independent masters"), "{e}");
    // A bad URL, an unknown scenario, a cluster, --speed alone: status 2.
    let e = run(&["incr-vs-get-set", "--against", "http://127.0.0.1:1"]).unwrap_err();
    assert!(e.contains("redis://HOST:PORT"), "{e}");
    let e = run(&["no-such", "--against", &url]).unwrap_err();
    assert!(e.contains("unknown scenario"), "{e}");
    let e = run(&["incr-vs-get-set", "--against", &format!("{url}?cluster=1")]).unwrap_err();
    assert!(e.contains("not a cluster"), "{e}");
    assert!(run(&["incr-vs-get-set", "--speed", "2"]).is_err());
    // Nothing listening: status 1, nothing on stdout.
    let (status, out) = run(&["incr-vs-get-set", "--against", &url]).unwrap();
    assert_eq!((status, out.as_str()), (1, ""));
}
