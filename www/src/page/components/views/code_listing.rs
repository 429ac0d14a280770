//! An AMDGPU code object's listing in the Code view: a row per label and per instruction
//! (address, dwords, text), coloured by instruction class, only the rows on screen drawn
//! ([`super::virtual_rows`]). Selecting an instruction (click, arrow keys) shows its bytes in
//! the hex view; a byte selected in the hex view selects the instruction that holds it; a branch
//! target is a link to the line it goes to; a kernel selected elsewhere is scrolled to. Beside
//! it, the classes' legend and the instruction mix of the kernel holding the selection.

use super::code_legend::CodeLegend;
use super::instruction_mix::InstructionMix;
use super::virtual_rows::{page_rows, VirtualRows};
use crate::page::code::{class_slot, label_named, row_of_label, row_of_line, Row, CLASS_SLUGS};
use crate::page::format::thousands;
use crate::page::state::{Action, HexState};
use crate::wire::code::{CodeLine, CodeListing};
use crate::wire::doc::NodeId;
use offload::tree::Span;
use std::rc::Rc;
use web_sys::{Element, HtmlSelectElement};
use yew::prelude::*;

pub const CODE_LIST_ID: &str = "code-list";

#[derive(Properties, PartialEq)]
pub struct CodeListingProps {
    pub listing: Rc<CodeListing>,
    pub rows: Rc<Vec<Row>>,
    /// The code object's node and bytes.
    pub image: NodeId,
    pub span: Span,
    /// The node selected in the tab, when it is inside the code object: it stays selected when
    /// an instruction is.
    pub selected: Option<NodeId>,
    /// The kernel selected elsewhere, to scroll to.
    pub kernel: Option<String>,
    pub hex: HexState,
    pub on_action: Callback<Action>,
}

#[function_component]
pub fn CodeListingView(props: &CodeListingProps) -> Html {
    let listing = &props.listing;
    let line = use_state_eq(|| None::<usize>);
    let reveal = use_state_eq(|| (None::<usize>, 0u32));
    let ask_reveal = {
        let reveal = reveal.clone();
        move |row: usize| reveal.set((Some(row), reveal.1.wrapping_add(1)))
    };
    // A byte selected in the hex view selects its instruction; a kernel selected elsewhere is
    // scrolled to.
    {
        let (line, ask_reveal, listing) = (line.clone(), ask_reveal.clone(), listing.clone());
        let cursor = props
            .hex
            .cursor
            .filter(|&c| props.hex.space == props.span.space && c >= props.span.offset && c < props.span.end());
        use_effect_with((listing.clone(), props.kernel.clone(), cursor), move |(_, kernel, cursor)| {
            if let Some(at) = cursor.and_then(|c| listing.line_at_offset(c)) {
                line.set(Some(at));
                ask_reveal(row_of_line(&listing, at));
            } else if let Some(label) = kernel.as_deref().and_then(|k| label_named(&listing, k)) {
                let first = listing.labels[label].line as usize;
                line.set((first < listing.lines.len()).then_some(first));
                ask_reveal(row_of_label(&listing, label));
            }
        });
    }
    let select_line = {
        let (line, ask_reveal, listing) = (line.clone(), ask_reveal.clone(), listing.clone());
        let (on_action, image, selected, span) = (props.on_action.clone(), props.image, props.selected, props.span);
        Callback::from(move |at: usize| {
            let Some(l) = listing.lines.get(at) else { return };
            line.set(Some(at));
            ask_reveal(row_of_line(&listing, at));
            // The tab's selection stays where it is when it is inside this code object.
            let node = selected.unwrap_or(image);
            on_action.emit(Action::SelectSpan { node, span: Span::new(span.space, l.offset, u64::from(l.size)) });
        })
    };
    let onclick = {
        let select_line = select_line.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(at) = clicked(&e, "data-target-line").or_else(|| clicked(&e, "data-line")) {
                e.prevent_default();
                select_line.emit(at);
            }
        })
    };
    let onkeydown = {
        let (select_line, line, count) = (select_line.clone(), *line, listing.lines.len());
        Callback::from(move |e: KeyboardEvent| {
            let page = e
                .current_target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<Element>(t).ok())
                .map_or(20, |el| page_rows(&el));
            if let Some(to) = moved(&e.key(), line, count, page) {
                e.prevent_default();
                select_line.emit(to);
            }
        })
    };
    let render = {
        let (listing, rows, line) = (listing.clone(), props.rows.clone(), *line);
        Callback::from(move |row: usize| match rows.get(row) {
            Some(Row::Label(k)) => label_row(&listing, *k),
            Some(Row::Line(i)) => line_row(&listing.lines[*i], *i, line == Some(*i)),
            None => Html::default(),
        })
    };
    let goto_label = {
        let (listing, ask_reveal, line) = (listing.clone(), ask_reveal.clone(), line.clone());
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(k) = select.value().parse::<usize>() {
                line.set(listing.labels.get(k).map(|l| l.line as usize).filter(|&l| l < listing.lines.len()));
                ask_reveal(row_of_label(&listing, k));
            }
        })
    };
    let mix_label = line
        .and_then(|l| listing.label_of_line(l))
        .or_else(|| props.kernel.as_deref().and_then(|k| label_named(listing, k)));
    html! {
        <div class="code-body">
            <div class="code-header">
                <span class="code-facts">{ format!("{}: {} lines, {} labels", listing.processor, thousands(listing.lines.len() as u64), thousands(listing.labels.len() as u64)) }</span>
                <label class="code-goto">{"Go to "}
                    <select aria-label="Go to label" onchange={goto_label}>
                        <option value="" selected=true>{"label…"}</option>
                        { for listing.labels.iter().enumerate().map(|(k, l)| html! { <option value={k.to_string()}>{ &l.name }</option> }) }
                    </select>
                </label>
            </div>
            <CodeLegend />
            <InstructionMix listing={listing.clone()} label={mix_label} />
            <VirtualRows count={props.rows.len()} {render} reveal={*reveal} id={CODE_LIST_ID}
                label={format!("Code of the {} code object: arrow keys move the selection", listing.processor)} {onclick} {onkeydown} />
        </div>
    }
}

fn label_row(listing: &CodeListing, k: usize) -> Html {
    let l = &listing.labels[k];
    html! {
        <div class="code-row code-label" data-label={l.name.clone()}>
            <span class="code-address">{ format!("{:016x}", l.address) }</span>{" "}
            <span class="code-label-name">{ format!("<{}>:", l.name) }</span>
        </div>
    }
}

fn line_row(l: &CodeLine, index: usize, selected: bool) -> Html {
    // A run of zeros has no class: it is not an instruction.
    let kind =
        if l.zeros { String::from("code-zeros") } else { format!("code-class-{}", CLASS_SLUGS[class_slot(l.class)]) };
    let class = classes!("code-row", "code-line", kind, selected.then_some("selected"));
    html! {
        <div {class} data-line={index.to_string()} data-address={format!("{:x}", l.address)} data-offset={l.offset.to_string()}
            data-size={l.size.to_string()} aria-selected={selected.to_string()}>
            <span class="code-address">{ format!("{:12x}:", l.address) }</span>
            <span class="code-words">{ &l.words }</span>
            <span class="code-text">{ &l.text }</span>
            if let Some(t) = &l.target {
                if let Some(to) = t.line {
                    <a class="code-target" href={format!("#code-{:x}", t.address)} data-target-line={to.to_string()}
                        title={format!("Go to {:#x}", t.address)}>{ t.label.clone().unwrap_or_else(|| format!("{:#x}", t.address)) }</a>
                } else {
                    <span class="code-target-outside">{ t.label.clone().unwrap_or_else(|| format!("{:#x}", t.address)) }</span>
                }
            }
        </div>
    }
}

/// The number in attribute `name` of the clicked element or the nearest one around it.
fn clicked(e: &MouseEvent, name: &str) -> Option<usize> {
    let target: Element = wasm_bindgen::JsCast::dyn_into(e.target()?).ok()?;
    target.closest(&format!("[{name}]")).ok().flatten()?.get_attribute(name)?.parse().ok()
}

/// The line a key moves the selection to, from `line` in a listing of `count` lines.
fn moved(key: &str, line: Option<usize>, count: usize, page: usize) -> Option<usize> {
    let last = count.checked_sub(1)?;
    let Some(at) = line else {
        return matches!(key, "ArrowDown" | "ArrowUp" | "Home" | "End" | "PageDown" | "PageUp").then_some(0);
    };
    Some(match key {
        "ArrowDown" => (at + 1).min(last),
        "ArrowUp" => at.saturating_sub(1),
        "PageDown" => at.saturating_add(page).min(last),
        "PageUp" => at.saturating_sub(page),
        "Home" => 0,
        "End" => last,
        _ => return None,
    })
}
