//! "Size by target": what each target costs in the file ([`offload::report::sizes`]): its images'
//! bytes, its stored bytes as a bar and a share of the file — estimated, and marked `~`, where
//! its images sit in compressed containers. Ticking targets answers "what if I drop these?"
//! with the estimate, and one button makes that edit ([`Edit::DropTargets`]): the worker
//! removes every image of them, reads the result back, and the new version shows the exact size.
//! Below the table, the generic-target advisor ([`GenericAdvisor`]): code identical across
//! processors, and what one build would save.

use crate::page::components::views::generic_advisor::GenericAdvisor;
use crate::page::format::human_size;
use crate::page::state::{FileRequest, TabId};
use crate::wire::doc::Doc;
use offload::edit::Edit;
use offload::report::sizes::TargetSize;
use std::collections::BTreeSet;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TargetSizesProps {
    pub doc: Rc<Doc>,
    pub tab: TabId,
    pub on_file: Callback<FileRequest>,
    /// An edit is running: the button waits.
    #[prop_or_default]
    pub busy: bool,
}

/// `~` before an estimated number.
fn approx(t: &TargetSize) -> &'static str {
    if t.is_estimate() {
        "~"
    } else {
        ""
    }
}

/// The stored bytes the ticked targets take, and whether any of it is estimated.
pub fn saving(sizes: &[TargetSize], ticked: &BTreeSet<String>) -> (u64, bool) {
    let chosen = sizes.iter().filter(|t| ticked.contains(&t.target));
    chosen.fold((0, false), |(bytes, estimated), t| (bytes.saturating_add(t.stored()), estimated || t.is_estimate()))
}

#[function_component]
pub fn TargetSizes(props: &TargetSizesProps) -> Html {
    let ticked = use_state(BTreeSet::<String>::new);
    let sizes = &props.doc.sizes;
    if sizes.targets.is_empty() {
        return html! {};
    }
    let largest = sizes.targets.iter().map(TargetSize::stored).max().unwrap_or(0).max(1);
    let toggle = |target: String| {
        let ticked = ticked.clone();
        Callback::from(move |_: Event| {
            let mut next = (*ticked).clone();
            if !next.remove(&target) {
                next.insert(target.clone());
            }
            ticked.set(next);
        })
    };
    let (saved, estimated) = saving(&sizes.targets, &ticked);
    let drop = {
        let (ticked, on_file, tab) = (ticked.clone(), props.on_file.clone(), props.tab);
        Callback::from(move |_: MouseEvent| {
            let targets: Vec<String> = ticked.iter().cloned().collect();
            on_file.emit(FileRequest::Edit(tab, Edit::DropTargets { targets }));
            ticked.set(BTreeSet::new());
        })
    };
    let count = ticked.len();
    html! {
        <section class="target-sizes" aria-labelledby="sizes-title">
            <h3 id="sizes-title">{"Size by target"}</h3>
            <p class="muted">{ format!(
                "Device images take {} of this {} file{}.",
                human_size(sizes.device_stored()),
                human_size(sizes.file_size),
                if sizes.compressed_stored > 0 { "; shares of compressed containers (~) are split by image size, an estimate" } else { "" }
            ) }</p>
            <div class="table-scroll">
                <table class="sizes">
                    <thead>
                        <tr>
                            <th scope="col">{"Drop?"}</th>
                            <th scope="col">{"Target"}</th>
                            <th scope="col" class="num">{"Images"}</th>
                            <th scope="col" class="num">{"Stored"}</th>
                            <th scope="col" class="bar-cell">{"Share of the file"}</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for sizes.targets.iter().map(|t| {
                            let width = (t.stored() as f64 / largest as f64 * 100.0).clamp(0.0, 100.0);
                            let share = format!("{}{:.1}%", approx(t), t.share_of_file * 100.0);
                            html! {
                                <tr data-target={t.target.clone()}>
                                    <td>
                                        <input type="checkbox" checked={ticked.contains(&t.target)} onchange={toggle(t.target.clone())}
                                            aria-label={format!("Drop {}", t.target)} disabled={props.busy} />
                                    </td>
                                    <th scope="row"><code>{ &t.target }</code></th>
                                    <td class="num">{ t.images }</td>
                                    <td class="num" title={format!("{} bytes of images once decompressed", t.image_bytes)}>
                                        { format!("{}{}", approx(t), human_size(t.stored())) }
                                    </td>
                                    <td class="bar-cell">
                                        <svg class="size-bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img"
                                            aria-label={format!("{} of the file", share)}>
                                            <rect width={format!("{width:.2}")} height="10" />
                                        </svg>
                                        <span class="share">{ share }</span>
                                    </td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            if count > 0 {
                <div class="drop-row">
                    <span>{ format!(
                        "Without {}: {}{} smaller{}.",
                        ticked.iter().cloned().collect::<Vec<_>>().join(", "),
                        if estimated { "about " } else { "" },
                        human_size(saved),
                        if estimated { " (estimate; the edit gives the exact size)" } else { "" }
                    ) }</span>
                    <button type="button" class="drop-targets" onclick={drop} disabled={props.busy}>
                        { format!("Remove {count} target{} everywhere", if count == 1 { "" } else { "s" }) }
                    </button>
                </div>
            }
            <GenericAdvisor groups={props.doc.identical.clone()} undecoded={props.doc.undecoded_images} />
        </section>
    }
}
