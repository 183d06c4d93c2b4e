//! The Cluster view: the 16384 hash slots of a small simulated cluster drawn on one canvas, coloured by owner and shaded by heat, with a key box showing a key's slot and hash tag, an animated slot migration, and a node kill whose failover plays on the sim clock.
//!
//! One `<canvas>` of 128×128 cells rather than 16384 DOM nodes: a redraw is
//! a few thousand `fillRect`s (runs of equal cells are merged), cheap
//! enough to repeat on every migration step. The cluster is the engine's
//! `cluster::sim::Cluster` (three masters with a replica each, real
//! engines), so slots, owners, keys, MIGRATE stalls and failovers (PFAIL,
//! FAIL, election, promotion) are the simulation's own; it is built the
//! first time the view is shown.

use gloo::timers::callback::Interval;
use redsim_engine::cluster::{key_hash_slot, SLOTS};
use redsim_sim::cluster::{BusWhat, Cluster, SimOptions};
use redsim_sim::cluster_lessons::heat_level;
use redsim_sim::zipf::Zipf;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

const MASTERS: usize = 3;
/// Masters and their replicas.
const NODES: usize = 2 * MASTERS;
/// `cluster-node-timeout` of the view's cluster, shorter than Redis' 15 s
/// default so a failover plays in seconds.
const NODE_TIMEOUT_MS: i64 = 5000;
/// Virtual time per animation step while a failover plays (4× real time).
const FAILOVER_STEP_US: u64 = 4 * STEP_MS as u64 * 1000;
/// How long a failover may play before the view says nobody took over.
const GIVE_UP_AFTER_US: u64 = 6 * NODE_TIMEOUT_MS as u64 * 1000;
/// Cells per canvas row, and their size in CSS pixels.
const COLS: usize = 128;
const CELL: f64 = 4.0;
/// Migration animation period, ms, and keys moved per step.
const STEP_MS: u32 = 80;
const KEYS_PER_STEP: usize = 8;
/// Owner colours (r, g, b): masters, then the replicas that may take over.
const COLOURS: [(u8, u8, u8); NODES] = [
    (216, 54, 43),
    (43, 108, 216),
    (42, 157, 92),
    (232, 139, 25),
    (126, 63, 191),
    (22, 160, 170),
];
const DEFAULT_KEY: &str = "user:{42}:cart";

#[derive(Properties, PartialEq, Clone)]
pub struct SlotMapProps {
    /// Whether the view is on screen; the cluster is built when it first is.
    #[prop_or(true)]
    pub active: bool,
}

pub enum Msg {
    Key(String),
    Migrate,
    Kill,
    Restart,
    Tick,
}

/// A failover playing: the node killed and where its bus events start.
struct Failover {
    killed: usize,
    first_event: usize,
    started_us: u64,
}

/// A slot migration in progress.
struct Migration {
    slot: u16,
    from: usize,
    to: usize,
    total: usize,
    moved: usize,
    /// The longest single MIGRATE (µs of virtual time both nodes were busy).
    worst_us: u64,
}

pub struct SlotMap {
    canvas: NodeRef,
    cluster: Option<Cluster>,
    key: String,
    migration: Option<Migration>,
    failover: Option<Failover>,
    timer: Option<Interval>,
    status: String,
}

/// A cluster with something to look at: users under per-user tags, one
/// tenant's orders under a single tag (one busy slot) with a 256 KB
/// catalogue, and Zipf-distributed reads for heat.
fn build_cluster() -> Cluster {
    let mut opts = SimOptions::new(1, MASTERS);
    opts.replicas_per_master = 1;
    opts.config.cluster_node_timeout = NODE_TIMEOUT_MS;
    let mut cluster = Cluster::new(opts);
    let mut client = cluster.client();
    client.refresh(&mut cluster, 0);
    let mut run = |cluster: &mut Cluster, parts: &[&[u8]]| {
        let args: Vec<Vec<u8>> = parts.iter().map(|p| p.to_vec()).collect();
        client.run(cluster, &args);
    };
    for i in 0..600 {
        run(
            &mut cluster,
            &[b"SET", format!("user:{{{i}}}:cart").as_bytes(), b"[]"],
        );
    }
    for i in 0..200 {
        run(
            &mut cluster,
            &[b"SET", format!("{{tenant:42}}:order:{i}").as_bytes(), b"o"],
        );
    }
    run(
        &mut cluster,
        &[b"SET", b"{tenant:42}:catalog", &vec![b'c'; 256 * 1024]],
    );
    if let Some(zipf) = Zipf::new(600, 1.0) {
        let mut rng = fastrand::Rng::with_seed(1);
        for _ in 0..1500 {
            let u = zipf.sample(&mut rng) - 1;
            run(
                &mut cluster,
                &[b"GET", format!("user:{{{u}}}:cart").as_bytes()],
            );
        }
    }
    cluster
}

/// Keys plus keyed commands per slot, over every node.
fn slot_heat(cluster: &Cluster) -> Vec<u64> {
    let mut heat = vec![0u64; SLOTS];
    for i in 0..cluster.nodes.len() {
        for (&s, &k) in &cluster.keys_per_slot(i) {
            heat[s as usize] += k as u64;
        }
        for (&s, &h) in cluster.slot_hits(i) {
            heat[s as usize] += h;
        }
    }
    heat
}

/// The bytes of `key` hashed for its slot, as `keyHashSlot` picks them:
/// `Some((start, end))` of the tag, or `None` when the whole key is hashed.
fn tag_span(key: &str) -> Option<(usize, usize)> {
    let open = key.find('{')?;
    let len = key[open + 1..].find('}')?;
    (len > 0).then_some((open + 1, open + 1 + len))
}

fn colour(owner: Option<usize>, level: u8) -> String {
    let Some((r, g, b)) = owner.and_then(|o| COLOURS.get(o)) else {
        return "#bbb".into();
    };
    let alpha = 0.22 + 0.195 * level as f64;
    format!("rgba({r},{g},{b},{alpha:.2})")
}

fn cell_xy(slot: usize) -> (f64, f64) {
    ((slot % COLS) as f64 * CELL, (slot / COLS) as f64 * CELL)
}

/// The first live node: whose view of the slots the map shows.
fn observer(cluster: &Cluster) -> usize {
    (0..cluster.nodes.len())
        .find(|&i| !cluster.nodes[i].down)
        .unwrap_or(0)
}

impl SlotMap {
    fn ensure_cluster(&mut self, active: bool) {
        if active && self.cluster.is_none() {
            self.cluster = Some(build_cluster());
        }
    }

    fn draw(&self) {
        let (Some(cluster), Some(canvas)) = (
            self.cluster.as_ref(),
            self.canvas.cast::<HtmlCanvasElement>(),
        ) else {
            return;
        };
        let Some(ctx) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        let view = cluster.view(observer(cluster));
        let heat = slot_heat(cluster);
        let max = heat.iter().copied().max().unwrap_or(0);
        ctx.set_fill_style_str("#fff");
        ctx.fill_rect(0.0, 0.0, canvas.width() as f64, canvas.height() as f64);
        // Runs of equal style along each row become one rectangle.
        let style_of = |s: usize| colour(view.owner(s as u16), heat_level(heat[s], max));
        for row in 0..SLOTS / COLS {
            let mut col = 0;
            while col < COLS {
                let s = row * COLS + col;
                let style = style_of(s);
                let mut end = col + 1;
                while end < COLS && style_of(row * COLS + end) == style {
                    end += 1;
                }
                ctx.set_fill_style_str(&style);
                ctx.fill_rect(
                    col as f64 * CELL,
                    row as f64 * CELL,
                    (end - col) as f64 * CELL,
                    CELL,
                );
                col = end;
            }
        }
        if let Some(m) = &self.migration {
            // The migrating cell: source and target colours in proportion.
            let (x, y) = cell_xy(m.slot as usize);
            let done = m.moved as f64 / m.total.max(1) as f64;
            ctx.set_fill_style_str(&colour(Some(m.from), 4));
            ctx.fill_rect(x, y, CELL, CELL);
            ctx.set_fill_style_str(&colour(Some(m.to), 4));
            ctx.fill_rect(x, y, CELL * done, CELL);
            ctx.set_stroke_style_str(&colour(Some(m.to), 4));
            ctx.set_line_width(2.0);
            ctx.stroke_rect(x - 3.0, y - 3.0, CELL + 6.0, CELL + 6.0);
        }
        if !self.key.is_empty() {
            let (x, y) = cell_xy(key_hash_slot(self.key.as_bytes()) as usize);
            ctx.set_stroke_style_str("rgba(0,0,0,0.35)");
            ctx.set_line_width(1.0);
            ctx.stroke_rect(x + CELL / 2.0 - 0.5, 0.0, 1.0, canvas.height() as f64);
            ctx.stroke_rect(0.0, y + CELL / 2.0 - 0.5, canvas.width() as f64, 1.0);
            ctx.set_stroke_style_str("#111");
            ctx.set_line_width(2.0);
            ctx.stroke_rect(x - 2.0, y - 2.0, CELL + 4.0, CELL + 4.0);
        }
    }

    /// Starts migrating the typed key's slot (or the busiest one) to the next master.
    fn start_migration(&mut self) {
        let Some(cluster) = self.cluster.as_mut() else {
            return;
        };
        if self.migration.is_some() || self.failover.is_some() {
            return;
        }
        let slot = if self.key.is_empty() {
            let heat = slot_heat(cluster);
            (0..SLOTS).max_by_key(|&s| heat[s]).unwrap_or(0) as u16
        } else {
            key_hash_slot(self.key.as_bytes())
        };
        let view = cluster.view(observer(cluster));
        let Some(from) = view.owner(slot) else {
            return;
        };
        // The next master serving slots after the owner.
        let to = (1..NODES)
            .map(|d| (from + d) % NODES)
            .find(|&n| view.nodes[n].replica_of.is_none() && view.slot_count(n) > 0)
            .unwrap_or(from);
        let total: usize = cluster.keys_per_slot(from).get(&slot).copied().unwrap_or(0);
        match cluster.begin_migration(slot, to) {
            Ok(_) => {
                self.status = format!(
                    "Migrating slot {slot} from node {from} to node {to}: 0 of {total} keys moved."
                );
                self.migration = Some(Migration {
                    slot,
                    from,
                    to,
                    total,
                    moved: 0,
                    worst_us: 0,
                });
            }
            Err(e) => self.status = format!("Cannot migrate slot {slot}: {e:?}"),
        }
    }

    /// Kills the master owning the typed key's slot (or node 0's first slot):
    /// the bus then finds out on the sim clock, step by step.
    fn start_failover(&mut self) {
        let Some(cluster) = self.cluster.as_mut() else {
            return;
        };
        if self.failover.is_some() || self.migration.is_some() {
            return;
        }
        let slot = key_hash_slot(self.key.as_bytes());
        let Some(killed) = cluster.view(observer(cluster)).owner(slot) else {
            return;
        };
        let first_event = cluster.events.len();
        cluster.kill_node(killed);
        self.status = format!(
            "Node {killed} (127.0.0.1:{}) is down. The others ping it and wait cluster-node-timeout ({} s).",
            7000 + killed,
            NODE_TIMEOUT_MS / 1000
        );
        self.failover = Some(Failover {
            killed,
            first_event,
            started_us: cluster.now_us(),
        });
    }

    /// One failover step: the sim clock moves on and the status tells the
    /// latest phase; it ends when a replica took the slots.
    fn failover_step(&mut self) {
        let (Some(cluster), Some(f)) = (self.cluster.as_mut(), self.failover.as_ref()) else {
            self.timer = None;
            return;
        };
        cluster.advance_by(FAILOVER_STEP_US);
        let at = |us: u64| (us - f.started_us) as f64 / 1e6;
        let events = &cluster.events[f.first_event..];
        let pfail = events
            .iter()
            .filter(|e| matches!(e.what, BusWhat::Pfail { of } if of == f.killed))
            .count();
        let mut status = format!(
            "{:.1} s after node {} died: ",
            at(cluster.now_us()),
            f.killed
        );
        let mut done = false;
        match events.iter().rev().find(|e| {
            matches!(
                e.what,
                BusWhat::Fail { .. }
                    | BusWhat::ElectionScheduled { .. }
                    | BusWhat::VoteRequested { .. }
                    | BusWhat::Promoted { .. }
            )
        }) {
            Some(e) => match e.what {
                BusWhat::Promoted { epoch, votes } => {
                    done = true;
                    let slots = cluster.view(e.node).slot_count(e.node);
                    status = format!(
                        "Node {} was promoted {:.1} s after node {} died ({votes} votes, configEpoch {epoch}) and now owns its {slots} slots.",
                        e.node,
                        at(e.at_us),
                        f.killed
                    );
                }
                BusWhat::VoteRequested { epoch } => {
                    status.push_str(&format!(
                        "node {} asks the masters for votes (epoch {epoch}).",
                        e.node
                    ));
                }
                BusWhat::ElectionScheduled { rank, delay_ms } => {
                    status.push_str(&format!(
                        "FAIL; replica node {} starts its election in {delay_ms} ms (rank {rank}). Every slot answers CLUSTERDOWN meanwhile.",
                        e.node
                    ));
                }
                _ => status
                    .push_str("a majority of masters agree: FAIL. Every slot answers CLUSTERDOWN."),
            },
            None if pfail > 0 => status.push_str(&format!(
                "{pfail} node(s) flag it PFAIL (fail?): no pong for the node timeout."
            )),
            None => status.push_str("pings go unanswered."),
        }
        // No replica left to take over: the slots stay down.
        if !done && cluster.now_us() - f.started_us > GIVE_UP_AFTER_US {
            done = true;
            status = format!(
                "No replica took over node {}'s slots: they stay unserved (CLUSTERDOWN with full coverage) until it comes back.",
                f.killed
            );
        }
        self.status = status;
        if done {
            self.failover = None;
            self.timer = None;
        }
    }

    /// Brings every dead node back: a master whose slots were taken over
    /// rejoins as a replica of the winner (gossip, then a resync).
    fn restart_dead(&mut self) {
        let Some(cluster) = self.cluster.as_mut() else {
            return;
        };
        if self.failover.is_some() {
            return;
        }
        let dead: Vec<usize> = (0..cluster.nodes.len())
            .filter(|&i| cluster.nodes[i].down)
            .collect();
        for &i in &dead {
            cluster.restart_node(i);
        }
        // A few cron steps: the others hear from it and clear its flags.
        cluster.advance_by(1_000_000);
        let view = cluster.view(observer(cluster));
        let back: Vec<String> = dead
            .iter()
            .map(|&i| match view.nodes[i].replica_of {
                Some(m) => format!("node {i} is back as a replica of node {m}"),
                None => format!("node {i} is back as a master"),
            })
            .collect();
        self.status = format!("{}.", back.join("; "));
    }

    /// One animation step: a few MIGRATEs, or the end of the migration.
    fn step(&mut self) {
        let (Some(cluster), Some(m)) = (self.cluster.as_mut(), self.migration.as_mut()) else {
            self.timer = None;
            return;
        };
        let batch = cluster.migrate_keys(m.slot, KEYS_PER_STEP);
        if batch.is_empty() {
            let _ = cluster.finish_migration(m.slot);
            self.status = format!(
                "Slot {} now belongs to node {}: {} keys moved; the longest MIGRATE kept both nodes busy {:.2} ms.",
                m.slot,
                m.to,
                m.moved,
                m.worst_us as f64 / 1000.0
            );
            self.migration = None;
            self.timer = None;
            return;
        }
        m.moved += batch.len();
        for k in &batch {
            m.worst_us = m.worst_us.max(k.end_us - k.start_us);
        }
        self.status = format!(
            "Migrating slot {} from node {} to node {}: {} of {} keys moved (ASK for moved keys until it ends).",
            m.slot, m.from, m.to, m.moved, m.total
        );
    }

    fn key_info(&self) -> Html {
        let key = &self.key;
        let slot = key_hash_slot(key.as_bytes());
        let owner = self
            .cluster
            .as_ref()
            .and_then(|c| c.view(observer(c)).owner(slot))
            .map_or("-".to_string(), |o| {
                format!("node {o} (127.0.0.1:{})", 7000 + o)
            });
        let shown = match tag_span(key) {
            Some((a, b)) => html! {
                <>
                    <code>{ &key[..a] }<mark class="rs-slotmap-tag">{ &key[a..b] }</mark>{ &key[b..] }</code>
                    { format!(" hashes only its tag \"{}\"", &key[a..b]) }
                </>
            },
            None => html! {
                <>
                    <code>{ key.clone() }</code>
                    { " has no hash tag: the whole key is hashed" }
                </>
            },
        };
        html! {
            <p class="rs-slotmap-key">
                { shown }
                { " → slot " }
                <strong class="rs-slotmap-slot" data-slot={ slot.to_string() }>{ slot }</strong>
                { format!(" (CRC16 mod 16384), owned by {owner}.") }
            </p>
        }
    }
}

impl Component for SlotMap {
    type Message = Msg;
    type Properties = SlotMapProps;

    fn create(ctx: &Context<Self>) -> Self {
        let mut s = SlotMap {
            canvas: NodeRef::default(),
            cluster: None,
            key: DEFAULT_KEY.to_string(),
            migration: None,
            failover: None,
            timer: None,
            status: String::new(),
        };
        s.ensure_cluster(ctx.props().active);
        s
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        self.ensure_cluster(ctx.props().active);
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Key(k) => self.key = k,
            Msg::Migrate => {
                self.start_migration();
                if self.migration.is_some() && self.timer.is_none() {
                    let link = ctx.link().clone();
                    self.timer = Some(Interval::new(STEP_MS, move || link.send_message(Msg::Tick)));
                }
            }
            Msg::Kill => {
                self.start_failover();
                if self.failover.is_some() && self.timer.is_none() {
                    let link = ctx.link().clone();
                    self.timer = Some(Interval::new(STEP_MS, move || link.send_message(Msg::Tick)));
                }
            }
            Msg::Restart => self.restart_dead(),
            Msg::Tick if self.failover.is_some() => self.failover_step(),
            Msg::Tick => self.step(),
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        self.draw();
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let oninput = link.callback(|e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            Msg::Key(input.value())
        });
        let busy = self.migration.is_some() || self.failover.is_some();
        let any_down = self
            .cluster
            .as_ref()
            .is_some_and(|c| c.nodes.iter().any(|n| n.down));
        let side = (COLS as f64 * CELL) as u32;
        let rows = (SLOTS / COLS) as f64 * CELL;
        let legend: Html = COLOURS
            .iter()
            .enumerate()
            .map(|(i, (r, g, b))| {
                let Some(c) = self.cluster.as_ref() else {
                    return Html::default();
                };
                let view = c.view(observer(c));
                let node = &view.nodes[i];
                let role = match node.replica_of {
                    Some(m) => format!(", replica of node {m}"),
                    None => String::new(),
                };
                let health = if c.nodes[i].down {
                    ", down"
                } else {
                    ""
                };
                let flag = if node.failed {
                    " (fail)"
                } else if node.pfail {
                    " (fail?)"
                } else {
                    ""
                };
                html! {
                    <span style="margin-right:14px" data-node={ i.to_string() }>
                        <span style={ format!("display:inline-block;width:10px;height:10px;margin-right:4px;background:rgb({r},{g},{b})") }></span>
                        { format!("node {i}: {} slots{role}{health}{flag}", view.slot_count(i)) }
                    </span>
                }
            })
            .collect();
        html! {
            <div class="rs-slotmap" data-view="cluster">
                <p class="rs-slotmap-intro">
                    { "Redis Cluster splits keys over 16384 hash slots; each master owns some and has a replica. Each cell below is one slot (128 per row), coloured by its owner and darker where it holds more keys or served more commands. Kill a master to watch its replica take over after cluster-node-timeout." }
                </p>
                <label class="rs-slotmap-label">
                    { "Key " }
                    <input class="rs-slotmap-input" type="text" spellcheck="false" value={ self.key.clone() }
                           aria-label="Key to locate" {oninput} />
                </label>
                <button class="rs-btn rs-slotmap-migrate" data-action="migrate" disabled={ busy }
                        onclick={ link.callback(|_: MouseEvent| Msg::Migrate) }>{ "Migrate its slot" }</button>
                <button class="rs-btn rs-slotmap-kill" data-action="kill" disabled={ busy }
                        onclick={ link.callback(|_: MouseEvent| Msg::Kill) }>{ "Kill its master" }</button>
                <button class="rs-btn rs-slotmap-restart" data-action="restart" disabled={ busy || !any_down }
                        onclick={ link.callback(|_: MouseEvent| Msg::Restart) }>{ "Restart dead nodes" }</button>
                { if self.key.is_empty() { Html::default() } else { self.key_info() } }
                <canvas ref={ self.canvas.clone() } class="rs-slotmap-canvas" width={ side.to_string() } height={ (rows as u32).to_string() }
                        style="max-width:100%;image-rendering:pixelated;border:1px solid #ddd"
                        aria-label="Slot map: 16384 slots coloured by owner"></canvas>
                <div class="rs-slotmap-legend">{ legend }</div>
                <p class="rs-slotmap-status" aria-live="polite">{ &self.status }</p>
            </div>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_span_follows_key_hash_slot() {
        assert_eq!(tag_span("user:{42}:cart"), Some((6, 8)));
        assert_eq!(tag_span("{}x"), None);
        assert_eq!(tag_span("a{b"), None);
        assert_eq!(tag_span("plain"), None);
        let key = "user:{42}:cart";
        let (a, b) = tag_span(key).unwrap();
        assert_eq!(
            key_hash_slot(key.as_bytes()),
            key_hash_slot(&key.as_bytes()[a..b])
        );
    }
}
