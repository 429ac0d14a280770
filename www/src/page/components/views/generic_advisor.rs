//! The size view's advisor: device code that came out identical for several processors, and
//! what one build would save — "gfx1030, gfx1031: 2 identical code objects in 1 container,
//! 18.3 KiB; one gfx10-3-generic build would save 9.1 KiB" (AMD, a generic target of code
//! object v6 serves them) or "sm_86, sm_89: … ; sm_86 alone serves them" (NVIDIA), the lines
//! `offload sizes` prints ([`offload::report::check::advisor`]). Only decoded images are
//! compared: where some were listed from their headers only, it says how many.

use offload::report::check::advisor::{headline, Identical};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GenericAdvisorProps {
    /// The groups, most bytes saved first.
    pub groups: Vec<Identical>,
    /// Images listed from their headers only, which the advisor could not compare.
    pub undecoded: usize,
}

/// What the advisor says of images it could not compare, when there are some.
pub fn not_compared(undecoded: usize) -> Option<String> {
    (undecoded > 0).then(|| {
        let images = if undecoded == 1 { "1 image".to_string() } else { format!("{undecoded} images") };
        format!("{images} listed from their headers only were not compared")
    })
}

#[function_component]
pub fn GenericAdvisor(props: &GenericAdvisorProps) -> Html {
    let Some(head) = headline(&props.groups) else {
        return match not_compared(props.undecoded) {
            Some(text) => {
                html! { <p class="muted generic-advisor">{ format!("Identical code across targets: {text}.") }</p> }
            }
            None => html! {},
        };
    };
    html! {
        <section class="generic-advisor" aria-labelledby="advisor-title">
            <h4 id="advisor-title">{"Identical code across targets"}</h4>
            <p class="muted advisor-headline">{ head }</p>
            <ul>
                { for props.groups.iter().map(|g| html! {
                    <li class="advisor-group" data-build-for={g.build_for.clone()}>{ g.line() }</li>
                }) }
            </ul>
            if let Some(text) = not_compared(props.undecoded) {
                <p class="muted">{ text }</p>
            }
        </section>
    }
}
