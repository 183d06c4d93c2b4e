//! A fixed-window rate limiter written with redis-rs, tested against `TestServer` with the manual clock: no sleeping, and the window boundary is exact.
//!
//! Run it with `cargo run -p redsim-testing --example rate_limiter`; the
//! test suite runs it too (`tests/examples.rs`).

use std::time::Duration;

use redis::Commands;
use redsim_testing::{Clock, TestServer};

/// Allows `limit` calls per `window_s` seconds for `user`: INCR the
/// window's counter, and give a new counter its expiry in the same round
/// trip (a MULTI), so a crash between the two cannot leave it immortal.
fn allow(
    con: &mut redis::Connection,
    user: &str,
    limit: u64,
    window_s: u64,
) -> redis::RedisResult<bool> {
    let key = format!("rate:{user}");
    let (count,): (u64,) = redis::pipe()
        .atomic()
        .incr(&key, 1)
        .expire(&key, window_s as i64)
        .arg("NX")
        .ignore()
        .query(con)?;
    Ok(count <= limit)
}

pub fn main() {
    let server = TestServer::builder().clock(Clock::Manual).start();
    let mut con = redis::Client::open(server.url())
        .and_then(|c| c.get_connection())
        .expect("connect to the test server");

    // Five calls per ten seconds: the sixth is refused.
    let verdicts: Vec<bool> = (0..6)
        .map(|_| allow(&mut con, "ann", 5, 10).unwrap())
        .collect();
    assert_eq!(verdicts, [true, true, true, true, true, false]);
    // Another user has a window of their own.
    assert!(allow(&mut con, "bob", 5, 10).unwrap());

    // 9.999 s later the window is still closed. At 10 s exactly the key is
    // in its last millisecond (Redis expires a key strictly after its
    // time); one more and the window opens.
    server.advance(Duration::from_millis(9_999));
    assert!(!allow(&mut con, "ann", 5, 10).unwrap());
    assert_eq!(con.pttl::<_, i64>("rate:ann").unwrap(), 1);
    server.advance(Duration::from_millis(1));
    assert_eq!(con.pttl::<_, i64>("rate:ann").unwrap(), 0);
    assert!(!allow(&mut con, "ann", 5, 10).unwrap());
    server.advance(Duration::from_millis(1));
    assert!(allow(&mut con, "ann", 5, 10).unwrap());
    println!("rate limiter: 5 per 10 s held at the window's edge");
}
