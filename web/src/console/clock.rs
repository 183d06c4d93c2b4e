//! The console's clock: the driver that moves the engine's virtual clock (following wall time, or paused and stepped by buttons) and the clock controls that switch it. Only this crate reads wall time; the engine never does.
//!
//! In real-time mode the virtual clock is anchored to a pair (wall instant,
//! virtual instant) and follows `performance.now()` from there. Pausing,
//! stepping and resuming re-anchor, so virtual time never jumps back and a
//! step taken while running is kept.

use web_sys::Element;

use crate::fmt::fmt_clock;
use crate::ui::{set_text, toggle, El};

/// How virtual time moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Follows wall time.
    RealTime,
    /// Moves only with the step buttons.
    Paused,
}

/// The mapping from wall time to virtual time.
#[derive(Clone, Debug)]
pub struct Driver {
    pub mode: Mode,
    anchor_wall_ms: f64,
    anchor_virtual_us: u64,
}

impl Driver {
    /// A driver in `mode`, anchored at `virtual_us` = `wall_ms`.
    pub fn new(mode: Mode, virtual_us: u64, wall_ms: f64) -> Driver {
        Driver {
            mode,
            anchor_wall_ms: wall_ms,
            anchor_virtual_us: virtual_us,
        }
    }

    /// Where virtual time should be at `wall_ms`, in real-time mode.
    /// A wall clock that went back (it should not) holds virtual time still.
    pub fn target_us(&self, wall_ms: f64) -> Option<u64> {
        match self.mode {
            Mode::Paused => None,
            Mode::RealTime => {
                let elapsed_ms = (wall_ms - self.anchor_wall_ms).max(0.0);
                Some(self.anchor_virtual_us + (elapsed_ms * 1000.0) as u64)
            }
        }
    }

    /// Anchors the mapping at (`wall_ms`, `virtual_us`): after a step, a
    /// pause or a resume.
    pub fn reanchor(&mut self, virtual_us: u64, wall_ms: f64) {
        self.anchor_wall_ms = wall_ms;
        self.anchor_virtual_us = virtual_us;
    }

    /// Switches mode, re-anchoring so time continues from `virtual_us`.
    pub fn set_mode(&mut self, mode: Mode, virtual_us: u64, wall_ms: f64) {
        self.mode = mode;
        self.reanchor(virtual_us, wall_ms);
    }
}

/// A click on the clock controls.
/// The clock's step buttons: (virtual µs, label, `data-action`).
pub const STEPS: [(u64, &str, &str); 3] = [
    (100_000, "100 ms", "step-100ms"),
    (1_000_000, "1 s", "step-1s"),
    (60_000_000, "1 min", "step-1min"),
];

/// The clock's buttons: Pause or Real time, then the steps. Clicks are
/// read by the widget from their `data-action`.
pub fn clock_buttons(paused: bool) -> Vec<El> {
    let mode = if paused {
        El::new("button")
            .cls("rs-btn rs-play")
            .attr("data-action", "play")
            .attr("title", "Follow wall time")
            .child(El::new("span").cls("rs-icon").text("▶"))
            .text("Real time")
    } else {
        El::new("button")
            .cls("rs-btn rs-pause")
            .attr("data-action", "pause")
            .attr("title", "Stop the virtual clock")
            .child(El::new("span").cls("rs-icon").text("❚❚"))
            .text("Pause")
    };
    std::iter::once(mode)
        .chain(STEPS.iter().map(|(_, label, action)| {
            El::new("button")
                .cls("rs-btn")
                .attr("data-action", action)
                .attr("title", &format!("Advance virtual time by {label}"))
                .text(&format!("+{label}"))
        }))
        .collect()
}

/// The virtual time shown beside the buttons, and whether it runs.
pub struct TimeView {
    pub root: Element,
    label: Element,
    time: Element,
}

impl TimeView {
    pub fn new() -> TimeView {
        let label = El::new("span").cls("rs-time-label").el();
        let time = El::new("span").cls("rs-clock-time").el();
        let root = El::new("div")
            .cls("rs-time")
            .attr("title", "Virtual time since start")
            .child(El::new("span").cls("rs-dot"))
            .child(El(label.clone()))
            .child(El(time.clone()))
            .el();
        TimeView { root, label, time }
    }

    pub fn show(&self, paused: bool, now_us: u64) {
        toggle(&self.root, "rs-time-paused", paused);
        set_text(&self.label, if paused { "paused" } else { "live" });
        set_text(&self.time, &fmt_clock(now_us));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_time_follows_wall_time_from_the_anchor() {
        let d = Driver::new(Mode::RealTime, 5_000_000, 1000.0);
        assert_eq!(d.target_us(1000.0), Some(5_000_000));
        assert_eq!(d.target_us(1250.5), Some(5_250_500));
        assert_eq!(d.target_us(900.0), Some(5_000_000));
    }

    #[test]
    fn paused_has_no_target_and_resume_continues_from_virtual_now() {
        let mut d = Driver::new(Mode::RealTime, 0, 0.0);
        d.set_mode(Mode::Paused, 2_000_000, 2000.0);
        assert_eq!(d.target_us(9000.0), None);
        // Stepped 1 s while paused, resumed 10 s of wall time later.
        d.set_mode(Mode::RealTime, 3_000_000, 12_000.0);
        assert_eq!(d.target_us(12_500.0), Some(3_500_000));
    }
}
