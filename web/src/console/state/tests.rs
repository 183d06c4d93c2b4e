//! The console's state tested natively: presets and sessions, Share links and their replay, the clock, clients and blocking, the docs a light build loads, the inspector's and the timeline's models.

use super::*;
use redsim_engine::proto::link::{pack, unpack};

fn still() -> f64 {
    0.0
}

fn paused(commands: &[&str]) -> Console {
    let preset = Preset {
        seed: Some(7),
        commands: commands.iter().map(|c| c.to_string()).collect(),
        paused: true,
        t0: Some(1_767_225_600),
        typed: false,
    };
    Console::new(&preset, 1_767_225_600, still)
}

fn screen(c: &Console, idx: usize) -> Vec<String> {
    c.sessions[idx]
        .lines
        .iter()
        .map(|l| match l {
            Line::Input { prompt, text } => format!("{prompt} {text}"),
            Line::Reply { text, .. } => text.clone(),
            Line::Note(n) => format!("# {n}"),
            Line::Help(_) => "(help)".into(),
        })
        .collect()
}

fn type_line(c: &mut Console, line: &str) {
    c.apply(Action::Input(line.into()));
    assert!(c.key("Enter", false, || false).prevent);
}

/// Until the command docs arrive, HELP and COMMAND DOCS wait, and so
/// do the lines and pauses after them; then all run in order, at the
/// virtual instants the pauses give.
#[test]
fn help_waits_for_the_docs_with_what_follows() {
    let mut c = paused(&[]);
    c.docs_ready = false;
    let preset: Vec<String> = ["SET k v EX 10", "HELP GET", "# sleep 3000", "@2 TTL k"]
        .map(String::from)
        .to_vec();
    c.run_preset(&preset, false);
    // Commands take a few virtual microseconds; the pause waits too.
    assert!(c.engine.now_us() < 1_000, "{}", c.engine.now_us());
    assert!(std::mem::take(&mut c.effects.load_docs));
    type_line(&mut c, "COMMAND DOCS get");
    assert!(screen(&c, 0).iter().all(|l| l != "(help)"));
    assert!(screen(&c, 0)
        .iter()
        .any(|l| l.starts_with("# Loading the command docs")));
    c.apply(Action::Docs(true));
    assert!((3_000_000..3_001_000).contains(&c.engine.now_us()));
    let first = screen(&c, 0);
    let help = first.iter().position(|l| l == "(help)").expect("HELP ran");
    let docs = first
        .iter()
        .position(|l| l.contains("summary"))
        .expect("COMMAND DOCS ran");
    assert!(help < docs, "{first:?}");
    assert_eq!(
        screen(&c, 1).last().map(String::as_str),
        Some("(integer) 7")
    );
    // From now on nothing waits.
    type_line(&mut c, "HELP SET");
    assert_eq!(screen(&c, 0).last().map(String::as_str), Some("(help)"));
}

/// A console waiting for the full engine holds nothing for the docs:
/// the full engine has them, and a held line would miss the handover.
#[test]
fn help_after_a_heavy_command_waits_for_the_full_engine() {
    let mut c = paused(&[]);
    c.docs_ready = false;
    c.wants_full = true;
    type_line(&mut c, "HELP GET");
    assert!(c.held.is_empty());
    assert!(c.share_text().contains("HELP GET"), "{}", c.share_text());
}

/// If the docs cannot be fetched, what waited runs anyway, with a note.
#[test]
fn commands_held_for_missing_docs_still_run() {
    let mut c = paused(&[]);
    c.docs_ready = false;
    type_line(&mut c, "HELP GET");
    type_line(&mut c, "PING");
    c.apply(Action::Docs(false));
    let lines = screen(&c, 0);
    assert!(
        lines.iter().any(|l| l.contains("could not be loaded")),
        "{lines:?}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("PONG"));
    assert!(!c.docs_ready);
    type_line(&mut c, "HELP GET");
    assert!(
        std::mem::take(&mut c.effects.load_docs),
        "a later need asks again"
    );
}

#[test]
fn a_long_script_keeps_its_client_waiting_and_the_others_get_busy() {
    let mut c = paused(&["CONFIG SET busy-reply-threshold 10", "@2 PING"]);
    type_line(&mut c, "EVAL \"for i = 1, 200000 do end return 'done'\" 0");
    let w = c.sessions[0].waiting.as_ref().expect("client 1 waits");
    assert!(w.script);
    c.apply(Action::SelectClient(1));
    type_line(&mut c, "PING");
    assert_eq!(
        screen(&c, 1).last().map(String::as_str),
        Some("(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
    );
    c.apply(Action::Step(1_000_000));
    assert!(c.sessions[0].waiting.is_none());
    assert_eq!(screen(&c, 0).last().map(String::as_str), Some("\"done\""));
    type_line(&mut c, "PING");
    assert_eq!(screen(&c, 1).last().map(String::as_str), Some("PONG"));
}

#[test]
fn shutdown_says_what_a_real_server_would_do_and_the_console_goes_on() {
    let mut c = paused(&[]);
    type_line(&mut c, "SHUTDOWN bogus");
    type_line(&mut c, "SET k v");
    type_line(&mut c, "SHUTDOWN NOSAVE");
    type_line(&mut c, "GET k");
    let lines = screen(&c, 0);
    let n = lines.len();
    assert_eq!(
        lines[n - 8..n - 6],
        ["127.0.0.1:6379> SHUTDOWN bogus", "(error) ERR syntax error"]
    );
    assert!(
        lines[n - 3].starts_with("# SHUTDOWN: a real server would exit now"),
        "{lines:?}"
    );
    assert_eq!(lines[n - 1], "\"v\"");
}

#[test]
fn preset_commands_run_in_their_clients_and_the_first_tab_is_shown() {
    let c = paused(&["SET a 1", "@2 GET a", "SELECT 2"]);
    assert_eq!(c.sessions.len(), 2);
    assert_eq!(c.active, 0);
    assert_eq!(screen(&c, 1), vec!["127.0.0.1:6379> GET a", "\"1\""]);
    assert_eq!(c.prompt(0), "127.0.0.1:6379[2]>");
    let text = c.share_text();
    assert_eq!(text, "SET a 1\n@2 GET a\nSELECT 2\n");
    let link = c.share_link("/p/", &text, Some(&pack(&text)));
    let (query, hash) = link.split_once('#').unwrap();
    assert_eq!(query, "/p/?seed=7&t0=1767225600&clock=paused");
    assert_eq!(unpack(hash.strip_prefix("s=").unwrap()).unwrap(), text);
}

#[test]
fn reset_takes_the_prompt_back_to_database_0() {
    let mut c = paused(&["SELECT 2", "CLIENT SETNAME me"]);
    assert_eq!(c.prompt(0), "127.0.0.1:6379[2]>");
    type_line(&mut c, "RESET");
    assert_eq!(screen(&c, 0).last().map(String::as_str), Some("RESET"));
    assert_eq!(c.prompt(0), "127.0.0.1:6379>");
}

#[test]
fn the_memory_budget_refuses_a_huge_write_and_the_console_goes_on() {
    let mut c = paused(&[]);
    type_line(&mut c, "SETRANGE big 536870000 x");
    let oom = "(error) OOM command not allowed when used memory > 'redsim-memory-budget'.";
    assert_eq!(screen(&c, 0).last().map(String::as_str), Some(oom));
    type_line(&mut c, "SETBIT bits 4000000000 1");
    assert_eq!(screen(&c, 0).last().map(String::as_str), Some(oom));
    type_line(&mut c, "SETRANGE small 1000 x");
    assert_eq!(
        screen(&c, 0).last().map(String::as_str),
        Some("(integer) 1001")
    );
    assert!(c.engine.used_memory() < MEMORY_BUDGET);
}

#[test]
fn a_share_link_reaches_the_same_instant_with_the_same_ttls() {
    let mut c = paused(&["SET k v EX 100", "@2 SET j w PX 5000"]);
    for _ in 0..3 {
        c.apply(Action::Step(1_000_000));
    }
    type_line(&mut c, "TTL k");
    assert_eq!(
        screen(&c, 0).last().map(String::as_str),
        Some("(integer) 97")
    );
    c.apply(Action::Step(1_000_000));
    let text = c.share_text();
    let link = c.share_link("/p/", &text, Some(&pack(&text)));
    let (query, hash) = link.split_once('?').unwrap().1.split_once('#').unwrap();
    let mut d = Console::new(&Preset::from_url(query, hash), 1_767_225_600, still);
    assert_eq!(d.engine.now_us(), c.engine.now_us());
    // Sharing again gives the same link, and so does a handover's.
    let again = d.share_text();
    assert_eq!(d.share_link("/p/", &again, Some(&pack(&again))), link);
    let handed = Preset::from_link(&c.share_link("/p/", &text, None));
    assert_eq!(handed.commands, Preset::from_link(&link).commands);
    type_line(&mut d, "TTL k");
    assert_eq!(
        screen(&d, 0).last().map(String::as_str),
        Some("(integer) 96")
    );
    type_line(&mut d, "PTTL j");
    assert_eq!(
        screen(&d, 0).last().map(String::as_str),
        Some("(integer) 1000")
    );
}

#[test]
fn the_export_is_a_replay_script_with_the_time_that_passed() {
    let mut c = paused(&["SET a 1 EX 2", "@2 GET a"]);
    c.apply(Action::Step(1_500_000));
    type_line(&mut c, "INSPECT a");
    c.apply(Action::Step(1_000_000));
    type_line(&mut c, "GET a");
    let text = c.export_text();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("# A ") && !l.starts_with("#   "))
        .collect();
    assert_eq!(
        lines,
        ["SET a 1 EX 2", "@2 GET a", "# sleep 2500", "GET a"],
        "{text}"
    );
    // The engine's session format reads it back, timing included.
    let session = redsim_engine::proto::session::Session::parse(&text).unwrap();
    assert_eq!(session.steps.len(), 4);
    assert_eq!(
        session.to_text(),
        "SET a 1 EX 2\n@2 GET a\n# sleep 2500\nGET a\n"
    );
}

#[test]
fn a_blocked_client_waits_until_another_serves_it() {
    let mut c = paused(&[]);
    type_line(&mut c, "BLPOP q 5");
    assert!(c.current().waiting.is_some());
    // Typing is locked while waiting; Enter does nothing.
    assert_eq!(
        c.key("Enter", false, || false),
        KeyOutcome {
            prevent: false,
            render: false
        }
    );
    c.apply(Action::AddClient);
    assert_eq!(c.active, 1);
    type_line(&mut c, "LPUSH q x");
    assert!(c.sessions[0].waiting.is_none(), "served");
    assert_eq!(c.sessions[0].unread, 1);
    c.apply(Action::SelectClient(0));
    assert_eq!(c.sessions[0].unread, 0);
    assert_eq!(screen(&c, 0).last().unwrap(), "1) \"q\"\n2) \"x\"");
}

#[test]
fn a_subscribed_client_reads_keyspace_notifications() {
    let mut c = paused(&["CONFIG SET notify-keyspace-events KEA"]);
    type_line(&mut c, "PSUBSCRIBE __key*__:*");
    assert_eq!(c.current().subscriptions, 1);
    c.apply(Action::AddClient);
    type_line(&mut c, "SET k v");
    assert_eq!(c.sessions[0].unread, 2, "both channels' messages");
    let lines = screen(&c, 0);
    assert_eq!(
        lines[lines.len() - 2..],
        [
            "1) \"pmessage\"\n2) \"__key*__:*\"\n3) \"__keyspace@0__:k\"\n4) \"set\"",
            "1) \"pmessage\"\n2) \"__key*__:*\"\n3) \"__keyevent@0__:set\"\n4) \"k\""
        ]
    );
}

#[test]
fn client_reply_off_prints_nothing_until_on() {
    let mut c = paused(&[]);
    type_line(&mut c, "CLIENT REPLY OFF");
    type_line(&mut c, "SET a 1");
    type_line(&mut c, "CLIENT REPLY ON");
    type_line(&mut c, "GET a");
    assert_eq!(
        screen(&c, 0)[1..],
        [
            "127.0.0.1:6379> CLIENT REPLY OFF",
            "127.0.0.1:6379> SET a 1",
            "127.0.0.1:6379> CLIENT REPLY ON",
            "OK",
            "127.0.0.1:6379> GET a",
            "\"1\""
        ]
    );
}

#[test]
fn ctrl_c_reconnects_a_waiting_client_unless_text_is_selected() {
    let mut c = paused(&["SELECT 3"]);
    type_line(&mut c, "BLPOP q 0");
    let before = c.current().id;
    assert!(
        !c.key("c", true, || true).prevent,
        "with a selection, Ctrl+C copies"
    );
    assert!(c.current().waiting.is_some());
    assert!(c.key("c", true, || false).prevent);
    assert!(c.current().waiting.is_none());
    assert_ne!(c.current().id, before);
    assert_eq!(
        c.prompt(0),
        "127.0.0.1:6379[3]>",
        "the database is selected again"
    );
}

#[test]
fn steps_move_virtual_time_and_expire_keys() {
    let mut c = paused(&["SET k v PX 1500"]);
    assert_eq!(c.keys.count, 1);
    c.apply(Action::Step(1_000_000));
    c.apply(Action::Step(1_000_000));
    assert_eq!(c.engine.now_us(), 2_000_000);
    type_line(&mut c, "GET k");
    assert_eq!(screen(&c, 0).last().unwrap(), "(nil)");
    assert_eq!(c.keys.count, 0);
    // Paused: ticks do not move the clock.
    c.apply(Action::Tick);
    assert_eq!(c.engine.now_us(), 2_000_000);
}

#[test]
fn inspect_history_tab_and_clear_are_the_consoles_own() {
    let mut c = paused(&["HSET h f v"]);
    type_line(&mut c, "INSPECT h");
    assert_eq!(c.inspector.target.as_ref().unwrap().key, "h");
    assert!(c.effects.reveal_inspector);
    c.apply(Action::Input("HGETA".into()));
    assert!(c.key("Tab", false, || false).prevent);
    assert_eq!(c.current().input, "HGETALL ");
    assert!(c.key("ArrowUp", false, || false).render);
    assert_eq!(c.current().input, "INSPECT h");
    assert!(c.key("l", true, || false).prevent);
    assert!(c.current().lines.is_empty());
    c.apply(Action::CloseInspector);
    assert!(c.inspector.target.is_none());
    let text = c.share_text();
    assert!(text.ends_with("HSET h f v\nINSPECT h\n"), "{text}");
}

#[test]
fn closing_a_tab_keeps_a_valid_active_tab() {
    let mut c = paused(&["@3 PING"]);
    assert_eq!(c.sessions.len(), 3);
    c.apply(Action::SelectClient(2));
    c.apply(Action::CloseClient(2));
    assert_eq!((c.sessions.len(), c.active), (2, 1));
    c.apply(Action::CloseClient(0));
    c.apply(Action::CloseClient(0));
    assert_eq!(c.sessions.len(), 1, "the last client stays");
    assert_eq!(c.tabs()[0].num, 2);
    assert!(c.can_add_client());
}

/// `timeout` closes an idle tab's client as the clock passes (Redis' cron);
/// the tab says so and goes on as a new client, as redis-cli reconnects.
#[test]
fn an_idle_client_closed_by_timeout_reconnects() {
    let mut c = paused(&["CONFIG SET timeout 1"]);
    let before = c.sessions[0].id;
    c.apply(Action::Step(1_000_000));
    assert_eq!(
        c.sessions[0].id, before,
        "idle for a second is not more than the timeout"
    );
    c.apply(Action::Step(2_000_000));
    assert_ne!(
        c.sessions[0].id, before,
        "closed once idle for more than a second"
    );
    assert!(screen(&c, 0)
        .last()
        .is_some_and(|l| l.contains("reconnected as a new client")));
    type_line(&mut c, "CONFIG SET timeout 0");
    assert_eq!(screen(&c, 0).last().map(String::as_str), Some("OK"));
}
