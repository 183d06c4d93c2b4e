//! The client tabs above the console: one tab per connection with its state (waiting in a blocking command, subscribed, unread replies), a close button, and "+ client"; and the names clients connect with.

use redsim_engine::ClientId;
use yew::prelude::*;

/// A client's label by number.
pub fn label(num: usize) -> String {
    format!("client {num}")
}

/// The number in a label made by [`label`], for colouring the timeline.
pub fn label_num(label: &str) -> Option<usize> {
    label.strip_prefix("client ")?.parse().ok()
}

/// What a tab shows of its client.
pub struct ClientTab {
    pub num: usize,
    pub id: ClientId,
    pub waiting: bool,
    pub subscribed: bool,
    /// Replies that arrived while the tab was not shown.
    pub unread: usize,
}

/// A click on the tabs.
pub enum TabClick {
    Select(usize),
    Close(usize),
    Add,
}

/// The tabs, `active` shown as selected; "+ client" when `can_add`.
pub fn client_tabs(
    tabs: &[ClientTab],
    active: usize,
    can_add: bool,
    on: &Callback<TabClick>,
) -> Html {
    let closable = tabs.len() > 1;
    html! {
        <div class="rs-tabs" role="group" aria-label="Clients">
            { for tabs.iter().enumerate().map(|(i, s)| {
                let on_tab = i == active;
                let name = label(s.num);
                html! {
                    <div class={ classes!("rs-tab", format!("rs-who-{}", s.num), on_tab.then_some("rs-on"), s.waiting.then_some("rs-tab-waiting"), s.subscribed.then_some("rs-tab-subscribed")) }
                         data-client={ s.num.to_string() }>
                        <button class="rs-tab-main" aria-pressed={ on_tab.to_string() }
                                title={ format!("{name} (connection id {}){}", s.id, if s.waiting { ": waiting in a blocking command" } else { "" }) }
                                onclick={ on.reform(move |_| TabClick::Select(i)) }>
                            <span class="rs-tab-dot"></span>
                            { name.clone() }
                            if s.unread > 0 {
                                <span class="rs-tab-badge" title="New replies">{ s.unread }</span>
                            }
                        </button>
                        if closable {
                            <button class="rs-tab-close" aria-label={ format!("Disconnect {name}") }
                                    title="Disconnect this client"
                                    onclick={ on.reform(move |e: MouseEvent| { e.stop_propagation(); TabClick::Close(i) }) }>{ "×" }</button>
                        }
                    </div>
                }
            }) }
            if can_add {
                <button class="rs-tab-add" data-action="add-client" title="Connect another client, with its own console"
                        onclick={ on.reform(|_| TabClick::Add) }>{ "+ client" }</button>
            }
        </div>
    }
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
