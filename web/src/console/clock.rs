//! The console's clock: the driver that moves the engine's virtual clock (following wall time, or paused and stepped by buttons) and the clock controls that switch it. Only this crate reads wall time; the engine never does.
//!
//! In real-time mode the virtual clock is anchored to a pair (wall instant,
//! virtual instant) and follows `performance.now()` from there. Pausing,
//! stepping and resuming re-anchor, so virtual time never jumps back and a
//! step taken while running is kept.

use yew::prelude::*;

use crate::fmt::fmt_clock;

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
pub enum ClockClick {
    Mode(Mode),
    /// Advance virtual time by this many µs.
    Step(u64),
}

/// The play/pause button, the step buttons and the virtual time now.
pub fn clock_controls(paused: bool, now_us: u64, on: &Callback<ClockClick>) -> Html {
    let step = |us: u64, label: &'static str, action: &'static str| {
        html! {
            <button class="rs-btn" data-action={action} title={ format!("Advance virtual time by {label}") }
                    onclick={ on.reform(move |_| ClockClick::Step(us)) }>{ format!("+{label}") }</button>
        }
    };
    html! {
        <>
            <div class="rs-clock" role="group" aria-label="Virtual clock">
                if paused {
                    <button class="rs-btn rs-play" data-action="play" title="Follow wall time"
                            onclick={ on.reform(|_| ClockClick::Mode(Mode::RealTime)) }>
                        <span class="rs-icon">{ "▶" }</span>{ "Real time" }
                    </button>
                } else {
                    <button class="rs-btn rs-pause" data-action="pause" title="Stop the virtual clock"
                            onclick={ on.reform(|_| ClockClick::Mode(Mode::Paused)) }>
                        <span class="rs-icon">{ "❚❚" }</span>{ "Pause" }
                    </button>
                }
                { step(100_000, "100 ms", "step-100ms") }
                { step(1_000_000, "1 s", "step-1s") }
                { step(60_000_000, "1 min", "step-1min") }
            </div>
            <div class={ classes!("rs-time", paused.then_some("rs-time-paused")) } title="Virtual time since start">
                <span class="rs-dot"></span>
                <span class="rs-time-label">{ if paused { "paused" } else { "live" } }</span>
                <span class="rs-clock-time">{ fmt_clock(now_us) }</span>
            </div>
        </>
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
