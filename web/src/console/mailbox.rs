//! A widget's mailbox: a message sent while another is handled waits its turn instead of nesting.
//!
//! The console widget handles its messages (`Msg`) from event listeners,
//! timers and its own handlers: focusing the prompt fires a focus event, a
//! Share click sends the packed link later, a tick may render. Handling one
//! inside another would need the widget borrowed twice, so a message sent
//! meanwhile is queued and handled by the loop already running, after the
//! current one and in the order sent.

use std::cell::RefCell;
use std::collections::VecDeque;

/// A widget `W` and the messages `M` waiting for it.
pub struct Mailbox<W, M> {
    widget: RefCell<Option<W>>,
    queue: RefCell<VecDeque<M>>,
}

impl<W, M> Mailbox<W, M> {
    /// An empty mailbox: messages sent before [`Mailbox::set`] are dropped
    /// (none come while a widget is built: they come from events and
    /// timers, in later tasks).
    pub fn new() -> Self {
        Mailbox {
            widget: RefCell::new(None),
            queue: RefCell::new(VecDeque::new()),
        }
    }

    pub fn set(&self, widget: W) {
        *self.widget.borrow_mut() = Some(widget);
    }

    /// Takes the widget out (the page retires it); `None` if it is gone, or
    /// busy handling a message.
    pub fn take(&self) -> Option<W> {
        self.widget.try_borrow_mut().ok()?.take()
    }

    /// Queues `msg` and, unless a message is being handled already (whose
    /// loop handles it next), handles the queue with `handle` until it is
    /// empty. `stop` is asked before each message: once it says so (the
    /// module crashed), nothing more is handled.
    pub fn send(&self, msg: M, handle: impl Fn(&mut W, M), stop: impl Fn() -> bool) {
        self.queue.borrow_mut().push_back(msg);
        let Ok(mut widget) = self.widget.try_borrow_mut() else {
            return;
        };
        loop {
            let next = self.queue.borrow_mut().pop_front();
            let (Some(msg), Some(w)) = (next, widget.as_mut()) else {
                break;
            };
            if stop() {
                break;
            }
            handle(w, msg);
        }
    }
}

impl<W, M> Default for Mailbox<W, M> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;

    /// A widget that logs what it handled, and when, and may send more
    /// from inside a handler.
    struct Log {
        seen: Vec<String>,
        depth: usize,
        deepest: usize,
    }

    fn log() -> Log {
        Log {
            seen: Vec::new(),
            depth: 0,
            deepest: 0,
        }
    }

    type Shared = Rc<Mailbox<Log, &'static str>>;

    fn send(mb: &Shared, msg: &'static str) {
        let again = mb.clone();
        mb.send(
            msg,
            move |w, m| {
                w.depth += 1;
                w.deepest = w.deepest.max(w.depth);
                w.seen.push(format!("start {m}"));
                // A handler that sends: the focus event its focus fires.
                if m == "focus" {
                    send(&again, "focused");
                    send(&again, "render");
                }
                w.seen.push(format!("end {m}"));
                w.depth -= 1;
            },
            || false,
        );
    }

    #[test]
    fn a_message_sent_while_one_is_handled_waits_and_keeps_its_order() {
        let mb: Shared = Rc::new(Mailbox::new());
        mb.set(log());
        send(&mb, "focus");
        send(&mb, "tick");
        let w = mb.take().unwrap();
        assert_eq!(
            w.seen,
            [
                "start focus",
                "end focus",
                "start focused",
                "end focused",
                "start render",
                "end render",
                "start tick",
                "end tick",
            ]
        );
        assert_eq!(w.deepest, 1, "handling nested");
    }

    #[test]
    fn nothing_is_handled_once_stopped_or_without_a_widget() {
        let mb: Mailbox<Vec<u32>, u32> = Mailbox::new();
        // Before the widget is set: dropped, not kept for later.
        mb.send(1, |w, m| w.push(m), || false);
        mb.set(Vec::new());
        mb.send(2, |w, m| w.push(m), || false);
        let dead = Cell::new(true);
        mb.send(3, |w, m| w.push(m), || dead.get());
        assert_eq!(mb.take().unwrap(), [2]);
        // Retired: later messages go nowhere.
        mb.send(4, |w, m| w.push(m), || false);
        assert!(mb.take().is_none());
    }

    #[test]
    fn a_busy_widget_is_not_taken() {
        let mb: Rc<Mailbox<u32, ()>> = Rc::new(Mailbox::new());
        mb.set(7);
        let inner = mb.clone();
        let taken = Cell::new(None);
        mb.send((), |_, ()| taken.set(Some(inner.take())), || false);
        assert_eq!(taken.get(), Some(None));
        assert_eq!(mb.take(), Some(7));
    }
}
