//! Properties of every command in the table (derived from `cmd::all()`, so new commands are covered as they land): arbitrary arguments never panic and always give a well-formed reply, and arity violations give Redis' exact error.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use redsim_engine::cmd::{self, Command};
use redsim_engine::proto::resp::{parse_frame, Frame};
use redsim_engine::Engine;
use redsim_tests::as_resp2;

/// Words that steer commands into their option parsers, number parsers and
/// edge cases. Numbers stay small or are out of range on purpose: a valid
/// huge offset (SETRANGE, SETBIT) would make the test allocate gigabytes.
const WORDS: &[&str] = &[
    "",
    "0",
    "1",
    "2",
    "3",
    "10",
    "100",
    "-1",
    "-2",
    "-100",
    "+1",
    "01",
    " 1",
    "1 ",
    "0x10",
    "1.5",
    "-2.5e3",
    "1e400",
    "inf",
    "-inf",
    "nan",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "99999999999999999999999",
    "EX",
    "PX",
    "EXAT",
    "PXAT",
    "NX",
    "XX",
    "GT",
    "LT",
    "GET",
    "SET",
    "KEEPTTL",
    "PERSIST",
    "MATCH",
    "COUNT",
    "TYPE",
    "string",
    "none",
    "*",
    "k*",
    "[a-",
    "\\",
    "HELP",
    "ENCODING",
    "FREQ",
    "IDLETIME",
    "REFCOUNT",
    "RESETSTAT",
    "ID",
    "LIST",
    "INFO",
    "KILL",
    "SETNAME",
    "GETNAME",
    "AUTH",
    "ASYNC",
    "SYNC",
    "default",
    "all",
    "everything",
    "hz",
    "maxmemory",
    "maxmemory-policy",
    "allkeys-lfu",
    "*max*",
    "k1",
    "k2",
    "k3",
    "missing",
];

/// One argument: usually a word, sometimes a key we populated, sometimes raw bytes.
fn arg() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => proptest::sample::select(WORDS).prop_map(|w| w.as_bytes().to_vec()),
        3 => proptest::sample::select(&["k1", "k2", "k3", "int", "float", "ttl"][..])
            .prop_map(|w| w.as_bytes().to_vec()),
        1 => vec(any::<u8>(), 0..12),
        1 => (1usize..700).prop_map(|n| vec![b'x'; n]),
    ]
}

/// The command word as a client might type it.
fn spell(name: &str, upper: bool) -> Vec<u8> {
    if upper {
        name.to_ascii_uppercase().into_bytes()
    } else {
        name.as_bytes().to_vec()
    }
}

/// Every (full name, argument prefix, arity) to exercise: each command, and
/// each subcommand of a container with the container word in front.
fn targets() -> Vec<(String, Vec<&'static str>, &'static Command)> {
    let mut out = Vec::new();
    for c in cmd::all() {
        out.push((c.name.to_string(), vec![c.name], c));
        for s in c.subcommands {
            out.push((format!("{}|{}", c.name, s.name), vec![c.name, s.name], s));
        }
    }
    out
}

/// A fresh engine with keys of the kinds that exist, some with TTLs, so
/// commands meet live, volatile and (after time moves) expired keys.
fn populated(seed: u64) -> (Engine, u64) {
    let mut e = Engine::new(seed);
    let c = e.connect("prop");
    let setup: &[&[&str]] = &[
        &["SET", "k1", "hello"],
        &["SET", "int", "10"],
        &["SET", "float", "1.5"],
        &["SET", "ttl", "v", "PX", "50"],
        &["SET", "k2", "x", "EX", "100"],
    ];
    for args in setup {
        if cmd::lookup(args[0].as_bytes()).is_some() {
            let args: Vec<Vec<u8>> = args.iter().map(|s| s.as_bytes().to_vec()).collect();
            e.execute(c, &args);
        }
    }
    (e, c)
}

/// Checks a reply can go on the wire in both protocols and be read back,
/// and that its error and status lines are valid RESP lines.
fn well_formed(f: &Frame) -> Result<(), String> {
    check_lines(f)?;
    for proto in [2, 3] {
        let bytes = f.to_bytes(proto);
        match parse_frame(&bytes) {
            Ok(Some((back, used))) if used == bytes.len() => {
                if proto == 2 && !same_frame(&back, &as_resp2(f)) {
                    return Err(format!("RESP2 reads back {back:?}"));
                }
            }
            other => return Err(format!("RESP{proto} encoding unreadable: {other:?}")),
        }
    }
    Ok(())
}

fn check_lines(f: &Frame) -> Result<(), String> {
    match f {
        Frame::Simple(s) if s.contains(['\r', '\n']) => Err(format!("status with CR/LF: {s:?}")),
        Frame::Error(s) => {
            if s.contains(['\r', '\n']) {
                return Err(format!("error with CR/LF: {s:?}"));
            }
            // Redis errors start with an upper-case code: ERR, WRONGTYPE, NOPROTO...
            let code = s.split(' ').next().unwrap_or("");
            if code.is_empty() || !code.bytes().all(|b| b.is_ascii_uppercase()) {
                return Err(format!("error without a code: {s:?}"));
            }
            Ok(())
        }
        Frame::BigNumber(s) if s.contains(['\r', '\n']) => Err(format!("big number: {s:?}")),
        Frame::Array(v) | Frame::Set(v) | Frame::Push(v) => v.iter().try_for_each(check_lines),
        Frame::Map(p) => p.iter().try_for_each(|(k, v)| {
            check_lines(k)?;
            check_lines(v)
        }),
        _ => Ok(()),
    }
}

/// Equality where NaN equals NaN (a double reply may legitimately be NaN in RESP3).
fn same_frame(a: &Frame, b: &Frame) -> bool {
    match (a, b) {
        (Frame::Double(x), Frame::Double(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Frame::Array(x), Frame::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_frame(a, b))
        }
        _ => a == b,
    }
}

/// One call: its extra arguments, upper-case spelling, and the virtual time
/// to let pass before it (so TTLs run out between calls).
type Call = (Vec<Vec<u8>>, bool, u64);

/// Calls to one command: mostly with an argument count its arity allows (so
/// they reach the handler), sometimes any count.
fn calls(arity: i32, prefix: usize) -> impl Strategy<Value = (u64, Vec<Call>)> {
    let min = (arity.unsigned_abs() as usize).saturating_sub(prefix);
    let count = if arity > 0 {
        prop_oneof![4 => Just(min), 1 => 0usize..7].boxed()
    } else {
        prop_oneof![4 => min..min + 5, 1 => 0usize..7].boxed()
    };
    let call = (
        count.prop_flat_map(|n| vec(arg(), n)),
        any::<bool>(),
        prop_oneof![3 => Just(0u64), 1 => 0u64..200_000],
    );
    (any::<u64>(), vec(call, 1..4))
}

#[test]
fn arbitrary_arguments_never_panic_and_reply_well_formed() {
    let targets = targets();
    assert!(
        targets.iter().any(|(n, _, _)| n == "ping"),
        "the table has PING"
    );
    for (name, prefix, command) in &targets {
        // PROPTEST_CASES raises the count for a longer hunt.
        let cases = std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(96);
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&calls(command.arity, prefix.len()), |(seed, calls)| {
            let (mut e, c) = populated(seed);
            for (extra, upper, wait_us) in &calls {
                e.advance_by(*wait_us);
                let mut args: Vec<Vec<u8>> = prefix
                    .iter()
                    .enumerate()
                    .map(|(i, w)| spell(w, *upper && i == 0))
                    .collect();
                args.extend(extra.iter().cloned());
                let reply = e.execute(c, &args);
                e.before_sleep();
                if let Err(why) = well_formed(&reply) {
                    return Err(TestCaseError::fail(format!("{args:?} -> {why}")));
                }
            }
            // The engine still answers afterwards, on a fresh connection (this
            // one may be in MULTI, or marked to close by QUIT).
            // Under a CLIENT PAUSE ALL the PING is held instead, which is
            // an answer too: it waits for the pause's end.
            let fresh = e.connect("after");
            match e.submit(fresh, &[b"PING".to_vec()]) {
                Some(ping) => prop_assert_eq!(ping, Frame::Simple("PONG".into())),
                None => prop_assert!(e.blocked_clients().iter().any(|w| w.client == fresh
                    && w.kind == redsim_engine::blocking::BlockKind::Postponed)),
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn arity_violations_give_the_exact_error() {
    let mut checked = 0;
    for (name, prefix, command) in targets() {
        let arity = command.arity;
        // Counts that break the rule: below the minimum, or off the exact count.
        let bad: Vec<usize> = if arity < 0 {
            (prefix.len()..(-arity) as usize).collect()
        } else {
            (prefix.len()..arity as usize + 3)
                .filter(|&n| n != arity as usize)
                .collect()
        };
        for argc in bad {
            let mut args: Vec<Vec<u8>> = prefix.iter().map(|w| w.as_bytes().to_vec()).collect();
            while args.len() < argc {
                args.push(b"k1".to_vec());
            }
            // A fresh client each time: no MULTI or other state left behind.
            let (mut e, c) = populated(1);
            let reply = e.execute(c, &args);
            let msg = format!("wrong number of arguments for '{name}' command");
            // Redis' rejectCommand turns any rejection of EXEC into EXECABORT,
            // even outside MULTI.
            let want = if name == "exec" {
                format!("EXECABORT Transaction discarded because of: {msg}")
            } else {
                format!("ERR {msg}")
            };
            assert_eq!(reply, Frame::err(want), "{args:?}");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn unknown_subcommands_and_commands_are_rejected_not_run() {
    let (mut e, c) = populated(2);
    for command in cmd::all().filter(|c| !c.subcommands.is_empty()) {
        let reply = e.execute(
            c,
            &[command.name.as_bytes().to_vec(), b"nosuchsub".to_vec()],
        );
        assert_eq!(
            reply,
            Frame::err(format!(
                "ERR unknown subcommand 'nosuchsub'. Try {} HELP.",
                command.name.to_ascii_uppercase()
            ))
        );
    }
    let reply = e.execute(c, &[b"nosuchcmd".to_vec(), b"a".to_vec()]);
    assert_eq!(
        reply,
        Frame::err("ERR unknown command 'nosuchcmd', with args beginning with: 'a' ")
    );
}
