//! Key finding checked against what Redis 7.2 answers for the same command lines.

use super::*;
use crate::cmd::table::{full_name, Flags};
use crate::cmd::REGISTRY;

fn argv(line: &str) -> Vec<Vec<u8>> {
    line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
}

fn with_flags(line: &str) -> Vec<(usize, Vec<&'static str>)> {
    let args = argv(line);
    let cmd = REGISTRY.resolve_command(&args).expect("known command");
    keys_with_flags(cmd, &args)
        .into_iter()
        .map(|(p, f)| (p, flag_names(f).collect()))
        .collect()
}

#[test]
fn the_table_is_sorted_for_binary_search() {
    assert!(KEY_SPECS.windows(2).all(|w| w[0].0 < w[1].0));
}

#[test]
fn specs_give_each_key_its_flags() {
    assert_eq!(with_flags("GET a"), [(1, vec!["RO", "access"])]);
    assert_eq!(
        with_flags("LMOVE a b LEFT RIGHT"),
        [
            (1, vec!["RW", "access", "delete"]),
            (2, vec!["RW", "insert"])
        ]
    );
    assert_eq!(
        with_flags("ZUNIONSTORE d 2 a b"),
        [
            (1, vec!["OW", "update"]),
            (3, vec!["RO", "access"]),
            (4, vec!["RO", "access"])
        ]
    );
    assert_eq!(with_flags("XREAD COUNT 2 STREAMS a b 0 0").len(), 2);
    assert_eq!(with_flags("XREAD COUNT 2 STREAMS a b 0 0")[1].0, 5);
    assert_eq!(with_flags("DEL a b")[1], (2, vec!["RM", "delete"]));
}

#[test]
fn variable_flags_and_unknown_specs_use_the_procedure() {
    assert_eq!(with_flags("SET a 1"), [(1, vec!["OW", "update"])]);
    assert_eq!(
        with_flags("SET a 1 GET"),
        [(1, vec!["RW", "access", "update"])]
    );
    assert_eq!(
        with_flags("BITFIELD a GET u8 0"),
        [(1, vec!["RO", "access"])]
    );
    assert_eq!(
        with_flags("SORT a BY x STORE d"),
        [(1, vec!["RO", "access"]), (5, vec!["OW", "update"])]
    );
    // MIGRATE's KEYS spec is incomplete: the procedure answers.
    // KEYS after a non-empty key argument is a syntax error: no keys.
    assert_eq!(with_flags("MIGRATE h 1 k 0 5 KEYS a b"), []);
    assert_eq!(
        with_flags("MIGRATE h 1 k 0 5 COPY"),
        [(3, vec!["RW", "access", "delete"])]
    );
    let keys = with_flags("MIGRATE h 1  0 5 COPY KEYS a b");
    assert_eq!(keys.iter().map(|k| k.0).collect::<Vec<_>>(), [8, 9]);
    assert_eq!(keys[0].1, ["RW", "access", "delete"]);
}

#[test]
fn numkeys_procedures_read_the_count_as_atoi_does() {
    // The spec's strict count fails; `genericGetKeys` reads "1x" as 1 and
    // puts the destination last.
    let args = argv("ZUNIONSTORE d 1x a");
    let cmd = REGISTRY.resolve_command(&args).unwrap();
    assert_eq!(keys_with_flags(cmd, &args), [(3, 0), (1, 0)]);
    assert_eq!(key_positions(cmd, &args), [3, 1]);
}

#[test]
fn movablekeys_flag_matches_the_specs() {
    let wrong: Vec<String> = REGISTRY
        .every_command()
        .map(|(parent, cmd)| (full_name(parent, cmd), cmd))
        .filter(|(full, cmd)| cmd.flags.contains(Flags::MOVABLEKEYS) != is_movable(full))
        .map(|(full, _)| full)
        .collect();
    assert!(wrong.is_empty(), "{wrong:?}");
}
