//! What drivers of several engines call: the replication link (stream, PSYNC, acks), crashes and restarts, the cluster bus, and configuration and connection details set from outside a client.
//!
//! The engine has no sockets. A driver (the native server, the simulated
//! world) carries replication ops and cluster-bus changes between engines
//! with its own delays, through these methods and nothing else.

use super::{cron_period_us, Engine, Options};
use crate::cluster::ClusterState;
use crate::keyspace::object::Value;
use crate::proto::resp::Frame;
use crate::server::trace::{Actor, DeleteCause};

/// A key as the modelled MIGRATE carries it: its value, absolute expiry
/// and the bytes it accounts for (what `DUMP` would serialise).
#[derive(Clone, Debug)]
pub struct KeyDump {
    value: Value,
    expire_at_ms: Option<i64>,
    /// `MEMORY USAGE` of the key.
    pub bytes: u64,
}

/// Where a connection comes from, as CLIENT LIST shows it.
#[derive(Clone, Debug, Default)]
pub struct ClientOrigin {
    /// The peer's `ip:port`.
    pub addr: String,
    /// The local `ip:port` it connected to.
    pub laddr: String,
    pub fd: i64,
}

impl Engine {
    /// Stream ops produced since the last call (master side): the driver
    /// carries them to replicas with its links' delays.
    pub fn take_repl_stream(&mut self) -> Vec<crate::repl::ReplOp> {
        crate::repl::propagate(&mut self.srv, None);
        self.srv.repl.take_outbox()
    }

    /// A replica applies ops from its master, in order.
    pub fn apply_repl(&mut self, ops: &[crate::repl::ReplOp]) {
        self.srv.actor = Actor::Server;
        if let crate::repl::Role::Replica {
            last_io_ms, state, ..
        } = &mut self.srv.repl.role
        {
            *last_io_ms = self.srv.clock.unix_us() as i64 / 1000;
            *state = crate::repl::LinkState::Connected;
        }
        for op in ops {
            crate::repl::apply(&mut self.srv, op);
        }
        self.handle_blocked_clients();
    }

    /// The master side of `PSYNC`: registers replica `addr` (its announced
    /// `ip:port`) and answers with a partial or full resync.
    pub fn psync(&mut self, addr: &str, replid: &str, offset: u64) -> crate::repl::Sync {
        crate::repl::psync(&mut self.srv, addr, replid, offset)
    }

    /// The replica side of a resync: loads a snapshot (full) or applies the
    /// missing ops (partial), and marks the link up.
    pub fn finish_sync(&mut self, sync: &crate::repl::Sync) {
        match sync {
            crate::repl::Sync::Full {
                replid,
                offset,
                snapshot,
            } => crate::repl::load_full(&mut self.srv, replid, *offset, snapshot),
            crate::repl::Sync::Partial(ops) => self.apply_repl(ops),
        }
    }

    /// What a replica sends in PSYNC: its history's ID and the next byte it needs.
    pub fn psync_request(&self) -> (String, u64) {
        (self.srv.repl.replid.clone(), self.srv.repl.offset + 1)
    }

    /// Marks a replica's link to its master down (a cut link, a dead master).
    pub fn master_link_down(&mut self) {
        let now_ms = self.srv.now_ms();
        if let crate::repl::Role::Replica {
            state,
            down_since_ms,
            ..
        } = &mut self.srv.repl.role
        {
            if *state != crate::repl::LinkState::Connect {
                *state = crate::repl::LinkState::Connect;
                *down_since_ms = Some(now_ms);
            }
        }
    }

    /// The master forgets replica `addr` (its link dropped).
    pub fn replica_gone(&mut self, addr: &str) {
        for r in &mut self.srv.repl.replicas {
            if r.addr == addr {
                r.online = false;
            }
        }
    }

    /// `REPLCONF ACK offset` from replica `addr`: records it, and answers
    /// every WAIT that now has enough acknowledgements.
    pub fn replica_ack(&mut self, addr: &str, offset: u64) {
        let now_ms = self.srv.now_ms();
        if let Some(r) = self.srv.repl.replicas.iter_mut().find(|r| r.addr == addr) {
            r.ack_offset = r.ack_offset.max(offset);
            r.last_ack_ms = now_ms;
            r.online = true;
        }
        self.serve_replica_waits();
    }

    /// The keyspace and function libraries as an RDB file, as SAVE would
    /// write `dump.rdb` (Redis 7.2's version 11, which Redis 7.2 and later
    /// and Valkey load): a dataset to take to a real server.
    pub fn rdb_file(&self) -> Vec<u8> {
        crate::persist::rdb::file::write(&self.srv, crate::persist::rdb::file::Parts::ALL, None)
    }

    /// Lets clients become replicas with SYNC or PSYNC (a driver with sockets:
    /// the native server). Their stream then comes from
    /// [`Engine::take_socket_writes`], so the driver must not also take
    /// [`Engine::take_repl_stream`].
    pub fn accept_socket_replicas(&mut self, on: bool) {
        self.srv.repl.sockets.allowed = on;
    }

    /// Bytes due to socket replicas' connections, in order: the RDB file
    /// after a full sync's reply, then the stream as commands, pings and
    /// `REPLCONF GETACK`s. A driver calls it after every command and tick.
    pub fn take_socket_writes(&mut self) -> Vec<(crate::server::client::ClientId, Vec<u8>)> {
        crate::repl::socket::feed(&mut self.srv);
        std::mem::take(&mut self.srv.repl.sockets.out)
    }

    /// True once since a WAIT blocked: the driver should ask replicas for an
    /// ACK (`REPLCONF GETACK`) instead of waiting for their next periodic one.
    pub fn take_ack_request(&mut self) -> bool {
        std::mem::take(&mut self.srv.repl.ack_requested)
    }

    /// A crash and restart: a new engine with the same seed and config,
    /// its clock where this one's is, loaded from what the files held after
    /// `crash` (the AOF when on, else the last RDB file). Clients are gone.
    pub fn crash_restart(&self, crash: crate::persist::Crash) -> Engine {
        let (snapshot, ops) = crate::persist::recover(&self.srv, crash);
        let opts = Options {
            seed: self.srv.seed,
            config: self.srv.config.clone(),
            trace_capacity: self.srv.trace.capacity(),
        };
        let mut e = Engine::with_options(opts);
        let base = self.srv.clock.unix_us() - self.srv.clock.now_us();
        e.set_unix_base_us(base);
        e.srv.clock.set(self.srv.clock.now_us());
        e.srv.next_cron_us = self.srv.clock.now_us() + cron_period_us(&e.srv);
        e.srv.lruclock = e.srv.lru_clock_now();
        crate::persist::load(&mut e.srv, snapshot.as_ref(), &ops);
        // The loaded files are the new AOF's base / the last RDB.
        e.srv.persist.rdb = self.srv.persist.rdb.clone();
        e.srv.files = self.srv.files.clone();
        e.srv.config_file = self.srv.config_file.clone();
        crate::persist::sync_config(&mut e.srv);
        e
    }

    /// `CONFIG SET name value` without a client: the same checks, errors
    /// (the text after `ERR`) and side effects.
    pub fn config_set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let pair = (name.as_bytes(), value.as_bytes());
        crate::cmd::server::set_params(&mut self.srv, &[pair], true).map_err(|e| match e {
            Frame::Error(text) => text.strip_prefix("ERR ").unwrap_or(&text).to_string(),
            other => format!("{other:?}"),
        })
    }

    /// Installs where `aclfile` is read and written (a driver with a disk
    /// passes its files; the default keeps them in memory), then loads the
    /// ACL file if one is configured, as Redis does at startup. The error
    /// is ACL LOAD's.
    pub fn set_file_store(
        &mut self,
        store: std::sync::Arc<dyn crate::acl::FileStore>,
    ) -> Result<(), String> {
        self.srv.files = store;
        if self.srv.config.aclfile.is_empty() {
            return Ok(());
        }
        crate::cmd::acl::load_file(&crate::cmd::REGISTRY, &mut self.srv)
    }

    /// The configuration's `rename-command` lines, checked as they were
    /// read ([`Renames::rename`](crate::server::renames::Renames::rename)): from now on
    /// clients, MULTI and scripts call the renamed commands by their new
    /// names only.
    pub fn set_renames(&mut self, renames: crate::server::renames::Renames) {
        self.srv.renames = renames;
    }

    /// Names the configuration file the server was started with (an
    /// absolute path, read and written through the file store): INFO shows
    /// it, and CONFIG REWRITE updates it instead of refusing.
    pub fn set_config_file(&mut self, path: &str) {
        self.srv.config_file = path.to_string();
    }

    /// Sets the users a configuration file declares (`user alice on >pw
    /// ~* +@all`: the words after `user`), as Redis does at startup. The
    /// error gives the failing line's index and ACL SETUSER's reason.
    pub fn load_config_users(&mut self, users: &[Vec<Vec<u8>>]) -> Result<(), (usize, String)> {
        crate::cmd::acl::load_config_users(&crate::cmd::REGISTRY, &mut self.srv, users)
    }

    /// Installs the connections MIGRATE makes to other servers (a driver
    /// with a network passes its own; without, MIGRATE cannot connect).
    pub fn set_migrate_links(
        &mut self,
        links: std::sync::Arc<dyn crate::cluster::link::MigrateLinks>,
    ) {
        self.srv.links = links;
    }

    /// Installs the listener CONFIG SET port moves (a driver with sockets
    /// passes its own; without, the port is only kept).
    pub fn set_listener(
        &mut self,
        listener: std::sync::Arc<dyn crate::server::listener::Listener>,
    ) {
        self.srv.listener = listener;
    }

    /// `acceptCommonHandler`'s protected mode: with `protected-mode yes`
    /// and a default user without a password, a client not on the loopback
    /// interface is refused with this error (written, then the connection
    /// is closed). `None`: accept it.
    pub fn protected_mode_refusal(&self, loopback: bool) -> Option<&'static str> {
        (self.srv.config.protected_mode && self.srv.acl.default_nopass() && !loopback)
            .then_some(PROTECTED_MODE_DENIED)
    }

    /// Records where connection `id` comes from, for CLIENT LIST.
    pub fn set_client_origin(&mut self, id: crate::server::client::ClientId, origin: ClientOrigin) {
        if let Some(entry) = self.srv.client_list.get_mut(&id) {
            entry.addr = origin.addr;
            entry.laddr = origin.laddr;
            entry.fd = origin.fd;
        }
    }

    /// How many bytes connection `id` has read and not yet handed over: the
    /// rest of a pipeline while its command runs, or what a blocked client
    /// sent meanwhile. CLIENT LIST counts them in `qbuf`, as Redis' query
    /// buffer holds them.
    pub fn set_pending_input(&mut self, id: crate::server::client::ClientId, bytes: usize) {
        if let Some(entry) = self.srv.client_list.get_mut(&id) {
            entry.pending_input = bytes;
        }
    }

    /// `replicationUnsetMaster`: a replica becomes a master (a failover's promotion).
    pub fn promote(&mut self) {
        crate::repl::promote(&mut self.srv);
    }

    /// `replicationSetMaster`: becomes a replica of `host:port`, link down.
    pub fn follow(&mut self, host: &str, port: u16) {
        crate::repl::demote(&mut self.srv, host, port);
    }

    /// This node's cluster view for the bus to change: a driver that plays
    /// the cluster bus (slot claims, failure flags, epochs) writes here,
    /// then calls [`Engine::cluster_refresh`]. `None` outside cluster mode.
    pub fn cluster_bus(&mut self) -> Option<&mut ClusterState> {
        self.srv.cluster.as_mut()
    }

    /// Recomputes `cluster_state` after the bus changed the view.
    pub fn cluster_refresh(&mut self) {
        if let Some(cl) = self.srv.cluster.as_mut() {
            // The bus's changes bypass the commands that mark it dirty.
            cl.dirty = true;
        }
        crate::cmd::cluster::refresh(&mut self.srv);
    }

    /// Keys of database 0 in `slot`, newest first, as Redis' per-slot lists keep them.
    pub fn keys_in_slot(&self, slot: u16) -> Vec<Vec<u8>> {
        crate::cmd::cluster::keys_in_slot(&self.srv, slot)
    }

    /// `delKeysInSlot`: a master that lost `slot` deletes the keys left in it.
    pub fn del_keys_in_slot(&mut self, slot: u16) {
        for k in crate::cmd::cluster::keys_in_slot(&self.srv, slot) {
            self.srv.delete(0, &k, DeleteCause::Del);
        }
    }

    /// The source half of a modelled MIGRATE: `key` of database `db` after
    /// lazy expiry, or `None` if it is gone.
    pub fn dump_key(&mut self, db: usize, key: &[u8]) -> Option<KeyDump> {
        if self.srv.expire_if_needed(db, key) {
            return None;
        }
        let d = &self.srv.dbs[db];
        let obj = d.get(key)?;
        Some(KeyDump {
            bytes: obj.memory_usage(key) as u64,
            value: obj.value.clone(),
            expire_at_ms: d.expire_at(key),
        })
    }

    /// Deletes `key` as `DEL` would, without a client (MIGRATE's source).
    pub fn delete_key(&mut self, db: usize, key: &[u8]) -> bool {
        self.srv.delete(db, key, DeleteCause::Del)
    }

    /// The target half of a modelled MIGRATE: stores `dump` under `key`
    /// (replacing what is there) with its expiry.
    pub fn restore_key(&mut self, db: usize, key: &[u8], dump: KeyDump) {
        self.srv.set_key(db, key, dump.value, false);
        if let Some(when) = dump.expire_at_ms {
            self.srv.set_expire(db, key, when);
        }
    }
}

/// The error Redis writes to a client refused by protected mode.
pub const PROTECTED_MODE_DENIED: &str = "DENIED Redis is running in protected mode because \
    protected mode is enabled and no password is set for the default user. In this mode \
    connections are only accepted from the loopback interface. If you want to connect from \
    external computers to Redis you may adopt one of the following solutions: 1) Just disable \
    protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface \
    by connecting to Redis from the same host the server is running, however MAKE SURE Redis is \
    not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change \
    permanent. 2) Alternatively you can just disable the protected mode by editing the Redis \
    configuration file, and setting the protected mode option to 'no', and then restarting the \
    server. 3) If you started the server manually just for testing, restart it with the \
    '--protected-mode no' option. 4) Set up an authentication password for the default user. \
    NOTE: You only need to do one of the above things in order for the server to start \
    accepting connections from the outside.";
