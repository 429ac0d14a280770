//! The editor worker: a worker of its own that makes edits, so that the explorer worker, which
//! every opened file loads, carries no writer of the core (editing is about a fifth of the
//! core's code). The explorer starts it on the first edit of its file and hands it each edit as
//! an [`EditJob`]; this worker explores the file as the explorer did (the same limits, the same
//! companion files, the same bundle decompressed on demand), so the edit's paths name the same
//! nodes, then edits it exactly as `edit` says and reports to its parent, the explorer, which
//! passes the reports on to the page.

use crate::wire::messages::{decode, EditJob, FromWorker, Report};
use crate::worker::edit;
use crate::worker::explore::explore_to_keep;
use crate::worker::kept::Explored;
use crate::worker::outbox;
use std::cell::RefCell;

/// Entry point of the editor binary: listens to its explorer, then says it is ready.
pub fn run() {
    outbox::listen(|event| {
        let report = match decode::<EditJob>(event.data()) {
            Ok(job) => edit_job(job),
            Err(e) => Report::EditFailed {
                message: format!("the editor got a message it does not understand: {e}"),
                payload: None,
            },
        };
        outbox::report(report);
    });
    outbox::post(&FromWorker::Ready);
}

fn edit_job(job: EditJob) -> Report {
    let kept = RefCell::new(Some(explored_as_the_explorer_did(&job)));
    edit::edit(&kept, &job.edit, &job.settings)
}

fn explored_as_the_explorer_did(job: &EditJob) -> Explored {
    let companions = job.companions.iter().map(|c| (c.name.clone(), c.data.clone())).collect();
    explore_to_keep(&job.name, job.file.clone(), companions, &job.settings, job.decompressed).0
}
