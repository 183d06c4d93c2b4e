//! Differential tests of the string commands: the same commands go to a real redis-server and to redsim's native server, and every reply must be identical.
//!
//! The reference here is Redis 7.0.15; for these commands its replies are
//! those of 7.2 (the code paths compared did not change between them), so a
//! difference is a bug in redsim. Replies that depend on the wall clock
//! (TTL effects) are checked with wide margins.

use std::time::Duration;

use redsim_tests::{
    args, assert_command_group, random_steps, word_args, words, Frame, Pair, RedisServer, Rng,
    I64_MAX, I64_MIN,
};

const SET_AND_GET: &str = r#"
GET missing
SET k v
GET k
SET
SET k
GET
GET a b
SET k v extra
SET k v NX
SET k v2 XX
GET k
SET nk v XX
GET nk
SET nk v NX
GET nk
SET k v NX XX
SET k v XX NX
SET k v nx
SET k v3 xX GET
SET k v4 NX GET
SET k2 v NX GET
GET k2
SET k v GET GET
SET k3 v XX GET
EXISTS k3
SET k v EX
SET k v PX
SET k v EXAT
SET k v PXAT
SET k v EX 10 PX 100
SET k v PX 100 EX 10
SET k v EX 10 KEEPTTL
SET k v KEEPTTL EX 10
SET k v KEEPTTL PXAT 100
SET k v KEEPTTL KEEPTTL
SET k v EX 10 EX 20
SET k v PX 10000 PX 20000
SET k v EX 10 EXAT 99999999999
SET k v EXAT 99999999999 PXAT 1
SET k v PX 10 PXAT 1
SET k v PERSIST
SET k v GETX
SET k v EX abc
SET k v EX 0
SET k v EX -1
SET k v PX 0
SET k v PX -100
SET k v EXAT 0
SET k v PXAT -5
SET k v EX 1.5
SET k v EX " 10"
SET k v EX 10 junk
SET k v EX 0 junk
SET k v EX abc NX XX
SET k v EX 9223372036854775
SET k v EX 9223372036854776
SET k v PX 9223372036854775807
SET k v PX 9223372036854775000
SET k v PXAT 9223372036854775807
SET k v EXAT 9223372036854775
SET k v EXAT 9223372036854776
SET k v EX 99999999999999999999
SET k v EX 100000
GET k
SET k v PX 100000000
SET k v EXAT 99999999999
SET k v PXAT 99999999999999
SET k v EX 100 NX
SET k v EX 100 XX GET
SET k v KEEPTTL GET
SET k "nx\x00zz"
SET k v "nx\x00zz"
SET k v "EX\x00" 100
SET k v "ex\x00" 0
SET "" empty
GET ""
SET bin "a\x00b\r\n"
GET bin
SET k v get
GET k
"#;

const ENCODINGS: &str = r#"
SET i 123
OBJECT ENCODING i
OBJECT REFCOUNT i
SET i -123
OBJECT ENCODING i
OBJECT REFCOUNT i
SET i 9999
OBJECT REFCOUNT i
SET i 10000
OBJECT REFCOUNT i
SET i 0
OBJECT ENCODING i
OBJECT REFCOUNT i
SET i 9223372036854775807
OBJECT ENCODING i
SET i -9223372036854775808
OBJECT ENCODING i
SET i 9223372036854775808
OBJECT ENCODING i
SET i -0
OBJECT ENCODING i
SET i +1
OBJECT ENCODING i
SET i 01
OBJECT ENCODING i
SET i " 1"
OBJECT ENCODING i
SET i "1 "
OBJECT ENCODING i
SET i 1.5
OBJECT ENCODING i
SET i ""
OBJECT ENCODING i
SET e xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
OBJECT ENCODING e
SET e xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
OBJECT ENCODING e
OBJECT REFCOUNT e
MSET m1 1 m2 abc m3 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
OBJECT ENCODING m1
OBJECT ENCODING m2
OBJECT ENCODING m3
GETSET m1 22
OBJECT ENCODING m1
SETNX m4 44
OBJECT ENCODING m4
SETEX m5 1000 55
OBJECT ENCODING m5
PSETEX m6 1000000 abc
OBJECT ENCODING m6
"#;

const VARIANTS: &str = r#"
SETNX sn 1
SETNX sn 2
GET sn
SETNX sn
SETNX sn 1 2
SETEX se 100 v
GET se
SETEX se 0 v
SETEX se -1 v
SETEX se abc v
SETEX se 1.5 v
SETEX se 100
SETEX se 9223372036854775 v
SETEX se 9223372036854776 v
SETEX se 9223372036854775807 v
PSETEX pe 100000 v
GET pe
PSETEX pe 0 v
PSETEX pe -1 v
PSETEX pe abc v
PSETEX pe 9223372036854775807 v
PSETEX pe 100000
GETSET gs a
GETSET gs b
GET gs
GETSET gs
GETSET gs a b
GETDEL gd
SET gd x
GETDEL gd
GET gd
EXISTS gd
GETDEL
GETDEL a b
GETEX missing
GETEX missing EX -5
GETEX missing NX
SET ge v
GETEX ge
GETEX ge EX 100
GETEX ge PX 100000
GETEX ge EXAT 99999999999
GETEX ge PXAT 99999999999999
GETEX ge PERSIST
GETEX ge PERSIST PERSIST
GETEX ge EX 0
GETEX ge EX -1
GETEX ge PX 0
GETEX ge EXAT 0
GETEX ge EX abc
GETEX ge NX
GETEX ge XX
GETEX ge KEEPTTL
GETEX ge GET
GETEX ge EX 10 PERSIST
GETEX ge PERSIST EX 10
GETEX ge PX 10 EX 10
GETEX ge EX
GETEX ge EX 9223372036854775
GETEX ge PX 9223372036854775807
GETEX ge PXAT 9223372036854775807
GETEX ge EX 10 EX 20
GETEX ge persist
GETEX
GETEX ge EXAT 1
GET ge
EXISTS ge
SET ge v
GETEX ge PXAT 1
EXISTS ge
MSET a 1 b 2 c 3
MGET a b c missing
MGET a
MGET
MGET a a a
MSET a
MSET a 1 b
MSET
MSET a 10 a 20
GET a
MSETNX x 1 y 2
MSETNX x 1 z 3
GET z
MGET x y z
MSETNX q 1 q 2
GET q
MSETNX q
MSETNX r 1 s
MSETNX
"#;

const COUNTERS: &str = r#"
INCR c
INCR c
DECR c
INCRBY c 10
INCRBY c -20
DECRBY c 5
DECRBY c -5
INCRBY c abc
INCRBY c 1.5
INCRBY c " 1"
INCRBY c ""
INCRBY c +1
INCRBY c 01
INCRBY c -0
INCRBY c 99999999999999999999
DECRBY c -9223372036854775808
DECRBY c 9223372036854775807
SET c 9223372036854775806
INCR c
INCR c
GET c
DECR c
INCRBY c 9223372036854775807
SET c -9223372036854775807
DECR c
DECR c
GET c
INCRBY c -1
SET c 0
INCRBY c -9223372036854775808
DECRBY c 1
INCRBY c 9223372036854775807
SET s abc
INCR s
SET s "1 "
INCR s
SET s " 1"
INCR s
SET s 01
INCR s
SET s -0
INCR s
SET s ""
INCR s
SET s 12345678901234567890
INCR s
SET s 1.0
INCR s
SET s 10
APPEND s 0
OBJECT ENCODING s
INCR s
OBJECT ENCODING s
INCR
INCR a b
INCRBY c
DECRBY c
DECR
SET big 9999
INCR big
OBJECT REFCOUNT big
DECR big
OBJECT REFCOUNT big
OBJECT ENCODING big
DECRBY neg 5
INCRBY neg 0
GET neg
"#;

const FLOATS: &str = r#"
INCRBYFLOAT f 1.5
INCRBYFLOAT f 0.1
INCRBYFLOAT f -1.6
INCRBYFLOAT f 1e2
INCRBYFLOAT f 1E-3
INCRBYFLOAT f +2
INCRBYFLOAT f -0
INCRBYFLOAT f .5
INCRBYFLOAT f 5.
INCRBYFLOAT f abc
INCRBYFLOAT f ""
INCRBYFLOAT f " 1"
INCRBYFLOAT f "1 "
INCRBYFLOAT f "\t1"
INCRBYFLOAT f 1e
INCRBYFLOAT f 1e+
INCRBYFLOAT f .
INCRBYFLOAT f -
INCRBYFLOAT f 1..2
INCRBYFLOAT f "1\x002"
INCRBYFLOAT f inf
INCRBYFLOAT f -inf
INCRBYFLOAT f +Infinity
INCRBYFLOAT f infin
INCRBYFLOAT f nan
INCRBYFLOAT f -nan
INCRBYFLOAT f "nan(123)"
INCRBYFLOAT f 1e5000
INCRBYFLOAT f -1e5000
INCRBYFLOAT f 1e-5000
INCRBYFLOAT f 0x10
INCRBYFLOAT f 0X1.8p1
INCRBYFLOAT f 0x.8
INCRBYFLOAT f 0x1p-3
INCRBYFLOAT f 0x
INCRBYFLOAT f 0x.
INCRBYFLOAT f 0x1p
INCRBYFLOAT f 0x1g
INCRBYFLOAT f 0xffffffffffffffffffffp-10
GET f
SET f 0
INCRBYFLOAT f 10000000000.1
INCRBYFLOAT f 0.000003814697265625
INCRBYFLOAT g 0.1
INCRBYFLOAT g 0.2
INCRBYFLOAT g 0.3
INCRBYFLOAT g -0.6
INCRBYFLOAT g 1e-20
INCRBYFLOAT g -1e-20
INCRBYFLOAT g 1e4000
INCRBYFLOAT g -1e4000
INCRBYFLOAT g 1e4932
INCRBYFLOAT g 1e4932
GET g
INCRBYFLOAT g -1e4932
INCRBYFLOAT g 3.6e-4951
INCRBYFLOAT g 1.8e-4951
INCRBYFLOAT h 1e300
INCRBYFLOAT h 123456789012345678901234567890
INCRBYFLOAT h -1e300
INCRBYFLOAT h 9223372036854775807
INCRBYFLOAT h 0.00000000000000000001
SET f abc
INCRBYFLOAT f 1
SET f 5
INCRBYFLOAT f 0.5
OBJECT ENCODING f
SET f 3.0
INCRBYFLOAT f 0
OBJECT ENCODING f
SET f 1e3
INCRBYFLOAT f 0
SET f 9223372036854775807
INCRBYFLOAT f 1
SET f 0x10
INCRBYFLOAT f 1
SET f "1 "
INCRBYFLOAT f 1
SET f inf
INCRBYFLOAT f 1
INCRBYFLOAT f
INCRBYFLOAT f 1 2
SET d 5.0e3
INCRBYFLOAT d 2.0e2
SET d 10.50
INCRBYFLOAT d 0.1
INCRBYFLOAT d -5
INCRBYFLOAT l 123456789012345678901234567890123456789012345
OBJECT ENCODING l
"#;

const RANGES: &str = r#"
APPEND ap hello
APPEND ap " world"
GET ap
OBJECT ENCODING ap
APPEND an 123
OBJECT ENCODING an
APPEND an ""
OBJECT ENCODING an
GET an
APPEND ae ""
EXISTS ae
OBJECT ENCODING ae
APPEND
APPEND ap
STRLEN ap
STRLEN missing
SET n 12345
STRLEN n
STRLEN n x
STRLEN
SET gr "This is a string"
GETRANGE gr 0 3
GETRANGE gr -3 -1
GETRANGE gr 0 -1
GETRANGE gr 10 100
GETRANGE gr 5 3
GETRANGE gr -1 -5
GETRANGE gr -5 -1
GETRANGE gr -100 -50
GETRANGE gr -100 100
GETRANGE gr -100 -16
GETRANGE gr -100 -17
GETRANGE gr 100 200
GETRANGE gr 0 0
GETRANGE gr 15 15
GETRANGE gr 16 16
GETRANGE missing 0 -1
GETRANGE gr a 1
GETRANGE gr 1 b
GETRANGE missing a 1
GETRANGE gr 9223372036854775807 -9223372036854775808
GETRANGE gr -9223372036854775808 9223372036854775807
GETRANGE gr -9223372036854775808 -9223372036854775808
GETRANGE gr 0
GETRANGE gr 0 1 2
SUBSTR gr 0 3
SUBSTR gr -3 -1
SUBSTR gr 0
SET em ""
GETRANGE em 0 -1
GETRANGE em 0 0
GETRANGE em -1 -1
GETRANGE n 1 2
GETRANGE n -2 -1
SETRANGE sr 0 hello
OBJECT ENCODING sr
SETRANGE sr 10 x
GET sr
STRLEN sr
SETRANGE sr -1 x
SETRANGE sr -1 ""
SETRANGE sr abc x
SETRANGE sr 1.5 x
SETRANGE missing2 5 ""
EXISTS missing2
SETRANGE sr 100 ""
SETRANGE sr 536870912 x
SETRANGE sr 536870911 ""
SETRANGE sr 9223372036854775807 x
SETRANGE new 536870912 x
SETRANGE new 536870912 ""
EXISTS new
SETRANGE n 1 x
GET n
OBJECT ENCODING n
SET es abc
SETRANGE es 0 ""
OBJECT ENCODING es
SETRANGE es 1 ""
SETRANGE es 1 Z
GET es
OBJECT ENCODING es
SETRANGE es 3 DEF
GET es
SETRANGE
SETRANGE es 1
SET ts short
SETRANGE ts 2 "\x00\xff"
GET ts
"#;

#[test]
fn set_and_get_options_and_errors() {
    let mut p = Pair::start(&[]);
    p.corpus(SET_AND_GET);
    assert_eq!(p.compared, 80, "every line of the corpus was compared");
}

#[test]
fn encodings_and_refcounts() {
    let mut p = Pair::start(&[]);
    p.corpus(ENCODINGS);
}

#[test]
fn set_variants_getex_mget_mset() {
    let mut p = Pair::start(&[]);
    p.corpus(VARIANTS);
}

#[test]
fn integer_counters() {
    let mut p = Pair::start(&[]);
    p.corpus(COUNTERS);
}

#[test]
fn incrbyfloat_long_double_replies() {
    let mut p = Pair::start(&[]);
    p.corpus(FLOATS);
    // Longest accepted increment (5119 bytes) and the first refused length.
    let ok = format!("0.{}", "9".repeat(5117));
    p.check_args(&args(&["INCRBYFLOAT", "long", &ok]));
    let too_long = format!("0.{}", "9".repeat(5118));
    p.check_args(&args(&["INCRBYFLOAT", "long", &too_long]));
    let digits = format!("1{}", "0".repeat(4000));
    p.check_args(&args(&["INCRBYFLOAT", "long", &digits]));
    p.check_args(&args(&["INCRBYFLOAT", "long", &format!("-{digits}")]));
    p.check_args(&args(&["GET", "long"]));
}

#[test]
fn append_strlen_getrange_setrange() {
    let mut p = Pair::start(&[]);
    p.corpus(RANGES);
}

#[test]
fn proto_max_bulk_len_bounds_append_and_setrange() {
    let mut p = Pair::start(&["--proto-max-bulk-len", "1mb"]);
    p.corpus(
        r#"
        SETRANGE big 1048576 x
        SETRANGE big 1048575 x
        STRLEN big
        APPEND big y
        APPEND big ""
        SETRANGE big 1048575 y
        SETRANGE big 1048576 y
        SETRANGE big 0 ""
        GETRANGE big 1048570 -1
        SET small abc
        SETRANGE small 1048574 xyz
        SETRANGE small 1048573 xyz
        STRLEN small
        APPEND small q
        "#,
    );
}

/// After HELLO 3 the null replies become RESP3 nulls and the rest keeps its
/// type: the same frames as Redis'.
#[test]
fn resp3_replies_match() {
    let mut p = Pair::start(&[]).resp3();
    p.corpus(
        r#"
        GET missing
        SET k 10
        SET k 11 GET
        SET k 12 NX
        SET k 12 NX GET
        MGET k missing
        GETDEL missing
        GETEX missing
        INCRBYFLOAT k 1.5
        INCR n
        GETRANGE missing 0 1
        STRLEN missing
        OBJECT ENCODING k
        OBJECT ENCODING missing
        SETNX k 1
        MSETNX k 1
        "#,
    );
}

/// The TTL each option leaves, read back with PTTL: equal on both servers
/// up to the few milliseconds between the two requests.
#[test]
fn ttl_values_match() {
    let mut p = Pair::start(&[]);
    let far = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs()
        + 5000)
        .to_string();
    let far_ms = format!("{far}000");
    let setup: Vec<Vec<Vec<u8>>> = vec![
        args(&["SET", "ex", "v", "EX", "100"]),
        args(&["SET", "px", "v", "PX", "100000"]),
        args(&["SET", "exat", "v", "EXAT", &far]),
        args(&["SET", "pxat", "v", "PXAT", &far_ms]),
        args(&["SET", "keep", "v", "EX", "100"]),
        args(&["SET", "keep", "w", "KEEPTTL"]),
        args(&["SET", "drop", "v", "EX", "100"]),
        args(&["SET", "drop", "w"]),
        args(&["SET", "re", "v", "EX", "100"]),
        args(&["SET", "re", "w", "PX", "5000"]),
        args(&["SET", "nxfail", "v", "EX", "100"]),
        args(&["SET", "nxfail", "w", "NX", "PX", "5000"]),
        args(&["SETEX", "setex", "100", "v"]),
        args(&["PSETEX", "psetex", "100000", "v"]),
        args(&["SET", "incr", "1", "EX", "100"]),
        args(&["INCRBY", "incr", "5"]),
        args(&["INCRBYFLOAT", "incr", "0.5"]),
        args(&["APPEND", "incr", "1"]),
        args(&["SETRANGE", "incr", "0", "9"]),
        args(&["SET", "getset", "v", "EX", "100"]),
        args(&["GETSET", "getset", "w"]),
        args(&["SET", "ms", "v", "EX", "100"]),
        args(&["MSET", "ms", "w"]),
        args(&["SET", "getex", "v"]),
        args(&["GETEX", "getex", "EX", "100"]),
        args(&["SET", "getexat", "v"]),
        args(&["GETEX", "getexat", "PXAT", &far_ms]),
        args(&["SET", "persist", "v", "EX", "100"]),
        args(&["GETEX", "persist", "PERSIST"]),
        args(&["SET", "plain", "v", "EX", "100"]),
        args(&["GETEX", "plain"]),
        args(&["SET", "mv", "v", "EX", "100"]),
        args(&["RENAME", "mv", "moved"]),
    ];
    for a in &setup {
        p.check_args(a);
    }
    let keys = [
        "ex", "px", "exat", "pxat", "keep", "drop", "re", "nxfail", "setex", "psetex", "incr",
        "getset", "ms", "getex", "getexat", "persist", "plain", "mv", "moved",
    ];
    for key in keys {
        let (want, got) = p.both_args(&args(&["PTTL", key]));
        let (Frame::Integer(w), Frame::Integer(g)) = (&want, &got) else {
            panic!("PTTL {key}: {want:?} vs {got:?}");
        };
        if *w < 0 {
            assert_eq!(w, g, "PTTL {key}");
        } else {
            assert!((w - g).abs() < 1000, "PTTL {key}: redis {w}, redsim {g}");
        }
    }
}

#[test]
fn ttl_options_take_effect() {
    let mut p = Pair::start(&[]);
    // Keys that must be gone after the wait, and keys that must survive it.
    p.corpus(
        r#"
        SET px v PX 300
        SET ex v EX 1
        SET keep v PX 300
        SET keep v2 KEEPTTL
        SET clear v PX 300
        SET clear v2
        SET incr 1 PX 300
        INCR incr
        SET flt 1 PX 300
        INCRBYFLOAT flt 1.5
        SET app a PX 300
        APPEND app b
        SET rng abc PX 300
        SETRANGE rng 1 X
        SET gs v PX 300
        GETSET gs w
        SET getex v
        GETEX getex PX 300
        SET persist v PX 300
        GETEX persist PERSIST
        SET ms v PX 300
        MSET ms w
        SET msnx v PX 300
        MSETNX msnx w
        SETEX sx 1 v
        PSETEX psx 300 v
        SET past v PXAT 1
        GET past
        EXISTS past
        SET past2 v EXAT 1
        GET past2
        GET px
        GET keep
        "#,
    );
    std::thread::sleep(Duration::from_millis(1300));
    p.corpus(
        r#"
        GET px
        GET ex
        GET keep
        GET clear
        GET incr
        GET flt
        GET app
        GET rng
        GET gs
        GET getex
        GET persist
        GET ms
        GET msnx
        GET sx
        GET psx
        EXISTS px ex keep clear incr flt app rng gs getex persist ms msnx sx psx
        "#,
    );
    // And the survivors are exactly the ones without a TTL (MSETNX did not
    // overwrite, so its key kept the TTL and expired).
    let survivors = p.check("MGET clear gs persist ms msnx");
    assert_eq!(
        survivors,
        Frame::Array(vec![
            Frame::bulk("v2"),
            Frame::bulk("w"),
            Frame::bulk("v"),
            Frame::bulk("w"),
            Frame::Null,
        ])
    );
}

#[test]
fn incrbyfloat_random_values_match_exactly() {
    let mut p = Pair::start(&[]);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for step in 0..2500 {
        let key = ["fa", "fb", "fc"][rng.below(3)];
        let value = random_float(&mut rng);
        if step % 7 == 0 {
            p.check_args(&args(&["SET", key, &value]));
            p.check_args(&args(&["INCRBYFLOAT", key, "0"]));
        } else {
            p.check_args(&args(&["INCRBYFLOAT", key, &value]));
        }
    }
}

/// A decimal (sometimes hex) number with a random number of digits, point
/// position and exponent: the inputs where long double rounding shows.
fn random_float(rng: &mut Rng) -> String {
    let sign = ["", "-", "+"][rng.below(3)];
    if rng.below(10) == 0 {
        let digits: String = (0..1 + rng.below(18))
            .map(|_| char::from(b"0123456789abcdef"[rng.below(16)]))
            .collect();
        let exp = rng.below(200) as i64 - 100;
        return format!("{sign}0x{digits}p{exp}");
    }
    let n = 1 + rng.below(25);
    let mut digits: String = (0..n)
        .map(|_| char::from(b'0' + rng.below(10) as u8))
        .collect();
    let point = rng.below(n + 1);
    if point < n {
        digits.insert(point, '.');
    }
    let exp = match rng.below(4) {
        0 => format!("e{}", rng.below(60) as i64 - 30),
        1 => format!("E{}", rng.below(8) as i64 - 4),
        _ => String::new(),
    };
    format!("{sign}{digits}{exp}")
}

/// The keys of the random string commands.
const STRING_KEYS: [&str; 4] = ["a", "b", "c", "d"];

/// One random string command over a small alphabet of values, numbers,
/// offsets and TTLs.
fn random_string_command(rng: &mut Rng) -> Vec<String> {
    let long = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    let values = [
        "", "0", "1", "-1", "10", "9999", "10000", "abc", "3.5", "-2.25", "1e3", " 1", "01",
        I64_MAX, I64_MIN, long,
    ];
    let nums = ["0", "1", "-1", "7", "-100", "x", I64_MAX, I64_MIN];
    let offsets = ["0", "1", "3", "-1", "-3", "100", "-100", "x"];
    let ttls = ["1000000", "0", "-1", "x", I64_MAX];
    let [k, k2] = rng.picks(&STRING_KEYS);
    let [v, v2] = rng.picks(&values);
    match rng.below(24) {
        0 => {
            let mut c = words(&["SET", k, v]);
            for opt in ["NX", "XX", "GET", "KEEPTTL"] {
                if rng.below(5) == 0 {
                    c.push(opt.into());
                }
            }
            // No short TTLs: the two servers see each command a few
            // microseconds apart, so a key must not expire mid-run.
            match rng.below(6) {
                0 => c.extend(["EX".into(), "1000".into()]),
                1 => c.extend(["PX".into(), rng.pick(&ttls).into()]),
                2 => c.extend(["EXAT".into(), "99999999999".into()]),
                _ => {}
            }
            c
        }
        1 => words(&["GET", k]),
        2 => words(&["SETNX", k, v]),
        3 => words(&["GETSET", k, v]),
        4 => words(&["GETDEL", k]),
        5 => words(&["MGET", k, k2, "zz"]),
        6 => words(&["MSET", k, v, k2, v2]),
        7 => words(&["MSETNX", k, v, k2, v2]),
        8 => words(&["INCR", k]),
        9 => words(&["DECR", k]),
        10 => words(&["INCRBY", k, rng.pick(&nums)]),
        11 => words(&["DECRBY", k, rng.pick(&nums)]),
        12 => words(&["INCRBYFLOAT", k, v]),
        13 => words(&["APPEND", k, v]),
        14 => words(&["STRLEN", k]),
        15 => words(&["GETRANGE", k, rng.pick(&offsets), rng.pick(&offsets)]),
        16 => words(&[
            "SETRANGE",
            k,
            rng.pick(&offsets),
            rng.pick(&["", "Z", "xyz"]),
        ]),
        17 => words(&["OBJECT", "ENCODING", k]),
        18 => words(&["OBJECT", "REFCOUNT", k]),
        19 => words(&[
            "GETEX",
            k,
            rng.pick(&["PERSIST", "EX", "PX", "NX"]),
            rng.pick(&["1000", "0", "-1", "x"]),
        ]),
        20 => words(&["GETEX", k]),
        21 => words(&["SETEX", k, rng.pick(&ttls), v]),
        22 => words(&["DEL", k]),
        _ => words(&["EXISTS", k, k2]),
    }
}

/// A seeded stream of random string commands ([`random_string_command`]),
/// every reply compared.
#[test]
fn random_string_commands_match() {
    random_steps(42, 4000, random_string_command, |p, _, cmd| {
        p.check_args(&word_args(&cmd));
    });
}

/// The command table entries agree with what Redis' `COMMAND INFO` reports,
/// and are the whole string group (LCS included) and ACL category.
#[test]
fn command_table_matches_command_info() {
    let redis = RedisServer::start(&[]);
    assert_command_group(&mut redis.conn(), "string", 22, &[]);
}

const LCS: &str = r#"
SET key1 ohmytext
SET key2 mynewtext
LCS key1 key2
LCS key1 key2 LEN
LCS key1 key2 len
LCS key1 key2 IDX
LCS key1 key2 idx
LCS key1 key2 IDX MINMATCHLEN 4
LCS key1 key2 IDX MINMATCHLEN 2
LCS key1 key2 IDX MINMATCHLEN 5
LCS key1 key2 IDX WITHMATCHLEN
LCS key1 key2 IDX MINMATCHLEN 4 WITHMATCHLEN
LCS key1 key2 WITHMATCHLEN IDX MINMATCHLEN 3
LCS key1 key2 IDX MINMATCHLEN 0
LCS key1 key2 IDX MINMATCHLEN -5
LCS key1 key2 IDX MINMATCHLEN -9223372036854775808
LCS key1 key2 IDX MINMATCHLEN 9223372036854775807
LCS key1 key2 IDX MINMATCHLEN 9223372036854775808
LCS key1 key2 IDX MINMATCHLEN x
LCS key1 key2 IDX MINMATCHLEN 1.5
LCS key1 key2 IDX MINMATCHLEN
LCS key1 key2 MINMATCHLEN
LCS key1 key2 MINMATCHLEN 3
LCS key1 key2 WITHMATCHLEN
LCS key1 key2 LEN WITHMATCHLEN
LCS key1 key2 LEN MINMATCHLEN 2
LCS key1 key2 LEN IDX
LCS key1 key2 IDX LEN
LCS key1 key2 LEN IDX bogus
LCS key1 key2 LEN IDX MINMATCHLEN x
LCS key1 key2 bogus
LCS key1 key2 IDX bogus
LCS key1 key2 LEN LEN
LCS key1 key2 IDX IDX WITHMATCHLEN WITHMATCHLEN
LCS key2 key1 IDX WITHMATCHLEN
LCS key1 key1 IDX WITHMATCHLEN
LCS key1 key1
LCS key1 missing
LCS missing key1 LEN
LCS missing key1 IDX
LCS missing other
LCS missing other IDX WITHMATCHLEN
LCS key1
LCS
RPUSH list a
LCS key1 list
LCS list key1
LCS list missing
LCS missing list LEN
LCS list key1 bogus
LCS list key1 LEN IDX
HSET h f v
LCS h list
SET num 12345
SET num2 92349
LCS num num2 IDX WITHMATCHLEN
SET e ""
LCS e key1 IDX
LCS e e
SET bin "a\x00b\r\nc"
SET bin2 "\x00\r\nb"
LCS bin bin2
LCS bin bin2 IDX WITHMATCHLEN
SET s1 aaaa
SET s2 aa
LCS s1 s2 IDX WITHMATCHLEN
LCS s2 s1 IDX WITHMATCHLEN
SET t1 abcabcabc
SET t2 cbacbacba
LCS t1 t2
LCS t1 t2 IDX WITHMATCHLEN
LCS t2 t1 IDX WITHMATCHLEN
"#;

/// LCS with every option, its errors (a non-string key is not WRONGTYPE
/// here), missing keys as empty strings, and the ranges in Redis' order.
#[test]
fn lcs_options_and_errors() {
    let mut p = Pair::start(&[]);
    p.corpus(LCS);
}

/// In RESP3 the IDX reply is a map; the rest keeps its type.
#[test]
fn lcs_resp3_replies_match() {
    let mut p = Pair::start(&[]).resp3();
    p.corpus(LCS);
}

/// Both keys are looked up (a hit or a miss each) before either's type is
/// checked or an option read.
#[test]
fn lcs_counts_lookups_like_redis() {
    let mut p = Pair::start(&[]);
    p.corpus("SET a xyz\nRPUSH l x");
    for line in [
        "LCS a missing",
        "LCS missing a IDX",
        "LCS l a",
        "LCS a l LEN",
        "LCS missing l",
        "LCS a a bogus",
        "LCS a a LEN IDX",
    ] {
        p.same_lookups(line, |p| p.check(line));
    }
}

/// The table may take at most proto-max-bulk-len bytes: 512 × 512 cells of
/// four bytes fit 1mb exactly, one more row does not.
#[test]
fn lcs_table_bounded_by_proto_max_bulk_len() {
    let mut p = Pair::start(&["--proto-max-bulk-len", "1mb"]);
    let x511 = "ab".repeat(255) + "c";
    let x512 = "ba".repeat(256);
    p.check_args(&args(&["SET", "a511", &x511]));
    p.check_args(&args(&["SET", "b511", &x511.replace('c', "a")]));
    p.check_args(&args(&["SET", "a512", &x512]));
    p.corpus(
        r#"
        LCS a511 b511 LEN
        LCS a511 b511 IDX MINMATCHLEN 100
        LCS a512 b511 LEN
        LCS b511 a512
        LCS a512 a512 IDX
        LCS a512 missing
        LCS a512 a512 LEN IDX
        CONFIG SET proto-max-bulk-len 2mb
        LCS a512 b511 LEN
        LCS a512 a512 IDX MINMATCHLEN 500 WITHMATCHLEN
        "#,
    );
}

/// Random pairs over a small alphabet, where ties in the table are common:
/// the subsequence and the ranges Redis' walk picks, every option.
#[test]
fn lcs_random_pairs_match() {
    let mut p = Pair::start(&[]);
    let mut rng = Rng(0x1c5_2024);
    for round in 0..400 {
        let alphabet: &[u8] = [&b"ab"[..], b"abc", b"abcd"][round % 3];
        let word = |rng: &mut Rng| -> String {
            let most = [4, 12, 40][rng.below(3)];
            let n = rng.below(most + 1);
            (0..n)
                .map(|_| char::from(alphabet[rng.below(alphabet.len())]))
                .collect()
        };
        let (a, b) = (word(&mut rng), word(&mut rng));
        p.check_args(&args(&["SET", "ra", &a]));
        p.check_args(&args(&["SET", "rb", &b]));
        p.check("LCS ra rb");
        p.check("LCS ra rb LEN");
        p.check("LCS ra rb IDX WITHMATCHLEN");
        let min = rng.below(5).to_string();
        p.check_args(&args(&["LCS", "rb", "ra", "IDX", "MINMATCHLEN", &min]));
    }
    assert!(p.compared > 2000);
}
