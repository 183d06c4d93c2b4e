//! Helpers the families' unit tests share: an engine with a client, running a command from its words (or a script of them with their replies), and reading a key's encoding.

use crate::{Engine, Frame};

/// An engine with the given seed and one connected client.
pub(crate) fn engine(seed: u64) -> (Engine, u64) {
    let mut e = Engine::new(seed);
    let c = e.connect("t");
    (e, c)
}

/// Executes one command given as its words.
pub(crate) fn run(e: &mut Engine, c: u64, args: &[impl AsRef<[u8]>]) -> Frame {
    let v: Vec<Vec<u8>> = args.iter().map(|a| a.as_ref().to_vec()).collect();
    e.execute(c, &v)
}

/// Runs each command of `script` in turn and checks its reply, naming the
/// command that differs.
pub(crate) fn replies(e: &mut Engine, c: u64, script: &[(&[&str], Frame)]) {
    for (args, want) in script {
        assert_eq!(run(e, c, args), *want, "{args:?}");
    }
}

/// The encoding of `key`'s value in database 0, `none` if missing, read
/// without a lookup (so without touching the key).
pub(crate) fn encoding(e: &Engine, key: &str) -> &'static str {
    e.server().dbs[0]
        .get(key.as_bytes())
        .map(|o| o.value.encoding())
        .unwrap_or("none")
}
