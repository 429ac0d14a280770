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
        <details class="instruction-mix" open=true>
            <summary>{ format!("Instruction mix of {of}: {} instructions", thousands(u64::from(total))) }</summary>
            <table>
                <tbody>
                    { for counts.iter().enumerate().filter(|(_, &n)| n > 0).map(|(slot, &n)| {
                        let pct = percent(n, total);
                        html! {
                            <tr class={format!("code-class-{}", CLASS_SLUGS[slot])} data-class={CLASS_SLUGS[slot]}>
                                <th scope="row"><span class="code-swatch" aria-hidden="true"></span>{ class_name(slot) }</th>
                                <td class="num">{ thousands(u64::from(n)) }</td>
                                <td class="num">{ format!("{pct:.1}%") }</td>
                                <td><meter min="0" max="100" value={pct.to_string()} aria-label={format!("{} {pct:.1}%", class_name(slot))}></meter></td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </details>
    }
}
