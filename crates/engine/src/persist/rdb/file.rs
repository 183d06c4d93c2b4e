//! A whole RDB file (rdb.c's `rdbSaveRio`): the header, the aux fields, the function libraries, each database's keys with their expiry, the EOF opcode and the CRC64, as a full sync sends it to a replica or `redis-cli --rdb` saves it.

use crate::persist::payload::{
    crc64, put_len, put_millis, put_string, OPCODE_FUNCTION2, RDB_VERSION,
};
use crate::persist::Snapshot;
use crate::server::Server;

const OPCODE_AUX: u8 = 250;
const OPCODE_RESIZEDB: u8 = 251;
const OPCODE_EXPIRETIME_MS: u8 = 252;
const OPCODE_SELECTDB: u8 = 254;
const OPCODE_EOF: u8 = 255;

/// Where the replication stream stands as the file is taken (`rdbSaveInfo`):
/// a replica loading it learns the master's history and offset.
pub struct ReplInfo<'a> {
    pub stream_db: usize,
    pub replid: &'a str,
    pub offset: u64,
}

/// What a file holds (`REPLCONF rdb-filter-only` leaves parts out).
#[derive(Clone, Copy, Debug)]
pub struct Parts {
    pub data: bool,
    pub functions: bool,
}

impl Parts {
    pub const ALL: Parts = Parts {
        data: true,
        functions: true,
    };
}

/// The server's keyspace and libraries now, as an RDB file. Keys already
/// expired are left out, as `rdbSaveKeyValuePair` leaves them.
pub fn write(srv: &Server, parts: Parts, repl: Option<ReplInfo>) -> Vec<u8> {
    let compress = srv.config.rdbcompression;
    let mut out = format!("REDIS{RDB_VERSION:04}").into_bytes();
    let aux = |out: &mut Vec<u8>, k: &str, v: &[u8]| {
        out.push(OPCODE_AUX);
        put_string(out, k.as_bytes());
        put_string(out, v);
    };
    aux(&mut out, "redis-ver", crate::REDIS_VERSION.as_bytes());
    aux(&mut out, "redis-bits", b"64");
    aux(
        &mut out,
        "ctime",
        (srv.now_ms() / 1000).to_string().as_bytes(),
    );
    aux(
        &mut out,
        "used-mem",
        srv.used_memory().to_string().as_bytes(),
    );
    if let Some(r) = &repl {
        aux(
            &mut out,
            "repl-stream-db",
            r.stream_db.to_string().as_bytes(),
        );
        aux(&mut out, "repl-id", r.replid.as_bytes());
        aux(&mut out, "repl-offset", r.offset.to_string().as_bytes());
    }
    aux(&mut out, "aof-base", b"0");
    if parts.functions {
        for lib in srv.scripts.functions.libraries() {
            out.push(OPCODE_FUNCTION2);
            put_string(&mut out, &lib.code);
        }
    }
    let snapshot = if parts.data {
        Snapshot::take(srv)
    } else {
        Snapshot::default()
    };
    let mut db = None;
    for (i, (d, key, obj, expire_ms)) in snapshot.entries.iter().enumerate() {
        if db != Some(*d) {
            db = Some(*d);
            let rest = &snapshot.entries[i..];
            let keys = rest.iter().take_while(|e| e.0 == *d).count();
            let volatile = rest[..keys].iter().filter(|e| e.3.is_some()).count();
            out.push(OPCODE_SELECTDB);
            put_len(&mut out, *d as u64);
            out.push(OPCODE_RESIZEDB);
            put_len(&mut out, keys as u64);
            put_len(&mut out, volatile as u64);
        }
        if let Some(at) = expire_ms {
            out.push(OPCODE_EXPIRETIME_MS);
            put_millis(&mut out, *at);
        }
        // The type byte, then the key, then the value's encoding.
        let value = super::save(&obj.value, compress);
        out.push(value[0]);
        crate::persist::payload::put_raw_string(&mut out, key, compress);
        out.extend_from_slice(&value[1..]);
    }
    out.push(OPCODE_EOF);
    let crc = crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}
