//! Per-connection state that commands can see: selected database, protocol, name, open transaction, subscriptions.

/// Identifies a connected client.
pub type ClientId = u64;

/// What Redis keeps per connection that commands can see.
#[derive(Clone, Debug)]
pub struct Client {
    pub id: ClientId,
    /// Selected database.
    pub db: usize,
    /// Protocol version: 2 or 3 (HELLO).
    pub resp: u8,
    /// CLIENT SETNAME.
    pub name: Option<String>,
    /// Virtual time of connection, µs.
    pub created_us: u64,
    /// Virtual time of the last command, µs.
    pub last_interaction_us: u64,
    /// Set by QUIT: the driver closes the connection after replying.
    pub close_after_reply: bool,
    /// Open transaction (after MULTI).
    pub multi: Option<MultiState>,
    /// Pub/Sub channels, patterns and shard channels it listens to.
    pub subs: crate::pubsub::subscriptions::Subscriptions,
    /// The replication offset after its last write (`c->woff`): what WAIT waits for.
    pub repl_woff: u64,
    /// AOF records appended when its last command ended: what WAITAOF's
    /// local acknowledgement waits to see fsynced.
    pub aof_woff: u64,
    /// CLIENT REPLY, CLIENT NO-TOUCH and CLIENT NO-EVICT.
    pub modes: ClientModes,
    /// The ACL user it runs as (`c->user`), by name; `None` for an internal
    /// client that may run anything.
    pub user: Option<String>,
    /// `c->authenticated`: set on connect when the default user needs no
    /// password, and by a successful AUTH or HELLO AUTH.
    pub authenticated: bool,
    /// The command it runs now, as read off the wire (CLIENT LIST's
    /// `qbuf`, `argv-mem`).
    pub current: super::client_bufs::CommandBytes,
    /// The transaction EXEC is running, as CLIENT LIST shows it meanwhile.
    pub exec: Option<ExecView>,
    /// What REPLCONF announced, and whether SYNC or PSYNC made it a replica.
    pub replconf: ReplConf,
}

/// A connection's replication settings (`c->slave_listening_port`,
/// `slave_addr`, `slave_capa`, `CLIENT_REPL_RDBONLY`, `CLIENT_SLAVE`).
#[derive(Clone, Debug, Default)]
pub struct ReplConf {
    /// REPLCONF listening-port (0 when never announced).
    pub listening_port: i64,
    /// REPLCONF ip-address.
    pub ip: Option<String>,
    /// REPLCONF capa eof / psync2.
    pub capa_eof: bool,
    pub capa_psync2: bool,
    /// REPLCONF rdb-only 1: the RDB file, then the connection closes.
    pub rdb_only: bool,
    /// REPLCONF rdb-filter-only: what the RDB file leaves out (everything
    /// but the filters named, of which only `functions` exists).
    pub rdb_exclude_data: bool,
    pub rdb_exclude_functions: bool,
    /// SYNC or PSYNC ran: the connection is a replica (`CLIENT_SLAVE`).
    pub replica: bool,
}

/// A transaction while EXEC runs it: Redis keeps `mstate` (and the `x`
/// flag) until EXEC ends, and the replies so far wait in the reply buffer.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExecView {
    /// `mstate.count`, `argv_len_sums` and `alloc_count`.
    pub queue: (usize, usize, usize),
    /// Bytes of EXEC's reply written so far (`bufpos`).
    pub replied: usize,
}

impl Client {
    /// A fresh connection at virtual time `now_us`: database 0, RESP2, the
    /// default user (authenticated when `authenticated`: it needs no password).
    pub fn new(id: ClientId, now_us: u64, authenticated: bool) -> Client {
        Client {
            id,
            db: 0,
            resp: 2,
            name: None,
            created_us: now_us,
            last_interaction_us: now_us,
            close_after_reply: false,
            multi: None,
            subs: Default::default(),
            repl_woff: 0,
            aof_woff: 0,
            modes: ClientModes::default(),
            user: Some("default".into()),
            authenticated,
            current: Default::default(),
            exec: None,
            replconf: ReplConf::default(),
        }
    }

    /// True when the reply to the command just run must not be written
    /// (CLIENT REPLY OFF, or SKIP for this one command). Pushes, such as
    /// Pub/Sub messages and invalidations, still go out, as Redis lets
    /// `CLIENT_PUSHING` replies through.
    pub fn reply_silenced(&self) -> bool {
        self.modes.silenced
    }
}

/// The per-connection switches of CLIENT REPLY / NO-TOUCH / NO-EVICT
/// (Redis' `CLIENT_REPLY_*`, `CLIENT_NO_TOUCH`, `CLIENT_NO_EVICT` flags).
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientModes {
    /// CLIENT REPLY OFF.
    pub reply_off: bool,
    /// CLIENT REPLY SKIP was the last command: the next reply is dropped.
    pub reply_skip_next: bool,
    /// The reply of the command now running is dropped (`CLIENT_REPLY_SKIP`).
    pub reply_skip: bool,
    /// Set after each command: its reply was dropped.
    pub silenced: bool,
    /// CLIENT NO-TOUCH ON: reads leave keys' LRU/LFU alone.
    pub no_touch: bool,
    /// CLIENT NO-EVICT ON (shown in CLIENT LIST; client eviction is not modelled).
    pub no_evict: bool,
}

/// What a client in MULTI has queued (`multiState`).
#[derive(Clone, Debug, Default)]
pub struct MultiState {
    /// Queued commands, validated at queue time and resolved again at EXEC.
    pub queued: Vec<Vec<Vec<u8>>>,
    /// A command was rejected while queueing (`CLIENT_DIRTY_EXEC`): EXEC aborts.
    pub dirty_exec: bool,
    /// `mstate.argv_len_sums`: each queued command's argument bytes plus a
    /// pointer per argument (CLIENT LIST's `multi-mem`).
    pub argv_len_sums: usize,
}

impl MultiState {
    /// `queueMultiCommand`.
    pub fn queue(&mut self, args: &[Vec<u8>]) {
        self.argv_len_sums += args.iter().map(Vec::len).sum::<usize>() + 8 * args.len();
        self.queued.push(args.to_vec());
    }

    /// `mstate.alloc_count`: room for 2 commands at first, doubled when full.
    pub fn alloc_count(&self) -> usize {
        match self.queued.len() {
            0 => 0,
            n => n.next_power_of_two().max(2),
        }
    }
}

/// What CLIENT LIST shows of one connection. The engine creates it on
/// connect and refreshes it after each command; a driver with real sockets
/// may fill in `addr`, `laddr` and `fd` (left empty and -1, as Redis shows
/// connection-less clients).
#[derive(Clone, Debug)]
pub struct ClientEntry {
    pub addr: String,
    pub laddr: String,
    pub fd: i64,
    pub name: Option<String>,
    pub lib_name: Option<String>,
    pub lib_ver: Option<String>,
    pub db: usize,
    pub resp: u8,
    pub created_us: u64,
    pub last_interaction_us: u64,
    pub closing: bool,
    /// Last command as (name, subcommand or ""); "NULL" before the first.
    pub last_cmd: (&'static str, &'static str),
    /// CLIENT NO-EVICT and NO-TOUCH, for the `e` and `T` flags.
    pub modes: ClientModes,
    /// In MULTI (flag `x`).
    pub multi: bool,
    /// Commands queued in MULTI, `multi-mem` and the queue's allocated
    /// slots (`mstate.count`, `argv_len_sums`, `alloc_count`).
    pub multi_queue: (usize, usize, usize),
    /// Bytes of a running EXEC's reply written so far (part of `obl`).
    pub exec_replied: usize,
    /// Bytes its driver read and has not handed to the engine: a
    /// pipeline's rest while a command runs ([`crate::Engine::set_pending_input`]
    /// writes it; this is its only copy).
    pub pending_input: usize,
    /// Channels, patterns and shard channels subscribed to (`sub`, `psub`,
    /// `ssub`). Kept current after every command, as is `resp`, since
    /// tracking reads both for any client.
    pub subs: [usize; 3],
    /// Its query and reply buffers.
    pub bufs: super::client_bufs::ClientBufs,
    /// The ACL user (`user=`).
    pub user: String,
}

impl ClientEntry {
    /// In Pub/Sub mode (`CLIENT_PUBSUB`): a RESP2 redirection target of
    /// client-side caching hears invalidations only then.
    pub fn subscribed(&self) -> bool {
        self.subs.iter().any(|&n| n > 0)
    }

    /// Brings the protocol and Pub/Sub state up to date after each command
    /// (the rest waits for [`ClientEntry::sync`]).
    #[inline]
    pub fn sync_proto(&mut self, c: &Client) {
        self.resp = c.resp;
        self.subs = c.subs.counts();
    }

    /// A new connection's entry.
    pub fn of(c: &Client) -> ClientEntry {
        ClientEntry {
            addr: String::new(),
            laddr: String::new(),
            fd: -1,
            name: c.name.clone(),
            lib_name: None,
            lib_ver: None,
            db: c.db,
            resp: c.resp,
            created_us: c.created_us,
            last_interaction_us: c.last_interaction_us,
            closing: c.close_after_reply,
            last_cmd: ("NULL", ""),
            modes: c.modes,
            multi: c.multi.is_some() || c.exec.is_some(),
            multi_queue: multi_queue(c),
            exec_replied: c.exec.map_or(0, |x| x.replied),
            pending_input: 0,
            subs: c.subs.counts(),
            bufs: Default::default(),
            user: c.user.clone().unwrap_or_default(),
        }
    }

    /// Brings the entry up to date after its connection ran `last_cmd`.
    pub fn sync(&mut self, c: &Client, last_cmd: (&'static str, &'static str)) {
        self.db = c.db;
        self.resp = c.resp;
        self.last_interaction_us = c.last_interaction_us;
        self.closing = c.close_after_reply;
        self.last_cmd = last_cmd;
        self.modes = c.modes;
        self.multi = c.multi.is_some() || c.exec.is_some();
        self.multi_queue = multi_queue(c);
        self.exec_replied = c.exec.map_or(0, |x| x.replied);
        self.subs = c.subs.counts();
        if self.name != c.name {
            self.name.clone_from(&c.name);
        }
        if let Some(u) = &c.user {
            if *u != self.user {
                self.user.clone_from(u);
            }
        }
    }
}

fn multi_queue(c: &Client) -> (usize, usize, usize) {
    match (&c.multi, c.exec) {
        (Some(m), _) => (m.queued.len(), m.argv_len_sums, m.alloc_count()),
        (None, Some(x)) => x.queue,
        (None, None) => (0, 0, 0),
    }
}

/// `connIsLocal`: a client on loopback, or one without an address (in
/// process: the browser console's, a test's).
pub(crate) fn is_local(entries: &crate::idmap::IdMap<ClientEntry>, id: ClientId) -> bool {
    entries.get(&id).is_none_or(|e| {
        e.addr.is_empty() || e.addr.starts_with("127.") || e.addr.starts_with("[::1]")
    })
}

/// `allowProtectedAction`: `setting` (enable-debug-command,
/// enable-module-command or enable-protected-configs) is `yes`, or `local`
/// and the client is local ([`is_local`]).
pub(crate) fn protected_allowed(setting: &str, local: bool) -> bool {
    setting == "yes" || (setting == "local" && local)
}
