//! One client connection: read requests, run them on the engine of the node it connected to, write the replies (delayed by a test's latency), and route what commands produce for other clients (unblocked replies, Pub/Sub messages, replicas' streams).

use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use redsim_engine::proto::resp::{parse_request, Frame};
use redsim_engine::{ClientId, ClientOrigin, Engine};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Notify};

use super::{guarded, Outgoing, Peer, Shared};
use crate::framing::{RequestScan, Scan};

/// Bytes asked of the socket per read (Redis reads 16 KiB; more costs nothing here).
const READ_CHUNK: usize = 64 * 1024;
/// A read buffer grown past this by one huge request is given back once idle.
const KEEP_BUFFER: usize = 4 * 1024 * 1024;

/// Sends the replies of clients unblocked since the last call (served by
/// another client's write, or timed out) to their connections, and wakes
/// those connections to go on with their buffered requests.
pub(super) fn deliver_unblocked(shared: &Shared) {
    let Ok(mut host) = shared.host.try_borrow_mut() else {
        return;
    };
    for node in 0..host.nodes() {
        route_outgoing(host.engine_mut(node), node, shared, None);
    }
}

/// Hands out the frames the engine produced besides a reply: unblocked
/// clients' replies and Pub/Sub messages, in the order produced. `own` is
/// the connection whose command just replied: its frames (further
/// SUBSCRIBE confirmations, messages it published to itself) go after that
/// reply in its buffer, as Redis appends them to the same output buffer.
/// Other connections get theirs at once, idle subscribers included.
fn route_outgoing(
    engine: &mut Engine,
    node: usize,
    shared: &Shared,
    mut own: Option<(ClientId, &mut Vec<u8>)>,
) {
    let killed = engine.take_killed();
    let frames = engine.take_unblocked();
    let replicas = engine.take_socket_writes();
    if frames.is_empty() && killed.is_empty() && replicas.is_empty() {
        return;
    }
    let peers = shared.peers.borrow();
    // CLIENT KILL and ACL DELUSER: the engine has let them go already.
    for id in killed {
        if let Some(peer) = peers.get(&(node, id)) {
            peer.close.notify_one();
        }
    }
    for (id, frame) in frames {
        let proto = engine.client(id).map_or(2, |c| c.resp);
        if let Some((_, out)) = own.as_mut().filter(|(me, _)| *me == id) {
            frame.encode(proto, out);
            continue;
        }
        let Some(peer) = peers.get(&(node, id)) else {
            continue;
        };
        let mut out = Vec::new();
        frame.encode(proto, &mut out);
        let _ = peer.tx.send((None, out));
        peer.wake.notify_one();
    }
    // Replicas' RDB files and streams: a full sync's file right after its
    // reply, the stream whenever it comes.
    for (id, bytes) in replicas {
        if let Some((_, out)) = own.as_mut().filter(|(me, _)| *me == id) {
            out.extend_from_slice(&bytes);
        } else if let Some(peer) = peers.get(&(node, id)) {
            let _ = peer.tx.send((None, bytes));
        }
    }
}

/// Disconnects the engine's client when the connection task ends, however it ends.
struct ClientGuard {
    shared: Rc<Shared>,
    node: usize,
    id: ClientId,
}

impl Drop for ClientGuard {
    fn drop(&mut self) {
        if let Ok(mut peers) = self.shared.peers.try_borrow_mut() {
            peers.remove(&(self.node, self.id));
        }
        if let Ok(mut host) = self.shared.host.try_borrow_mut() {
            host.engine_mut(self.node).disconnect(self.id);
        }
    }
}

/// One client of node `node`: read, run every complete request, hand the
/// replies to the writer, repeat. Reading and writing are separate tasks
/// so a client that pipelines a huge batch before reading anything cannot
/// deadlock against us (Redis buffers replies the same way, unbounded for
/// normal clients).
/// `connIsLocal`: the peer is on the loopback interface (IPv4, IPv6 or
/// IPv4 mapped into IPv6).
pub(super) fn is_loopback(peer: &SocketAddr) -> bool {
    match peer.ip() {
        std::net::IpAddr::V4(ip) => ip.is_loopback(),
        std::net::IpAddr::V6(ip) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// `acceptCommonHandler`'s refusal: the error, then the connection closed.
/// The client may already have sent its first command: read it away before
/// closing, or the kernel resets the connection and the error is lost.
async fn refuse(mut stream: TcpStream, msg: &str) {
    let _ = stream.write_all(format!("-{msg}\r\n").as_bytes()).await;
    let _ = stream.shutdown().await;
    let mut sink = [0u8; 4096];
    let drain = async { while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {} };
    let _ = tokio::time::timeout(Duration::from_millis(500), drain).await;
}

pub(super) async fn connection(
    shared: Rc<Shared>,
    stream: TcpStream,
    peer: SocketAddr,
    node: usize,
) {
    stream.set_nodelay(true).ok();
    let maxclients = shared.host.borrow().engine(node).config().maxclients as usize;
    let connected = shared
        .peers
        .borrow()
        .keys()
        .filter(|(n, _)| *n == node)
        .count();
    if connected >= maxclients {
        refuse(stream, "ERR max number of clients reached").await;
        return;
    }
    let denied = shared
        .host
        .borrow()
        .engine(node)
        .protected_mode_refusal(is_loopback(&peer));
    if let Some(msg) = denied {
        refuse(stream, msg).await;
        return;
    }
    let id = {
        let mut host = shared.host.borrow_mut();
        let engine = host.engine_mut(node);
        let id = engine.connect(&peer.to_string());
        // CLIENT LIST shows where a connection comes from, as in Redis.
        engine.set_client_origin(
            id,
            ClientOrigin {
                addr: peer.to_string(),
                laddr: stream.local_addr().map_or(String::new(), |a| a.to_string()),
                fd: raw_fd(&stream),
            },
        );
        id
    };
    let _guard = ClientGuard {
        shared: shared.clone(),
        node,
        id,
    };
    let (mut reader, writer) = stream.into_split();
    let (tx, rx) = mpsc::unbounded_channel::<Outgoing>();
    tokio::task::spawn_local(write_loop(writer, rx));
    let wake = Rc::new(Notify::new());
    let close = Rc::new(Notify::new());
    shared.peers.borrow_mut().insert(
        (node, id),
        Peer {
            tx: tx.clone(),
            wake: wake.clone(),
            close: close.clone(),
        },
    );

    let mut buf: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    let mut scan = RequestScan::default();
    let blocked = |shared: &Shared| shared.host.borrow().engine(node).is_blocked(id);
    loop {
        // Run what is buffered, unless a blocking command holds the client:
        // then its input waits, as in Redis, until it is served or times out.
        if !blocked(&shared) && !buf.is_empty() {
            let (out, closing) = process(&shared, node, id, &mut buf, &mut scan);
            super::move_port(&shared).await;
            if !out.is_empty() && tx.send((shared.reply_due(node, id), out)).is_err() {
                break;
            }
            deliver_unblocked(&shared);
            if shared.host.borrow().is_down(node) {
                // SHUTDOWN stopped this node: its port closes, its clients go.
                super::sync_nodes(&shared).await;
                break;
            }
            if closing {
                break;
            }
            if buf.is_empty() && buf.capacity() > KEEP_BUFFER {
                buf = Vec::with_capacity(READ_CHUNK);
            }
        }
        buf.reserve(READ_CHUNK);
        if blocked(&shared) {
            // Keep reading (a closed connection must still be noticed), and
            // wake when unblocked to run what was read meanwhile.
            tokio::select! {
                _ = close.notified() => break,
                _ = wake.notified() => {}
                r = reader.read_buf(&mut buf) => match r {
                    Ok(0) | Err(_) => break,
                    // What it sends meanwhile waits in its query buffer.
                    Ok(_) => shared.host.borrow_mut().engine_mut(node).set_pending_input(id, buf.len()),
                },
            }
        } else {
            tokio::select! {
                _ = close.notified() => break,
                r = reader.read_buf(&mut buf) => match r {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                },
            }
        }
    }
}

#[cfg(unix)]
fn raw_fd(stream: &TcpStream) -> i64 {
    use std::os::fd::AsRawFd;
    stream.as_raw_fd() as i64
}

#[cfg(not(unix))]
fn raw_fd(_: &TcpStream) -> i64 {
    -1
}

/// Runs every complete request in `buf` (removing them) and returns the
/// encoded replies, and whether to close the connection after sending them
/// (QUIT, or a protocol error as Redis closes after one).
fn process(
    shared: &Shared,
    node: usize,
    id: ClientId,
    buf: &mut Vec<u8>,
    scan: &mut RequestScan,
) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut close = false;
    let mut used = 0;
    let mut ran = false;
    let mut host = shared.host.borrow_mut();
    let max_bulk = host.engine(node).config().proto_max_bulk_len;
    let busy_before = host.engine(node).is_script_busy();
    while used < buf.len() {
        let pending = &buf[used..];
        if scan.check(pending, max_bulk) == Scan::NeedMore {
            break;
        }
        let req = match parse_request(pending, max_bulk) {
            Ok(Some(req)) => req,
            Ok(None) => break,
            Err(e) => {
                let proto = host.engine(node).client(id).map_or(2, |c| c.resp);
                e.to_frame().encode(proto, &mut out);
                used = buf.len();
                close = true;
                break;
            }
        };
        used += req.consumed;
        scan.reset();
        if req.args.is_empty() {
            continue;
        }
        let now = shared.now_us();
        let reply = guarded("command", || {
            host.catch_up(node, now);
            let reply = match host.intercept(node, &req.args) {
                Some(own) => Some(own),
                None => {
                    let engine = host.engine_mut(node);
                    engine.set_pending_input(id, buf.len() - used);
                    engine.submit(id, &req.args)
                }
            };
            host.served(node, &req.args);
            reply
        })
        .unwrap_or_else(|msg| Some(Frame::err(format!("ERR internal error: {msg}"))));
        // The command kept the engine's main thread busy (its modelled CPU
        // cost, DEBUG SLEEP, a synchronous free): Redis' one thread would
        // have served no one meanwhile, so this one does not either, and
        // the wall clock catches up with the virtual one.
        // A lead under a millisecond is not slept (the OS would oversleep
        // it); small costs add up until the lead reaches one, so the
        // virtual clock is never more than 1 ms ahead after a command.
        let lead_us = host.engine(node).now_us().saturating_sub(shared.now_us());
        if lead_us >= 1000 && !shared.clock.manual {
            std::thread::sleep(Duration::from_micros(lead_us));
        }
        ran = true;
        if host.is_down(node) {
            // SHUTDOWN: the node is gone; like the process, it answers nothing.
            if host.nodes() == 1 {
                shared.shut_down.notify_one();
            }
            close = true;
            break;
        }
        let engine = host.engine_mut(node);
        // The log lines the command wrote (DEBUG LOG, `redis.log`).
        crate::serverlog::write(&engine.take_log(), &engine.config().logfile);
        // What Redis writes ahead of the reply (invalidations of keys
        // evicted before the command ran).
        let proto = engine.client(id).map_or(2, |c| c.resp);
        for f in engine.take_before_reply(id) {
            f.encode(proto, &mut out);
        }
        let Some(reply) = reply else {
            // Blocked: the rest of the input waits; the ticker may need to
            // wake sooner for this client's deadline.
            shared.ticker_wake.notify_one();
            break;
        };
        let client = engine.client(id);
        // CLIENT REPLY OFF / SKIP: the command ran, its reply is dropped.
        if !client.is_some_and(|c| c.reply_silenced()) {
            reply.encode(client.map_or(2, |c| c.resp), &mut out);
        }
        let closing = client.is_none_or(|c| c.close_after_reply);
        route_outgoing(engine, node, shared, Some((id, &mut out)));
        if closing {
            close = true;
            break;
        }
    }
    if ran && !host.is_down(node) {
        let engine = host.engine_mut(node);
        let _ = guarded("beforeSleep", || engine.before_sleep());
        // A script became busy or stopped being so (SCRIPT KILL): the
        // ticker's next wake (the script's end, or the cron again) moved.
        if engine.is_script_busy() != busy_before {
            shared.ticker_wake.notify_one();
        }
    }
    if close {
        // Whatever follows QUIT or a protocol error is never run.
        buf.clear();
    } else {
        buf.drain(..used);
    }
    (out, close)
}

/// Writes reply batches in order, coalescing whatever has queued up, and
/// closes the socket once the reader is done and everything is sent.
async fn write_loop(mut writer: OwnedWriteHalf, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some((due, mut out)) = rx.recv().await {
        if let Some(due) = due {
            tokio::time::sleep_until(due.into()).await;
        }
        // Coalesce what is queued and already due; a delayed batch waits
        // its turn, so replies never overtake each other.
        while let Ok((more_due, more)) = rx.try_recv() {
            if let Some(d) = more_due.filter(|d| *d > Instant::now()) {
                tokio::time::sleep_until(d.into()).await;
            }
            out.extend_from_slice(&more);
        }
        if writer.write_all(&out).await.is_err() {
            return;
        }
    }
    let _ = writer.shutdown().await;
}
