//! The editor worker: a worker of its own that makes edits, so that the explorer worker, which
//! every opened file loads, carries no writer of the core (editing is about a fifth of the
//! core's code). The explorer starts it on the first edit of its file and hands it each edit as
//! an [`EditJob`]; this worker explores the file as the explorer did (the same limits, the same
//! companion files, the same bundle decompressed on demand), so the edit's paths name the same
//! nodes, then edits it exactly as `edit` says and reports to its parent, the explorer, which
//! passes the reports on to the page.

use crate::wire::messages::{decode, EditJob, FromWorker, Report};
use crate::worker::edit;
use crate::worker::kept::{as_companions, BlobReader, Explored};
use crate::worker::outbox;
use object::read::ReadCache;
use offload::explore::{explore_decompressing, explore_with_companions};
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
    let cache = ReadCache::new(BlobReader::new(job.file.clone()));
    let companions: Vec<(String, Vec<u8>)> = job.companions.iter().map(|c| (c.name.clone(), c.data.clone())).collect();
    let options = job.settings.options();
    let tree = match job.decompressed {
        Some(span) => explore_decompressing(&cache, &job.name, &options, span, &mut |_, _| {}),
        None => explore_with_companions(&cache, &job.name, &options, &as_companions(&companions)),
    };
    Explored {
        tree,
        file: job.file.clone(),
        name: job.name.clone(),
        settings: job.settings,
        companions,
        decompressed: job.decompressed,
    }
}
