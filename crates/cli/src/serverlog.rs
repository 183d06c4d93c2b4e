//! The server log as redis-server writes it (`pid:M 07 Dec 2026 21:35:11.310 # text`), on standard output or appended to the `logfile` the configuration names.

use std::io::Write;

use redsim_engine::server::log::Line;

/// Writes `lines` where `logfile` says (empty: standard output). A file
/// that cannot be opened loses the lines, as Redis' `serverLogRaw` does.
pub fn write(lines: &[Line], logfile: &str) {
    if lines.is_empty() {
        return;
    }
    let pid = std::process::id();
    let text: String = lines.iter().map(|l| format_line(pid, l)).collect();
    if logfile.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    } else if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(logfile)
    {
        let _ = f.write_all(text.as_bytes());
    }
}

/// One line with its newline; the time in UTC.
fn format_line(pid: u32, l: &Line) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = l.unix_us / 1_000_000;
    let ms = (l.unix_us / 1000) % 1000;
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let day_s = secs % 86_400;
    format!(
        "{pid}:{} {d:02} {} {y} {:02}:{:02}:{:02}.{ms:03} {} {}\n",
        l.role,
        MONTHS[(m - 1) as usize],
        day_s / 3600,
        day_s / 60 % 60,
        day_s % 60,
        l.level.mark(),
        l.text
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (the era arithmetic of Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use redsim_engine::server::log::Level;

    #[test]
    fn lines_look_like_redis_servers() {
        let line = Line {
            level: Level::Warning,
            role: 'M',
            // 2026-12-07T21:35:11.310Z
            unix_us: 1_796_679_311_310_123,
            text: "DEBUG LOG: hello".into(),
        };
        assert_eq!(
            format_line(7743, &line),
            "7743:M 07 Dec 2026 21:35:11.310 # DEBUG LOG: hello\n"
        );
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
