//! The simulated cluster (`cluster::sim`): MOVED/ASK/TRYAGAIN redirections from real node engines, slot migration with a big key's stall on the virtual clock, client convergence, full coverage, replicas, the heat map's counters, and determinism of the whole topology.

use redsim_engine::cluster::key_hash_slot;
use redsim_engine::Frame;
use redsim_sim::cluster::{even_ranges, Cluster, SimOptions};
use redsim_tests::Rng;

fn args(line: &str) -> Vec<Vec<u8>> {
    redsim_engine::proto::resp::split_args(line.as_bytes()).expect("valid line")
}

/// The master that owns `slot` when the cluster is created.
fn initial_owner(masters: usize, slot: u16) -> usize {
    even_ranges(masters)
        .iter()
        .position(|(a, b)| (*a..=*b).contains(&slot))
        .expect("every slot has an owner")
}

fn text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("expected text, got {other:?}"),
    }
}

#[test]
fn nodes_redirect_with_moved_and_the_client_converges() {
    let mut c = Cluster::new(SimOptions::new(7, 3));
    for i in 0..3 {
        assert!(text(&c.admin(i, "CLUSTER INFO")).starts_with("cluster_state:ok\r\n"));
    }
    // A key of node 2's range sent to node 0 is redirected, byte for byte as Redis.
    let slot = key_hash_slot(b"foo");
    let owner = initial_owner(3, slot);
    assert_eq!(owner, 2, "foo is in slot 12182");
    let sent = c.send(0, 99, &args("GET foo"));
    assert_eq!(sent.reply, Frame::err("MOVED 12182 127.0.0.1:7002"));
    assert_eq!(c.send(2, 99, &args("GET foo")).reply, Frame::Null);
    // CROSSSLOT on any node, tags keep keys together.
    assert_eq!(
        c.send(0, 99, &args("MSET a 1 b 2")).reply,
        Frame::err("CROSSSLOT Keys in request don't hash to the same slot")
    );
    // A client with an empty map starts at node 0, is moved once, loads the map.
    let mut client = c.client();
    let out = client.run_line(&mut c, "SET foo bar");
    assert_eq!(out.reply, Frame::ok());
    assert_eq!((out.node, out.redirects), (2, 1));
    assert_eq!((client.stats.moved, client.stats.refreshes), (1, 1));
    // From then on every command goes straight to its owner.
    let mut rng = Rng(11);
    for i in 0..2000 {
        let key = format!("key:{}", rng.below(5000));
        let out = if i % 2 == 0 {
            client.run_line(&mut c, &format!("SET {key} {i}"))
        } else {
            client.run_line(&mut c, &format!("GET {key}"))
        };
        assert!(!out.reply.is_error(), "{key}: {:?}", out.reply);
        assert_eq!(out.redirects, 0);
        assert_eq!(out.node, initial_owner(3, key_hash_slot(key.as_bytes())));
    }
    assert_eq!(client.stats.moved, 1);
    assert_eq!(client.stats.commands, 2001);
    // Every node's keys are in its own slots.
    for i in 0..3 {
        for slot in c.keys_per_slot(i).keys() {
            assert_eq!(initial_owner(3, *slot), i);
        }
    }
}

#[test]
fn migration_answers_ask_tryagain_and_honours_asking_once() {
    let mut c = Cluster::new(SimOptions::new(3, 3));
    let slot = key_hash_slot(b"t");
    let (from, to) = (initial_owner(3, slot), 0usize);
    assert_ne!(from, to);
    for i in 1..=5 {
        assert_eq!(
            c.send(from, 1, &args(&format!("SET {{t}}{i} v{i}"))).reply,
            Frame::ok()
        );
    }
    assert_eq!(c.begin_migration(slot, to), Ok(from));
    let nodes = text(&c.admin(from, "CLUSTER NODES"));
    assert!(
        nodes.contains(&format!("[{slot}->-{}]", c.node_id(to))),
        "{nodes}"
    );
    let nodes = text(&c.admin(to, "CLUSTER NODES"));
    assert!(nodes.contains(&format!("[{slot}-<-{}]", c.node_id(from))));
    // Move the two newest keys ({t}5, {t}4: GETKEYSINSLOT order).
    let moved = c.migrate_keys(slot, 2);
    let names: Vec<&[u8]> = moved.iter().map(|m| m.key.as_slice()).collect();
    assert_eq!(names, vec![&b"{t}5"[..], b"{t}4"]);
    let ask = Frame::err(format!("ASK {slot} 127.0.0.1:{}", 7000 + to));
    assert_eq!(c.send(from, 1, &args("GET {t}5")).reply, ask);
    assert_eq!(c.send(from, 1, &args("GET {t}1")).reply, Frame::bulk("v1"));
    let tryagain = Frame::err("TRYAGAIN Multiple keys request during rehashing of slot");
    assert_eq!(c.send(from, 1, &args("MGET {t}1 {t}5")).reply, tryagain);
    // Only moved keys: ASK, since none is here.
    assert_eq!(c.send(from, 1, &args("MGET {t}4 {t}5")).reply, ask);
    // The target serves them only after ASKING, and for one command.
    let moved_to_source = Frame::err(format!("MOVED {slot} 127.0.0.1:{}", 7000 + from));
    assert_eq!(c.send(to, 1, &args("GET {t}5")).reply, moved_to_source);
    assert_eq!(c.send(to, 1, &args("ASKING")).reply, Frame::ok());
    assert_eq!(c.send(to, 1, &args("GET {t}5")).reply, Frame::bulk("v5"));
    assert_eq!(c.send(to, 1, &args("GET {t}5")).reply, moved_to_source);
    c.send(to, 1, &args("ASKING"));
    assert_eq!(
        c.send(to, 1, &args("MGET {t}4 {t}5")).reply,
        Frame::Array(vec![Frame::bulk("v4"), Frame::bulk("v5")])
    );
    c.send(to, 1, &args("ASKING"));
    assert_eq!(c.send(to, 1, &args("MGET {t}4 {t}1")).reply, tryagain);
    // A new key in the migrating slot is created on the target (ASK).
    let mut client = c.client();
    let out = client.run_line(&mut c, "SET {t}9 new");
    assert_eq!((out.reply.clone(), out.node), (Frame::ok(), to));
    assert_eq!(client.stats.ask, 1);
    let out = client.run_line(&mut c, "GET {t}4");
    assert_eq!((out.reply, out.node), (Frame::bulk("v4"), to));
    let out = client.run_line(&mut c, "GET {t}2");
    assert_eq!(
        (out.reply, out.node, out.redirects),
        (Frame::bulk("v2"), from, 0)
    );
    // The rest, then the slot changes hands everywhere.
    while !c.migrate_keys(slot, 10).is_empty() {}
    assert_eq!(c.finish_migration(slot), Ok(()));
    for i in 0..3 {
        assert_eq!(c.view(i).owner(slot), Some(to), "node {i}'s view");
    }
    assert!(
        c.view(to).me().config_epoch > 3,
        "the importer bumped its epoch"
    );
    assert_eq!(
        c.send(from, 1, &args("GET {t}1")).reply,
        Frame::err(format!("MOVED {slot} 127.0.0.1:{}", 7000 + to))
    );
    // The client learns the new owner from one MOVED, then goes straight there.
    let before = client.stats.moved;
    let out = client.run_line(&mut c, "GET {t}1");
    assert_eq!((out.reply, out.node), (Frame::bulk("v1"), to));
    assert_eq!(client.stats.moved, before + 1);
    for i in 1..=5 {
        let out = client.run_line(&mut c, &format!("GET {{t}}{i}"));
        assert_eq!(out.reply, Frame::bulk(format!("v{i}")));
        assert_eq!(out.redirects, 0);
    }
    assert_eq!(
        c.admin(to, &format!("CLUSTER COUNTKEYSINSLOT {slot}")),
        Frame::Integer(6)
    );
    assert_eq!(c.nodes[from].load.keys_migrated_out, 5);
    assert_eq!(c.nodes[to].load.keys_migrated_in, 5);
}

#[test]
fn a_big_key_migration_stalls_source_and_target() {
    let opts = SimOptions::new(5, 3);
    let cost = opts.migrate;
    let command_us = opts.command_us;
    let mut c = Cluster::new(opts);
    let slot = key_hash_slot(b"big");
    let from = initial_owner(3, slot);
    let to = (from + 1) % 3;
    let other = (from + 2) % 3;
    // 200k fields: a hashtable hash of several MB.
    for chunk in 0..200 {
        let mut line = String::from("HSET {big}h");
        for f in 0..1000 {
            line.push_str(&format!(" f{}-{f} value-{f}", chunk));
        }
        assert!(!c.send(from, 1, &args(&line)).reply.is_error());
    }
    c.send(from, 1, &args("SET {big}small x"));
    c.advance_by(1_000_000);
    c.begin_migration(slot, to).expect("migration starts");
    let now = c.now_us();
    let m = c
        .migrate_key(from, to, b"{big}h")
        .expect("the key is there");
    assert!(m.bytes > 5_000_000, "{} bytes", m.bytes);
    let stall = m.end_us - m.start_us;
    assert_eq!(stall, cost.of(m.bytes));
    assert!(
        stall > 50_000,
        "a multi-MB key takes tens of ms ({stall} µs)"
    );
    assert_eq!(m.start_us, now);
    // Sent while MIGRATE runs: both ends answer only after it.
    let at_source = c.send(from, 2, &args("GET {big}small"));
    assert_eq!(at_source.reply, Frame::bulk("x"));
    assert_eq!(at_source.start_us, m.end_us);
    assert_eq!(at_source.latency_us, stall + command_us);
    let at_target = c.send(to, 3, &args("PING"));
    assert_eq!(at_target.start_us, m.end_us);
    // A third node is not involved.
    let elsewhere = c.send(other, 4, &args("PING"));
    assert_eq!(elsewhere.latency_us, command_us);
    assert_eq!(c.nodes[from].load.migrating_us, stall);
    assert_eq!(c.nodes[to].load.migrating_us, stall);
    assert!(c.nodes[from].load.waited_us >= stall);
    // The hash arrived whole.
    c.send(to, 5, &args("ASKING"));
    assert_eq!(
        c.send(to, 5, &args("HLEN {big}h")).reply,
        Frame::Integer(200_000)
    );
    // A small key costs only the round trip and a little.
    c.advance_to(m.end_us + 1_000);
    let small = c.migrate_key(from, to, b"{big}small").expect("small key");
    assert!(small.end_us - small.start_us < cost.base_us + 10);
}

#[test]
fn full_coverage_takes_every_node_down_when_a_master_fails() {
    let mut c = Cluster::new(SimOptions::new(9, 3));
    let a_owner = initial_owner(3, key_hash_slot(b"a"));
    assert_eq!(c.send(a_owner, 1, &args("SET {a}x 1")).reply, Frame::ok());
    // Node 1 fails: neither the owner of {a} nor where clients start.
    let failed = 1;
    assert_ne!(a_owner, failed);
    c.fail_node(failed);
    let down = Frame::err("CLUSTERDOWN The cluster is down");
    for i in (0..3).filter(|&i| i != failed) {
        assert_eq!(c.send(i, 1, &args("GET {a}x")).reply, down, "node {i}");
        let info = text(&c.admin(i, "CLUSTER INFO"));
        assert!(info.starts_with("cluster_state:fail\r\n"), "{info}");
        let failed_slots = even_ranges(3)[failed].1 - even_ranges(3)[failed].0 + 1;
        assert!(info.contains(&format!("cluster_slots_fail:{failed_slots}\r\n")));
        // Keyless commands still run.
        assert_eq!(
            c.send(i, 1, &args("PING")).reply,
            Frame::Simple("PONG".into())
        );
        let nodes = text(&c.admin(i, "CLUSTER NODES"));
        assert!(nodes.contains("master,fail"), "{nodes}");
    }
    assert!(c.send(failed, 1, &args("PING")).reply.is_error());
    // Without full coverage the live masters serve their own slots.
    for i in 0..3 {
        c.admin(i, "CONFIG SET cluster-require-full-coverage no");
    }
    c.advance_by(1000);
    assert_eq!(
        c.send(a_owner, 1, &args("GET {a}x")).reply,
        Frame::bulk("1")
    );
    let mut client = c.client();
    let lost_key = (0..)
        .map(|i| format!("k{i}"))
        .find(|k| initial_owner(3, key_hash_slot(k.as_bytes())) == failed)
        .expect("a key on the failed node");
    let out = client.run_line(&mut c, &format!("GET {lost_key}"));
    // Node 0 still points at the failed owner; following it fails.
    assert_eq!(client.stats.moved, 1);
    assert!(
        matches!(&out.reply, Frame::Error(e) if e.contains("connection refused")),
        "{:?}",
        out.reply
    );
    // Back with full coverage: OK again once the node returns.
    for i in 0..3 {
        c.admin(i, "CONFIG SET cluster-require-full-coverage yes");
    }
    c.recover_node(failed);
    c.advance_by(1000);
    for i in 0..3 {
        assert!(text(&c.admin(i, "CLUSTER INFO")).starts_with("cluster_state:ok"));
    }
    assert_eq!(
        c.send(a_owner, 1, &args("GET {a}x")).reply,
        Frame::bulk("1")
    );
}

#[test]
fn replicas_are_listed_and_receive_writes() {
    let mut opts = SimOptions::new(4, 3);
    opts.replicas_per_master = 1;
    let mut c = Cluster::new(opts);
    assert_eq!(c.nodes.len(), 6);
    let nodes = text(&c.admin(0, "CLUSTER NODES"));
    assert_eq!(nodes.lines().count(), 6);
    assert_eq!(nodes.matches(" slave ").count(), 3, "{nodes}");
    assert!(nodes
        .lines()
        .any(|l| l.contains("127.0.0.1:7003@17003 slave") && l.contains(&c.node_id(0))));
    // CLUSTER SLOTS lists each replica after its master.
    let Frame::Array(slots) = c.admin(1, "CLUSTER SLOTS") else {
        panic!("CLUSTER SLOTS");
    };
    assert_eq!(slots.len(), 3);
    for (m, entry) in slots.iter().enumerate() {
        let Frame::Array(parts) = entry else { panic!() };
        assert_eq!(parts.len(), 4, "master and one replica");
        let Frame::Array(replica) = &parts[3] else {
            panic!()
        };
        assert_eq!(replica[1], Frame::Integer(7003 + m as i64));
    }
    let replica_shards = text(&c.admin(3, "CLUSTER MYSHARDID"));
    assert_eq!(replica_shards, text(&c.admin(0, "CLUSTER MYSHARDID")));
    // A write on master 0 reaches its replica; READONLY reads it there.
    let key = (0..)
        .map(|i| format!("r{i}"))
        .find(|k| initial_owner(3, key_hash_slot(k.as_bytes())) == 0)
        .expect("a key of master 0");
    assert_eq!(
        c.send(0, 1, &args(&format!("SET {key} v"))).reply,
        Frame::ok()
    );
    let moved = c.send(3, 1, &args(&format!("GET {key}"))).reply;
    assert!(matches!(&moved, Frame::Error(e) if e.starts_with("MOVED ") && e.ends_with(":7000")));
    assert_eq!(c.send(3, 1, &args("READONLY")).reply, Frame::ok());
    // The stream is still on the link: the replica read is stale.
    assert_eq!(
        c.send(3, 1, &args(&format!("GET {key}"))).reply,
        Frame::Null
    );
    c.advance_by(1_000);
    assert_eq!(
        c.send(3, 1, &args(&format!("GET {key}"))).reply,
        Frame::bulk("v")
    );
    // The replica's offset is the master's once the ack is back.
    c.advance_by(1_000);
    assert_eq!(
        c.nodes[3].engine.repl().offset,
        c.nodes[0].engine.repl().offset
    );
    assert_eq!(
        c.nodes[0].engine.repl().replicas[0].ack_offset,
        c.nodes[0].engine.repl().offset
    );
    // Writes are still redirected to the master.
    let w = c.send(3, 1, &args(&format!("SET {key} w"))).reply;
    assert!(matches!(&w, Frame::Error(e) if e.starts_with("MOVED ")));
    assert_eq!(c.send(3, 1, &args("READWRITE")).reply, Frame::ok());
    assert!(c.send(3, 1, &args(&format!("GET {key}"))).reply.is_error());
}

#[test]
fn a_killed_master_is_found_out_on_the_clock_and_replaced_by_its_replica() {
    let mut opts = SimOptions::new(23, 3);
    opts.replicas_per_master = 1;
    opts.config.cluster_node_timeout = 3000;
    let mut c = Cluster::new(opts);
    let key = (0..)
        .map(|i| format!("f{i}"))
        .find(|k| initial_owner(3, key_hash_slot(k.as_bytes())) == 1)
        .expect("a key of master 1");
    let mut client = c.client();
    assert_eq!(
        client.run_line(&mut c, &format!("SET {key} v")).reply,
        Frame::ok()
    );
    c.advance_by(100_000);
    let dead = c.node_id(1);
    c.kill_node(1);
    // Seen from node 0, second by second: ok while only suspected, then
    // fail (full coverage) until the replica (node 4) takes over.
    let mut states = Vec::new();
    let mut reports = 0;
    for _ in 0..40 {
        c.advance_by(250_000);
        let info = text(&c.admin(0, "CLUSTER INFO"));
        let nodes = text(&c.admin(0, "CLUSTER NODES"));
        let line = nodes.lines().find(|l| l.starts_with(&dead)).expect("line");
        let flags = line.split(' ').nth(2).expect("flags").to_string();
        let state = info.lines().next().expect("state").to_string();
        if let Frame::Integer(n) = c.admin(2, &format!("CLUSTER COUNT-FAILURE-REPORTS {dead}")) {
            reports = reports.max(n);
        }
        if states.last() != Some(&(flags.clone(), state.clone())) {
            states.push((flags, state));
        }
    }
    let flags: Vec<&str> = states.iter().map(|(f, _)| f.as_str()).collect();
    let pfail = flags.iter().position(|f| *f == "master,fail?");
    let fail = flags.iter().position(|f| *f == "master,fail");
    assert!(
        pfail.is_some() && fail.is_some() && pfail < fail,
        "{states:?}"
    );
    assert!(
        states.iter().any(|(_, s)| s == "cluster_state:fail"),
        "{states:?}"
    );
    assert_eq!(
        states.last().map(|(_, s)| s.as_str()),
        Some("cluster_state:ok")
    );
    assert!(reports >= 1, "node 2 heard node 0's failure report");
    // The replica serves the key now; the client finds it after a refusal.
    let out = client.run_line(&mut c, &format!("GET {key}"));
    let out = if out.reply.is_error() {
        client.run_line(&mut c, &format!("GET {key}"))
    } else {
        out
    };
    assert_eq!(out.reply, Frame::bulk("v"));
    assert_eq!(out.node, 4);
    let me = text(&c.admin(4, "CLUSTER NODES"));
    assert!(
        me.contains("127.0.0.1:7004@17004 myself,master - 0 0 4 connected 5461-10922"),
        "{me}"
    );
    assert!(
        me.contains(&format!("{dead} 127.0.0.1:7001@17001 master,fail - ")),
        "{me}"
    );
    // Back up, it follows the winner and everyone clears its flag.
    c.restart_node(1);
    c.advance_by(2_000_000);
    let nodes = text(&c.admin(0, "CLUSTER NODES"));
    let winner = c.node_id(4);
    assert!(
        nodes.contains(&format!("{dead} 127.0.0.1:7001@17001 slave {winner} ")),
        "{nodes}"
    );
    assert_eq!(c.send(1, 1, &args("READONLY")).reply, Frame::ok());
    assert_eq!(
        c.send(1, 1, &args(&format!("GET {key}"))).reply,
        Frame::bulk("v")
    );
}

#[test]
fn heat_map_counters_follow_the_load() {
    let mut c = Cluster::new(SimOptions::new(21, 3));
    let mut client = c.client();
    let mut rng = Rng(5);
    for i in 0..3000 {
        // One hot tag takes half the traffic.
        let key = if i % 2 == 0 {
            "{hot}k".to_string()
        } else {
            format!("cold:{}", rng.below(1000))
        };
        let out = client.run_line(&mut c, &format!("INCR {key}"));
        assert!(matches!(out.reply, Frame::Integer(_)));
    }
    let hot = key_hash_slot(b"hot");
    let hot_node = initial_owner(3, hot);
    assert_eq!(c.slot_hits(hot_node).get(&hot), Some(&1500));
    let top = c
        .slot_hits(hot_node)
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(s, _)| *s);
    assert_eq!(top, Some(hot));
    let mut keys = 0;
    let mut hits = 0;
    for i in 0..3 {
        let per_slot = c.keys_per_slot(i);
        let dbsize = c.admin(i, "DBSIZE");
        assert_eq!(
            dbsize,
            Frame::Integer(per_slot.values().sum::<usize>() as i64)
        );
        keys += per_slot.values().sum::<usize>();
        hits += c.slot_hits(i).values().sum::<u64>();
        assert!(c.nodes[i].load.commands > 0);
    }
    assert_eq!(hits, 3000);
    assert!(keys > 600 && keys <= 1001, "{keys} keys");
    assert!(c.nodes[hot_node].load.commands > c.nodes[(hot_node + 1) % 3].load.commands);
}

/// A whole run as text: topology, replies, timings, counters.
fn transcript(seed: u64) -> String {
    let mut opts = SimOptions::new(seed, 4);
    opts.replicas_per_master = 1;
    let mut c = Cluster::new(opts);
    let mut out = String::new();
    let mut client = c.client();
    let mut rng = Rng(seed | 1);
    for step in 0..600 {
        if step == 200 {
            let slot = key_hash_slot(b"key:1");
            let to = (initial_owner(4, slot) + 1) % 4;
            let moved = c.migrate_slot(slot, to).expect("migration");
            out.push_str(&format!("migrated {slot} -> {to}: {moved:?}\n"));
        }
        if step % 50 == 0 {
            c.advance_by(10_000);
        }
        let key = format!("key:{}", rng.below(50));
        let line = match rng.below(4) {
            0 => format!("GET {key}"),
            1 => format!("SET {key} {}", "x".repeat(rng.below(3000))),
            2 => format!("INCR n:{}", rng.below(10)),
            _ => "RANDOMKEY".to_string(),
        };
        let o = client.run_line(&mut c, &line);
        out.push_str(&format!(
            "{line} -> {:?} node {} redirects {} latency {}\n",
            o.reply, o.node, o.redirects, o.latency_us
        ));
    }
    for i in 0..c.nodes.len() {
        out.push_str(&text(&c.admin(i, "CLUSTER NODES")));
        out.push_str(&format!("{:?} {:?}\n", c.nodes[i].load, c.slot_hits(i)));
    }
    out.push_str(&format!("{:?}\n", client.stats));
    out
}

#[test]
fn the_whole_topology_is_deterministic() {
    let a = transcript(42);
    let b = transcript(42);
    assert_eq!(a, b);
    assert!(a.contains("migrated"));
    let other = transcript(43);
    assert_ne!(a, other, "another seed gives other node ids and keys");
}
