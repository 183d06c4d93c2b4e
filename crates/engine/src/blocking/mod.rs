//! The machinery behind blocking commands (blocked.c, timeout.c): clients waiting on keys, keys signalled ready when created, waiters served in the order they blocked by running their command again, and timeouts on the virtual clock.
//!
//! The split of work follows Redis 7.2. A command that finds nothing to do
//! calls [`block_for_keys`] (after checking [`may_block`]) and returns; the
//! engine then parks the client here instead of replying. Creating a key
//! someone waits on (`dbAdd`) signals it ready ([`Blocking::signal_ready`]);
//! after each top-level command (a whole EXEC included) the engine walks the
//! ready keys and, for each, re-runs the commands of the clients waiting on
//! it, oldest first, as long as the key holds the type they wait for. A
//! served command that writes (BLMOVE) can make more keys ready; those are
//! handled in the same pass. Deadlines are absolute Unix milliseconds, as in
//! Redis, and fire once the clock is strictly past them.

mod timeout;
pub mod waiters;

pub use timeout::{timeout_arg, timeout_ms_arg};
pub use waiters::{deadline_us, BlockKind, BlockedInfo, Blocking, Request};
pub(crate) use waiters::{Reprocessing, Waiter};

use crate::proto::resp::Frame;
use crate::server::Server;

/// True if the running command may block: a top-level command from a
/// client driven with `submit` (not inside EXEC, not through `execute`).
/// Blocking commands that may not block reply as on a timeout.
pub fn may_block(srv: &Server) -> bool {
    !srv.blocking.deny && srv.blocking.depth == 1
}

/// `blockForKeys`: asks the engine to park the client on `keys`. The
/// returned frame is never sent: the reply comes when the client is served
/// or times out.
pub fn block_for_keys(
    srv: &mut Server,
    kind: BlockKind,
    keys: &[Vec<u8>],
    timeout_ms: i64,
) -> Frame {
    srv.blocking.set_request(Request {
        kind,
        keys: keys.to_vec(),
        timeout_ms,
        args: None,
        nokey: false,
    });
    Frame::NullArray
}

/// `blockForReplication`: parks a WAIT until replicas acknowledge its
/// client's offset or `timeout_ms` (absolute Unix ms; 0: never) passes.
pub fn block_for_replicas(srv: &mut Server, timeout_ms: i64) -> Frame {
    srv.blocking.set_request(Request {
        kind: BlockKind::Replicas,
        keys: Vec::new(),
        timeout_ms,
        args: None,
        nokey: false,
    });
    Frame::NullArray
}

/// `blockPostponeClient`: CLIENT PAUSE holds the running command; it is
/// processed again, from the start, when the pause ends.
pub fn postpone(srv: &mut Server) -> Frame {
    srv.blocking.set_request(Request {
        kind: BlockKind::Postponed,
        keys: Vec::new(),
        timeout_ms: 0,
        args: None,
        nokey: false,
    });
    Frame::NullArray
}

/// Parks the caller of a script that left the server busy until the
/// script ends or is killed (`script::busy`); no timeout.
pub fn block_for_script(srv: &mut Server) -> Frame {
    srv.blocking.set_request(Request {
        kind: BlockKind::Script,
        keys: Vec::new(),
        timeout_ms: 0,
        args: None,
        nokey: false,
    });
    Frame::NullArray
}

/// `blockForKeys(BLOCKED_STREAM)` for XREAD and XREADGROUP: `args` is the
/// command to run again (with `$` resolved); `nokey` also wakes the client
/// when a key is deleted (XREADGROUP, 7.2).
pub fn block_for_stream(
    srv: &mut Server,
    keys: &[Vec<u8>],
    timeout_ms: i64,
    args: Vec<Vec<u8>>,
    nokey: bool,
) -> Frame {
    srv.blocking.set_request(Request {
        kind: BlockKind::Stream,
        keys: keys.to_vec(),
        timeout_ms,
        args: Some(args),
        nokey,
    });
    Frame::NullArray
}
