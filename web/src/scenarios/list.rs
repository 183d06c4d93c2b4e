//! The scenario catalogue as a list grouped in catalogue order, the selected one marked.

use redsim_sim::ScenarioInfo;
use yew::prelude::*;

/// The list; `on_select` gets the index of the scenario clicked.
pub fn catalogue(
    infos: &[ScenarioInfo],
    selected: Option<usize>,
    on_select: &Callback<usize>,
) -> Html {
    let mut groups: Vec<&str> = Vec::new();
    for i in infos {
        if !groups.contains(&i.group) {
            groups.push(i.group);
        }
    }
    html! {
        <nav class="rs-scen-list" aria-label="Scenarios">
            { for groups.iter().map(|g| html! {
                <div class="rs-scen-groupbox">
                    <h3 class="rs-scen-grouphead">{ *g }</h3>
                    { for infos.iter().enumerate().filter(|(_, s)| s.group == *g).map(|(i, s)| {
                        let on = selected == Some(i);
                        html! {
                            <button class={ classes!("rs-scen-item", on.then_some("rs-on")) } data-scenario={ s.id }
                                    aria-current={ on.then_some("true") } title={ s.claim }
                                    onclick={ on_select.reform(move |_| i) }>{ s.title }</button>
                        }
                    }) }
                </div>
            }) }
        </nav>
    }
}
