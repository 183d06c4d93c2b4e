//! Differential tests of the `cmsgpack` library against a real redis-server: the bytes `cmsgpack.pack` writes (every int width, float vs double, strings, arrays vs maps, nesting cut at 16), what `unpack`, `unpack_one` and `unpack_limit` read back, and their errors.

use redsim_tests::Pair;

/// `EVAL script 0 arg...`, checked on both servers.
fn eval(p: &mut Pair, script: &str, argv: &[&[u8]]) {
    let mut args = vec![b"EVAL".to_vec(), script.as_bytes().to_vec(), b"0".to_vec()];
    args.extend(argv.iter().map(|a| a.to_vec()));
    p.check_args(&args);
}

/// Lua that prints any value with its type, tables with sorted keys, so
/// unpacked values compare exactly (a Redis reply would truncate numbers).
const DUMP: &str = "local function d(v) \
    if type(v) ~= 'table' then return type(v) .. ':' .. tostring(v) end \
    local ks = {} for k in pairs(v) do ks[#ks + 1] = k end \
    table.sort(ks, function(a, b) return d(a) < d(b) end) \
    local out = {} for _, k in ipairs(ks) do out[#out + 1] = d(k) .. '=' .. d(v[k]) end \
    return '{' .. table.concat(out, ',') .. '}' end ";

#[test]
fn pack_writes_the_same_bytes() {
    let mut p = Pair::start(&[]);
    let packs = [
        // Every int width, both signs, at the edges.
        "0, 127, 128, 255, 256, 65535, 65536, 2^32 - 1, 2^32, 2^53, 2^63 - 2^11",
        "-1, -32, -33, -128, -129, -32768, -32769, -2^31, -2^31 - 1, -2^53, -2^63",
        // Floats when a C float holds them exactly, doubles otherwise.
        "0.1, 0.5, -0.25, 1.5, 3.4e38, 1e300, 2^63, 2^64, -2^70, 1/0, -1/0, 1e-320, 0/0",
        // Strings at each header's edges.
        "'', string.rep('a', 31), string.rep('b', 32), string.rep('c', 255)",
        "string.rep('d', 256), string.rep('e', 65535), string.rep('f', 65536)",
        // Arrays, maps, and what is neither.
        "{}, {1, 2, 3}, {[1] = 'a', [2] = 'b'}, {[1] = 1, [3] = 3}, {[0] = 1}",
        "{x = 1}, {[1.5] = true}, {[-1] = false}, {{{}}}, {[{}] = 1}",
        "nil, true, false, tostring, cjson.null",
        "{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}",
        "{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}",
        "(function() local t = {} for i = 1, 70000 do t[i] = i % 7 end return t end)()",
        // Nesting stops at 16: a circular table packs as a deep copy.
        "(function() local t = {} t[1] = t return t end)()",
        "(function() local a = {y = 5} local b = {x = a} a.x = b return a end)()",
    ];
    for args in packs {
        eval(&mut p, &format!("return cmsgpack.pack({args})"), &[]);
    }
    eval(&mut p, "return cmsgpack.pack()", &[]);
    eval(&mut p, "return {pcall(cmsgpack.pack)}", &[]);
    eval(&mut p, "cmsgpack.pack = nil", &[]);
}

#[test]
fn unpack_reads_the_same_values() {
    let mut p = Pair::start(&[]);
    let all = format!("{DUMP} local out = {{}} for i, v in ipairs({{cmsgpack.unpack(ARGV[1])}}) do out[i] = d(v) end return out");
    let inputs: &[&[u8]] = &[
        b"\x00\x7f\xff\xe0\xcc\x80\xcd\x01\x00\xce\x00\x01\x00\x00\xcf\x00\x00\x00\x01\x00\x00\x00\x00",
        b"\xd0\x80\xd1\x80\x00\xd2\x80\x00\x00\x00\xd3\x80\x00\x00\x00\x00\x00\x00\x01",
        // uint 64 above 2^63 wraps negative, as lua_pushinteger does.
        b"\xcf\xff\xff\xff\xff\xff\xff\xff\xfe",
        b"\xca\x3f\xc0\x00\x00\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a\xca\x7f\x80\x00\x00",
        b"\xc0\xc2\xc3\xa3abc\xd9\x02hi\xda\x00\x01z\xdb\x00\x00\x00\x01y\xa0",
        b"\x92\x01\xa1x\xdc\x00\x02\xc3\xc2\xdd\x00\x00\x00\x01\x90",
        b"\x82\xa1a\x01\xa1b\x91\x02\xde\x00\x01\x01\x02\xdf\x00\x00\x00\x01\xc3\xc0",
        b"\x81\x92\x01\x02\xa1v",
        // Errors: truncated, unknown types (bin, ext, 0xc1), bad keys.
        b"\xcd\x01",
        b"\xa5ab",
        b"\x93\x01\x02",
        b"\xdb\x00\x00\x00\x09abc",
        b"\xc1",
        b"\xc4\x01a",
        b"\xd4\x01\x02",
        b"\x81\xc0\x01",
        b"\x81\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00\x01",
        b"",
    ];
    for input in inputs {
        eval(&mut p, &all, &[input]);
    }
    // unpack_one and unpack_limit walk a stream; the offset is -1 at the end.
    let walk = format!(
        "{DUMP} local s = ARGV[1] local out = {{}} \
         local off, v = cmsgpack.unpack_one(s) out[#out + 1] = off .. ' ' .. d(v) \
         off, v = cmsgpack.unpack_one(s, off) out[#out + 1] = off .. ' ' .. d(v) \
         local r = {{cmsgpack.unpack_limit(s, 5, off)}} for i, x in ipairs(r) do out[#out + 1] = d(x) end \
         r = {{cmsgpack.unpack_limit(s, 0, 0)}} out[#out + 1] = #r \
         r = {{cmsgpack.unpack_limit(s, 0, 1)}} out[#out + 1] = #r .. ' ' .. d(r[1]) \
         r = {{cmsgpack.unpack_one(s, #s)}} out[#out + 1] = #r .. ' ' .. d(r[1]) \
         return out"
    );
    eval(&mut p, &walk, &[b"\x01\x02\xa1x\x91\x03\xc3\x04"]);
    for bad in [
        "return cmsgpack.unpack_one('abc', -1)",
        "return cmsgpack.unpack_limit('abc', -2, 1)",
        "return cmsgpack.unpack_one('abc', 4)",
        "return cmsgpack.unpack_limit('abc')",
        "return cmsgpack.unpack()",
        "return cmsgpack.unpack({})",
        "return {cmsgpack.unpack_one('\\1\\2', '1')}",
        // The Lua stack Redis fills: 7999 values at once, arrays ~4000 deep.
        "return #{cmsgpack.unpack(string.rep('\\0', 7999))}",
        "return #{cmsgpack.unpack(string.rep('\\0', 8000))}",
        "return #{cmsgpack.unpack(string.rep('\\145', 3990) .. '\\0')}",
        "return #{cmsgpack.unpack(string.rep('\\145', 4000) .. '\\0')}",
        "return #{cmsgpack.unpack(string.rep('\\129\\0', 2660) .. '\\0')}",
        "return #{cmsgpack.unpack(string.rep('\\129\\0', 2670) .. '\\0')}",
        "return #{cmsgpack.unpack(string.rep('\\129\\145', 4000) .. '\\0')}",
    ] {
        eval(&mut p, bad, &[]);
    }
}

#[test]
fn pack_and_unpack_round_trip() {
    let mut p = Pair::start(&[]);
    let script = format!(
        "{DUMP} local v = {{a = {{1, 2.5, 'x', {{b = false}}}}, n = -7, f = 0.1, s = string.rep('q', 300)}} \
         local s = cmsgpack.pack(v, 'tail') local a, b = cmsgpack.unpack(s) \
         return {{d(a), d(b), #s}}"
    );
    eval(&mut p, &script, &[]);
}
