//! The names `rename-command` gave commands, kept by each command's own name: the server owns them without knowing the command table, whose lookup through them lives in the command layer (`cmd/rename.rs`).

/// The renames in force; none by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Renames {
    /// New names (lower-cased) and the own name of the command each calls.
    pub(crate) added: Vec<(Vec<u8>, &'static str)>,
    /// Own names of the commands that name no longer calls.
    pub(crate) removed: Vec<&'static str>,
}
