//! The explorer's side of its editor worker ([`super::editor`]): an edit of the current file is
//! handed to the editor, started on the first edit and kept for the next; what the editor
//! reports goes to the page as it is, and the new version it made becomes the explorer's
//! current file (explored here again, for the reads, downloads and hash checks that follow).

use crate::wire::messages::{decode, encode, CompanionBytes, EditJob, FromNested, NestedReport, Report};
use crate::wire::settings::Settings;
use crate::worker::explore::keep_quietly;
use crate::worker::kept::{take_companions, Explored};
use crate::worker::nested::Nested;
use crate::worker::outbox::{self, report};
use offload::edit::Edit;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// The editor worker's script, written by Trunk next to the explorer's (`data-loader-shim`);
/// relative to the explorer's own script, so the site works from any sub-path.
const EDITOR_SCRIPT: &str = "editor_loader.js";

type Kept = Rc<RefCell<Option<Explored>>>;

struct Editor {
    worker: Nested,
    /// The name and limits of the edit under way: its new version is explored with them.
    running: Option<(String, Settings)>,
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
    let message = match encode(&job) {
        Ok(m) => m,
        Err(message) => return report(Report::EditFailed { message, payload: None }),
    };
    let sent = EDITOR.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(Editor { worker: spawn(kept.clone())?, running: None });
        }
        let editor = slot.as_mut().expect("just started");
        editor.running = Some((job.name.clone(), settings));
        editor.worker.post(message)
    });
    if let Err(message) = sent {
        report(Report::EditFailed { message: format!("the editor could not be started: {message}"), payload: None });
    }
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
    Nested::start(
        EDITOR_SCRIPT,
        move |message| heard(&kept, message),
        |why| {
            // The editor died: the next edit starts another.
            EDITOR.with(|slot| slot.borrow_mut().take());
            report(Report::EditFailed { message: format!("the editor stopped: {why}"), payload: None });
        },
    )
}

/// One message from the editor (an encoded `FromWorker`): `Ready`, or a report for the page.
fn heard(kept: &Kept, message: JsValue) {
    let edited = match decode::<FromNested>(message.clone()) {
        Ok(FromNested::Ready) => return editor_ready(),
        Ok(FromNested::Report(NestedReport::Edited(edited))) => Some(edited.file),
        _ => None,
    };
    // The page hears first; what it asks next waits until the new version is kept, since this
    // worker answers one message at a time.
    outbox::relay(&message);
    if let Some(file) = edited {
        let running = EDITOR.with(|slot| slot.borrow_mut().as_mut().and_then(|e| e.running.take()));
        if let Some((name, settings)) = running {
            let companions = take_companions(kept);
            keep_quietly(&name, file, companions, &settings, kept);
        }
    }
}

/// The editor's code is loaded: it gets the job that waited for it.
fn editor_ready() {
    EDITOR.with(|slot| {
        if let Some(editor) = slot.borrow_mut().as_mut() {
            editor.worker.now_ready();
        }
    });
}
