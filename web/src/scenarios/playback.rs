//! Playing an outcome back in virtual time: a cursor that advances by the wall time between timer ticks times a named speed (1× is real time, down to 1/1000× slow motion for microsecond races), the step buttons that jump between events, the scrubber as a time axis, and the bar of those controls.
//!
//! Playback never re-runs anything: it moves a cursor over the outcome's
//! own timeline, and the pictures are redrawn with it (the diagram dims
//! what has not happened yet, charts get a line).

use redsim_sim::{ChartKind, Outcome};
use redsim_viz::svg::{time, time_exact};
use yew::prelude::*;

use crate::dom::{input_value, select_value};

/// Playback timer period, ms.
pub const TICK_MS: u32 = 40;
/// Stops of a run without a diagram: Prev and Next sweep the run in this many steps.
pub const LINEAR_STOPS: usize = 200;
/// The speeds offered: virtual time per wall time, and their names.
pub const SPEEDS: [(f64, &str); 7] = [
    (0.001, "1/1000× slow motion"),
    (0.01, "1/100×"),
    (0.1, "1/10×"),
    (1.0, "1× real time"),
    (10.0, "10×"),
    (100.0, "100×"),
    (1000.0, "1000×"),
];
/// Index of 1× in [`SPEEDS`].
const REAL_TIME: usize = 3;
/// The wall time a whole run should take at the speed chosen for it, ms.
const AIM_MS: f64 = 10_000.0;
/// Most wall time one tick counts, ms: a throttled or hidden tab resumes
/// where it was rather than jumping.
const MAX_TICK_MS: f64 = 250.0;

/// Where Prev and Next stop: every diagram event, or evenly spaced instants
/// over the run when there is no diagram.
pub fn stops(o: &Outcome) -> Vec<u64> {
    if let Some(d) = &o.diagram {
        let t = redsim_viz::event_times(d);
        if !t.is_empty() {
            return t;
        }
    }
    let end = run_end(o).max(1);
    (0..=LINEAR_STOPS)
        .map(|i| (end as u128 * i as u128 / LINEAR_STOPS as u128) as u64)
        .collect()
}

/// The virtual time a run covers: its duration, or the charts' last x
/// (seconds) when it has none.
fn run_end(o: &Outcome) -> u64 {
    if o.duration_us > 0 {
        return o.duration_us;
    }
    let max_x = o
        .charts
        .iter()
        .filter(|c| c.kind == ChartKind::Line)
        .flat_map(|c| c.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)))
        .filter(|x| x.is_finite())
        .fold(0f64, f64::max);
    (max_x * 1e6) as u64
}

/// The named speed that plays `end_us` of virtual time in about ten seconds.
pub fn speed_for(end_us: u64) -> usize {
    if end_us == 0 {
        return REAL_TIME;
    }
    let ideal = end_us as f64 / 1e3 / AIM_MS;
    (0..SPEEDS.len())
        .min_by(|&a, &b| {
            let d = |i: usize| (SPEEDS[i].0 / ideal).ln().abs();
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(REAL_TIME)
}

/// The cursor over an outcome's virtual time.
pub struct Playback {
    stops: Vec<u64>,
    end_us: u64,
    t_us: f64,
    speed: usize,
    /// The reader picked the speed: new runs keep it.
    speed_chosen: bool,
    pub playing: bool,
    /// Wall time of the last tick (or of Play), ms.
    last_wall: Option<f64>,
}

impl Default for Playback {
    fn default() -> Playback {
        Playback {
            stops: Vec::new(),
            end_us: 0,
            t_us: 0.0,
            speed: REAL_TIME,
            speed_chosen: false,
            playing: false,
            last_wall: None,
        }
    }
}

/// A click on the playback bar (or its shortcut key).
pub enum PlayClick {
    Play,
    Pause,
    /// Play when paused, pause when playing.
    Toggle,
    /// To the next (positive) or previous event.
    Step(i64),
    /// To this instant, µs.
    Scrub(u64),
    /// One of [`SPEEDS`], by index.
    Speed(usize),
    /// The next named speed up or down.
    Faster,
    Slower,
}

impl Playback {
    /// A new outcome. `keep` (the same scenario run again while playing):
    /// the cursor stays where it was and playback goes on; otherwise the
    /// cursor is at the end (the whole run shown). The speed is the one
    /// the reader picked, else one that suits the run's length.
    pub fn load(&mut self, o: &Outcome, keep: bool) {
        self.stops = stops(o);
        self.end_us = run_end(o).max(self.stops.last().copied().unwrap_or(0));
        if !self.speed_chosen {
            self.speed = speed_for(self.end_us);
        }
        if keep && self.playing {
            self.t_us = self.t_us.min(self.end_us as f64);
        } else {
            self.playing = false;
            self.t_us = self.end_us as f64;
        }
    }

    /// No outcome to play.
    pub fn clear(&mut self) {
        self.stops.clear();
        self.end_us = 0;
        self.playing = false;
    }

    pub fn end_us(&self) -> u64 {
        self.end_us
    }

    /// The instant the pictures are drawn at; `None` at the end (all shown).
    pub fn cursor(&self) -> Option<u64> {
        if self.stops.is_empty() || self.t_us >= self.end_us as f64 {
            None
        } else {
            Some(self.t_us as u64)
        }
    }

    /// The instant the time label shows.
    pub fn shown_us(&self) -> u64 {
        self.t_us as u64
    }

    /// The speed's index in [`SPEEDS`].
    pub fn speed(&self) -> usize {
        self.speed
    }

    /// Applies a click at wall time `now_ms`; false when nothing changed.
    pub fn click(&mut self, c: PlayClick, now_ms: f64) -> bool {
        if self.stops.is_empty() {
            return false;
        }
        let t = self.t_us as u64;
        match c {
            PlayClick::Toggle if self.playing => return self.click(PlayClick::Pause, now_ms),
            PlayClick::Play | PlayClick::Toggle => {
                if self.t_us >= self.end_us as f64 {
                    self.t_us = 0.0;
                }
                self.last_wall = Some(now_ms);
                self.playing = true;
            }
            PlayClick::Pause => self.playing = false,
            PlayClick::Step(d) => {
                self.playing = false;
                let next = if d > 0 {
                    self.stops
                        .iter()
                        .copied()
                        .find(|&s| s > t)
                        .unwrap_or(self.end_us)
                } else {
                    let before = self.stops.partition_point(|&s| s < t);
                    if before == 0 {
                        0
                    } else {
                        self.stops[before - 1]
                    }
                };
                self.t_us = next as f64;
            }
            PlayClick::Scrub(us) => {
                self.playing = false;
                self.t_us = us.min(self.end_us) as f64;
            }
            PlayClick::Speed(i) => self.set_speed(i),
            PlayClick::Faster => self.set_speed(self.speed + 1),
            PlayClick::Slower => self.set_speed(self.speed.saturating_sub(1)),
        }
        true
    }

    fn set_speed(&mut self, i: usize) {
        self.speed = i.min(SPEEDS.len() - 1);
        self.speed_chosen = true;
    }

    /// One timer tick at wall time `now_ms`: the cursor moves by the wall
    /// time since the last tick times the speed, and stops at the end;
    /// false when nothing changed.
    pub fn tick(&mut self, now_ms: f64) -> bool {
        if !self.playing {
            return false;
        }
        let dt = (now_ms - self.last_wall.unwrap_or(now_ms)).clamp(0.0, MAX_TICK_MS);
        self.last_wall = Some(now_ms);
        self.t_us += dt * 1e3 * SPEEDS[self.speed].0;
        if self.t_us >= self.end_us as f64 {
            self.t_us = self.end_us as f64;
            self.playing = false;
        }
        dt > 0.0
    }
}

/// Five labels along the scrubber: the start, quarters and the end.
fn axis_labels(end_us: u64) -> Vec<String> {
    (0..=4u64)
        .map(|q| time((end_us as u128 * q as u128 / 4) as u64))
        .collect()
}

/// The playback bar: previous, play or pause, next, the scrubber over
/// virtual time with its axis, the time, the speed and how long the run took.
pub fn playback_bar(pb: &Playback, o: &Outcome, took_ms: f64, on: &Callback<PlayClick>) -> Html {
    let shown = pb.shown_us();
    let end = pb.end_us();
    let scrub = on.reform(|e: InputEvent| {
        PlayClick::Scrub(input_value(&e).parse::<f64>().unwrap_or(0.0).max(0.0) as u64)
    });
    let speed =
        on.reform(|e: Event| PlayClick::Speed(select_value(&e).parse().unwrap_or(REAL_TIME)));
    let now = format!("{} / {}", time_exact(shown), time_exact(end.max(shown)));
    html! {
        <div class="rs-scen-play" role="group" aria-label="Playback">
            <button class="rs-btn" data-action="step-back" title="Previous event (←)" onclick={ on.reform(|_| PlayClick::Step(-1)) }>{ "‹ Prev" }</button>
            if pb.playing {
                <button class="rs-btn" data-action="pause-scenario" title="Pause (Space)" onclick={ on.reform(|_| PlayClick::Pause) }>{ "❚❚ Pause" }</button>
            } else {
                <button class="rs-btn rs-primary" data-action="play-scenario" title="Play (Space)" onclick={ on.reform(|_| PlayClick::Play) }>{ "▶ Play" }</button>
            }
            <button class="rs-btn" data-action="step-event" title={ if o.diagram.is_some() { "Next event (→)" } else { "Step forward (→)" } }
                    onclick={ on.reform(|_| PlayClick::Step(1)) }>{ "Next ›" }</button>
            <div class="rs-scen-scrubbox">
                <input type="range" class="rs-scen-scrub" aria-label="Virtual time" aria-valuetext={ now.clone() }
                       min="0" max={ end.to_string() } step="1" value={ shown.to_string() } oninput={ scrub } />
                <div class="rs-scen-axis" aria-hidden="true">
                    { for axis_labels(end).into_iter().map(|l| html! { <span>{ l }</span> }) }
                </div>
            </div>
            <span class="rs-scen-time" data-us={ shown.to_string() } aria-live="off">{ now }</span>
            <select class="rs-scen-speed" aria-label="Speed" title="Speed ([ slower, ] faster)" onchange={ speed }>
                { for SPEEDS.iter().enumerate().map(|(i, (_, name))| html! {
                    <option value={ i.to_string() } selected={ i == pb.speed() }>{ *name }</option>
                }) }
            </select>
            <span class="rs-scen-took" title="Wall time of the last run in this browser">{ format!("ran in {:.0} ms", took_ms) }</span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_sim as sim;

    fn diagram_outcome() -> Outcome {
        let step = |at_us, until_us| sim::Step {
            at_us,
            until_us,
            from: 0,
            to: 0,
            label: String::new(),
            error: false,
        };
        Outcome {
            duration_us: 2_000,
            diagram: Some(sim::Diagram {
                lanes: vec![],
                steps: vec![step(5, 9), step(100, 1_500)],
                marks: vec![],
            }),
            ..Outcome::default()
        }
    }

    #[test]
    fn stops_follow_the_diagram_or_sweep_the_run() {
        let o = Outcome {
            duration_us: 2_000_000,
            ..Outcome::default()
        };
        let s = stops(&o);
        assert_eq!(
            (s.len(), s[0], s[s.len() - 1]),
            (LINEAR_STOPS + 1, 0, 2_000_000)
        );
        assert_eq!(stops(&diagram_outcome()), vec![5, 9, 100, 1_500]);
        // No duration: the charts' last x (seconds) ends the sweep.
        let mut o = Outcome::default();
        o.charts.push(
            sim::Chart::line("c", "time (s)", "y")
                .with(sim::Series::new("s", vec![(0.0, 1.0), (3.0, 2.0)])),
        );
        assert_eq!(stops(&o).last().copied(), Some(3_000_000));
    }

    #[test]
    fn one_x_is_real_time_and_the_end_stops_playback() {
        let o = Outcome {
            duration_us: 60_000_000,
            ..Outcome::default()
        };
        let mut pb = Playback::default();
        pb.load(&o, false);
        assert_eq!(pb.cursor(), None, "the whole run shown");
        assert_eq!(SPEEDS[pb.speed()].0, 10.0, "a minute plays in about 6 s");
        pb.click(PlayClick::Speed(REAL_TIME), 0.0);
        assert!(pb.click(PlayClick::Play, 1_000.0));
        assert_eq!(pb.cursor(), Some(0), "play from the end starts over");
        assert!(pb.tick(1_040.0));
        assert!(pb.tick(1_080.0));
        assert_eq!(
            pb.shown_us(),
            80_000,
            "80 ms of wall time is 80 ms of virtual time"
        );
        // A long pause between ticks (a hidden tab) counts as one short tick.
        pb.tick(60_000.0);
        assert_eq!(pb.shown_us(), 80_000 + 250_000);
        pb.click(PlayClick::Slower, 0.0);
        pb.tick(60_100.0);
        assert_eq!(pb.shown_us(), 330_000 + 10_000, "1/10×");
        pb.click(PlayClick::Speed(99), 0.0);
        assert_eq!(pb.speed(), SPEEDS.len() - 1, "the fastest");
        pb.click(PlayClick::Scrub(59_999_000), 0.0);
        assert!(!pb.playing, "scrubbing pauses");
        pb.click(PlayClick::Toggle, 70_000.0);
        assert!(pb.playing);
        pb.tick(70_001.0);
        assert!(!pb.playing && pb.cursor().is_none(), "stopped at the end");
        pb.clear();
        assert!(!pb.click(PlayClick::Play, 0.0), "nothing to play");
    }

    #[test]
    fn steps_jump_between_events_from_anywhere() {
        let o = diagram_outcome();
        let mut pb = Playback::default();
        pb.load(&o, false);
        assert_eq!(pb.end_us(), 2_000);
        assert_eq!(
            SPEEDS[pb.speed()].0,
            0.001,
            "a 2 ms race plays in slow motion"
        );
        pb.click(PlayClick::Scrub(50), 0.0);
        pb.click(PlayClick::Step(1), 0.0);
        assert_eq!(pb.shown_us(), 100);
        pb.click(PlayClick::Step(-1), 0.0);
        pb.click(PlayClick::Step(-1), 0.0);
        assert_eq!(pb.shown_us(), 5);
        pb.click(PlayClick::Step(-1), 0.0);
        assert_eq!(pb.shown_us(), 0);
        pb.click(PlayClick::Scrub(1_600), 0.0);
        pb.click(PlayClick::Step(1), 0.0);
        assert_eq!(
            (pb.shown_us(), pb.cursor()),
            (2_000, None),
            "past the last event: the end"
        );
    }

    #[test]
    fn a_new_run_while_playing_keeps_playing_and_a_chosen_speed() {
        let o = diagram_outcome();
        let mut pb = Playback::default();
        pb.load(&o, false);
        pb.click(PlayClick::Faster, 0.0);
        pb.click(PlayClick::Play, 0.0);
        pb.tick(100.0);
        let t = pb.shown_us();
        pb.load(&o, true);
        assert!(pb.playing && pb.shown_us() == t);
        assert_eq!(pb.speed(), 1, "the speed picked stays");
        pb.load(&o, false);
        assert!(!pb.playing && pb.cursor().is_none());
    }

    #[test]
    fn the_axis_is_labelled_in_virtual_time() {
        assert_eq!(
            axis_labels(2_000),
            vec!["0 µs", "500 µs", "1 ms", "1.5 ms", "2 ms"]
        );
    }
}
