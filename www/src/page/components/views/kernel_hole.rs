//! One line of the Kernels view's holes ([`super::kernel_holes`]): "libx.so: 52 kernels missing
//! on gfx1100 of 12 targets", which opens to the kernels themselves. They are put in the page
//! only once the line is opened: cuDNN's wheel has 47,672 missing (target, kernel) pairs, and
//! listing them all in closed lines doubled the time the Kernels view took to appear.

use super::opened_once::use_opened_once;
use offload::report::check::holes::LibraryHoles;
use std::rc::Rc;
use yew::prelude::*;

/// The name a kernel is shown by: `demangled`, or `name` where it did not demangle.
pub fn shown_name_of<'a>(name: &'a str, demangled: &'a str) -> &'a str {
    if demangled.is_empty() {
        name
    } else {
        demangled
    }
}

#[derive(Properties, PartialEq)]
pub struct KernelHoleProps {
    pub line: String,
    pub holes: Rc<Vec<LibraryHoles>>,
    /// Which library of `holes`, and which of its targets.
    pub library: usize,
    pub target: usize,
}

/// One target's line, whose kernels are listed once it has been opened.
#[function_component]
pub fn KernelHole(props: &KernelHoleProps) -> Html {
    let (opened, ontoggle) = use_opened_once();
    let Some(m) = props.holes.get(props.library).and_then(|h| h.missing.get(props.target)) else { return html! {} };
    html! {
        <details class="kernel-hole" data-target={m.target.clone()} {ontoggle}>
            <summary>{ &props.line }</summary>
            if opened {
                <ul class="hole-kernels">
                    { for m.kernels.iter().map(|k| html! {
                        <li title={k.name.clone()}><code>{ shown_name_of(&k.name, &k.demangled) }</code></li>
                    }) }
                </ul>
            }
        </details>
    }
}
