//! A scenario's parameter form: a select for choices, a checkbox for on/off switches, a slider with a number box for the rest, then the seed and Run.

use redsim_sim::params::fmt_num;
use redsim_sim::{ParamSpec, ScenarioInfo};
use yew::prelude::*;

use crate::dom::{input_checked, input_value, select_value};

/// A change in the form.
pub enum FormInput {
    /// Parameter `k` set to a value (NaN when the text is not a number).
    Param(usize, f64),
    Seed(String),
    Run,
}

/// The form as a component of its own: it renders only when the scenario,
/// its values or the seed change, so playback's redraws never reset a
/// field the reader is typing in.
#[derive(Properties, PartialEq)]
pub struct FormProps {
    pub id: &'static str,
    pub values: Vec<f64>,
    pub seed: u64,
    pub on: Callback<FormInput>,
}

#[function_component(ScenarioForm)]
pub fn scenario_form(p: &FormProps) -> Html {
    match redsim_sim::find(p.id) {
        Some(s) => form(s.info(), &p.values, p.seed, &p.on),
        None => Html::default(),
    }
}

/// The form for `info` with the current `values` and `seed`.
fn form(info: &ScenarioInfo, values: &[f64], seed: u64, on: &Callback<FormInput>) -> Html {
    let seed_change = on.reform(|e: Event| FormInput::Seed(input_value(&e)));
    html! {
        <div class="rs-scen-form">
            { for info.params.iter().enumerate().map(|(k, p)| param(k, p, values.get(k).copied().unwrap_or(p.default), on)) }
            <div class="rs-scen-param rs-scen-seedrow">
                <label class="rs-scen-pname" for="rs-scen-seed">{ "seed" }</label>
                <div class="rs-scen-control">
                    <input id="rs-scen-seed" class="rs-scen-seed" type="text" inputmode="numeric"
                           value={ seed.to_string() } onchange={ seed_change } />
                    <button class="rs-btn rs-primary" data-action="run-scenario" onclick={ on.reform(|_| FormInput::Run) }>{ "Run" }</button>
                </div>
                <span class="rs-scen-help">{ "Every random choice comes from the seed: the same seed and values give the same run." }</span>
            </div>
        </div>
    }
}

/// One parameter's row, showing value `v`.
fn param(k: usize, p: &ParamSpec, v: f64, on: &Callback<FormInput>) -> Html {
    let on_number = on.reform(move |e: Event| {
        FormInput::Param(k, input_value(&e).trim().parse().unwrap_or(f64::NAN))
    });
    let control = if p.choices.len() == 2 && p.choices[0] == "off" && p.choices[1] == "on" {
        let on_check = on
            .reform(move |e: Event| FormInput::Param(k, if input_checked(&e) { 1.0 } else { 0.0 }));
        html! { <input type="checkbox" class="rs-scen-flag" data-param={ p.name } checked={ v >= 0.5 } onchange={ on_check } /> }
    } else if !p.choices.is_empty() {
        let on_select = on.reform(move |e: Event| {
            FormInput::Param(k, select_value(&e).parse().unwrap_or(f64::NAN))
        });
        html! {
            <select class="rs-scen-select" data-param={ p.name } onchange={ on_select }>
                { for p.choices.iter().enumerate().map(|(i, c)| html! {
                    <option value={ i.to_string() } selected={ v.round() as usize == i }>{ *c }</option>
                }) }
            </select>
        }
    } else {
        let (min, max, step) = (fmt_num(p.min), fmt_num(p.max), fmt_num(p.step));
        html! {
            <>
                <input type="range" class="rs-scen-range" data-param={ p.name } min={ min.clone() } max={ max.clone() }
                       step={ step.clone() } value={ fmt_num(v) } onchange={ on_number.clone() } aria-label={ p.name } />
                <input type="number" class="rs-scen-number" data-param={ p.name } min={ min } max={ max }
                       step={ step } value={ fmt_num(v) } onchange={ on_number } aria-label={ format!("{} value", p.name) } />
                <span class="rs-scen-unit">{ p.unit }</span>
            </>
        }
    };
    html! {
        <div class="rs-scen-param">
            <span class="rs-scen-pname">{ p.name }</span>
            <div class="rs-scen-control">{ control }</div>
            <span class="rs-scen-help">{ p.help }</span>
        </div>
    }
}
