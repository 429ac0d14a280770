//! The Code view: the code of the device image the selection is in (or of the kernel selected,
//! scrolled to). An AMDGPU code object is disassembled, PTX shown as its text by function, and
//! a cubin said to be beyond reach (SASS has no public encoding; its resources are in the
//! Kernels view). The image's bytes are read like the hex view reads them and handed to the
//! disassembler worker, which the first listing starts (`page::disasm_client`); answers are kept
//! for the images already seen. A function's control flow and pressure are asked of the worker
//! when the listing first shows the function, and kept while the view is.

use super::code_listing::CodeListingView;
use super::ptx_view::PtxView;
use crate::page::bytes::{ByteSource, Bytes};
use crate::page::code::{rows, subject, CodeFormat, FlowState, Flows, Row};
use crate::page::disasm_client;
use crate::page::format::human_size;
use crate::page::state::{Action, HexState, View};
use crate::wire::code::{CodeListing, PtxText};
use crate::wire::doc::{Doc, NodeId};
use offload::tree::Span;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CodeViewProps {
    pub doc: Rc<Doc>,
    pub selected: Option<NodeId>,
    pub hex: HexState,
    pub bytes: Bytes,
    pub on_action: Callback<Action>,
}

/// What the worker made of an image.
#[derive(PartialEq)]
enum Content {
    Listing(Rc<CodeListing>, Rc<Vec<Row>>),
    Ptx(Rc<PtxText>),
}

/// An image's code as last asked for: which bytes, and the answer once there.
#[derive(PartialEq)]
struct Shown {
    source: Bytes,
    span: Span,
    answer: Option<Result<Rc<Content>, String>>,
}

/// The code last shown, for the view drawn anew: maximising or restoring it moves it to another
/// place in the page, where Yew makes it again, and the worker would otherwise make the same
/// listing again (the Code view opens maximised, so the first restore is common). Its file is
/// held weakly: a closed tab's file and worker go.
struct LastShown {
    source: Weak<dyn ByteSource>,
    span: Span,
    answer: Result<Rc<Content>, String>,
}

impl LastShown {
    fn of(shown: &Shown) -> Option<LastShown> {
        let answer = shown.answer.clone()?;
        Some(LastShown { source: Rc::downgrade(&shown.source.0), span: shown.span, answer })
    }

    /// What the view showed, while its file is open.
    fn shown(&self) -> Option<Rc<Shown>> {
        let source = Bytes(self.source.upgrade()?);
        Some(Rc::new(Shown { source, span: self.span, answer: Some(self.answer.clone()) }))
    }
}

thread_local! {
    static LAST_SHOWN: RefCell<Option<LastShown>> = const { RefCell::new(None) };
}

#[function_component]
pub fn CodeView(props: &CodeViewProps) -> Html {
    let doc = &props.doc;
    let subject = subject(doc, props.selected);
    let shown = use_state(|| LAST_SHOWN.with_borrow(|last| last.as_ref().and_then(LastShown::shown)));
    let wanted =
        subject.as_ref().filter(|s| s.format != CodeFormat::Cubin).map(|s| (doc.nodes[s.image].span, s.format));
    {
        let shown = shown.clone();
        use_effect_with((wanted, props.bytes.clone()), move |(wanted, bytes)| {
            let Some((span, format)) = *wanted else { return };
            if shown.as_ref().is_some_and(|s| s.span == span && s.source == *bytes) {
                return;
            }
            shown.set(Some(Rc::new(Shown { source: bytes.clone(), span, answer: None })));
            let bytes = bytes.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let answer = load(&bytes, span, format).await.map(Rc::new);
                let answered = Rc::new(Shown { source: bytes, span, answer: Some(answer) });
                LAST_SHOWN.with_borrow_mut(|last| *last = LastShown::of(&answered));
                shown.set(Some(answered));
            });
        });
    }
    let flows = use_mut_ref(Flows::new);
    let redraw = use_force_update();
    let want_flow = {
        let (flows, redraw) = (flows.clone(), redraw.clone());
        Callback::from(move |(listing, function): (u32, usize)| ask_flow(&flows, &redraw, listing, function))
    };
    let flows_now = Rc::new(flows.borrow().clone());
    let body = match &subject {
        None => html! {
            <p class="empty">{"Select an AMDGPU code object, a PTX image or one of their kernels (in the tree, the summary's targets or the Kernels view) to see its code."}</p>
        },
        Some(s) if s.format == CodeFormat::Cubin => cubin_note(&props.on_action),
        Some(s) => {
            let span = doc.nodes[s.image].span;
            match shown
                .as_ref()
                .filter(|sh| sh.span == span && sh.source == props.bytes)
                .and_then(|sh| sh.answer.as_ref())
            {
                None => {
                    html! { <p class="code-status" role="status">{ format!("Disassembling {} of code…", human_size(span.size)) }</p> }
                }
                Some(Err(e)) => {
                    html! { <p class="note error" role="alert">{ format!("This image's code could not be shown: {e}") }</p> }
                }
                Some(Ok(content)) => match &**content {
                    Content::Listing(listing, rows) => {
                        let keep = props.selected.filter(|&n| doc.is_within(n, s.image));
                        html! {
                            <CodeListingView key={format!("{}-{}", span.space, span.offset)} listing={listing.clone()} rows={rows.clone()} image={s.image} {span}
                                selected={keep} kernel={s.kernel.clone()} hex={props.hex.clone()} on_action={props.on_action.clone()}
                                flows={flows_now.clone()} on_want_flow={want_flow.clone()} />
                        }
                    }
                    Content::Ptx(ptx) => html! {
                        <PtxView key={format!("{}-{}", span.space, span.offset)} ptx={ptx.clone()} kernel={s.kernel.clone()} />
                    },
                },
            }
        }
    };
    let title = subject.as_ref().map(|s| doc.nodes[s.image].label.clone());
    html! {
        <section class="panel code-panel" aria-labelledby="code-title">
            <div class="code-title-line">
                <h2 id="code-title" class="panel-title">{"Code"}</h2>
                if let Some(t) = title { <span class="code-image">{ t }</span> }
            </div>
            { body }
        </section>
    }
}

/// Asks the worker for the flow of `function` of listing `listing`, unless it was asked already;
/// the flows of other listings are dropped.
fn ask_flow(flows: &Rc<RefCell<Flows>>, redraw: &UseForceUpdateHandle, listing: u32, function: usize) {
    {
        let mut held = flows.borrow_mut();
        if held.contains_key(&(listing, function)) {
            return;
        }
        held.retain(|&(id, _), _| id == listing);
        held.insert((listing, function), FlowState::Pending);
    }
    redraw.force_update();
    let (flows, redraw) = (flows.clone(), redraw.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let state = match disasm_client::code_flow(listing, function as u32).await {
            Ok(flow) => FlowState::Ready(Rc::new(flow)),
            Err(e) => FlowState::Failed(e),
        };
        flows.borrow_mut().insert((listing, function), state);
        redraw.force_update();
    });
}

/// Reads the image's bytes and has the worker list them.
async fn load(bytes: &Bytes, span: Span, format: CodeFormat) -> Result<Content, String> {
    let len = u32::try_from(span.size)
        .map_err(|_| format!("an image of {} is too large to list here", human_size(span.size)))?;
    let data = bytes.0.read(span.space, span.offset, len).await?;
    match format {
        CodeFormat::Ptx => Ok(Content::Ptx(Rc::new(disasm_client::ptx_text(data).await?))),
        _ => {
            let listing = disasm_client::code_listing(data, span.offset).await?;
            let rows = rows(&listing);
            Ok(Content::Listing(Rc::new(listing), Rc::new(rows)))
        }
    }
}

fn cubin_note(on_action: &Callback<Action>) -> Html {
    let onclick = on_action.reform(|_: MouseEvent| Action::ShowView(View::Kernels));
    html! {
        <div class="code-cubin note">
            <p>{"This is a CUDA cubin: its machine code (SASS) has no public encoding, so the page does not disassemble it."}</p>
            <p>{"What it needs of the GPU — registers, shared memory, stack per kernel — is in the "}
                <button type="button" class="link" {onclick}>{"Kernels view"}</button>
                {", and each kernel's node in the inspector."}</p>
        </div>
    }
}
