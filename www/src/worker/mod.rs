//! The explorer worker: reads the file by slices, explores it with the core, sends the page the
//! flattened document, and then answers what the page asks of the file it keeps: bytes of
//! decompressed spaces (which only it holds), edits (made by the editor worker it starts),
//! hash checks, downloads. [`run`] and its dispatch are here, and nothing else: each request is
//! handled by a sibling module. The worker uses `wire` and the core, never `page`.
//!
//! See `docs/ARCHITECTURE.md` for the map.

pub mod code;
pub mod device_archive;
pub mod read_back;

#[cfg(target_arch = "wasm32")]
mod compare;
#[cfg(target_arch = "wasm32")]
pub mod disasm;
#[cfg(target_arch = "wasm32")]
mod edit;
#[cfg(target_arch = "wasm32")]
mod editing;
#[cfg(target_arch = "wasm32")]
pub mod editor;
#[cfg(target_arch = "wasm32")]
mod explore;
#[cfg(target_arch = "wasm32")]
mod kept;
#[cfg(target_arch = "wasm32")]
mod nested;
#[cfg(target_arch = "wasm32")]
mod outbox;
#[cfg(target_arch = "wasm32")]
mod prepare;
#[cfg(target_arch = "wasm32")]
mod remote;
#[cfg(target_arch = "wasm32")]
mod scratch;
#[cfg(target_arch = "wasm32")]
mod shares;

#[cfg(target_arch = "wasm32")]
use crate::wire::messages::{decode, Answer, FromShare, FromWorker, Job, Loading, Report, Source, ToWorker};
#[cfg(target_arch = "wasm32")]
use kept::Explored;
#[cfg(target_arch = "wasm32")]
use outbox::{answer, report};
#[cfg(target_arch = "wasm32")]
use std::cell::RefCell;
#[cfg(target_arch = "wasm32")]
use std::rc::Rc;

/// Entry point of the explorer (the page's binary, run in a worker): listens to the page, then
/// says it is ready.
#[cfg(target_arch = "wasm32")]
pub fn run() {
    let kept = Rc::new(RefCell::new(None::<Explored>));
    outbox::listen(move |event| dispatch(&kept, event.data()));
    outbox::post(&FromWorker::Ready);
}

/// Hands one message from the page to the module that answers it.
#[cfg(target_arch = "wasm32")]
fn dispatch(kept: &Rc<RefCell<Option<Explored>>>, message: wasm_bindgen::JsValue) {
    match decode::<ToWorker>(message) {
        Ok(ToWorker::Explore { name, file, companions, settings }) => {
            remote::set_on_fetch(|fetched| report(Report::Progress(Loading::fetched(shares::fetched_total(fetched)))));
            let explore =
                move |file: Source, kept: &Rc<RefCell<Option<Explored>>>| match explore::read_companions(&companions) {
                    Ok(companions) => shares::explore_file(&name, file, companions, &settings, kept),
                    Err(message) => report(Report::Failed { message }),
                };
            // A remote zip: its local headers fetched (in parallel) and its members' reads
            // planned, as the CLI does; a failure here is met again, and told, by the explorer.
            match file {
                Source::Remote(remote) => {
                    let kept = kept.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let _ = remote::prepare(&remote).await;
                        explore(Source::Remote(remote), &kept);
                    });
                }
                file => explore(file, kept),
            }
        }
        Ok(ToWorker::ExploreShare { file, settings, share, held }) => {
            remote::set_on_fetch(|fetched| outbox::post(&FromWorker::Share(FromShare::Fetched(fetched))));
            match file {
                Source::Remote(remote) => wasm_bindgen_futures::spawn_local(async move {
                    remote::plan_share(&remote, &share, held).await;
                    shares::explore_share(Source::Remote(remote), settings, share)
                }),
                file => shares::explore_share(file, settings, share),
            }
        }
        Ok(ToWorker::Read { request, space, offset, len }) => {
            let read = kept
                .borrow()
                .as_ref()
                .ok_or("the file has not been explored".to_string())
                .and_then(|k| k.read(space, offset, len));
            answer(request, read.map_or_else(Answer::ReadFailed, Answer::Bytes));
        }
        Ok(ToWorker::Fields { request, node }) => {
            answer(request, explore::node_fields(kept, node).map_or_else(Answer::FieldsFailed, Answer::Fields));
        }
        // Made by the editor worker, like edits (see `editing`).
        Ok(ToWorker::Prepare { request, job: Job::DeviceArchive { target } }) => {
            editing::device_archive(kept, request, target)
        }
        Ok(ToWorker::Prepare { request, job }) => prepare::run(request, job, kept),
        Ok(ToWorker::Compare { request, old, old_name, settings }) => {
            editing::compare(kept, request, old, old_name, settings)
        }
        Ok(ToWorker::Fit { request, gpu }) => {
            let result = match kept.borrow().as_ref() {
                Some(k) => offload::report::fit::fit(&k.tree, &gpu),
                None => Err("the file has not been explored yet".to_string()),
            };
            answer(request, result.map_or_else(Answer::NotFitted, |f| Answer::Fitted(Box::new(f))));
        }
        Ok(ToWorker::DecodeKernels { request }) => {
            let decoded = explore::decode_kernels(kept);
            answer(request, decoded.map_or_else(Answer::NotDecoded, |d| Answer::KernelsDecoded(Box::new(d))));
        }
        // Made by the editor worker, started on the first edit (see `editing`).
        Ok(ToWorker::Edit { edit, settings }) => editing::start(kept, edit, settings),
        Ok(ToWorker::Verify { node, settings }) => report(edit::verify(kept, node, &settings)),
        Ok(ToWorker::Decompress { node }) => report(explore::decompress(kept, &node)),
        Ok(ToWorker::Switch { name, file, companions, settings }) => {
            // The page keeps each version's document: this only makes the worker's current
            // file the version shown.
            let companions = match companions {
                Some(given) => explore::read_companions(&given),
                None => Ok(kept::take_companions(kept)),
            };
            match companions {
                Ok(companions) => {
                    explore::explore_file_alone(&name, file, companions, &settings, kept, None);
                }
                Err(message) => report(Report::Failed { message }),
            }
        }
        Err(e) => report(Report::Failed { message: format!("the worker got a message it does not understand: {e}") }),
    }
}
