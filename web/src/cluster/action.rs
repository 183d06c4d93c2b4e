//! What changes the Cluster view: a button, the key box, or the animation timer.

/// A button, the key box, or the animation timer.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Key(String),
    Migrate,
    Kill,
    Restart,
    Tick,
}
