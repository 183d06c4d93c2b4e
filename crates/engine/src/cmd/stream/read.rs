//! XREAD and XREADGROUP (`xreadCommand`): option parsing, the key and group checks, serving new entries or a consumer's pending history, and blocking through `crate::blocking` with `$` rewritten to the ID it stood for.

use super::id::strict_id;
use super::propagate::{self, Prop};
use super::{c_name, consumer_created, entry_frame, id_frame, seen_consumer, update};
use crate::blocking::{block_for_stream, may_block, timeout_ms_arg};
use crate::cmd::args::{arg_i64, cstr, opt_is, SYNTAX};
use crate::cmd::table::Ctx;
use crate::cmd::typed::peek;
use crate::keyspace::types::stream::{Log, Stream, StreamId};
use crate::proto::resp::Frame;

/// The group's read counter after delivering `id` past its last ID.
fn advance_entries_read(log: &Log, entries_read: i64, id: StreamId) -> i64 {
    if entries_read != -1 && !log.range_has_tombstones(Some(id), None) {
        entries_read.wrapping_add(1)
    } else if log.entries_added() > 0 {
        log.estimate_distance(id)
    } else {
        entries_read
    }
}

/// XREAD and XREADGROUP (`xreadCommand`).
pub(super) fn xread(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let group_cmd = ctx.cmd.name == "xreadgroup";
    if group_cmd {
        // Replicas get what it did (`propagate`), never the read itself.
        ctx.srv.repl.wire.prevent();
    }
    let argc = args.len();
    let now = ctx.srv.now_ms();
    let mut timeout: Option<i64> = None;
    let mut count: i64 = 0;
    let mut streams_arg = 0;
    let mut nstreams = 0;
    let mut noack = false;
    let mut group: Option<(&[u8], &[u8])> = None;
    let mut i = 1;
    while i < argc {
        let moreargs = argc - i - 1;
        let o = &args[i];
        if opt_is(o, "BLOCK") && moreargs > 0 {
            if ctx.srv.in_script {
                // Redis refuses BLOCK in scripts outright (not as a timeout, as in MULTI).
                return Frame::err(format!(
                    "ERR {} command is not allowed with BLOCK option from scripts",
                    String::from_utf8_lossy(&args[0])
                ));
            }
            i += 1;
            timeout = match timeout_ms_arg(&args[i], now) {
                Ok(t) => Some(t),
                Err(e) => return e,
            };
        } else if opt_is(o, "COUNT") && moreargs > 0 {
            i += 1;
            count = match arg_i64(&args[i]) {
                Ok(n) => n.max(0),
                Err(e) => return e,
            };
        } else if opt_is(o, "STREAMS") && moreargs > 0 {
            streams_arg = i + 1;
            nstreams = argc - streams_arg;
            if nstreams % 2 != 0 {
                let symbol = if group_cmd { '>' } else { '$' };
                return Frame::err(format!(
                    "ERR Unbalanced '{}' list of streams: for each stream key an ID or '{symbol}' must be specified.",
                    ctx.cmd.name
                ));
            }
            nstreams /= 2;
            break;
        } else if opt_is(o, "GROUP") && moreargs >= 2 {
            if !group_cmd {
                return Frame::err(
                    "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.",
                );
            }
            group = Some((&args[i + 1], &args[i + 2]));
            i += 2;
        } else if opt_is(o, "NOACK") {
            if !group_cmd {
                return Frame::err(
                    "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.",
                );
            }
            noack = true;
        } else {
            return Frame::err(SYNTAX);
        }
        i += 1;
    }
    if streams_arg == 0 {
        return Frame::err(SYNTAX);
    }
    if group_cmd && group.is_none() {
        return Frame::err("ERR Missing GROUP option for XREADGROUP");
    }
    let keys = &args[streams_arg..streams_arg + nstreams];
    let id_args = &args[streams_arg + nstreams..];
    let db = ctx.db();
    let mut ids = Vec::with_capacity(nstreams);
    for (key, idarg) in keys.iter().zip(id_args) {
        let exists = match ctx.read_exists::<Stream>(key) {
            Ok(e) => e,
            Err(e) => return e,
        };
        let s = if exists {
            peek::<Stream>(ctx.srv, db, key)
        } else {
            None
        };
        if let Some((gname, _)) = group {
            if s.and_then(|s| s.groups().get(gname)).is_none() {
                return Frame::err(format!(
                    "NOGROUP No such key '{}' or consumer group '{}' in XREADGROUP with GROUP option",
                    c_name(key),
                    c_name(gname)
                ));
            }
        }
        let word = cstr(idarg);
        if word == b"$" {
            if group_cmd {
                return Frame::err(
                    "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.",
                );
            }
            ids.push(s.map_or(StreamId::MIN, |s| s.log().last_id()));
            continue;
        }
        if word == b">" {
            if !group_cmd {
                return Frame::err(
                    "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.",
                );
            }
            ids.push(StreamId::MAX);
            continue;
        }
        match strict_id(idarg) {
            Ok(id) => ids.push(id),
            Err(e) => return e,
        }
    }
    let limit = if count == 0 {
        usize::MAX
    } else {
        count as usize
    };
    let mut served: Vec<(Vec<u8>, Frame)> = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        if !matches!(ctx.read_exists::<Stream>(key), Ok(true)) {
            continue;
        }
        let gt = ids[k];
        let items = match group {
            None => {
                let Some(s) = peek::<Stream>(ctx.srv, db, key) else {
                    continue;
                };
                let newer = s.log().last_valid_id().is_some_and(|max| max > gt);
                if !newer {
                    continue;
                }
                let start = gt.incr().unwrap_or(StreamId::MIN);
                s.log()
                    .range(start, StreamId::MAX)
                    .take(limit)
                    .map(entry_frame)
                    .collect::<Vec<_>>()
            }
            Some((gname, cname)) => {
                let mut props = ctx.propagating().then(Vec::new);
                let r = update(ctx.srv, db, key, |s| {
                    let read = Read {
                        gname,
                        cname,
                        gt,
                        limit,
                        noack,
                        now,
                    };
                    read_group(s, read, props.as_mut())
                });
                let (created, items) = r.unwrap_or((false, None));
                consumer_created(ctx, key, created);
                // A new consumer, and a stream served, are changes.
                super::groups::changed(ctx, created as u64 + items.is_some() as u64);
                propagate::send(ctx, key, gname, props.unwrap_or_default());
                match items {
                    Some(items) => items,
                    None => continue,
                }
            }
        };
        served.push((key.clone(), Frame::Array(items)));
    }
    if !served.is_empty() {
        return if ctx.client.resp >= 3 {
            Frame::Map(
                served
                    .into_iter()
                    .map(|(k, v)| (Frame::Bulk(k), v))
                    .collect(),
            )
        } else {
            Frame::Array(
                served
                    .into_iter()
                    .map(|(k, v)| Frame::Array(vec![Frame::Bulk(k), v]))
                    .collect(),
            )
        };
    }
    let Some(timeout) = timeout else {
        return Frame::NullArray;
    };
    if !may_block(ctx.srv) {
        return Frame::NullArray;
    }
    // `$` becomes the ID it stood for, so the re-run after new data
    // does not wait for data newer than that data.
    let mut rewritten = args.to_vec();
    for (k, idarg) in id_args.iter().enumerate() {
        if cstr(idarg) == b"$" {
            rewritten[streams_arg + nstreams + k] = ids[k].to_string().into_bytes();
        }
    }
    block_for_stream(ctx.srv, keys, timeout, rewritten, group_cmd)
}

/// What one stream of an XREADGROUP asks for.
struct Read<'a> {
    gname: &'a [u8],
    cname: &'a [u8],
    /// `StreamId::MAX` for `>`, else the history's start.
    gt: StreamId,
    limit: usize,
    noack: bool,
    now: i64,
}

/// One stream of an XREADGROUP: creates the consumer if needed and marks
/// it seen, then serves its pending history (an ID other than `>`) or
/// entries past the group's last delivered ID, recording deliveries
/// unless NOACK. `None` when there is nothing to serve for `>`; the flag
/// says whether the consumer was created (its keyspace event). With
/// `props`, what replicas need is gathered there: an XCLAIM per new
/// delivery, or for NOACK the consumer's creation and the group's new
/// position.
fn read_group(
    s: &mut Stream,
    r: Read,
    mut props: Option<&mut Vec<Prop>>,
) -> (bool, Option<Vec<Frame>>) {
    let Read {
        gname,
        cname,
        gt,
        limit,
        noack,
        now,
    } = r;
    let (log, groups) = s.parts_mut();
    let mut created = false;
    let items = groups
        .with_mut(gname, |g| {
            let history = gt != StreamId::MAX;
            let mut from = gt;
            let mut serve = history;
            if !history && !log.is_empty() {
                if let Some(max) = log.last_valid_id() {
                    if max > g.last_id {
                        serve = true;
                        from = g.last_id;
                    }
                }
            }
            created = seen_consumer(g, cname, now);
            if let Some(p) = props.as_mut().filter(|_| created && noack) {
                p.push(Prop::CreateConsumer {
                    consumer: cname.to_vec(),
                });
            }
            if !serve {
                return None;
            }
            let start = from.incr().unwrap_or(StreamId::MIN);
            let mut items = Vec::new();
            if history {
                let pending: Vec<StreamId> = g
                    .consumer(cname)
                    .map(|c| c.pel().range(start..).take(limit).copied().collect())
                    .unwrap_or_default();
                for id in pending {
                    match log.get(id) {
                        Some(e) => {
                            items.push(entry_frame(e));
                            g.redeliver(id, now);
                        }
                        None => items.push(Frame::Array(vec![id_frame(id), Frame::NullArray])),
                    }
                }
                return Some(items);
            }
            let mut moved = false;
            for e in log.range(start, StreamId::MAX).take(limit) {
                if e.id > g.last_id {
                    g.entries_read = advance_entries_read(log, g.entries_read, e.id);
                    g.last_id = e.id;
                    moved = true;
                }
                items.push(entry_frame(e));
                if !noack {
                    g.deliver(e.id, cname, now);
                    if let Some(c) = g.consumer_mut(cname) {
                        c.active_time = now;
                    }
                    if let Some(p) = props.as_mut() {
                        p.extend(Prop::claim(g, e.id, e.id.to_string().as_bytes()));
                    }
                }
            }
            if let Some(p) = props.filter(|_| noack && moved) {
                p.push(Prop::set_id(g));
            }
            Some(items)
        })
        .flatten();
    (created, items)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(s: &str) -> Frame {
        Frame::bulk(s)
    }

    /// `[[key, [[id, [f, v]]]]]`, an XREAD reply with one entry.
    fn one_entry(key: &str, id: &str) -> Frame {
        Frame::Array(vec![Frame::Array(vec![
            bulk(key),
            Frame::Array(vec![Frame::Array(vec![
                bulk(id),
                Frame::Array(vec![bulk("f"), bulk("v")]),
            ])]),
        ])])
    }

    #[test]
    fn xread_blocks_until_xadd_with_dollar_resolved() {
        let mut e = crate::Engine::new(1);
        let (a, b) = (e.connect("a"), e.connect("b"));
        e.execute_line(b, "XADD s 1 f v");
        assert_eq!(e.submit_line(a, "XREAD BLOCK 0 STREAMS s $"), None);
        let blocked = e.blocked_clients();
        assert_eq!(blocked.len(), 1);
        assert_eq!(
            blocked[0].command,
            ["XREAD", "BLOCK", "0", "STREAMS", "s", "1-0"],
            "`$` is the last ID at the time of blocking"
        );
        // A write that adds nothing newer (XDEL) does not serve it.
        e.execute_line(b, "XDEL s 1");
        assert!(e.take_unblocked().is_empty());
        assert_eq!(e.execute_line(b, "XADD s 2 f v"), bulk("2-0"));
        assert_eq!(e.take_unblocked(), vec![(a, one_entry("s", "2-0"))]);
        assert!(!e.is_blocked(a));
    }

    #[test]
    fn xread_block_times_out_on_the_virtual_clock() {
        let mut e = crate::Engine::new(2);
        let a = e.connect("a");
        assert_eq!(e.submit_line(a, "XREAD BLOCK 100 STREAMS s 0"), None);
        e.advance_by(60_000);
        assert!(e.take_unblocked().is_empty() && e.is_blocked(a));
        e.advance_by(60_000);
        assert_eq!(e.take_unblocked(), vec![(a, Frame::NullArray)]);
        // Inside MULTI, BLOCK replies at once.
        e.execute_line(a, "MULTI");
        e.execute_line(a, "XREAD BLOCK 0 STREAMS s $");
        assert_eq!(
            e.execute_line(a, "EXEC"),
            Frame::Array(vec![Frame::NullArray])
        );
    }

    #[test]
    fn blocked_xreadgroup_answers_when_its_key_goes() {
        let mut e = crate::Engine::new(3);
        let (a, b) = (e.connect("a"), e.connect("b"));
        let nogroup = Frame::err(
            "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option",
        );
        let read = "XREADGROUP GROUP g alice BLOCK 0 STREAMS s >";
        // Deleted.
        e.execute_line(b, "XGROUP CREATE s g $ MKSTREAM");
        assert_eq!(e.submit_line(a, read), None);
        e.execute_line(b, "DEL s");
        assert_eq!(e.take_unblocked(), vec![(a, nogroup.clone())]);
        // Expired (reclaimed by the active cycle as the clock moves).
        e.execute_line(b, "XGROUP CREATE s g $ MKSTREAM");
        e.execute_line(b, "PEXPIRE s 50");
        assert_eq!(e.submit_line(a, read), None);
        e.advance_by(2_000_000);
        assert_eq!(e.take_unblocked(), vec![(a, nogroup.clone())]);
        // Group destroyed; a plain XREAD on the same key keeps waiting.
        e.execute_line(b, "XGROUP CREATE s g $ MKSTREAM");
        let c = e.connect("c");
        assert_eq!(e.submit_line(a, read), None);
        assert_eq!(e.submit_line(c, "XREAD BLOCK 0 STREAMS s $"), None);
        e.execute_line(b, "XGROUP DESTROY s g");
        assert_eq!(e.take_unblocked(), vec![(a, nogroup)]);
        assert!(e.is_blocked(c));
        // Overwritten by another type.
        e.execute_line(b, "XGROUP CREATE s g $");
        assert_eq!(e.submit_line(a, read), None);
        e.execute_line(b, "SET s x");
        assert_eq!(
            e.take_unblocked(),
            vec![(a, Frame::err(crate::cmd::WRONGTYPE))]
        );
        assert!(e.is_blocked(c), "XREAD waits for a stream");
    }

    #[test]
    fn consumers_waiting_on_a_group_are_served_in_order() {
        let mut e = crate::Engine::new(4);
        let (a, b, w) = (e.connect("a"), e.connect("b"), e.connect("w"));
        e.execute_line(w, "XGROUP CREATE s g $ MKSTREAM");
        assert_eq!(
            e.submit_line(a, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >"),
            None
        );
        assert_eq!(
            e.submit_line(b, "XREADGROUP GROUP g b BLOCK 0 STREAMS s >"),
            None
        );
        e.execute_line(w, "XADD s 1 f v");
        assert_eq!(e.take_unblocked(), vec![(a, one_entry("s", "1-0"))]);
        assert!(e.is_blocked(b), "nothing left for the second: it waits on");
        e.execute_line(w, "XADD s 2 f v");
        assert_eq!(e.take_unblocked(), vec![(b, one_entry("s", "2-0"))]);
        let pending = e.execute_line(w, "XPENDING s g");
        assert_eq!(
            pending,
            Frame::Array(vec![
                Frame::Integer(2),
                bulk("1-0"),
                bulk("2-0"),
                Frame::Array(vec![
                    Frame::Array(vec![bulk("a"), bulk("1")]),
                    Frame::Array(vec![bulk("b"), bulk("1")]),
                ]),
            ])
        );
    }
}
