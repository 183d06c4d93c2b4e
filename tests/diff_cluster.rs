//! Cluster commands against a real `redis-server --cluster-enabled yes`: CLUSTER KEYSLOT on a large seeded key set (binary keys, braces everywhere), the standalone errors, a lone cluster node's replies (slots, state, redirections, CROSSSLOT in MULTI and EVAL) with node ids and ports normalised, and a real master failover (fail?, fail, the replica promoted) next to the simulated one.

use std::time::{Duration, Instant};

use redsim_engine::cluster::{crc16, key_hash_slot};
use redsim_engine::proto::clifmt::format_reply;
use redsim_tests::{
    assert_command_info, command_info, free_port, group_commands, Frame, Pair, RedisServer,
    RedsimServer, Rng, TempDir,
};

/// Options for a cluster-enabled real node: its own nodes.conf, and an
/// explicit bus port (the default, port + 10000, may not exist for a
/// high ephemeral port).
fn redis_cluster_args(dir: &TempDir, timeout_ms: &str) -> Vec<String> {
    vec![
        "--cluster-enabled".into(),
        "yes".into(),
        "--cluster-config-file".into(),
        dir.file("nodes.conf"),
        "--cluster-port".into(),
        free_port().to_string(),
        "--cluster-node-timeout".into(),
        timeout_ms.into(),
    ]
}

/// A random key made to exercise the hash-tag rules: braces (and empty
/// tags, nested and unbalanced ones) among arbitrary bytes.
fn random_key(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(24);
    let mut key = Vec::with_capacity(len);
    for _ in 0..len {
        let b = match rng.below(10) {
            0 | 1 => b'{',
            2 | 3 => b'}',
            4 => rng.below(256) as u8,
            5 => b"\0\r\n "[rng.below(4)],
            _ => b"abcxyz0123"[rng.below(10)],
        };
        key.push(b);
    }
    match rng.below(6) {
        0 => {
            // A tag somewhere: {tag} with a short tag, maybe empty.
            let at = rng.below(key.len() + 1);
            let tag_len = rng.below(4);
            let mut tag = vec![b'{'];
            tag.extend((0..tag_len).map(|_| b"ab}{"[rng.below(4)]));
            tag.push(b'}');
            key.splice(at..at, tag);
        }
        1 => key.splice(0..0, b"{}".iter().copied()).for_each(drop),
        _ => {}
    }
    key
}

#[test]
fn crc16_is_xmodem() {
    assert_eq!(crc16(b"123456789"), 0x31C3);
}

#[test]
fn keyslot_agrees_with_redis_on_every_key() {
    let dir = TempDir::new("diff-cluster");
    let extra = redis_cluster_args(&dir, "15000");
    let refs: Vec<&str> = extra.iter().map(String::as_str).collect();
    let redis = RedisServer::start(&refs);
    let sim = RedsimServer::start(&["--cluster-enabled", "yes"]);
    let (mut r, mut s) = (redis.conn(), sim.conn());
    let mut rng = Rng(0x5107_c0de);
    let mut keys: Vec<Vec<u8>> = (0..20_000).map(|_| random_key(&mut rng)).collect();
    // The documented examples and edge cases.
    for k in [
        &b"123456789"[..],
        b"",
        b"{",
        b"}",
        b"{}",
        b"}{",
        b"{{}}",
        b"{a}",
        b"a{b}c",
        b"foo{}{bar}",
        b"foo{{bar}}zap",
        b"foo{bar}{zap}",
        b"{user1000}.following",
        b"\xff{\x00}\xfe",
    ] {
        keys.push(k.to_vec());
    }
    let cmds: Vec<Vec<Vec<u8>>> = keys
        .iter()
        .map(|k| vec![b"CLUSTER".to_vec(), b"KEYSLOT".to_vec(), k.clone()])
        .collect();
    let want = r.pipeline(&cmds);
    let got = s.pipeline(&cmds);
    let mut braces = 0;
    for ((k, w), g) in keys.iter().zip(&want).zip(&got) {
        assert_eq!(w, g, "CLUSTER KEYSLOT {k:?}");
        assert_eq!(
            *w,
            Frame::Integer(key_hash_slot(k) as i64),
            "key_hash_slot {k:?}"
        );
        braces += k.contains(&b'{') as usize;
    }
    assert!(
        braces > 10_000,
        "the key set exercises hash tags ({braces})"
    );
}

#[test]
fn standalone_mode_refuses_cluster_commands() {
    let mut p = Pair::start(&[]);
    let n = p.corpus(
        r#"
        CLUSTER INFO
        CLUSTER KEYSLOT a
        CLUSTER HELP
        CLUSTER NODES
        CLUSTER MYID
        CLUSTER SLOTS
        CLUSTER SHARDS
        CLUSTER ADDSLOTS 1
        CLUSTER ADDSLOTS x
        CLUSTER SETSLOT 1 STABLE
        CLUSTER COUNTKEYSINSLOT 1
        CLUSTER GETKEYSINSLOT 1 1
        CLUSTER COUNT-FAILURE-REPORTS abc
        CLUSTER FAILOVER
        CLUSTER FAILOVER FORCE
        CLUSTER FAILOVER a b
        READONLY
        READWRITE
        ASKING
        CLUSTER
        CLUSTER FOO
        CLUSTER KEYSLOT
        CLUSTER KEYSLOT a b
        READONLY x
        CONFIG GET cluster-enabled
        CONFIG GET cluster-require-full-coverage
        CONFIG GET cluster-node-timeout
        CONFIG GET cluster-allow-reads-when-down
        CONFIG SET cluster-enabled yes
        CONFIG SET cluster-require-full-coverage maybe
        CONFIG SET cluster-node-timeout -1
        SELECT 1
        SET a 1
        MSET a 1 b 2
        "#,
    );
    assert_eq!(n, 34);
}

/// Replaces a node's id and ports with placeholders, in every string of a reply.
fn normalise(f: Frame, id: &str, port: u16, cport: u16) -> Frame {
    let text = |s: &str| {
        s.replace(id, "<id>")
            .replace(&format!(":{port}@{cport}"), ":<port>@<cport>")
    };
    match f {
        Frame::Bulk(b) => Frame::Bulk(text(&String::from_utf8_lossy(&b)).into_bytes()),
        Frame::Verbatim(t, b) => {
            Frame::Verbatim(t, text(&String::from_utf8_lossy(&b)).into_bytes())
        }
        Frame::Simple(s) => Frame::simple(text(&s)),
        Frame::Error(s) => Frame::Error(text(&s)),
        Frame::Integer(i) if i == port as i64 => Frame::Integer(-1),
        Frame::Array(v) => Frame::Array(
            v.into_iter()
                .map(|x| normalise(x, id, port, cport))
                .collect(),
        ),
        Frame::Map(v) => Frame::Map(
            v.into_iter()
                .map(|(k, x)| (normalise(k, id, port, cport), normalise(x, id, port, cport)))
                .collect(),
        ),
        other => other,
    }
}

/// A real cluster node and ours, with what tells them apart.
struct Nodes {
    p: Pair,
    redis: (String, u16, u16),
    sim: (String, u16, u16),
}

fn bulk_text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("expected a bulk reply, got {other:?}"),
    }
}

/// (id, port, bus port) of a node, from its own CLUSTER NODES line.
fn identity(c: &mut redsim_tests::Conn) -> (String, u16, u16) {
    let id = bulk_text(&c.cmd(&["CLUSTER", "MYID"]));
    let nodes = bulk_text(&c.cmd(&["CLUSTER", "NODES"]));
    let addr = nodes
        .split(' ')
        .nth(1)
        .expect("address field")
        .trim_start_matches(':')
        .to_string();
    let (port, cport) = addr.split_once('@').expect("port@cport");
    let cport = cport.split(',').next().unwrap_or(cport);
    (
        id,
        port.parse().expect("port"),
        cport.parse().expect("bus port"),
    )
}

impl Nodes {
    fn start(dir: &TempDir) -> Nodes {
        // A short node timeout keeps the rejoin delay at its 500 ms floor.
        let extra = redis_cluster_args(dir, "500");
        let refs: Vec<&str> = extra.iter().map(String::as_str).collect();
        let mut p = Pair::start_with(
            &refs,
            &["--cluster-enabled", "yes", "--cluster-node-timeout", "500"],
        );
        let redis = identity(&mut p.redis);
        let sim = identity(&mut p.sim);
        Nodes { p, redis, sim }
    }

    /// Sends `line` to both and compares the normalised replies.
    fn check(&mut self, line: &str) -> Frame {
        let (r, s) = self.p.both(line);
        let (id, port, cport) = &self.redis;
        let r = normalise(r, id, *port, *cport);
        let (id, port, cport) = &self.sim;
        let s = normalise(s, id, *port, *cport);
        assert!(
            r == s,
            "replies differ for {line}\n  redis:  {}\n  redsim: {}",
            format_reply(&r),
            format_reply(&s)
        );
        r
    }

    fn corpus(&mut self, text: &str) {
        for line in text.lines().map(str::trim) {
            if !line.is_empty() && !line.starts_with('#') {
                self.check(line);
            }
        }
    }

    /// Waits until CLUSTER INFO on both says `state` (each node turns in
    /// its own cron tick), then compares the whole text.
    fn wait_state(&mut self, state: &str) {
        let want = format!("cluster_state:{state}");
        let deadline = Instant::now() + Duration::from_secs(15);
        for conn in [&mut self.p.redis, &mut self.p.sim] {
            while !bulk_text(&conn.cmd(&["CLUSTER", "INFO"])).starts_with(&want) {
                assert!(Instant::now() < deadline, "never reached {want}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        self.check("CLUSTER INFO");
    }
}

#[test]
fn lone_cluster_node_matches_redis() {
    let dir = TempDir::new("diff-cluster");
    let mut n = Nodes::start(&dir);
    assert_eq!(n.redis.0.len(), 40);
    assert_eq!(n.sim.0.len(), 40);
    assert!(n.sim.0.bytes().all(|b| b.is_ascii_hexdigit()));
    // Past the 2 s writable delay cluster_size is computed (0 slots: 0).
    std::thread::sleep(Duration::from_millis(2300));
    n.wait_state("fail");
    n.corpus(
        r#"
        CLUSTER NODES
        CLUSTER SLOTS
        CLUSTER SHARDS
        CLUSTER MYID
        CLUSTER LINKS
        CLUSTER COUNT-FAILURE-REPORTS abc
        SET a 1
        GET a
        MSET a 1 b 2
        MSET {a}1 1 {a}2 2
        EXISTS a b
        PING
        ECHO x
        DBSIZE
        CLUSTER KEYSLOT a
        CLUSTER COUNTKEYSINSLOT 15495
        CLUSTER COUNTKEYSINSLOT 16384
        CLUSTER COUNTKEYSINSLOT -1
        CLUSTER COUNTKEYSINSLOT x
        CLUSTER GETKEYSINSLOT 15495 10
        CLUSTER GETKEYSINSLOT 1 -1
        CLUSTER GETKEYSINSLOT 16384 1
        CLUSTER GETKEYSINSLOT x 1
        CLUSTER GETKEYSINSLOT 1 x
        CLUSTER ADDSLOTS 16384
        CLUSTER ADDSLOTS -1
        CLUSTER ADDSLOTS x
        CLUSTER ADDSLOTS 5 5
        CLUSTER ADDSLOTS 1 2 x
        CLUSTER DELSLOTS 5
        CLUSTER ADDSLOTSRANGE 5
        CLUSTER ADDSLOTSRANGE 5 6 7
        CLUSTER ADDSLOTSRANGE 6 5
        CLUSTER ADDSLOTSRANGE 1 x
        CLUSTER DELSLOTSRANGE 0 10
        CLUSTER SETSLOT 5 FOO
        CLUSTER SETSLOT 5 STABLE x
        CLUSTER SETSLOT x STABLE
        CLUSTER SETSLOT 5 MIGRATING abc
        CLUSTER SETSLOT 5 IMPORTING abc
        CLUSTER SETSLOT 5 NODE abc
        CLUSTER SETSLOT 5 STABLE
        CLUSTER REPLICAS abc
        CLUSTER SLAVES abc
        CLUSTER REPLICATE abc
        CLUSTER FORGET abc
        CLUSTER FAILOVER
        CLUSTER FAILOVER FOO
        CLUSTER FAILOVER FORCE
        CLUSTER failover takeover
        CLUSTER FAILOVER FORCE x
        CLUSTER FAILOVER TAKEOVER FORCE
        CLUSTER COUNT-FAILURE-REPORTS
        CLUSTER SET-CONFIG-EPOCH -1
        CLUSTER SET-CONFIG-EPOCH x
        SELECT 0
        SELECT 1
        SELECT x
        SELECT 99999999999
        SWAPDB 0 1
        SWAPDB 0 0
        SWAPDB x 1
        MOVE k 1
        MOVE k x
        COPY a b
        COPY a b DB 1
        COPY a b DB x
        READONLY
        READWRITE
        ASKING
        CONFIG GET cluster-enabled
        CLUSTER FOO
        CLUSTER ADDSLOTS 0 1 2 3 10 11 12
        CLUSTER ADDSLOTS 2
        CLUSTER NODES
        CLUSTER SLOTS
        CLUSTER SHARDS
        CLUSTER INFO
        CLUSTER DELSLOTS 2 2
        CLUSTER DELSLOTS 2 3
        CLUSTER DELSLOTS 2
        CLUSTER NODES
        CLUSTER FLUSHSLOTS
        CLUSTER SLOTS
        "#,
    );
    // Every slot: the state turns OK after the rejoin delay.
    n.check("CLUSTER ADDSLOTSRANGE 0 8000 8001 16383");
    n.wait_state("ok");
    n.corpus(
        r#"
        CLUSTER NODES
        CLUSTER SLOTS
        CLUSTER SHARDS
        SET a 1
        GET a
        MSET a 1 b 2
        MGET a b
        DEL a b
        MSET {a}1 1 {a}2 2 {a}3 3
        SET a 1
        CLUSTER COUNTKEYSINSLOT 15495
        CLUSTER GETKEYSINSLOT 15495 10
        CLUSTER GETKEYSINSLOT 15495 2
        CLUSTER GETKEYSINSLOT 15495 0
        DEL {a}2
        CLUSTER GETKEYSINSLOT 15495 10
        SET {a}2 x
        CLUSTER GETKEYSINSLOT 15495 10
        RENAME a b
        RENAME a {a}r
        SUNIONSTORE d s1 s2
        ZUNIONSTORE {z}d 2 {z}1 {z}2
        ZUNIONSTORE d 2 z1 z2
        ZUNIONSTORE d 5 z1 z2
        EVAL "return 1" 0
        EVAL "return 1" 2 a b
        EVAL "return 1" 2 a {a}1
        EVAL "return redis.call('get', KEYS[1])" 1 a
        EVAL "return 1" 5 a
        XREAD STREAMS s1 s2 0 0
        XREAD STREAMS {s}1 {s}2 0 0
        LMPOP 2 l1 l2 LEFT
        OBJECT ENCODING a
        TYPE a
        SELECT 1
        SET {c}1 v EX 100
        COPY {c}1 {c}2
        TTL {c}2
        COPY {c}1 {c}2
        COPY {c}1 {c}2 REPLACE DB 0
        COPY {c}1 {c}2 DB 16
        COPY {c}1 {c}2 DB x
        COPY {c}1 {c}2 FOO
        COPY {c}1 {c}1
        COPY {c}1 c3
        MOVE {c}1 1
        MOVE {c}1 0
        SWAPDB 0 1
        "#,
    );
    // Transactions: a queued command across slots dooms EXEC; commands
    // that each touch one slot but not the same one fail EXEC itself.
    n.corpus(
        r#"
        MULTI
        SET a 1
        SET b 2
        EXEC
        EXEC
        MULTI
        MSET a 1 b 2
        SET a 1
        EXEC
        MULTI
        SET {a}1 1
        GET {a}1
        EXEC
        MULTI
        SELECT 1
        SET a 2
        EXEC
        WATCH a
        MULTI
        GET a
        EXEC
        "#,
    );
    // An unassigned slot takes a full-coverage cluster down at once.
    n.check("CLUSTER DELSLOTS 15495");
    n.wait_state("fail");
    n.corpus(
        r#"
        GET a
        GET b
        PING
        CLUSTER KEYSLOT a
        CLUSTER NODES
        CONFIG SET cluster-require-full-coverage no
        "#,
    );
    n.wait_state("ok");
    n.corpus(
        r#"
        GET a
        SET a 1
        GET b
        SET b 1
        MSET b 1 a 2
        MSET a 2 b 1
        CLUSTER ADDSLOTS 15495
        GET a
        CLUSTER BUMPEPOCH
        CLUSTER BUMPEPOCH
        CLUSTER INFO
        CLUSTER NODES
        CLUSTER SET-CONFIG-EPOCH 5
        "#,
    );
    // RESP3: maps in CLUSTER SHARDS, verbatim text.
    n.p.hello3();
    n.corpus(
        r#"
        CLUSTER SHARDS
        CLUSTER INFO
        CLUSTER NODES
        CLUSTER SLOTS
        "#,
    );
}

#[test]
fn cluster_command_table_matches_redis() {
    let dir = TempDir::new("diff-cluster");
    let mut n = Nodes::start(&dir);
    let seven_oh = n.p.redis_is_7_0();
    for cmd in group_commands("cluster") {
        if cmd.subcommands.is_empty() {
            assert_command_info(&command_info(&mut n.p.redis, cmd.name), cmd, cmd.name);
        }
        for sub in cmd.subcommands {
            // MYSHARDID is new in 7.2.
            if seven_oh && sub.name == "myshardid" {
                continue;
            }
            let full = format!("{}|{}", cmd.name, sub.name);
            let mut info = command_info(&mut n.p.redis, &full);
            // 7.2 lets SLOTS and SHARDS answer while loading (#12269: LOADING
            // before STALE in its table); 7.0 lacks the flag.
            if seven_oh && matches!(sub.name, "slots" | "shards") {
                if let Frame::Array(flags) = &mut info[2] {
                    let at = flags.iter().position(|f| *f == Frame::simple("stale"));
                    flags.insert(at.unwrap_or(flags.len()), Frame::simple("loading"));
                }
            }
            assert_command_info(&info, sub, &full);
        }
    }
    // CLUSTER HELP: 7.2 adds MYSHARDID's two lines to 7.0's text, shows
    // the bus port in the NODES format line and says "Print this help".
    let (r, s) = n.p.both("CLUSTER HELP");
    let Frame::Array(mut ours) = s else {
        panic!("CLUSTER HELP: {s:?}")
    };
    if seven_oh {
        let at = ours
            .iter()
            .position(|l| *l == Frame::Simple("MYSHARDID".into()))
            .expect("MYSHARDID in 7.2's help");
        ours.drain(at..at + 2);
        for line in ours.iter_mut() {
            let Frame::Simple(text) = line else { continue };
            *text = text
                .replace("<ip:port@bus-port[,hostname]>", "<ip:port>")
                .replace("    Print this help.", "    Prints this help.")
                .into();
        }
    }
    assert_eq!(r, Frame::Array(ours));
}

/// One step of the three-node comparison.
enum Step {
    /// A command on node `i` (`{id0}`.. stand for each side's node ids).
    Cmd(usize, &'static str),
    /// MIGRATE of one key from node `from` to node `to`.
    Migrate(usize, usize, &'static str),
}

/// Replaces each node's address with `node<i>`.
fn addresses(f: Frame, addrs: &[String]) -> Frame {
    match f {
        Frame::Error(mut e) => {
            for (i, a) in addrs.iter().enumerate() {
                e = e.replace(a.as_str(), &format!("node{i}"));
            }
            Frame::Error(e)
        }
        other => other,
    }
}

#[test]
fn three_masters_redirect_like_a_real_cluster() {
    use redsim_sim::cluster::{Cluster, SimOptions};
    // A real three-master cluster: MEET, the slots split as redis-cli does.
    let dirs: Vec<TempDir> = (0..3).map(|_| TempDir::new("diff-cluster")).collect();
    let cports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let servers: Vec<RedisServer> = dirs
        .iter()
        .zip(&cports)
        .map(|(d, cp)| {
            let conf = d.file("nodes.conf");
            let cp = cp.to_string();
            RedisServer::start(&[
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                &conf,
                "--cluster-port",
                &cp,
                "--cluster-node-timeout",
                "1000",
            ])
        })
        .collect();
    let mut conns: Vec<redsim_tests::Conn> = servers.iter().map(|s| s.conn()).collect();
    for i in 1..3 {
        let (port, cport) = (servers[i].port.to_string(), cports[i].to_string());
        let r = conns[0].cmd(&["CLUSTER", "MEET", "127.0.0.1", &port, &cport]);
        assert_eq!(r, Frame::ok());
    }
    for (i, (a, b)) in redsim_sim::cluster::even_ranges(3).into_iter().enumerate() {
        let r = conns[i].cmd(&["CLUSTER", "ADDSLOTSRANGE", &a.to_string(), &b.to_string()]);
        assert_eq!(r, Frame::ok());
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    for c in conns.iter_mut() {
        loop {
            let info = bulk_text(&c.cmd(&["CLUSTER", "INFO"]));
            if info.starts_with("cluster_state:ok") && info.contains("cluster_known_nodes:3") {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the real cluster never formed: {info}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let real_ids: Vec<String> = conns
        .iter_mut()
        .map(|c| bulk_text(&c.cmd(&["CLUSTER", "MYID"])))
        .collect();
    let real_addrs: Vec<String> = servers
        .iter()
        .map(|s| format!("127.0.0.1:{}", s.port))
        .collect();
    let mut sim = Cluster::new(SimOptions::new(1, 3));
    let sim_ids: Vec<String> = (0..3).map(|i| sim.node_id(i)).collect();
    let sim_addrs: Vec<String> = (0..3).map(|i| format!("127.0.0.1:{}", 7000 + i)).collect();
    let with_ids = |line: &str, ids: &[String]| {
        let mut l = line.to_string();
        for (i, id) in ids.iter().enumerate() {
            l = l.replace(&format!("{{id{i}}}"), id);
        }
        redsim_tests::parse(&l)
    };
    use Step::{Cmd, Migrate};
    let steps = [
        Cmd(0, "SET b 1"),
        Cmd(1, "GET b"),
        Cmd(2, "SET foo bar"),
        Cmd(0, "GET foo"),
        Cmd(0, "MSET b 1 foo 2"),
        Cmd(1, "MGET b foo"),
        Cmd(1, "EXISTS b"),
        Cmd(1, "PING"),
        Cmd(1, "CLUSTER KEYSLOT b"),
        Cmd(2, "SET {t}1 v1"),
        Cmd(2, "SET {t}2 v2"),
        Cmd(2, "SET {t}3 v3"),
        Cmd(0, "CLUSTER SETSLOT 15891 IMPORTING {id2}"),
        Cmd(2, "CLUSTER SETSLOT 15891 MIGRATING {id0}"),
        Cmd(2, "CLUSTER COUNTKEYSINSLOT 15891"),
        Migrate(2, 0, "{t}1"),
        Cmd(2, "GET {t}1"),
        Cmd(2, "GET {t}2"),
        Cmd(2, "MGET {t}1 {t}2"),
        Cmd(2, "MGET {t}2 {t}3"),
        Cmd(2, "EXISTS {t}1"),
        Cmd(2, "SET {t}9 new"),
        Cmd(0, "GET {t}1"),
        Cmd(0, "ASKING"),
        Cmd(0, "GET {t}1"),
        Cmd(0, "GET {t}1"),
        // ASKING before MULTI covers the whole transaction.
        Cmd(0, "ASKING"),
        Cmd(0, "MULTI"),
        Cmd(0, "GET {t}1"),
        Cmd(0, "SET {t}8 x"),
        Cmd(0, "EXEC"),
        Cmd(0, "GET {t}8"),
        Cmd(0, "MULTI"),
        Cmd(0, "GET {t}1"),
        Cmd(0, "EXEC"),
        Cmd(0, "ASKING"),
        Cmd(0, "MGET {t}1 {t}2"),
        Cmd(0, "ASKING"),
        Cmd(0, "SET {t}9 new"),
        Cmd(1, "GET {t}1"),
        Cmd(2, "CLUSTER COUNTKEYSINSLOT 15891"),
        Cmd(0, "CLUSTER COUNTKEYSINSLOT 15891"),
        Cmd(0, "CLUSTER GETKEYSINSLOT 15891 10"),
        Migrate(2, 0, "{t}2"),
        Migrate(2, 0, "{t}3"),
        Cmd(2, "GET {t}3"),
        Cmd(2, "MGET {t}2 {t}3"),
        Cmd(0, "CLUSTER SETSLOT 15891 NODE {id0}"),
        Cmd(2, "CLUSTER SETSLOT 15891 NODE {id0}"),
        Cmd(1, "CLUSTER SETSLOT 15891 NODE {id0}"),
        Cmd(0, "MGET {t}1 {t}2 {t}3 {t}8 {t}9"),
        Cmd(2, "GET {t}1"),
        Cmd(1, "GET {t}1"),
        Cmd(0, "CLUSTER COUNTKEYSINSLOT 15891"),
        Cmd(2, "CLUSTER COUNTKEYSINSLOT 15891"),
    ];
    for (n, step) in steps.iter().enumerate() {
        let (want, got, what) = match step {
            Cmd(i, line) => {
                let r = conns[*i].cmd_args(&with_ids(line, &real_ids));
                let s = sim.send(*i, 1, &with_ids(line, &sim_ids)).reply;
                (r, s, format!("node{i}: {line}"))
            }
            Migrate(from, to, key) => {
                let port = servers[*to].port.to_string();
                let r = conns[*from].cmd(&[
                    "MIGRATE",
                    "127.0.0.1",
                    &port,
                    "",
                    "0",
                    "5000",
                    "KEYS",
                    key,
                ]);
                let s = match sim.migrate_key(*from, *to, key.as_bytes()) {
                    Some(_) => Frame::ok(),
                    None => Frame::Simple("NOKEY".into()),
                };
                (r, s, format!("MIGRATE {key} node{from} -> node{to}"))
            }
        };
        let (want, got) = (addresses(want, &real_addrs), addresses(got, &sim_addrs));
        assert!(
            want == got,
            "step {n}, {what}\n  redis:  {}\n  redsim: {}",
            format_reply(&want),
            format_reply(&got)
        );
    }
}

/// The fields of a `CLUSTER NODES` line that two clusters can share: flags,
/// whether it follows a master, link state and slots (ids, addresses,
/// ping times and epochs differ by construction).
fn line_shape(nodes: &str, id: &str) -> String {
    let line = nodes
        .lines()
        .find(|l| l.starts_with(id))
        .unwrap_or_else(|| panic!("no line for {id} in\n{nodes}"));
    let f: Vec<&str> = line.split(' ').collect();
    let follows = if f[3] == "-" { "-" } else { "follows" };
    format!("{} {} {} {}", f[2], follows, f[7], f[8..].join(" "))
}

#[test]
fn a_real_master_failover_matches_the_sim() {
    use redsim_sim::cluster::{Cluster, SimOptions};
    // Three masters and a replica each, node timeout 1 s.
    let dirs: Vec<TempDir> = (0..6).map(|_| TempDir::new("diff-cluster")).collect();
    let mut servers: Vec<Option<RedisServer>> = dirs
        .iter()
        .map(|d| {
            let mut args = redis_cluster_args(d, "1000");
            // Full syncs write an RDB: into the node's own directory, not
            // the working directory where the next server would load it.
            args.extend(["--dir".to_string(), d.0.display().to_string()]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            Some(RedisServer::start(&args))
        })
        .collect();
    let mut conns: Vec<redsim_tests::Conn> =
        servers.iter().map(|s| s.as_ref().unwrap().conn()).collect();
    let ids: Vec<String> = conns
        .iter_mut()
        .map(|c| bulk_text(&c.cmd(&["CLUSTER", "MYID"])))
        .collect();
    let cport0 = match conns[0].cmd(&["CONFIG", "GET", "cluster-port"]) {
        Frame::Array(a) => bulk_text(&a[1]),
        other => panic!("CONFIG GET cluster-port: {other:?}"),
    };
    let port0 = servers[0].as_ref().unwrap().port.to_string();
    for c in conns.iter_mut().skip(1) {
        assert_eq!(
            c.cmd(&["CLUSTER", "MEET", "127.0.0.1", &port0, &cport0]),
            Frame::ok()
        );
    }
    for (i, (a, b)) in redsim_sim::cluster::even_ranges(3).into_iter().enumerate() {
        let r = conns[i].cmd(&["CLUSTER", "ADDSLOTSRANGE", &a.to_string(), &b.to_string()]);
        assert_eq!(r, Frame::ok());
    }
    let wait = |conns: &mut Vec<redsim_tests::Conn>,
                what: &str,
                ok: &dyn Fn(usize, &str) -> bool,
                cmd: &[&str]| {
        let deadline = Instant::now() + Duration::from_secs(40);
        for (i, c) in conns.iter_mut().enumerate() {
            loop {
                let t = bulk_text(&c.cmd(cmd));
                if ok(i, &t) {
                    break;
                }
                assert!(Instant::now() < deadline, "{what}: node {i}: {t}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    };
    wait(
        &mut conns,
        "all nodes known",
        &|_, t| t.contains("cluster_known_nodes:6"),
        &["CLUSTER", "INFO"],
    );
    for r in 3..6 {
        let m = ids[r - 3].clone();
        assert_eq!(conns[r].cmd(&["CLUSTER", "REPLICATE", &m]), Frame::ok());
    }
    wait(
        &mut conns,
        "replicas linked and the state OK",
        &|i, t| t.contains("role:master") && i < 3 || t.contains("master_link_status:up"),
        &["INFO", "replication"],
    );
    wait(
        &mut conns,
        "state ok",
        &|_, t| t.starts_with("cluster_state:ok"),
        &["CLUSTER", "INFO"],
    );
    // Node 0 dies; node 1 watches the flags of node 0 and node 3.
    servers[0] = None;
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(40);
    let real_final = loop {
        let nodes = bulk_text(&conns[1].cmd(&["CLUSTER", "NODES"]));
        let dead = line_shape(&nodes, &ids[0]);
        let flags = dead.split(' ').next().unwrap_or("").to_string();
        if seen.last() != Some(&flags) {
            seen.push(flags);
        }
        if line_shape(&nodes, &ids[3]).starts_with("master - connected 0-5460") {
            break nodes;
        }
        assert!(Instant::now() < deadline, "no failover: {nodes}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(seen.iter().any(|f| f == "master,fail"), "{seen:?}");
    // Node 1 keeps trying to reach the dead node, and Redis reports a link
    // "connected" from the moment a connect starts until its refusal is
    // read (`clusterCron` creates the link first), so one reading can fall
    // in that instant. The dead node's steady state is between attempts.
    let mut real_final = real_final;
    let settle = Instant::now() + Duration::from_secs(5);
    while line_shape(&real_final, &ids[0]).contains(" connected ") && Instant::now() < settle {
        std::thread::sleep(Duration::from_millis(50));
        real_final = bulk_text(&conns[1].cmd(&["CLUSTER", "NODES"]));
    }
    // The same in the sim.
    let mut opts = SimOptions::new(3, 3);
    opts.replicas_per_master = 1;
    opts.config.cluster_node_timeout = 1000;
    let mut sim = Cluster::new(opts);
    let sim_ids: Vec<String> = (0..6).map(|i| sim.node_id(i)).collect();
    sim.kill_node(0);
    let mut sim_seen = vec!["master".to_string()];
    let sim_final = loop {
        sim.advance_by(20_000);
        let nodes = bulk_text(&sim.admin(1, "CLUSTER NODES"));
        let flags = line_shape(&nodes, &sim_ids[0])
            .split(' ')
            .next()
            .unwrap_or("")
            .to_string();
        if sim_seen.last() != Some(&flags) {
            sim_seen.push(flags);
        }
        if line_shape(&nodes, &sim_ids[3]).starts_with("master - connected 0-5460") {
            break nodes;
        }
        assert!(sim.now_us() < 60_000_000, "no failover in the sim: {nodes}");
    };
    assert_eq!(sim_seen, ["master", "master,fail?", "master,fail"]);
    // Every line has the same shape in both, seen from node 1.
    for i in 0..6 {
        assert_eq!(
            line_shape(&real_final, &ids[i]),
            line_shape(&sim_final, &sim_ids[i]),
            "node {i}"
        );
    }
    let real_info = bulk_text(&conns[1].cmd(&["CLUSTER", "INFO"]));
    let sim_info = bulk_text(&sim.admin(1, "CLUSTER INFO"));
    for field in [
        "cluster_state:",
        "cluster_slots_ok:",
        "cluster_slots_fail:",
        "cluster_known_nodes:",
        "cluster_size:",
    ] {
        let pick = |t: &str| {
            t.lines()
                .find(|l| l.starts_with(field))
                .unwrap_or("")
                .to_string()
        };
        assert_eq!(pick(&real_info), pick(&sim_info), "{field}");
    }
}
