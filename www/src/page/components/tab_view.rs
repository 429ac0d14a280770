//! One open file: its progress while it is explored, then the six linked views laid out on a
//! grid (views hidden with their toggles give their room to the others).

use super::views::compare_view::CompareView;
use super::views::hex_view::HexView;
use super::views::inspector::Inspector;
use super::views::kernels_view::KernelsView;
use super::views::layout_map::LayoutMap;
use super::views::loading::Loading;
use super::views::summary::Summary;
use super::views::tree_view::TreeView;
use crate::page::bytes::Bytes;
use crate::page::session::now_ms;
use crate::page::state::FileRequest;
use crate::page::state::{Action, Status, Tab, View};
use crate::wire::settings::Settings;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TabViewProps {
    pub tab: Tab,
    pub views: [bool; 6],
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
    let Status::Ready(doc) = &tab.status else {
        return html! {
            <div id="tab-panel" role="tabpanel" aria-labelledby={format!("tab-{}", tab.id)} class="tab-panel">
                <Loading tab={tab.clone()} on_file={props.on_file.clone()} />
            </div>
        };
    };
    let id = tab.id;
    let marked = tab.marked();
    let shows = |v: View| props.views[v as usize];
    let shows_kernels = shows(View::Kernels) && (!doc.kernels.rows.is_empty() || doc.undecoded_images > 0);
    let shows_center = shows(View::Summary) || shows_kernels || shows(View::Map) || shows(View::Hex);
    let grid_class = classes!(
        "workspace",
        (!shows(View::Tree)).then_some("no-tree"),
        (!shows(View::Inspector)).then_some("no-inspector"),
        (!shows_center).then_some("no-center"),
    );
    html! {
        <div id="tab-panel" role="tabpanel" aria-labelledby={format!("tab-{}", tab.id)} class="tab-panel"
            data-version={tab.current.to_string()}>
            <div class={grid_class}>
                if shows(View::Tree) {
                    <TreeView doc={doc.clone()} tab={tab.id} selected={tab.selected} expanded={tab.expanded.clone()} on_action={props.on_action.clone()} marked={marked.clone()} />
                }
                if shows_center {
                    <div class="center">
                        if let Some(comparison) = &tab.compare {
                            <CompareView tab={id} name={tab.name.clone()} comparison={comparison.clone()} on_action={props.on_action.clone()} />
                        }
                        if shows(View::Summary) {
                            <Summary doc={doc.clone()} selected={tab.selected} first_render_ms={tab.first_render_ms}
                                settings={tab.settings} current_settings={props.settings}
                                on_reopen={props.on_file.reform(move |_: MouseEvent| FileRequest::Restart(id))} on_action={props.on_action.clone()}
                                tab={id} on_file={props.on_file.clone()} busy={tab.edit.is_running()}
                                others={props.others.clone()} current={tab.current} fit={tab.fit.clone()} />
                        }
                        if shows_kernels {
                            <KernelsView doc={doc.clone()} selected={tab.selected} on_action={props.on_action.clone()}
                                tab={id} on_file={props.on_file.clone()} decoding={tab.decoded_kernels.clone()} />
                        }
                        if shows(View::Map) {
                            <LayoutMap doc={doc.clone()} selected={tab.selected} on_action={props.on_action.clone()} marked={marked.clone()} />
                        }
                        if shows(View::Hex) {
                            <HexView doc={doc.clone()} hex={tab.hex.clone()} selected={tab.selected} bytes={props.bytes.clone()} on_action={props.on_action.clone()} />
                        }
                    </div>
                }
                if shows(View::Inspector) {
                    <Inspector doc={doc.clone()} selected={tab.selected} on_action={props.on_action.clone()}
                        tab={tab.id} marked={marked.clone()} edit={tab.edit.clone()} unpack={tab.unpack.clone()} on_file={Some(props.on_file.clone())} />
                }
            </div>
        </div>
    }
}
