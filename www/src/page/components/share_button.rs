//! "Copy link" (`l`): a link to the page that carries the active tab's file, as the tab shows
//! it now, and its selected node (see `crate::share`). Nothing is uploaded: the file travels in
//! the link's fragment, which browsers never send to a server. A file that does not fit says
//! so; one fetched from a `#url=` link is shared by its address instead.

use crate::page::share::{self, LinkEncoder, TooBig};
use crate::page::state::TabId;
use crate::wire::messages::Source as FileSource;
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use offload::edit::NodePath;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, HtmlInputElement};
use yew::prelude::*;

pub const COPY_LINK_ID: &str = "copy-link";

/// The file is read and compressed by pieces of this size, so a large file shows its verdict
/// after a few pieces and the page stays responsive between them.
const CHUNK: f64 = 1024.0 * 1024.0;
/// How long "Link copied" stays.
const COPIED_SHOWN: Duration = Duration::from_secs(5);

/// What a link is made of: the tab's file now, its name, its selection, and where it was
/// fetched from if it was.
#[derive(Clone, PartialEq)]
pub struct ShareTarget {
    pub id: TabId,
    pub name: String,
    pub file: FileSource,
    pub selection: NodePath,
    pub address: Option<String>,
}

#[derive(Properties, PartialEq)]
pub struct ShareButtonProps {
    /// The active tab, if there is one.
    pub target: Option<ShareTarget>,
}

#[derive(Clone, PartialEq)]
enum Shown {
    Nothing,
    Working,
    /// A link was made; `copied` says whether it is on the clipboard, `note` why it is not
    /// the kind of link asked for.
    Link {
        link: String,
        copied: bool,
        note: Option<String>,
    },
    /// No link: why.
    Problem(String),
}

#[function_component]
pub fn ShareButton(props: &ShareButtonProps) -> Html {
    let shown = use_state(|| Shown::Nothing);
    // Each click counts: a late "hide" of an earlier link must not hide a newer one.
    let generation = use_mut_ref(|| 0u32);
    let field = use_node_ref();
    {
        // A link that could not be copied is selected in its field, ready for Ctrl+C.
        let field = field.clone();
        use_effect_with((*shown).clone(), move |shown| {
            if let (Shown::Link { copied: false, .. }, Some(input)) = (shown, field.cast::<HtmlInputElement>()) {
                let _ = input.focus();
                input.select();
            }
        });
    }
    let onclick = {
        let (shown, target, generation) = (shown.clone(), props.target.clone(), generation.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(target) = target.clone() else { return };
            let now = generation.borrow().wrapping_add(1);
            *generation.borrow_mut() = now;
            shown.set(Shown::Working);
            // The clipboard is asked for now, while the click counts as the user's: WebKit
            // refuses a write that comes once the link is made, which takes a while.
            let pending = PendingCopy::start();
            let (shown, generation) = (shown.clone(), generation.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let result = make_and_copy(&target, pending).await;
                if *generation.borrow() != now {
                    return;
                }
                let copied = matches!(result, Shown::Link { copied: true, note: None, .. });
                shown.set(result);
                if copied {
                    yew::platform::time::sleep(COPIED_SHOWN).await;
                    if *generation.borrow() == now {
                        shown.set(Shown::Nothing);
                    }
                }
            });
        })
    };
    let dismiss = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| shown.set(Shown::Nothing))
    };
    let name = props.target.as_ref().map(|t| t.name.clone()).unwrap_or_default();
    html! {
        <div class="share">
            <button type="button" id={COPY_LINK_ID} onclick={onclick} disabled={props.target.is_none()}
                title={if name.is_empty() { "Copy a link to the open file (l)".to_string() } else { format!("Copy a link to {name} and its selected node (l)") }}>
                {"Copy link"}
            </button>
            { status(&shown, field, dismiss) }
        </div>
    }
}

fn status(shown: &Shown, field: NodeRef, dismiss: Callback<MouseEvent>) -> Html {
    let close = html! { <button type="button" class="dismiss" onclick={dismiss} aria-label="Dismiss">{"×"}</button> };
    match shown {
        Shown::Nothing => html! { <span class="visually-hidden" role="status"></span> },
        Shown::Working => html! { <p class="share-status" role="status">{"Making the link…"}</p> },
        Shown::Link { link, copied: true, note } => html! {
            <div class="share-status" role="status" data-link-length={link.len().to_string()}>
                <p><strong>{"Link copied"}</strong>{ format!(" ({} characters).", link.len()) }</p>
                if let Some(note) = note { <p class="note">{ note.clone() }</p> }
                { if note.is_some() { close } else { html! {} } }
            </div>
        },
        Shown::Link { link, copied: false, note } => html! {
            <div class="share-status" role="status" data-link-length={link.len().to_string()}>
                if let Some(note) = note { <p class="note">{ note.clone() }</p> }
                <label for="share-link-text">{"The clipboard is not available here: copy this link"}</label>
                <input id="share-link-text" ref={field} type="text" readonly=true value={link.clone()} spellcheck="false" />
                { close }
            </div>
        },
        Shown::Problem(message) => html! {
            <div class="share-status problem" role="status">
                <p>{ message.clone() }</p>
                { close }
            </div>
        },
    }
}

/// Makes the tab's link and puts it on the clipboard: through the write asked for during the
/// click (`pending`), else (no such write, or it failed) with `writeText`.
async fn make_and_copy(target: &ShareTarget, pending: Option<PendingCopy>) -> Shown {
    let made = make_link(target).await;
    let Shown::Link { link, note, .. } = made else {
        // No link: the write asked for gets nothing, and the clipboard stays as it was.
        if let Some(p) = pending {
            p.cancel();
        }
        return made;
    };
    let copied = match pending {
        Some(p) => p.finish(&link).await,
        None => false,
    };
    let copied = copied || copy_to_clipboard(&link).await;
    Shown::Link { link, copied, note }
}

/// A clipboard write asked for during the click, its text to come: a `ClipboardItem` whose
/// content is a promise, resolved once the link is made.
struct PendingCopy {
    resolve: Function,
    reject: Function,
    written: JsFuture,
}

impl PendingCopy {
    /// Asks for the write; `None` where the browser has no `ClipboardItem` or
    /// `navigator.clipboard.write` (plain http from another machine, older browsers).
    fn start() -> Option<PendingCopy> {
        let window = web_sys::window()?;
        let clipboard = Reflect::get(&window.navigator(), &JsValue::from_str("clipboard"))
            .ok()
            .filter(|c| !c.is_undefined() && !c.is_null())?;
        let write: Function = Reflect::get(&clipboard, &JsValue::from_str("write")).ok()?.dyn_into().ok()?;
        let item_class: Function = Reflect::get(&window, &JsValue::from_str("ClipboardItem")).ok()?.dyn_into().ok()?;
        let mut handles = None;
        let text = Promise::new(&mut |resolve, reject| handles = Some((resolve, reject)));
        let (resolve, reject) = handles?;
        let record = Object::new();
        Reflect::set(&record, &JsValue::from_str("text/plain"), &text).ok()?;
        let item = Reflect::construct(&item_class, &Array::of1(&record)).ok()?;
        let written: Promise = write.call1(&clipboard, &Array::of1(&item)).ok()?.dyn_into().ok()?;
        Some(PendingCopy { resolve, reject, written: JsFuture::from(written) })
    }

    /// Hands the write its text; whether it reached the clipboard.
    async fn finish(self, text: &str) -> bool {
        let options = BlobPropertyBag::new();
        options.set_type("text/plain");
        match Blob::new_with_str_sequence_and_options(&Array::of1(&JsValue::from_str(text)), &options) {
            Ok(blob) => {
                let _ = self.resolve.call1(&JsValue::NULL, &blob);
            }
            Err(e) => {
                let _ = self.reject.call1(&JsValue::NULL, &e);
            }
        }
        self.written.await.is_ok()
    }

    /// There is nothing to copy: the write fails and leaves the clipboard as it was.
    fn cancel(self) {
        let _ = self.reject.call1(&JsValue::NULL, &JsValue::from_str("no link was made"));
    }
}

/// Makes the tab's link (`copied` is false: nothing is copied yet).
async fn make_link(target: &ShareTarget) -> Shown {
    let page = gloo_utils::document().base_uri().ok().flatten().unwrap_or_default();
    let blob = match (&target.file, &target.address) {
        (FileSource::Blob(blob), _) => blob,
        // A file read by ranges from another site: the link points at it, never carries it.
        (FileSource::Remote(_), Some(address)) => {
            return Shown::Link {
                link: share::link(&page, &share::remote_fragment(address, &target.selection)),
                copied: false,
                note: None,
            }
        }
        (FileSource::Remote(remote), None) => {
            let link = share::link(&page, &share::remote_fragment(&remote.url, &target.selection));
            return Shown::Link { link, copied: false, note: None };
        }
    };
    let (fragment, note) = match encode(blob).await {
        Ok(compressed) => (share::file_fragment(&target.name, &compressed, &target.selection), None),
        Err(Encoding::TooBig(too_big)) => match &target.address {
            Some(address) => (
                share::remote_fragment(address, &target.selection),
                Some(format!("{too_big} So the link points at the address it came from.")),
            ),
            None => return Shown::Problem(format!("{}: {too_big} Share the file itself instead.", target.name)),
        },
        Err(Encoding::Unreadable(message)) => {
            return Shown::Problem(format!("{} could not be read for a link: {message}", target.name))
        }
    };
    Shown::Link { link: share::link(&page, &fragment), copied: false, note }
}

enum Encoding {
    TooBig(TooBig),
    Unreadable(String),
}

/// Reads the file by slices into the link encoder, which stops as soon as it is over the
/// limit.
async fn encode(file: &Blob) -> Result<Vec<u8>, Encoding> {
    let size = file.size();
    let mut encoder = LinkEncoder::new(size as u64).map_err(Encoding::TooBig)?;
    let mut start = 0.0;
    while start < size {
        let end = (start + CHUNK).min(size);
        let chunk = read_slice(file, start, end).await.map_err(Encoding::Unreadable)?;
        encoder.push(&chunk).map_err(Encoding::TooBig)?;
        start = end;
    }
    encoder.finish().map_err(Encoding::TooBig)
}

async fn read_slice(file: &Blob, start: f64, end: f64) -> Result<Vec<u8>, String> {
    let slice = file.slice_with_f64_and_f64(start, end).map_err(|e| format!("{e:?}"))?;
    let buffer = JsFuture::from(slice.array_buffer()).await.map_err(|e| format!("{e:?}"))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Whether the text made it to the clipboard (not where there is no Clipboard API, outside
/// secure contexts, or when the browser refuses).
async fn copy_to_clipboard(text: &str) -> bool {
    let Some(window) = web_sys::window() else { return false };
    let navigator = window.navigator();
    let available =
        Reflect::get(&navigator, &JsValue::from_str("clipboard")).is_ok_and(|c| !c.is_undefined() && !c.is_null());
    available && JsFuture::from(navigator.clipboard().write_text(text)).await.is_ok()
}
