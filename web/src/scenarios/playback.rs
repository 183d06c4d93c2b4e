//! Playing an outcome back: the instants the cursor stops at (every diagram event, or a sweep of the run), the cursor moved by a timer, the step buttons and the scrubber, and the bar of those controls.
//!
//! Playback never re-runs anything: it moves a cursor over the outcome's
//! own timeline, and the pictures are redrawn with it (the diagram dims
//! what has not happened yet, charts get a line).

use redsim_sim::{ChartKind, Outcome};
use yew::prelude::*;

use crate::dom::{input_value, select_value};

/// Playback timer period, ms.
pub const TICK_MS: u32 = 50;
/// Real time one diagram event lasts at 1× speed, ms.
const EVENT_MS: f64 = 400.0;
/// Stops of a run without a diagram: the cursor sweeps the run in this many steps.
pub const LINEAR_STOPS: usize = 200;
/// Real time one linear stop lasts at 1× (a whole run plays in 12 s).
const LINEAR_MS: f64 = 60.0;
/// The speeds offered.
const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];

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

/// The cursor over an outcome's stops.
pub struct Playback {
    stops: Vec<u64>,
    pub pos: usize,
    pub speed: f64,
    acc_ms: f64,
    pub playing: bool,
    /// Real time one stop lasts at 1×.
    per_stop_ms: f64,
}

impl Default for Playback {
    fn default() -> Playback {
        Playback {
            stops: Vec::new(),
            pos: 0,
            speed: 1.0,
            acc_ms: 0.0,
            playing: false,
            per_stop_ms: LINEAR_MS,
        }
    }
}

/// A click on the playback bar.
pub enum PlayClick {
    Play,
    Pause,
    /// Move the cursor by this many stops.
    Step(i64),
    Scrub(usize),
    Speed(f64),
}

impl Playback {
    /// A new outcome: its stops, the cursor at the end (the whole run shown).
    pub fn load(&mut self, o: &Outcome) {
        self.stops = stops(o);
        self.pos = self.last();
        self.per_stop_ms = if o.diagram.is_some() {
            EVENT_MS
        } else {
            LINEAR_MS
        };
    }

    /// No outcome to play.
    pub fn clear(&mut self) {
        self.stops.clear();
    }

    pub fn last(&self) -> usize {
        self.stops.len().saturating_sub(1)
    }

    /// The instant the pictures are drawn at; `None` at the end (all shown).
    pub fn cursor(&self) -> Option<u64> {
        if self.pos + 1 >= self.stops.len() {
            None
        } else {
            self.stops.get(self.pos).copied()
        }
    }

    /// The instant the time label shows.
    pub fn shown_us(&self) -> u64 {
        self.stops.get(self.pos).copied().unwrap_or(0)
    }

    /// Applies a click; false when nothing changed.
    pub fn click(&mut self, c: PlayClick) -> bool {
        match c {
            PlayClick::Play => {
                if self.stops.is_empty() {
                    return false;
                }
                if self.pos + 1 >= self.stops.len() {
                    self.pos = 0;
                }
                self.acc_ms = 0.0;
                self.playing = true;
            }
            PlayClick::Pause => self.playing = false,
            PlayClick::Step(d) => {
                self.playing = false;
                self.pos = (self.pos as i64 + d).clamp(0, self.last() as i64) as usize;
            }
            PlayClick::Scrub(p) => {
                self.playing = false;
                self.pos = p.min(self.last());
            }
            PlayClick::Speed(s) => self.speed = s,
        }
        true
    }

    /// One timer tick: the cursor moves by the stops `TICK_MS` covers at
    /// this speed, and stops at the end; false when nothing changed.
    pub fn tick(&mut self) -> bool {
        if !self.playing {
            return false;
        }
        self.acc_ms += TICK_MS as f64 * self.speed;
        let mut moved = false;
        while self.acc_ms >= self.per_stop_ms {
            self.acc_ms -= self.per_stop_ms;
            if self.pos + 1 < self.stops.len() {
                self.pos += 1;
                moved = true;
            }
        }
        if self.pos + 1 >= self.stops.len() {
            self.playing = false;
            return true;
        }
        moved
    }
}

/// The playback bar: previous, play or pause, next, the scrubber, the
/// time, the speed and how long the run took.
pub fn playback_bar(pb: &Playback, o: &Outcome, took_ms: f64, on: &Callback<PlayClick>) -> Html {
    let shown = pb.shown_us();
    let scrub = on.reform(|e: InputEvent| PlayClick::Scrub(input_value(&e).parse().unwrap_or(0)));
    let speed = on.reform(|e: Event| PlayClick::Speed(select_value(&e).parse().unwrap_or(1.0)));
    html! {
        <div class="rs-scen-play" role="group" aria-label="Playback">
            <button class="rs-btn" data-action="step-back" title="Previous event" onclick={ on.reform(|_| PlayClick::Step(-1)) }>{ "‹ Prev" }</button>
            if pb.playing {
                <button class="rs-btn" data-action="pause-scenario" onclick={ on.reform(|_| PlayClick::Pause) }>{ "❚❚ Pause" }</button>
            } else {
                <button class="rs-btn rs-primary" data-action="play-scenario" onclick={ on.reform(|_| PlayClick::Play) }>{ "▶ Play" }</button>
            }
            <button class="rs-btn" data-action="step-event" title={ if o.diagram.is_some() { "Next event" } else { "Step forward" } }
                    onclick={ on.reform(|_| PlayClick::Step(1)) }>{ "Next ›" }</button>
            <input type="range" class="rs-scen-scrub" aria-label="Virtual time" min="0" max={ pb.last().to_string() }
                   value={ pb.pos.to_string() } oninput={ scrub } />
            <span class="rs-scen-time">{ format!("{} / {}", redsim_viz::svg::time_exact(shown), redsim_viz::svg::time_exact(o.duration_us.max(shown))) }</span>
            <select class="rs-scen-speed" aria-label="Speed" onchange={ speed }>
                { for SPEEDS.iter().map(|s| html! {
                    <option value={ s.to_string() } selected={ *s == pb.speed }>{ format!("{s}×") }</option>
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
    }

    #[test]
    fn the_cursor_plays_to_the_end_and_stops() {
        let o = Outcome {
            duration_us: 1_000_000,
            ..Outcome::default()
        };
        let mut pb = Playback::default();
        pb.load(&o);
        assert_eq!(
            (pb.pos, pb.cursor()),
            (LINEAR_STOPS, None),
            "the whole run shown"
        );
        assert!(pb.click(PlayClick::Play));
        assert_eq!(pb.pos, 0, "play from the end starts over");
        pb.click(PlayClick::Speed(2.0));
        // 50 ms at 2× covers 100 ms: one stop of 60 ms, 40 ms carried.
        assert!(pb.tick());
        assert_eq!(pb.pos, 1);
        assert_eq!(pb.cursor(), Some(5_000));
        pb.click(PlayClick::Scrub(LINEAR_STOPS - 1));
        assert!(!pb.playing, "scrubbing pauses");
        pb.click(PlayClick::Play);
        while pb.playing {
            pb.tick();
        }
        assert_eq!(pb.pos, LINEAR_STOPS);
        pb.click(PlayClick::Step(-5));
        assert_eq!(pb.shown_us(), 975_000);
        pb.clear();
        assert!(!pb.click(PlayClick::Play), "nothing to play");
    }
}
