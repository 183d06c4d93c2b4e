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
//! once), the static buffer's resizing by `clientsCronResizeOutputBuffer`
//! (CLIENT LIST's `rbs` follows it, see `crate::server::client_bufs`, but
//! frames held here fill 16 KB first), and replica links (the engine has no
//! replica connections).

pub mod state;

pub use state::{OutputInfo, Outputs};

use crate::proto::resp::Frame;
use crate::server::client::ClientId;
use crate::server::obuf_limits::ObufClass;
use crate::server::Server;

/// The class a client's limits come from: `pubsub` while it is subscribed.
fn class_of(srv: &Server, id: ClientId) -> ObufClass {
    match srv.client_list.get(&id) {
        Some(e) if e.subscribed() => ObufClass::PubSub,
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
    if let Some(e) = srv.client_list.get_mut(&client) {
        e.bufs.wrote(len);
    }
    let buf = out.bufs.get_or_default(client);
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
    let buf = srv.output.bufs.get_or_default(client);
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

#[cfg(test)]
mod tests;
