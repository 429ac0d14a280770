//! An AMDGPU code object's listing in the Code view: a row per label and per instruction
//! (address, dwords, text), coloured by instruction class, only the rows on screen drawn
//! ([`super::virtual_rows`]). Selecting an instruction (click, arrow keys) shows its bytes in
//! the hex view; a byte selected in the hex view selects the instruction that holds it; a branch
//! target is a link to the line it goes to; a kernel selected elsewhere is scrolled to. Above
//! it, the classes' legend, the instruction mix of the kernel holding the selection and its
//! register pressure ([`super::pressure_strip`]); beside it, its blocks
//! ([`super::flow_outline`]), which can be folded here; each instruction shows its live VGPRs,
//! AGPRs and SGPRs.

use super::code_legend::CodeLegend;
use super::flow_outline::FlowOutline;
use super::instruction_mix::InstructionMix;
use super::pressure_strip::PressureStrip;
use super::virtual_rows::{clicked, page_rows, VirtualRows};
use crate::page::code::{
    class_slot, fold_hiding, folded_rows, label_named, row_of_label, row_of_line, FlowState, Flows, Folds, Row,
    CLASS_SLUGS,
};
use crate::page::format::thousands;
use crate::page::state::{Action, HexState};
use crate::wire::code::{CodeFlow, CodeListing};
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
    /// The functions' flows the page has, and how to ask for one (listing id, function).
    pub flows: Rc<Flows>,
    pub on_want_flow: Callback<(u32, usize)>,
}

/// What to bring into view: a line or a label (made a row with the rows as they are then, so a
/// fold opened by the same click is counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Line(usize),
    Label(usize),
}

#[function_component]
pub fn CodeListingView(props: &CodeListingProps) -> Html {
    let listing = &props.listing;
    let line = use_state_eq(|| None::<usize>);
    let folds = use_state_eq(|| Rc::new(Folds::new()));
    let reveal = use_state_eq(|| (None::<Place>, 0u32));
    let rows = use_memo((props.rows.clone(), (*folds).clone()), |(rows, folds)| {
        if folds.is_empty() {
            rows.clone()
        } else {
            Rc::new(folded_rows(listing, folds))
        }
    });
    let rows: Rc<Vec<Row>> = (*rows).clone();
    // The function whose blocks and pressure are shown: the selection's, else the kernel's,
    // else the first; its flow is asked of the worker the first time.
    let function = line
        .and_then(|l| listing.function_of_line(l))
        .or_else(|| props.kernel.as_deref().and_then(|k| listing.function_named(k)))
        .or((!listing.functions.is_empty()).then_some(0));
    {
        let on_want_flow = props.on_want_flow.clone();
        use_effect_with((listing.id, function), move |&(id, function)| {
            if let Some(f) = function {
                on_want_flow.emit((id, f));
            }
        });
    }
    let state = function.and_then(|f| props.flows.get(&(listing.id, f)));
    let flow: Option<Rc<CodeFlow>> = match state {
        Some(FlowState::Ready(flow)) => Some(flow.clone()),
        _ => None,
    };
    let ask_reveal = {
        let reveal = reveal.clone();
        move |place: Place| reveal.set((Some(place), reveal.1.wrapping_add(1)))
    };
    // A line hidden in a folded block is shown again when it is selected.
    let show_line = {
        let (line, folds, ask_reveal) = (line.clone(), folds.clone(), ask_reveal.clone());
        move |at: usize| {
            if let Some(first) = fold_hiding(&folds, at) {
                let mut open = (**folds).clone();
                open.remove(&first);
                folds.set(Rc::new(open));
            }
            line.set(Some(at));
            ask_reveal(Place::Line(at));
        }
    };
    // A byte selected in the hex view selects its instruction; a kernel selected elsewhere is
    // scrolled to.
    {
        let (line, show_line, ask_reveal, listing) =
            (line.clone(), show_line.clone(), ask_reveal.clone(), listing.clone());
        let cursor = props
            .hex
            .cursor
            .filter(|&c| props.hex.space == props.span.space && c >= props.span.offset && c < props.span.end());
        use_effect_with((listing.clone(), props.kernel.clone(), cursor), move |(_, kernel, cursor)| {
            if let Some(at) = cursor.and_then(|c| listing.line_at_offset(c)) {
                show_line(at);
            } else if let Some(label) = kernel.as_deref().and_then(|k| label_named(&listing, k)) {
                let first = listing.labels[label].line as usize;
                line.set((first < listing.lines.len()).then_some(first));
                ask_reveal(Place::Label(label));
            }
        });
    }
    let select_line = {
        let (show_line, listing) = (show_line.clone(), listing.clone());
        let (on_action, image, selected, span) = (props.on_action.clone(), props.image, props.selected, props.span);
        Callback::from(move |at: usize| {
            let Some(l) = listing.lines.get(at) else { return };
            show_line(at);
            // The tab's selection stays where it is when it is inside this code object.
            let node = selected.unwrap_or(image);
            on_action.emit(Action::SelectSpan { node, span: Span::new(span.space, l.offset, u64::from(l.size)) });
        })
    };
    // The block folded or unfolded is brought into view, so the reader sees what changed.
    let toggle_fold = {
        let (folds, flow, ask_reveal) = (folds.clone(), flow.clone(), ask_reveal.clone());
        Callback::from(move |first: usize| {
            let Some(flow) = &flow else { return };
            folds.set(Rc::new(toggled(flow, &folds, first)));
            ask_reveal(Place::Line(first));
        })
    };
    let onclick = {
        let (select_line, toggle_fold) = (select_line.clone(), toggle_fold.clone());
        Callback::from(move |e: MouseEvent| {
            if let Some(first) = clicked(&e, "data-unfold") {
                toggle_fold.emit(first);
            } else if let Some(at) = clicked(&e, "data-target-line").or_else(|| clicked(&e, "data-line")) {
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
        let (listing, rows, line, flow) = (listing.clone(), rows.clone(), *line, flow.clone());
        Callback::from(move |row: usize| match rows.get(row) {
            Some(Row::Label(k)) => label_row(&listing, *k),
            Some(Row::Line(i)) => line_row(&listing, flow.as_deref(), *i, line == Some(*i)),
            Some(Row::Folded { first, end }) => folded_row(*first, *end),
            None => Html::default(),
        })
    };
    let goto_label = {
        let (listing, ask_reveal, line) = (listing.clone(), ask_reveal.clone(), line.clone());
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(k) = select.value().parse::<usize>() {
                line.set(listing.labels.get(k).map(|l| l.line as usize).filter(|&l| l < listing.lines.len()));
                ask_reveal(Place::Label(k));
            }
        })
    };
    let mix_label = line
        .and_then(|l| listing.label_of_line(l))
        .or_else(|| props.kernel.as_deref().and_then(|k| label_named(listing, k)));
    let reveal_row = reveal.0.map(|place| match place {
        Place::Line(at) => row_of_line(listing, &rows, at),
        Place::Label(k) => row_of_label(listing, &rows, k),
    });
    let folds_now: Rc<Folds> = (*folds).clone();
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
            { flow_status(listing, function, state) }
            if let Some(f) = flow.clone() {
                <PressureStrip listing={listing.clone()} flow={f} selected={*line} on_select={select_line.clone()} />
            }
            <div class="code-main">
                if let Some(f) = flow {
                    <FlowOutline flow={f} selected={*line} folds={folds_now}
                        on_select={select_line.clone()} on_fold={toggle_fold} />
                }
                <VirtualRows count={rows.len()} {render} reveal={(reveal_row, reveal.1)} id={CODE_LIST_ID}
                    label={format!("Code of the {} code object: arrow keys move the selection; each instruction shows its live VGPRs, AGPRs and SGPRs", listing.processor)} {onclick} {onkeydown} />
            </div>
        </div>
    }
}

/// While a function's flow is being computed, or when it could not be, a line saying so.
fn flow_status(listing: &CodeListing, function: Option<usize>, state: Option<&FlowState>) -> Html {
    let name = function.and_then(|f| listing.functions.get(f)).map_or("", |f| f.name.as_str());
    match state {
        Some(FlowState::Pending) => {
            html! { <p class="code-status" role="status">{ format!("Finding the blocks and live registers of {name}…") }</p> }
        }
        Some(FlowState::Failed(e)) => {
            html! { <p class="note error" role="alert">{ format!("The blocks and live registers of {name} could not be found: {e}") }</p> }
        }
        _ => Html::default(),
    }
}

/// `folds` with the block of `flow` starting at line `first` folded, or unfolded when it was.
fn toggled(flow: &CodeFlow, folds: &Folds, first: usize) -> Folds {
    let mut next = folds.clone();
    if next.remove(&first).is_none() {
        let block = flow.block_of(first).map(|b| &flow.blocks[b]);
        if let Some(b) = block.filter(|b| b.first as usize == first) {
            next.insert(first, b.end as usize);
        }
    }
    next
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

fn line_row(listing: &CodeListing, flow: Option<&CodeFlow>, index: usize, selected: bool) -> Html {
    let l = &listing.lines[index];
    // A run of zeros has no class: it is not an instruction.
    let kind =
        if l.zeros { String::from("code-zeros") } else { format!("code-class-{}", CLASS_SLUGS[class_slot(l.class)]) };
    let class = classes!(
        "code-row",
        "code-line",
        kind,
        selected.then_some("selected"),
        flow.is_some_and(|f| starts_block(f, index)).then_some("block-start"),
    );
    html! {
        <div {class} data-line={index.to_string()} data-address={format!("{:x}", l.address)} data-offset={l.offset.to_string()}
            data-size={l.size.to_string()} aria-selected={selected.to_string()}>
            { live_registers(flow.and_then(|f| f.pressure_at(index))) }
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

/// Whether line `index` starts a block of `flow` other than its first.
fn starts_block(flow: &CodeFlow, index: usize) -> bool {
    index != flow.first as usize && flow.block_of(index).is_some_and(|b| flow.blocks[b].first as usize == index)
}

/// The pressure column: live VGPRs, AGPRs and SGPRs at an instruction (blank outside the
/// function shown).
fn live_registers(live: Option<[u16; 3]>) -> Html {
    let Some([v, a, s]) = live else { return html! { <span class="code-live" aria-hidden="true"></span> } };
    html! {
        <span class="code-live" title={format!("live: {v} VGPRs, {a} AGPRs, {s} SGPRs")}>
            <span class="live-v">{ v }</span><span class="live-a">{ a }</span><span class="live-s">{ s }</span>
        </span>
    }
}

/// The hidden lines of a folded block, as one row: a click opens it.
fn folded_row(first: usize, end: usize) -> Html {
    let block = first.saturating_sub(1);
    html! {
        <div class="code-row code-folded" data-unfold={block.to_string()} title="Unfold the block">
            { format!("… {} more instructions folded", thousands((end - first) as u64)) }
        </div>
    }
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
