//! The instruction mix of a kernel in the Code view: how many of its instructions are of each
//! class, and what part of the whole, with a bar (a `<meter>`, which needs no style attribute).

use crate::page::code::{class_name, percent, CLASS_SLUGS};
use crate::page::format::thousands;
use crate::wire::code::CodeListing;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct InstructionMixProps {
    pub listing: Rc<CodeListing>,
    /// The label whose lines are counted; `None`: the whole code object.
    pub label: Option<usize>,
}

#[function_component]
pub fn InstructionMix(props: &InstructionMixProps) -> Html {
    let listing = &props.listing;
    let (from, to) = props.label.map_or((0, listing.lines.len()), |k| listing.lines_of_label(k));
    let counts = use_memo((listing.clone(), from, to), |(l, from, to)| l.mix(*from, *to));
    let total: u32 = counts.iter().sum();
    let of = props
        .label
        .and_then(|k| listing.labels.get(k))
        .map_or_else(|| "the code object".to_string(), |l| l.name.clone());
    html! {
        <div class="instruction-mix" aria-label="Instruction mix">
            <span class="mix-title">{ format!("Mix of {of}: {} instructions", thousands(u64::from(total))) }</span>
            <ul>
                { for counts.iter().enumerate().filter(|(_, &n)| n > 0).map(|(slot, &n)| {
                    let pct = percent(n, total);
                    html! {
                        <li class={format!("code-class-{}", CLASS_SLUGS[slot])} data-class={CLASS_SLUGS[slot]}>
                            <span class="code-swatch" aria-hidden="true"></span>
                            { format!("{} {}", class_name(slot), thousands(u64::from(n))) }
                            <span class="mix-pct">{ format!("{pct:.1}%") }</span>
                            <meter min="0" max="100" value={pct.to_string()} aria-hidden="true"></meter>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}
