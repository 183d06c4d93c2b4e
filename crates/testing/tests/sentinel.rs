//! `TestSentinel` from a real client (redis-rs): the SENTINEL commands and their errors, a failover on a manual clock and on the wall clock with `+switch-master` published, SENTINEL FAILOVER, a restarted old master converted to a replica, and seeded determinism.

use std::net::TcpStream;
use std::time::Duration;

use redis::{Commands, Connection, Value};
use redsim_testing::{Clock, TestSentinel};

fn conn(addr: std::net::SocketAddr) -> Connection {
    redis::Client::open(format!("redis://{addr}"))
        .and_then(|c| c.get_connection())
        .expect("connect")
}

fn master_addr(c: &mut Connection) -> (String, u16) {
    let v: Vec<String> = redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg("mymaster")
        .query(c)
        .unwrap();
    (v[0].clone(), v[1].parse().unwrap())
}

#[test]
fn sentinel_commands_answer_as_redis_does() {
    let setup = TestSentinel::start();
    assert_eq!(
        (setup.node_addrs().len(), setup.sentinel_addrs().len()),
        (3, 3)
    );
    let mut s = conn(setup.sentinel_addrs()[1]);
    let master = setup.node_addrs()[0];
    assert_eq!(
        master_addr(&mut s),
        ("127.0.0.1".to_string(), master.port())
    );
    // An unknown name: a null reply here, an error elsewhere.
    let none: Option<Vec<String>> = redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg("other")
        .query(&mut s)
        .unwrap();
    assert_eq!(none, None);
    let err = redis::cmd("SENTINEL")
        .arg("master")
        .arg("other")
        .query::<Value>(&mut s)
        .unwrap_err();
    assert_eq!(err.detail(), Some("No such master with that name"));
    // MASTER: the fields clients parse.
    let m: std::collections::HashMap<String, String> = redis::cmd("SENTINEL")
        .arg("master")
        .arg("mymaster")
        .query(&mut s)
        .unwrap();
    assert_eq!(m["port"], master.port().to_string());
    assert_eq!(m["flags"], "master");
    assert_eq!(m["num-slaves"], "2");
    assert_eq!(m["num-other-sentinels"], "2");
    assert_eq!(m["quorum"], "2");
    // REPLICAS and SENTINELS: the other nodes and the other sentinels.
    let replicas: Vec<std::collections::HashMap<String, String>> = redis::cmd("SENTINEL")
        .arg("replicas")
        .arg("mymaster")
        .query(&mut s)
        .unwrap();
    let ports: Vec<String> = replicas.iter().map(|r| r["port"].clone()).collect();
    let want: Vec<String> = setup.node_addrs()[1..]
        .iter()
        .map(|a| a.port().to_string())
        .collect();
    assert_eq!(ports, want);
    assert!(replicas
        .iter()
        .all(|r| r["flags"] == "slave" && r["master-link-status"] == "ok"));
    let others: Vec<Value> = redis::cmd("SENTINEL")
        .arg("sentinels")
        .arg("mymaster")
        .query(&mut s)
        .unwrap();
    assert_eq!(others.len(), 2);
    let ok: String = redis::cmd("SENTINEL")
        .arg("ckquorum")
        .arg("mymaster")
        .query(&mut s)
        .unwrap();
    assert!(ok.starts_with("OK 3 usable Sentinels"), "{ok}");
    // A sentinel is not a data node.
    let err = s.get::<_, Option<String>>("k").unwrap_err();
    let err = err.to_string().to_lowercase();
    assert!(err.contains("unknown command 'get'"), "{err}");
    let info: String = redis::cmd("INFO").query(&mut s).unwrap();
    assert!(info.contains("redis_mode:sentinel"), "{info}");
    assert!(info.contains(&format!(
        "master0:name=mymaster,status=ok,address=127.0.0.1:{}",
        master.port()
    )));
    let pong: String = redis::cmd("PING").query(&mut s).unwrap();
    assert_eq!(pong, "PONG");
    // The nodes replicate: a write on the master reaches the replicas.
    let mut m = conn(master);
    let _: () = m.set("k", "v").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let mut r = conn(setup.node_addrs()[2]);
    let v: Option<String> = r.get("k").unwrap();
    assert_eq!(v.as_deref(), Some("v"));
}

#[test]
fn a_manual_clock_fails_over_when_advanced_and_is_deterministic() {
    let run = || {
        let setup = TestSentinel::builder().clock(Clock::Manual).seed(7).start();
        let mut m = conn(setup.node_addrs()[0]);
        let _: () = m.set("before", "1").unwrap();
        setup.advance(Duration::from_millis(50));
        setup.kill_node(0);
        assert!(
            TcpStream::connect(setup.node_addrs()[0]).is_err(),
            "a dead node refuses"
        );
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(setup.master(), 0, "no time passed, nobody noticed");
        setup.advance(Duration::from_secs(10));
        let master = setup.master();
        assert_ne!(master, 0);
        // Every sentinel names the new master; it has the write.
        for &s in setup.sentinel_addrs() {
            let (_, port) = master_addr(&mut conn(s));
            assert_eq!(port, setup.node_addrs()[master].port());
        }
        let mut n = conn(setup.node_addrs()[master]);
        let v: Option<String> = n.get("before").unwrap();
        assert_eq!(v.as_deref(), Some("1"));
        let _: () = n.set("after", "2").unwrap();
        // Back from its files, the old master is converted to a replica.
        setup.restart_node(0);
        setup.advance(Duration::from_secs(20));
        let role: Vec<Value> = redis::cmd("ROLE")
            .query(&mut conn(setup.node_addrs()[0]))
            .unwrap();
        assert_eq!(role[0], Value::BulkString(b"slave".to_vec()));
        let events = setup.with_topology(|t| t.events().len());
        (master, events)
    };
    assert_eq!(run(), run());
}

#[test]
fn sentinel_failover_on_the_wall_clock_publishes_switch_master() {
    let setup = TestSentinel::start();
    let client = redis::Client::open(format!("redis://{}", setup.sentinel_addrs()[0])).unwrap();
    let mut sub = client.get_connection().unwrap();
    let mut pubsub = sub.as_pubsub();
    pubsub.subscribe("+switch-master").unwrap();
    pubsub
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut s = conn(setup.sentinel_addrs()[2]);
    let ok: String = redis::cmd("SENTINEL")
        .arg("failover")
        .arg("mymaster")
        .query(&mut s)
        .unwrap();
    assert_eq!(ok, "OK");
    let msg = pubsub.get_message().expect("+switch-master within 10 s");
    let text: String = msg.get_payload().unwrap();
    let words: Vec<&str> = text.split(' ').collect();
    assert_eq!(
        words[..3],
        [
            "mymaster",
            "127.0.0.1",
            &setup.node_addrs()[0].port().to_string()
        ]
    );
    let new_port: u16 = words[4].parse().unwrap();
    let new = setup
        .node_addrs()
        .iter()
        .position(|a| a.port() == new_port)
        .unwrap();
    assert_ne!(new, 0);
    // The promoted replica is a master at once; the old master, still
    // running, is converted to a replica 8 s after it was found reporting
    // the wrong role, as sentinel.c waits (the manual-clock test sees it).
    assert!(setup.wait_until(Duration::from_secs(5), move |t| {
        !t.engine(new).repl().is_replica()
    }));
    // A second failover right away: one is still running, or it is done
    // and another starts; either way the sentinel answers as Redis would.
    let again = redis::cmd("SENTINEL")
        .arg("failover")
        .arg("mymaster")
        .query::<String>(&mut s);
    match again {
        Ok(ok) => assert_eq!(ok, "OK"),
        Err(e) => assert_eq!(e.code(), Some("INPROG")),
    }
}
