//! The server log (`serverLog`): lines at Redis' four levels, filtered by `loglevel`, kept for a driver that writes them out; without one (the browser) nothing is kept.

/// `LL_DEBUG` to `LL_WARNING`, in Redis' order: a line is kept when its
/// level is at least the configured one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Verbose,
    Notice,
    Warning,
}

impl Level {
    /// The mark redis-server writes before the text (`".-*#"`).
    pub fn mark(self) -> char {
        match self {
            Level::Debug => '.',
            Level::Verbose => '-',
            Level::Notice => '*',
            Level::Warning => '#',
        }
    }

    /// `redis.log`'s level numbers (`redis.LOG_DEBUG` is 0).
    pub fn from_number(n: i64) -> Option<Level> {
        [Level::Debug, Level::Verbose, Level::Notice, Level::Warning]
            .get(usize::try_from(n).ok()?)
            .copied()
    }
}

/// One line as written: its level, the server's role then (`M` master,
/// `S` replica, as redis-server marks its lines), virtual Unix time in µs,
/// and the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub level: Level,
    pub role: char,
    pub unix_us: u64,
    pub text: String,
}

/// Lines not yet taken by the driver. Bounded, so a driver that stops
/// taking them cannot make the engine grow without end.
#[derive(Debug, Default)]
pub struct Log {
    pub(crate) keep: bool,
    lines: Vec<Line>,
}

/// How many untaken lines are kept; older ones are dropped first.
const MAX_LINES: usize = 10_000;

impl Log {
    /// Whether a line at `level` would be written under `loglevel`.
    pub fn wants(&self, level: Level, loglevel: &str) -> bool {
        let min = match loglevel {
            "debug" => Level::Debug,
            "verbose" => Level::Verbose,
            "notice" => Level::Notice,
            "warning" => Level::Warning,
            // `nothing` (and anything unknown) writes no line.
            _ => return false,
        };
        self.keep && level >= min
    }

    pub(crate) fn push(&mut self, line: Line) {
        if self.lines.len() >= MAX_LINES {
            self.lines.drain(..MAX_LINES / 2);
        }
        self.lines.push(line);
    }

    pub(crate) fn take(&mut self) -> Vec<Line> {
        std::mem::take(&mut self.lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_filter_as_redis_does() {
        let mut log = Log::default();
        assert!(
            !log.wants(Level::Warning, "notice"),
            "nothing kept without a driver"
        );
        log.keep = true;
        assert!(log.wants(Level::Warning, "notice"));
        assert!(log.wants(Level::Notice, "notice"));
        assert!(!log.wants(Level::Verbose, "notice"));
        assert!(log.wants(Level::Debug, "debug"));
        assert!(!log.wants(Level::Warning, "nothing"));
        assert_eq!(Level::from_number(3), Some(Level::Warning));
        assert_eq!(Level::from_number(4), None);
        assert_eq!(Level::from_number(-1), None);
        for i in 0..MAX_LINES + 10 {
            log.push(Line {
                level: Level::Notice,
                role: 'M',
                unix_us: i as u64,
                text: String::new(),
            });
        }
        let lines = log.take();
        assert!(lines.len() <= MAX_LINES);
        assert_eq!(lines.last().unwrap().unix_us, (MAX_LINES + 9) as u64);
        assert!(log.take().is_empty());
    }
}
