//! The Kernels view: every kernel of the file as a row, a column group per target (registers,
//! LDS, scratch and, on AMD GPUs, occupancy side by side), as `offload kernels` prints it. The
//! largest register, LDS and scratch value of a row among its targets is highlighted; an
//! occupancy cell says what limits it; rows filter by name and sort by any column; a cell selects its
//! kernel node, and the row of the selected kernel is marked. Names are shown demangled, the
//! mangled symbol on hover; the filter matches either.
//!
//! Every kernel is in the table, however many: only the rows in view are drawn (one line each,
//! so their place follows from the scroll position), and filtering and sorting run once per
//! change, not per scroll. Where a listing left images undecoded, the count says so and offers
//! to decode them all (the file explored again in the worker with every image decompressed and
//! dropped once read), and the table then holds the kernels of every image.
//!
//! Above the table, the kernel × target holes of the table shown ([`KernelHoles`]); a kernel's
//! cells on a target of its library that lacks it are marked "missing".

use crate::page::components::views::kernel_hole::shown_name_of;
use crate::page::components::views::kernel_holes::{missing_cells, KernelHoles};
use crate::page::format::{human_size, thousands};
use crate::page::state::{Action, FileRequest, KernelsDecoding, TabId};
use crate::wire::doc::{Doc, NodeId};
use offload::report::kernels::{KernelCell, KernelRow, KernelTable};
use offload::util::sort;
use std::cmp::Reverse;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

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
    pub tab: TabId,
    pub on_file: Callback<FileRequest>,
    /// Every image's kernels, decoded on request (the doc's table holds the listed ones').
    pub decoding: Option<KernelsDecoding>,
}

/// The name a row shows: demangled (the mangled symbol where it did not demangle).
pub fn shown_name(row: &KernelRow) -> &str {
    shown_name_of(&row.name, &row.demangled)
}

/// The rows to draw, as indices into `rows`: those whose mangled or demangled name contains `filter` (in any case of its
/// ASCII letters, as kernel symbols are spelt), sorted by `key` (by the name shown; by value,
/// largest first, rows without that value last).
pub fn visible_rows(rows: &[KernelRow], filter: &str, key: SortKey) -> Vec<usize> {
    let filter = filter.trim().to_ascii_lowercase();
    let matches = |r: &KernelRow| {
        filter.is_empty()
            || r.name.to_ascii_lowercase().contains(&filter)
            || r.demangled.to_ascii_lowercase().contains(&filter)
    };
    let mut out: Vec<usize> = (0..rows.len()).filter(|&i| matches(&rows[i])).collect();
    match key {
        SortKey::File => {}
        SortKey::Name => sort::sort_by(&mut out, |&a, &b| {
            let (a, b) = (&rows[a], &rows[b]);
            shown_name(a).cmp(shown_name(b)).then_with(|| a.name.cmp(&b.name))
        }),
        SortKey::Value { column, metric } => sort::sort_by_key(&mut out, |&r| {
            let v = rows[r].cells.get(column).and_then(Option::as_ref).and_then(|c| metric.of(c));
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

/// Height of a row in pixels: every row is one line (long names are cut with an ellipsis and
/// shown whole on hover), so that the rows in view follow from the scroll position alone.
pub const ROW_HEIGHT: f64 = 24.0;
/// Rows drawn beyond those in view, above and below, so that scrolling never shows a gap.
const OVERSCAN: usize = 20;
/// Rows drawn before the table's height is known.
const FIRST_ROWS: usize = 60;

/// The rows to draw of `total`, for a table scrolled to `scroll_top` showing `height` pixels:
/// the first row and how many.
pub fn window(total: usize, scroll_top: f64, height: f64) -> (usize, usize) {
    let first = ((scroll_top.max(0.0) / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN).min(total);
    let in_view = if height > 0.0 { (height / ROW_HEIGHT).ceil() as usize } else { FIRST_ROWS };
    (first, (in_view + 2 * OVERSCAN).min(total - first))
}

/// Which limits left images listed but not decoded: a package's images are all decoded (its
/// members' bytes are dropped as they go, so memory stays bounded), but a file opened on its own
/// keeps what it decompresses, so only what the listing's limits allow is decompressed.
pub fn listing_limits() -> String {
    let bundle = offload::explore::Options::default().full_decompress_up_to;
    let nvidia = offload::format::nv_fatbin::tree::LISTING_BUDGET;
    format!(
        "Listed from their headers: a file that is not a package has its compressed bundles over {} and its NVIDIA entries past the first {} decoded on request",
        human_size(bundle),
        human_size(nvidia)
    )
}

/// What the count line says: every kernel, or, where images were only listed, that the table
/// holds the kernels of the decoded images alone and how many were not decoded.
pub fn count_line(table: &KernelTable, undecoded: usize, images: Option<usize>) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let (rows, columns) = (table.rows.len(), table.columns.len());
    let all = format!("{} kernel{} across {} target{}", thousands(rows as u64), plural(rows), columns, plural(columns));
    match (undecoded, images) {
        (0, _) => all,
        (n, Some(images)) => format!(
            "{all} in the decoded images; {} of {} device images were not decoded",
            thousands(n as u64),
            thousands(images as u64)
        ),
        (n, None) => format!(
            "{all} in the decoded images; {} device image{} listed but not decoded",
            thousands(n as u64),
            plural(n)
        ),
    }
}

#[function_component]
pub fn KernelsView(props: &KernelsViewProps) -> Html {
    let filter = use_state(String::new);
    let sort = use_state(|| SortKey::File);
    let scroll = use_state(|| (0.0_f64, 0.0_f64));
    let (above_ref, below_ref) = (use_node_ref(), use_node_ref());
    let decoded = match &props.decoding {
        Some(KernelsDecoding::Done(d)) => Some(d.clone()),
        _ => None,
    };
    let table = decoded.as_ref().map_or(&props.doc.kernels, |d| &d.table);
    let undecoded = decoded.as_ref().map_or(props.doc.undecoded_images, |d| d.undecoded_images);
    // Filtering and sorting tens of thousands of rows is done once per filter and order, not on
    // every scroll.
    let order = {
        let table = decoded.clone();
        let doc = props.doc.clone();
        use_memo(((*filter).clone(), *sort, decoded.is_some(), props.doc.clone()), move |(filter, sort, _, _)| {
            let rows = table.as_ref().map_or(&doc.kernels.rows, |d| &d.table.rows);
            visible_rows(rows, filter, *sort)
        })
    };
    // Holes of the table shown: found again once every image is decoded.
    let holes = {
        let (table, doc) = (decoded.clone(), props.doc.clone());
        use_memo((decoded.is_some(), props.doc.clone()), move |_| {
            let holes = doc.holes(table.as_ref().map_or(&doc.kernels, |d| &d.table));
            let cells = missing_cells(&holes);
            (Rc::new(holes), cells)
        })
    };
    let (first, count) = window(order.len(), scroll.0, scroll.1);
    let above = first as f64 * ROW_HEIGHT;
    let below = (order.len() - first - count) as f64 * ROW_HEIGHT;
    {
        // The spacers' heights stand for the rows not drawn. Set through the CSS object model:
        // the page's Content-Security-Policy refuses `style` attributes.
        let (above_ref, below_ref) = (above_ref.clone(), below_ref.clone());
        use_effect_with((above as u64, below as u64), move |&(above, below)| {
            for (spacer, px) in [(above_ref, above), (below_ref, below)] {
                if let Some(el) = spacer.cast::<web_sys::HtmlElement>() {
                    let _ = el.style().set_property("height", &format!("{px}px"));
                }
            }
        });
    }
    if table.rows.is_empty() && undecoded == 0 {
        return html! {};
    }
    let on_filter = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| filter.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_scroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| {
            let el = e.target_unchecked_into::<web_sys::Element>();
            scroll.set((el.scroll_top() as f64, el.client_height() as f64));
        })
    };
    let sort_by = |key: SortKey| {
        let sort = sort.clone();
        // A second click on the same heading goes back to file order.
        Callback::from(move |_: MouseEvent| sort.set(if *sort == key { SortKey::File } else { key }))
    };
    // A kernel of an image decoded only for this table has no node on the page: its cell
    // selects the nearest node that is (the entry that holds the image).
    let node_of = |cell: &KernelCell| props.doc.nearest_at(&cell.path);
    let select = |node: Option<NodeId>| {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(n) = node {
                on_action.emit(Action::Select(n));
            }
        })
    };
    let pressed = |key: SortKey| (*sort == key).to_string();
    let images = decoded.as_ref().map(|d| d.images);
    let tab = props.tab;
    let decode = props.on_file.reform(move |_: MouseEvent| FileRequest::DecodeKernels(tab));
    let decoding = match &props.decoding {
        Some(KernelsDecoding::Running(p)) => {
            let so_far =
                p.map(|p| format!(": member {} of {}", thousands(p.members_done as u64), thousands(p.members as u64)));
            html! { <span class="decode-status" role="status">{ format!("Decoding every image{}…", so_far.unwrap_or_default()) }</span> }
        }
        Some(KernelsDecoding::Failed(message)) => {
            html! { <span class="decode-status error" role="alert">{ format!("Decoding failed: {message}") }</span> }
        }
        _ if undecoded > 0 && decoded.is_none() => html! {
            <>
                <button type="button" class="decode-kernels" onclick={decode}
                    title="Explore the file again with every image decompressed, to read the kernels of all">{"Decode every image"}</button>
                <span class="muted decode-why">{ listing_limits() }</span>
            </>
        },
        _ => html! {},
    };
    html! {
        <section class="panel kernels-panel" aria-labelledby="kernels-title">
            <div class="kernels-header">
                <h2 id="kernels-title" class="panel-title">{"Kernels"}</h2>
                <span class="muted kernels-count">{ count_line(table, undecoded, images) }</span>
                { decoding }
                <input type="search" class="kernel-filter" placeholder="Filter by name" aria-label="Filter kernels by name (demangled or mangled)"
                    value={(*filter).clone()} oninput={on_filter} />
            </div>
            <KernelHoles holes={holes.0.clone()} />
            <div class="table-scroll" onscroll={on_scroll}>
                <table class="kernels" aria-rowcount={(order.len() + 2).to_string()}>
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
                        <tr class="spacer" aria-hidden="true" ref={above_ref}></tr>
                        { for order.iter().skip(first).take(count).enumerate().map(|(i, &row_index)| {
                            let row = &table.rows[row_index];
                            let nodes: Vec<Option<NodeId>> = row.cells.iter().map(|c| c.as_ref().and_then(node_of)).collect();
                            let is_selected = props.selected.is_some() && nodes.contains(&props.selected);
                            let device_only = row.cells.iter().flatten().all(|c| !c.entry);
                            let first_node = nodes.iter().flatten().next().copied();
                            let marks = Metric::ALL.map(|m| largest(row, m));
                            let label = shown_name(row);
                            html! {
                                <tr key={row_index} class={classes!(is_selected.then_some("selected"))} data-kernel={row.name.clone()}
                                    aria-rowindex={(first + i + 3).to_string()}>
                                    <th scope="row">
                                        <button type="button" class="link kernel-name" onclick={select(first_node)} title={row.name.clone()}
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
                                        let target = &table.columns[column].target;
                                        if cell.is_none() && holes.1.contains(&(target.clone(), row.name.clone())) {
                                            let title = format!("missing on {target}: its library has it on other targets");
                                            let text = if m == 0 { "missing" } else { "" };
                                            return html! { <td class={classes!(class, "missing")} {title}>{ text }</td> };
                                        }
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
                        <tr class="spacer" aria-hidden="true" ref={below_ref}></tr>
                    </tbody>
                </table>
            </div>
            if order.is_empty() && !table.rows.is_empty() {
                <p class="muted">{"No kernel name, demangled or mangled, contains that text."}</p>
            }
        </section>
    }
}
