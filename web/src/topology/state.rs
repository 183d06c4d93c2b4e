//! The Topology tab's state and the actions that change it: the world, its clock (playing or paused, at a speed), the live settings, the timeline window, and what the tab says (details, notices, errors).
//!
//! Every button, form field and timer tick of the tab is an [`Action`] for
//! [`TopoState::apply`], so the rules are in one place and tested natively;
//! the component only keeps the timer in step with [`TopoState::playing`]
//! and writes the address bar when [`TopoState::url_due`] says so.

use redsim_sim::topology::{Control, TopoOptions, Topology};

use super::link::{Resolved, TopoPreset};
use crate::keys::Shortcut;
use redsim_sim::topology::set_option;

/// The speeds offered: virtual ms per wall ms.
pub const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 5.0, 10.0];

/// Timer period while playing, ms of wall time.
pub const TICK_MS: u32 = 50;
/// The most wall time one tick may cover (a background tab's timer fires late).
const MAX_TICK_MS: f64 = 250.0;
/// How often (wall ms) the address bar follows the clock while playing.
const URL_EVERY_MS: f64 = 1000.0;

/// Something the reader did, or the timer.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Play,
    Pause,
    Tick,
    /// Run this many ms of virtual time at once.
    Step(u64),
    Speed(f64),
    Window(u64),
    Control(Control),
    /// An option of the setup form: the world is rebuilt.
    SetOption(&'static str, String),
    Reset,
    /// Show (or clear) the details of a clicked node, link or mark.
    Detail(Option<String>),
    /// A form value that cannot be used.
    Invalid(String),
    /// A shortcut key (Space, →, [ and ], ?, Escape).
    Key(Shortcut),
    /// The window was resized: the graph is laid out again for its box.
    Redraw,
}

/// A link's script and instant, waiting for the view to be shown.
type Pending = (Vec<(u64, Control)>, Option<u64>);

pub struct TopoState {
    pub opts: TopoOptions,
    pub topo: Option<Topology>,
    /// From the link, replayed when the view is first shown.
    pending: Option<Pending>,
    pub playing: bool,
    last_wall: f64,
    carry_us: f64,
    pub speed: f64,
    pub window_s: u64,
    /// Live settings (the last SetWait / SetWriteRate, else the options').
    pub wait: i64,
    pub rate: f64,
    pub detail: Option<String>,
    pub notice: Option<String>,
    pub error: Option<String>,
    /// Wall ms the address bar was last written.
    pub url_wall: f64,
    /// The address bar should follow the session now.
    pub url_due: bool,
    /// Wall ms the last build (replay) took.
    pub took_ms: f64,
    /// Wall ms the last step of virtual time took.
    pub step_ms: f64,
    /// The page's clock (wall ms), for the timings above.
    wall: fn() -> f64,
    /// The list of shortcuts is open.
    pub keys_open: bool,
}

impl TopoState {
    /// The state a link or element asks for; nothing is built yet.
    pub fn new(preset: &TopoPreset, wall: fn() -> f64) -> TopoState {
        let r: Resolved = preset.resolve();
        TopoState {
            wait: r.opts.wait,
            rate: r.opts.writes_per_sec,
            opts: r.opts,
            topo: None,
            pending: Some((r.script, r.until_us)),
            playing: false,
            last_wall: 0.0,
            carry_us: 0.0,
            speed: 1.0,
            window_s: 10,
            detail: None,
            notice: (!r.problems.is_empty()).then(|| r.problems.join("; ")),
            error: None,
            url_wall: 0.0,
            url_due: false,
            took_ms: 0.0,
            step_ms: 0.0,
            wall,
            keys_open: false,
        }
    }

    /// A shortcut key; false when it does nothing here (there is no going
    /// back in a live world, so ← does nothing).
    fn key(&mut self, k: Shortcut) -> bool {
        let at = SPEEDS.iter().position(|s| *s == self.speed).unwrap_or(2);
        match k {
            Shortcut::PlayPause if self.playing => self.apply(Action::Pause),
            Shortcut::PlayPause => self.apply(Action::Play),
            Shortcut::Next => self.apply(Action::Step(100)),
            Shortcut::Prev => false,
            Shortcut::Slower => self.apply(Action::Speed(SPEEDS[at.saturating_sub(1)])),
            Shortcut::Faster => self.apply(Action::Speed(SPEEDS[(at + 1).min(SPEEDS.len() - 1)])),
            Shortcut::Help => {
                self.keys_open = !self.keys_open;
                true
            }
            Shortcut::Close => std::mem::take(&mut self.keys_open),
        }
    }

    /// The view is on screen: builds the world the first time (a fresh
    /// session starts running; a shared one stops where it was shared).
    pub fn show(&mut self) {
        if self.topo.is_none() {
            let fresh = self
                .pending
                .as_ref()
                .is_none_or(|(s, u)| s.is_empty() && u.is_none());
            self.build();
            if fresh {
                self.start();
            }
        }
    }

    /// Builds the world: fresh, or the link's script replayed to its instant.
    fn build(&mut self) {
        let started = (self.wall)();
        let (script, until) = self.pending.take().unwrap_or_default();
        let topo = if script.is_empty() && until.is_none() {
            Topology::new(self.opts.clone())
        } else {
            let until = until.unwrap_or_else(|| script.last().map_or(0, |(t, _)| *t));
            Topology::replay(self.opts.clone(), &script, until)
        };
        self.wait = self.opts.wait;
        self.rate = self.opts.writes_per_sec;
        for (_, c) in topo.script() {
            match c {
                Control::SetWait(w) => self.wait = *w,
                Control::SetWriteRate(r) => self.rate = *r,
                _ => {}
            }
        }
        self.topo = Some(topo);
        self.carry_us = 0.0;
        self.took_ms = (self.wall)() - started;
    }

    fn start(&mut self) {
        self.last_wall = (self.wall)();
        self.carry_us = 0.0;
        self.playing = true;
    }

    fn advance_ms(&mut self, ms: u64) {
        if let Some(t) = self.topo.as_mut() {
            let started = (self.wall)();
            let to = t.now_us() + ms * 1000;
            t.advance_to(to);
            self.step_ms = (self.wall)() - started;
        }
    }

    /// Applies `a`; false when nothing shown changed.
    pub fn apply(&mut self, a: Action) -> bool {
        match a {
            Action::Play => {
                if self.topo.is_none() {
                    self.build();
                }
                self.start();
            }
            Action::Pause => {
                self.playing = false;
                self.url_due = true;
            }
            Action::Tick => return self.tick(),
            Action::Step(ms) => {
                if self.topo.is_none() {
                    self.build();
                }
                self.advance_ms(ms);
                self.url_due = true;
            }
            Action::Speed(s) => self.speed = s,
            Action::Key(k) => return self.key(k),
            Action::Redraw => {}
            Action::Window(w) => self.window_s = w,
            Action::Control(c) => {
                let Some(topo) = self.topo.as_mut() else {
                    return false;
                };
                let (wait, rate) = match &c {
                    Control::SetWait(w) => (Some(*w), None),
                    Control::SetWriteRate(r) => (None, Some(*r)),
                    _ => (None, None),
                };
                match topo.control(c) {
                    Ok(()) => {
                        self.error = None;
                        self.wait = wait.unwrap_or(self.wait);
                        self.rate = rate.unwrap_or(self.rate);
                    }
                    Err(e) => self.error = Some(e),
                }
                self.url_due = true;
            }
            Action::SetOption(k, v) => {
                let mut o = self.opts.clone();
                match set_option(&mut o, k, &v) {
                    Ok(_) => {
                        if o.quorum > o.sentinels {
                            o.quorum = o.sentinels;
                        }
                        self.opts = o;
                        self.notice = None;
                        self.error = None;
                        self.build();
                        self.url_due = true;
                    }
                    Err(e) => self.error = Some(e),
                }
            }
            Action::Reset => {
                self.notice = None;
                self.error = None;
                self.detail = None;
                self.build();
                self.url_due = true;
            }
            Action::Detail(d) => self.detail = d,
            Action::Invalid(e) => self.error = Some(e),
        }
        true
    }

    /// One timer tick: the wall time since the last one, at the speed, in
    /// whole ms of virtual time (so controls land on round instants and
    /// links stay short).
    fn tick(&mut self) -> bool {
        if !self.playing {
            return false;
        }
        let now = (self.wall)();
        let dt = (now - self.last_wall).clamp(0.0, MAX_TICK_MS);
        self.last_wall = now;
        self.carry_us += dt * 1000.0 * self.speed;
        let ms = (self.carry_us / 1000.0).floor();
        if ms < 1.0 {
            return false;
        }
        self.carry_us -= ms * 1000.0;
        self.advance_ms(ms as u64);
        if now - self.url_wall >= URL_EVERY_MS {
            self.url_due = true;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    fn still() -> f64 {
        0.0
    }

    fn preset(q: &str) -> TopoPreset {
        TopoPreset::from_url(q, "")
    }

    #[test]
    fn fresh_sessions_play_and_shared_ones_stop_where_they_were_shared() {
        let mut t = TopoState::new(&preset("?tab=topology"), still);
        assert!(
            t.topo.is_none(),
            "nothing is built before the view is shown"
        );
        t.show();
        assert!(t.playing);
        let mut t = TopoState::new(&preset("?do=2000:kill.0&t=3000"), still);
        t.show();
        assert!(!t.playing);
        assert_eq!(t.topo.as_ref().unwrap().now_us(), 3_000_000);
    }

    #[test]
    fn ticks_run_whole_ms_of_virtual_time_at_the_speed() {
        static WALL: AtomicU64 = AtomicU64::new(0);
        fn wall() -> f64 {
            WALL.load(Ordering::Relaxed) as f64
        }
        let mut t = TopoState::new(&preset(""), wall);
        t.show();
        t.apply(Action::Speed(2.0));
        WALL.store(100, Ordering::Relaxed);
        assert!(t.apply(Action::Tick));
        assert_eq!(t.topo.as_ref().unwrap().now_us(), 200_000);
        assert!(!t.url_due, "the address bar follows once a second");
        // A late timer covers at most 250 ms of wall time.
        WALL.store(5_000, Ordering::Relaxed);
        t.apply(Action::Tick);
        assert_eq!(t.topo.as_ref().unwrap().now_us(), 700_000);
        assert!(t.url_due);
        t.apply(Action::Pause);
        assert!(!t.apply(Action::Tick), "no ticks while paused");
    }

    #[test]
    fn shortcut_keys_play_step_change_speed_and_list_themselves() {
        let mut t = TopoState::new(&preset("?do=0:wait.1&t=1000"), still);
        t.show();
        assert!(!t.playing);
        t.apply(Action::Key(Shortcut::PlayPause));
        assert!(t.playing);
        t.apply(Action::Key(Shortcut::PlayPause));
        assert!(!t.playing);
        let now = t.topo.as_ref().unwrap().now_us();
        t.apply(Action::Key(Shortcut::Next));
        assert_eq!(t.topo.as_ref().unwrap().now_us(), now + 100_000);
        assert!(!t.apply(Action::Key(Shortcut::Prev)), "no going back");
        t.apply(Action::Key(Shortcut::Faster));
        assert_eq!(t.speed, 2.0);
        t.apply(Action::Key(Shortcut::Slower));
        t.apply(Action::Key(Shortcut::Slower));
        assert_eq!(t.speed, 0.5);
        t.apply(Action::Key(Shortcut::Help));
        assert!(t.keys_open);
        assert!(t.apply(Action::Key(Shortcut::Close)));
        assert!(!t.keys_open && !t.apply(Action::Key(Shortcut::Close)));
    }

    #[test]
    fn controls_and_options_update_the_live_settings_or_say_why_not() {
        let mut t = TopoState::new(&preset("?do=0:wait.1"), still);
        t.show();
        assert_eq!(t.wait, 1, "a replayed SetWait is the live setting");
        t.apply(Action::Control(Control::SetWriteRate(40.0)));
        assert_eq!((t.rate, t.error.as_deref()), (40.0, None));
        t.apply(Action::Control(Control::Restart { node: 0 }));
        assert!(t.error.is_some(), "restarting a live node is refused");
        t.apply(Action::SetOption("sentinels", "2".into()));
        assert_eq!((t.opts.sentinels, t.opts.quorum), (2, 2), "quorum capped");
        assert_eq!(t.error, None);
        t.apply(Action::SetOption("replicas", "9".into()));
        assert!(t.error.as_deref().unwrap().contains("replicas '9'"));
        assert_eq!(t.opts.replicas, TopoOptions::default().replicas);
    }
}
