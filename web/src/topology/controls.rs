//! The Topology tab's node controls: one row per node with kill, power off or restart, partition or heal, pause or resume its replication link, and its appendfsync.

use redsim_sim::topology::{Control, TopoView};
use yew::prelude::*;

use crate::dom::select_value;
use redsim_sim::topology::FSYNC_MODES;

/// One row of buttons per node; each sends its control to `on_control`.
pub fn node_controls(v: &TopoView, on_control: &Callback<Control>) -> Html {
    html! {
        <table class="rs-topo-controls" aria-label="Node controls">
            <tbody>
            { for v.nodes.iter().map(|nd| {
                let id = nd.id;
                let replica_link = v.links.iter().find(|l| l.to == id);
                // A button of this node sending `c` when clicked.
                let button = |primary: bool, action: &'static str, title: Option<&'static str>, c: Control, label: &'static str| html! {
                    <button class={ classes!("rs-btn", primary.then_some("rs-primary")) } data-action={ action } data-node={ id.to_string() } { title }
                            onclick={ on_control.reform(move |_: MouseEvent| c.clone()) }>{ label }</button>
                };
                let fsync = on_control.reform(move |e: Event| Control::SetAppendfsync { node: id, mode: select_value(&e) });
                html! {
                    <tr class="rs-topo-ctl" data-node={ id.to_string() }>
                        <th>{ format!("node {id}") }<small>{ format!(" {}", if nd.alive { nd.role.as_str() } else { "dead" }) }</small></th>
                        <td>
                            if nd.alive {
                                { button(false, "kill", Some("Kill the process (the kernel still writes what it was given)"), Control::Kill { node: id, power_loss: false }, "kill") }
                                { button(false, "power", Some("Power loss: what was not fsynced is gone"), Control::Kill { node: id, power_loss: true }, "power off") }
                            } else {
                                { button(true, "restart", None, Control::Restart { node: id }, "restart") }
                            }
                            if nd.isolated {
                                { button(false, "heal", None, Control::Heal { node: id }, "heal") }
                            } else {
                                { button(false, "partition", Some("Cut the node (and what is co-located with it) off the rest"), Control::Partition { node: id }, "partition") }
                            }
                            if let Some(l) = replica_link {
                                if l.paused {
                                    { button(false, "resume", None, Control::ResumeLink { replica: id }, "resume link") }
                                } else {
                                    { button(false, "pause", Some("Hold the replication stream to this replica"), Control::PauseLink { replica: id }, "pause link") }
                                }
                            }
                            <select class="rs-topo-fsyncsel" data-node={ id.to_string() } aria-label={ format!("appendfsync of node {id}") } onchange={ fsync }>
                                { for FSYNC_MODES.iter().map(|m| html! {
                                    <option value={ *m } selected={ nd.appendfsync == *m }>{ format!("fsync {m}") }</option>
                                }) }
                            </select>
                        </td>
                    </tr>
                }
            }) }
            </tbody>
        </table>
    }
}
