//! The register pressure of the function holding the Code view's selection: the line
//! `offload disasm --pressure` prints ("peak 212 VGPRs at 0x1f40, inside the loop at 0x1c00; 256
//! allocated; 2 waves per SIMD") and, under it, a strip of bars along the function — live
//! registers of one file, the peak marked, what the kernel allocates drawn across, the selected
//! instruction's place shown. The strip draws a bar per run of lines ([`strip_bars`]), never one
//! per instruction, so it costs the same for 50,000 instructions as for 50. A click on the line, the peak or a bar selects the
//! instruction there (and so its bytes in the hex view).

use super::virtual_rows::clicked;
use crate::page::code::{bar_of, strip_bars, Bar};
use crate::page::format::thousands;
use crate::wire::code::{CodeFlow, CodeListing, RegFile};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSelectElement};
use yew::prelude::*;

/// The most bars the strip draws.
const MOST_BARS: usize = 320;

#[derive(Properties, PartialEq)]
pub struct PressureStripProps {
    pub listing: Rc<CodeListing>,
    /// The function shown.
    pub flow: Rc<CodeFlow>,
    /// The selected line, marked on the strip when it is in the function.
    pub selected: Option<usize>,
    /// Selects a line (an index in the listing).
    pub on_select: Callback<usize>,
}

#[function_component]
pub fn PressureStrip(props: &PressureStripProps) -> Html {
    let file = use_state_eq(|| RegFile::Vgpr);
    let flow = &props.flow;
    let bars =
        use_memo((flow.clone(), *file), |(flow, file)| strip_bars(flow.counts(*file), flow.first as usize, MOST_BARS));
    let (peak_line, _) = flow.peak(RegFile::Vgpr);
    let on_summary = props.on_select.reform(move |_: MouseEvent| peak_line);
    let on_strip = {
        let (on_select, bars) = (props.on_select.clone(), bars.clone());
        Callback::from(move |e: MouseEvent| {
            if let Some(line) = clicked(&e, "data-line").or_else(|| line_under_pointer(&e, &bars)) {
                on_select.emit(line);
            }
        })
    };
    let choose = {
        let file = file.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(&f) = RegFile::ALL.iter().find(|f| f.name() == select.value()) {
                file.set(f);
            }
        })
    };
    html! {
        <div class="pressure" aria-label="Register pressure">
            <div class="pressure-head">
                <button type="button" class="link pressure-summary" data-line={peak_line.to_string()}
                    title="Select the instruction at the VGPR peak" onclick={on_summary}>{ &flow.summary }</button>
                <select class="pressure-file" aria-label="Registers drawn on the strip" onchange={choose}>
                    { for RegFile::ALL.iter().map(|f| html! { <option value={f.name()} selected={*f == *file}>{ f.name() }</option> }) }
                </select>
            </div>
            { strip(&props.listing, flow, *file, &bars, props.selected, on_strip) }
        </div>
    }
}

/// The line of the bar under the pointer, for a click beside the bars (over a short one): the
/// strip's width is divided evenly between its bars.
fn line_under_pointer(e: &MouseEvent, bars: &[Bar]) -> Option<usize> {
    let strip: Element = e.current_target()?.dyn_into().ok()?;
    let box_ = strip.get_bounding_client_rect();
    let x = (f64::from(e.client_x()) - box_.left()) / box_.width().max(1.0);
    let i = (x * bars.len() as f64).floor().max(0.0) as usize;
    bars.get(i.min(bars.len().saturating_sub(1))).map(|b| b.line)
}

/// The strip: a bar per run of lines, as tall as its highest count, on a scale up to the peak
/// or the allocation, whichever is higher; the allocation a line across; the peak's bar marked
/// over the whole height (drawn last, so a click on it is the peak's); the selected line's bar
/// outlined.
fn strip(
    listing: &CodeListing,
    flow: &CodeFlow,
    file: RegFile,
    bars: &[Bar],
    selected: Option<usize>,
    onclick: Callback<MouseEvent>,
) -> Html {
    let (peak_line, peak) = flow.peak(file);
    // The scale reaches the allocation, so the gap between the peak and it shows.
    let allocated = flow.allocated(file).filter(|&a| a > 0).map(|a| a.min(u32::from(u16::MAX)) as u16);
    let top = peak.max(allocated.unwrap_or(0)).max(1);
    let lines = (flow.end - flow.first) as usize;
    let peak_bar = bars.iter().position(|b| b.line == peak_line);
    let at = |line: usize| listing.lines.get(line).map_or(0, |l| l.address);
    let label = format!(
        "Live {} along {} ({} instructions): peak {peak} at {:#x}",
        file.name(),
        flow.name,
        thousands(lines as u64),
        at(peak_line)
    );
    let cursor = selected.filter(|&l| flow.holds(l)).map(|l| bar_of(l - flow.first as usize, lines, bars.len().max(1)));
    html! {
        <svg class={classes!("pressure-strip", format!("pressure-{}", file.name().to_lowercase()))} role="img" aria-label={label.clone()}
            viewBox={format!("0 0 {} {top}", bars.len().max(1))} preserveAspectRatio="none" data-peak-line={peak_line.to_string()}
            data-bars={bars.len().to_string()} {onclick}>
            <title>{ label }</title>
            { for bars.iter().enumerate().map(|(i, bar)| html! {
                <rect class="pressure-bar" x={i.to_string()} y={(top - bar.count.min(top)).to_string()} width="1"
                    height={bar.count.min(top).to_string()} data-line={bar.line.to_string()} />
            }) }
            if let Some(b) = peak_bar {
                <rect class="pressure-peak" x={b.to_string()} y="0" width="1" height={top.to_string()} data-line={peak_line.to_string()}>
                    <title>{ format!("peak {peak} {} at {:#x}", file.name(), at(peak_line)) }</title>
                </rect>
            }
            if let Some(a) = allocated {
                <line class="pressure-allocated" x1="0" x2={bars.len().max(1).to_string()} y1={(top - a).to_string()}
                    y2={(top - a).to_string()} data-allocated={a.to_string()}>
                    <title>{ format!("{a} {} allocated", file.name()) }</title>
                </line>
            }
            if let Some(b) = cursor {
                <rect class="pressure-cursor" x={b.to_string()} y="0" width="1" height={top.to_string()} />
            }
        </svg>
    }
}
