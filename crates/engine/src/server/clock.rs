//! The virtual clock: microseconds since the run began, mapped onto a Unix epoch chosen by whoever drives the engine.

/// Default Unix time of virtual instant 0: 2026-01-01T00:00:00Z. Fixed, so a
/// seed replays identically; the native server replaces it with the wall clock.
pub const DEFAULT_UNIX_BASE_US: u64 = 1_767_225_600 * 1_000_000;

/// Virtual time. It only moves when the driver advances it.
#[derive(Clone, Debug)]
pub struct Clock {
    now_us: u64,
    unix_base_us: u64,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            now_us: 0,
            unix_base_us: DEFAULT_UNIX_BASE_US,
        }
    }
}

impl Clock {
    /// Microseconds since the start of the run.
    pub fn now_us(&self) -> u64 {
        self.now_us
    }

    /// Virtual Unix time in microseconds (`ustime()`).
    pub fn unix_us(&self) -> u64 {
        self.unix_base_us + self.now_us
    }

    /// Virtual Unix time in milliseconds (`mstime()`).
    pub fn unix_ms(&self) -> i64 {
        (self.unix_us() / 1000) as i64
    }

    /// Sets what virtual instant 0 means in Unix time.
    pub(crate) fn set_unix_base_us(&mut self, base: u64) {
        self.unix_base_us = base;
    }

    /// Moves time forward to `t` (never backwards).
    pub(crate) fn set(&mut self, t_us: u64) {
        debug_assert!(t_us >= self.now_us, "virtual time never goes back");
        self.now_us = self.now_us.max(t_us);
    }
}
