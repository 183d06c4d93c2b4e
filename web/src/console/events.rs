//! The console widget's events, read where they bubble to its root: what was clicked, typed or focused is found from the target's classes and `data-*` attributes, so the parts that are redrawn whole (the clock's buttons, the client tabs, the keyspace rows) need no listeners of their own.

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlInputElement, KeyboardEvent};

use super::clock::{Mode, STEPS};
use super::state::Action;
use super::Msg;
use crate::ui::closest;

/// How one kind of event is read.
type Handler = Box<dyn Fn(&Element, &Event)>;

/// The widget's event listeners, on its root: what was clicked, typed or
/// focused is read from the target's classes and `data-*` attributes. The
/// Yew parts (inspector, chart) handle their own events.
pub(super) fn listen(
    root: &Element,
    send: &(impl Fn(Msg) + Clone + 'static),
) -> Vec<EventListener> {
    let on = |kind: &'static str, f: Handler| {
        let root2 = root.clone();
        EventListener::new_with_options(
            root,
            kind,
            EventListenerOptions::enable_prevent_default(),
            move |e| {
                if crate::panic::is_dead() || in_yew_part(e, &root2) {
                    return;
                }
                f(&root2, e);
            },
        )
    };
    let (click, input, key) = (send.clone(), send.clone(), send.clone());
    vec![
        on("click", Box::new(move |root, e| on_click(root, e, &click))),
        on(
            "input",
            Box::new(move |root, e| {
                let Some(field) = closest(e, "input", root) else {
                    return;
                };
                let value = field
                    .dyn_ref::<HtmlInputElement>()
                    .map(HtmlInputElement::value)
                    .unwrap_or_default();
                if field.class_list().contains("rs-input") {
                    input(Msg::Do(Action::Input(value)));
                } else if field.class_list().contains("rs-key-filter") {
                    input(Msg::Do(Action::FilterKeys(value)));
                }
            }),
        ),
        on(
            "keydown",
            Box::new(move |root, e| {
                let Some(k) = e.dyn_ref::<KeyboardEvent>() else {
                    return;
                };
                if closest(e, ".rs-input", root).is_some() {
                    key(Msg::Key(k.clone()));
                } else if let Some(row) = closest(e, ".rs-key", root) {
                    if k.key() == "Enter" || k.key() == " " {
                        e.prevent_default();
                        if let Some(name) = row.get_attribute("data-key") {
                            key(Msg::Do(Action::Inspect(name)));
                        }
                    }
                }
            }),
        ),
        on(
            "focusin",
            Box::new(move |root, e| {
                // The Share link is selected when focused, ready to copy.
                if let Some(link) = closest(e, ".rs-share-link", root) {
                    if let Some(link) = link.dyn_ref::<HtmlInputElement>() {
                        link.select();
                    }
                }
            }),
        ),
    ]
}

fn on_click(root: &Element, e: &Event, send: &impl Fn(Msg)) {
    if let Some(b) = closest(e, "[data-action]", root) {
        let action = b.get_attribute("data-action").unwrap_or_default();
        let msg = match action.as_str() {
            "pause" => Some(Msg::Do(Action::SetMode(Mode::Paused))),
            "play" => Some(Msg::Do(Action::SetMode(Mode::RealTime))),
            "export" => Some(Msg::Export),
            "share" => Some(Msg::Share),
            "add-client" => Some(Msg::Do(Action::AddClient)),
            "close-share" => Some(Msg::Do(Action::CloseShare)),
            "cancel-wait" => {
                // Not also a click in the console (which would focus it).
                send(Msg::Do(Action::Cancel));
                return;
            }
            step => STEPS
                .iter()
                .find(|(_, _, a)| *a == step)
                .map(|(us, _, _)| Msg::Do(Action::Step(*us))),
        };
        if let Some(msg) = msg {
            send(msg);
        }
    } else if let Some(tab) = closest(e, ".rs-tab", root) {
        let index = tab
            .get_attribute("data-index")
            .and_then(|i| i.parse().ok())
            .unwrap_or(0);
        if closest(e, ".rs-tab-close", root).is_some() {
            send(Msg::Do(Action::CloseClient(index)));
            return;
        }
        send(Msg::Do(Action::SelectClient(index)));
    } else if let Some(row) = closest(e, ".rs-key", root) {
        if let Some(name) = row.get_attribute("data-key") {
            send(Msg::Do(Action::Inspect(name)));
        }
        return;
    }
    if closest(e, ".rs-console", root).is_some() {
        send(Msg::Focus);
    }
}

/// Whether the event comes from a part Yew draws (the inspector, the
/// timeline's chart), which handles its own.
fn in_yew_part(e: &Event, root: &Element) -> bool {
    closest(e, ".rs-inspector-host, .rs-timeline-host", root).is_some()
}
