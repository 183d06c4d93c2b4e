//! One step on screen: its text, what its kind asks for (commands to run, choices, a goal, a scenario's parameters), the step's small console, the Check and Reveal buttons, the verdict with its hints, and Prev/Next.

use redsim_course::Kind;
use yew::prelude::*;

use super::state::{Action, LessonsState};
use crate::dom::{input_value, page_path, select_value};
use crate::url::encode_component;

/// The step shown; `send` takes the learner's actions.
pub fn step_view(st: &LessonsState, send: &Callback<Action>, input_ref: &NodeRef) -> Html {
    let step = st.current();
    let chapter = st.current_chapter();
    let kind_label = match &step.kind {
        Kind::ReadRun { .. } => "Read and run",
        Kind::Predict { .. } => "Predict",
        Kind::Do { .. } => "Do",
        Kind::Scenario { .. } => "Scenario",
    };
    let passed = st.progress.is_done(chapter.id, step.id);
    let click = |a: fn() -> Action| send.reform(move |_: MouseEvent| a());
    html! {
        <article class="rs-step" data-kind={ step.kind.name() } data-step-id={ step.id }>
            <header class="rs-step-head">
                <span class="rs-step-kind">{ kind_label }</span>
                <span class="rs-step-pos">{ format!("Step {} of {}", st.step + 1, chapter.steps.len()) }</span>
                if passed {
                    <span class="rs-step-done" data-done="true">{ "✓ done" }</span>
                }
            </header>
            <h3 class="rs-step-title">{ step.title }</h3>
            <p class="rs-step-text">{ step.text }</p>
            if !step.setup.is_empty() {
                <details class="rs-step-setup">
                    <summary>{ match step.setup.len() {
                        1 => "Setup (one line, already run)".to_string(),
                        n => format!("Setup ({n} lines, already run)"),
                    } }</summary>
                    <pre>{ step.setup.join("\n") }</pre>
                </details>
            }
            { body(st, send) }
            if st.console.is_some() {
                { console(st, send, input_ref) }
            }
            <div class="rs-step-actions">
                <button class="rs-btn rs-btn-primary" data-action="lesson-check" onclick={ click(|| Action::Check) }>{ "Check" }</button>
                <button class="rs-btn" data-action="lesson-reveal" onclick={ click(|| Action::Reveal) }>{ "Reveal answer" }</button>
                if !st.locked {
                    <span class="rs-step-nav">
                        <button class="rs-btn" data-action="lesson-prev" onclick={ click(|| Action::Prev) }>{ "← Prev" }</button>
                        <button class="rs-btn" data-action="lesson-next" onclick={ click(|| Action::Next) }>{ "Next →" }</button>
                    </span>
                }
            </div>
            if let Some(v) = &st.verdict {
                <div class={ classes!("rs-verdict", if v.pass { "rs-pass" } else { "rs-fail" }) }
                     role="status" data-pass={ v.pass.to_string() }>
                    <span class="rs-check-mark">{ if v.pass { "✓" } else { "✗" } }</span>
                    <span>{ &v.message }</span>
                    if v.pass && !step.why.is_empty() {
                        <p class="rs-step-why">{ step.why }</p>
                    }
                </div>
            }
            if !st.hints_shown().is_empty() && !st.verdict.as_ref().is_some_and(|v| v.pass) {
                <ul class="rs-hints" aria-label="Hints">
                    { for st.hints_shown().iter().map(|h| html! { <li><strong>{ "Hint: " }</strong>{ *h }</li> }) }
                </ul>
            }
            if let Some(r) = &st.revealed {
                <div class="rs-reveal">
                    <span class="rs-reveal-label">{ "Answer" }</span>
                    <pre data-reveal="true">{ r }</pre>
                </div>
            }
        </article>
    }
}

/// What the step's kind asks for.
fn body(st: &LessonsState, send: &Callback<Action>) -> Html {
    match &st.current().kind {
        Kind::ReadRun { commands } => html! {
            <div class="rs-step-cmds">
                <p class="rs-step-goal">{ "Run these (click one to run it):" }</p>
                { for commands.iter().map(|c| {
                    let line = c.clone();
                    let run = send.reform(move |_: MouseEvent| Action::Input(line.clone()));
                    let go = send.reform(|_: MouseEvent| Action::Run);
                    html! {
                        <button class="rs-step-cmd" data-action="run-cmd"
                                onclick={ Callback::from(move |e: MouseEvent| { run.emit(e.clone()); go.emit(e); }) }>
                            <code>{ c }</code>
                        </button>
                    }
                }) }
            </div>
        },
        Kind::Predict {
            command, choices, ..
        } => html! {
            <div class="rs-step-predict">
                <p class="rs-step-goal">{ "What does this reply?" }</p>
                <pre class="rs-step-command">{ format!("redis> {command}") }</pre>
                <div class="rs-choices" role="radiogroup" aria-label="Replies">
                    { for choices.iter().enumerate().map(|(i, c)| {
                        let on = st.choice == Some(i);
                        html! {
                            <button class={ classes!("rs-choice", on.then_some("rs-on")) } role="radio"
                                    aria-checked={ on.to_string() } data-choice={ i.to_string() }
                                    onclick={ send.reform(move |_: MouseEvent| Action::Choose(i)) }>
                                <pre>{ c }</pre>
                            </button>
                        }
                    }) }
                </div>
                <label class="rs-typed">
                    <span>{ "or type it:" }</span>
                    <input class="rs-typed-input" type="text" value={ st.typed.clone() } spellcheck="false"
                           autocomplete="off" autocapitalize="off" aria-label="Typed reply"
                           oninput={ send.reform(|e: InputEvent| Action::Typed(input_value(&e))) } />
                </label>
            </div>
        },
        Kind::Do { goal, .. } => html! {
            <p class="rs-step-goal"><strong>{ "Goal: " }</strong>{ *goal }
                <span class="rs-step-note">{ " Use the console below; Check replays what you ran on a fresh engine and reads its state." }</span>
            </p>
        },
        Kind::Scenario {
            scenario, question, ..
        } => html! {
            <div class="rs-step-scenario">
                <p class="rs-step-goal"><strong>{ "Question: " }</strong>{ *question }</p>
                <p class="rs-step-note">
                    { format!("Scenario {scenario}: change a parameter, then Check runs it. ") }
                    <a class="rs-step-link" href={ scenario_link(scenario, &st.params) } target="_blank" rel="noopener">
                        { "Open it in the Scenarios tab" }
                    </a>
                </p>
                { params(st, scenario, send) }
            </div>
        },
    }
}

/// The Scenarios tab's link to `scenario` with the form's values, to see
/// its charts and race diagram.
fn scenario_link(scenario: &str, params: &[(String, String)]) -> String {
    let mut url = format!(
        "{}?tab=scenarios&scenario={}",
        page_path(),
        encode_component(scenario)
    );
    for (k, v) in params {
        url.push_str(&format!("&{}={}", encode_component(k), encode_component(v)));
    }
    url
}

/// A scenario step's parameters: a select for choices, a text box otherwise.
fn params(st: &LessonsState, scenario: &str, send: &Callback<Action>) -> Html {
    let Some(s) = redsim_sim::find(scenario) else {
        return Html::default();
    };
    let specs = &s.info().params;
    html! {
        <div class="rs-scen-form rs-step-params">
            { for st.params.iter().enumerate().map(|(k, (name, value))| {
                let spec = specs.iter().find(|p| p.name == name);
                let control = match spec {
                    Some(p) if !p.choices.is_empty() => html! {
                        <select class="rs-scen-select" data-param={ name.clone() }
                                onchange={ send.reform(move |e: Event| Action::Param(k, select_value(&e))) }>
                            { for p.choices.iter().map(|c| html! {
                                <option value={ *c } selected={ *c == value.as_str() }>{ *c }</option>
                            }) }
                        </select>
                    },
                    _ => html! {
                        <input class="rs-scen-number" type="text" inputmode="decimal" data-param={ name.clone() }
                               value={ value.clone() }
                               onchange={ send.reform(move |e: Event| Action::Param(k, input_value(&e))) } />
                    },
                };
                html! {
                    <label class="rs-scen-param">
                        <span class="rs-scen-pname">{ name }</span>
                        <span class="rs-scen-control">
                            { control }
                            <span class="rs-scen-unit">{ spec.map_or("", |p| p.unit) }</span>
                        </span>
                        <span class="rs-scen-help">{ spec.map_or("", |p| p.help) }</span>
                    </label>
                }
            }) }
        </div>
    }
}

/// The step's console: what ran, and the prompt.
fn console(st: &LessonsState, send: &Callback<Action>, input_ref: &NodeRef) -> Html {
    let enter = send.clone();
    let on_key = Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Enter" {
            e.prevent_default();
            enter.emit(Action::Run);
        }
    });
    html! {
        <div class="rs-lesson-console">
            <div class="rs-lesson-screen" aria-live="polite">
                if st.screen.is_empty() {
                    <div class="rs-lesson-empty">{ "Commands you run here go to this step's own engine. '# sleep 1000' lets a second pass." }</div>
                }
                { for st.screen.iter().map(|l| html! {
                    <div class="rs-lesson-line">
                        <div class="rs-lesson-in">{ format!("redis> {}", l.input) }</div>
                        if !l.reply.is_empty() {
                            <pre class={ classes!("rs-lesson-out", l.reply.starts_with("(error)").then_some("rs-err")) }>{ &l.reply }</pre>
                        }
                    </div>
                }) }
            </div>
            <div class="rs-lesson-prompt">
                <span class="rs-lesson-prompt-text">{ "redis>" }</span>
                <input class="rs-lesson-input" ref={ input_ref.clone() } type="text" value={ st.input.clone() }
                       spellcheck="false" autocomplete="off" autocapitalize="off" aria-label="Command for this step"
                       oninput={ send.reform(|e: InputEvent| Action::Input(input_value(&e))) }
                       onkeydown={ on_key } />
                <button class="rs-btn" data-action="lesson-run" onclick={ send.reform(|_: MouseEvent| Action::Run) }>{ "Run" }</button>
                <button class="rs-btn" data-action="lesson-restart" title="Start this step's engine again from its setup"
                        onclick={ send.reform(|_: MouseEvent| Action::Restart) }>{ "Restart" }</button>
            </div>
        </div>
    }
}
