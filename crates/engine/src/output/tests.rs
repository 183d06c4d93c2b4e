//! Output buffers: byte counting in Redis' blocks, slow readers, and `client-output-buffer-limit` closing them.

use crate::{Engine, Frame};

/// A subscriber held as a slow reader, a publisher, and `limits`.
fn setup(limits: &str) -> (Engine, u64, u64) {
    let mut e = Engine::new(1);
    let sub = e.connect("sub");
    let publ = e.connect("pub");
    assert_eq!(
        e.execute_line(
            publ,
            &format!("CONFIG SET client-output-buffer-limit \"{limits}\"")
        ),
        Frame::ok()
    );
    e.execute_line(sub, "SUBSCRIBE ch");
    e.take_unblocked();
    e.hold_output(sub, true);
    (e, sub, publ)
}

fn publish(e: &mut Engine, publ: u64, size: usize) -> Frame {
    let msg = vec![b'x'; size];
    e.execute(publ, &[b"PUBLISH".to_vec(), b"ch".to_vec(), msg])
}

/// `*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$<n>\r\n<n bytes>\r\n`.
fn frame_len(size: usize) -> usize {
    4 + 13 + 8 + 1 + size.to_string().len() + 2 + size + 2
}

#[test]
fn bytes_fill_the_static_buffer_then_blocks_of_jemalloc_classes() {
    let (mut e, sub, publ) = setup("pubsub 0 0 0");
    publish(&mut e, publ, 1000);
    let i = e.output_info(sub);
    assert_eq!((i.obl, i.oll, i.omem), (frame_len(1000) as u64, 0, 0));
    // 20 messages: 16 KB in the static buffer, the rest in one block of
    // 20480 - 16 usable bytes (16400 bytes round up to jemalloc's 20480).
    for _ in 0..19 {
        publish(&mut e, publ, 1000);
    }
    let i = e.output_info(sub);
    assert_eq!(i.pending, 20 * frame_len(1000) as u64);
    assert_eq!((i.obl, i.oll, i.omem), (16384, 1, 20464 + 40));
    // Reading all of it frees the block; the frames come out whole and in order.
    let got = e.read_output(sub, 16384 + 100);
    assert_eq!(got.len(), 16384 / frame_len(1000));
    let got = e.read_output(sub, usize::MAX);
    assert_eq!(got.len(), 20 - 16384 / frame_len(1000));
    let i = e.output_info(sub);
    assert_eq!((i.pending, i.omem, i.peak), (0, 0, 20464 + 40));
    // A client that is not held empties with everyone's outbox.
    e.hold_output(sub, false);
    for _ in 0..30 {
        publish(&mut e, publ, 1000);
    }
    assert!(e.output_info(sub).omem > 0);
    assert_eq!(e.take_unblocked().len(), 30);
    assert_eq!(e.output_info(sub).omem, 0);
}

#[test]
fn a_slow_subscriber_over_the_hard_limit_is_closed_and_loses_its_buffer() {
    let (mut e, sub, publ) = setup("pubsub 64kb 0 0");
    let mut n = 0;
    while e.client(sub).is_some() {
        assert_eq!(
            publish(&mut e, publ, 1000),
            Frame::Integer(1),
            "message {n}"
        );
        n += 1;
        assert!(n < 100, "never closed");
    }
    // 16 KB static, then blocks of 20464 bytes (+40): the fourth block
    // makes omem 81,856 ≥ 65,536 (the third, 61,512, did not).
    assert_eq!(n, (16384 + 3 * 20464) / frame_len(1000) + 1);
    assert_eq!(e.take_killed(), vec![sub]);
    assert_eq!(e.output_limit_disconnections(), 1);
    assert!(e.read_output(sub, usize::MAX).is_empty());
    assert_eq!(publish(&mut e, publ, 1000), Frame::Integer(0));
    // Switched off, the same load never closes it.
    let (mut e, sub, publ) = setup("pubsub 0 0 0");
    for _ in 0..200 {
        publish(&mut e, publ, 1000);
    }
    assert!(e.client(sub).is_some() && e.take_killed().is_empty());
    assert_eq!(e.read_output(sub, usize::MAX).len(), 200);
}

#[test]
fn the_soft_limit_closes_only_after_soft_seconds_over_it() {
    let (mut e, sub, publ) = setup("pubsub 0 32kb 2");
    for _ in 0..40 {
        publish(&mut e, publ, 1000);
    }
    assert!(e.output_info(sub).omem >= 32 * 1024);
    // Two seconds over it are allowed (elapsed must exceed soft_seconds).
    e.advance_by(2_000_000);
    assert!(e.client(sub).is_some());
    e.advance_by(1_100_000);
    assert!(e.client(sub).is_none(), "the cron closes it");
    assert_eq!(e.take_killed(), vec![sub]);

    // Reading below the soft limit in time resets its clock.
    let (mut e, sub, publ) = setup("pubsub 0 32kb 2");
    for _ in 0..40 {
        publish(&mut e, publ, 1000);
    }
    e.advance_by(1_500_000);
    // Reading frees the static buffer and the first block: under 32 KB.
    e.read_output(sub, 40_000);
    assert!(e.output_info(sub).omem < 32 * 1024);
    e.advance_by(1_000_000);
    for _ in 0..20 {
        publish(&mut e, publ, 1000);
    }
    e.advance_by(2_000_000);
    assert!(e.client(sub).is_some());
}

#[test]
fn normal_clients_have_no_limit_by_default_and_client_list_shows_omem() {
    let mut e = Engine::new(1);
    let mon = e.connect("monitor");
    let c = e.connect("c");
    assert_eq!(e.submit_line(mon, "MONITOR"), Some(Frame::ok()));
    e.hold_output(mon, true);
    for i in 0..2000 {
        e.execute_line(c, &format!("SET key:{i} {}", "v".repeat(100)));
    }
    assert!(e.client(mon).is_some());
    let omem = e.output_info(mon).omem;
    assert!(omem > 100_000, "{omem}");
    let Frame::Verbatim(_, list) = e.execute_line(c, "CLIENT LIST") else {
        panic!()
    };
    let line = String::from_utf8_lossy(&list)
        .lines()
        .find(|l| l.starts_with(&format!("id={mon} ")))
        .unwrap()
        .to_string();
    assert!(line.contains(" obl=16384 "), "{line}");
    // `tot-mem` adds the query buffer (20 KB after a read), the client
    // struct and the 16 KB reply buffer to `omem`.
    let tot = omem + 20480 + 768 + 16384;
    assert!(
        line.contains(&format!(" omem={omem} tot-mem={tot} ")),
        "{line}"
    );
    // A normal limit closes it at once.
    e.execute_line(
        c,
        "CONFIG SET client-output-buffer-limit \"normal 100kb 0 0\"",
    );
    e.execute_line(c, "SET k v");
    // Checked when a block is added, or by the next cron tick.
    e.advance_by(100_000);
    assert_eq!(e.take_killed(), vec![mon]);
    assert!(e.client(mon).is_none());
}
