//! Client output buffers (networking.c's static buffer and reply list) and `client-output-buffer-limit`: what is queued for each client and not yet read, and the slow readers that limit closes.
//!
//! Every frame the engine sends a client outside its direct reply (Pub/Sub
//! messages, invalidations, unblocked replies, MONITOR lines) passes through
//! [`deliver`], which counts its bytes (as the client's protocol encodes
//! them) the way Redis fills a client's buffers: the 16 KB static buffer
//! first, then a list of blocks of at least 16 KB each, allocated in
//! jemalloc size classes. `omem` is the list's allocated bytes plus 40
//! bytes of bookkeeping per block (`getClientOutputBufferMemoryUsage`).
//!
//! A driver normally reads everything at once ([`crate::Engine::take_unblocked`]),
//! which empties every buffer. A driver modelling a slow reader *holds* a
//! client's output ([`crate::Engine::hold_output`]): its frames then stay
//! here until the driver reads them a number of bytes at a time
//! ([`crate::Engine::read_output`]), so its buffer grows when messages come
//! faster than it reads. As in Redis, the limits are checked whenever a new
//! block is allocated and by the cron for every client with a buffer (Redis
//! visits `numclients/hz` clients per tick, at least 5); a client over its
//! class's hard limit, or over the soft limit for more than soft_seconds,
//! is marked to close (`freeClientAsync`): it gets nothing more, its queued
//! frames are dropped, and the engine disconnects it after the command or
//! tick and reports it through [`crate::Engine::take_killed`].
//!
//! Not modelled: the direct reply of a command (the driver takes it at
//! once), the static buffer's resizing by `clientsCronResizeOutputBuffer`,
//! and replica links (the engine has no replica connections).

use std::collections::{BTreeMap, VecDeque};

use crate::proto::resp::Frame;
use crate::server::client::ClientId;
use crate::server::obuf_limits::ObufClass;
use crate::server::Server;

/// `PROTO_REPLY_CHUNK_BYTES`: the static buffer and a block's minimum size.
const CHUNK: usize = 16 * 1024;
/// `sizeof(clientReplyBlock)`: a block's header (size and used).
const BLOCK_HEADER: usize = 16;
/// `sizeof(listNode) + sizeof(clientReplyBlock)`, counted per block in `omem`.
const BLOCK_OVERHEAD: u64 = 24 + 16;

/// One reply-list block: allocated size, bytes written into it, bytes sent.
#[derive(Clone, Copy, Debug)]
struct Block {
    size: usize,
    used: usize,
    sent: usize,
}

/// One client's output buffer.
#[derive(Debug, Default)]
struct Obuf {
    /// The driver reads this client's frames itself, at its own pace.
    held: bool,
    /// A held client's frames not yet read, with their encoded lengths.
    frames: VecDeque<(Frame, usize)>,
    /// Bytes of the front frame already read.
    front_read: usize,
    /// Bytes written into the static buffer (`bufpos`) and sent from it (`sentlen`).
    buf_used: usize,
    buf_sent: usize,
    blocks: VecDeque<Block>,
    /// `reply_bytes`: the blocks' allocated sizes.
    reply_bytes: u64,
    /// `obuf_soft_limit_reached_time` (Unix seconds; 0: not over the soft limit).
    soft_since: i64,
    /// The largest `omem` seen.
    peak: u64,
    /// `CLIENT_CLOSE_ASAP`: over a limit, to be freed.
    closing: bool,
}

impl Obuf {
    /// `getClientOutputBufferMemoryUsage`.
    fn omem(&self) -> u64 {
        self.reply_bytes + BLOCK_OVERHEAD * self.blocks.len() as u64
    }

    /// Bytes queued and not yet read.
    fn pending(&self) -> usize {
        self.buf_used - self.buf_sent + self.blocks.iter().map(|b| b.used - b.sent).sum::<usize>()
    }

    /// `_addReplyToBuffer` then `_addReplyProtoToList`: true if a new block
    /// was allocated (where Redis checks the limits).
    fn append(&mut self, mut len: usize) -> bool {
        if self.blocks.is_empty() {
            let t = len.min(CHUNK - self.buf_used);
            self.buf_used += t;
            len -= t;
        }
        if len == 0 {
            return false;
        }
        if let Some(tail) = self.blocks.back_mut() {
            let t = len.min(tail.size - tail.used);
            tail.used += t;
            len -= t;
        }
        if len == 0 {
            return false;
        }
        let size =
            crate::keyspace::memory::alloc_size(len.max(CHUNK) + BLOCK_HEADER) - BLOCK_HEADER;
        self.blocks.push_back(Block {
            size,
            used: len,
            sent: 0,
        });
        self.reply_bytes += size as u64;
        self.peak = self.peak.max(self.omem());
        true
    }

    /// `_writeToClient` sending up to `n` bytes: the static buffer first,
    /// then the blocks, each freed once fully sent. Returns the bytes sent.
    fn drain(&mut self, n: usize) -> usize {
        let mut left = n;
        let t = left.min(self.buf_used - self.buf_sent);
        self.buf_sent += t;
        left -= t;
        if self.buf_sent == self.buf_used {
            self.buf_used = 0;
            self.buf_sent = 0;
        }
        while left > 0 {
            let Some(head) = self.blocks.front_mut() else {
                break;
            };
            let t = left.min(head.used - head.sent);
            head.sent += t;
            left -= t;
            if head.sent == head.used {
                self.reply_bytes -= head.size as u64;
                self.blocks.pop_front();
            }
        }
        n - left
    }

    /// `checkClientOutputBufferLimits` at Unix second `now_s`, keeping the
    /// soft-limit clock as a side effect.
    fn over_limit(&mut self, limit: crate::server::obuf_limits::ObufLimit, now_s: i64) -> bool {
        let used = self.omem();
        let hard = limit.hard_bytes != 0 && used >= limit.hard_bytes;
        let mut soft = limit.soft_bytes != 0 && used >= limit.soft_bytes;
        if soft {
            if self.soft_since == 0 {
                self.soft_since = now_s;
                soft = false;
            } else if now_s - self.soft_since <= limit.soft_seconds {
                soft = false;
            }
        } else {
            self.soft_since = 0;
        }
        soft || hard
    }
}

/// Every client's output buffer, and how many clients the limits closed.
#[derive(Debug, Default)]
pub struct Outputs {
    bufs: BTreeMap<ClientId, Obuf>,
    /// Clients closed for overcoming their output buffer limits (Redis 7.2
    /// has no INFO field for this; drivers read it through the engine).
    pub(crate) disconnections: u64,
    /// Clients closed since the driver last asked, with their buffer then.
    pub(crate) closed: Vec<(ClientId, OutputInfo)>,
    /// Encoding scratch, reused for every frame's length.
    scratch: Vec<u8>,
}

/// What CLIENT LIST and drivers see of one client's output buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct OutputInfo {
    /// `obl`: bytes in the static buffer (`bufpos`: sent ones too, until all are).
    pub obl: u64,
    /// `oll`: blocks in the reply list.
    pub oll: u64,
    /// `omem`: the reply list's memory, what the limits are checked against.
    pub omem: u64,
    /// The largest `omem` this client has had (for a client that is not
    /// held, since the driver last took the outbox).
    pub peak: u64,
    /// Bytes queued and not yet read.
    pub pending: u64,
    /// Frames queued for a held client.
    pub frames: u64,
}

/// The class a client's limits come from: `pubsub` while it is subscribed.
fn class_of(srv: &Server, id: ClientId) -> ObufClass {
    match srv.client_list.get(&id) {
        Some(e) if e.subscribed => ObufClass::PubSub,
        _ => ObufClass::Normal,
    }
}

/// Sends `frame` to `client`: counted in its buffer, then queued for the
/// driver (the shared outbox, or the client's own queue when held). A
/// client marked to close gets nothing (`prepareClientToWrite`).
pub(crate) fn deliver(srv: &mut Server, client: ClientId, frame: Frame) {
    let Some(resp) = srv.client_list.get(&client).map(|e| e.resp) else {
        srv.blocking.deliver(client, frame);
        return;
    };
    let out = &mut srv.output;
    out.scratch.clear();
    frame.encode(resp, &mut out.scratch);
    let len = out.scratch.len();
    let buf = out.bufs.entry(client).or_default();
    if buf.closing {
        return;
    }
    let new_block = buf.append(len);
    if buf.held {
        buf.frames.push_back((frame, len));
    } else {
        srv.blocking.deliver(client, frame);
    }
    if new_block {
        check(srv, client);
    }
}

/// `closeClientOnOutputBufferLimitReached(c, async)` for `client`.
fn check(srv: &mut Server, client: ClientId) {
    let limit = srv
        .config
        .client_output_buffer_limit
        .of(class_of(srv, client));
    let now_s = (srv.clock.unix_us() / 1_000_000) as i64;
    let Some(buf) = srv.output.bufs.get_mut(&client) else {
        return;
    };
    if buf.reply_bytes == 0 || buf.closing || !buf.over_limit(limit, now_s) {
        return;
    }
    let was = OutputInfo::of(buf);
    buf.closing = true;
    buf.frames.clear();
    srv.output.disconnections += 1;
    srv.output.closed.push((client, was));
    // What was queued for it is lost with the connection.
    srv.blocking.drop_outbox_of(client);
    srv.killed.push(client);
}

/// The cron's part of `clientsCron`: every client with a buffer is checked,
/// so one over the soft limit long enough is closed even if nothing more
/// is sent to it.
pub(crate) fn cron(srv: &mut Server) {
    if srv.output.bufs.is_empty() {
        return;
    }
    let ids: Vec<ClientId> = srv
        .output
        .bufs
        .iter()
        .filter(|(_, b)| b.reply_bytes > 0 && !b.closing)
        .map(|(&id, _)| id)
        .collect();
    for id in ids {
        check(srv, id);
    }
}

/// The driver took the shared outbox: every client that is not held has
/// read all of its output.
pub(crate) fn taken_all(srv: &mut Server) {
    if srv.output.bufs.is_empty() {
        return;
    }
    // Only held (and closing) clients keep an entry: the native server
    // takes the outbox after every command.
    srv.output.bufs.retain(|_, b| b.held || b.closing);
}

/// A held client's driver reads up to `max_bytes`: the frames it finished
/// reading, in order (a frame read in part stays until its last byte).
pub(crate) fn read(srv: &mut Server, client: ClientId, max_bytes: usize) -> Vec<Frame> {
    let Some(buf) = srv.output.bufs.get_mut(&client) else {
        return Vec::new();
    };
    let sent = buf.drain(max_bytes);
    let mut got = Vec::new();
    let mut left = sent + buf.front_read;
    while let Some((_, len)) = buf.frames.front() {
        if *len > left {
            break;
        }
        left -= *len;
        if let Some((f, _)) = buf.frames.pop_front() {
            got.push(f);
        }
    }
    buf.front_read = left;
    got
}

/// Sets whether `client`'s driver reads its output itself ([`read`]).
/// Releasing a held client hands what it had queued to the shared outbox.
pub(crate) fn hold(srv: &mut Server, client: ClientId, held: bool) {
    let buf = srv.output.bufs.entry(client).or_default();
    buf.held = held;
    if !held {
        buf.front_read = 0;
        for (f, _) in std::mem::take(&mut buf.frames) {
            srv.blocking.deliver(client, f);
        }
    }
}

/// The connection closed: its buffer goes with it.
pub(crate) fn forget(srv: &mut Server, client: ClientId) {
    srv.output.bufs.remove(&client);
}

/// `client`'s buffer as CLIENT LIST shows it.
pub(crate) fn info(srv: &Server, client: ClientId) -> OutputInfo {
    srv.output
        .bufs
        .get(&client)
        .map_or_else(OutputInfo::default, OutputInfo::of)
}

impl OutputInfo {
    fn of(b: &Obuf) -> OutputInfo {
        OutputInfo {
            obl: b.buf_used as u64,
            oll: b.blocks.len() as u64,
            omem: b.omem(),
            peak: b.peak,
            pending: b.pending() as u64,
            frames: b.frames.len() as u64,
        }
    }
}

#[cfg(test)]
mod tests;
