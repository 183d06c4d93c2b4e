//! What changes the Cluster view: a button, the key box, the console, the animation timer, or the pointer on the canvas.

/// A button, the key box, the console, the animation timer, or the pointer.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Key(String),
    Migrate,
    Kill,
    Restart,
    Tick,
    /// A line typed in the cluster console.
    Command(String),
    /// The slot under the pointer or last tapped (`None`: left the canvas).
    /// Not logged: it changes what is read out, not the cluster.
    Point(Option<u16>),
}
