//! Packages in the lean explorer worker.
//!
//! The explorer worker that every opened file loads is built without the package readers (the
//! core's `packages` feature: zip and wheels, tar, cpio, deb, rpm, gzip/zstd/xz streams; about
//! a tenth of its code). When the file it is given — by `Explore`, or by `Switch` in a worker
//! started after Cancel — is explored as a package ([`offload::explore::package_kind`]), it
//! starts the package explorer (`package_worker`: this same worker, built with the package
//! readers) as a nested worker, and from then on only relays: every message from the page goes
//! to the package explorer as it came, and everything the package explorer says goes to the
//! page, except that it is ready.

use crate::wire::messages::{decode, FromNested, Report, ToWorker};
use crate::worker::kept::BlobReader;
use crate::worker::nested::Nested;
use crate::worker::outbox::{self, report};
use std::cell::RefCell;
use wasm_bindgen::JsValue;
use web_sys::Blob;

/// The package explorer's script, written by Trunk next to this worker's own.
const PACKAGE_EXPLORER_SCRIPT: &str = "package_worker_loader.js";

/// How much of a file `package_kind` looks at.
const HEAD: u64 = 4096;

thread_local! {
    static PACKAGE_EXPLORER: RefCell<Option<Nested>> = const { RefCell::new(None) };
}

/// Whether `message` (decoded as `decoded`) goes to the package explorer: every message does
/// once one was started, and so does the one that gives this worker a package.
pub(crate) fn takes(message: &JsValue, decoded: &Result<ToWorker, String>) -> bool {
    let started = PACKAGE_EXPLORER.with(|slot| slot.borrow().is_some());
    if !started {
        let file = match decoded {
            Ok(ToWorker::Explore { file, .. } | ToWorker::Switch { file, .. }) => file,
            _ => return false,
        };
        if !is_package(file) {
            return false;
        }
        match Nested::start(PACKAGE_EXPLORER_SCRIPT, heard, stopped) {
            Ok(nested) => PACKAGE_EXPLORER.with(|slot| *slot.borrow_mut() = Some(nested)),
            Err(why) => {
                report(Report::Failed { message: format!("the package explorer could not be started: {why}") });
                return true;
            }
        }
    }
    let posted = PACKAGE_EXPLORER.with(|slot| slot.borrow_mut().as_mut().map(|nested| nested.post(message.clone())));
    if let Some(Err(why)) = posted {
        report(Report::Failed { message: format!("the package explorer did not take a message: {why}") });
    }
    true
}

/// Whether `file` is explored as a package, from its first bytes (read here, as exploring
/// would read them).
fn is_package(file: &Blob) -> bool {
    BlobReader::new(file.clone()).read_at(0, HEAD).is_ok_and(|head| offload::explore::package_kind(&head).is_some())
}

/// One message from the package explorer: its `Ready` is for this worker, the rest for the page.
fn heard(message: JsValue) {
    if let Ok(FromNested::Ready) = decode::<FromNested>(message.clone()) {
        PACKAGE_EXPLORER.with(|slot| {
            if let Some(nested) = slot.borrow_mut().as_mut() {
                nested.now_ready();
            }
        });
    } else {
        outbox::relay(&message);
    }
}

/// The package explorer stopped on an error (its page sees the file fail, as with this worker).
fn stopped(why: String) {
    report(Report::Failed { message: format!("the package explorer stopped: {why}") });
}
