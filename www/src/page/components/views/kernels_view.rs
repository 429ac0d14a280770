//! The Kernels view: every kernel of the file as a row, a column group per target (registers,
//! LDS, scratch and, on AMD GPUs, occupancy side by side), as `offload kernels` prints it. The
//! largest register, LDS and scratch value of a row among its targets is highlighted; an
//! occupancy cell says what limits it; rows filter by name and sort by any column; a cell selects its
//! kernel node, and the row of the selected kernel is marked. Names are shown demangled, the
//! mangled symbol on hover; the filter matches either.

use crate::page::state::Action;
use crate::wire::doc::{Doc, NodeId};
use offload::report::kernels::{KernelCell, KernelRow};
use offload::util::sort;
use std::cmp::Reverse;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Rows drawn at most; the filter narrows the rest down.
const MAX_ROWS: usize = 500;

/// A value shown for each target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Registers,
    Lds,
    Scratch,
    /// Occupancy: waves per SIMD (AMD GPUs).
    Waves,
}

impl Metric {
    const ALL: [Metric; 4] = [Metric::Registers, Metric::Lds, Metric::Scratch, Metric::Waves];

    fn heading(self) -> &'static str {
        match self {
            Metric::Registers => "regs",
            Metric::Lds => "LDS",
            Metric::Scratch => "scratch",
            Metric::Waves => "waves",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Metric::Registers => "VGPRs on AMD GPUs, registers per thread on NVIDIA GPUs",
            Metric::Lds => "LDS per work-group (shared memory per block on NVIDIA), bytes",
            Metric::Scratch => "scratch per work-item (stack and local memory per thread on NVIDIA), bytes",
            Metric::Waves => "occupancy: waves per SIMD on the image's processor (AMD GPUs), as clang reports it",
        }
    }

    fn of(self, cell: &KernelCell) -> Option<u64> {
        match self {
            Metric::Registers => cell.registers,
            Metric::Lds => cell.lds,
            Metric::Scratch => cell.scratch,
            Metric::Waves => cell.occupancy,
        }
    }
}

/// What the rows are sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    /// File order (the order `offload kernels` prints).
    File,
    Name,
    Value {
        column: usize,
        metric: Metric,
    },
}

#[derive(Properties, PartialEq)]
pub struct KernelsViewProps {
    pub doc: Rc<Doc>,
    pub selected: Option<NodeId>,
    pub on_action: Callback<Action>,
}

/// The name a row shows: demangled (the mangled symbol where it did not demangle).
pub fn shown_name(row: &KernelRow) -> &str {
    if row.demangled.is_empty() {
        &row.name
    } else {
        &row.demangled
    }
}

/// The rows to draw: those whose mangled or demangled name contains `filter` (in any case of its
/// ASCII letters, as kernel symbols are spelt), sorted by `key` (by the name shown; by value,
/// largest first, rows without that value last).
pub fn visible_rows<'r>(rows: &'r [KernelRow], filter: &str, key: SortKey) -> Vec<&'r KernelRow> {
    let filter = filter.trim().to_ascii_lowercase();
    let matches = |r: &KernelRow| {
        filter.is_empty()
            || r.name.to_ascii_lowercase().contains(&filter)
            || r.demangled.to_ascii_lowercase().contains(&filter)
    };
    let mut out: Vec<&KernelRow> = rows.iter().filter(|r| matches(r)).collect();
    match key {
        SortKey::File => {}
        SortKey::Name => {
            sort::sort_by(&mut out, |a, b| shown_name(a).cmp(shown_name(b)).then_with(|| a.name.cmp(&b.name)))
        }
        SortKey::Value { column, metric } => sort::sort_by_key(&mut out, |r| {
            let v = r.cells.get(column).and_then(Option::as_ref).and_then(|c| metric.of(c));
            (v.is_none(), Reverse(v))
        }),
    }
    out
}

/// Per column, whether the row's value of `metric` there is the row's largest, when the row's
/// targets differ in it.
pub fn largest(row: &KernelRow, metric: Metric) -> Vec<bool> {
    // More waves is no cost: occupancy is not highlighted.
    if metric == Metric::Waves {
        return vec![false; row.cells.len()];
    }
    let values: Vec<Option<u64>> = row.cells.iter().map(|c| c.as_ref().and_then(|c| metric.of(c))).collect();
    let present: Vec<u64> = values.iter().flatten().copied().collect();
    let max = present.iter().copied().max();
    let differ = present.iter().any(|&v| Some(v) != max);
    values.iter().map(|&v| differ && v.is_some() && v == max).collect()
}

#[function_component]
pub fn KernelsView(props: &KernelsViewProps) -> Html {
    let filter = use_state(String::new);
    let sort = use_state(|| SortKey::File);
    let table = &props.doc.kernels;
    if table.rows.is_empty() {
        return html! {};
    }
    let on_filter = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| filter.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let sort_by = |key: SortKey| {
        let sort = sort.clone();
        // A second click on the same heading goes back to file order.
        Callback::from(move |_: MouseEvent| sort.set(if *sort == key { SortKey::File } else { key }))
    };
    let rows = visible_rows(&table.rows, &filter, *sort);
    let shown = rows.len().min(MAX_ROWS);
    let node_of = |cell: &KernelCell| props.doc.node_at(&cell.path);
    let select = |node: Option<NodeId>| {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(n) = node {
                on_action.emit(Action::Select(n));
            }
        })
    };
    let pressed = |key: SortKey| (*sort == key).to_string();
    let count = format!(
        "{} kernel{} across {} target{}",
        table.rows.len(),
        if table.rows.len() == 1 { "" } else { "s" },
        table.columns.len(),
        if table.columns.len() == 1 { "" } else { "s" }
    );
    html! {
        <section class="panel kernels-panel" aria-labelledby="kernels-title">
            <div class="kernels-header">
                <h2 id="kernels-title" class="panel-title">{"Kernels"}</h2>
                <span class="muted">{ count }</span>
                <input type="search" class="kernel-filter" placeholder="Filter by name" aria-label="Filter kernels by name (demangled or mangled)"
                    value={(*filter).clone()} oninput={on_filter} />
            </div>
            <div class="table-scroll">
                <table class="kernels">
                    <thead>
                        <tr>
                            <th scope="col" rowspan="2">
                                <button type="button" class="link" onclick={sort_by(SortKey::Name)} aria-pressed={pressed(SortKey::Name)}
                                    aria-label="Sort kernels by name">{"Kernel"}</button>
                            </th>
                            { for table.columns.iter().map(|c| html! {
                             <th scope="colgroup" colspan="4" class="kernel-target" title={c.format.clone()}>{ &c.target }</th>
                            }) }
                        </tr>
                        <tr>
                            { for table.columns.iter().enumerate().flat_map(|(column, c)| Metric::ALL.map(|metric| {
                                let key = SortKey::Value { column, metric };
                                html! {
                                    <th scope="col" class="num" title={metric.title()}>
                                        <button type="button" class="link" onclick={sort_by(key)} aria-pressed={pressed(key)}
                                            aria-label={format!("Sort kernels by {} on {}", metric.heading(), c.target)}>{ metric.heading() }</button>
                                    </th>
                                }
                            })) }
                        </tr>
                    </thead>
                    <tbody>
                        { for rows.iter().take(shown).map(|row| {
                            let nodes: Vec<Option<NodeId>> = row.cells.iter().map(|c| c.as_ref().and_then(node_of)).collect();
                            let is_selected = props.selected.is_some() && nodes.contains(&props.selected);
                            let device_only = row.cells.iter().flatten().all(|c| !c.entry);
                            let first = nodes.iter().flatten().next().copied();
                            let marks = Metric::ALL.map(|m| largest(row, m));
                            let label = shown_name(row);
                            html! {
                                <tr class={classes!(is_selected.then_some("selected"))} data-kernel={row.name.clone()}>
                                    <th scope="row">
                                        <button type="button" class="link kernel-name" onclick={select(first)} title={row.name.clone()}
                                            aria-label={format!("Select kernel {label}")}>{ label }</button>
                                        if device_only {
                                            <span class="badge device" title="a device function, not an entry kernel">{"device"}</span>
                                        }
                                    </th>
                                    { for row.cells.iter().enumerate().flat_map(|(column, cell)| Metric::ALL.iter().enumerate().map(|(m, metric)| {
                                        let value = cell.as_ref().and_then(|c| metric.of(c));
                                        let here = nodes[column];
                                        let class = classes!(
                                            "num",
                                            marks[m][column].then_some("largest"),
                                            (here.is_some() && here == props.selected).then_some("selected-cell"),
                                        );
                                        // What limits the occupancy, from the kernel's own node.
                                        let title = (*metric == Metric::Waves)
                                            .then(|| here.and_then(|n| props.doc.text(n, "occupancy_limited_by")).map(|l| format!("limited by {l}")))
                                            .flatten();
                                        match (value, cell) {
                                            (Some(v), Some(_)) => html! {
                                                <td {class} {title}>
                                                    <button type="button" class="link" onclick={select(here)}
                                                        aria-label={format!("{} of {} on {}: {v}", metric.heading(), label, table.columns[column].target)}>{ v.to_string() }</button>
                                                </td>
                                            },
                                            _ => html! { <td {class}>{"—"}</td> },
                                        }
                                    }).collect::<Vec<_>>()) }
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            if rows.len() > shown {
                <p class="muted">{ format!("{shown} of {} kernels shown: filter by name to see the others.", rows.len()) }</p>
            } else if rows.is_empty() {
                <p class="muted">{"No kernel name, demangled or mangled, contains that text."}</p>
            }
        </section>
    }
}
