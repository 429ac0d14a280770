//! One open file: its progress while it is explored, then the seven linked views sharing the
//! window: the tree, the centre column (summary, kernels, layout map, hex view, code, stacked)
//! and the inspector side by side, with splitters between neighbours; views hidden with their toggles
//! give their room to the others, and one view can be maximised ([`crate::page::panes`]).

use super::pane::{panes_resized, Pane};
use super::splitter::Splitter;
use super::views::code_view::CodeView;
use super::views::compare_view::CompareView;
use super::views::hex_view::HexView;
use super::views::inspector::Inspector;
use super::views::kernels_view::KernelsView;
use super::views::layout_map::LayoutMap;
use super::views::loading::Loading;
use super::views::summary::Summary;
use super::views::tree_view::TreeView;
use crate::page::bytes::Bytes;
use crate::page::panes::Slot;
use crate::page::session::now_ms;
use crate::page::state::FileRequest;
use crate::page::state::{Action, Status, Tab, View};
use crate::wire::settings::Settings;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TabViewProps {
    pub tab: Tab,
    pub views: [bool; 7],
    /// The page's settings now (the tab has those it was explored with).
    pub settings: Settings,
    pub bytes: Bytes,
    pub on_action: Callback<Action>,
    pub on_file: Callback<FileRequest>,
    /// The other open tabs (id, file name), which this one can be compared with.
    #[prop_or_default]
    pub others: Vec<(crate::page::state::TabId, String)>,
}

#[function_component]
pub fn TabView(props: &TabViewProps) -> Html {
    let tab = &props.tab;
    // The first time the result is on the page: the drop-to-first-render time.
    {
        let (id, opened_at, on_action) = (tab.id, tab.opened_at, props.on_action.clone());
        let ready = tab.doc().is_some() && tab.first_render_ms.is_none();
        use_effect_with(ready, move |&ready| {
            if ready {
                let after_ms = now_ms() - opened_at;
                if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
                    let _ = p.mark(&format!("offload-first-render-{id}"));
                }
                on_action.emit(Action::FirstRender { id, after_ms });
            }
        });
    }
    // Views shown, hidden, maximised or restored: the others' sizes changed.
    use_effect_with((props.views, tab.panes.maximised), |_| panes_resized());
    let Status::Ready(doc) = &tab.status else {
        return html! {
            <div id="tab-panel" role="tabpanel" aria-labelledby={format!("tab-{}", tab.id)} class="tab-panel">
                <Loading tab={tab.clone()} on_file={props.on_file.clone()} />
            </div>
        };
    };
    let id = tab.id;
    let marked = tab.marked();
    let shows = |v: View| {
        props.views[v as usize] && (v != View::Kernels || !doc.kernels.rows.is_empty() || doc.undecoded_images > 0)
    };
    let on_action = props.on_action.clone();
    let view = |v: View| -> Html {
        match v {
            View::Tree => html! {
                <TreeView doc={doc.clone()} tab={tab.id} selected={tab.selected} expanded={tab.expanded.clone()}
                    groups={tab.groups.clone()} active_group={tab.active_group} on_action={on_action.clone()} marked={marked.clone()} />
            },
            View::Summary => html! {
                <Summary doc={doc.clone()} selected={tab.selected} first_render_ms={tab.first_render_ms}
                    settings={tab.settings} current_settings={props.settings}
                    on_reopen={props.on_file.reform(move |_: MouseEvent| FileRequest::Restart(id))} on_action={on_action.clone()}
                    tab={id} on_file={props.on_file.clone()} busy={tab.edit.is_running()}
                    others={props.others.clone()} current={tab.current} fit={tab.fit.clone()} />
            },
            View::Kernels => html! {
                <KernelsView doc={doc.clone()} selected={tab.selected} on_action={on_action.clone()}
                    tab={id} on_file={props.on_file.clone()} decoding={tab.decoded_kernels.clone()} />
            },
            View::Map => html! {
                <LayoutMap doc={doc.clone()} selected={tab.selected} on_action={on_action.clone()} marked={marked.clone()} />
            },
            View::Hex => html! {
                <HexView doc={doc.clone()} hex={tab.hex.clone()} selected={tab.selected} bytes={props.bytes.clone()} on_action={on_action.clone()} />
            },
            View::Code => html! {
                <CodeView doc={doc.clone()} selected={tab.selected} hex={tab.hex.clone()} bytes={props.bytes.clone()} on_action={on_action.clone()} />
            },
            View::Inspector => html! {
                <Inspector doc={doc.clone()} selected={tab.selected} on_action={on_action.clone()} bytes={Some(props.bytes.clone())}
                    tab={tab.id} marked={marked.clone()} edit={tab.edit.clone()} unpack={tab.unpack.clone()} on_file={Some(props.on_file.clone())} />
            },
        }
    };
    let panes = &tab.panes;
    let pane = |v: View| -> Html {
        html! {
            <Pane key={v.slug()} tab={id} slot={Slot::View(v)} share={panes.share(Slot::View(v))}
                maximised={panes.maximised == Some(v)} on_action={on_action.clone()}>
                { view(v) }
            </Pane>
        }
    };
    // Panes in a row or column with a splitter between each two neighbours, every one keyed, so
    // that showing or hiding a view keeps the others (their scroll positions, filters) as they are.
    let with_splitters = |slots: &[Slot], columns: bool, item: &dyn Fn(Slot) -> Html| -> Html {
        slots
            .iter()
            .enumerate()
            .flat_map(|(i, &slot)| {
                let splitter = (i > 0).then(|| {
                    let first = slots[i - 1];
                    html! {
                        <Splitter key={format!("split-{}-{}", first.slug(), slot.slug())} tab={id} {first} second={slot} {columns}
                            fraction={panes.fraction(first, slot)} on_action={on_action.clone()} />
                    }
                });
                splitter.into_iter().chain(std::iter::once(item(slot)))
            })
            .collect()
    };
    let panel = |body: Html| {
        html! {
            <div id="tab-panel" role="tabpanel" aria-labelledby={format!("tab-{}", tab.id)} class="tab-panel"
                data-version={tab.current.to_string()}>
                { body }
            </div>
        }
    };
    // One view maximised: it alone, in the whole tab.
    if let Some(v) = panes.maximised.filter(|&v| shows(v)) {
        return panel(html! { <div class="workspace maximised">{ pane(v) }</div> });
    }
    let centre: Vec<Slot> = [View::Summary, View::Kernels, View::Map, View::Hex, View::Code]
        .into_iter()
        .filter(|&v| shows(v))
        .map(Slot::View)
        .collect();
    let columns: Vec<Slot> = [
        shows(View::Tree).then_some(Slot::View(View::Tree)),
        (!centre.is_empty() || tab.compare.is_some()).then_some(Slot::Centre),
        shows(View::Inspector).then_some(Slot::View(View::Inspector)),
    ]
    .into_iter()
    .flatten()
    .collect();
    // The centre's slots are views.
    let stacked = |slot: Slot| match slot {
        Slot::View(v) => pane(v),
        Slot::Centre => Html::default(),
    };
    let column = |slot: Slot| match slot {
        Slot::View(v) => pane(v),
        Slot::Centre => html! {
            <Pane key="centre" tab={id} slot={Slot::Centre} share={panes.share(Slot::Centre)} on_action={on_action.clone()}>
                if let Some(comparison) = &tab.compare {
                    <CompareView tab={id} name={tab.name.clone()} comparison={comparison.clone()} on_action={on_action.clone()} />
                }
                { with_splitters(&centre, false, &stacked) }
            </Pane>
        },
    };
    panel(html! { <div class="workspace">{ with_splitters(&columns, true, &column) }</div> })
}
