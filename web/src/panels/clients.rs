//! The client tabs above the console: one tab per connection with its state (waiting in a blocking command, subscribed, unread replies), a close button, and "+ client"; and the names clients connect with.

use crate::ui::El;
use redsim_engine::ClientId;

/// A client's label by number.
pub fn label(num: usize) -> String {
    format!("client {num}")
}

/// The number in a label made by [`label`], for colouring the timeline.
pub fn label_num(label: &str) -> Option<usize> {
    label.strip_prefix("client ")?.parse().ok()
}

/// What a tab shows of its client.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientTab {
    pub num: usize,
    pub id: ClientId,
    pub waiting: bool,
    pub subscribed: bool,
    /// Replies that arrived while the tab was not shown.
    pub unread: usize,
}

/// The client tabs. Clicks are read by the widget: a tab's `data-client`
/// index, its close button (`.rs-tab-close`), and `add-client`.
pub fn client_tabs(tabs: &[ClientTab], active: usize, can_add: bool) -> Vec<El> {
    let closable = tabs.len() > 1;
    let mut out: Vec<El> = tabs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let on_tab = i == active;
            let name = label(s.num);
            let mut class = format!("rs-tab rs-who-{}", s.num);
            for (on, c) in [
                (on_tab, " rs-on"),
                (s.waiting, " rs-tab-waiting"),
                (s.subscribed, " rs-tab-subscribed"),
            ] {
                if on {
                    class.push_str(c);
                }
            }
            let mut main = El::new("button")
                .cls("rs-tab-main")
                .attr("aria-pressed", if on_tab { "true" } else { "false" })
                .attr(
                    "title",
                    &format!(
                        "{name} (connection id {}){}",
                        s.id,
                        if s.waiting {
                            ": waiting in a blocking command"
                        } else {
                            ""
                        }
                    ),
                )
                .child(El::new("span").cls("rs-tab-dot"))
                .text(&name);
            if s.unread > 0 {
                main = main.child(
                    El::new("span")
                        .cls("rs-tab-badge")
                        .attr("title", "New replies")
                        .text(&s.unread.to_string()),
                );
            }
            let mut tab = El::new("div")
                .cls(&class)
                .attr("data-client", &s.num.to_string())
                .attr("data-index", &i.to_string())
                .child(main);
            if closable {
                tab = tab.child(
                    El::new("button")
                        .cls("rs-tab-close")
                        .attr("aria-label", &format!("Disconnect {name}"))
                        .attr("title", "Disconnect this client")
                        .text("×"),
                );
            }
            tab
        })
        .collect();
    if can_add {
        out.push(
            El::new("button")
                .cls("rs-tab-add")
                .attr("data-action", "add-client")
                .attr("title", "Connect another client, with its own console")
                .text("+ client"),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_carry_the_client_number() {
        assert_eq!(label(3), "client 3");
        assert_eq!(label_num(&label(3)), Some(3));
        assert_eq!(label_num("console"), None);
    }
}
