//! The checker: runs a learner's attempt on a fresh engine (or scenario run) built from the step, and proves each step by passing its reference answer and refusing its wrong ones.

use redsim_engine::proto::split_args;

use crate::{Console, Kind, State, Step};

/// What the learner submits.
#[derive(Clone, Debug, PartialEq)]
pub enum Attempt {
    /// Session text: commands, `@N` targets, `# sleep <ms>` (ReadRun, Do).
    Commands(String),
    /// One of a Predict step's choices, by index.
    Choice(usize),
    /// A Predict step's reply, typed.
    Reply(String),
    /// Scenario parameter overrides (name, value), over the step's own.
    Params(Vec<(String, String)>),
}

/// The checker's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub pass: bool,
    pub message: String,
}

impl Verdict {
    fn pass(message: impl Into<String>) -> Verdict {
        Verdict {
            pass: true,
            message: message.into(),
        }
    }

    fn fail(message: impl Into<String>) -> Verdict {
        Verdict {
            pass: false,
            message: message.into(),
        }
    }
}

/// Checks `attempt` against `step`, on a fresh engine with the step's seed
/// and setup (or a fresh scenario run): deterministic, so the same attempt
/// always gets the same verdict.
pub fn check(step: &Step, attempt: &Attempt) -> Verdict {
    match (&step.kind, attempt) {
        (Kind::ReadRun { commands }, Attempt::Commands(text)) => read_run(step, commands, text),
        (Kind::Predict { .. }, Attempt::Choice(_) | Attempt::Reply(_)) => predict(step, attempt),
        (Kind::Do { .. }, Attempt::Commands(text)) => doing(step, text),
        (Kind::Scenario { .. }, Attempt::Params(p)) => scenario(step, p),
        (kind, _) => Verdict::fail(format!(
            "a {} step takes {}",
            kind.name(),
            match kind {
                Kind::ReadRun { .. } | Kind::Do { .. } => "commands",
                Kind::Predict { .. } => "a choice or a typed reply",
                Kind::Scenario { .. } => "scenario parameters",
            }
        )),
    }
}

/// The command names of session text, upper-cased (sleeps and comments
/// skipped; `@N` targets dropped).
fn command_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (_, cmd) = redsim_engine::proto::session::split_target(t);
        if let Some(args) = split_args(cmd.as_bytes()) {
            if let Some(first) = args.first() {
                out.push(String::from_utf8_lossy(first).to_ascii_uppercase());
            }
        }
    }
    out
}

fn read_run(step: &Step, commands: &[String], text: &str) -> Verdict {
    let mut console = match Console::for_step(step) {
        Ok(c) => c,
        Err(e) => return Verdict::fail(e),
    };
    if let Err(e) = console.run_text(text) {
        return Verdict::fail(e);
    }
    let ran = command_names(text);
    let mut missing: Vec<String> = Vec::new();
    for want in command_names(&commands.join("\n")) {
        if !ran.contains(&want) && !missing.contains(&want) {
            missing.push(want);
        }
    }
    if missing.is_empty() {
        Verdict::pass(format!("You ran {} command(s).", ran.len()))
    } else {
        Verdict::fail(format!("Still to run: {}.", missing.join(", ")))
    }
}

/// The reply `command` really gets after the step's setup.
pub(crate) fn real_reply(step: &Step, command: &str) -> Result<String, String> {
    let mut console = Console::for_step(step)?;
    let line = console
        .run_line(command)?
        .ok_or_else(|| format!("'{command}' runs nothing"))?;
    Ok(line.reply)
}

/// Whitespace-insensitive form of a reply.
fn normal(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A typed reply, forgiven what a person leaves out of a one-line reply:
/// the `(integer)` tag, the quotes, the parentheses around nil; and case.
fn loose(text: &str) -> String {
    let n = normal(text);
    let n = n.strip_prefix("(integer) ").unwrap_or(&n);
    let n = if n.len() >= 2 && n.starts_with('"') && n.ends_with('"') && !n.contains('\n') {
        &n[1..n.len() - 1]
    } else {
        n
    };
    let n = if n == "(nil)" { "nil" } else { n };
    n.to_ascii_lowercase()
}

fn predict(step: &Step, attempt: &Attempt) -> Verdict {
    let Kind::Predict {
        command, choices, ..
    } = &step.kind
    else {
        unreachable!("predict() is only called on Predict steps")
    };
    let real = match real_reply(step, command) {
        Ok(r) => r,
        Err(e) => return Verdict::fail(e),
    };
    let ok = match attempt {
        Attempt::Choice(i) => match choices.get(*i) {
            Some(c) => normal(c) == normal(&real),
            None => return Verdict::fail(format!("there is no choice {i}")),
        },
        Attempt::Reply(text) => normal(text) == normal(&real) || loose(text) == loose(&real),
        _ => false,
    };
    if ok {
        Verdict::pass(format!("Right: the engine replied {real}"))
    } else {
        Verdict::fail("Not what the engine replies. Think again, or run it in the console.")
    }
}

fn doing(step: &Step, text: &str) -> Verdict {
    let Kind::Do { check, after, .. } = &step.kind else {
        unreachable!("doing() is only called on Do steps")
    };
    if let Err(e) = redsim_engine::proto::session::Session::parse(text) {
        return Verdict::fail(e);
    }
    if command_names(text).is_empty() {
        return Verdict::fail("Run at least one command first.");
    }
    let mut console = match Console::for_step(step) {
        Ok(c) => c,
        Err(e) => return Verdict::fail(e),
    };
    if let Err(e) = console.run_text(text) {
        return Verdict::fail(e);
    }
    for line in after {
        if let Err(e) = console.run_text(line) {
            return Verdict::fail(e);
        }
    }
    let mut state = State::new(&mut console);
    match check(&mut state) {
        Ok(()) => Verdict::pass("Goal reached."),
        Err(why) => Verdict::fail(why),
    }
}

fn scenario(step: &Step, overrides: &[(String, String)]) -> Verdict {
    let Kind::Scenario {
        scenario,
        params,
        check,
        ..
    } = &step.kind
    else {
        unreachable!("scenario() is only called on Scenario steps")
    };
    let mut merged: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    for (k, v) in overrides {
        match merged.iter_mut().find(|(n, _)| n == k) {
            Some(slot) => slot.1 = v.clone(),
            None => merged.push((k.clone(), v.clone())),
        }
    }
    match redsim_sim::run(scenario, step.seed, &merged) {
        Err(e) => Verdict::fail(e),
        Ok(outcome) => match check(&outcome) {
            Ok(()) => Verdict::pass("The run agrees."),
            Err(why) => Verdict::fail(why),
        },
    }
}

/// The step's reference answer.
pub fn reference(step: &Step) -> Attempt {
    match &step.kind {
        Kind::ReadRun { commands } => Attempt::Commands(commands.join("\n")),
        Kind::Predict { answer, .. } => Attempt::Choice(*answer),
        Kind::Do { reference, .. } => Attempt::Commands(reference.join("\n")),
        Kind::Scenario { reference, .. } => Attempt::Params(owned(reference)),
    }
}

fn owned(p: &[(&'static str, String)]) -> Vec<(String, String)> {
    p.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// Answers the step must refuse: its declared wrong ones, plus doing
/// nothing (no commands; a scenario left as the step starts it), so no
/// goal is met by the setup alone.
pub fn wrong_answers(step: &Step) -> Vec<Attempt> {
    let mut out = match &step.kind {
        Kind::ReadRun { .. } => Vec::new(),
        Kind::Predict {
            choices, answer, ..
        } => (0..choices.len())
            .filter(|i| i != answer)
            .map(Attempt::Choice)
            .collect(),
        Kind::Do { wrong, .. } => wrong
            .iter()
            .map(|w| Attempt::Commands(w.join("\n")))
            .collect(),
        Kind::Scenario { wrong, .. } => wrong.iter().map(|w| Attempt::Params(owned(w))).collect(),
    };
    out.push(match &step.kind {
        Kind::ReadRun { .. } | Kind::Do { .. } => Attempt::Commands(String::new()),
        Kind::Predict { .. } => Attempt::Reply(String::new()),
        Kind::Scenario { .. } => Attempt::Params(Vec::new()),
    });
    out
}

/// The reference answer as text to reveal: the commands, the real reply,
/// or the parameters to set.
pub fn reveal(step: &Step) -> String {
    match &step.kind {
        Kind::ReadRun { commands } => commands.join("\n"),
        Kind::Predict { command, .. } => real_reply(step, command).unwrap_or_else(|e| e),
        Kind::Do { reference, .. } => reference.join("\n"),
        Kind::Scenario { reference, .. } => reference
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Proves `step`: its setup runs without an error reply, its reference
/// passes and every wrong answer is refused. `Ok` counts the attempts
/// checked; `Err` says what failed.
pub fn prove(step: &Step) -> Result<usize, String> {
    setup_is_clean(step)?;
    if step.hints.is_empty() {
        return Err("no hints".into());
    }
    if step.why.is_empty() {
        return Err("no explanation of why".into());
    }
    let want = reference(step);
    let v = check(step, &want);
    if !v.pass {
        let real = match &step.kind {
            Kind::Predict { command, .. } => {
                format!(" (the engine replies {:?})", real_reply(step, command)?)
            }
            _ => String::new(),
        };
        return Err(format!(
            "reference answer {want:?} refused: {}{real}",
            v.message
        ));
    }
    let wrong = wrong_answers(step);
    let declared = match &step.kind {
        Kind::ReadRun { .. } => 1,
        _ => 2,
    };
    if wrong.len() < declared {
        return Err("no wrong answer to refuse".into());
    }
    for w in &wrong {
        let v = check(step, w);
        if v.pass {
            return Err(format!("wrong answer {w:?} passed: {}", v.message));
        }
    }
    Ok(1 + wrong.len())
}

/// An error reply in the setup is an authoring mistake: the learner would
/// start from a state the text does not describe.
fn setup_is_clean(step: &Step) -> Result<(), String> {
    let mut bare = step.clone();
    bare.setup = Vec::new();
    let mut console = Console::for_step(&bare)?;
    for line in &step.setup {
        for l in console.run_text(line)? {
            if l.reply.starts_with("(error)") {
                return Err(format!("setup line '{}' fails: {}", l.input, l.reply));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(chapter: &str, id: &str) -> Step {
        let ch = crate::find(chapter).expect("chapter");
        ch.steps.into_iter().find(|s| s.id == id).expect("step")
    }

    #[test]
    fn a_do_step_accepts_any_way_to_the_goal() {
        let s = step("ttl-expiry", "expire-in-30");
        for way in [
            "EXPIRE session:1 30",
            "PEXPIRE session:1 30000",
            "SET session:1 data EX 30",
        ] {
            assert!(check(&s, &Attempt::Commands(way.into())).pass, "{way}");
        }
        // Time passing after the write takes it out of the window.
        let late = "EXPIRE session:1 30\n# sleep 2000";
        assert!(!check(&s, &Attempt::Commands(late.into())).pass);
    }

    #[test]
    fn a_typed_prediction_is_compared_with_the_real_reply() {
        let s = step("ttl-expiry", "ttl-missing");
        assert!(check(&s, &Attempt::Reply("-2".into())).pass);
        assert!(check(&s, &Attempt::Reply("(integer) -2".into())).pass);
        assert!(!check(&s, &Attempt::Reply("-1".into())).pass);
        assert_eq!(reveal(&s), "(integer) -2");
    }

    #[test]
    fn attempts_of_the_wrong_shape_are_refused() {
        let s = step("ttl-expiry", "ttl-missing");
        let v = check(&s, &Attempt::Commands("TTL nosuch".into()));
        assert!(!v.pass);
        assert!(v.message.contains("choice"), "{}", v.message);
        let v = check(&s, &Attempt::Choice(99));
        assert!(!v.pass);
    }

    #[test]
    fn bad_quotes_are_reported_not_run() {
        let s = step("ttl-expiry", "keepttl");
        let v = check(&s, &Attempt::Commands("SET session:2 \"new KEEPTTL".into()));
        assert!(!v.pass);
        assert!(v.message.contains("unbalanced"), "{}", v.message);
    }

    #[test]
    fn scenario_parameters_are_checked_by_the_runner() {
        let s = step("stampede", "one-db-call");
        let bad = Attempt::Params(vec![("protection".into(), "magic".into())]);
        let v = check(&s, &bad);
        assert!(!v.pass);
        assert!(v.message.contains("protection"), "{}", v.message);
    }

    #[test]
    fn a_read_run_step_names_what_is_left() {
        let s = step("cache-aside", "miss-then-fill");
        let v = check(&s, &Attempt::Commands("GET product:42".into()));
        assert!(!v.pass);
        assert!(v.message.contains("SET"), "{}", v.message);
    }

    #[test]
    fn state_checks_read_the_trace() {
        let s = step("eviction", "hot-survives");
        let v = check(
            &s,
            &Attempt::Commands("CONFIG SET maxmemory-policy allkeys-lru".into()),
        );
        assert!(!v.pass);
        assert!(
            v.message.starts_with("allkeys-lru evicted hot"),
            "{}",
            v.message
        );
        let s = step("ttl-expiry", "lazy-expiry");
        let v = check(&s, &Attempt::Commands("# sleep 1000\nGET k".into()));
        assert!(v.message.contains("active cycle"), "{}", v.message);
    }

    #[test]
    fn checks_are_deterministic() {
        let s = step("eviction", "hot-survives");
        let a = Attempt::Commands("CONFIG SET maxmemory-policy allkeys-random".into());
        assert_eq!(check(&s, &a), check(&s, &a));
    }
}
