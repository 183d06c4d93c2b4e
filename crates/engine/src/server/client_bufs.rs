//! A connection's query and reply buffers as CLIENT LIST reports them (`qbuf`, `qbuf-free`, `argv-mem`, `rbs`, `rbp`, `tot-mem`), and `clientsCron`'s resizing of both.
//!
//! Redis reads each connection into a query buffer that it keeps between
//! commands (16 KB asked for on the first read, which jemalloc serves as
//! 20 KB) and frees once the client has been idle for more than 2 seconds;
//! replies go first to a static reply buffer of 16 KB, which the cron
//! shrinks to what the client's recent peak needs (1 KB at least) and
//! doubles again when a reply fills it. Learners see these figures move in
//! CLIENT LIST, and tests written against Redis match on them, so they are
//! modelled here from the bytes a command takes on the wire and its reply.
//!
//! A pipeline's later commands and a blocked client's input count too: the
//! driver reports what it has read and not handed over
//! (`Engine::set_pending_input`). Not modelled: an inline command's exact
//! bytes (each command counts as its multibulk form), the buffer growth of
//! very big arguments beyond one allocation, and the reply list's blocks
//! taking part of a reply that does not fit (`crate::output` keeps its own
//! 16 KB for held clients).

use super::Server;
use crate::keyspace::memory::alloc_size;
use crate::proto::resp::Frame;

/// `PROTO_IOBUF_LEN`: what the first read asks the query buffer to hold.
const IOBUF_LEN: usize = 16 * 1024;
/// `PROTO_REPLY_CHUNK_BYTES`: a new client's reply buffer.
pub const REPLY_CHUNK: usize = 16 * 1024;
/// `PROTO_REPLY_MIN_BYTES`: the cron never shrinks a reply buffer below this.
const REPLY_MIN: usize = 1024;
/// `reply-buffer-peak-reset-time`'s default, in milliseconds.
const PEAK_RESET_MS: u64 = 5000;
/// `zmalloc_size(c)`: the client struct itself, as jemalloc rounds it.
const CLIENT_STRUCT: usize = 768;

/// What a client's transaction, watched keys and subscriptions take, as
/// Redis 7.2 counts them in `tot-mem`: `multiStateMemOverhead` (the queued
/// commands' argument bytes, 24 per allocated queue slot, 80 per watched
/// key) and `pubsubMemOverhead` (each non-empty dict's 24-byte entries and
/// 8-byte buckets, at least 4). `queue` is (commands, argument bytes,
/// allocated slots); `subs` the channel, pattern and shard channel counts.
pub fn state_overhead(queue: (usize, usize, usize), watched: usize, subs: [usize; 3]) -> usize {
    let dict = |n: usize| {
        if n == 0 {
            0
        } else {
            24 * n + 8 * n.next_power_of_two().max(4)
        }
    };
    let (_, argv_bytes, slots) = queue;
    argv_bytes + 24 * slots + 80 * watched + subs.iter().map(|&n| dict(n)).sum::<usize>()
}

/// The bytes of the command a client is running, as its connection read it.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommandBytes {
    /// Its RESP multibulk request: what sits in the query buffer meanwhile.
    pub query: usize,
    /// `argv_len_sum`: the lengths of its arguments.
    pub argv: usize,
    pub argc: usize,
}

impl CommandBytes {
    pub fn of(args: &[Vec<u8>]) -> CommandBytes {
        let mut query = 3 + digits(args.len());
        let mut argv = 0;
        for a in args {
            query += 1 + digits(a.len()) + 2 + a.len() + 2;
            argv += a.len();
        }
        CommandBytes {
            query,
            argv,
            argc: args.len(),
        }
    }
}

fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// One connection's buffers.
#[derive(Clone, Debug)]
pub struct ClientBufs {
    /// `sdsalloc(querybuf)`: room the query buffer has, 0 once freed.
    query_alloc: usize,
    /// The query buffer was never read into (`sdsempty()`'s allocation).
    fresh: bool,
    /// `buf_usable_size`: the static reply buffer.
    pub rbs: usize,
    /// `buf_peak`: the most it held since the peak was last reset.
    pub rbp: usize,
    /// When the peak was last reset; `None` until the cron first visits
    /// (Redis stores Unix seconds there and compares milliseconds, so that
    /// first visit always resets it).
    peak_reset_ms: Option<u64>,
}

impl Default for ClientBufs {
    fn default() -> ClientBufs {
        ClientBufs {
            query_alloc: 0,
            fresh: true,
            rbs: REPLY_CHUNK,
            rbp: REPLY_CHUNK,
            peak_reset_ms: None,
        }
    }
}

impl ClientBufs {
    /// A command was read (`readQueryFromClient`): the buffer has room for
    /// 16 KB, or for the whole command when it is longer.
    pub fn read(&mut self, cmd: &CommandBytes) {
        self.fresh = false;
        if self.query_alloc < cmd.query.max(IOBUF_LEN) {
            self.query_alloc = sds_room(cmd.query.max(IOBUF_LEN));
        }
    }

    /// A reply of `len` bytes went through the static buffer (`_addReplyToBuffer`).
    #[inline]
    pub fn wrote(&mut self, len: usize) {
        self.rbp = self.rbp.max(len.min(self.rbs));
    }

    /// `qbuf-free` of a client between commands (its buffer is empty then).
    pub fn query_free(&self) -> usize {
        if self.fresh {
            sds_room(0)
        } else {
            self.query_alloc
        }
    }

    /// `qbuf` and `qbuf-free` of the client running `cmd`: the command is
    /// still in the buffer.
    pub fn query_while(&self, cmd: &CommandBytes) -> (usize, usize) {
        (cmd.query, self.query_alloc.saturating_sub(cmd.query))
    }

    /// `sdsZmallocSize(querybuf)`.
    fn query_mem(&self, room: usize) -> usize {
        alloc_size(sds_header(room) + room + 1)
    }

    /// `getClientMemoryUsage`, given the reply list's memory, the running
    /// command (for the caller) and what its transaction, watched keys and
    /// subscriptions take.
    pub fn total(&self, omem: usize, cmd: Option<&CommandBytes>, others: usize) -> usize {
        let room = if self.fresh { 0 } else { self.query_alloc };
        let argv = cmd.map_or(0, |c| c.argv + 8 * c.argc);
        omem + self.query_mem(room) + CLIENT_STRUCT + self.rbs + argv + others
    }

    /// `obl`: the reply buffer's bytes in use. While EXEC runs, the replies
    /// of its commands so far (`exec_replied`) wait there too, as far as the
    /// buffer, or the reply being written, holds them.
    pub fn used(&self, obl: usize, exec_replied: usize) -> usize {
        (obl + exec_replied).min(self.rbs.max(obl))
    }

    /// One visit of `clientsCron`: `clientsCronResizeQueryBuffer` (an idle
    /// client's buffer is freed) and `clientsCronResizeOutputBuffer`.
    pub fn cron(&mut self, idle_s: i64, now_ms: u64) {
        if self.query_alloc > 4 * 1024 && idle_s > 2 {
            self.query_alloc = 0;
        }
        let (shrink, expand) = (self.rbs / 2, self.rbs * 2);
        let mut size = 0;
        if shrink >= REPLY_MIN && self.rbp < shrink {
            size = REPLY_MIN.max(self.rbp + 1);
        } else if expand < REPLY_CHUNK * 2 && self.rbp == self.rbs {
            size = REPLY_CHUNK.min(expand);
        }
        if self
            .peak_reset_ms
            .is_none_or(|at| now_ms.saturating_sub(at) >= PEAK_RESET_MS)
        {
            // The buffer is empty between commands (`bufpos` 0).
            self.rbp = 0;
            self.peak_reset_ms = Some(now_ms);
        }
        if size != 0 {
            // `zmalloc_usable`: jemalloc's size class.
            self.rbs = alloc_size(size);
        }
    }
}

/// `clientsCron`'s buffer work for this tick: `numclients/hz` clients, at
/// least 5 (or all when fewer), in turn, so each is visited about once a
/// second whatever the number of clients.
pub(crate) fn clients_cron(srv: &mut Server) {
    let n = srv.client_list.len();
    if n == 0 {
        return;
    }
    let hz = srv.config.hz.clamp(1, 500) as usize;
    let visits = (n / hz).max(n.min(5));
    let now_us = srv.clock.unix_us();
    let now_s = (now_us / 1_000_000) as i64;
    let base_us = now_us - srv.clock.now_us();
    // In id order, as the list keeps them.
    let ids: Vec<u64> = srv.client_list.keys().copied().collect();
    let start = ids.partition_point(|&id| id < srv.clients_cron_next);
    for k in 0..visits {
        let id = ids[(start + k) % n];
        if let Some(e) = srv.client_list.get_mut(&id) {
            let last_s = ((base_us + e.last_interaction_us) / 1_000_000) as i64;
            e.bufs.cron(now_s - last_s, now_us / 1000);
        }
        srv.clients_cron_next = id + 1;
    }
}

/// The sds header for a string of `room` bytes (types 8, 16, 32).
fn sds_header(room: usize) -> usize {
    match room {
        0..=255 => 3,
        256..=65_535 => 5,
        _ => 9,
    }
}

/// `sdsalloc` after asking for `len` bytes: what jemalloc's size class
/// leaves once the header and terminator are taken.
fn sds_room(len: usize) -> usize {
    let hdr = sds_header(len);
    alloc_size(hdr + len + 1) - hdr - 1
}

/// The bytes of an array's header (`*<n>\r\n`).
pub fn array_header_len(n: usize) -> usize {
    3 + digits(n)
}

/// `len` bytes of a reply as `proto` encodes it, counted only up to `cap`
/// (the reply buffer takes no more): a long reply costs no more than a
/// short one to measure.
pub fn reply_len_upto(frame: &Frame, proto: u8, cap: usize) -> usize {
    let mut n = 0;
    add_len(frame, proto, cap, &mut n);
    n.min(cap)
}

fn add_len(f: &Frame, proto: u8, cap: usize, n: &mut usize) {
    if *n >= cap {
        return;
    }
    let resp3 = proto >= 3;
    let head = |count: usize| 1 + digits(count) + 2;
    let bulk = |len: usize| head(len) + len + 2;
    match f {
        Frame::Simple(s) => *n += 3 + s.len(),
        Frame::Error(s) => *n += 3 + s.len(),
        Frame::Integer(i) => *n += 3 + i.to_string().len(),
        Frame::Bulk(b) => *n += bulk(b.len()),
        Frame::Null | Frame::NullArray if resp3 => *n += 3,
        Frame::Null | Frame::NullArray => *n += 5,
        Frame::Boolean(_) => *n += 4,
        Frame::Double(d) => {
            let s = crate::proto::resp::fmt_double(*d).len();
            *n += if resp3 { 3 + s } else { bulk(s) };
        }
        Frame::BigNumber(s) => *n += if resp3 { 3 + s.len() } else { bulk(s.len()) },
        Frame::Verbatim(_, b) => {
            *n += if resp3 {
                bulk(b.len() + 4)
            } else {
                bulk(b.len())
            }
        }
        Frame::Array(items) | Frame::Set(items) | Frame::Push(items) => {
            *n += head(items.len());
            for i in items {
                add_len(i, proto, cap, n);
            }
        }
        Frame::Map(pairs) | Frame::Attribute(pairs) => {
            if !resp3 && matches!(f, Frame::Attribute(_)) {
                return;
            }
            *n += head(if resp3 { pairs.len() } else { pairs.len() * 2 });
            for (k, v) in pairs {
                add_len(k, proto, cap, n);
                add_len(v, proto, cap, n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn a_command_counts_as_its_multibulk_request() {
        // `*2\r\n$6\r\nclient\r\n$4\r\nlist\r\n`: Redis 7.2's CLIENT LIST test reads qbuf=26.
        let c = CommandBytes::of(&args(&["client", "list"]));
        assert_eq!((c.query, c.argv, c.argc), (26, 10, 2));
        let long = CommandBytes::of(&args(&["set", &"k".repeat(10), &"v".repeat(100)]));
        assert_eq!(long.query, 4 + 9 + 17 + 108);
    }

    #[test]
    fn the_query_buffer_is_20_kb_after_a_read_and_freed_when_idle() {
        let mut b = ClientBufs::default();
        assert_eq!(b.query_free(), 4);
        let cmd = CommandBytes::of(&args(&["client", "list"]));
        b.read(&cmd);
        // redis-server 7.0: qbuf=26 qbuf-free=20448, then 20474 between commands.
        assert_eq!(b.query_while(&cmd), (26, 20448));
        assert_eq!(b.query_free(), 20474);
        // CLIENT LIST's own tot-mem: 16384 + 20480 + 768 + 10 + 16.
        assert_eq!(b.total(0, Some(&cmd), 0), 37658);
        b.cron(2, 1_000);
        assert_eq!(b.query_free(), 20474);
        b.cron(3, 1_100);
        assert_eq!(b.query_free(), 0);
    }

    #[test]
    fn the_reply_buffer_shrinks_to_its_peak_and_grows_when_filled() {
        let mut b = ClientBufs::default();
        assert_eq!((b.rbs, b.rbp), (16384, 16384));
        // The first visit only resets the peak; the next one shrinks.
        b.cron(0, 1_000);
        assert_eq!((b.rbs, b.rbp), (16384, 0));
        b.cron(0, 1_100);
        assert_eq!((b.rbs, b.rbp), (1024, 0));
        // An idle client, as redis-server 7.0 lists it: rbs=1024 tot-mem=1800.
        assert_eq!(b.total(0, None, 0), 1800);
        b.wrote(519);
        assert_eq!(b.rbp, 519);
        b.cron(0, 1_200);
        assert_eq!(b.rbs, 1024);
        // A reply that fills the buffer doubles it.
        b.wrote(5000);
        assert_eq!(b.rbp, 1024);
        b.cron(0, 1_300);
        assert_eq!(b.rbs, 2048);
    }

    #[test]
    fn reply_lengths_match_the_encoding_up_to_the_cap() {
        let frames = [
            Frame::ok(),
            Frame::Integer(-42),
            Frame::Bulk(b"hello".to_vec()),
            Frame::Null,
            Frame::Double(1.5),
            Frame::Boolean(true),
            Frame::Array(vec![Frame::Bulk(b"a".to_vec()), Frame::Integer(7)]),
            Frame::Map(vec![(
                Frame::Bulk(b"k".to_vec()),
                Frame::Set(vec![Frame::Null]),
            )]),
            Frame::Verbatim(*b"txt", b"some text".to_vec()),
        ];
        for proto in [2, 3] {
            for f in &frames {
                let mut out = Vec::new();
                f.encode(proto, &mut out);
                assert_eq!(
                    reply_len_upto(f, proto, 1 << 20),
                    out.len(),
                    "{f:?} RESP{proto}"
                );
            }
        }
        let big = Frame::Array(vec![Frame::Bulk(vec![b'x'; 1000]); 1000]);
        assert_eq!(reply_len_upto(&big, 2, 16384), 16384);
    }

    #[test]
    fn state_overhead_counts_queue_watches_and_each_pubsub_dict() {
        assert_eq!(state_overhead((0, 0, 0), 0, [0, 0, 0]), 0);
        // Two queued commands of 10 argument bytes in 4 slots, 3 watched keys.
        assert_eq!(state_overhead((2, 10, 4), 3, [0, 0, 0]), 10 + 96 + 240);
        // A dict has at least 4 buckets; 5 entries need 8.
        assert_eq!(
            state_overhead((0, 0, 0), 0, [1, 5, 0]),
            (24 + 32) + (120 + 64)
        );
    }

    #[test]
    fn used_reply_buffer_holds_execs_replies_up_to_its_size() {
        let b = ClientBufs::default();
        assert_eq!(b.used(0, 100), 100);
        assert_eq!(b.used(10, 1 << 20), b.rbs);
        // A reply larger than the buffer shows whole.
        assert_eq!(b.used(1 << 20, 5), 1 << 20);
    }
}
