//! The Lessons tab's state and the actions that change it: the chapter and step shown, the step's console (its own engine, built from the step's seed and setup), the learner's choice, typed reply or scenario parameters, the last verdict, hints shown, the revealed answer and the progress.
//!
//! The checker is `redsim_course::check`, the same the CLI proves the
//! course with: what the learner ran in the console is replayed on a fresh
//! engine, so the verdict never depends on the console's history beyond
//! the lines it shows. The component stores progress and moves the
//! address bar when `save_due` / `url_due` say so.

use std::rc::Rc;

use redsim_course::{check, reveal, Attempt, Chapter, Console, Kind, Line, Step, Verdict};

use super::progress::Progress;

/// Something the learner did.
pub enum Action {
    OpenChapter(usize),
    Go(usize),
    Next,
    Prev,
    Input(String),
    /// Run the input line in the step's console.
    Run,
    Choose(usize),
    Typed(String),
    /// A scenario parameter, by its index in [`LessonsState::params`].
    Param(usize, String),
    Check,
    Reveal,
    /// Start the step's console again from its setup.
    Restart,
    /// Forget the shown chapter's progress.
    ResetChapter,
}

pub struct LessonsState {
    pub chapters: Rc<Vec<Chapter>>,
    pub chapter: usize,
    pub step: usize,
    /// One step only (an embedded `data-redsim-step`): no navigation.
    pub locked: bool,
    pub console: Option<Console>,
    /// The console's screen: every line the learner ran and its reply.
    pub screen: Vec<Line>,
    pub input: String,
    pub choice: Option<usize>,
    pub typed: String,
    /// A scenario step's parameters as the form shows them (name, text).
    pub params: Vec<(String, String)>,
    pub verdict: Option<Verdict>,
    /// Wrong tries on this step: that many hints are shown.
    pub tries: usize,
    pub revealed: Option<String>,
    pub progress: Progress,
    pub save_due: bool,
    pub url_due: bool,
    /// A problem with the link that opened the tab.
    pub notice: Option<String>,
}

impl LessonsState {
    /// The tab at chapter `chapter` (an id) and 1-based `step`, as a link
    /// or element asks; unknown ones fall back to the first, with a notice.
    pub fn new(chapter: Option<&str>, step: Option<usize>, progress: Progress) -> LessonsState {
        let chapters = Rc::new(redsim_course::all());
        let mut notice = None;
        let c = match chapter {
            Some(id) => chapters.iter().position(|c| c.id == id).unwrap_or_else(|| {
                notice = Some(format!("unknown lesson '{id}'"));
                0
            }),
            None => 0,
        };
        let n = chapters.get(c).map_or(0, |c| c.steps.len());
        let s = match step {
            Some(k) if (1..=n).contains(&k) => k - 1,
            Some(k) => {
                notice = Some(format!("lesson '{}' has no step {k}", chapters[c].id));
                0
            }
            None => 0,
        };
        let mut st = LessonsState {
            chapters,
            chapter: c,
            step: s,
            locked: false,
            console: None,
            screen: Vec::new(),
            input: String::new(),
            choice: None,
            typed: String::new(),
            params: Vec::new(),
            verdict: None,
            tries: 0,
            revealed: None,
            progress,
            save_due: false,
            url_due: false,
            notice,
        };
        st.enter_step();
        st
    }

    pub fn current_chapter(&self) -> &Chapter {
        &self.chapters[self.chapter]
    }

    pub fn current(&self) -> &Step {
        &self.current_chapter().steps[self.step]
    }

    /// The link that reopens this step: `?tab=lessons&lesson=<id>&step=<n>`.
    pub fn link(&self, base: &str) -> String {
        format!(
            "{base}?tab=lessons&lesson={}&step={}",
            self.current_chapter().id,
            self.step + 1
        )
    }

    /// Hints shown: one more after each wrong try.
    pub fn hints_shown(&self) -> &[&'static str] {
        let h = &self.current().hints;
        &h[..self.tries.min(h.len())]
    }

    /// Fresh state for the step shown: a new engine, an empty screen.
    fn enter_step(&mut self) {
        let step = self.current().clone();
        self.console = match step.kind {
            Kind::Scenario { .. } => None,
            _ => Console::for_step(&step).ok(),
        };
        self.screen.clear();
        self.input.clear();
        self.choice = None;
        self.typed.clear();
        self.verdict = None;
        self.tries = 0;
        self.revealed = None;
        self.params = match &step.kind {
            Kind::Scenario {
                scenario, params, ..
            } => redsim_sim::find(scenario)
                .map(|s| {
                    s.info()
                        .params
                        .iter()
                        .map(|p| {
                            let v = params
                                .iter()
                                .find(|(n, _)| *n == p.name)
                                .map(|(_, v)| v.clone())
                                .unwrap_or_else(|| p.value_text(p.default));
                            (p.name.to_string(), v)
                        })
                        .collect()
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        };
    }

    fn go(&mut self, chapter: usize, step: usize) {
        if chapter == self.chapter && step == self.step {
            return;
        }
        self.chapter = chapter;
        self.step = step;
        self.notice = None;
        self.url_due = true;
        self.enter_step();
    }

    /// The attempt the learner's inputs make, or why there is none yet.
    fn attempt(&self) -> Result<Attempt, &'static str> {
        match &self.current().kind {
            Kind::ReadRun { .. } | Kind::Do { .. } => {
                let lines: Vec<&str> = self.screen.iter().map(|l| l.input.as_str()).collect();
                Ok(Attempt::Commands(lines.join("\n")))
            }
            Kind::Predict { .. } => {
                if !self.typed.trim().is_empty() {
                    Ok(Attempt::Reply(self.typed.clone()))
                } else {
                    self.choice
                        .map(Attempt::Choice)
                        .ok_or("Pick a reply, or type one.")
                }
            }
            Kind::Scenario { .. } => Ok(Attempt::Params(self.params.clone())),
        }
    }

    /// Applies `a`; false when nothing shown changed.
    pub fn apply(&mut self, a: Action) -> bool {
        let last_step = self.current_chapter().steps.len().saturating_sub(1);
        match a {
            Action::OpenChapter(c) if c < self.chapters.len() && !self.locked => self.go(c, 0),
            Action::Go(s) if s <= last_step && !self.locked => self.go(self.chapter, s),
            Action::Next if !self.locked => {
                if self.step < last_step {
                    self.go(self.chapter, self.step + 1);
                } else if self.chapter + 1 < self.chapters.len() {
                    self.go(self.chapter + 1, 0);
                } else {
                    return false;
                }
            }
            Action::Prev if !self.locked => {
                if self.step > 0 {
                    self.go(self.chapter, self.step - 1);
                } else if self.chapter > 0 {
                    let c = self.chapter - 1;
                    self.go(c, self.chapters[c].steps.len() - 1);
                } else {
                    return false;
                }
            }
            Action::Input(text) => {
                self.input = text;
                return false;
            }
            Action::Run => {
                let line = std::mem::take(&mut self.input);
                let Some(console) = self.console.as_mut() else {
                    return false;
                };
                match console.run_line(&line) {
                    Ok(Some(l)) => self.screen.push(l),
                    Ok(None) => {}
                    // A line whose quotes do not balance never ran: shown
                    // as a comment, so it stays out of the attempt.
                    Err(e) => self.screen.push(Line {
                        input: format!("# {line}"),
                        reply: format!("(error) {e}"),
                    }),
                }
            }
            Action::Choose(i) => {
                self.choice = Some(i);
                self.typed.clear();
            }
            Action::Typed(t) => {
                self.typed = t;
                return false;
            }
            Action::Param(k, v) => {
                if let Some(p) = self.params.get_mut(k) {
                    p.1 = v;
                }
            }
            Action::Check => {
                let verdict = match self.attempt() {
                    Ok(attempt) => check(self.current(), &attempt),
                    Err(why) => Verdict {
                        pass: false,
                        message: why.to_string(),
                    },
                };
                if verdict.pass {
                    let (c, s) = (self.current_chapter().id, self.current().id);
                    if self.progress.mark(c, s) {
                        self.save_due = true;
                    }
                } else {
                    self.tries += 1;
                }
                self.verdict = Some(verdict);
            }
            Action::Reveal => self.revealed = Some(reveal(self.current())),
            Action::Restart => {
                let (screen_empty, verdict) = (self.screen.is_empty(), self.verdict.is_none());
                let tries = self.tries;
                self.enter_step();
                self.tries = tries;
                return !(screen_empty && verdict);
            }
            Action::ResetChapter => {
                let id = self.current_chapter().id;
                self.progress.reset(id);
                self.save_due = true;
            }
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(chapter: &str, step: &str) -> LessonsState {
        let ch = redsim_course::find(chapter).unwrap();
        let n = ch.steps.iter().position(|s| s.id == step).unwrap();
        LessonsState::new(Some(chapter), Some(n + 1), Progress::default())
    }

    fn run(st: &mut LessonsState, line: &str) {
        st.apply(Action::Input(line.to_string()));
        st.apply(Action::Run);
    }

    #[test]
    fn a_do_step_passes_on_what_the_console_ran_and_marks_progress() {
        let mut st = at("ttl-expiry", "expire-in-30");
        run(&mut st, "EXPIRE session:1 300");
        st.apply(Action::Check);
        assert!(!st.verdict.as_ref().unwrap().pass);
        assert_eq!(st.hints_shown().len(), 1);
        assert!(!st.save_due);
        st.apply(Action::Restart);
        assert!(st.screen.is_empty());
        run(&mut st, "EXPIRE session:1 30");
        assert_eq!(st.screen[0].reply, "(integer) 1");
        st.apply(Action::Check);
        assert!(st.verdict.as_ref().unwrap().pass, "{:?}", st.verdict);
        assert!(st.save_due);
        assert!(st.progress.is_done("ttl-expiry", "expire-in-30"));
    }

    #[test]
    fn predictions_need_a_choice_and_are_checked_against_the_engine() {
        let mut st = at("ttl-expiry", "ttl-missing");
        st.apply(Action::Check);
        assert!(!st.verdict.as_ref().unwrap().pass);
        st.apply(Action::Choose(1));
        st.apply(Action::Check);
        assert!(!st.verdict.as_ref().unwrap().pass);
        st.apply(Action::Typed("-2".into()));
        st.apply(Action::Check);
        assert!(st.verdict.as_ref().unwrap().pass);
        st.apply(Action::Reveal);
        assert_eq!(st.revealed.as_deref(), Some("(integer) -2"));
    }

    #[test]
    fn scenario_steps_take_the_form_values() {
        let mut st = at("stampede", "one-db-call");
        let k = st
            .params
            .iter()
            .position(|(n, _)| n == "protection")
            .unwrap();
        assert_eq!(st.params[k].1, "none");
        st.apply(Action::Param(k, "lock".into()));
        st.apply(Action::Check);
        assert!(st.verdict.as_ref().unwrap().pass, "{:?}", st.verdict);
    }

    #[test]
    fn navigation_crosses_chapters_and_resets_the_step() {
        let mut st = LessonsState::new(None, None, Progress::default());
        assert!(!st.apply(Action::Prev));
        run(&mut st, "GET product:42");
        let last = st.current_chapter().steps.len() - 1;
        st.apply(Action::Go(last));
        assert!(st.screen.is_empty() && st.url_due);
        st.apply(Action::Next);
        assert_eq!((st.chapter, st.step), (1, 0));
        st.apply(Action::Prev);
        assert_eq!((st.chapter, st.step), (0, last));
        assert!(st
            .link("/p")
            .ends_with(&format!("lesson=cache-aside&step={}", last + 1)));
    }

    #[test]
    fn bad_links_fall_back_with_a_notice() {
        let st = LessonsState::new(Some("nope"), None, Progress::default());
        assert_eq!(st.chapter, 0);
        assert!(st.notice.as_deref().unwrap().contains("nope"));
        let st = LessonsState::new(Some("locks"), Some(99), Progress::default());
        assert_eq!(st.step, 0);
        assert!(st.notice.is_some());
    }

    #[test]
    fn a_locked_step_does_not_move_and_resets_keep_other_chapters() {
        let mut st = at("locks", "next-token");
        st.locked = true;
        assert!(!st.apply(Action::Next));
        st.progress.mark("ttl-expiry", "keepttl");
        st.progress.mark("locks", "next-token");
        st.apply(Action::ResetChapter);
        assert!(!st.progress.is_done("locks", "next-token"));
        assert!(st.progress.is_done("ttl-expiry", "keepttl"));
    }
}
