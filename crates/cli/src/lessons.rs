//! `redsim lessons`: the course's chapters and steps as text or JSON, and `--check`, which proves every step (its reference answer passes, every wrong answer is refused) on the engine and the scenario runner.
//!
//! A plain function over arguments and a writer, as the scenario commands
//! are, so tests call it directly and the binary maps its result to an exit
//! code.

use std::fmt::Write as _;
use std::io::Write;

use redsim_course::{Chapter, Kind};

/// Exit status when a step fails its proof.
pub const STEPS_FAILED: u8 = 1;

/// `redsim lessons --help`.
pub fn lessons_usage() -> String {
    "\
Usage: redsim lessons [--json | --check] [<chapter>]

  lessons            list the course: chapters in order, each step's kind, id and title
    --json           the chapters as JSON (id, title, summary, steps with their
                     text, setup, choices or goal, hints and reference answers)
    --check          prove every step: its reference answer passes and each wrong
                     answer is refused, on a fresh engine or scenario run; prints one
                     line per step and exits 1 if any fails
    <chapter>        only that chapter
"
    .to_string()
}

/// `redsim lessons [--json | --check] [<chapter>]`. `Ok` is the exit
/// status; `Err` a usage error (status 2).
pub fn lessons_command(args: &[String], out: &mut dyn Write) -> Result<u8, String> {
    let (mut json, mut check, mut only) = (false, false, None::<&str>);
    for a in args {
        match a.as_str() {
            "--json" => json = true,
            "--check" => check = true,
            s if s.starts_with('-') => return Err(format!("lessons: unknown option '{s}'")),
            s if only.is_none() => only = Some(s),
            s => return Err(format!("lessons: unexpected argument '{s}'")),
        }
    }
    if json && check {
        return Err("lessons: --json and --check do not go together".into());
    }
    let mut chapters = redsim_course::all();
    if let Some(id) = only {
        chapters.retain(|c| c.id == id);
        if chapters.is_empty() {
            let ids: Vec<&str> = redsim_course::all().iter().map(|c| c.id).collect();
            return Err(format!(
                "unknown chapter '{id}' (known: {})",
                ids.join(", ")
            ));
        }
    }
    let write = |out: &mut dyn Write, text: &str| {
        out.write_all(text.as_bytes())
            .map_err(|e| format!("cannot write: {e}"))
    };
    if json {
        let mut t = serde_json::to_string_pretty(&chapters)
            .map_err(|e| format!("cannot encode JSON: {e}"))?;
        t.push('\n');
        write(out, &t)?;
        return Ok(0);
    }
    if !check {
        write(out, &list(&chapters))?;
        return Ok(0);
    }
    let (mut failed, mut total) = (0, 0);
    for c in &chapters {
        for s in &c.steps {
            total += 1;
            let line = match redsim_course::prove(s) {
                Ok(n) => format!("ok    {}/{} ({n} attempts)\n", c.id, s.id),
                Err(e) => {
                    failed += 1;
                    format!("FAIL  {}/{}: {e}\n", c.id, s.id)
                }
            };
            write(out, &line)?;
        }
    }
    write(
        out,
        &format!("\n{} of {total} steps proven\n", total - failed),
    )?;
    Ok(if failed == 0 { 0 } else { STEPS_FAILED })
}

/// The course as text.
pub fn list(chapters: &[Chapter]) -> String {
    let mut s = String::new();
    for (i, c) in chapters.iter().enumerate() {
        let _ = writeln!(
            s,
            "{}. {} ({}, {} steps)",
            i + 1,
            c.title,
            c.id,
            c.steps.len()
        );
        let _ = writeln!(s, "   {}", c.summary);
        for (j, st) in c.steps.iter().enumerate() {
            let what = match &st.kind {
                Kind::Scenario { scenario, .. } => format!(" [scenario {scenario}]"),
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "   {:>2} {:<9} {:<20} {}{what}",
                j + 1,
                st.kind.name(),
                st.id,
                st.title
            );
        }
        s.push('\n');
    }
    s.push_str(
        "Prove every step with `redsim lessons --check`; the browser's Lessons tab runs them.\n",
    );
    s
}
