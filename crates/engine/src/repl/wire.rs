//! The write stream as Redis writes it to a replica's socket: each command that changed data, rewritten where it would not replay the same, MULTI/EXEC around an execution unit that propagated several, and a DEL for every key expired or evicted (`call`, `alsoPropagate`, `propagatePendingCommands`).
//!
//! The engine's own replicas take the effect stream of the parent module;
//! a real replica on a socket (or Redis' test suite reading the stream)
//! sees these commands instead. Commands mark what Redis' client flags say
//! (`preventCommandPropagation`, `forceCommandPropagation`, a rewritten
//! argv, `alsoPropagate`) through [`Wire`]; nothing is kept unless a socket
//! replica listens ([`Wire::on`]), so the browser and the simulated world pay
//! one branch per command.

/// One command for the stream and its database (`None`: no SELECT, as for
/// Redis' MULTI and EXEC, which it propagates with `dbid -1`).
pub type WireCmd = (Option<usize>, Vec<Vec<u8>>);

/// What an execution unit propagated, and the engine offset it ends at
/// (set once the engine's own ops for it are made).
#[derive(Clone, Debug)]
pub struct Unit {
    pub cmds: Vec<WireCmd>,
    pub engine_end: Option<u64>,
}

/// The running `call`'s own propagation: Redis' `CLIENT_FORCE_REPL`,
/// `CLIENT_PREVENT_PROP` and a rewritten `c->argv`.
#[derive(Clone, Debug, Default)]
pub struct CallProp {
    force: bool,
    prevent: bool,
    rewrite: Option<Vec<Vec<u8>>>,
}

/// `server.also_propagate` and the execution units finished but not sent.
#[derive(Clone, Debug, Default)]
pub struct Wire {
    /// A socket replica listens and this server is a master
    /// (`shouldPropagate`): only then is anything kept.
    pub on: bool,
    /// `server.execution_nesting`, counted by `call`: a unit ends when the
    /// outermost call returns, or at once for a deletion outside any call.
    depth: u32,
    /// The outermost command touches arbitrary keys (RANDOMKEY, SCAN): the
    /// DELs of its lazy expirations go out without MULTI/EXEC.
    arbitrary: bool,
    call: CallProp,
    also: Vec<WireCmd>,
    pub(super) units: Vec<Unit>,
}

impl Wire {
    /// `call`'s start: sets the running call's flags aside for a nested one
    /// (EXEC's commands, a script's calls) and returns the caller's.
    pub fn enter(&mut self, name: &str) -> CallProp {
        if self.depth == 0 {
            self.arbitrary = matches!(name, "randomkey" | "scan");
        }
        self.depth += 1;
        std::mem::take(&mut self.call)
    }

    /// `call`'s end: the command goes to the unit if it changed data or
    /// forced its propagation, unless it prevented it (EXEC never goes
    /// itself); the caller's flags come back, and the outermost call ends
    /// the unit.
    pub fn leave(&mut self, outer: CallProp, db: usize, args: &[Vec<u8>], dirty: bool, exec: bool) {
        let own = std::mem::replace(&mut self.call, outer);
        if self.on && (dirty || own.force) && !own.prevent && !exec {
            let argv = own.rewrite.unwrap_or_else(|| args.to_vec());
            self.also.push((Some(db), argv));
        }
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0 {
            self.end_unit();
        }
    }

    /// `rewriteClientCommandVector`: the running command propagates as `argv`.
    pub fn rewrite(&mut self, argv: Vec<Vec<u8>>) {
        if self.on {
            self.call.rewrite = Some(argv);
        }
    }

    /// [`Wire::rewrite`] from borrowed parts, built only while kept.
    pub fn rewrite_with(&mut self, argv: &[&[u8]]) {
        if self.on {
            self.call.rewrite = Some(argv.iter().map(|a| a.to_vec()).collect());
        }
    }

    /// `preventCommandPropagation`: the command itself does not go (what it
    /// asked for with [`Wire::also`] still does).
    pub fn prevent(&mut self) {
        self.call.prevent = true;
    }

    /// `forceCommandPropagation(PROPAGATE_REPL)`: the command goes even if
    /// it changed nothing (PUBLISH, FLUSHALL of an empty server).
    pub fn force(&mut self) {
        self.call.force = true;
    }

    /// `alsoPropagate`: one more command in this unit, after those before it.
    pub fn also(&mut self, db: usize, argv: &[&[u8]]) {
        if self.on {
            self.also
                .push((Some(db), argv.iter().map(|a| a.to_vec()).collect()));
        }
    }

    /// `propagateDeletion`: a key expired or evicted goes as DEL (UNLINK if
    /// freed lazily); outside any call it is a unit of its own.
    pub fn deletion(&mut self, db: usize, key: &[u8], lazy: bool) {
        if !self.on {
            return;
        }
        let verb: &[u8] = if lazy { b"UNLINK" } else { b"DEL" };
        self.also
            .push((Some(db), vec![verb.to_vec(), key.to_vec()]));
        if self.depth == 0 {
            self.end_unit();
        }
    }

    /// `propagatePendingCommands`: several commands go as one transaction.
    fn end_unit(&mut self) {
        if self.also.is_empty() {
            return;
        }
        let mut cmds = std::mem::take(&mut self.also);
        if cmds.len() > 1 && !self.arbitrary {
            cmds.insert(0, (None, vec![b"MULTI".to_vec()]));
            cmds.push((None, vec![b"EXEC".to_vec()]));
        }
        self.units.push(Unit {
            cmds,
            engine_end: None,
        });
    }

    /// The engine's ops up to `offset` are made: units not yet placed end there.
    pub(super) fn stamp(&mut self, offset: u64) {
        for u in self.units.iter_mut().rev() {
            if u.engine_end.is_some() {
                break;
            }
            u.engine_end = Some(offset);
        }
    }

    /// Turns the stream on or off (a socket replica came or went, the
    /// server changed role); what was pending goes nowhere, as when
    /// `shouldPropagate` fails at `propagateNow`.
    pub fn set_on(&mut self, on: bool) {
        if !on {
            self.also.clear();
            self.units.clear();
        }
        self.on = on;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<Vec<u8>> {
        s.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    fn wire() -> Wire {
        let mut w = Wire::default();
        w.set_on(true);
        w
    }

    fn names(w: &Wire) -> Vec<Vec<String>> {
        w.units
            .iter()
            .map(|u| {
                u.cmds
                    .iter()
                    .map(|(_, a)| String::from_utf8_lossy(&a.join(&b' ')).into_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_single_write_goes_alone_and_a_read_not_at_all() {
        let mut w = wire();
        let o = w.enter("set");
        w.leave(o, 0, &argv("SET k v"), true, false);
        let o = w.enter("get");
        w.leave(o, 0, &argv("GET k"), false, false);
        assert_eq!(names(&w), [vec!["SET k v"]]);
    }

    #[test]
    fn exec_wraps_several_writes_and_not_one() {
        let mut w = wire();
        let exec = w.enter("exec");
        for (cmd, dirty) in [("SET a 1", true), ("GET a", false), ("SET b 2", true)] {
            let o = w.enter("x");
            w.leave(o, 0, &argv(cmd), dirty, false);
        }
        w.leave(exec, 0, &argv("EXEC"), true, true);
        let exec = w.enter("exec");
        let o = w.enter("set");
        w.leave(o, 0, &argv("SET c 3"), true, false);
        w.leave(exec, 0, &argv("EXEC"), true, true);
        assert_eq!(
            names(&w),
            [vec!["MULTI", "SET a 1", "SET b 2", "EXEC"], vec!["SET c 3"]]
        );
    }

    #[test]
    fn rewrites_prevention_and_deletions() {
        let mut w = wire();
        let o = w.enter("getdel");
        w.rewrite_with(&[b"DEL", b"k"]);
        w.leave(o, 0, &argv("GETDEL k"), true, false);
        let o = w.enter("eval");
        w.prevent();
        let inner = w.enter("set");
        w.leave(inner, 0, &argv("SET x 1"), true, false);
        w.leave(o, 0, &argv("EVAL s 0"), true, false);
        w.deletion(0, b"gone", true);
        assert_eq!(
            names(&w),
            [vec!["DEL k"], vec!["SET x 1"], vec!["UNLINK gone"]]
        );
    }

    #[test]
    fn nothing_is_kept_while_off() {
        let mut w = Wire::default();
        let o = w.enter("set");
        w.rewrite_with(&[b"X"]);
        w.leave(o, 0, &argv("SET k v"), true, false);
        w.deletion(0, b"k", false);
        assert!(w.units.is_empty());
    }
}
