//! A console's Up/Down history: the commands typed, not twice in a row, browsed back and forth with the line being typed kept as a draft.

/// Commands kept in each client's Up/Down history.
pub const MAX_HISTORY: usize = 500;

#[derive(Default)]
pub struct History {
    entries: Vec<String>,
    /// Position in `entries` while browsing them with Up/Down.
    pos: Option<usize>,
    /// What was being typed before browsing.
    draft: String,
}

impl History {
    /// Records a typed command (not twice in a row) and stops browsing.
    pub fn remember(&mut self, command: &str) {
        if self.entries.last().map(String::as_str) != Some(command) {
            self.entries.push(command.to_string());
            if self.entries.len() > MAX_HISTORY {
                self.entries.remove(0);
            }
        }
        self.pos = None;
        self.draft.clear();
    }

    /// Typing ends browsing: the next Up starts from the newest entry.
    pub fn stop_browsing(&mut self) {
        self.pos = None;
    }

    /// Up: puts the previous entry in `input`; false if there is none.
    pub fn up(&mut self, input: &mut String) -> bool {
        if self.entries.is_empty() {
            return false;
        }
        let pos = match self.pos {
            None => {
                self.draft = input.clone();
                self.entries.len() - 1
            }
            Some(p) => p.saturating_sub(1),
        };
        self.pos = Some(pos);
        *input = self.entries[pos].clone();
        true
    }

    /// Down: the next entry, then back to the draft; false when not browsing.
    pub fn down(&mut self, input: &mut String) -> bool {
        match self.pos {
            None => false,
            Some(p) if p + 1 < self.entries.len() => {
                self.pos = Some(p + 1);
                *input = self.entries[p + 1].clone();
                true
            }
            Some(_) => {
                self.pos = None;
                *input = std::mem::take(&mut self.draft);
                true
            }
        }
    }

    #[cfg(test)]
    pub fn entries(&self) -> &[String] {
        &self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browses_back_and_returns_to_the_draft() {
        let mut h = History::default();
        let mut input = String::new();
        assert!(!h.up(&mut input));
        h.remember("SET a 1");
        h.remember("SET a 1");
        h.remember("GET a");
        assert_eq!(h.entries(), ["SET a 1", "GET a"]);
        input = "PI".into();
        assert!(h.up(&mut input));
        assert_eq!(input, "GET a");
        assert!(h.up(&mut input));
        assert!(h.up(&mut input));
        assert_eq!(input, "SET a 1");
        assert!(h.down(&mut input));
        assert_eq!(input, "GET a");
        assert!(h.down(&mut input));
        assert_eq!(input, "PI");
        assert!(!h.down(&mut input));
    }

    #[test]
    fn is_bounded_and_typing_stops_browsing() {
        let mut h = History::default();
        for i in 0..MAX_HISTORY + 5 {
            h.remember(&i.to_string());
        }
        assert_eq!(h.entries().len(), MAX_HISTORY);
        assert_eq!(h.entries()[0], "5");
        let mut input = String::new();
        h.up(&mut input);
        h.up(&mut input);
        h.stop_browsing();
        h.up(&mut input);
        assert_eq!(
            input,
            (MAX_HISTORY + 4).to_string(),
            "from the newest again"
        );
    }
}
