//! The output buffers' state (the part the server holds): each client's static buffer and reply blocks as networking.c sizes them, and the limits' soft timer; the operations on the server are in the module above.

use std::collections::VecDeque;

use crate::proto::resp::Frame;
use crate::server::client::ClientId;

/// `PROTO_REPLY_CHUNK_BYTES`: the static buffer and a block's minimum size.
pub(super) const CHUNK: usize = 16 * 1024;
/// `sizeof(clientReplyBlock)`: a block's header (size and used).
pub(super) const BLOCK_HEADER: usize = 16;
/// `sizeof(listNode) + sizeof(clientReplyBlock)`, counted per block in `omem`.
pub(super) const BLOCK_OVERHEAD: u64 = 24 + 16;

/// One reply-list block: allocated size, bytes written into it, bytes sent.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    pub(super) size: usize,
    pub(super) used: usize,
    pub(super) sent: usize,
}

/// One client's output buffer.
#[derive(Debug, Default)]
pub(super) struct Obuf {
    /// The driver reads this client's frames itself, at its own pace.
    pub(super) held: bool,
    /// A held client's frames not yet read, with their encoded lengths.
    pub(super) frames: VecDeque<(Frame, usize)>,
    /// Bytes of the front frame already read.
    pub(super) front_read: usize,
    /// Bytes written into the static buffer (`bufpos`) and sent from it (`sentlen`).
    pub(super) buf_used: usize,
    pub(super) buf_sent: usize,
    pub(super) blocks: VecDeque<Block>,
    /// `reply_bytes`: the blocks' allocated sizes.
    pub(super) reply_bytes: u64,
    /// `obuf_soft_limit_reached_time` (Unix seconds; 0: not over the soft limit).
    pub(super) soft_since: i64,
    /// The largest `omem` seen.
    pub(super) peak: u64,
    /// `CLIENT_CLOSE_ASAP`: over a limit, to be freed.
    pub(super) closing: bool,
}

impl Obuf {
    /// `getClientOutputBufferMemoryUsage`.
    pub(super) fn omem(&self) -> u64 {
        self.reply_bytes + BLOCK_OVERHEAD * self.blocks.len() as u64
    }

    /// Bytes queued and not yet read.
    pub(super) fn pending(&self) -> usize {
        self.buf_used - self.buf_sent + self.blocks.iter().map(|b| b.used - b.sent).sum::<usize>()
    }

    /// `_addReplyToBuffer` then `_addReplyProtoToList`: true if a new block
    /// was allocated (where Redis checks the limits).
    pub(super) fn append(&mut self, mut len: usize) -> bool {
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
    pub(super) fn drain(&mut self, n: usize) -> usize {
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
    pub(super) fn over_limit(
        &mut self,
        limit: crate::server::obuf_limits::ObufLimit,
        now_s: i64,
    ) -> bool {
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
    pub(super) bufs: crate::idmap::IdMap<Obuf>,
    /// Clients closed for overcoming their output buffer limits (Redis 7.2
    /// has no INFO field for this; drivers read it through the engine).
    pub(crate) disconnections: u64,
    /// Clients closed since the driver last asked, with their buffer then.
    pub(crate) closed: Vec<(ClientId, OutputInfo)>,
    /// Encoding scratch, reused for every frame's length.
    pub(super) scratch: Vec<u8>,
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

impl OutputInfo {
    pub(super) fn of(b: &Obuf) -> OutputInfo {
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
