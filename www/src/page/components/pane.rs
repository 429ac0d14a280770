//! One place of a tab's layout ([`crate::page::panes`]): a view, or the centre column the
//! summary, kernels, layout map and hex view are stacked in. It takes its share of its row or
//! column (set through the CSSOM, which the Content-Security-Policy allows, where a style
//! attribute is refused); a view's pane has a button that maximises the view or restores the
//! layout (`m` does the same for the view holding the focus).

use crate::page::panes::Slot;
use crate::page::state::{Action, TabId};
use web_sys::HtmlElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PaneProps {
    pub tab: TabId,
    pub slot: Slot,
    /// Its share of the room (a flex grow factor).
    pub share: f64,
    /// Whether this view is the one maximised.
    #[prop_or_default]
    pub maximised: bool,
    pub on_action: Callback<Action>,
    #[prop_or_default]
    pub children: Html,
}

#[function_component]
pub fn Pane(props: &PaneProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with(props.share, move |share| {
            if let Some(el) = node.cast::<HtmlElement>() {
                let _ = el.style().set_property("flex-grow", &share.to_string());
            }
            panes_resized();
        });
    }
    let Slot::View(view) = props.slot else {
        return html! { <div class="pane-column center" ref={node}>{ props.children.clone() }</div> };
    };
    let (id, maximised) = (props.tab, props.maximised);
    let toggle = props.on_action.reform(move |_: MouseEvent| Action::ToggleMaximised { id, view });
    let (label, title) = if maximised {
        (format!("Restore the layout ({} maximised)", view.name()), "Restore the layout (m)".to_string())
    } else {
        (format!("Maximise {}", view.name()), format!("Maximise {} (m)", view.name()))
    };
    html! {
        <div class={classes!("pane", format!("pane-{}", view.slug()), maximised.then_some("maximised"))}
            id={format!("pane-{}", view.slug())} data-view={view.slug()} ref={node}>
            { props.children.clone() }
            <button type="button" class="pane-maximise" aria-label={label} aria-pressed={maximised.to_string()} {title} onclick={toggle}>
                <svg viewBox="0 0 12 12" aria-hidden="true" focusable="false">
                    if maximised {
                        <path d="M4 1v3H1M8 1v3h3M4 11V8H1M8 11V8h3" />
                    } else {
                        <path d="M1 4V1h3M8 1h3v3M11 8v3H8M4 11H1V8" />
                    }
                </svg>
            </button>
        </div>
    }
}

/// Tells the views that measure themselves (the hex view counts the rows it has room for) that
/// the panes' sizes changed: a window `resize` event, which they listen to. Sent once a pane has
/// its new share, and by the tab when views are shown or hidden.
pub fn panes_resized() {
    if let Ok(event) = web_sys::Event::new("resize") {
        let _ = gloo_utils::window().dispatch_event(&event);
    }
}
