//! The TCP side: listeners, one task per connection, the cron ticker, and the background-thread handle tests use; for one engine or for a simulated cluster with a port per node.
//!
//! Like Redis, everything runs on one thread: a tokio current-thread runtime
//! with a `LocalSet`, the engines in one `RefCell<Host>`. A task never
//! holds them across an `.await`, so each batch of requests runs to
//! completion without interleaving, which is what makes INCR from many
//! clients exact without any locking. A cluster's nodes share that thread
//! (and the virtual clock), so the bus and replication between them stay
//! the simulation's, deterministic for a given order of requests.

mod conn;
mod control;
mod host;
mod port;
mod sentinel;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, TcpListener as StdListener, ToSocketAddrs};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::oserror::os_error_text;
use redsim_engine::{ClientId, Engine, Options};
use redsim_sim::cluster::{Cluster, SimOptions};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, Notify};
use tokio::task::{JoinHandle, LocalSet};

pub use control::RunningServer;
use control::{answer_controls, Request};
use host::Host;
pub use sentinel::SentinelSetup;

use crate::options::{ClockMode, ServerOptions};

/// What every task shares: the engines, their clock and the faults a test set.
struct Shared {
    host: RefCell<Host>,
    clock: ServerClock,
    faults: RefCell<Faults>,
    /// Every connection's reply channel and wake-up, by node and client id:
    /// replies of unblocked clients are produced by other connections'
    /// commands or the ticker, and go out through here.
    peers: RefCell<BTreeMap<(usize, ClientId), Peer>>,
    /// Pokes the cron ticker when a client blocks, so it can wake for a
    /// deadline sooner than the tick it sleeps towards.
    ticker_wake: Notify,
    /// A standalone server ran SHUTDOWN: the foreground process ends.
    shut_down: Notify,
    /// Each node's addresses and the accept loops serving them while it is
    /// up; a killed cluster node's loops stop, so connecting is refused.
    listening: RefCell<Vec<NodeListeners>>,
    /// A standalone server's port as CONFIG SET moves it (a cluster's or
    /// topology's nodes keep the ports their simulation announces).
    port_mover: Option<std::sync::Arc<port::PortMover>>,
}

struct NodeListeners {
    addrs: Vec<SocketAddr>,
    /// Each accept loop and the address it serves.
    accepting: Vec<(SocketAddr, JoinHandle<()>)>,
}

/// How to reach a connection's task from elsewhere.
struct Peer {
    tx: mpsc::UnboundedSender<Outgoing>,
    /// Wakes the connection's task once its client is unblocked, so it
    /// goes on with the requests it had buffered meanwhile.
    wake: Rc<Notify>,
    /// Closes the connection (a test's `kill_client`, a killed node).
    close: Rc<Notify>,
}

/// Reply bytes for a connection's writer, not to be sent before `due`
/// (a test's added latency; `None`: at once).
type Outgoing = (Option<Instant>, Vec<u8>);

/// The server's clock: the wall clock since start (the binary, and tests
/// that want keys to expire by themselves), or a manual one that moves only
/// when a test advances it. Both can be pushed ahead by a test.
struct ServerClock {
    /// Wall-clock instant of `ahead_us`'s starting point.
    start: Instant,
    manual: bool,
    /// Virtual time at start plus what a test added (all of a manual clock's time).
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
    /// manual clock, nor for `u64::MAX` (a script busy until killed).
    fn instant_of(&self, t_us: u64) -> Option<Instant> {
        let after = Duration::from_micros(t_us.saturating_sub(self.ahead_us.get()));
        (!self.manual)
            .then(|| self.start.checked_add(after))
            .flatten()
    }

    /// Moves the clock ahead by `us`.
    fn push(&self, us: u64) {
        self.ahead_us.set(self.ahead_us.get() + us);
    }

    /// Moves the clock ahead to `t_us` if it is behind (a cluster control
    /// that ran the simulation's time forward).
    fn catch_up(&self, t_us: u64) {
        let now = self.now_us();
        if t_us > now {
            self.push(t_us - now);
        }
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
    /// Microseconds of virtual time: the engines' clocks follow it.
    fn now_us(&self) -> u64 {
        self.clock.now_us()
    }

    /// When a reply to client `id` of `node` may go out.
    fn reply_due(&self, node: usize, id: ClientId) -> Option<Instant> {
        let faults = self.faults.borrow();
        let name = self
            .host
            .borrow()
            .engine(node)
            .client(id)
            .and_then(|c| c.name.clone());
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

/// The wall clock in Unix µs: what the engines' virtual time 0 (or, for a
/// cluster, its time once booted) stands for. Under a manual clock it is
/// taken at a whole second, so a test's run replays exactly: with the wall's
/// odd microseconds, the small CPU costs commands add would cross a
/// millisecond (and change a PTTL or an expiry) in some runs and not others.
fn unix_now_us(clock: ClockMode) -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0);
    match clock {
        ClockMode::Manual => now - now % 1_000_000,
        ClockMode::Wall => now,
    }
}

fn new_shared(mut host: Host, clock: ClockMode, addrs: Vec<Vec<SocketAddr>>) -> Rc<Shared> {
    let ahead = host.now_us();
    let port_mover = match (&mut host, addrs.first()) {
        (Host::Single(engine), Some(node)) => {
            let mover = std::sync::Arc::new(port::PortMover::new(node));
            engine.set_listener(mover.clone());
            Some(mover)
        }
        _ => {
            for node in 0..host.nodes() {
                host.engine_mut(node)
                    .set_listener(std::sync::Arc::new(port::Fixed));
            }
            None
        }
    };
    Rc::new(Shared {
        host: RefCell::new(host),
        clock: ServerClock {
            start: Instant::now(),
            manual: clock == ClockMode::Manual,
            ahead_us: Cell::new(ahead),
        },
        faults: RefCell::new(Faults::default()),
        peers: RefCell::new(BTreeMap::new()),
        ticker_wake: Notify::new(),
        shut_down: Notify::new(),
        listening: RefCell::new(
            addrs
                .into_iter()
                .map(|addrs| NodeListeners {
                    addrs,
                    accepting: Vec::new(),
                })
                .collect(),
        ),
        port_mover,
    })
}

/// Carries out what a CONFIG SET of `bind` or `port` asked for, before its
/// reply goes out: the accept loops of addresses no longer served stop and
/// their sockets are closed (a client told OK finds them refused, as after
/// Redis' `changeListener`), and the sockets the command bound are served.
async fn move_port(shared: &Rc<Shared>) {
    let Some(moved) = shared.port_mover.as_ref().and_then(|p| p.take()) else {
        return;
    };
    let mut stopped = Vec::new();
    {
        let mut listening = shared.listening.borrow_mut();
        let Some(node) = listening.first_mut() else {
            return;
        };
        let (kept, gone): (Vec<_>, Vec<_>) = std::mem::take(&mut node.accepting)
            .into_iter()
            .partition(|(addr, _)| moved.keep.contains(addr));
        for (_, task) in gone {
            task.abort();
            stopped.push(task);
        }
        node.accepting = kept;
        for socket in moved.new {
            let addr = socket.local_addr();
            match (addr, TcpListener::from_std(socket)) {
                (Ok(addr), Ok(l)) => {
                    let task = tokio::task::spawn_local(accept_loop(shared.clone(), l, 0));
                    node.accepting.push((addr, task));
                }
                (Err(e), _) | (_, Err(e)) => eprintln!("redsim: cannot serve a new address: {e}"),
            }
        }
        // What a node back up (after SHUTDOWN in a test) would listen on again.
        node.addrs = node.accepting.iter().map(|(a, _)| *a).collect();
    }
    // An aborted accept loop drops its socket when the runtime next reaches it.
    for task in stopped {
        let _ = task.await;
    }
}

/// The one engine of `redsim server`, its Unix epoch set from the wall clock.
fn single_host(opts: &ServerOptions) -> Host {
    let mut engine = Engine::with_options(Options {
        seed: opts.seed,
        config: opts.config.clone(),
        trace_capacity: opts.trace_capacity,
    });
    engine.set_unix_base_us(unix_now_us(opts.clock));
    // Its log goes where `logfile` says, as redis-server's does.
    engine.keep_log(true);
    // `ACLLoadUsersAtStartup`: a broken ACL file stops the server.
    if let Err(e) = engine.set_file_store(std::sync::Arc::new(DiskFiles)) {
        eprintln!("{e}");
        eprintln!("Aborting Redis startup.");
        std::process::exit(1);
    }
    // The configuration file CONFIG REWRITE updates, and its users (their
    // rules were checked as the file was read).
    if let Some(path) = &opts.config_file {
        engine.set_config_file(path);
    }
    engine.set_renames(opts.renames.clone());
    if let Err((i, e)) = engine.load_config_users(&opts.user_words()) {
        eprintln!(
            "Error loading the users of line {}: {e}",
            opts.users[i].linenum
        );
        std::process::exit(1);
    }
    // MIGRATE's sockets to other servers.
    engine.set_migrate_links(std::sync::Arc::new(
        crate::migrate_links::TcpLinks::default(),
    ));
    // SYNC and PSYNC: real replicas, `redis-cli --rdb` and `--replica`.
    engine.accept_socket_replicas(true);
    Host::Single(Box::new(engine))
}

/// The engine's named files (`aclfile`) on this machine's disk.
struct DiskFiles;

impl redsim_engine::acl::FileStore for DiskFiles {
    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        std::fs::read(path).map_err(|e| os_error_text(&e))
    }

    fn check_dir(&self, path: &str) -> Result<(), String> {
        crate::oserror::check_dir(path)
    }

    /// Written to a temporary file and renamed over the old one, as ACL
    /// SAVE does, so a reader never sees half a file.
    fn write(&self, path: &str, data: &[u8]) -> Result<(), String> {
        let tmp = format!("{path}.tmp-{}", std::process::id());
        std::fs::write(&tmp, data)
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                os_error_text(&e)
            })
    }
}

/// Binds every address of `--bind` on `--port` (0: a free port, the same
/// for every address). `*` means all IPv4 interfaces, `::*` all IPv6 ones,
/// and a leading `-` makes an address optional, as in redis-server.
fn bind_all(opts: &ServerOptions) -> io::Result<Vec<StdListener>> {
    bind_port(&opts.config.bind, opts.config.port)
}

/// One address of `bind` at `port`: whether it may be missing (a leading
/// `-`), and the socket address (`*` is every IPv4 interface, `::*` every
/// IPv6 one).
fn resolve(spec: &str, port: u16) -> (bool, io::Result<SocketAddr>) {
    let (optional, host) = match spec.strip_prefix('-') {
        Some(h) => (true, h),
        None => (false, spec),
    };
    let host = match host {
        "*" => "0.0.0.0",
        "::*" => "::",
        h => h,
    };
    let addr = (host, port).to_socket_addrs().and_then(|mut addrs| {
        addrs
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::AddrNotAvailable, "no address"))
    });
    (optional, addr)
}

fn bind_port(bind: &str, mut port: u16) -> io::Result<Vec<StdListener>> {
    let mut listeners = Vec::new();
    for spec in bind.split_whitespace() {
        let (optional, addr) = resolve(spec, port);
        let host = spec.trim_start_matches('-');
        let bound = addr.and_then(StdListener::bind);
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

/// Serves each node's listeners until `stop` resolves (or forever).
async fn serve(
    shared: Rc<Shared>,
    listeners: Vec<Vec<StdListener>>,
    stop: impl std::future::Future<Output = ()>,
) -> io::Result<()> {
    for (node, ls) in listeners.into_iter().enumerate() {
        for l in ls {
            let addr = l.local_addr()?;
            let task = tokio::task::spawn_local(accept_loop(
                shared.clone(),
                TcpListener::from_std(l)?,
                node,
            ));
            shared.listening.borrow_mut()[node]
                .accepting
                .push((addr, task));
        }
    }
    let ticker = tokio::task::spawn_local(cron_ticker(shared.clone()));
    stop.await;
    ticker.abort();
    for node in shared.listening.borrow_mut().iter_mut() {
        for (_, a) in node.accepting.drain(..) {
            a.abort();
        }
    }
    Ok(())
}

async fn accept_loop(shared: Rc<Shared>, listener: TcpListener, node: usize) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) if shared.faults.borrow().refuse => drop(stream),
            Ok((stream, peer)) => {
                tokio::task::spawn_local(conn::connection(shared.clone(), stream, peer, node));
            }
            Err(e) => {
                // Out of file descriptors and the like: Redis logs and keeps going.
                eprintln!("redsim: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Makes the listeners follow the nodes: a node that went down stops
/// accepting (connecting is refused, as to a dead process) and its clients
/// are disconnected; a node back up listens on its addresses again.
/// Returns once the dead nodes' listening sockets are closed.
async fn sync_nodes(shared: &Rc<Shared>) {
    let mut stopped = Vec::new();
    {
        let host = shared.host.borrow();
        let mut listening = shared.listening.borrow_mut();
        sync_listeners(shared, &host, &mut listening, &mut stopped);
    }
    // An aborted accept loop drops its socket when the runtime next
    // reaches it: wait for that, so a test's next connect is refused.
    for task in stopped {
        let _ = task.await;
    }
}

fn sync_listeners(
    shared: &Rc<Shared>,
    host: &Host,
    listening: &mut [NodeListeners],
    stopped: &mut Vec<JoinHandle<()>>,
) {
    for (node, l) in listening.iter_mut().enumerate() {
        let down = host.is_down(node);
        if down && !l.accepting.is_empty() {
            for (_, a) in l.accepting.drain(..) {
                a.abort();
                stopped.push(a);
            }
            for ((n, _), peer) in shared.peers.borrow().iter() {
                if *n == node {
                    peer.close.notify_one();
                }
            }
        } else if !down && l.accepting.is_empty() {
            for addr in &l.addrs {
                let bound = StdListener::bind(addr).and_then(|s| {
                    s.set_nonblocking(true)?;
                    TcpListener::from_std(s)
                });
                match bound {
                    Ok(listener) => l.accepting.push((
                        *addr,
                        tokio::task::spawn_local(accept_loop(shared.clone(), listener, node)),
                    )),
                    Err(e) => eprintln!("redsim: node {node} cannot listen on {addr} again: {e}"),
                }
            }
        }
    }
}

/// Wakes when the next cron tick is due (every 1000/hz ms), a blocked
/// client's deadline or a cluster bus step, whichever is sooner, and moves
/// the clock there, so keys expire actively while no client talks,
/// timed-out clients get their reply on time and a cluster notices a dead
/// node by itself.
async fn cron_ticker(shared: Rc<Shared>) {
    loop {
        let due_us = shared.host.borrow().next_due_us();
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
            let mut host = shared.host.borrow_mut();
            guarded("server cron", || host.advance_to(now)).is_ok()
        };
        conn::deliver_unblocked(&shared);
        if !ok {
            // Do not spin on a tick that keeps panicking.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// [`bind_all`], then the addresses bound and the options with the port
/// actually bound (`--port 0` picks one), which the server reports as its own.
fn bind(mut opts: ServerOptions) -> io::Result<(ServerOptions, Vec<StdListener>, Vec<SocketAddr>)> {
    let listeners = bind_all(&opts)?;
    let addrs = local_addrs(&listeners)?;
    opts.config.port = addrs.first().map_or(opts.config.port, |a| a.port());
    Ok((opts, listeners, addrs))
}

fn local_addrs(listeners: &[StdListener]) -> io::Result<Vec<SocketAddr>> {
    listeners.iter().map(|l| l.local_addr()).collect()
}

/// Binds one listener per node: `base` and the ports after it, or free
/// ports when `base` is 0. Only the first address of `--bind` is used: it
/// is the one nodes announce to clients.
fn bind_nodes(opts: &ServerOptions, base: u16, nodes: usize) -> io::Result<Vec<StdListener>> {
    let bind = opts
        .config
        .bind
        .split_whitespace()
        .next()
        .unwrap_or("127.0.0.1");
    let bind = bind.trim_start_matches('-');
    (0..nodes)
        .map(|i| {
            let port = if base == 0 {
                0
            } else {
                base.wrapping_add(i as u16)
            };
            let mut ls = bind_port(bind, port)?;
            Ok(ls.remove(0))
        })
        .collect()
}

/// A simulated cluster of `masters` masters with `replicas` replicas each,
/// booted and ready, its node `i` announcing the address of listener `i`.
fn cluster_host(
    opts: &ServerOptions,
    masters: usize,
    replicas: usize,
    addrs: &[SocketAddr],
) -> Host {
    let mut sim = SimOptions::new(opts.seed, masters);
    sim.replicas_per_master = replicas;
    sim.ports = addrs.iter().map(|a| a.port()).collect();
    sim.config = opts.config.clone();
    sim.trace_capacity = opts.trace_capacity;
    // The cluster boots in virtual time before it is served: its instant
    // "ready" is now on the wall.
    sim.unix_base_us = Some(unix_now_us(opts.clock).saturating_sub(redsim_sim::cluster::READY_US));
    Host::Cluster(Box::new(Cluster::new(sim)))
}

/// Starts the server thread for `host` on `listeners` (by node).
fn spawn_host(
    make_host: impl FnOnce() -> Host + Send + 'static,
    clock: ClockMode,
    listeners: Vec<Vec<StdListener>>,
) -> io::Result<RunningServer> {
    let node_addrs = listeners
        .iter()
        .map(|ls| local_addrs(ls))
        .collect::<io::Result<Vec<_>>>()?;
    let addrs: Vec<SocketAddr> = node_addrs.iter().flatten().copied().collect();
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
            let shared = new_shared(make_host(), clock, node_addrs);
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

/// Binds the listeners now (so a bind error is returned here) and serves
/// on a background thread until the handle is dropped.
pub fn spawn(opts: ServerOptions) -> io::Result<RunningServer> {
    let (opts, listeners, _) = bind(opts)?;
    let clock = opts.clock;
    spawn_host(move || single_host(&opts), clock, vec![listeners])
}

/// A simulated cluster served on a background thread, node `i` on the
/// `i`-th address of the handle (masters first, then replicas in order).
pub fn spawn_cluster(
    opts: ServerOptions,
    masters: usize,
    replicas: usize,
) -> io::Result<RunningServer> {
    let listeners = bind_nodes(&opts, opts.config.port, masters * (1 + replicas))?;
    let addrs = local_addrs(&listeners)?;
    let clock = opts.clock;
    spawn_host(
        move || cluster_host(&opts, masters, replicas, &addrs),
        clock,
        listeners.into_iter().map(|l| vec![l]).collect(),
    )
}

/// Binds a topology's nodes (from `--port`) and its sentinels (from the
/// setup's sentinel port), and makes the host that serves them.
fn sentinel_parts(
    opts: &ServerOptions,
    setup: SentinelSetup,
) -> io::Result<(Vec<StdListener>, impl FnOnce() -> Host + Send + 'static)> {
    let nodes = setup.topology.replicas.clamp(1, 4) + 1;
    let sentinels = setup.topology.sentinels.clamp(1, 7);
    let mut listeners = bind_nodes(opts, opts.config.port, nodes)?;
    listeners.extend(bind_nodes(opts, setup.sentinel_port, sentinels)?);
    let text: Vec<String> = local_addrs(&listeners)?
        .iter()
        .map(|a| a.to_string())
        .collect();
    let seed = opts.seed;
    let base_us = unix_now_us(opts.clock);
    let make = move || {
        let mut setup = setup;
        setup.topology.seed = seed;
        Host::Sentinel(Box::new(sentinel::SentinelHost::new(
            setup,
            text[..nodes].to_vec(),
            text[nodes..].to_vec(),
            seed,
            base_us,
        )))
    };
    Ok((listeners, make))
}

/// A replicated topology and its sentinels served on a background thread:
/// the Redis nodes (`0..=replicas`, node 0 the first master) on the first
/// addresses of the handle, then one per sentinel.
pub fn spawn_sentinel(opts: ServerOptions, setup: SentinelSetup) -> io::Result<RunningServer> {
    let (listeners, make) = sentinel_parts(&opts, setup)?;
    let per_node = listeners.into_iter().map(|l| vec![l]).collect();
    spawn_host(make, opts.clock, per_node)
}

/// Runs a topology and its sentinels in the foreground (`redsim sentinel`).
pub fn run_sentinel(opts: ServerOptions, setup: SentinelSetup) -> io::Result<()> {
    let name = setup.master_name.clone();
    let nodes = setup.topology.replicas.clamp(1, 4) + 1;
    let (listeners, make) = sentinel_parts(&opts, setup)?;
    let addrs = local_addrs(&listeners)?;
    let shown = |a: &[SocketAddr]| {
        a.iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "redsim {} (Redis {} semantics) master '{name}' and replicas ready on {}; sentinels on {} (seed {})",
        env!("CARGO_PKG_VERSION"),
        redsim_engine::REDIS_VERSION,
        shown(&addrs[..nodes]),
        shown(&addrs[nodes..]),
        opts.seed,
    );
    let node_addrs = addrs.iter().map(|a| vec![*a]).collect();
    let shared = new_shared(make(), opts.clock, node_addrs);
    foreground(shared, listeners.into_iter().map(|l| vec![l]).collect())
}

/// Runs the server in the foreground (the `redsim server` command) until the
/// process is killed.
pub fn run(opts: ServerOptions) -> io::Result<()> {
    let (opts, listeners, addrs) = bind(opts)?;
    let shown: Vec<String> = addrs.iter().map(|a| a.to_string()).collect();
    println!(
        "redsim {} (Redis {} semantics) ready to accept connections on {} (seed {}, hz {})",
        env!("CARGO_PKG_VERSION"),
        redsim_engine::REDIS_VERSION,
        shown.join(", "),
        opts.seed,
        opts.config.hz
    );
    let host = single_host(&opts);
    foreground(new_shared(host, opts.clock, vec![addrs]), vec![listeners])
}

/// Runs a simulated cluster in the foreground (the `redsim cluster` command).
pub fn run_cluster(opts: ServerOptions, masters: usize, replicas: usize) -> io::Result<()> {
    let listeners = bind_nodes(&opts, opts.config.port, masters * (1 + replicas))?;
    let addrs = local_addrs(&listeners)?;
    let host = cluster_host(&opts, masters, replicas, &addrs);
    let shown: Vec<String> = addrs.iter().map(|a| a.to_string()).collect();
    println!(
        "redsim {} (Redis {} semantics) cluster of {masters} masters with {replicas} replicas each ready on {} (seed {})",
        env!("CARGO_PKG_VERSION"),
        redsim_engine::REDIS_VERSION,
        shown.join(", "),
        opts.seed,
    );
    let node_addrs = addrs.iter().map(|a| vec![*a]).collect();
    let shared = new_shared(host, opts.clock, node_addrs);
    foreground(shared, listeners.into_iter().map(|l| vec![l]).collect())
}

fn foreground(shared: Rc<Shared>, listeners: Vec<Vec<StdListener>>) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = LocalSet::new();
    // A standalone server exits on SHUTDOWN, as redis-server does; a
    // cluster's or topology's nodes stop one at a time instead.
    let single = shared.host.borrow().nodes() == 1;
    let stop = {
        let shared = shared.clone();
        async move {
            if single {
                shared.shut_down.notified().await;
            } else {
                std::future::pending::<()>().await;
            }
        }
    };
    local.block_on(&rt, serve(shared, listeners, stop))
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
