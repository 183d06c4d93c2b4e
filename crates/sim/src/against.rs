//! Running a scenario's Redis traffic somewhere else: the [`Backend`] trait a driver implements (the CLI's client for a real server) and the scoped hook through which the [`Redis`](crate::kernel::Redis) nodes one run builds use it.
//!
//! The world stays simulated (its clock, actors, links and database); only
//! the commands a node would run on its engine go to the backend, in the
//! order and at the virtual instants the simulation issues them. The sim
//! itself opens no socket and reads no clock: pacing and I/O belong to the
//! backend. Scenarios that read engine internals, or need several Redis
//! nodes at once, say why they cannot run this way in their description
//! (`against` in the lesson's `scenarios.json`).

use crate::time::Micros;
use redsim_engine::{ClientId, Frame};
use std::cell::RefCell;

/// Where a node's commands run instead of its in-process engine. Its
/// connections are numbered by the node ([`Redis::connect`]); every call
/// carries the virtual instant it happens at. An I/O failure is the
/// backend's to record; it answers with an error reply meanwhile.
///
/// [`Redis::connect`]: crate::kernel::Redis::connect
pub trait Backend {
    /// Opens connection `id` for a client named `who`.
    fn connect(&mut self, id: ClientId, who: &str);
    /// Runs `args` on connection `id` at virtual time `at`; a blocking
    /// command must not block (the engine answers it as on timeout).
    fn execute(&mut self, at: Micros, id: ClientId, args: &[Vec<u8>]) -> Frame;
    /// Runs `args` on connection `id`; `None` when the client blocks, its
    /// reply then comes from [`Backend::take_unblocked`].
    fn submit(&mut self, at: Micros, id: ClientId, args: &[Vec<u8>]) -> Option<Frame>;
    /// Replies to blocked clients that were served, and messages pushed to
    /// subscribers, since the last call.
    fn take_unblocked(&mut self, at: Micros) -> Vec<(ClientId, Frame)>;
    /// Closes connection `id` (a blocked client stops waiting).
    fn disconnect(&mut self, at: Micros, id: ClientId);
    /// The server's `beforeSleep` at `at`: nothing for a real server, which
    /// runs its own after every command.
    fn before_sleep(&mut self, _at: Micros) {}
}

/// Makes the backend of the `n`th node (from 0) a run builds. Nodes a
/// scenario builds one after another (a restart) each get a fresh one.
pub type Factory = Box<dyn FnMut(usize) -> Box<dyn Backend>>;

struct Hook {
    factory: Factory,
    nodes: usize,
}

thread_local! {
    static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
}

/// Removes the hook when the run ends, also by a panic.
struct Uninstall;

impl Drop for Uninstall {
    fn drop(&mut self) {
        HOOK.with(|h| h.borrow_mut().take());
    }
}

/// Runs `f` (one scenario run) with every Redis node it builds on a
/// backend from `factory`; returns what `f` returns and how many nodes
/// were built. Not reentrant: a run inside `f` uses the same hook.
pub fn with_backend<R>(factory: Factory, f: impl FnOnce() -> R) -> (R, usize) {
    HOOK.with(|h| *h.borrow_mut() = Some(Hook { factory, nodes: 0 }));
    let _guard = Uninstall;
    let r = f();
    let nodes = HOOK.with(|h| h.borrow().as_ref().map_or(0, |h| h.nodes));
    (r, nodes)
}

/// The backend for a node being built now, if a hook is installed. The
/// factory runs with the hook taken out, so a node it builds is in-process.
pub(crate) fn next_backend() -> Option<Box<dyn Backend>> {
    let mut hook = HOOK.with(|h| h.borrow_mut().take())?;
    let n = hook.nodes;
    hook.nodes += 1;
    let backend = (hook.factory)(n);
    HOOK.with(|h| *h.borrow_mut() = Some(hook));
    Some(backend)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::SCENARIOS;
    use crate::kernel::Redis;
    use std::collections::BTreeMap;

    /// A backend that is another in-process engine: what a real server
    /// would be if it behaved exactly like ours.
    struct Mirror(Redis, BTreeMap<ClientId, ClientId>);

    impl Backend for Mirror {
        fn connect(&mut self, id: ClientId, who: &str) {
            let theirs = self.0.connect(who);
            self.1.insert(id, theirs);
        }
        fn execute(&mut self, at: Micros, id: ClientId, args: &[Vec<u8>]) -> Frame {
            self.0.execute(at, self.1[&id], args)
        }
        fn submit(&mut self, at: Micros, id: ClientId, args: &[Vec<u8>]) -> Option<Frame> {
            self.0.submit(at, self.1[&id], args)
        }
        fn take_unblocked(&mut self, at: Micros) -> Vec<(ClientId, Frame)> {
            let ours = |theirs| self.1.iter().find(|(_, t)| **t == theirs).map(|(o, _)| *o);
            let got = self.0.take_unblocked(at);
            got.into_iter()
                .filter_map(|(t, f)| Some((ours(t)?, f)))
                .collect()
        }
        fn disconnect(&mut self, at: Micros, id: ClientId) {
            self.0.disconnect(at, self.1[&id]);
        }
        fn before_sleep(&mut self, at: Micros) {
            self.0.before_sleep(at);
        }
    }

    fn mirror(_: usize) -> Box<dyn Backend> {
        Box::new(Mirror(Redis::new(0, &[]), BTreeMap::new()))
    }

    fn mirrored(id: &str, seed: u64) -> (crate::Outcome, usize) {
        let factory: Factory = Box::new(mirror);
        with_backend(factory, || crate::run(id, seed, &[]).unwrap())
    }

    /// Every scenario that says it runs against a server runs on a backend
    /// without reaching for engine internals, and one that mirrors the
    /// engine gives the in-process run's outcome; the hook is gone after.
    #[test]
    fn scenarios_that_run_against_a_server_need_only_its_replies() {
        for s in SCENARIOS.iter().filter(|s| s.info().not_against.is_none()) {
            let (remote, nodes) = mirrored(s.id, 1);
            assert!(nodes >= 1, "{} built no Redis node", s.id);
            let local = crate::run(s.id, 1, &[]).unwrap();
            let json = |o: &crate::Outcome| serde_json::to_string(o).unwrap();
            assert_eq!(json(&remote), json(&local), "{} differs on a mirror", s.id);
        }
        assert!(HOOK.with(|h| h.borrow().is_none()));
        assert!(!Redis::new(0, &[]).is_remote());
    }

    #[test]
    fn engine_internals_are_unreachable_on_a_backend() {
        let factory: Factory = Box::new(mirror);
        let (r, _) = with_backend(factory, || Redis::new(0, &[]));
        assert!(r.is_remote());
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.engine().dbsize(0)));
        assert!(caught.is_err());
    }
}
