//! Drives the engine's virtual clock from the page: following wall time, or paused and stepped by buttons. Only this crate reads wall time; the engine never does.
//!
//! In real-time mode the virtual clock is anchored to a pair (wall instant,
//! virtual instant) and follows `performance.now()` from there. Pausing,
//! stepping and resuming re-anchor, so virtual time never jumps back and a
//! step taken while running is kept.

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

/// Virtual time as the clock bar shows it: `h:mm:ss.mmm` from the start.
pub fn fmt_clock(us: u64) -> String {
    let ms = us / 1000;
    let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    format!("{h}:{m:02}:{s:02}.{milli:03}")
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

    #[test]
    fn clock_format() {
        assert_eq!(fmt_clock(0), "0:00:00.000");
        assert_eq!(fmt_clock(3_100_000), "0:00:03.100");
        assert_eq!(fmt_clock(3_723_004_999), "1:02:03.004");
    }
}
