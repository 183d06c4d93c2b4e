//! Streams in RDB (`RDB_TYPE_STREAM_LISTPACKS` 1 to 3): each node's listpack laid out as t_stream.c builds it (master entry, flags, ID deltas, same-fields compression, `lp-count`), the metadata, and the consumer groups with their PELs and consumers.

use super::{TYPE_STREAM_LISTPACKS_2, TYPE_STREAM_LISTPACKS_3};
use crate::keyspace::types::stream::{Entry, Groups, Log, LogMeta, NodeDump, Stream, StreamId};
use crate::persist::packed::{listpack, Elem};
use crate::persist::payload::{put_len, put_millis, put_raw_string, Reader};

/// `STREAM_ITEM_FLAG_DELETED` and `_SAMEFIELDS`.
const FLAG_DELETED: i64 = 1;
const FLAG_SAMEFIELDS: i64 = 2;

fn id_bytes(id: StreamId) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&id.ms.to_be_bytes());
    b[8..].copy_from_slice(&id.seq.to_be_bytes());
    b
}

fn read_id(raw: &[u8]) -> Option<StreamId> {
    if raw.len() != 16 {
        return None;
    }
    Some(StreamId::new(
        u64::from_be_bytes(raw[..8].try_into().ok()?),
        u64::from_be_bytes(raw[8..].try_into().ok()?),
    ))
}

/// One node's listpack, as `streamAppendItem` and XDEL left it.
pub(super) fn node_listpack(n: &NodeDump) -> Vec<u8> {
    let mut w = listpack::Writer::new();
    w.int(n.live as i64);
    w.int(n.deleted as i64);
    w.int(n.master_fields.len() as i64);
    for f in &n.master_fields {
        w.str(f);
    }
    w.int(0);
    for e in &n.entries {
        let same = e.fields.len() == n.master_fields.len()
            && e.fields
                .iter()
                .zip(&n.master_fields)
                .all(|((f, _), m)| f == m);
        let mut flags = if same { FLAG_SAMEFIELDS } else { 0 };
        if e.is_deleted() {
            flags |= FLAG_DELETED;
        }
        w.int(flags);
        w.int(e.id.ms.wrapping_sub(n.master.ms) as i64);
        w.int(e.id.seq.wrapping_sub(n.master.seq) as i64);
        let k = e.fields.len() as i64;
        if same {
            for (_, v) in &e.fields {
                w.str(v);
            }
            w.int(k + 3);
        } else {
            w.int(k);
            for (f, v) in &e.fields {
                w.str(f);
                w.str(v);
            }
            w.int(2 * k + 4);
        }
    }
    w.finish()
}

pub(super) fn save(out: &mut Vec<u8>, s: &Stream, compress: bool) {
    let nodes = s.log().dump_nodes();
    put_len(out, nodes.len() as u64);
    for n in &nodes {
        put_raw_string(out, &id_bytes(n.master), compress);
        put_raw_string(out, &node_listpack(n), compress);
    }
    let m = s.log().meta();
    put_len(out, m.length);
    for id in [m.last_id, m.first_id, m.max_deleted_entry_id] {
        put_len(out, id.ms);
        put_len(out, id.seq);
    }
    put_len(out, m.entries_added);
    put_len(out, s.groups().len() as u64);
    for (name, g) in s.groups().iter() {
        put_raw_string(out, name, compress);
        put_len(out, g.last_id.ms);
        put_len(out, g.last_id.seq);
        put_len(out, g.entries_read as u64);
        put_len(out, g.pel().len() as u64);
        for (id, nack) in g.pel() {
            out.extend_from_slice(&id_bytes(*id));
            put_millis(out, nack.delivery_time);
            put_len(out, nack.delivery_count);
        }
        put_len(out, g.consumers().len() as u64);
        for (cname, c) in g.consumers() {
            put_raw_string(out, cname, compress);
            put_millis(out, c.seen_time);
            put_millis(out, c.active_time);
            put_len(out, c.pel().len() as u64);
            for id in c.pel() {
                out.extend_from_slice(&id_bytes(*id));
            }
        }
    }
}

/// An integer element (`lpGetIntegerIfValid`: integer-looking strings count).
fn int(e: Option<Elem>) -> Option<i64> {
    match e? {
        Elem::Int(v) => Some(v),
        Elem::Str(s) => crate::proto::resp::parse_i64(&s),
    }
}

/// Decodes one node's listpack under `master`, checking what
/// `streamValidateListpackIntegrity(deep)` checks: the master entry, each
/// entry's shape and `lp-count`, the counters, and IDs in order.
fn parse_node(master: StreamId, lp: &[u8]) -> Option<NodeDump> {
    let mut it = listpack::read(lp)?.into_iter();
    let live = u64::try_from(int(it.next())?).ok()?;
    let deleted = u64::try_from(int(it.next())?).ok()?;
    let nf = usize::try_from(int(it.next())?).ok()?;
    if nf > lp.len() {
        return None;
    }
    let master_fields: Vec<Vec<u8>> = (0..nf)
        .map(|_| it.next().map(Elem::into_bytes))
        .collect::<Option<_>>()?;
    if int(it.next())? != 0 {
        return None;
    }
    let mut entries = Vec::new();
    let (mut n_live, mut n_deleted) = (0u64, 0u64);
    let mut it = it.peekable();
    while it.peek().is_some() {
        let flags = int(it.next())?;
        if !(0..=3).contains(&flags) {
            return None;
        }
        let ms = master.ms.wrapping_add(int(it.next())? as u64);
        let seq = master.seq.wrapping_add(int(it.next())? as u64);
        let id = StreamId::new(ms, seq);
        let same = flags & FLAG_SAMEFIELDS != 0;
        let fields: Vec<(Vec<u8>, Vec<u8>)> = if same {
            master_fields
                .iter()
                .map(|f| Some((f.clone(), it.next()?.into_bytes())))
                .collect::<Option<_>>()?
        } else {
            let k = usize::try_from(int(it.next())?).ok()?;
            if k > lp.len() {
                return None;
            }
            (0..k)
                .map(|_| Some((it.next()?.into_bytes(), it.next()?.into_bytes())))
                .collect::<Option<_>>()?
        };
        let k = fields.len() as i64;
        let lp_count = if same { k + 3 } else { 2 * k + 4 };
        if int(it.next())? != lp_count {
            return None;
        }
        if entries.last().is_some_and(|e: &Entry| e.id >= id) {
            return None;
        }
        let del = flags & FLAG_DELETED != 0;
        if del {
            n_deleted += 1;
        } else {
            n_live += 1;
        }
        entries.push(Entry::loaded(id, fields, del));
    }
    if entries.is_empty() || n_live != live || n_deleted != deleted || live == 0 {
        return None;
    }
    Some(NodeDump {
        master,
        master_fields,
        live,
        deleted,
        entries,
    })
}

fn read_id_pair(r: &mut Reader) -> Option<StreamId> {
    Some(StreamId::new(r.length()?, r.length()?))
}

/// `rdbLoadObject` for the three stream types.
pub(super) fn load(r: &mut Reader, ty: u8) -> Option<Stream> {
    let n = r.count()?;
    let mut nodes: Vec<(NodeDump, usize)> = Vec::with_capacity(n);
    for _ in 0..n {
        let master = read_id(&r.string()?)?;
        let lp = r.string()?;
        let node = parse_node(master, &lp)?;
        nodes.push((node, lp.len()));
    }
    crate::sort::sort_by_key(&mut nodes, |(n, _)| n.master);
    // Masters are distinct and every node's entries follow the last node's.
    let mut last: Option<StreamId> = None;
    for (node, _) in &nodes {
        let first = node.entries.first()?.id;
        if last.is_some_and(|l| l >= first) || node.master > first {
            return None;
        }
        last = Some(node.entries.last()?.id);
    }
    let live: u64 = nodes.iter().map(|(n, _)| n.live).sum();
    let length = r.length()?;
    let last_id = read_id_pair(r)?;
    if length != live || last.is_some_and(|l| l > last_id) {
        return None;
    }
    let meta = if ty >= TYPE_STREAM_LISTPACKS_2 {
        LogMeta {
            length,
            last_id,
            first_id: read_id_pair(r)?,
            max_deleted_entry_id: read_id_pair(r)?,
            entries_added: r.length()?,
        }
    } else {
        // Streams from before 7.0: the first live entry, no tombstone
        // known, as many entries added as there are.
        let first_id = nodes
            .iter()
            .flat_map(|(n, _)| n.entries.iter())
            .find(|e| !e.is_deleted())
            .map_or(StreamId::MIN, |e| e.id);
        LogMeta {
            length,
            last_id,
            first_id,
            max_deleted_entry_id: StreamId::MIN,
            entries_added: length,
        }
    };
    let log = Log::from_dump(nodes, meta);
    let mut groups = Groups::default();
    let ngroups = r.count()?;
    for _ in 0..ngroups {
        let name = r.string()?;
        let last = read_id_pair(r)?;
        let entries_read = if ty >= TYPE_STREAM_LISTPACKS_2 {
            r.length()? as i64
        } else {
            log.estimate_distance(last)
        };
        if !groups.create(&name, last, entries_read) {
            return None;
        }
        let npel = r.count()?;
        for _ in 0..npel {
            let id = read_id(r.take(16)?)?;
            let time = r.millis()?;
            let count = r.length()?;
            groups
                .with_mut(&name, |g| g.load_nack(id, time, count))
                .filter(|&ok| ok)?;
        }
        let nconsumers = r.count()?;
        for _ in 0..nconsumers {
            let cname = r.string()?;
            let seen = r.millis()?;
            let active = if ty >= TYPE_STREAM_LISTPACKS_3 {
                r.millis()?
            } else {
                seen
            };
            let npel = r.count()?;
            let ids: Vec<StreamId> = (0..npel)
                .map(|_| read_id(r.take(16)?))
                .collect::<Option<_>>()?;
            groups
                .with_mut(&name, |g| g.load_consumer(&cname, seen, active, &ids))
                .filter(|&ok| ok)?;
        }
        // Every pending entry needs an owner (Redis checks this when it
        // sanitizes; without it XPENDING and XCLAIM would misbehave).
        groups.get(&name).filter(|g| g.pel_owned())?;
    }
    Some(Stream::from_parts(log, groups))
}
