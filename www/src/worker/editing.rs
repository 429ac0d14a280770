//! The explorer's side of its editor worker ([`super::editor`]), started on first use and kept
//! for the next job: an edit of the current file, a comparison, a device archive to download.
//! What the editor reports and answers goes to the page as it is; the new version an edit made
//! becomes the explorer's current file (explored here again, for the reads, downloads and hash
//! checks that follow).

use crate::wire::download::Refusal;
use crate::wire::messages::Source;
use crate::wire::messages::{
    decode, encode, Answer, CompanionBytes, EditJob, EditorJob, FromNested, NestedReport, Report,
};
use crate::wire::settings::Settings;
use crate::worker::explore::keep_quietly;
use crate::worker::kept::{take_companions, Explored};
use crate::worker::nested::Nested;
use crate::worker::outbox::{self, answer, report};
use offload::edit::Edit;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// The editor worker's loader (`www/editor_worker.js`, copied next to the explorer's script);
/// relative to the explorer's own script, so the site works from any sub-path.
const EDITOR_SCRIPT: &str = "editor_worker.js";

type Kept = Rc<RefCell<Option<Explored>>>;

struct Editor {
    worker: Nested,
    /// The name and limits of the edit under way: its new version is explored with them.
    running: Option<(String, Settings)>,
    /// The page's requests the editor has not answered yet, answered here if it stops.
    pending: Vec<(u32, Asked)>,
}

/// What a pending request asked for: how to say that it failed.
#[derive(Clone, Copy)]
enum Asked {
    Compare,
    DeviceArchive,
}

thread_local! {
    static EDITOR: RefCell<Option<Editor>> = const { RefCell::new(None) };
}

/// Hands `edit` of the current file to the editor; its reports reach the page as they come.
pub(crate) fn start(kept: &Kept, edit: Edit, settings: Settings) {
    let job = match job(kept, edit, settings) {
        Ok(job) => job,
        Err(message) => return report(Report::EditFailed { message, payload: None }),
    };
    let running = Some((job.name.clone(), settings));
    if let Err(message) = hand(kept, &EditorJob::Edit(job), |editor| editor.running = running) {
        report(Report::EditFailed { message, payload: None });
    }
}

/// Has the editor compare `old` with the current file, as the page's request `request` asks.
pub(crate) fn compare(kept: &Kept, request: u32, old: Source, old_name: String, settings: Settings) {
    let job = current(kept).map(|(file, name, _)| EditorJob::Compare { request, file, name, old, old_name, settings });
    hand_request(kept, request, Asked::Compare, job);
}

/// Has the editor build the device archive of `target` from the current file (an archive).
pub(crate) fn device_archive(kept: &Kept, request: u32, target: String) {
    let job = current(kept).map(|(file, _, settings)| EditorJob::DeviceArchive { request, file, target, settings });
    hand_request(kept, request, Asked::DeviceArchive, job);
}

/// Hands the editor `job`, made for the page's request `request`, and keeps the request until
/// the editor answers it; a job that could not be made or handed is answered as failed here.
fn hand_request(kept: &Kept, request: u32, asked: Asked, job: Result<EditorJob, String>) {
    let handed = job.and_then(|job| hand(kept, &job, |editor| editor.pending.push((request, asked))));
    if let Err(message) = handed {
        answer(request, failed(asked, message));
    }
}

/// The current file, its name and the limits it was explored with.
fn current(kept: &Kept) -> Result<(Source, String, Settings), String> {
    let kept = kept.borrow();
    let k = kept.as_ref().ok_or("the file has not been explored yet")?;
    Ok((k.file.clone(), k.name.clone(), k.settings))
}

/// The answer to a request of the kind `asked` that failed for `message`.
fn failed(asked: Asked, message: String) -> Answer {
    match asked {
        Asked::Compare => Answer::NotCompared(message),
        Asked::DeviceArchive => Answer::NotPrepared(Refusal::from(message)),
    }
}

/// Posts `job` to the editor (started now if need be), after `note` has recorded it.
fn hand(kept: &Kept, job: &EditorJob, note: impl FnOnce(&mut Editor)) -> Result<(), String> {
    let message = encode(job)?;
    EDITOR.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            let worker = spawn(kept.clone()).map_err(|e| format!("the editor could not be started: {e}"))?;
            *slot = Some(Editor { worker, running: None, pending: Vec::new() });
        }
        let editor = slot.as_mut().expect("just started");
        note(editor);
        editor.worker.post(message)
    })
}

/// The editor's job: the current file with what it was explored with, and the edit.
fn job(kept: &Kept, edit: Edit, settings: Settings) -> Result<EditJob, String> {
    let kept = kept.borrow();
    let k = kept.as_ref().ok_or("the file has not been explored yet")?;
    let companions = k.companions.iter().map(|(name, data)| CompanionBytes { name: name.clone(), data: data.clone() });
    // With other limits than the page's tree was made with, the editor explores anew (and so
    // would the explorer), so no bundle is taken as decompressed on demand.
    let decompressed = if k.settings == settings { k.decompressed } else { None };
    Ok(EditJob {
        name: k.name.clone(),
        file: k.file.clone(),
        companions: companions.collect(),
        settings,
        decompressed,
        edit,
    })
}

fn spawn(kept: Kept) -> Result<Nested, String> {
    Nested::start(EDITOR_SCRIPT, move |message| heard(&kept, message), stopped)
}

/// The editor died: what it was doing fails, and the next job starts another.
fn stopped(why: String) {
    let Some(editor) = EDITOR.with(|slot| slot.borrow_mut().take()) else { return };
    let message = format!("the editor stopped: {why}");
    if editor.running.is_some() || editor.pending.is_empty() {
        report(Report::EditFailed { message: message.clone(), payload: None });
    }
    for (request, asked) in editor.pending {
        answer(request, failed(asked, message.clone()));
    }
}

/// One message from the editor (an encoded `FromWorker`): `Ready`, or a report or an answer
/// for the page.
fn heard(kept: &Kept, message: JsValue) {
    let edited = match decode::<FromNested>(message.clone()) {
        Ok(FromNested::Ready) => return editor_ready(),
        Ok(FromNested::Report(NestedReport::Edited(edited))) => Some(edited.file),
        Ok(FromNested::Answer { request }) => {
            answered(request);
            None
        }
        _ => None,
    };
    // The page hears first; what it asks next waits until the new version is kept, since this
    // worker answers one message at a time.
    outbox::relay(&message);
    if let Some(file) = edited {
        let running = EDITOR.with(|slot| slot.borrow_mut().as_mut().and_then(|e| e.running.take()));
        if let Some((name, settings)) = running {
            let companions = take_companions(kept);
            keep_quietly(&name, Source::Blob(file), companions, &settings, kept);
        }
    }
}

/// The page's request `request` got its answer from the editor (the last one: a download's
/// progress comes as answers too, but compares and device archives send none).
fn answered(request: u32) {
    EDITOR.with(|slot| {
        if let Some(editor) = slot.borrow_mut().as_mut() {
            editor.pending.retain(|&(r, _)| r != request);
        }
    });
}

/// The editor's code is loaded: it gets the job that waited for it.
fn editor_ready() {
    EDITOR.with(|slot| {
        if let Some(editor) = slot.borrow_mut().as_mut() {
            editor.worker.now_ready();
        }
    });
}
