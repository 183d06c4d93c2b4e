//! CLIENT LIST's buffer and state fields against a real redis-server: `qbuf`, `qbuf-free`, `argv-mem`, `multi`, `multi-mem`, `sub`/`psub`/`ssub`, `rbs` and `tot-mem`, while a command runs, between commands, inside a transaction, while subscribed, after the cron has shrunk an idle client's buffers, while blocked, and in a pipeline.

use std::time::Duration;

use redsim_tests::{Conn, Frame, RedisServer, RedsimServer};

/// The fields compared: everything but what names the connection or the time,
/// and `rbp`, which depends on where the cron's 100 ms tick falls (its first
/// visit to a client resets the peak, and a reply written before or after
/// that visit counts or not); `client_bufs.rs`'s tests check its rule.
const FIELDS: &[&str] = &[
    "flags",
    "db",
    "sub",
    "psub",
    "ssub",
    "multi",
    "qbuf",
    "qbuf-free",
    "argv-mem",
    "multi-mem",
    "rbs",
    "obl",
    "oll",
    "omem",
    "tot-mem",
    "cmd",
];

fn text(f: &Frame) -> String {
    match f {
        Frame::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Frame::Array(items) if items.len() == 1 => text(&items[0]),
        other => panic!("a client line: {other:?}"),
    }
}

/// The compared fields of the line of client `id` in `list`.
fn fields(list: &str, id: i64) -> String {
    let line = list
        .lines()
        .find(|l| l.starts_with(&format!("id={id} ")))
        .unwrap_or_else(|| panic!("no client {id} in {list}"));
    line.split(' ')
        .filter(|kv| FIELDS.iter().any(|f| kv.split('=').next() == Some(f)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn id(c: &mut Conn) -> i64 {
    match c.cmd(&["CLIENT", "ID"]) {
        Frame::Integer(n) => n,
        other => panic!("CLIENT ID: {other:?}"),
    }
}

/// The story on one server: what CLIENT LIST and CLIENT INFO showed.
fn story(port: u16) -> Vec<String> {
    let mut seen = Vec::new();
    let (mut a, mut b) = (Conn::connect(port), Conn::connect(port));
    let (ia, ib) = (id(&mut a), id(&mut b));
    a.cmd(&["SET", "k", "v"]);
    // The caller's own command sits in its query buffer; the other's is empty.
    let list = text(&b.cmd(&["CLIENT", "LIST"]));
    seen.push(format!("a idle: {}", fields(&list, ia)));
    seen.push(format!("b running: {}", fields(&list, ib)));
    // A reply of a few hundred bytes raises the reply buffer's peak.
    seen.push(format!(
        "b info: {}",
        fields(&text(&b.cmd(&["CLIENT", "INFO"])), ib)
    ));

    // Subscriptions count apart; the dicts holding them add to tot-mem.
    a.cmd(&["SUBSCRIBE", "c1", "c2"]);
    a.read_frame();
    a.cmd(&["PSUBSCRIBE", "p*"]);
    a.cmd(&["SSUBSCRIBE", "s1"]);
    let list = text(&b.cmd(&["CLIENT", "LIST"]));
    seen.push(format!("a subscribed: {}", fields(&list, ia)));

    // A transaction: queued commands, their memory, and EXEC's own view.
    let mut t = Conn::connect(port);
    let it = id(&mut t);
    t.cmd(&["WATCH", "w1", "w2"]);
    t.cmd(&["MULTI"]);
    t.cmd(&["SET", "x", "1"]);
    t.cmd(&["GET", "x"]);
    seen.push(format!(
        "t queued: {}",
        fields(&text(&b.cmd(&["CLIENT", "LIST"])), it)
    ));
    t.cmd(&["CLIENT", "INFO"]);
    match t.cmd(&["EXEC"]) {
        Frame::Array(replies) if replies.len() == 3 => {
            seen.push(format!("t in exec: {}", fields(&text(&replies[2]), it)))
        }
        other => panic!("EXEC: {other:?}"),
    }

    // Idle for more than 2 seconds: the cron frees the query buffer and
    // shrinks the reply buffer to 1 KB.
    std::thread::sleep(Duration::from_millis(3200));
    let list = text(&b.cmd(&["CLIENT", "LIST"]));
    seen.push(format!("t idle 3 s: {}", fields(&list, it)));
    seen.push(format!("b after 3 s: {}", fields(&list, ib)));

    // A blocked client keeps its command's arguments; what it sends while
    // it waits stays in its query buffer.
    let mut q = Conn::connect(port);
    let iq = id(&mut q);
    q.send_raw(b"*3\r\n$5\r\nBLPOP\r\n$4\r\nlist\r\n$1\r\n0\r\n");
    // Long enough for the cron to visit it twice (at hz 10): its reply
    // buffer has shrunk to 1 KB on both servers.
    std::thread::sleep(Duration::from_millis(300));
    seen.push(format!(
        "q blocked: {}",
        fields(&text(&b.cmd(&["CLIENT", "LIST"])), iq)
    ));
    q.send_raw(b"*1\r\n$4\r\nPING\r\n");
    std::thread::sleep(Duration::from_millis(100));
    seen.push(format!(
        "q blocked, PING waiting: {}",
        fields(&text(&b.cmd(&["CLIENT", "LIST"])), iq)
    ));
    b.cmd(&["LPUSH", "list", "x"]);
    assert!(
        matches!(q.read_frame(), Some(Frame::Array(_))),
        "BLPOP served"
    );
    assert_eq!(q.read_frame(), Some(Frame::Simple("PONG".into())));

    // A pipeline: the commands after the running one are in the buffer too.
    b.send_raw(b"*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n*1\r\n$4\r\nPING\r\n");
    let info = b.read_frame().expect("CLIENT INFO's reply");
    seen.push(format!("b pipelined: {}", fields(&text(&info), ib)));
    assert_eq!(b.read_frame(), Some(Frame::Simple("PONG".into())));
    seen
}

/// `tot-mem` as Redis 7.2 counts it, from redis-server 7.0's line: 7.2
/// keeps a client's patterns in a dict where 7.0 kept a list (a pattern
/// costs its buckets too: 4 × 8 bytes for the first), and counts a watched
/// key's list node apart from its struct (24 bytes more each;
/// `pubsubMemOverhead` and `multiStateMemOverhead` in 7.2.6).
fn as_7_2(line: &str, extra: usize) -> String {
    line.split(' ')
        .map(|kv| match kv.strip_prefix("tot-mem=") {
            Some(n) => format!("tot-mem={}", n.parse::<usize>().unwrap() + extra),
            None => kv.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn client_list_buffers_match_redis() {
    let redis = RedisServer::start(&[]);
    let redsim = RedsimServer::start(&[]);
    let mut want = story(redis.port);
    want[3] = as_7_2(&want[3], 32);
    want[4] = as_7_2(&want[4], 2 * 24);
    let got = story(redsim.port);
    for (w, g) in want.iter().zip(&got) {
        println!("redis:  {w}\nredsim: {g}");
    }
    assert_eq!(got, want);
}
