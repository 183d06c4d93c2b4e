//! Tests of the cmsgpack and cjson libraries and `string.dump`, run as scripts through EVAL (the libraries need an interpreter around them), and of commands that answer scripts differently (XREAD BLOCK, SORT BY constant, CLUSTER RESET).

use crate::proto::resp::Frame;
use crate::Engine;

fn eval(script: &str) -> Frame {
    let mut e = Engine::new(1);
    let c = e.connect("t");
    let a = [b"EVAL".to_vec(), script.as_bytes().to_vec(), b"0".to_vec()];
    e.execute(c, &a)
}

/// The hex of `cmsgpack.pack(<args>)`.
fn packed(args: &str) -> String {
    let script = format!(
        "local s = cmsgpack.pack({args}) local h = '' \
         for i = 1, #s do h = h .. string.format('%02x', s:byte(i)) end return h"
    );
    match eval(&script) {
        Frame::Bulk(b) => String::from_utf8(b.to_vec()).unwrap(),
        other => panic!("{args}: {other:?}"),
    }
}

fn error_of(script: &str) -> String {
    match eval(script) {
        Frame::Error(m) => m.to_string(),
        other => panic!("an error from {script}: {other:?}"),
    }
}

#[test]
fn cmsgpack_packs_numbers_by_their_value() {
    assert_eq!(packed("0.1"), "cb3fb999999999999a");
    assert_eq!(packed("0.5"), "ca3f000000");
    assert_eq!(packed("-1099511627776"), "d3ffffff0000000000");
    assert_eq!(
        packed("1, 127, 128, 255, 256, 65536"),
        "017fcc80ccffcd0100ce00010000"
    );
    assert_eq!(
        packed("-1, -32, -33, -129, -32769"),
        "ffe0d0dfd1ff7fd2ffff7fff"
    );
    assert_eq!(packed("2^53"), "cf0020000000000000");
    assert_eq!(packed("2^63"), "ca5f000000");
    assert_eq!(packed("1/0, 0/0 ~= 0/0"), "ca7f800000c3");
}

#[test]
fn cmsgpack_packs_tables_strings_and_the_rest() {
    assert_eq!(packed("{}"), "90");
    assert_eq!(packed("{1, 2, 'a'}"), "930102a161");
    assert_eq!(
        packed("{[1] = 1, [3] = 3}"),
        "82010103 03".replace(' ', "").as_str()
    );
    assert_eq!(packed("{a = true}"), "81a161c3");
    assert_eq!(packed("nil, false, tostring, cjson.null"), "c0c2c0c0");
    assert_eq!(packed("string.rep('x', 32)").len(), (2 + 32) * 2);
    assert!(packed("string.rep('x', 32)").starts_with("d920"));
    assert!(packed("string.rep('x', 256)").starts_with("da0100"));
    // Long strings: only the header is turned to hex.
    let r = eval("local s = cmsgpack.pack(string.rep('x', 65536)) return {#s, s:sub(1, 5)}");
    let five = Frame::Bulk(b"\xdb\x00\x01\x00\x00".to_vec());
    assert_eq!(r, Frame::Array(vec![Frame::Integer(65541), five]));
    // Nesting stops at 16 levels: the 17th table packs as nil.
    let deep = packed("(function() local t = {} t[1] = t return t end)()");
    assert_eq!(deep, format!("{}c0", "91".repeat(16)));
}

#[test]
fn cmsgpack_unpacks_what_it_packs() {
    let r = eval(
        "local s = cmsgpack.pack({a = {1, 2, {b = 'c'}}}, -5, 3.25, 'x') \
         local t, n, f, x = cmsgpack.unpack(s) \
         local off, one = cmsgpack.unpack_one(s) \
         local off2, a, b = cmsgpack.unpack_limit(s, 2, off) \
         return {t.a[3].b, n, tostring(f), x, off, tostring(one.a[2]), off2, a, tostring(b)}",
    );
    let Frame::Array(items) = r else {
        panic!("{r:?}")
    };
    let expect = [
        Frame::bulk("c"),
        Frame::Integer(-5),
        Frame::bulk("3.25"),
        Frame::bulk("x"),
        Frame::Integer(11),
        Frame::bulk("2"),
        Frame::Integer(17),
        Frame::Integer(-5),
        Frame::bulk("3.25"),
    ];
    assert_eq!(items, expect);
}

#[test]
fn cmsgpack_errors_read_as_redis_prints_them() {
    assert!(error_of("return cmsgpack.unpack('\\205\\1')").contains("Missing bytes in input."));
    assert!(error_of("return cmsgpack.unpack('\\193')").contains("Bad data format in input."));
    assert!(error_of("return cmsgpack.unpack_one('ab', 5)")
        .contains("Start offset 5 greater than input length 2."));
    assert!(error_of("return cmsgpack.unpack_limit('ab', -1)")
        .contains("Invalid request to unpack with offset of 0 and limit of 2."));
    assert!(error_of("return cmsgpack.unpack('\\129\\192\\1')").contains("table index is nil"));
    assert!(error_of("cmsgpack.pack = 1").contains("Attempt to modify a readonly table"));
}

#[test]
fn cjson_settings_change_encode_and_decode() {
    let r = eval(
        "local out = {} \
         out[1] = tostring(cjson.encode_max_depth(1)) \
         out[2] = tostring(pcall(cjson.encode, {{1}})) \
         cjson.encode_invalid_numbers('null') \
         out[3] = cjson.encode({1/0}) \
         cjson.encode_invalid_numbers(true) \
         out[4] = cjson.encode(-1/0) \
         out[5] = tostring(cjson.encode_keep_buffer(false)) \
         cjson.encode_number_precision(3) \
         out[6] = cjson.encode(3.14159) \
         cjson.encode_sparse_array(true) \
         out[7] = cjson.encode({[20] = 1}) \
         cjson.decode_invalid_numbers(false) \
         out[8] = tostring(pcall(cjson.decode, '0x10')) \
         return out",
    );
    let Frame::Array(items) = r else {
        panic!("{r:?}")
    };
    let expect = [
        "1",
        "false",
        "[null]",
        "-inf",
        "false",
        "3.14",
        "{\"20\":1}",
        "false",
    ];
    assert_eq!(items, expect.map(Frame::bulk));
    assert!(error_of("cjson.encode_max_depth(0)").contains(
        "bad argument #1 to 'encode_max_depth' (expected integer between 1 and 2147483647)"
    ));
    assert!(error_of("cjson.encode_keep_buffer(1, 2)")
        .contains("bad argument #2 to 'encode_keep_buffer' (found too many arguments)"));
}

#[test]
fn binary_chunks_do_not_load() {
    assert!(
        error_of("return loadstring(string.dump(function() return 1 end))()")
            .contains("attempt to call a nil value")
    );
    assert!(error_of("string.dump(tostring)").contains("unable to dump given function"));
}

fn eval_with(e: &mut Engine, c: u64, script: &str, key: &str) -> Frame {
    let a = [
        b"EVAL".to_vec(),
        script.as_bytes().to_vec(),
        b"1".to_vec(),
        key.as_bytes().to_vec(),
    ];
    e.execute(c, &a)
}

#[test]
fn commands_answer_scripts_as_redis_does() {
    let mut e = Engine::new(1);
    let c = e.connect("t");
    e.execute_line(c, "SADD myset b aa a c");
    let r = eval_with(
        &mut e,
        c,
        "return redis.call('sort', KEYS[1], 'by', '_')",
        "myset",
    );
    assert_eq!(
        r,
        Frame::Array(["a", "aa", "b", "c"].map(Frame::bulk).to_vec())
    );
    e.execute_line(c, "XADD s 1-0 f v");
    let r = eval_with(
        &mut e,
        c,
        "return redis.pcall('xread', 'BLOCK', 0, 'STREAMS', KEYS[1], '$')",
        "s",
    );
    assert_eq!(
        r,
        Frame::err("ERR xread command is not allowed with BLOCK option from scripts")
    );
    let r = eval_with(
        &mut e,
        c,
        "return redis.pcall('xread', 'STREAMS', KEYS[1], '$')",
        "s",
    );
    assert_eq!(
        r,
        Frame::Null,
        "no entries: a nil, which the script returns as a null"
    );
    let r = e.execute_line(
        c,
        "EVAL \"return redis.call('cluster', 'reset', 'hard')\" 0",
    );
    assert!(
        matches!(&r, Frame::Error(m) if m.contains("This Redis command is not allowed from script")),
        "{r:?}"
    );
    assert!(
        matches!(e.execute_line(c, "CLUSTER RESET"), Frame::Error(m) if m.contains("cluster support disabled"))
    );
}

fn info(e: &mut Engine, c: u64, section: &str) -> String {
    match e.execute_line(c, &format!("INFO {section}")) {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8(b).unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn refusals_inside_scripts_are_counted_as_redis_counts_them() {
    let mut e = Engine::new(1);
    let c = e.connect("t");
    e.execute_line(c, "CONFIG SET maxmemory 1");
    let r = eval_with(&mut e, c, "return redis.call('set', KEYS[1], 'y')", "x");
    assert!(
        matches!(&r, Frame::Error(m) if m.starts_with("OOM command not allowed")),
        "{r:?}"
    );
    let stats = info(&mut e, c, "commandstats");
    assert!(
        stats.contains(
            "cmdstat_set:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0"
        ),
        "{stats}"
    );
    let errors = info(&mut e, c, "errorstats");
    assert!(
        errors.contains("errorstat_OOM:count=1"),
        "counted once: {errors}"
    );
    e.execute_line(c, "CONFIG SET maxmemory 0");
    // A script that may write is refused before it runs without enough good replicas.
    e.execute_line(c, "CONFIG SET min-replicas-to-write 1");
    let r = e.execute_line(c, "EVAL \"#!lua\nreturn 1\" 0");
    assert_eq!(
        r,
        Frame::err("NOREPLICAS Not enough good replicas to write.")
    );
    let r = e.execute_line(c, "EVAL \"#!lua flags=no-writes\nreturn 1\" 0");
    assert_eq!(r, Frame::Integer(1));
    let r = eval_with(&mut e, c, "return redis.pcall('set', KEYS[1], 'y')", "x");
    assert_eq!(
        r,
        Frame::err("NOREPLICAS Not enough good replicas to write.")
    );
}

#[test]
fn info_memory_counts_scripts_and_functions() {
    let mut e = Engine::new(1);
    let c = e.connect("t");
    for i in 0..3 {
        e.execute_line(c, &format!("SCRIPT LOAD \"return {i}\""));
    }
    let lib = "#!lua name=lib\nredis.register_function('f', function() return 1 end)";
    e.execute(
        c,
        &[
            b"FUNCTION".to_vec(),
            b"LOAD".to_vec(),
            lib.as_bytes().to_vec(),
        ],
    );
    let m = info(&mut e, c, "memory");
    assert!(
        m.contains(
            "number_of_cached_scripts:3\r\nnumber_of_functions:1\r\nnumber_of_libraries:1\r\n"
        ),
        "{m}"
    );
    e.execute_line(c, "SCRIPT FLUSH ASYNC");
    assert!(info(&mut e, c, "memory").contains("number_of_cached_scripts:0\r\n"));
}
