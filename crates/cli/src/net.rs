//! The TCP side: listeners, one task per connection, the cron ticker, and the background-thread handle tests use.
//!
//! Like Redis, everything runs on one thread: a tokio current-thread runtime
//! with a `LocalSet`, the engine in one `Rc<RefCell<Engine>>`. A task never
//! holds the engine across an `.await`, so each batch of requests runs to
//! completion without interleaving, which is what makes INCR from many
//! clients exact without any locking.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, TcpListener as StdListener, ToSocketAddrs};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redsim_engine::proto::resp::{parse_request, Frame};
use redsim_engine::{ClientId, ClientOrigin, Engine, Options};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, Notify};
use tokio::task::LocalSet;

use crate::framing::{RequestScan, Scan};
use crate::options::{ClockMode, ServerOptions};

/// Bytes asked of the socket per read (Redis reads 16 KiB; more costs nothing here).
const READ_CHUNK: usize = 64 * 1024;
/// A read buffer grown past this by one huge request is given back once idle.
const KEEP_BUFFER: usize = 4 * 1024 * 1024;

/// What every task shares: the engine, its clock and the faults a test set.
struct Shared {
    engine: RefCell<Engine>,
    clock: ServerClock,
    faults: RefCell<Faults>,
    /// Every connection's reply channel and wake-up, by client id: replies
    /// of unblocked clients are produced by other connections' commands or
    /// the ticker, and go out through here.
    peers: RefCell<BTreeMap<ClientId, Peer>>,
    /// Pokes the cron ticker when a client blocks, so it can wake for a
    /// deadline sooner than the tick it sleeps towards.
    ticker_wake: Notify,
}

/// How to reach a connection's task from elsewhere.
struct Peer {
    tx: mpsc::UnboundedSender<Outgoing>,
    /// Wakes the connection's task once its client is unblocked, so it
    /// goes on with the requests it had buffered meanwhile.
    wake: Rc<Notify>,
    /// Closes the connection (a test's `kill_client`).
    close: Rc<Notify>,
}

/// Reply bytes for a connection's writer, not to be sent before `due`
/// (a test's added latency; `None`: at once).
type Outgoing = (Option<Instant>, Vec<u8>);

/// The server's clock: the wall clock since start (the binary, and tests
/// that want keys to expire by themselves), or a manual one that moves only
/// when a test advances it. Both can be pushed ahead by a test.
struct ServerClock {
    /// Wall-clock instant of virtual time 0.
    start: Instant,
    manual: bool,
    /// Time a test added (all of a manual clock's time).
    ahead_us: Cell<u64>,
}

impl ServerClock {
    fn now_us(&self) -> u64 {
        let wall = if self.manual {
            0
        } else {
            self.start.elapsed().as_micros() as u64
        };
        wall + self.ahead_us.get()
    }

    /// The wall instant virtual time `t_us` comes by itself; never for a
    /// manual clock.
    fn instant_of(&self, t_us: u64) -> Option<Instant> {
        (!self.manual)
            .then(|| self.start + Duration::from_micros(t_us.saturating_sub(self.ahead_us.get())))
    }
}

/// Faults a test injects through [`RunningServer`].
#[derive(Default)]
struct Faults {
    /// Added before every reply is sent.
    latency: Duration,
    /// Added for clients of a name (CLIENT SETNAME), instead of `latency`.
    latency_by_name: BTreeMap<String, Duration>,
    /// New connections are accepted and closed at once.
    refuse: bool,
}

impl Shared {
    /// Microseconds of virtual time: the engine's clock follows it.
    fn now_us(&self) -> u64 {
        self.clock.now_us()
    }

    /// When a reply to client `id` may go out.
    fn reply_due(&self, id: ClientId) -> Option<Instant> {
        let faults = self.faults.borrow();
        let name = self.engine.borrow().client(id).and_then(|c| c.name.clone());
        let latency = name
            .and_then(|n| faults.latency_by_name.get(&n).copied())
            .unwrap_or(faults.latency);
        (!latency.is_zero()).then(|| Instant::now() + latency)
    }
}

/// Runs `f`, turning a panic into its message so one bad command cannot take
/// the server (and every other client) down with it.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        eprintln!("redsim: internal error in {what}: {msg}");
        msg
    })
}

/// Builds the engine for `opts`, its Unix epoch set from the wall clock.
fn new_shared(opts: &ServerOptions) -> Rc<Shared> {
    let mut engine = Engine::with_options(Options {
        seed: opts.seed,
        config: opts.config.clone(),
        trace_capacity: opts.trace_capacity,
    });
    let unix_us = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0);
    engine.set_unix_base_us(unix_us);
    Rc::new(Shared {
        engine: RefCell::new(engine),
        clock: ServerClock {
            start: Instant::now(),
            manual: opts.clock == ClockMode::Manual,
            ahead_us: Cell::new(0),
        },
        faults: RefCell::new(Faults::default()),
        peers: RefCell::new(BTreeMap::new()),
        ticker_wake: Notify::new(),
    })
}

/// Binds every address of `--bind` on `--port` (0: a free port, the same
/// for every address). `*` means all IPv4 interfaces, `::*` all IPv6 ones,
/// and a leading `-` makes an address optional, as in redis-server.
fn bind_all(opts: &ServerOptions) -> io::Result<Vec<StdListener>> {
    let mut port = opts.config.port;
    let mut listeners = Vec::new();
    for spec in opts.config.bind.split_whitespace() {
        let (optional, host) = match spec.strip_prefix('-') {
            Some(h) => (true, h),
            None => (false, spec),
        };
        let host = match host {
            "*" => "0.0.0.0",
            "::*" => "::",
            h => h,
        };
        let bound = (host, port)
            .to_socket_addrs()
            .and_then(|mut addrs| {
                addrs
                    .next()
                    .ok_or_else(|| io::Error::new(io::ErrorKind::AddrNotAvailable, "no address"))
            })
            .and_then(StdListener::bind);
        match bound {
            Ok(l) => {
                l.set_nonblocking(true)?;
                port = l.local_addr()?.port();
                listeners.push(l);
            }
            Err(_) if optional => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("Could not create server TCP listening socket {host}:{port}: {e}"),
                ))
            }
        }
    }
    if listeners.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "Configured to not listen anywhere",
        ));
    }
    Ok(listeners)
}

/// Serves on bound listeners until `stop` resolves (or forever).
async fn serve(
    shared: Rc<Shared>,
    listeners: Vec<StdListener>,
    stop: impl std::future::Future<Output = ()>,
) -> io::Result<()> {
    let mut accepting = Vec::new();
    for l in listeners {
        let l = TcpListener::from_std(l)?;
        accepting.push(tokio::task::spawn_local(accept_loop(shared.clone(), l)));
    }
    let ticker = tokio::task::spawn_local(cron_ticker(shared.clone()));
    stop.await;
    ticker.abort();
    for a in accepting {
        a.abort();
    }
    Ok(())
}

async fn accept_loop(shared: Rc<Shared>, listener: TcpListener) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) if shared.faults.borrow().refuse => drop(stream),
            Ok((stream, peer)) => {
                tokio::task::spawn_local(connection(shared.clone(), stream, peer));
            }
            Err(e) => {
                // Out of file descriptors and the like: Redis logs and keeps going.
                eprintln!("redsim: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Wakes when the next cron tick is due (every 1000/hz ms), or a blocked
/// client's deadline if sooner, and moves the engine clock there, so keys
/// expire actively while no client talks and timed-out clients get their
/// reply on time.
async fn cron_ticker(shared: Rc<Shared>) {
    loop {
        let due_us = {
            let engine = shared.engine.borrow();
            let cron = engine.next_cron_us();
            engine
                .next_block_deadline_us()
                .map_or(cron, |d| d.min(cron))
        };
        match shared.clock.instant_of(due_us) {
            Some(due) => tokio::select! {
                _ = tokio::time::sleep_until(due.into()) => {}
                // A client blocked: its deadline may come before `due`.
                _ = shared.ticker_wake.notified() => continue,
            },
            // A manual clock: run what is due once a test moves it.
            None if shared.now_us() >= due_us => {}
            None => {
                shared.ticker_wake.notified().await;
                continue;
            }
        }
        let now = shared.now_us();
        let ok = {
            let mut engine = shared.engine.borrow_mut();
            guarded("server cron", || engine.advance_to(now)).is_ok()
        };
        deliver_unblocked(&shared);
        if !ok {
            // Do not spin on a tick that keeps panicking.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Sends the replies of clients unblocked since the last call (served by
/// another client's write, or timed out) to their connections, and wakes
/// those connections to go on with their buffered requests.
fn deliver_unblocked(shared: &Shared) {
    let Ok(mut engine) = shared.engine.try_borrow_mut() else {
        return;
    };
    route_outgoing(&mut engine, shared, None);
}

/// Hands out the frames the engine produced besides a reply: unblocked
/// clients' replies and Pub/Sub messages, in the order produced. `own` is
/// the connection whose command just replied: its frames (further
/// SUBSCRIBE confirmations, messages it published to itself) go after that
/// reply in its buffer, as Redis appends them to the same output buffer.
/// Other connections get theirs at once, idle subscribers included.
fn route_outgoing(engine: &mut Engine, shared: &Shared, mut own: Option<(ClientId, &mut Vec<u8>)>) {
    let frames = engine.take_unblocked();
    if frames.is_empty() {
        return;
    }
    let peers = shared.peers.borrow();
    for (id, frame) in frames {
        let proto = engine.client(id).map_or(2, |c| c.resp);
        if let Some((_, out)) = own.as_mut().filter(|(me, _)| *me == id) {
            frame.encode(proto, out);
            continue;
        }
        let Some(peer) = peers.get(&id) else {
            continue;
        };
        let mut out = Vec::new();
        frame.encode(proto, &mut out);
        let _ = peer.tx.send((None, out));
        peer.wake.notify_one();
    }
}

/// Disconnects the engine's client when the connection task ends, however it ends.
struct ClientGuard {
    shared: Rc<Shared>,
    id: ClientId,
}

impl Drop for ClientGuard {
    fn drop(&mut self) {
        if let Ok(mut peers) = self.shared.peers.try_borrow_mut() {
            peers.remove(&self.id);
        }
        if let Ok(mut engine) = self.shared.engine.try_borrow_mut() {
            engine.disconnect(self.id);
        }
    }
}

/// One client: read, run every complete request, hand the replies to the
/// writer, repeat. Reading and writing are separate tasks so a client that
/// pipelines a huge batch before reading anything cannot deadlock against
/// us (Redis buffers replies the same way, unbounded for normal clients).
async fn connection(shared: Rc<Shared>, mut stream: TcpStream, peer: SocketAddr) {
    stream.set_nodelay(true).ok();
    let maxclients = shared.engine.borrow().config().maxclients as usize;
    if shared.peers.borrow().len() >= maxclients {
        // `acceptCommonHandler`: told why, then closed. The client may
        // already have sent its first command: read it away before closing,
        // or the kernel resets the connection and the error is lost.
        let _ = stream
            .write_all(b"-ERR max number of clients reached\r\n")
            .await;
        let _ = stream.shutdown().await;
        let mut sink = [0u8; 4096];
        let drain = async { while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {} };
        let _ = tokio::time::timeout(Duration::from_millis(500), drain).await;
        return;
    }
    let id = {
        let mut engine = shared.engine.borrow_mut();
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
        id,
    };
    let (mut reader, writer) = stream.into_split();
    let (tx, rx) = mpsc::unbounded_channel::<Outgoing>();
    tokio::task::spawn_local(write_loop(writer, rx));
    let wake = Rc::new(Notify::new());
    let close = Rc::new(Notify::new());
    shared.peers.borrow_mut().insert(
        id,
        Peer {
            tx: tx.clone(),
            wake: wake.clone(),
            close: close.clone(),
        },
    );

    let mut buf: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    let mut scan = RequestScan::default();
    loop {
        // Run what is buffered, unless a blocking command holds the client:
        // then its input waits, as in Redis, until it is served or times out.
        let blocked = shared.engine.borrow().is_blocked(id);
        if !blocked && !buf.is_empty() {
            let (out, closing) = process(&shared, id, &mut buf, &mut scan);
            if !out.is_empty() && tx.send((shared.reply_due(id), out)).is_err() {
                break;
            }
            deliver_unblocked(&shared);
            if closing {
                break;
            }
            if buf.is_empty() && buf.capacity() > KEEP_BUFFER {
                buf = Vec::with_capacity(READ_CHUNK);
            }
        }
        buf.reserve(READ_CHUNK);
        if shared.engine.borrow().is_blocked(id) {
            // Keep reading (a closed connection must still be noticed), and
            // wake when unblocked to run what was read meanwhile.
            tokio::select! {
                _ = close.notified() => break,
                _ = wake.notified() => {}
                r = reader.read_buf(&mut buf) => match r {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
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
    id: ClientId,
    buf: &mut Vec<u8>,
    scan: &mut RequestScan,
) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut close = false;
    let mut used = 0;
    let mut ran = false;
    let mut engine = shared.engine.borrow_mut();
    let max_bulk = engine.config().proto_max_bulk_len;
    while used < buf.len() {
        let pending = &buf[used..];
        if scan.check(pending, max_bulk) == Scan::NeedMore {
            break;
        }
        let req = match parse_request(pending, max_bulk) {
            Ok(Some(req)) => req,
            Ok(None) => break,
            Err(e) => {
                let proto = engine.client(id).map_or(2, |c| c.resp);
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
            engine.advance_to(now);
            engine.submit(id, &req.args)
        })
        .unwrap_or_else(|msg| Some(Frame::err(format!("ERR internal error: {msg}"))));
        ran = true;
        let Some(reply) = reply else {
            // Blocked: the rest of the input waits; the ticker may need to
            // wake sooner for this client's deadline.
            shared.ticker_wake.notify_one();
            break;
        };
        let client = engine.client(id);
        reply.encode(client.map_or(2, |c| c.resp), &mut out);
        let closing = client.is_none_or(|c| c.close_after_reply);
        route_outgoing(&mut engine, shared, Some((id, &mut out)));
        if closing {
            close = true;
            break;
        }
    }
    if ran {
        let _ = guarded("beforeSleep", || engine.before_sleep());
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

/// What a test asks of the server thread through [`RunningServer`].
enum Control {
    /// Runs a closure on the engine as it is.
    Inspect(Box<dyn FnOnce(&Engine) + Send>),
    /// Moves the clock ahead, running what comes due.
    Advance(Duration),
    /// Latency added to replies: for every client, or those of a name.
    Latency(Option<String>, Duration),
    /// Closes the connections of clients of a name (answered: how many).
    Kill(String),
    /// Stops the whole server for a while, as `DEBUG SLEEP` does.
    Pause(Duration),
    /// Accept-and-close new connections (true) or serve them again.
    Refuse(bool),
}

/// A control and where to answer once it has taken effect (a count for
/// `Kill`, 0 otherwise), so a test's next step sees it in force.
type Request = (Control, std::sync::mpsc::Sender<usize>);

/// Carries out [`Control`]s on the server thread, between commands.
async fn answer_controls(shared: Rc<Shared>, mut rx: mpsc::UnboundedReceiver<Request>) {
    while let Some((control, done)) = rx.recv().await {
        let mut answer = 0;
        match control {
            Control::Inspect(probe) => {
                let engine = shared.engine.borrow();
                let _ = guarded("inspect", || probe(&engine));
            }
            Control::Advance(by) => {
                let ahead = &shared.clock.ahead_us;
                ahead.set(ahead.get() + by.as_micros() as u64);
                let now = shared.now_us();
                {
                    let mut engine = shared.engine.borrow_mut();
                    let _ = guarded("advance", || engine.advance_to(now));
                }
                deliver_unblocked(&shared);
                shared.ticker_wake.notify_one();
            }
            Control::Latency(None, d) => shared.faults.borrow_mut().latency = d,
            Control::Latency(Some(name), d) => {
                let mut faults = shared.faults.borrow_mut();
                if d.is_zero() {
                    faults.latency_by_name.remove(&name);
                } else {
                    faults.latency_by_name.insert(name, d);
                }
            }
            Control::Kill(name) => {
                let engine = shared.engine.borrow();
                for (id, peer) in shared.peers.borrow().iter() {
                    if engine.client(*id).and_then(|c| c.name.as_deref()) == Some(name.as_str()) {
                        peer.close.notify_one();
                        answer += 1;
                    }
                }
            }
            Control::Pause(d) => {
                // Answer first: the test goes on while the server sleeps.
                let _ = done.send(0);
                // Blocking the thread is the point: nothing runs meanwhile.
                std::thread::sleep(d);
                continue;
            }
            Control::Refuse(on) => shared.faults.borrow_mut().refuse = on,
        }
        let _ = done.send(answer);
    }
}

/// A server running on a background thread; stops when dropped.
pub struct RunningServer {
    addrs: Vec<SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    control: mpsc::UnboundedSender<Request>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RunningServer {
    /// The addresses it listens on.
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// The port it listens on (the actual one when `--port 0` was given).
    pub fn port(&self) -> u16 {
        self.addrs.first().map_or(0, |a| a.port())
    }

    /// Runs `f` on the server thread with the engine as it is, without moving
    /// its clock: tests use it to see what the cron ticker did while no
    /// client was talking (any command would first catch the clock up).
    /// `None` if the server has stopped.
    pub fn inspect<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Engine) -> R + Send + 'static,
    ) -> Option<R> {
        let (tx, rx) = std::sync::mpsc::channel();
        let probe = Box::new(move |e: &Engine| {
            let _ = tx.send(f(e));
        });
        self.control(Control::Inspect(probe))?;
        rx.recv().ok()
    }

    /// Sends `c` to the server thread and waits until it has taken effect;
    /// `None` if the server has stopped.
    fn control(&self, c: Control) -> Option<usize> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.control.send((c, tx)).ok()?;
        rx.recv().ok()
    }

    /// Moves the server's clock ahead by `by` and returns once the engine
    /// has run everything due (expiry, timeouts of blocked clients). With
    /// a manual clock this is the only way time passes.
    pub fn advance(&self, by: Duration) {
        self.control(Control::Advance(by));
    }

    /// Delays every reply by `latency` (zero: none), without slowing the
    /// server for other clients.
    pub fn set_latency(&self, latency: Duration) {
        self.control(Control::Latency(None, latency));
    }

    /// Delays replies to clients named `name` (CLIENT SETNAME) by
    /// `latency`, instead of the server-wide latency (zero: back to it).
    pub fn set_client_latency(&self, name: &str, latency: Duration) {
        self.control(Control::Latency(Some(name.to_string()), latency));
    }

    /// Closes the connections of every client named `name`, as a network
    /// failure would; returns how many there were.
    pub fn kill_client(&self, name: &str) -> usize {
        self.control(Control::Kill(name.to_string())).unwrap_or(0)
    }

    /// Stops the whole server for `d` (as `DEBUG SLEEP`): no command runs
    /// and no connection is accepted meanwhile. Returns at once.
    pub fn pause(&self, d: Duration) {
        self.control(Control::Pause(d));
    }

    /// Accepts new connections only to close them (true), or serves them
    /// again (false). Connections already open are untouched.
    pub fn refuse_connections(&self, refuse: bool) {
        self.control(Control::Refuse(refuse));
    }

    /// Stops the server, closing every connection, and waits for its thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// [`bind_all`], then the addresses bound and the options with the port
/// actually bound (`--port 0` picks one), which the server reports as its own.
fn bind(mut opts: ServerOptions) -> io::Result<(ServerOptions, Vec<StdListener>, Vec<SocketAddr>)> {
    let listeners = bind_all(&opts)?;
    let addrs = listeners
        .iter()
        .map(|l| l.local_addr())
        .collect::<io::Result<Vec<_>>>()?;
    opts.config.port = addrs.first().map_or(opts.config.port, |a| a.port());
    Ok((opts, listeners, addrs))
}

/// Binds the listeners now (so a bind error is returned here) and serves
/// on a background thread until the handle is dropped.
pub fn spawn(opts: ServerOptions) -> io::Result<RunningServer> {
    let (opts, listeners, addrs) = bind(opts)?;
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (control_tx, control_rx) = mpsc::unbounded_channel::<Request>();
    let thread = std::thread::Builder::new()
        .name("redsim-server".into())
        // Deeply nested Lua (cjson of nested tables) recurses deeply in an
        // unoptimised build; the main thread of `redsim server` has 8 MiB.
        .stack_size(64 << 20)
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    eprintln!("redsim: cannot start the runtime: {e}");
                    return;
                }
            };
            let shared = new_shared(&opts);
            let local = LocalSet::new();
            local.spawn_local(answer_controls(shared.clone(), control_rx));
            let stop = async {
                let _ = stop_rx.await;
            };
            if let Err(e) = local.block_on(&rt, serve(shared, listeners, stop)) {
                eprintln!("redsim: server stopped: {e}");
            }
        })?;
    Ok(RunningServer {
        addrs,
        stop: Some(stop_tx),
        control: control_tx,
        thread: Some(thread),
    })
}

/// Runs the server in the foreground (the `redsim server` command) until the
/// process is killed.
pub fn run(opts: ServerOptions) -> io::Result<()> {
    let (opts, listeners, addrs) = bind(opts)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let shared = new_shared(&opts);
    let shown: Vec<String> = addrs.iter().map(|a| a.to_string()).collect();
    println!(
        "redsim {} (Redis {} semantics) ready to accept connections on {} (seed {}, hz {})",
        env!("CARGO_PKG_VERSION"),
        redsim_engine::REDIS_VERSION,
        shown.join(", "),
        opts.seed,
        opts.config.hz
    );
    let local = LocalSet::new();
    local.block_on(&rt, serve(shared, listeners, std::future::pending()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guarded_turns_a_panic_into_its_message() {
        assert_eq!(guarded("test", || 7), Ok(7));
        let r: Result<(), String> = guarded("test", || panic!("boom {}", 1));
        assert_eq!(r, Err("boom 1".to_string()));
        let r: Result<(), String> = guarded("test", || panic!("static"));
        assert_eq!(r, Err("static".to_string()));
    }

    #[test]
    fn bind_rejects_nothing_to_listen_on_and_allows_optional_failures() {
        let mut o = ServerOptions::default();
        o.config.port = 0;
        o.config.bind = "-203.0.113.1 127.0.0.1".into();
        let ls = bind_all(&o).unwrap();
        assert_eq!(ls.len(), 1);
        o.config.bind = "-203.0.113.1".into();
        assert!(bind_all(&o).is_err());
    }
}
