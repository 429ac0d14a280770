//! Kernel × target holes, above the Kernels view's table: for each library with kernels it has
//! on some of its targets and not on others, a line per target that lacks them ("52 kernels
//! missing on gfx1100 of 12 targets", as `offload kernels` and `offload list` count them),
//! which opens to the kernels themselves. The holes are the core's
//! ([`offload::report::check::holes`]), found on the table the view shows. Each line is a
//! [`KernelHole`], which lists its kernels only once opened.

use crate::page::components::views::kernel_hole::KernelHole;
use offload::report::check::holes::LibraryHoles;
use std::collections::BTreeSet;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct KernelHolesProps {
    /// Only the libraries that have holes.
    pub holes: Rc<Vec<LibraryHoles>>,
}

/// The (target, mangled kernel name) pairs missing in some library: the table marks those cells.
pub fn missing_cells(holes: &[LibraryHoles]) -> BTreeSet<(String, String)> {
    let per_target = holes.iter().flat_map(|h| h.missing.iter());
    per_target.flat_map(|m| m.kernels.iter().map(|k| (m.target.clone(), k.name.clone()))).collect()
}

/// The line a target's holes show: "libx.so: 52 kernels missing on gfx1100 of 12 targets".
pub fn hole_lines(holes: &[LibraryHoles]) -> Vec<String> {
    holes.iter().flat_map(|h| h.lines().into_iter().map(move |line| format!("{}: {line}", h.library))).collect()
}

#[function_component]
pub fn KernelHoles(props: &KernelHolesProps) -> Html {
    if props.holes.is_empty() {
        return html! {};
    }
    let lines = hole_lines(&props.holes);
    let places = props.holes.iter().enumerate().flat_map(|(l, h)| (0..h.missing.len()).map(move |t| (l, t)));
    html! {
        <div class="kernel-holes" role="group" aria-label="Kernels missing on some targets of their library">
            { for lines.into_iter().zip(places).map(|(line, (library, target))| html! {
                <KernelHole {line} holes={props.holes.clone()} {library} {target} />
            }) }
        </div>
    }
}
