//! What the active expire cycle keeps between calls (activeExpireCycle's statics).

/// What the cycle keeps between calls (the function's statics in Redis).
#[derive(Clone, Debug, Default)]
pub struct CycleState {
    /// Next database to test.
    pub current_db: usize,
    /// Did the last cycle stop on its time limit?
    pub timelimit_exit: bool,
    /// Virtual time (µs) the last fast cycle started, if one ran. (Redis
    /// starts this at 0 and compares with `ustime()`, which is never near 0.)
    pub last_fast_cycle_us: Option<u64>,
}
