//! Differential tests against a real redis-server of the connection-control and self-observation commands: CLIENT REPLY / KILL / UNBLOCK / NO-EVICT, SLOWLOG, LATENCY, MONITOR, DEBUG SLEEP, ERROR, LOG, POPULATE and SET-SKIP-CHECKSUM-VALIDATION with the server log, COMMAND GETKEYS with movable keys, and CONFIG REWRITE without a config file.

use redsim_tests::{args, Conn, Differ, Frame, Pair, TempDir};

/// `CLIENT ID` of connection `i` on both servers (they may differ).
fn ids(d: &mut Differ, i: usize) -> (String, String) {
    let id = |c: &mut Conn| match c.cmd(&["CLIENT", "ID"]) {
        Frame::Integer(n) => n.to_string(),
        f => panic!("CLIENT ID: {f:?}"),
    };
    (id(&mut d.redis[i]), id(&mut d.sim[i]))
}

/// Runs `args_of(id)` on connection `i` of each server with that server's
/// id for the target, and asserts equal replies.
fn with_ids(d: &mut Differ, i: usize, target: (String, String), args: &[&str]) -> Frame {
    let fill = |id: &str| -> Vec<String> {
        args.iter()
            .map(|a| {
                if *a == "$ID" {
                    id.to_string()
                } else {
                    a.to_string()
                }
            })
            .collect()
    };
    let (ra, sa) = (fill(&target.0), fill(&target.1));
    let r = d.redis[i].cmd(&ra.iter().map(String::as_str).collect::<Vec<_>>());
    let s = d.sim[i].cmd(&sa.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r, s, "{args:?}");
    r
}

#[test]
fn client_reply_off_skip_and_on() {
    let mut d = Differ::start(2, &[]);
    d.script(
        "
        0 send CLIENT REPLY OFF
        0 send SET a 1
        0 send GET a
        0 send GET nosuch
        0 CLIENT REPLY ON -> +OK
        0 GET a -> \"1\"
        0 send CLIENT REPLY SKIP
        0 send SET b 2
        0 GET b -> \"2\"
        # SKIP while OFF changes nothing; ON answers.
        0 send CLIENT REPLY OFF
        0 send CLIENT REPLY SKIP
        0 send INCR a
        0 CLIENT REPLY ON -> +OK
        0 GET a -> \"2\"
        0 CLIENT REPLY maybe -> error
        0 CLIENT REPLY -> error
        # Messages still reach a subscriber that silenced its replies.
        0 send CLIENT REPLY OFF
        0 send SUBSCRIBE ch
        0 recv
        1 PUBLISH ch hello -> 1
        0 recv
        ",
    );
}

#[test]
fn client_unblock_timeout_and_error() {
    let mut d = Differ::start(2, &[]);
    let target = ids(&mut d, 0);
    d.block(0, "BLPOP list 0");
    with_ids(&mut d, 1, target.clone(), &["CLIENT", "UNBLOCK", "$ID"]);
    d.recv(0);
    d.block(0, "BZPOPMIN zs 0");
    with_ids(
        &mut d,
        1,
        target.clone(),
        &["CLIENT", "UNBLOCK", "$ID", "ERROR"],
    );
    d.recv(0);
    // Not blocked now: 0. A bad reason and a bad id are errors.
    with_ids(&mut d, 1, target.clone(), &["CLIENT", "UNBLOCK", "$ID"]);
    with_ids(&mut d, 1, target, &["CLIENT", "UNBLOCK", "$ID", "SOON"]);
    d.script(
        "
        1 CLIENT UNBLOCK notanumber -> error
        1 CLIENT UNBLOCK 999999 -> 0
        0 PING -> +PONG
        ",
    );
}

#[test]
fn client_kill_forms_and_errors() {
    let mut d = Differ::start(3, &[]);
    let victim = ids(&mut d, 1);
    with_ids(&mut d, 0, victim, &["CLIENT", "KILL", "ID", "$ID"]);
    assert!(d.redis[1].is_closed() && d.sim[1].is_closed());
    d.script(
        "
        0 CLIENT KILL ID 999999 -> 0
        0 CLIENT KILL 1.2.3.4:5 -> error
        0 CLIENT KILL ID 0 -> error
        0 CLIENT KILL ID x -> error
        0 CLIENT KILL TYPE nosuch -> error
        0 CLIENT KILL USER nosuch -> error
        0 CLIENT KILL SKIPME maybe -> error
        0 CLIENT KILL ID 1 extra -> error
        0 CLIENT KILL TYPE master -> 0
        0 CLIENT KILL TYPE pubsub -> 0
        2 SUBSCRIBE news
        0 CLIENT KILL TYPE pubsub -> 1
        0 CLIENT NO-EVICT on -> +OK
        0 CLIENT NO-EVICT off -> +OK
        0 CLIENT NO-EVICT maybe -> error
        0 PING -> +PONG
        ",
    );
    assert!(d.redis[2].is_closed() && d.sim[2].is_closed());
    // SKIPME no kills the caller too, after its reply.
    d.check(0, "CLIENT KILL TYPE normal SKIPME no");
    assert!(d.redis[0].is_closed() && d.sim[0].is_closed());
}

/// A SLOWLOG entry without its time, duration and peer (ports differ).
fn entry_shape(f: &Frame) -> Frame {
    match f {
        Frame::Array(items) => Frame::Array(
            items
                .iter()
                .map(|e| match e {
                    Frame::Array(x) if x.len() == 6 => {
                        Frame::Array(vec![x[0].clone(), x[3].clone(), x[5].clone()])
                    }
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn slowlog_entries_and_errors() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        CONFIG SET slowlog-log-slower-than 0
        CONFIG SET slowlog-max-len 5
        SLOWLOG RESET
        SLOWLOG LEN
        CONFIG SET slowlog-max-len abc
        CONFIG SET slowlog-log-slower-than -2
        CONFIG GET slowlog-max-len
        CONFIG GET slowlog-log-slower-than
        SLOWLOG GET -2
        SLOWLOG GET x
        SLOWLOG NOSUCH
        ",
    );
    p.check("CLIENT SETNAME logger");
    p.check("SET k v");
    let long = "x".repeat(200);
    p.check(&format!("SET big {long}"));
    let many: Vec<String> = (0..40).map(|i| format!("m{i}")).collect();
    p.check(&format!("DEL {}", many.join(" ")));
    let (r, s) = p.both("SLOWLOG GET 3");
    assert_eq!(entry_shape(&r), entry_shape(&s));
    let (r, s) = p.both("SLOWLOG GET -1");
    assert_eq!(entry_shape(&r), entry_shape(&s));
    p.corpus(
        "
        SLOWLOG LEN
        SLOWLOG RESET
        CONFIG SET slowlog-log-slower-than -1
        GET k
        SLOWLOG LEN
        ",
    );
    // MULTI/EXEC: the commands are logged, EXEC is not.
    p.check("CONFIG SET slowlog-log-slower-than 0");
    p.check("SLOWLOG RESET");
    p.check("MULTI");
    p.check("INCR n");
    p.check("INCR n");
    p.check("EXEC");
    let (r, s) = p.both("SLOWLOG GET -1");
    assert_eq!(entry_shape(&r), entry_shape(&s));
}

#[test]
fn latency_monitor_and_histogram_shapes() {
    let mut p = Pair::start(&["--enable-debug-command", "yes"]);
    p.corpus(
        "
        LATENCY RESET
        LATENCY LATEST
        LATENCY HISTORY command
        LATENCY GRAPH command
        LATENCY RESET nosuch
        LATENCY NOSUCH
        CONFIG SET latency-monitor-threshold -1
        CONFIG SET latency-tracking-info-percentiles \"50 101\"
        CONFIG SET latency-tracking-info-percentiles \"50 x\"
        CONFIG SET latency-tracking-info-percentiles \"50 99.5 100\"
        CONFIG GET latency-tracking-info-percentiles
        CONFIG SET latency-monitor-threshold 100
        ",
    );
    // A 200 ms DEBUG SLEEP is a latency event of about 200 ms on both.
    p.check("DEBUG SLEEP 0.2");
    let (r, s) = p.both("LATENCY HISTORY command");
    let ms = |f: &Frame| match f {
        Frame::Array(v) if v.len() == 1 => match &v[0] {
            Frame::Array(x) => match x[1] {
                Frame::Integer(ms) => ms,
                _ => panic!("{x:?}"),
            },
            _ => panic!("{v:?}"),
        },
        f => panic!("{f:?}"),
    };
    assert!((195..=260).contains(&ms(&r)), "redis {r:?}");
    assert!((195..=260).contains(&ms(&s)), "redsim {s:?}");
    p.check("LATENCY RESET command");
    // Histograms: same commands and call counts (bucket edges are timings).
    p.check("CONFIG RESETSTAT");
    p.check("SET a b");
    p.check("SET c d");
    p.both("CLIENT ID");
    // As RESP2: [name, [calls, N, histogram_usec, [...]], ...] -> [name, N, ...].
    let calls = |f: Frame| match f {
        Frame::Array(v) => Frame::Array(
            v.chunks(2)
                .flat_map(|kv| {
                    let n = match &kv[1] {
                        Frame::Array(inner) => inner[1].clone(),
                        other => other.clone(),
                    };
                    [kv[0].clone(), n]
                })
                .collect(),
        ),
        other => other,
    };
    for line in [
        "LATENCY HISTOGRAM set client",
        "LATENCY HISTOGRAM nosuch get",
    ] {
        let (r, s) = p.both(line);
        assert_eq!(
            calls(redsim_tests::as_resp2(&r)),
            calls(redsim_tests::as_resp2(&s)),
            "{line}"
        );
    }
}

#[test]
fn monitor_shows_commands_as_redis_does() {
    let mut d = Differ::start(2, &[]);
    d.check(0, "MONITOR");
    d.check(1, "SET \"a b\" \"line\\nbreak\"");
    d.check(1, "CONFIG GET maxmemory");
    d.check(1, "EVAL \"return redis.call('get', KEYS[1])\" 1 x");
    // Functions show like scripts: FCALL first, then its commands; an
    // FCALL_RO refused for calling a write function is still shown.
    d.check(
        1,
        "FUNCTION LOAD \"#!lua name=mon\\nredis.register_function('setfoo', function() return redis.call('set', 'foo', 'bar') end)\"",
    );
    d.check(1, "FCALL setfoo 0");
    d.check(1, "FCALL_RO setfoo 0");
    // One line per command, without its timestamp and port.
    let strip = |f: Frame| -> String {
        let Frame::Simple(s) = f else { panic!("{f:?}") };
        let (_, rest) = s.split_once(" [").expect("timestamp");
        let (who, args) = rest.split_once("] ").expect("client");
        let db = who.split(' ').next().unwrap_or("").to_string();
        let lua = who.ends_with("lua");
        format!("{db} {} {args}", if lua { "lua" } else { "client" })
    };
    for _ in 0..7 {
        let r = strip(d.redis[0].read_frame().expect("redis"));
        let s = strip(d.sim[0].read_frame().expect("redsim"));
        assert_eq!(r, s);
    }
}

#[test]
fn getkeys_with_movable_keys_and_config_rewrite() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        COMMAND GETKEYS EVAL \"return 1\" 1 key
        COMMAND GETKEYS EVAL \"return 1\" 0
        COMMAND GETKEYS FCALL f 2 a b c
        COMMAND GETKEYS SORT abc STORE def
        COMMAND GETKEYS SORT abc STORE invalid STORE stillbad STORE def
        COMMAND GETKEYS SORT abc BY store GET # LIMIT 0 1
        COMMAND GETKEYS SORT_RO abc
        COMMAND GETKEYS ZUNIONSTORE target 2 a b
        COMMAND GETKEYS ZUNIONSTORE target 0
        COMMAND GETKEYS LMPOP 2 a b LEFT
        COMMAND GETKEYS XREAD COUNT 2 STREAMS s1 s2 0 0
        COMMAND GETKEYS XREAD STREAMS s1
        COMMAND GETKEYS NOSUCH x
        COMMAND GETKEYS LCS key1 key2
        CONFIG REWRITE
        CONFIG REWRITE extra
        CLIENT NO-EVICT on
        ",
    );
}

#[test]
fn shutdown_refusals_match_redis_and_shutdown_closes_the_server() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        SHUTDOWN ABORT
        SHUTDOWN bogus
        SHUTDOWN SAVE NOSAVE
        SHUTDOWN ABORT NOW
        MULTI
        SHUTDOWN
        DISCARD
        ",
    );
    // The in-process server stops serving: its connections close and its
    // port refuses new ones.
    let s = redsim_tests::RedsimServer::start(&[]);
    let mut c = s.conn();
    c.send_raw(&redsim_tests::encode_request(&["SHUTDOWN", "NOSAVE"]));
    assert!(
        c.is_closed(),
        "SHUTDOWN closes the connection without a reply"
    );
    let refused = (0..50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::net::TcpStream::connect(("127.0.0.1", s.port)).is_err()
    });
    assert!(refused, "the port refuses connections after SHUTDOWN");
}

#[test]
fn lolwut_and_restore_asking() {
    let mut p = Pair::start(&[]);
    // The version line names each server's own version.
    for line in ["LOLWUT", "LOLWUT VERSION 7", "LOLWUT VERSION 1"] {
        let (r, s) = p.both(line);
        let text = |f: &Frame| match f {
            Frame::Verbatim(_, t) | Frame::Bulk(t) => String::from_utf8_lossy(t).into_owned(),
            f => panic!("{line}: {f:?}"),
        };
        let (r, s) = (text(&r), text(&s));
        assert!(
            r.starts_with("Redis ver. ") && s.starts_with("Redis ver. "),
            "{r:?} {s:?}"
        );
        assert_eq!(r.lines().count(), s.lines().count(), "{line}");
    }
    p.corpus(
        "
        LOLWUT VERSION x
        LOLWUT VERSION 5 nope
        SET k hello
        RPUSH l a b c
        ",
    );
    // RESTORE-ASKING restores like RESTORE outside a cluster.
    for key in ["k", "l"] {
        let (r, s) = p.both(&format!("DUMP {key}"));
        for (frame, sim) in [(r, false), (s, true)] {
            let Frame::Bulk(payload) = frame else {
                panic!("DUMP {key}")
            };
            let args: Vec<Vec<u8>> = vec![
                b"RESTORE-ASKING".to_vec(),
                format!("{key}2").into_bytes(),
                b"0".to_vec(),
                payload,
            ];
            let reply = if sim {
                p.sim.cmd_args(&args)
            } else {
                p.redis.cmd_args(&args)
            };
            assert_eq!(reply, Frame::ok(), "RESTORE-ASKING {key}2");
        }
    }
    p.corpus(
        "
        GET k2
        LRANGE l2 0 -1
        RESTORE-ASKING k2 0 junk
        ",
    );
}

#[test]
fn module_answers_as_a_server_without_modules() {
    // By default MODULE's loaders are protected (enable-module-command no).
    // MODULE HELP ends with 7.2's "Print this help." (7.0: "Prints"): the
    // engine's own test holds it to 7.2's text.
    let mut p = Pair::start(&[]);
    p.corpus(
        "MODULE LIST
MODULE
MODULE FOO
MODULE LIST extra
MODULE LOAD /nonexistent/x.so
MODULE LOADEX /nonexistent/x.so
MODULE UNLOAD nosuch
MODULE UNLOAD
CONFIG GET enable-module-command",
    );
    // Allowed: a library that does not load, a module that is not there.
    let allow = ["--enable-module-command", "yes"];
    let mut p = Pair::start_with(&allow, &allow);
    p.corpus(
        "MODULE LOAD /nonexistent/x.so
MODULE LOAD /nonexistent/x.so a b
MODULE LOADEX /nonexistent/x.so CONFIG a b ARGS c
MODULE LOADEX /nonexistent/x.so CONFIG a
MODULE UNLOAD nosuch
MODULE LIST
CONFIG GET enable-module-command",
    );
}

/// A counter from an INFO section's text.
fn info_field(f: &Frame, name: &str) -> i64 {
    let text = match f {
        Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        f => panic!("INFO gave {f:?}"),
    };
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

/// `key: value` pairs of a commandstats line, without the timings.
fn calls_of(f: &Frame, cmd: &str) -> String {
    let Frame::Bulk(b) = f else {
        panic!("INFO gave {f:?}")
    };
    let text = String::from_utf8_lossy(b);
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("cmdstat_{cmd}:")))
        .unwrap_or_else(|| panic!("no {cmd} in {text}"));
    line.split(',')
        .filter(|kv| !kv.contains("usec"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Each line of a log file after its `pid:role date time` prefix: the
/// mark and the text, with the role (`M` master; redis-server's start-up
/// lines are `C`) first.
fn logged(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(6, ' ');
            let head = parts.next()?;
            let (pid, role) = head.split_once(':')?;
            assert!(pid.parse::<u32>().is_ok(), "{l}");
            let (d, m, y, t) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            assert!(d.len() == 2 && m.len() == 3 && y.len() == 4, "{l}");
            assert!(t.len() == 12 && t.as_bytes()[8] == b'.', "{l}");
            parts.next().map(|rest| format!("{role} {rest}"))
        })
        .collect()
}

#[test]
fn debug_error_log_populate_and_checksums_as_redis_does() {
    let dir = TempDir::new("debug-log");
    let (redis_log, sim_log) = (dir.file("redis.log"), dir.file("redsim.log"));
    let mut p = Pair::start_with(
        &["--enable-debug-command", "yes", "--logfile", &redis_log],
        &["--enable-debug-command", "yes", "--logfile", &sim_log],
    );
    // ERROR: the text as an error line, CR and LF as spaces, counted
    // neither in errorstats nor as a failed call; a wrong count is an
    // unknown subcommand, as for any subcommand DEBUG does not know.
    p.check("CONFIG RESETSTAT");
    p.check("DEBUG ERROR \"LOADING fake message\"");
    p.check_args(&args(&["DEBUG", "ERROR", "two\r\nlines"]));
    p.check_args(&args(&["DEBUG", "ERROR", ""]));
    p.check("DEBUG ERROR");
    p.check("DEBUG ERROR a b");
    p.check("DEBUG NOSUCH");
    p.check("DEBUG DIGEST extra");
    p.check("MULTI");
    p.check("DEBUG ERROR \"READONLY in a transaction\"");
    p.check("EXEC");
    p.check("INFO errorstats");
    let (r, s) = p.both("INFO commandstats");
    assert_eq!(calls_of(&r, "debug"), calls_of(&s, "debug"));

    // POPULATE: names, values, sizes, what it leaves alone and its errors.
    p.check("FLUSHALL");
    let changes = |p: &mut Pair| {
        let (r, s) = p.both("INFO persistence");
        let f = "rdb_changes_since_last_save";
        (info_field(&r, f), info_field(&s, f))
    };
    p.check("SET key:1 kept");
    p.check("WATCH key:4");
    let before = changes(&mut p);
    p.check("DEBUG POPULATE 5");
    assert_eq!(changes(&mut p), before, "POPULATE is not a change to save");
    p.check("MULTI");
    p.check("PING");
    p.check("EXEC");
    p.corpus(
        "
        DBSIZE
        GET key:0
        GET key:1
        GET key:4
        DEBUG POPULATE 2 pre 3
        GET pre:0
        DEBUG POPULATE 2 px 10
        GET px:1
        OBJECT ENCODING px:1
        DEBUG POPULATE 1 big 100
        OBJECT ENCODING big:0
        STRLEN big:0
        DEBUG POPULATE 0
        DEBUG POPULATE -1
        DEBUG POPULATE abc
        DEBUG POPULATE 1 p -5
        DEBUG POPULATE 1 p x
        DEBUG POPULATE 1 p 0
        GET p:0
        DEBUG POPULATE 1 2 3 4
        DBSIZE
        ",
    );
    p.check_args(&args(&["DEBUG", "POPULATE", "1", "nul\0cut"]));
    p.check("GET nul:0");
    let long = "p".repeat(200);
    p.check(&format!("DEBUG POPULATE 1 {long}"));
    p.check(&format!("EXISTS {}", &format!("{long}:0")[..127]));
    p.check("DBSIZE");

    // SET-SKIP-CHECKSUM-VALIDATION: RESTORE takes a payload whose CRC64 is wrong.
    p.check("SET s hello");
    let (Frame::Bulk(mut dump), _) = p.both("DUMP s") else {
        panic!("DUMP gave no payload")
    };
    let last = dump.len() - 1;
    dump[last] ^= 0xff;
    let restore = |key: &str| vec![b"RESTORE".to_vec(), key.into(), b"0".to_vec(), dump.clone()];
    p.check_args(&restore("s2"));
    p.check("DEBUG SET-SKIP-CHECKSUM-VALIDATION 1");
    p.check_args(&restore("s2"));
    p.check("GET s2");
    p.check("DEBUG SET-SKIP-CHECKSUM-VALIDATION 0");
    p.check_args(&restore("s3"));

    // LOG and `redis.log` write to the log file, filtered by `loglevel`.
    p.check("DEBUG LOG \"hello from a test\"");
    p.check("DEBUG LOG");
    p.check(
        "EVAL \"redis.log(redis.LOG_WARNING, 'joined', 3, {}, 'up') \
         redis.log(redis.LOG_NOTICE, 'notice') redis.log(redis.LOG_VERBOSE, 'hidden') \
         return redis.log(4, 'x')\" 0",
    );
    p.check("EVAL \"return redis.log(redis.LOG_WARNING)\" 0");
    p.check("CONFIG SET loglevel verbose");
    p.check("EVAL \"redis.log(redis.LOG_VERBOSE, 'now shown')\" 0");
    // (`nothing` is 7.2's; the reference server is 7.0.)
    p.check("CONFIG SET loglevel warning");
    p.check("EVAL \"redis.log(redis.LOG_NOTICE, 'not written')\" 0");
    let want = [
        "M # DEBUG LOG: hello from a test",
        "M # joined 3 up",
        "M * notice",
        "M - now shown",
    ];
    let ours: Vec<String> = logged(&sim_log);
    assert_eq!(ours, want, "redsim's log");
    let theirs: Vec<String> = logged(&redis_log)
        .into_iter()
        .filter(|l| want.contains(&l.as_str()) || l.contains("not written"))
        .collect();
    assert_eq!(theirs, want, "redis-server's log");
}
