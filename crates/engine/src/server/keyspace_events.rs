//! `notify-keyspace-events`: the event classes (server.h's `NOTIFY_*`) and the parameter's text as notify.c reads and writes it.

/// `K`: publish to `__keyspace@<db>__:<key>`.
pub const KEYSPACE: u32 = 1 << 0;
/// `E`: publish to `__keyevent@<db>__:<event>`.
pub const KEYEVENT: u32 = 1 << 1;
/// `g`: DEL, EXPIRE, RENAME and the other type-independent commands.
pub const GENERIC: u32 = 1 << 2;
/// `$`: string commands.
pub const STRING: u32 = 1 << 3;
/// `l`: list commands.
pub const LIST: u32 = 1 << 4;
/// `s`: set commands.
pub const SET: u32 = 1 << 5;
/// `h`: hash commands.
pub const HASH: u32 = 1 << 6;
/// `z`: sorted set commands.
pub const ZSET: u32 = 1 << 7;
/// `x`: a key expired (lazily or by the active cycle).
pub const EXPIRED: u32 = 1 << 8;
/// `e`: a key evicted by `maxmemory`.
pub const EVICTED: u32 = 1 << 9;
/// `t`: stream commands.
pub const STREAM: u32 = 1 << 10;
/// `m`: a read missed its key. Not part of `A`, on purpose (it is noisy).
pub const KEY_MISS: u32 = 1 << 11;
/// `d`: module events; accepted and shown, though no module exists here.
pub const MODULE: u32 = 1 << 13;
/// `n`: a key was created. Not part of `A`.
pub const NEW: u32 = 1 << 14;
/// `A`: every class but `m` and `n`.
pub const ALL: u32 =
    GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

/// `keyspaceEventsStringToFlags`: the classes `text` names, or CONFIG
/// SET's error for any other character. The empty string turns them all off.
pub fn parse(text: &str) -> Result<u32, String> {
    let mut flags = 0;
    for c in text.bytes() {
        flags |= match c {
            b'A' => ALL,
            b'g' => GENERIC,
            b'$' => STRING,
            b'l' => LIST,
            b's' => SET,
            b'h' => HASH,
            b'z' => ZSET,
            b'x' => EXPIRED,
            b'e' => EVICTED,
            b'K' => KEYSPACE,
            b'E' => KEYEVENT,
            b't' => STREAM,
            b'm' => KEY_MISS,
            b'd' => MODULE,
            b'n' => NEW,
            _ => return Err("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.".into()),
        };
    }
    Ok(flags)
}

/// `keyspaceEventsFlagsToString`: the canonical text CONFIG GET shows
/// (`A` when every class of it is on, then `K`, `E`, `m`).
pub fn show(flags: &u32) -> String {
    let flags = *flags;
    let mut s = String::new();
    if flags & ALL == ALL {
        s.push('A');
    } else {
        for (bit, c) in [
            (GENERIC, 'g'),
            (STRING, '$'),
            (LIST, 'l'),
            (SET, 's'),
            (HASH, 'h'),
            (ZSET, 'z'),
            (EXPIRED, 'x'),
            (EVICTED, 'e'),
            (STREAM, 't'),
            (MODULE, 'd'),
            (NEW, 'n'),
        ] {
            if flags & bit != 0 {
                s.push(c);
            }
        }
    }
    for (bit, c) in [(KEYSPACE, 'K'), (KEYEVENT, 'E'), (KEY_MISS, 'm')] {
        if flags & bit != 0 {
            s.push(c);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_show_round_trip_as_redis() {
        assert_eq!(show(&parse("KEA").unwrap()), "AKE");
        assert_eq!(show(&parse("").unwrap()), "");
        assert_eq!(show(&parse("Egl$").unwrap()), "g$lE");
        // `n` lies outside `A`, yet `A` hides every per-class letter, `n`
        // included (notify.c's else branch), so it reads back as `A`.
        assert_eq!(show(&parse("AnKm").unwrap()), "AKm");
        assert_eq!(show(&parse("gxehsz$ltnK").unwrap()), "g$lshzxetnK");
        assert_eq!(show(&parse("gxehsz$ltdnK").unwrap()), "AK");
        assert_eq!(
            parse("KQ").unwrap_err(),
            "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
        );
    }
}
