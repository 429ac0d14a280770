//! The editor worker: a worker of its own that makes edits, so that the explorer worker, which
//! every opened file loads, carries no writer of the core (editing is about a fifth of the
//! core's code). For the same reason it also compares files and builds device archives. The
//! explorer starts it on first use and hands it each job as an [`EditorJob`]. For an edit,
//! this worker explores the file as the explorer did (the same limits, the same companion
//! files, the same bundle decompressed on demand), so the edit's paths name the same nodes,
//! then edits it exactly as `edit` says. It reports and answers to its parent, the explorer,
//! which passes it all on to the page.

use crate::wire::messages::{decode, Answer, EditJob, EditorJob, FromWorker, Report};
use crate::worker::compare::compare;
use crate::worker::edit;
use crate::worker::explore::{explore_to_keep, Exploring};
use crate::worker::kept::Explored;
use crate::worker::outbox;
use crate::worker::prepare::device_archive_download;
use std::cell::RefCell;

/// Entry point of the editor binary: listens to its explorer, then says it is ready.
pub fn run() {
    outbox::listen(|event| match decode::<EditorJob>(event.data()) {
        Ok(EditorJob::Edit(job)) => outbox::report(edit_job(job)),
        Ok(EditorJob::Compare { request, file, name, old, old_name, settings }) => {
            let result = compare(&file, &name, &old, &old_name, &settings);
            outbox::answer(request, result.map_or_else(Answer::NotCompared, |d| Answer::Compared(Box::new(d))));
        }
        Ok(EditorJob::DeviceArchive { request, file, target, settings }) => {
            let result = device_archive_download(&file, &target, &settings);
            outbox::answer(request, result.map_or_else(Answer::NotPrepared, Answer::Prepared));
        }
        Err(e) => outbox::report(Report::EditFailed {
            message: format!("the editor got a message it does not understand: {e}"),
            payload: None,
        }),
    });
    outbox::post(&FromWorker::Ready);
}

fn edit_job(job: EditJob) -> Report {
    let kept = RefCell::new(Some(explored_as_the_explorer_did(&job)));
    edit::edit(&kept, &job.edit, &job.settings)
}

fn explored_as_the_explorer_did(job: &EditJob) -> Explored {
    let companions = job.companions.iter().map(|c| (c.name.clone(), c.data.clone())).collect();
    let how = job.decompressed.map_or(Exploring::Plain, Exploring::Decompressing);
    explore_to_keep(&job.name, job.file.clone(), companions, &job.settings, job.settings.options(), how)
}
