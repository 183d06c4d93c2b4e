//! Differential tests of key finding against a real redis-server: COMMAND GETKEYSANDFLAGS and GETKEYS over many commands (key specs, the getkeys procedures of SET, BITFIELD, SORT, MIGRATE and the numkeys commands, not-a-key specs, bad arguments and every error), and `movablekeys` in COMMAND INFO for every command both servers know.

use redsim_engine::proto::resp::Frame;
use redsim_tests::{bulk_items, Pair};

/// Lines both 7.0 and 7.2 answer alike.
const LINES: &str = r#"
    COMMAND GETKEYSANDFLAGS get a
    COMMAND GETKEYSANDFLAGS set a b
    COMMAND GETKEYSANDFLAGS set a b get
    COMMAND GETKEYSANDFLAGS set a b GET ex 10
    COMMAND GETKEYSANDFLAGS mset a 1 b 2 c 3
    COMMAND GETKEYSANDFLAGS del a b c
    COMMAND GETKEYSANDFLAGS unlink a b
    COMMAND GETKEYSANDFLAGS lmove a b left right
    COMMAND GETKEYSANDFLAGS blmove a b left right 0
    COMMAND GETKEYSANDFLAGS rpoplpush a b
    COMMAND GETKEYSANDFLAGS smove a b m
    COMMAND GETKEYSANDFLAGS zunionstore d 2 a b weights 1 2
    COMMAND GETKEYSANDFLAGS zunionstore d 1x a
    COMMAND GETKEYSANDFLAGS zinterstore d 3 a b
    COMMAND GETKEYSANDFLAGS zinter 2 a b
    COMMAND GETKEYSANDFLAGS zdiff 2 a b withscores
    COMMAND GETKEYSANDFLAGS sintercard 2 a b limit 3
    COMMAND GETKEYSANDFLAGS zintercard 2 a b
    COMMAND GETKEYSANDFLAGS lmpop 2 a b left count 3
    COMMAND GETKEYSANDFLAGS blmpop 0 2 a b left
    COMMAND GETKEYSANDFLAGS bzmpop 0 1 a min
    COMMAND GETKEYSANDFLAGS zmpop 1 a min
    COMMAND GETKEYSANDFLAGS eval "return 1" 2 a b c
    COMMAND GETKEYSANDFLAGS eval "return 1" 0
    COMMAND GETKEYSANDFLAGS evalsha_ro abc 1 a
    COMMAND GETKEYSANDFLAGS fcall f 1 a b
    COMMAND GETKEYSANDFLAGS fcall_ro f 0
    COMMAND GETKEYSANDFLAGS xread count 2 streams a b 0 0
    COMMAND GETKEYSANDFLAGS xread streams a 0 0
    COMMAND GETKEYSANDFLAGS xreadgroup group g c streams a b 0 0
    COMMAND GETKEYSANDFLAGS xadd s * f v
    COMMAND GETKEYSANDFLAGS xgroup create s g $
    COMMAND GETKEYSANDFLAGS xinfo stream s
    COMMAND GETKEYSANDFLAGS object encoding k
    COMMAND GETKEYSANDFLAGS memory usage k
    COMMAND GETKEYSANDFLAGS sort a
    COMMAND GETKEYSANDFLAGS sort a by w_* get # store d
    COMMAND GETKEYSANDFLAGS sort a limit 0 1 store d store e
    COMMAND GETKEYSANDFLAGS sort a store store x
    COMMAND GETKEYSANDFLAGS sort_ro a by x
    COMMAND GETKEYSANDFLAGS georadius g 1 2 3 km store d
    COMMAND GETKEYSANDFLAGS georadius g 1 2 3 km storedist d
    COMMAND GETKEYSANDFLAGS georadiusbymember g m 3 km store d
    COMMAND GETKEYSANDFLAGS geosearchstore d s frommember m byradius 1 km
    COMMAND GETKEYSANDFLAGS bitfield k get u8 0
    COMMAND GETKEYSANDFLAGS bitfield k set u8 0 1
    COMMAND GETKEYSANDFLAGS bitfield k incrby u8 0 1 get u8 0
    COMMAND GETKEYSANDFLAGS bitfield k overflow sat get u8 0
    COMMAND GETKEYSANDFLAGS bitfield k get u8
    COMMAND GETKEYSANDFLAGS bitfield_ro k get u8 0
    COMMAND GETKEYSANDFLAGS bitop and d a b
    COMMAND GETKEYSANDFLAGS copy a b
    COMMAND GETKEYSANDFLAGS rename a b
    COMMAND GETKEYSANDFLAGS restore k 0 x
    COMMAND GETKEYSANDFLAGS pfmerge d a b
    COMMAND GETKEYSANDFLAGS pfcount a b
    COMMAND GETKEYSANDFLAGS getex a
    COMMAND GETKEYSANDFLAGS getdel a
    COMMAND GETKEYSANDFLAGS incr a
    COMMAND GETKEYSANDFLAGS append a b
    COMMAND GETKEYSANDFLAGS hset h f v
    COMMAND GETKEYSANDFLAGS exists a b
    COMMAND GETKEYSANDFLAGS touch a b
    COMMAND GETKEYSANDFLAGS watch a b
    COMMAND GETKEYSANDFLAGS spublish ch m
    COMMAND GETKEYSANDFLAGS ssubscribe a b
    COMMAND GETKEYSANDFLAGS migrate h 1 k 0 5
    COMMAND GETKEYSANDFLAGS migrate h 1 "" 0 5 keys a b
    COMMAND GETKEYSANDFLAGS migrate h 1 "" 0 5 copy auth p keys a b
    COMMAND GETKEYSANDFLAGS migrate h 1 "" 0 5 auth2 u p keys a
    COMMAND GETKEYSANDFLAGS migrate h 1 k 0 5 keys a b
    COMMAND GETKEYSANDFLAGS lcs a b
    COMMAND GETKEYSANDFLAGS expire a 10
    COMMAND GETKEYSANDFLAGS type a
    COMMAND GETKEYSANDFLAGS ping x
    COMMAND GETKEYSANDFLAGS nosuchcommand a
    COMMAND GETKEYSANDFLAGS get a b
    COMMAND GETKEYSANDFLAGS zunionstore d 0 a
    COMMAND GETKEYSANDFLAGS eval "return 1" 5 a
    COMMAND GETKEYSANDFLAGS xread streams a
    COMMAND GETKEYSANDFLAGS config get x
    COMMAND GETKEYSANDFLAGS object help
    COMMAND GETKEYS set a b get
    COMMAND GETKEYS zunionstore d 2 a b
    COMMAND GETKEYS zunionstore d 1x a
    COMMAND GETKEYS sort a store d
    COMMAND GETKEYS spublish ch m
    COMMAND GETKEYS migrate h 1 "" 0 5 keys a b
    COMMAND GETKEYS eval "return 1" 0
    COMMAND GETKEYS ping x
    COMMAND GETKEYS object encoding k
    COMMAND GETKEYS xinfo stream s
"#;

#[test]
fn getkeysandflags_and_getkeys_agree() {
    let mut p = Pair::start(&[]);
    assert!(p.corpus(LINES) > 90);
}

#[test]
fn getkeysandflags_reads_as_a_set_in_resp3() {
    let mut p = Pair::start(&[]).resp3();
    p.check("COMMAND GETKEYSANDFLAGS lmove a b left right");
    p.check("COMMAND GETKEYSANDFLAGS sort a store d");
}

#[test]
fn arity_is_7_2s() {
    // 7.2 lowered GETKEYS' and GETKEYSANDFLAGS' arity to -3, so a command
    // name alone reaches the command's own checks.
    let mut p = Pair::start(&[]);
    let err = |f: Frame| match f {
        Frame::Error(e) => e,
        other => panic!("expected an error, got {other:?}"),
    };
    let get = err(p.sim.cmd(&["COMMAND", "GETKEYS", "get"]));
    assert_eq!(get, "ERR Invalid number of arguments specified for command");
    let ping = err(p.sim.cmd(&["COMMAND", "GETKEYSANDFLAGS", "ping"]));
    assert_eq!(ping, "ERR The command has no key arguments");
}

#[test]
fn movablekeys_in_command_info_matches_for_every_command() {
    let mut p = Pair::start(&[]);
    let names = bulk_items(&p.sim.cmd(&["COMMAND", "LIST"]));
    assert!(names.iter().any(|n| n == b"migrate"));
    let movable = |f: &Frame| match f {
        Frame::Array(info) => match info.first() {
            Some(Frame::Array(fields)) => match fields.get(2) {
                Some(Frame::Array(flags) | Frame::Set(flags)) => Some(
                    flags
                        .iter()
                        .any(|f| matches!(f, Frame::Simple(s) if s == "movablekeys")),
                ),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let mut checked = 0;
    for name in names {
        let name = String::from_utf8(name).expect("utf-8 name");
        let want = movable(&p.redis.cmd(&["COMMAND", "INFO", &name]));
        let got = movable(&p.sim.cmd(&["COMMAND", "INFO", &name]));
        if want.is_none() {
            continue; // a command 7.0 does not have
        }
        assert_eq!(want, got, "movablekeys of {name}");
        checked += 1;
    }
    assert!(checked > 200, "only {checked} commands compared");
    assert_eq!(
        movable(&p.sim.cmd(&["COMMAND", "INFO", "migrate"])),
        Some(true)
    );
}
