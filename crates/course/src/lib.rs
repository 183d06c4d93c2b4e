//! The course: chapters of steps that teach the seeds' lessons on a real engine and the scenario library, each step checked by running the learner's attempt, never by matching the typed text.
//!
//! Lessons are data ([`chapters`]: one module per chapter), so adding one
//! touches neither the checker, the CLI nor the UI. A step is one of four
//! kinds ([`Kind`]): read and run commands, predict a reply (compared with
//! the reply the engine really gives), reach a state (checked on the engine
//! after the attempt, so any correct way passes) or tune a scenario until a
//! figure comes out right (checked on `redsim_sim::run`). Every step carries
//! its reference answer and at least one wrong answer, and [`prove`] shows
//! the first passes and the others fail: `redsim lessons --check` and the
//! tests run it over the whole course.

pub mod chapters;
mod check;
mod console;
pub mod state;

pub use check::{check, prove, reference, reveal, wrong_answers, Attempt, Verdict};
pub use console::{Console, Line};
pub use state::State;

use redsim_sim::Outcome;
use serde::Serialize;

/// One chapter: a lesson of the seeds, as a few steps.
#[derive(Clone, Debug, Serialize)]
pub struct Chapter {
    /// Stable identifier for links (`?lesson=<id>`) and progress.
    pub id: &'static str,
    pub title: &'static str,
    /// One or two sentences: what the chapter teaches.
    pub summary: &'static str,
    pub steps: Vec<Step>,
}

/// Reads the engine after a Do step's attempt: `Err` says what is still
/// wrong, in words the learner can act on.
pub type StateCheck = fn(&mut State) -> Result<(), String>;

/// Reads a scenario's outcome after a Scenario step's run.
pub type OutcomeCheck = fn(&Outcome) -> Result<(), String>;

/// One step of a chapter.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// Stable within its chapter.
    pub id: &'static str,
    pub title: &'static str,
    /// A short explanation in English.
    pub text: &'static str,
    /// Seed of the step's engine (and of its scenario run).
    pub seed: u64,
    /// CONFIG parameters the step's engine starts with (name, value), for
    /// what cannot change at run time (cluster mode).
    pub config: Vec<(&'static str, &'static str)>,
    /// Session lines run before the learner's turn (`# sleep <ms>` included).
    pub setup: Vec<String>,
    #[serde(flatten)]
    pub kind: Kind,
    /// Shown one by one after wrong tries.
    pub hints: Vec<&'static str>,
    /// Why the answer is what it is, shown once the step passes.
    pub why: &'static str,
}

/// What the learner does in a step, and how it is checked.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Kind {
    /// Read, then run these commands in the console; the step passes once
    /// each of their commands has been run.
    ReadRun { commands: Vec<String> },
    /// Predict the reply to `command` (run after the setup): pick one of
    /// `choices` or type it. `answer` is the author's choice, which
    /// [`prove`] confirms against the engine's real reply.
    Predict {
        command: String,
        choices: Vec<String>,
        answer: usize,
    },
    /// Reach a state: the learner's commands run after the setup, then
    /// `after` (a fill, a wait), then `check` reads the engine.
    Do {
        goal: &'static str,
        #[serde(skip)]
        check: StateCheck,
        after: Vec<String>,
        reference: Vec<String>,
        wrong: Vec<Vec<String>>,
    },
    /// Run `scenario` from `params`; the learner changes parameters until
    /// `check` accepts the outcome.
    Scenario {
        scenario: &'static str,
        params: Vec<(&'static str, String)>,
        question: &'static str,
        #[serde(skip)]
        check: OutcomeCheck,
        reference: Vec<(&'static str, String)>,
        wrong: Vec<Vec<(&'static str, String)>>,
    },
}

impl Kind {
    /// The kind's name as the JSON and the UI show it.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::ReadRun { .. } => "read-run",
            Kind::Predict { .. } => "predict",
            Kind::Do { .. } => "do",
            Kind::Scenario { .. } => "scenario",
        }
    }
}

fn lines(cmds: &[&str]) -> Vec<String> {
    cmds.iter().map(|c| c.to_string()).collect()
}

fn pairs(p: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    p.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

/// Builders, so chapter files read as the lesson rather than as struct
/// syntax.
impl Step {
    fn new(id: &'static str, title: &'static str, text: &'static str, kind: Kind) -> Step {
        Step {
            id,
            title,
            text,
            seed: 1,
            config: Vec::new(),
            setup: Vec::new(),
            kind,
            hints: Vec::new(),
            why: "",
        }
    }

    /// A step that asks the learner to run `commands`.
    pub fn read_run(
        id: &'static str,
        title: &'static str,
        text: &'static str,
        commands: &[&str],
    ) -> Step {
        let commands = lines(commands);
        Step::new(id, title, text, Kind::ReadRun { commands })
    }

    /// A step that asks for `command`'s reply; `answer` indexes `choices`.
    pub fn predict(
        id: &'static str,
        title: &'static str,
        text: &'static str,
        command: &str,
        choices: &[&str],
        answer: usize,
    ) -> Step {
        let kind = Kind::Predict {
            command: command.to_string(),
            choices: lines(choices),
            answer,
        };
        Step::new(id, title, text, kind)
    }

    /// A step whose `goal` `check` reads from the engine.
    #[allow(clippy::too_many_arguments)]
    pub fn doing(
        id: &'static str,
        title: &'static str,
        text: &'static str,
        goal: &'static str,
        check: StateCheck,
        reference: &[&str],
        wrong: &[&[&str]],
    ) -> Step {
        let kind = Kind::Do {
            goal,
            check,
            after: Vec::new(),
            reference: lines(reference),
            wrong: wrong.iter().map(|w| lines(w)).collect(),
        };
        Step::new(id, title, text, kind)
    }

    /// A step over scenario `scenario`, starting from `params`.
    #[allow(clippy::too_many_arguments)]
    pub fn scenario(
        id: &'static str,
        title: &'static str,
        text: &'static str,
        scenario: &'static str,
        params: &[(&'static str, &str)],
        question: &'static str,
        check: OutcomeCheck,
        reference: &[(&'static str, &str)],
        wrong: &[&[(&'static str, &str)]],
    ) -> Step {
        let kind = Kind::Scenario {
            scenario,
            params: pairs(params),
            question,
            check,
            reference: pairs(reference),
            wrong: wrong.iter().map(|w| pairs(w)).collect(),
        };
        Step::new(id, title, text, kind)
    }

    /// Session lines run before the learner's turn.
    pub fn setup(mut self, setup: &[&str]) -> Step {
        self.setup = lines(setup);
        self
    }

    /// Setup lines built by code (a fill of many keys).
    pub fn setup_lines(mut self, setup: Vec<String>) -> Step {
        self.setup = setup;
        self
    }

    /// Lines a Do step runs after the learner's attempt, before its check.
    pub fn after(mut self, after: Vec<String>) -> Step {
        if let Kind::Do { after: a, .. } = &mut self.kind {
            *a = after;
        }
        self
    }

    /// CONFIG parameters the step's engine starts with.
    pub fn config(mut self, config: &[(&'static str, &'static str)]) -> Step {
        self.config = config.to_vec();
        self
    }

    pub fn seed(mut self, seed: u64) -> Step {
        self.seed = seed;
        self
    }

    pub fn hints(mut self, hints: &[&'static str]) -> Step {
        self.hints = hints.to_vec();
        self
    }

    pub fn why(mut self, why: &'static str) -> Step {
        self.why = why;
        self
    }
}

/// Every chapter, in the seeds' order.
pub fn all() -> Vec<Chapter> {
    chapters::all()
}

/// The chapter with this id.
pub fn find(id: &str) -> Option<Chapter> {
    all().into_iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_unique_and_chapters_are_sized() {
        let chapters = super::all();
        assert!(chapters.len() >= 10);
        for (i, c) in chapters.iter().enumerate() {
            assert!(chapters[i + 1..].iter().all(|d| d.id != c.id), "{}", c.id);
            assert!(
                (6..=12).contains(&c.steps.len()),
                "{} has {}",
                c.id,
                c.steps.len()
            );
            for (j, s) in c.steps.iter().enumerate() {
                assert!(
                    c.steps[j + 1..].iter().all(|t| t.id != s.id),
                    "{}/{}",
                    c.id,
                    s.id
                );
            }
        }
    }

    #[test]
    fn every_kind_is_taught() {
        let kinds: Vec<&str> = super::all()
            .iter()
            .flat_map(|c| c.steps.iter().map(|s| s.kind.name()))
            .collect();
        for k in ["read-run", "predict", "do", "scenario"] {
            assert!(kinds.contains(&k), "{k}");
        }
    }
}
