//! Differential tests of INFO commandstats and errorstats against a real redis-server: calls, rejected and failed calls per command (subcommands as `parent|sub`), error counts per code, CONFIG RESETSTAT. `usec` is 0 here (commands take no virtual time), so timings are not compared.

use redsim_tests::{Frame, Pair};

/// The section's lines, with the timing fields dropped and sorted (Redis
/// lists commands in its dict's order).
fn stats_lines(f: Frame) -> Frame {
    let text = match f {
        Frame::Bulk(b) | Frame::Verbatim(_, b) => String::from_utf8_lossy(&b).into_owned(),
        other => return other,
    };
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("cmdstat_") || l.starts_with("errorstat_"))
        .map(|l| {
            l.split(',')
                .filter(|f| !f.starts_with("usec"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    lines.sort();
    Frame::Array(lines.into_iter().map(Frame::bulk).collect())
}

#[test]
fn calls_rejections_and_failures_are_counted() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        CONFIG RESETSTAT
        SET k v
        GET k
        GET k
        INCR k
        LPUSH k x
        GET
        NOSUCHCOMMAND a
        CLIENT GETNAME
        CLIENT NOSUCH
        OBJECT ENCODING k
        MULTI
        SET a 1
        INCR k
        EXEC
        EVAL \"return redis.call('get', 'k')\" 0
        EVAL \"return redis.call('incr', 'k')\" 0
        EVAL \"redis.pcall('incr', 'k') redis.pcall('incr', 'k') return 1\" 0
        EVAL \"return redis.pcall('incr', 'k')\" 0
        EVAL \"return redis.error_reply('MY code')\" 0
        EVAL \"error('boom')\" 0
        ",
    );
    // The client's own INFO call is counted after its reply is built.
    let redis = p.redis_only("INFO commandstats");
    let sim = p.sim_only("INFO commandstats");
    assert_eq!(stats_lines(sim), stats_lines(redis));
    let redis = p.redis_only("INFO errorstats");
    let sim = p.sim_only("INFO errorstats");
    assert_eq!(stats_lines(sim), stats_lines(redis));
    p.check("CONFIG RESETSTAT");
    let redis = p.redis_only("INFO errorstats");
    let sim = p.sim_only("INFO errorstats");
    assert_eq!(stats_lines(sim), stats_lines(redis));
}
