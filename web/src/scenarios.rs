//! The scenario library: the catalogue grouped, a parameter form per scenario, runs in wasm on every change, and the outcome played back over virtual time (metrics, checks, notes, charts, strips and the race diagram drawn by redsim-viz).
//!
//! A scenario run is a pure function of (id, seed, parameters), so the
//! library keeps no engine: it calls `sim::run` again whenever the form
//! changes and draws the new outcome. Playback never re-runs anything; it
//! moves a cursor over the outcome's own timeline and redraws the SVGs with
//! it (the diagram dims what has not happened yet, charts get a line).
//!
//! The same component serves the playground's Scenarios tab, shareable as
//! `?scenario=<id>&seed=N&<param>=<value>`, and documentation pages, where
//! an element with `data-redsim-scenario="<id>"` (plus optional `data-seed`
//! and `data-params="name=value&…"`) shows one scenario without the list.

use std::rc::Rc;

use gloo::timers::callback::Interval;
use redsim_sim::{self as sim, ChartKind, Outcome, ParamSpec, Params, ScenarioInfo};
use wasm_bindgen::JsValue;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::app::{Widget, WidgetProps};
use crate::share::{encode_component, parse_query};
use redsim_sim::params::{fmt_num, parse_seed};

/// Seed when neither the link nor the element gives one; `redsim run` uses the same.
pub const DEFAULT_SEED: u64 = 1;
/// Playback timer period, ms.
const TICK_MS: u32 = 50;
/// Real time one diagram event lasts at 1× speed, ms.
const EVENT_MS: f64 = 400.0;
/// Stops of a run without a diagram: the cursor sweeps the run in this many steps.
const LINEAR_STOPS: usize = 200;
/// Real time one linear stop lasts at 1× (a whole run plays in 12 s).
const LINEAR_MS: f64 = 60.0;
/// Query keys that are not scenario parameters.
const RESERVED: &[&str] = &["scenario", "seed", "cmd", "command", "clock", "t0", "tab"];

/// What a link or element asks the library to show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScenarioPreset {
    pub id: Option<String>,
    pub seed: Option<u64>,
    /// Parameter overrides as typed (a choice may be given by name).
    pub params: Vec<(String, String)>,
}

impl ScenarioPreset {
    /// Reads `?scenario=…&seed=…&<param>=<value>` from a query string and
    /// fragment (the fragment wins, as for console links).
    pub fn from_url(search: &str, hash: &str) -> ScenarioPreset {
        let mut p = ScenarioPreset::default();
        for part in [search.trim_start_matches('?'), hash.trim_start_matches('#')] {
            p.read_pairs(parse_query(part), true);
        }
        p
    }

    /// Reads a `data-redsim-scenario` element's attributes.
    pub fn from_attrs(id: &str, seed: Option<&str>, params: Option<&str>) -> ScenarioPreset {
        let mut p = ScenarioPreset {
            id: Some(id.trim().to_string()).filter(|s| !s.is_empty()),
            seed: seed.and_then(parse_seed),
            params: Vec::new(),
        };
        p.read_pairs(parse_query(params.unwrap_or("")), false);
        p
    }

    fn read_pairs(&mut self, pairs: Vec<(String, String)>, reserved: bool) {
        for (k, v) in pairs {
            match k.as_str() {
                "scenario" if reserved => {
                    self.id = Some(v.trim().to_string()).filter(|s| !s.is_empty())
                }
                "seed" if reserved => self.seed = parse_seed(&v).or(self.seed),
                k if RESERVED.contains(&k) && reserved => {}
                "" => {}
                _ => {
                    self.params.retain(|(n, _)| *n != k);
                    self.params.push((k, v));
                }
            }
        }
    }
}

/// The link that reopens scenario `id` with `seed` and the parameters that
/// differ from their defaults (choices by name, so links read well).
pub fn scenario_link(
    base: &str,
    id: &str,
    seed: u64,
    specs: &[ParamSpec],
    values: &[f64],
) -> String {
    let mut url = format!("{base}?scenario={}&seed={seed}", encode_component(id));
    for (p, v) in specs.iter().zip(values) {
        if *v != p.default {
            url.push('&');
            url.push_str(&encode_component(p.name));
            url.push('=');
            url.push_str(&encode_component(&p.value_text(*v)));
        }
    }
    url
}

/// The values a form starts with: defaults, then the preset's overrides;
/// a bad override is reported and the defaults are used.
pub fn initial_values(
    info: &ScenarioInfo,
    overrides: &[(String, String)],
) -> (Vec<f64>, Option<String>) {
    let (params, err) = match Params::resolve(&info.params, overrides) {
        Ok(p) => (p, None),
        Err(e) => (
            Params::resolve(&info.params, &[]).unwrap_or_default(),
            Some(format!("{e}; using the defaults")),
        ),
    };
    let values = info
        .params
        .iter()
        .map(|p| params.values().get(p.name).copied().unwrap_or(p.default))
        .collect();
    (values, err)
}

/// Where playback can stop: every diagram event, or evenly spaced instants
/// over the run when there is no diagram.
pub fn stops(o: &Outcome) -> Vec<u64> {
    if let Some(d) = &o.diagram {
        let t = redsim_viz::event_times(d);
        if !t.is_empty() {
            return t;
        }
    }
    let mut end = o.duration_us;
    if end == 0 {
        let max_x = o
            .charts
            .iter()
            .filter(|c| c.kind == ChartKind::Line)
            .flat_map(|c| c.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)))
            .filter(|x| x.is_finite())
            .fold(0f64, f64::max);
        end = (max_x * 1e6) as u64;
    }
    let end = end.max(1);
    (0..=LINEAR_STOPS)
        .map(|i| (end as u128 * i as u128 / LINEAR_STOPS as u128) as u64)
        .collect()
}

/// True when a line chart's x axis is virtual time in seconds, so a cursor
/// in time can be drawn on it.
fn x_is_time(c: &sim::Chart) -> bool {
    let l = c.x_label.to_ascii_lowercase();
    c.kind == ChartKind::Line && (l.contains("time") || l.contains("(s)") || l == "s")
}

/// A metric for people: integers plainly, others with up to 3 decimals.
fn fmt_metric(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let mut t = format!("{v:.3}");
    while t.ends_with('0') {
        t.pop();
    }
    t.trim_end_matches('.').to_string()
}

fn svg_html(svg: String) -> Html {
    Html::from_html_unchecked(AttrValue::from(svg))
}

/// The playground page's tabs: the console, the scenario library, the
/// cluster slot map and the replication topology. The console stays mounted
/// while hidden, so switching tabs loses nothing.
#[derive(Properties, PartialEq, Clone)]
pub struct PageProps {
    pub widget: WidgetProps,
    pub scenario: ScenarioPreset,
    /// The Topology tab's link settings (`?tab=topology&…`).
    pub topology: crate::topology::TopoPreset,
    /// The tab named by `?tab=` (console, scenarios, cluster, topology).
    pub tab: Option<String>,
}

/// The page's tabs, in their order on screen.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PageTab {
    Console,
    Scenarios,
    Cluster,
    Topology,
}

impl PageTab {
    /// The tab a link opens: `?tab=` if it names one, else Scenarios when
    /// the link names a scenario, else the console.
    pub fn from_link(tab: Option<&str>, scenario: bool) -> PageTab {
        match tab.map(str::trim) {
            Some("console") => PageTab::Console,
            Some("scenarios") => PageTab::Scenarios,
            Some("cluster") => PageTab::Cluster,
            Some("topology") => PageTab::Topology,
            _ if scenario => PageTab::Scenarios,
            _ => PageTab::Console,
        }
    }
}

#[function_component(Page)]
pub fn page(props: &PageProps) -> Html {
    let tab = use_state(|| PageTab::from_link(props.tab.as_deref(), props.scenario.id.is_some()));
    let button = |t: PageTab, action: &'static str, label: &'static str| {
        let on = *tab == t;
        let set = tab.clone();
        html! {
            <button class={ classes!("rs-pagetab", on.then_some("rs-on")) } role="tab"
                    aria-selected={ on.to_string() } data-action={ action } onclick={ Callback::from(move |_: MouseEvent| set.set(t)) }>{ label }</button>
        }
    };
    let on = |t: PageTab| *tab == t;
    html! {
        <>
            <div class="rs-pagetabs" role="tablist" aria-label="Playground views">
                { button(PageTab::Console, "tab-console", "Console") }
                { button(PageTab::Scenarios, "tab-scenarios", "Scenarios") }
                { button(PageTab::Cluster, "tab-cluster", "Cluster") }
                { button(PageTab::Topology, "tab-topology", "Topology") }
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Console) }>
                <Widget ..props.widget.clone() />
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Scenarios) }>
                <Library preset={ props.scenario.clone() } shareable=true active={ on(PageTab::Scenarios) } />
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Cluster) }>
                <crate::slotmap::SlotMap active={ on(PageTab::Cluster) } />
            </div>
            <div class="rs-pageview" hidden={ !on(PageTab::Topology) }>
                <crate::topology::TopologyTab preset={ props.topology.clone() } shareable=true active={ on(PageTab::Topology) } />
            </div>
        </>
    }
}

#[derive(Properties, PartialEq, Clone)]
pub struct LibraryProps {
    pub preset: ScenarioPreset,
    /// One scenario without the catalogue list (a documentation element).
    #[prop_or_default]
    pub embedded: bool,
    /// Keep the page URL in step with the form, so the address bar is the share link.
    #[prop_or_default]
    pub shareable: bool,
    /// Whether the library is on screen; it runs nothing until it is.
    #[prop_or(true)]
    pub active: bool,
}

pub enum Msg {
    Select(usize),
    SetParam(usize, f64),
    SetSeed(String),
    Run,
    Play,
    Pause,
    Tick,
    /// Move the cursor by this many stops.
    Step(i64),
    Scrub(usize),
    Speed(f64),
}

pub struct Library {
    infos: Vec<ScenarioInfo>,
    selected: Option<usize>,
    values: Vec<f64>,
    seed: u64,
    outcome: Option<Rc<Outcome>>,
    error: Option<String>,
    /// A problem with the link or element that preset the form (shown until the user changes something).
    notice: Option<String>,
    /// Whether a run was attempted (the library runs once it is first shown).
    tried: bool,
    /// Wall time the last run took, ms.
    took_ms: f64,
    stops: Vec<u64>,
    pos: usize,
    speed: f64,
    acc_ms: f64,
    ticker: Option<Interval>,
}

fn wall_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

impl Component for Library {
    type Message = Msg;
    type Properties = LibraryProps;

    fn create(ctx: &Context<Self>) -> Self {
        let p = &ctx.props().preset;
        let infos = sim::catalog();
        let mut error = None;
        let selected = match &p.id {
            Some(id) => {
                let i = infos.iter().position(|s| s.id == id);
                if i.is_none() {
                    error = Some(format!("unknown scenario '{id}'"));
                }
                i.or(if infos.is_empty() { None } else { Some(0) })
            }
            None if infos.is_empty() => None,
            None => Some(0),
        };
        let mut lib = Library {
            infos,
            selected,
            values: Vec::new(),
            seed: p.seed.unwrap_or(DEFAULT_SEED),
            outcome: None,
            error: None,
            notice: None,
            tried: false,
            took_ms: 0.0,
            stops: Vec::new(),
            pos: 0,
            speed: 1.0,
            acc_ms: 0.0,
            ticker: None,
        };
        if let Some(i) = selected {
            let (values, err) = initial_values(&lib.infos[i], &p.params);
            lib.values = values;
            error = error.or(err);
        }
        lib.notice = error;
        if ctx.props().active {
            lib.run(ctx, false);
        }
        lib
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Self::Properties) -> bool {
        if ctx.props().active && !self.tried {
            self.run(ctx, false);
        }
        if !ctx.props().active {
            self.ticker = None;
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        if crate::panic::is_dead() {
            return false;
        }
        match msg {
            Msg::Select(i) => {
                if i < self.infos.len() {
                    self.selected = Some(i);
                    self.values = self.infos[i].params.iter().map(|p| p.default).collect();
                    self.run(ctx, true);
                }
            }
            Msg::SetParam(k, v) => {
                let Some(spec) = self.spec(k) else {
                    return false;
                };
                let v = if v.is_finite() {
                    v.clamp(spec.min, spec.max)
                } else {
                    spec.default
                };
                if let Some(slot) = self.values.get_mut(k) {
                    *slot = v;
                }
                self.run(ctx, true);
            }
            Msg::SetSeed(text) => match parse_seed(&text) {
                Some(s) => {
                    self.seed = s;
                    self.run(ctx, true);
                }
                None => {
                    self.error = Some(format!("seed '{text}' is not a number (decimal or 0x hex)"));
                }
            },
            Msg::Run => self.run(ctx, true),
            Msg::Play => {
                if self.stops.is_empty() {
                    return false;
                }
                if self.pos + 1 >= self.stops.len() {
                    self.pos = 0;
                }
                self.acc_ms = 0.0;
                let link = ctx.link().clone();
                self.ticker = Some(Interval::new(TICK_MS, move || link.send_message(Msg::Tick)));
            }
            Msg::Pause => self.ticker = None,
            Msg::Tick => {
                if self.ticker.is_none() {
                    return false;
                }
                let per_stop = if self.has_diagram() {
                    EVENT_MS
                } else {
                    LINEAR_MS
                };
                self.acc_ms += TICK_MS as f64 * self.speed;
                let mut moved = false;
                while self.acc_ms >= per_stop {
                    self.acc_ms -= per_stop;
                    if self.pos + 1 < self.stops.len() {
                        self.pos += 1;
                        moved = true;
                    }
                }
                if self.pos + 1 >= self.stops.len() {
                    self.ticker = None;
                    return true;
                }
                return moved;
            }
            Msg::Step(d) => {
                self.ticker = None;
                let last = self.stops.len().saturating_sub(1) as i64;
                self.pos = (self.pos as i64 + d).clamp(0, last) as usize;
            }
            Msg::Scrub(p) => {
                self.ticker = None;
                self.pos = p.min(self.stops.len().saturating_sub(1));
            }
            Msg::Speed(s) => self.speed = s,
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let embedded = ctx.props().embedded;
        html! {
            <div class={ classes!("rs-scen", embedded.then_some("rs-scen-embedded")) }>
                if !embedded {
                    { self.list(link) }
                }
                <section class="rs-scen-main">
                    if let Some(info) = self.selected.and_then(|i| self.infos.get(i)) {
                        <header class="rs-scen-head">
                            <span class="rs-scen-group">{ info.group }</span>
                            <h2 class="rs-scen-title">{ info.title }</h2>
                            <p class="rs-scen-claim">{ info.claim }</p>
                            <details class="rs-scen-look" open={ !embedded }>
                                <summary>{ "What to look for" }</summary>
                                <p>{ info.look_for }</p>
                            </details>
                        </header>
                        { self.form(link, info) }
                    } else {
                        <p class="rs-scen-empty">{ "No scenarios yet: the catalogue is empty." }</p>
                    }
                    if let Some(n) = &self.notice {
                        <p class="rs-scen-error rs-scen-notice" role="status">{ n }</p>
                    }
                    if let Some(e) = &self.error {
                        <p class="rs-scen-error" role="alert">{ e }</p>
                    }
                    if let Some(o) = &self.outcome {
                        { self.results(link, o) }
                    }
                </section>
            </div>
        }
    }
}

impl Library {
    fn spec(&self, k: usize) -> Option<&ParamSpec> {
        self.selected
            .and_then(|i| self.infos.get(i))
            .and_then(|s| s.params.get(k))
    }

    fn has_diagram(&self) -> bool {
        self.outcome.as_ref().is_some_and(|o| o.diagram.is_some())
    }

    /// Runs the selected scenario with the form's values; `user` runs also
    /// update the page URL when shareable.
    fn run(&mut self, ctx: &Context<Self>, user: bool) {
        self.ticker = None;
        self.tried = true;
        if user {
            self.notice = None;
        }
        let Some(info) = self.selected.and_then(|i| self.infos.get(i)) else {
            return;
        };
        let overrides: Vec<(String, String)> = info
            .params
            .iter()
            .zip(&self.values)
            .map(|(p, v)| (p.name.to_string(), fmt_num(*v)))
            .collect();
        let started = wall_ms();
        match sim::run(info.id, self.seed, &overrides) {
            Ok(o) => {
                self.took_ms = wall_ms() - started;
                self.stops = stops(&o);
                self.pos = self.stops.len().saturating_sub(1);
                self.outcome = Some(Rc::new(o));
                self.error = None;
            }
            Err(e) => {
                self.error = Some(e);
                self.outcome = None;
                self.stops.clear();
            }
        }
        if user && ctx.props().shareable {
            self.update_url(info);
        }
    }

    fn update_url(&self, info: &ScenarioInfo) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let loc = window.location();
        let base = loc.pathname().unwrap_or_default();
        let url = scenario_link(&base, info.id, self.seed, &info.params, &self.values);
        if let Ok(h) = window.history() {
            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
    }

    /// The catalogue, grouped in catalogue order.
    fn list(&self, link: &html::Scope<Self>) -> Html {
        let mut groups: Vec<&str> = Vec::new();
        for i in &self.infos {
            if !groups.contains(&i.group) {
                groups.push(i.group);
            }
        }
        html! {
            <nav class="rs-scen-list" aria-label="Scenarios">
                { for groups.iter().map(|g| html! {
                    <div class="rs-scen-groupbox">
                        <h3 class="rs-scen-grouphead">{ *g }</h3>
                        { for self.infos.iter().enumerate().filter(|(_, s)| s.group == *g).map(|(i, s)| {
                            let on = self.selected == Some(i);
                            html! {
                                <button class={ classes!("rs-scen-item", on.then_some("rs-on")) } data-scenario={ s.id }
                                        aria-current={ on.then_some("true") } title={ s.claim }
                                        onclick={ link.callback(move |_| Msg::Select(i)) }>{ s.title }</button>
                            }
                        }) }
                    </div>
                }) }
            </nav>
        }
    }

    /// Parameters (select for choices, checkbox for switches, slider and
    /// number for the rest), the seed and Run.
    fn form(&self, link: &html::Scope<Self>, info: &ScenarioInfo) -> Html {
        let seed_change = link.callback(|e: Event| {
            let i: HtmlInputElement = e.target_unchecked_into();
            Msg::SetSeed(i.value())
        });
        html! {
            <div class="rs-scen-form">
                { for info.params.iter().enumerate().map(|(k, p)| self.param(link, k, p)) }
                <div class="rs-scen-param rs-scen-seedrow">
                    <label class="rs-scen-pname" for="rs-scen-seed">{ "seed" }</label>
                    <div class="rs-scen-control">
                        <input id="rs-scen-seed" class="rs-scen-seed" type="text" inputmode="numeric"
                               value={ self.seed.to_string() } onchange={ seed_change } />
                        <button class="rs-btn rs-primary" data-action="run-scenario" onclick={ link.callback(|_| Msg::Run) }>{ "Run" }</button>
                    </div>
                    <span class="rs-scen-help">{ "Every random choice comes from the seed: the same seed and values give the same run." }</span>
                </div>
            </div>
        }
    }

    fn param(&self, link: &html::Scope<Self>, k: usize, p: &ParamSpec) -> Html {
        let v = self.values.get(k).copied().unwrap_or(p.default);
        let on_number = link.callback(move |e: Event| {
            let i: HtmlInputElement = e.target_unchecked_into();
            Msg::SetParam(k, i.value().trim().parse().unwrap_or(f64::NAN))
        });
        let control = if p.choices.len() == 2 && p.choices[0] == "off" && p.choices[1] == "on" {
            let on_check = link.callback(move |e: Event| {
                let i: HtmlInputElement = e.target_unchecked_into();
                Msg::SetParam(k, if i.checked() { 1.0 } else { 0.0 })
            });
            html! { <input type="checkbox" class="rs-scen-flag" data-param={ p.name } checked={ v >= 0.5 } onchange={ on_check } /> }
        } else if !p.choices.is_empty() {
            let on_select = link.callback(move |e: Event| {
                let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
                Msg::SetParam(k, s.value().parse().unwrap_or(f64::NAN))
            });
            html! {
                <select class="rs-scen-select" data-param={ p.name } onchange={ on_select }>
                    { for p.choices.iter().enumerate().map(|(i, c)| html! {
                        <option value={ i.to_string() } selected={ v.round() as usize == i }>{ *c }</option>
                    }) }
                </select>
            }
        } else {
            let (min, max, step) = (fmt_num(p.min), fmt_num(p.max), fmt_num(p.step));
            html! {
                <>
                    <input type="range" class="rs-scen-range" data-param={ p.name } min={ min.clone() } max={ max.clone() }
                           step={ step.clone() } value={ fmt_num(v) } onchange={ on_number.clone() } aria-label={ p.name } />
                    <input type="number" class="rs-scen-number" data-param={ p.name } min={ min } max={ max }
                           step={ step } value={ fmt_num(v) } onchange={ on_number } aria-label={ format!("{} value", p.name) } />
                    <span class="rs-scen-unit">{ p.unit }</span>
                </>
            }
        };
        html! {
            <div class="rs-scen-param">
                <span class="rs-scen-pname">{ p.name }</span>
                <div class="rs-scen-control">{ control }</div>
                <span class="rs-scen-help">{ p.help }</span>
            </div>
        }
    }

    fn cursor(&self) -> Option<u64> {
        if self.pos + 1 >= self.stops.len() {
            None
        } else {
            self.stops.get(self.pos).copied()
        }
    }

    fn results(&self, link: &html::Scope<Self>, o: &Outcome) -> Html {
        let passed = o.checks.iter().filter(|c| c.passed).count();
        let cursor = self.cursor();
        let shown = self.stops.get(self.pos).copied().unwrap_or(0);
        let playing = self.ticker.is_some();
        let last = self.stops.len().saturating_sub(1);
        let scrub = link.callback(|e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            Msg::Scrub(i.value().parse().unwrap_or(0))
        });
        let speed = link.callback(|e: Event| {
            let s: web_sys::HtmlSelectElement = e.target_unchecked_into();
            Msg::Speed(s.value().parse().unwrap_or(1.0))
        });
        html! {
            <div class="rs-scen-results">
                <div class="rs-scen-metrics">
                    { for o.metrics.iter().map(|m| html! {
                        <div class="rs-metric">
                            <span class="rs-metric-value">{ fmt_metric(m.value) }<small>{ format!(" {}", m.unit) }</small></span>
                            <span class="rs-metric-name">{ &m.name }</span>
                        </div>
                    }) }
                </div>
                <ul class="rs-scen-checks" aria-label={ format!("{passed} of {} checks passed", o.checks.len()) }>
                    { for o.checks.iter().map(|c| html! {
                        <li class={ classes!("rs-check", if c.passed { "rs-pass" } else { "rs-fail" }) }>
                            <span class="rs-check-mark">{ if c.passed { "✓" } else { "✗" } }</span>
                            <span class="rs-check-claim">{ &c.claim }</span>
                            <span class="rs-check-detail">{ &c.detail }</span>
                        </li>
                    }) }
                </ul>
                if !o.notes.is_empty() {
                    <ul class="rs-scen-notes">{ for o.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                }
                <div class="rs-scen-play" role="group" aria-label="Playback">
                    <button class="rs-btn" data-action="step-back" title="Previous event" onclick={ link.callback(|_| Msg::Step(-1)) }>{ "‹ Prev" }</button>
                    if playing {
                        <button class="rs-btn" data-action="pause-scenario" onclick={ link.callback(|_| Msg::Pause) }>{ "❚❚ Pause" }</button>
                    } else {
                        <button class="rs-btn rs-primary" data-action="play-scenario" onclick={ link.callback(|_| Msg::Play) }>{ "▶ Play" }</button>
                    }
                    <button class="rs-btn" data-action="step-event" title={ if o.diagram.is_some() { "Next event" } else { "Step forward" } }
                            onclick={ link.callback(|_| Msg::Step(1)) }>{ "Next ›" }</button>
                    <input type="range" class="rs-scen-scrub" aria-label="Virtual time" min="0" max={ last.to_string() }
                           value={ self.pos.to_string() } oninput={ scrub } />
                    <span class="rs-scen-time">{ format!("{} / {}", redsim_viz::svg::time_exact(shown), redsim_viz::svg::time_exact(o.duration_us.max(shown))) }</span>
                    <select class="rs-scen-speed" aria-label="Speed" onchange={ speed }>
                        { for [0.25, 0.5, 1.0, 2.0, 4.0, 8.0].iter().map(|s| html! {
                            <option value={ s.to_string() } selected={ *s == self.speed }>{ format!("{s}×") }</option>
                        }) }
                    </select>
                    <span class="rs-scen-took" title="Wall time of the last run in this browser">{ format!("ran in {:.0} ms", self.took_ms) }</span>
                </div>
                if let Some(d) = &o.diagram {
                    <div class="rs-scen-svg rs-scen-diagram">{ svg_html(redsim_viz::diagram_svg(d, cursor)) }</div>
                }
                <div class="rs-scen-charts">
                    { for o.charts.iter().map(|c| {
                        let at = cursor.filter(|_| x_is_time(c)).map(|us| us as f64 / 1e6);
                        html! { <div class="rs-scen-svg rs-scen-chart">{ svg_html(redsim_viz::chart_svg(c, at)) }</div> }
                    }) }
                    { for o.strips.iter().map(|s| html! {
                        <div class="rs-scen-svg rs-scen-strip">{ svg_html(redsim_viz::strip_svg(s)) }</div>
                    }) }
                </div>
            </div>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<ParamSpec> {
        vec![
            ParamSpec::num("rate", 100.0, (1.0, 1000.0, 1.0), "req/s", "load"),
            ParamSpec::choice("protection", 0, &["none", "lock", "singleflight"], "guard"),
        ]
    }

    fn info() -> ScenarioInfo {
        ScenarioInfo {
            id: "demo",
            group: "testing",
            title: "Demo",
            claim: "c",
            look_for: "l",
            params: specs(),
        }
    }

    #[test]
    fn urls_name_the_scenario_seed_and_params() {
        let p = ScenarioPreset::from_url(
            "?scenario=stampede&seed=0x10&protection=lock&cmd=GET%20a&rate=5",
            "",
        );
        assert_eq!(p.id.as_deref(), Some("stampede"));
        assert_eq!(p.seed, Some(16));
        assert_eq!(
            p.params,
            vec![
                ("protection".into(), "lock".into()),
                ("rate".into(), "5".into())
            ]
        );
        // The fragment wins for repeated keys.
        let p = ScenarioPreset::from_url("?scenario=a&rate=1", "#rate=2");
        assert_eq!(p.params, vec![("rate".into(), "2".into())]);
        assert_eq!(ScenarioPreset::from_url("?cmd=PING", "").id, None);
    }

    #[test]
    fn links_round_trip_through_the_preset() {
        let values = vec![250.0, 2.0];
        let link = scenario_link("/play/", "demo", 7, &specs(), &values);
        assert_eq!(
            link,
            "/play/?scenario=demo&seed=7&rate=250&protection=singleflight"
        );
        let (_, q) = link.split_once('?').unwrap();
        let p = ScenarioPreset::from_url(q, "");
        let (back, err) = initial_values(&info(), &p.params);
        assert_eq!((back, err), (values, None));
        // Defaults are left out of the link.
        assert_eq!(
            scenario_link("/", "demo", 1, &specs(), &[100.0, 0.0]),
            "/?scenario=demo&seed=1"
        );
    }

    #[test]
    fn bad_overrides_fall_back_to_defaults_with_a_message() {
        let (v, err) = initial_values(&info(), &[("rate".into(), "99999".into())]);
        assert_eq!(v, vec![100.0, 0.0]);
        assert!(err.unwrap().contains("outside"));
        let (_, err) = initial_values(&info(), &[("nope".into(), "1".into())]);
        assert!(err.unwrap().contains("unknown parameter 'nope'"));
    }

    #[test]
    fn attributes_preset_an_embedded_scenario() {
        let p = ScenarioPreset::from_attrs(" stampede ", Some("3"), Some("protection=lock&seed=9"));
        assert_eq!(p.id.as_deref(), Some("stampede"));
        assert_eq!(p.seed, Some(3));
        // In data-params every key is a parameter, even `seed`.
        assert_eq!(p.params.len(), 2);
    }

    #[test]
    fn tab_links_pick_the_page_tab() {
        assert!(PageTab::from_link(Some("topology"), true) == PageTab::Topology);
        assert!(PageTab::from_link(Some("cluster"), false) == PageTab::Cluster);
        assert!(PageTab::from_link(None, true) == PageTab::Scenarios);
        assert!(PageTab::from_link(Some("nonsense"), false) == PageTab::Console);
    }

    #[test]
    fn stops_follow_the_diagram_or_sweep_the_run() {
        let mut o = Outcome {
            duration_us: 2_000_000,
            ..Outcome::default()
        };
        let s = stops(&o);
        assert_eq!(
            (s.len(), s[0], s[s.len() - 1]),
            (LINEAR_STOPS + 1, 0, 2_000_000)
        );
        o.diagram = Some(sim::Diagram {
            lanes: vec![],
            steps: vec![sim::Step {
                at_us: 5,
                until_us: 9,
                from: 0,
                to: 0,
                label: String::new(),
                error: false,
            }],
            marks: vec![],
        });
        assert_eq!(stops(&o), vec![5, 9]);
        // No duration: the charts' last x (seconds) ends the sweep.
        let mut o = Outcome::default();
        o.charts.push(
            sim::Chart::line("c", "time (s)", "y")
                .with(sim::Series::new("s", vec![(0.0, 1.0), (3.0, 2.0)])),
        );
        assert_eq!(stops(&o).last().copied(), Some(3_000_000));
        assert!(x_is_time(&o.charts[0]));
    }
}
