//! A console widget's state and the actions that change it: the engine, the clients' sessions, the clock driver, the commands sent (the Share link), and the models of the panels (keyspace, inspector, timeline).
//!
//! Every click, key and timer tick of the widget is an [`Action`] for
//! [`Console::apply`], so the console's rules live in one place and are
//! tested natively against a real engine. What the page must do afterwards
//! (scroll, focus the prompt, bring the inspector into view) is left in
//! [`Effects`] for the component.
//!
//! Commands go through `Engine::submit_line`, so a blocking command leaves
//! its client waiting; replies the engine produces later (another client's
//! push served it, or its virtual timeout passed) are collected with
//! `take_unblocked` after every command, clock step and tick.

use std::rc::Rc;

use redsim_engine::proto::clifmt::format_reply;
use redsim_engine::proto::resp::split_args;
use redsim_engine::{Engine, Frame, Options};

use super::clock::{Driver, Mode};
use super::help;
use super::session::{split_target, with_target, Line, Session, Waiting, MAX_CLIENTS};
use super::share::{share_link, Preset, ShareState};
use crate::panels::clients::{label, ClientTab};
use crate::panels::inspector::Inspector;
use crate::panels::keyspace::Keyspace;
use crate::panels::timeline::{Timeline, Zoom};

/// Seed when neither the page nor the element gives one: fixed, so a
/// documentation example shows the same thing on every load.
pub const DEFAULT_SEED: u64 = 1;
/// Trace events kept per widget: hours of an idle session, a bounded amount of memory.
const TRACE_CAPACITY: usize = 20_000;
/// Above this many keys the panel refreshes at most once a second.
const BIG_KEYSPACE: usize = 5000;

/// Something the reader did, or the clock's timer.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The prompt's text changed.
    Input(String),
    Tick,
    SetMode(Mode),
    Step(u64),
    Zoom(Zoom),
    /// Show client tab `i`.
    SelectClient(usize),
    AddClient,
    CloseClient(usize),
    /// Ctrl+C: give up the active client's blocking command.
    Cancel,
    /// Inspect a key of the active client's database.
    Inspect(String),
    /// List only the keys matching this glob (empty: all).
    FilterKeys(String),
    CloseInspector,
    /// The Share popover opened with this link.
    Shared(String),
    /// The clipboard took the link (or refused it).
    Copied(bool),
    CloseShare,
    /// The command docs arrived (or could not be fetched): held commands run.
    Docs(bool),
}

/// A preset's line or pause held, in order, until the command docs arrive.
enum Held {
    Line(usize, String, bool),
    Sleep(u64),
}

/// What the page should do after the next render.
#[derive(Default)]
pub struct Effects {
    /// A command waits for the command docs: fetch them now.
    pub load_docs: bool,
    pub scroll_to_end: bool,
    pub focus_input: bool,
    pub reveal_inspector: bool,
}

/// How a key press went: whether the browser's default must be prevented,
/// and whether anything shown changed.
#[derive(Debug, PartialEq, Eq)]
pub struct KeyOutcome {
    pub prevent: bool,
    pub render: bool,
}

pub struct Console {
    pub engine: Engine,
    seed: u64,
    /// Unix seconds of virtual instant 0 (TIME, EXPIREAT).
    t0: u64,
    pub driver: Driver,
    /// One console per client, in tab order.
    pub sessions: Vec<Session>,
    /// The tab shown.
    pub active: usize,
    /// Commands sent to the engine this session, for the Share link
    /// (prefixed `@N ` when sent by client N > 1).
    sent: Vec<String>,
    /// The virtual instant (µs) each of `sent` ran at, for the exported
    /// script's `# sleep` lines.
    sent_at: Vec<u64>,
    pub keys: Keyspace,
    keys_refreshed_ms: f64,
    pub timeline: Timeline,
    pub zoom: Zoom,
    pub inspector: Inspector,
    pub inspector_ttl: Option<i64>,
    pub share: Option<ShareState>,
    pub effects: Effects,
    /// A command needs the full engine (set in light builds only): the
    /// widget asks for it, and commands from then on wait for it.
    pub wants_full: bool,
    /// The engine has its command docs (a light build loads them as data,
    /// see `crate::docs`); until then HELP and COMMAND DOCS are held, with
    /// what comes after them.
    docs_ready: bool,
    held: Vec<Held>,
    /// The page's clock (wall ms).
    wall: fn() -> f64,
}

/// The page's `redsim-memory-budget`: a tab has a few GB and a failed wasm
/// allocation ends the instance, so writes past this are refused with OOM
/// (`CONFIG SET redsim-memory-budget` changes it; 0 lifts it).
pub const MEMORY_BUDGET: u64 = 256 << 20;

impl Console {
    /// A console over a fresh engine with `preset`'s seed, clock and
    /// commands run; `t0` is the Unix second of virtual instant 0.
    pub fn new(preset: &Preset, t0: u64, wall: fn() -> f64) -> Console {
        let seed = preset.seed.unwrap_or(DEFAULT_SEED);
        let mut opts = Options::new(seed);
        opts.trace_capacity = TRACE_CAPACITY;
        opts.config.memory_budget = MEMORY_BUDGET;
        // The page's clients are local, as a developer's own redis-server
        // with `enable-debug-command local` would treat them.
        opts.config.enable_debug_command = "local".into();
        let mut engine = Engine::with_options(opts);
        engine.set_unix_base_us(t0.saturating_mul(1_000_000));
        let mut first = Session::new(1, engine.connect(&label(1)));
        first.push(Line::Note(format!(
            "Redsim: Redis {} in your browser, on a virtual clock. Type HELP for help.",
            redsim_engine::REDIS_VERSION
        )));
        let mode = if preset.paused {
            Mode::Paused
        } else {
            Mode::RealTime
        };
        let mut c = Console {
            engine,
            seed,
            t0,
            driver: Driver::new(mode, 0, wall()),
            sessions: vec![first],
            active: 0,
            sent: Vec::new(),
            sent_at: Vec::new(),
            keys: Keyspace::default(),
            keys_refreshed_ms: 0.0,
            timeline: Timeline::default(),
            zoom: Zoom::TenSeconds,
            inspector: Inspector::default(),
            inspector_ttl: None,
            share: None,
            effects: Effects {
                scroll_to_end: true,
                ..Effects::default()
            },
            wants_full: false,
            docs_ready: redsim_engine::cmd::doctext::installed(),
            held: Vec::new(),
            wall,
        };
        c.run_preset(&preset.commands, preset.typed);
        let now = c.engine.now_us();
        c.driver.reanchor(now, wall());
        // Preset commands run in any tab; the first one is shown.
        c.active = 0;
        c.sessions[0].unread = 0;
        c.effects.reveal_inspector = false;
        c.refresh(true);
        c
    }

    /// Applies `a`; false when nothing shown changed.
    /// Runs a preset's lines in order: commands (`@N` for another client)
    /// and `# sleep <ms>` pauses, which let virtual time pass (held too,
    /// once a command waits for the docs).
    fn run_preset(&mut self, commands: &[String], typed: bool) {
        for cmd in commands {
            // A shared link's pauses: the same virtual instant, the same TTLs.
            if let Some(ms) = super::share::sleep_ms(cmd) {
                if self.held.is_empty() {
                    self.engine.advance_by(ms.saturating_mul(1000));
                    self.deliver_unblocked();
                } else {
                    self.held.push(Held::Sleep(ms));
                }
                continue;
            }
            let (num, cmd) = split_target(cmd);
            let idx = self.session_for(num);
            self.submit(idx, cmd.to_string(), typed);
        }
    }

    pub fn apply(&mut self, a: Action) -> bool {
        match a {
            Action::Input(v) => {
                let s = &mut self.sessions[self.active];
                s.input = v;
                s.history.stop_browsing();
            }
            Action::Tick => {
                let running = self.sync_clock();
                let delivered = self.deliver_unblocked();
                // The cron may close clients too (`timeout`, output limits).
                let closed = self.reconnect_killed();
                let changed = self.refresh(false);
                return running || changed || delivered || closed;
            }
            Action::SetMode(m) => {
                self.sync_clock();
                let now = self.engine.now_us();
                self.driver.set_mode(m, now, (self.wall)());
                self.refresh(true);
            }
            Action::Step(us) => {
                self.sync_clock();
                self.engine.advance_by(us);
                let now = self.engine.now_us();
                self.driver.reanchor(now, (self.wall)());
                self.deliver_unblocked();
                self.reconnect_killed();
                self.refresh(true);
            }
            Action::Zoom(z) => self.zoom = z,
            Action::SelectClient(i) => {
                if i < self.sessions.len() {
                    self.active = i;
                    self.sessions[i].unread = 0;
                    self.effects.scroll_to_end = true;
                    self.effects.focus_input = true;
                    self.refresh(true);
                }
            }
            Action::AddClient => self.add_client(),
            Action::CloseClient(i) => {
                if self.sessions.len() > 1 && i < self.sessions.len() {
                    let s = self.sessions.remove(i);
                    self.engine.disconnect(s.id);
                    if self.active > i || self.active >= self.sessions.len() {
                        self.active = self.active.saturating_sub(1);
                    }
                    self.effects.scroll_to_end = true;
                    self.effects.focus_input = true;
                    self.deliver_unblocked();
                    self.refresh(true);
                }
            }
            Action::Cancel => {
                self.cancel(self.active);
                self.effects.focus_input = true;
            }
            Action::Inspect(key) => {
                let db = self.db(self.active);
                self.inspector.select(&self.engine, db, key);
                self.inspector_ttl = self.inspector.ttl_ms(&self.engine);
                self.effects.reveal_inspector = true;
            }
            Action::FilterKeys(pattern) => {
                self.keys.pattern = pattern.trim().to_string();
                self.refresh(true);
            }
            Action::CloseInspector => {
                self.inspector.close();
                self.effects.focus_input = true;
            }
            Action::Shared(link) => self.share = Some(ShareState { link, copied: None }),
            Action::Copied(ok) => {
                if let Some(s) = &mut self.share {
                    s.copied = Some(ok);
                }
            }
            Action::CloseShare => self.share = None,
            Action::Docs(ok) => {
                self.docs_ready |= ok;
                let held = std::mem::take(&mut self.held);
                if held.is_empty() {
                    return ok;
                }
                if !ok {
                    self.sessions[self.active].push(Line::Note(
                        "The command docs could not be loaded: HELP and COMMAND DOCS answer without them."
                            .into(),
                    ));
                }
                self.sync_clock();
                for h in held {
                    match h {
                        Held::Sleep(ms) => {
                            self.engine.advance_by(ms.saturating_mul(1000));
                            self.deliver_unblocked();
                        }
                        Held::Line(idx, line, typed) => self.run(idx, &line, typed),
                    }
                }
                let now = self.engine.now_us();
                self.driver.reanchor(now, (self.wall)());
                self.refresh(true);
            }
        }
        true
    }

    /// The session a Share link replays, up to this virtual instant: its
    /// commands and the time between them (`# sleep` lines).
    pub fn share_text(&self) -> String {
        let mut text = String::new();
        let last_ms = self.timed_lines(&mut text, |_| true);
        let now_ms = self.engine.now_us() / 1000;
        if now_ms > last_ms {
            text.push_str(&format!("# sleep {}\n", now_ms - last_ms));
        }
        text
    }

    /// The link that replays `session` (a [`Console::share_text`]) with
    /// this console's seed, epoch and clock on the page at `base`; `packed`
    /// is the session packed (`None`: the text itself, as a handover to the
    /// full engine carries it).
    pub fn share_link(&self, base: &str, session: &str, packed: Option<&str>) -> String {
        share_link(
            base,
            self.seed,
            self.t0,
            self.driver.mode == Mode::Paused,
            session,
            packed,
        )
    }

    /// Appends the commands `keep` accepts, with a `# sleep <ms>` wherever
    /// virtual time passed before one; returns the last one's instant (ms).
    /// Gaps come from absolute instants, so rounding never accumulates.
    fn timed_lines(&self, out: &mut String, keep: impl Fn(&str) -> bool) -> u64 {
        let mut last_ms = 0;
        for (line, &at) in self.sent.iter().zip(&self.sent_at) {
            if !keep(line) {
                continue;
            }
            let at_ms = at / 1000;
            if at_ms > last_ms {
                out.push_str(&format!("# sleep {}\n", at_ms - last_ms));
            }
            last_ms = at_ms;
            out.push_str(line);
            out.push('\n');
        }
        last_ms
    }

    fn record(&mut self, line: String) {
        self.sent.push(line);
        self.sent_at.push(self.engine.now_us());
    }

    /// The session as a script for `redsim replay`: the commands in order
    /// (`@N` for client N), with `# sleep <ms>` wherever virtual time
    /// passed between two of them, so `--timing` replays TTLs and
    /// timeouts as they happened here. Console-only commands (INSPECT)
    /// stay out: a real server does not have them.
    pub fn export_text(&self) -> String {
        let mut out = format!(
            "# A Redsim console session (seed {}). Replay it on the simulator and a real server:\n\
             #   redsim replay session.redis --against redis://127.0.0.1:6379 --timing\n",
            self.seed
        );
        self.timed_lines(&mut out, |line| {
            let (_, command) = split_target(line);
            let word = command.split_whitespace().next().unwrap_or("");
            !word.eq_ignore_ascii_case("inspect")
        });
        out
    }

    /// The session shown.
    pub fn current(&self) -> &Session {
        &self.sessions[self.active]
    }

    /// What the client tabs show.
    pub fn tabs(&self) -> Vec<ClientTab> {
        self.sessions
            .iter()
            .map(|s| ClientTab {
                num: s.num,
                id: s.id,
                waiting: s.waiting.is_some(),
                subscribed: s.subscriptions > 0,
                unread: s.unread,
            })
            .collect()
    }

    /// Whether another client may connect.
    pub fn can_add_client(&self) -> bool {
        self.sessions.len() < MAX_CLIENTS
    }

    /// The selected database of session `idx`'s client.
    fn db(&self, idx: usize) -> usize {
        self.sessions
            .get(idx)
            .and_then(|s| self.engine.client(s.id))
            .map_or(0, |c| c.db)
    }

    /// redis-cli's prompt for session `idx`, with the database after SELECT.
    pub fn prompt(&self, idx: usize) -> String {
        match self.db(idx) {
            0 => "127.0.0.1:6379>".to_string(),
            db => format!("127.0.0.1:6379[{db}]>"),
        }
    }

    /// Connects the lowest free client number in a new tab and shows it.
    fn add_client(&mut self) {
        if let Some(num) = (1..=MAX_CLIENTS).find(|n| self.sessions.iter().all(|s| s.num != *n)) {
            let idx = self.open_session(num);
            let s = &mut self.sessions[idx];
            s.push(Line::Note(format!(
                "Connected as {} (a new connection). Try BLPOP in one client and LPUSH in another.",
                s.label()
            )));
            self.active = idx;
            self.effects.scroll_to_end = true;
            self.effects.focus_input = true;
            self.refresh(true);
        }
    }

    /// Connects client number `num` in a new tab; returns its index.
    fn open_session(&mut self, num: usize) -> usize {
        let id = self.engine.connect(&label(num));
        self.sessions.push(Session::new(num, id));
        self.sessions.len() - 1
    }

    /// The tab of client `num`, opened (with the numbers before it) if needed.
    fn session_for(&mut self, num: usize) -> usize {
        for n in 1..=num {
            if self.sessions.iter().all(|s| s.num != n) {
                self.open_session(n);
            }
        }
        self.sessions.iter().position(|s| s.num == num).unwrap_or(0)
    }

    /// Brings virtual time up to wall time in real-time mode; true if it runs.
    fn sync_clock(&mut self) -> bool {
        match self.driver.target_us((self.wall)()) {
            Some(t) => {
                self.engine.advance_to(t);
                true
            }
            None => false,
        }
    }

    /// Re-reads the trace, the keyspace and the inspected key; true if any changed.
    fn refresh(&mut self, force: bool) -> bool {
        let mut changed = self.timeline.ingest(self.engine.trace());
        if changed || force {
            let base = self.engine.unix_base_us();
            self.timeline
                .update_pending(self.engine.trace(), base, self.engine.now_us());
        }
        changed |= self.inspector.refresh(&self.engine, force);
        let ttl = self.inspector.ttl_ms(&self.engine);
        if ttl != self.inspector_ttl {
            self.inspector_ttl = ttl;
            changed = true;
        }
        let db = self.db(self.active);
        let now = (self.wall)();
        if force
            || changed
            || self.keys.count <= BIG_KEYSPACE
            || now - self.keys_refreshed_ms >= 1000.0
        {
            let before = (self.keys.rows.clone(), self.keys.count, self.keys.db);
            self.keys.refresh(&self.engine, db);
            self.keys_refreshed_ms = now;
            return changed
                || !Rc::ptr_eq(&before.0, &self.keys.rows)
                || before.1 != self.keys.count
                || before.2 != self.keys.db;
        }
        changed
    }

    /// Prints replies the engine produced for waiting clients (served by
    /// another client's write, timed out, or queued behind a blocked
    /// command); true if any arrived.
    fn deliver_unblocked(&mut self) -> bool {
        let replies = self.engine.take_unblocked();
        let any = !replies.is_empty();
        for (id, reply) in replies {
            let Some(idx) = self.sessions.iter().position(|s| s.id == id) else {
                continue;
            };
            self.show_reply(idx, &reply);
        }
        self.sync_sessions();
        any
    }

    /// Waiting and subscribed states as the engine has them now.
    fn sync_sessions(&mut self) {
        for s in &mut self.sessions {
            if s.waiting.is_some() && !self.engine.is_blocked(s.id) {
                s.waiting = None;
            }
            s.subscriptions = self.engine.client(s.id).map_or(0, |c| c.subs.count());
        }
    }

    /// Prints `reply` on session `idx`, and reconnects after QUIT.
    fn show_reply(&mut self, idx: usize, reply: &Frame) {
        let active = idx == self.active;
        let s = &mut self.sessions[idx];
        s.push(Line::Reply {
            text: format_reply(reply),
            error: reply.is_error(),
        });
        if active {
            self.effects.scroll_to_end = true;
        } else {
            s.unread += 1;
        }
        if self
            .engine
            .client(s.id)
            .is_some_and(|c| c.close_after_reply)
        {
            // redis-cli would exit; here the console reconnects at once.
            self.engine.disconnect(s.id);
            s.id = self.engine.connect(&s.label());
            s.waiting = None;
            s.push(Line::Note(
                "Connection closed; the console reconnected as a new client.".into(),
            ));
        }
    }

    /// Ctrl+C during a blocking command or in subscribed mode: like
    /// redis-cli, drop the connection (which ends the wait and the
    /// subscriptions) and connect again, re-selecting the database and protocol.
    fn cancel(&mut self, idx: usize) {
        let Some(s) = self.sessions.get(idx) else {
            return;
        };
        if s.waiting.is_none() && s.subscriptions == 0 {
            return;
        }
        let what = if s.waiting.is_some() {
            "wait cancelled"
        } else {
            "subscriptions dropped"
        };
        let old = s.id;
        let (db, resp) = self.engine.client(old).map_or((0, 2), |c| (c.db, c.resp));
        self.engine.disconnect(old);
        let label = self.sessions[idx].label();
        let id = self.engine.connect(&label);
        if db != 0 {
            self.engine
                .execute(id, &[b"SELECT".to_vec(), db.to_string().into_bytes()]);
        }
        if resp == 3 {
            self.engine.execute(id, &[b"HELLO".to_vec(), b"3".to_vec()]);
        }
        let s = &mut self.sessions[idx];
        s.id = id;
        s.waiting = None;
        s.subscriptions = 0;
        s.push(Line::Note(format!(
            "^C: {what}; {label} disconnected and reconnected (connection id {id})."
        )));
        self.effects.scroll_to_end = true;
        self.deliver_unblocked();
        self.refresh(true);
    }

    /// Keys the console handles itself: Enter, history, Tab, Ctrl+L, and
    /// Ctrl+C while waiting or subscribed with no text selected (otherwise
    /// Ctrl+C copies, as in any page). `selected` tells whether text is
    /// selected; it is asked only for Ctrl+C.
    pub fn key(&mut self, key: &str, ctrl: bool, selected: impl Fn() -> bool) -> KeyOutcome {
        let handled = |render| KeyOutcome {
            prevent: true,
            render,
        };
        let ignored = KeyOutcome {
            prevent: false,
            render: false,
        };
        let idx = self.active;
        let waiting = self.sessions[idx].waiting.is_some();
        let interruptible = waiting || self.sessions[idx].subscriptions > 0;
        match key {
            "c" | "C" if ctrl && interruptible && !selected() => {
                self.cancel(idx);
                handled(true)
            }
            _ if waiting => ignored,
            "Enter" => {
                let line = std::mem::take(&mut self.sessions[idx].input);
                self.submit(idx, line, true);
                self.refresh(true);
                handled(true)
            }
            "ArrowUp" => handled(self.sessions[idx].history_up()),
            "ArrowDown" => handled(self.sessions[idx].history_down()),
            "Tab" => {
                let s = &mut self.sessions[idx];
                match help::complete(&s.input) {
                    Some(c) => {
                        s.input = c;
                        handled(true)
                    }
                    None => KeyOutcome {
                        prevent: !s.input.is_empty(),
                        render: false,
                    },
                }
            }
            "l" | "L" if ctrl => {
                self.sessions[idx].clear();
                handled(true)
            }
            _ => ignored,
        }
    }

    /// Runs one console line on session `idx`. `typed` is false for
    /// commands from the page URL or attributes, which skip the history and
    /// may not crash the page.
    fn submit(&mut self, idx: usize, line: String, typed: bool) {
        let prompt = self.prompt(idx);
        let s = &mut self.sessions[idx];
        s.push(Line::Input {
            prompt,
            text: line.clone(),
        });
        self.effects.scroll_to_end = true;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        if typed {
            s.history.remember(trimmed);
        }
        if !self.docs_ready && (!self.held.is_empty() || help::wants_docs(trimmed)) {
            if self.wants_full {
                // The full engine is on its way and has the docs: the line
                // goes there with the rest, not held here to miss the handover.
                s.push(Line::Note(
                    "Queued: it runs once the full engine has loaded.".into(),
                ));
                let num = s.num;
                self.record(with_target(num, trimmed));
                return;
            }
            let note = match self.held.is_empty() {
                true => "Loading the command docs: this command runs once they are here.",
                false => "Queued: it runs once the command docs are here.",
            };
            s.push(Line::Note(note.into()));
            self.held.push(Held::Line(idx, trimmed.to_string(), typed));
            self.effects.load_docs = true;
            return;
        }
        self.run(idx, trimmed, typed);
    }

    /// Runs a line [`Console::submit`] echoed.
    fn run(&mut self, idx: usize, trimmed: &str, typed: bool) {
        let s = &mut self.sessions[idx];
        let Some(args) = split_args(trimmed.as_bytes()) else {
            s.push(Line::Note("Invalid argument(s)".into()));
            return;
        };
        let words: Vec<String> = args
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let first = words.first().map(|w| w.to_ascii_lowercase());
        match first.as_deref() {
            Some("help") => {
                s.push(Line::Help(help::help(&words[1..])));
                return;
            }
            Some("clear") => {
                s.clear();
                return;
            }
            Some("inspect") => {
                self.inspect_command(idx, &words[1..]);
                let line = with_target(self.sessions[idx].num, trimmed);
                self.record(line);
                return;
            }
            Some("debug") if words.len() == 2 && words[1].eq_ignore_ascii_case("panic") => {
                if typed {
                    panic!("DEBUG PANIC: crash requested from the console");
                }
                s.push(Line::Note("DEBUG PANIC only works when typed.".into()));
                return;
            }
            _ => {}
        }
        let (id, num) = (s.id, s.num);
        self.sync_clock();
        // A heavy command in a light build (see `crate::handover`): it is
        // recorded unrun, and so is every command after it, to run in the
        // full engine in the same order and at the same instants.
        if self.wants_full || redsim_engine::cmd::needs_full_engine(&args) {
            let note = match self.wants_full {
                false => {
                    "Loading the full engine: this command runs there, with this session as it is."
                }
                true => "Queued: it runs once the full engine has loaded.",
            };
            self.sessions[idx].push(Line::Note(note.into()));
            self.record(with_target(num, trimmed));
            self.wants_full = true;
            return;
        }
        let reply = self.engine.submit_line(id, trimmed);
        self.record(with_target(num, trimmed));
        // CLIENT REPLY OFF / SKIP: like redis-cli, print nothing (QUIT
        // still reconnects).
        let silenced = self
            .engine
            .client(id)
            .is_some_and(|c| c.reply_silenced() && !c.close_after_reply);
        // SHUTDOWN: a real server exits here; the page's engine goes on.
        let shut_down = words
            .first()
            .is_some_and(|w| w.eq_ignore_ascii_case("shutdown"))
            && self.engine.is_shut_down();
        match reply {
            Some(_) if silenced => {}
            Some(r) if shut_down && !r.is_error() => {
                self.sessions[idx].push(Line::Note(
                    "SHUTDOWN: a real server would exit now and drop every connection. The playground keeps this one running with its data; reload the page for a fresh server."
                        .into(),
                ));
            }
            Some(r) => self.show_reply(idx, &r),
            None => {
                let blocked = self
                    .engine
                    .blocked_clients()
                    .into_iter()
                    .find(|b| b.client == id);
                let deadline_us = blocked.as_ref().and_then(|b| b.deadline_us);
                let kind = blocked.map(|b| b.kind);
                let script = kind == Some(redsim_engine::blocking::BlockKind::Script);
                let paused = kind == Some(redsim_engine::blocking::BlockKind::Postponed);
                let s = &mut self.sessions[idx];
                if s.waiting.is_none() {
                    s.waiting = Some(Waiting {
                        command: trimmed.to_string(),
                        deadline_us,
                        script,
                        paused,
                    });
                }
            }
        }
        self.deliver_unblocked();
        self.reconnect_killed();
        self.sync_sessions();
        self.inspector.refresh(&self.engine, false);
    }

    /// Sessions whose client the server closed (CLIENT KILL, `timeout`, an
    /// output buffer limit) reconnect, as redis-cli does on its next
    /// command, and say so. True if any did.
    fn reconnect_killed(&mut self) -> bool {
        let mut any = false;
        for id in self.engine.take_killed() {
            let Some(s) = self.sessions.iter_mut().find(|s| s.id == id) else {
                continue;
            };
            s.id = self.engine.connect(&s.label());
            s.waiting = None;
            s.push(Line::Note(
                "The server closed this connection (CLIENT KILL, the idle timeout or an output buffer limit); the console reconnected as a new client.".into(),
            ));
            any = true;
        }
        any
    }

    /// `INSPECT key`: shows the key in the inspector (a console command,
    /// like HELP, never sent to the engine).
    fn inspect_command(&mut self, idx: usize, args: &[String]) {
        let note = match args {
            [key] => {
                let db = self.db(idx);
                let exists = self.engine.inspect(db, key.as_bytes()).is_some();
                self.inspector.select(&self.engine, db, key.clone());
                self.inspector_ttl = self.inspector.ttl_ms(&self.engine);
                self.effects.reveal_inspector = true;
                if exists {
                    format!("Inspecting \"{key}\": see the inspector panel.")
                } else {
                    format!("No key \"{key}\" in db{db} yet: the inspector shows it once it exists.")
                }
            }
            _ => "Usage: INSPECT <key> draws the key's structure (encoding, limits, nodes) in the inspector panel.".to_string(),
        };
        self.sessions[idx].push(Line::Note(note));
    }
}

#[cfg(test)]
mod tests;
