//! The scenario library's state and the actions that change it: the catalogue, the scenario selected, its form values and seed, the last outcome (or error) and its playback.
//!
//! A scenario run is a pure function of (id, seed, parameters), so the
//! library keeps no engine: every change of the form runs the scenario
//! again ([`LibraryState::apply`]). Rules live here and are tested natively;
//! the component keeps the playback timer in step and writes the address
//! bar when [`LibraryState::url_due`] says so.

use std::rc::Rc;

use redsim_sim::params::{fmt_num, parse_seed};
use redsim_sim::{self as sim, Outcome, ParamSpec, ScenarioInfo};

use super::form::FormInput;
use super::playback::{PlayClick, Playback};
use super::preset::{initial_values, scenario_link, ScenarioPreset};
use crate::keys::Shortcut;

/// Seed when neither the link nor the element gives one; `redsim run` uses the same.
pub const DEFAULT_SEED: u64 = 1;

/// Something the reader did, or the playback timer.
pub enum Action {
    Select(usize),
    /// Back or Forward reached this scenario's address: show it as it was.
    Open(ScenarioPreset),
    Form(FormInput),
    Play(PlayClick),
    Tick,
    /// The diagram's box is this wide, px.
    Width(f64),
    /// A shortcut key.
    Key(Shortcut),
    /// Close the list of shortcuts.
    CloseKeys,
}

pub struct LibraryState {
    pub infos: Vec<ScenarioInfo>,
    pub selected: Option<usize>,
    pub values: Vec<f64>,
    pub seed: u64,
    pub outcome: Option<Rc<Outcome>>,
    pub error: Option<String>,
    /// A problem with the link or element that preset the form (shown until the user changes something).
    pub notice: Option<String>,
    /// Whether a run was attempted (the library runs once it is first shown).
    pub tried: bool,
    /// Wall time the last run took, ms.
    pub took_ms: f64,
    pub playback: Playback,
    /// The form changed: the address bar should follow.
    pub url_due: bool,
    /// Another scenario was chosen: its address is a new history entry,
    /// so Back returns to the one before.
    pub history_due: bool,
    /// The page's clock (wall ms), to time runs.
    wall: fn() -> f64,
    /// Width of the diagram's box, px (the diagram is laid out to it).
    pub diagram_w: f64,
    /// The reader chose a scenario: its title should scroll into view.
    pub title_due: bool,
    /// The list of shortcuts is open.
    pub keys_open: bool,
}

impl LibraryState {
    /// The library a link or element asks for; nothing is run yet.
    pub fn new(p: &ScenarioPreset, wall: fn() -> f64) -> LibraryState {
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
        let mut lib = LibraryState {
            infos,
            selected,
            values: Vec::new(),
            seed: p.seed.unwrap_or(DEFAULT_SEED),
            outcome: None,
            error: None,
            notice: None,
            tried: false,
            took_ms: 0.0,
            playback: Playback::default(),
            url_due: false,
            history_due: false,
            wall,
            diagram_w: redsim_viz::DIAGRAM_WIDTH,
            title_due: false,
            keys_open: false,
        };
        if let Some(i) = selected {
            let (values, err) = initial_values(&lib.infos[i], &p.params);
            lib.values = values;
            error = error.or(err);
        }
        lib.notice = error;
        lib
    }

    /// The scenario selected.
    pub fn info(&self) -> Option<&ScenarioInfo> {
        self.selected.and_then(|i| self.infos.get(i))
    }

    fn spec(&self, k: usize) -> Option<&ParamSpec> {
        self.info().and_then(|s| s.params.get(k))
    }

    /// The link that reopens the form as it is, on the page at `base`.
    pub fn link(&self, base: &str) -> Option<String> {
        let info = self.info()?;
        Some(scenario_link(
            base,
            info.id,
            self.seed,
            &info.params,
            &self.values,
        ))
    }

    /// Applies `a`; false when nothing shown changed.
    pub fn apply(&mut self, a: Action) -> bool {
        match a {
            Action::Select(i) => {
                if i < self.infos.len() {
                    self.history_due |= self.selected != Some(i);
                    self.selected = Some(i);
                    self.values = self.infos[i].params.iter().map(|p| p.default).collect();
                    self.playback = Playback::default();
                    self.title_due = true;
                    self.run(true);
                }
            }
            Action::Open(p) => {
                let same = p.id.as_deref() == self.info().map(|s| s.id);
                let fresh = LibraryState::new(&p, self.wall);
                if p.id.is_none()
                    || (same && fresh.values == self.values && fresh.seed == self.seed)
                {
                    return false;
                }
                self.selected = fresh.selected;
                self.values = fresh.values;
                self.seed = fresh.seed;
                self.notice = fresh.notice;
                self.playback = Playback::default();
                self.run(false);
            }
            Action::Form(FormInput::Param(k, v)) => {
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
                self.run(true);
            }
            Action::Form(FormInput::Seed(text)) => match parse_seed(&text) {
                Some(s) => {
                    self.seed = s;
                    self.run(true);
                }
                None => {
                    self.error = Some(format!("seed '{text}' is not a number (decimal or 0x hex)"));
                }
            },
            Action::Form(FormInput::Run) => self.run(true),
            Action::Play(c) => return self.playback.click(c, (self.wall)()),
            Action::Tick => return self.playback.tick((self.wall)()),
            Action::Width(w) => {
                if !w.is_finite() || w < 1.0 || (w - self.diagram_w).abs() < 1.0 {
                    return false;
                }
                self.diagram_w = w;
            }
            Action::Key(k) => return self.key(k),
            Action::CloseKeys => {
                let was = self.keys_open;
                self.keys_open = false;
                return was;
            }
        }
        true
    }

    /// A shortcut key; false when it does nothing here.
    fn key(&mut self, k: Shortcut) -> bool {
        let now = (self.wall)();
        let click = match k {
            Shortcut::Help => {
                self.keys_open = !self.keys_open;
                return true;
            }
            Shortcut::Close => return self.apply(Action::CloseKeys),
            _ if self.outcome.is_none() => return false,
            Shortcut::PlayPause => PlayClick::Toggle,
            Shortcut::Prev => PlayClick::Step(-1),
            Shortcut::Next => PlayClick::Step(1),
            Shortcut::Slower => PlayClick::Slower,
            Shortcut::Faster => PlayClick::Faster,
        };
        self.playback.click(click, now)
    }

    /// Whether the run shown is the variant meant to show the bug (its
    /// failing checks are the point, not a regression).
    pub fn shows_bug(&self) -> bool {
        self.info().is_some_and(|i| sim::shows_bug(i, &self.values))
    }

    /// Runs the selected scenario with the form's values; a `user` run
    /// (not the first one) clears the preset's notice and moves the
    /// address bar. Playing goes on over the new run (a parameter changed
    /// while it played); choosing another scenario resets playback first.
    pub fn run(&mut self, user: bool) {
        self.tried = true;
        if user {
            self.notice = None;
        }
        let Some(info) = self.info() else {
            return;
        };
        let id = info.id;
        let overrides: Vec<(String, String)> = info
            .params
            .iter()
            .zip(&self.values)
            .map(|(p, v)| (p.name.to_string(), fmt_num(*v)))
            .collect();
        let started = (self.wall)();
        match sim::run(id, self.seed, &overrides) {
            Ok(o) => {
                self.took_ms = (self.wall)() - started;
                self.playback.load(&o, true);
                self.outcome = Some(Rc::new(o));
                self.error = None;
            }
            Err(e) => {
                self.error = Some(e);
                self.outcome = None;
                self.playback.clear();
            }
        }
        self.url_due |= user;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn still() -> f64 {
        0.0
    }

    #[test]
    fn a_link_selects_the_scenario_and_bad_parts_are_noticed() {
        let lib = LibraryState::new(
            &ScenarioPreset::from_url("?scenario=stampede&seed=4", ""),
            still,
        );
        assert_eq!(lib.info().unwrap().id, "stampede");
        assert_eq!(
            (lib.seed, lib.tried, lib.notice.as_deref()),
            (4, false, None)
        );
        let lib = LibraryState::new(&ScenarioPreset::from_url("?scenario=nope", ""), still);
        assert_eq!(lib.selected, Some(0), "the first one instead");
        assert_eq!(lib.notice.as_deref(), Some("unknown scenario 'nope'"));
    }

    #[test]
    fn form_changes_run_again_and_move_the_address_bar() {
        let mut lib = LibraryState::new(&ScenarioPreset::from_url("?scenario=stampede", ""), still);
        lib.run(false);
        assert!(lib.outcome.is_some() && !lib.url_due);
        let first = lib.outcome.clone().unwrap();
        lib.apply(Action::Form(FormInput::Seed("0x10".into())));
        assert_eq!(lib.seed, 16);
        assert!(lib.url_due);
        assert!(
            !Rc::ptr_eq(&first, lib.outcome.as_ref().unwrap()),
            "a new run"
        );
        assert!(lib
            .link("/p/")
            .unwrap()
            .starts_with("/p/?scenario=stampede&seed=16"));
        lib.apply(Action::Form(FormInput::Seed("x".into())));
        assert!(lib.error.as_deref().unwrap().contains("seed 'x'"));
        // Values are clamped to the parameter's range; NaN means the default.
        lib.apply(Action::Form(FormInput::Param(0, f64::INFINITY)));
        let spec = &lib.info().unwrap().params[0];
        assert_eq!(lib.values[0], spec.default);
        lib.apply(Action::Form(FormInput::Param(0, 1e18)));
        assert_eq!(lib.values[0], lib.info().unwrap().params[0].max);
    }

    #[test]
    fn selecting_resets_the_values_and_stops_playback_but_a_parameter_does_not() {
        let mut lib = LibraryState::new(&ScenarioPreset::default(), still);
        lib.run(false);
        lib.apply(Action::Play(PlayClick::Play));
        assert!(lib.playback.playing);
        lib.apply(Action::Form(FormInput::Param(0, lib.values[0] + 1.0)));
        assert!(lib.playback.playing, "a parameter changed while playing");
        lib.apply(Action::Select(1));
        assert!(!lib.playback.playing);
        assert!(lib.title_due, "the title should scroll into view");
        let defaults: Vec<f64> = lib.infos[1].params.iter().map(|p| p.default).collect();
        assert_eq!(lib.values, defaults);
        assert!(
            !lib.apply(Action::Form(FormInput::Param(99, 1.0))),
            "no such parameter"
        );
    }

    #[test]
    fn another_scenario_is_a_history_entry_and_back_reopens_the_one_before() {
        let mut lib = LibraryState::new(&ScenarioPreset::default(), still);
        lib.run(false);
        let first = lib.link("/").unwrap();
        lib.apply(Action::Select(0));
        assert!(!lib.history_due, "the same scenario again is no new entry");
        lib.apply(Action::Select(2));
        assert!(lib.history_due && lib.url_due);
        lib.history_due = false;
        lib.apply(Action::Form(FormInput::Param(0, lib.values[0] + 1.0)));
        assert!(!lib.history_due, "a form change replaces the address");
        lib.url_due = false;
        // Back: the first scenario's address.
        let (_, query) = first.split_once('?').unwrap();
        assert!(lib.apply(Action::Open(ScenarioPreset::from_url(query, ""))));
        assert_eq!(lib.selected, Some(0));
        assert_eq!(lib.link("/").unwrap(), first);
        assert!(
            !lib.url_due && !lib.history_due,
            "Back writes no address of its own"
        );
        assert!(!lib.apply(Action::Open(ScenarioPreset::from_url(query, ""))));
        assert!(!lib.apply(Action::Open(ScenarioPreset::from_url("tab=console", ""))));
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;

    fn still() -> f64 {
        0.0
    }

    #[test]
    fn shortcuts_drive_playback_and_the_help() {
        let mut lib = LibraryState::new(
            &ScenarioPreset::from_url("?scenario=delete-before-update", ""),
            still,
        );
        lib.run(false);
        assert!(lib.apply(Action::Key(Shortcut::PlayPause)));
        assert!(lib.playback.playing);
        lib.apply(Action::Key(Shortcut::PlayPause));
        assert!(!lib.playback.playing);
        let speed = lib.playback.speed();
        lib.apply(Action::Key(Shortcut::Faster));
        assert_eq!(lib.playback.speed(), speed + 1);
        lib.apply(Action::Key(Shortcut::Slower));
        lib.apply(Action::Key(Shortcut::Slower));
        assert_eq!(lib.playback.speed(), speed - 1);
        lib.apply(Action::Key(Shortcut::Prev));
        let t = lib.playback.shown_us();
        lib.apply(Action::Key(Shortcut::Next));
        assert!(lib.playback.shown_us() > t);
        lib.apply(Action::Key(Shortcut::Help));
        assert!(lib.keys_open);
        assert!(lib.apply(Action::Key(Shortcut::Close)));
        assert!(!lib.keys_open);
        assert!(!lib.apply(Action::Key(Shortcut::Close)), "nothing to close");
    }

    #[test]
    fn the_buggy_variant_is_named() {
        let lib = LibraryState::new(
            &ScenarioPreset::from_url("?scenario=redis-outage&guard=fail-open", ""),
            still,
        );
        assert!(lib.shows_bug(), "failing open is the unprotected run");
        let lib = LibraryState::new(
            &ScenarioPreset::from_url("?scenario=redis-outage", ""),
            still,
        );
        assert!(!lib.shows_bug(), "the default guard protects");
    }
}
