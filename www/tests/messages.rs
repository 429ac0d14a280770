//! The explorer worker reads only the start of its nested workers' messages (`FromNested`): they
//! post real `FromWorker` messages, and what the explorer reads of them must be what they
//! say — `Ready`, an edit's new `Blob`, the request an answer is for — and nothing else for
//! every other report. In the
//! browser only: the messages carry `Blob`s.
#![cfg(target_arch = "wasm32")]

use offload_www::wire::doc::explore_bytes;
use offload_www::wire::messages::{
    decode, encode, Answer, EditedFile, FromNested, FromWorker, Loading, NestedReport, Report,
};
use wasm_bindgen_test::wasm_bindgen_test as test;
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const HIP_O: &[u8] = include_bytes!("../../tests/fixtures/hip_elf_2arch.o");

fn blob_of(bytes: &[u8]) -> web_sys::Blob {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap()
}

fn heard(message: &FromWorker) -> Result<FromNested, String> {
    decode::<FromNested>(encode(message).unwrap())
}

#[test]
fn ready_is_read_as_ready() {
    assert!(matches!(heard(&FromWorker::Ready), Ok(FromNested::Ready)));
}

#[test]
fn an_edit_gives_its_new_file() {
    let edited = EditedFile {
        file: blob_of(&HIP_O[..1000]),
        doc: explore_bytes(HIP_O, "hip_elf_2arch.o"),
        mark: vec![0, 1],
        select: vec![0, 1, 2],
        notes: vec!["a note".into()],
    };
    match heard(&FromWorker::Report(Report::Edited(Box::new(edited)))) {
        Ok(FromNested::Report(NestedReport::Edited(version))) => assert_eq!(version.file.size(), 1000.0),
        other => panic!("expected the edited version, read {other:?}"),
    }
}

/// The reports before `Edited` read as their mirrors (so the indices line up); those after it
/// are not read at all.
#[test]
fn other_reports_read_as_their_mirrors_or_not_at_all() {
    let reports = [
        (Report::Progress(Loading::at("reading", 4)), Some("Progress")),
        (Report::Explored(explore_bytes(HIP_O, "hip_elf_2arch.o")), Some("Explored")),
        (Report::Failed { message: "no".into() }, Some("Failed")),
        (Report::EditProgress { stage: "writing".into() }, Some("EditProgress")),
        (Report::EditFailed { message: "refused".into(), payload: None }, None),
        (Report::Decompressing { done: 1, total: 2 }, None),
    ];
    for (report, mirror) in reports {
        let read = heard(&FromWorker::Report(report));
        match mirror {
            Some(name) => assert_eq!(format!("{read:?}"), format!("Ok(Report({name}))")),
            None => assert!(read.is_err(), "read {read:?}"),
        }
    }
}

#[test]
fn an_answer_gives_its_request() {
    let answers = [
        Answer::NotCompared("the editor stopped".into()),
        Answer::Bytes(vec![1, 2, 3]),
        Answer::Preparing { done: 1, total: 3 },
    ];
    for (request, answer) in (7..).zip(answers) {
        let read = heard(&FromWorker::Answer { request, answer });
        assert!(matches!(read, Ok(FromNested::Answer { request: r }) if r == request), "{request}: {read:?}");
    }
}
