//! The block outline beside the Code view's listing: the basic blocks of the function holding
//! the selection, a row each — its address range and instruction count, how it ends, the loop
//! it is in (its header and how many loops hold it), whether it is unreachable, and its edges
//! as buttons that jump to the block they go to. A block can be folded: its lines past the
//! first become one row of the listing. Only the rows on screen are drawn
//! ([`super::virtual_rows`]), so a function of thousands of blocks scrolls like a small one.

use super::virtual_rows::{clicked, VirtualRows};
use crate::page::code::Folds;
use crate::page::format::thousands;
use crate::wire::code::{CodeFlow, EdgeKind, FlowBlock, FlowEdge};
use std::rc::Rc;
use yew::prelude::*;

pub const BLOCK_LIST_ID: &str = "code-blocks";

#[derive(Properties, PartialEq)]
pub struct FlowOutlineProps {
    /// The function shown.
    pub flow: Rc<CodeFlow>,
    /// The selected line: its block is marked and kept in view.
    pub selected: Option<usize>,
    pub folds: Rc<Folds>,
    /// Selects a line (an index in the listing): a block's first line.
    pub on_select: Callback<usize>,
    /// Folds or unfolds the block starting at this line.
    pub on_fold: Callback<usize>,
}

#[function_component]
pub fn FlowOutline(props: &FlowOutlineProps) -> Html {
    let flow = &props.flow;
    let current = props.selected.and_then(|l| flow.block_of(l));
    let reveal = use_state_eq(|| (None::<usize>, 0u32));
    {
        let reveal = reveal.clone();
        use_effect_with((flow.first, current), move |&(_, current)| {
            if current.is_some() {
                reveal.set((current, reveal.1.wrapping_add(1)));
            }
        });
    }
    let onclick = {
        let (on_select, on_fold) = (props.on_select.clone(), props.on_fold.clone());
        Callback::from(move |e: MouseEvent| {
            if let Some(first) = clicked(&e, "data-fold") {
                on_fold.emit(first);
            } else if let Some(line) = clicked(&e, "data-goto-line") {
                on_select.emit(line);
            }
        })
    };
    let render = {
        let (flow, folds) = (flow.clone(), props.folds.clone());
        Callback::from(move |b: usize| block_row(&flow, b, current == Some(b), &folds))
    };
    html! {
        <aside class="flow-outline" aria-label={format!("Blocks of {}", flow.name)}>
            <div class="flow-facts">{ facts(flow) }</div>
            <VirtualRows count={flow.blocks.len()} {render} reveal={*reveal} id={BLOCK_LIST_ID}
                label={format!("Basic blocks of {}: a block's name or an edge goes to it", flow.name)} {onclick} />
        </aside>
    }
}

/// `12 blocks, 15 edges, 2 loops, 1 unreachable`, and what may reach the unreachable ones.
fn facts(flow: &CodeFlow) -> String {
    let edges: usize = flow.blocks.iter().map(|b| b.successors.len()).sum();
    let unreachable = flow.blocks.iter().filter(|b| !b.reachable).count();
    let mut text = format!(
        "{} blocks, {} edges, {} loop{}, {unreachable} unreachable",
        thousands(flow.blocks.len() as u64),
        thousands(edges as u64),
        flow.loops.len(),
        if flow.loops.len() == 1 { "" } else { "s" }
    );
    if flow.irreducible > 0 {
        text.push_str(&format!(", {} irreducible edges", flow.irreducible));
    }
    if flow.indirect && unreachable > 0 {
        text.push_str(" (an indirect jump may reach them)");
    }
    text
}

fn block_row(flow: &CodeFlow, b: usize, current: bool, folds: &Folds) -> Html {
    let Some(block) = flow.blocks.get(b) else { return Html::default() };
    let header = flow.loops.iter().find(|l| l.header as usize == b);
    let class = classes!(
        "code-row",
        "flow-block",
        current.then_some("selected"),
        (!block.reachable).then_some("unreachable"),
        header.is_some().then_some("loop-header"),
        format!("loop-depth-{}", block.loop_depth.min(4)),
    );
    let loop_address = block.loop_header.and_then(|h| flow.blocks.get(h as usize)).map(|h| format!("{:x}", h.address));
    html! {
        <div {class} data-block={b.to_string()} data-address={format!("{:x}", block.address)} data-end={format!("{:x}", block.end_address)}
            data-loop={loop_address} data-loop-depth={block.loop_depth.to_string()} aria-current={current.then_some("true")}>
            { fold_button(block, b, folds) }
            <button type="button" class="link flow-name" data-goto-line={block.first.to_string()}
                title={format!("Go to block {b}")}>{ format!("B{b}") }</button>
            <span class="flow-range">{ format!("{:x}–{:x}", block.address, block.end_address) }</span>
            <span class="flow-count" title="instructions">{ thousands(u64::from(block.end - block.first)) }</span>
            { loop_mark(flow, block, header.is_some()) }
            if !block.reachable { <span class="flow-unreachable" title="no edge from the entry leads here">{"unreachable"}</span> }
            <span class="flow-edges" title={format!("ends: {}", block.exit.as_str())}>
                { for block.successors.iter().map(|e| edge(flow, e)) }
            </span>
        </div>
    }
}

/// Fold or unfold a block of more than one line.
fn fold_button(block: &FlowBlock, b: usize, folds: &Folds) -> Html {
    if block.end - block.first < 2 {
        return html! { <span class="flow-fold-none" aria-hidden="true"></span> };
    }
    let folded = folds.contains_key(&(block.first as usize));
    let (mark, verb) = if folded { ("▸", "Unfold") } else { ("▾", "Fold") };
    html! {
        <button type="button" class="flow-fold" data-fold={block.first.to_string()} aria-expanded={(!folded).to_string()}
            aria-label={format!("{verb} block {b}")}>{ mark }</button>
    }
}

/// A loop header says so, a block inside a loop names its header; both say how many loops
/// hold them (their depth, 1 in an outermost loop).
fn loop_mark(flow: &CodeFlow, block: &FlowBlock, header: bool) -> Html {
    let depth = block.loop_depth;
    if header {
        return html! {
            <span class="flow-loop" title={format!("loop header, depth {depth}")}>{ format!("↻ header, depth {depth}") }</span>
        };
    }
    let Some(h) = block.loop_header else { return Html::default() };
    let address = flow.blocks.get(h as usize).map_or(0, |b| b.address);
    html! {
        <span class="flow-loop" title={format!("inside the loop at {address:#x}, depth {}", block.loop_depth)}>
            { format!("↻ B{h}, depth {}", block.loop_depth) }</span>
    }
}

/// An edge: a button to the block it goes to, or the address it leaves the function for.
fn edge(flow: &CodeFlow, e: &FlowEdge) -> Html {
    let kind = match e.kind {
        EdgeKind::Taken => "→",
        EdgeKind::Fallthrough => "↓",
        EdgeKind::CallReturn => "↩",
    };
    match e.to.and_then(|t| flow.blocks.get(t as usize).map(|b| (t, b))) {
        Some((t, to)) => html! {
            <button type="button" class="link flow-edge" data-goto-line={to.first.to_string()} data-to={t.to_string()}
                title={format!("{} edge to block {t} at {:#x}", e.kind.as_str(), to.address)}>{ format!("{kind}B{t}") }</button>
        },
        None => html! {
            <span class="flow-edge outside" title={format!("{} edge out of the function", e.kind.as_str())}>{ format!("{kind}{:#x}", e.address) }</span>
        },
    }
}
