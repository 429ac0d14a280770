//! A package explored on every core: the explorer lists it, splits its members into shares
//! ([`offload::explore::shares::plan`]: by stored size, largest first), and starts one share
//! worker per share — the same binary, started as the page starts the explorer, each holding
//! the file's `Blob` (no memory is shared, so the page needs no cross-origin isolation and stays
//! hostable on any static host). While they explore, the explorer is idle: it adds up their
//! progress for the page ("member N of M, X of Y MiB", the targets found so far) and, once every
//! share is in, puts them together into the tree one worker would have made
//! ([`offload::explore::shares::explore_merged`]) and sends the page its document.
//!
//! A share worker that fails or stops leaves the file to be explored here, alone, as before.

use crate::wire::messages::{decode, encode, FromShare, FromWorker, Loading, Report, Source, ToWorker};
use crate::wire::settings::Settings;
use crate::worker::explore::{document, explore_file_alone, explorer_options, HeardImages};
use crate::worker::kept::{owned_reads, Explored, SourceReader};
use crate::worker::nested::Nested;
use crate::worker::outbox::{post, report};
use crate::worker::remote;
use crate::worker::scratch::{self, Scratch};
use object::read::ReadCache;
use offload::explore::shares::{self, Plan, Share, ShareMember};
use offload::explore::{Hooks, Options, Progress, Spill, SPILL_OVER};
use offload::format::package::Compression;
use offload::report::runs_on;
use offload::report::targets::Target;
use offload::tree::Node;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{WorkerOptions, WorkerType};

type Kept = Rc<RefCell<Option<Explored>>>;

/// The share workers' loader: the explorer's own (`www/explorer.js`), next to this worker's
/// script; its first message is the compiled module, as from the page.
const SHARE_SCRIPT: &str = "explorer.js";
/// Most share workers, whatever the cores: each holds the largest member of its share.
const MAX_WORKERS: usize = 4;
/// How often the page hears of the shares' progress.
const REPORT_EVERY_MS: f64 = 250.0;

/// The package being explored on share workers.
struct Exploring {
    name: String,
    file: Source,
    settings: Settings,
    options: Options,
    plan: Plan,
    workers: Vec<Nested>,
    shares: Vec<Option<Share>>,
    progress: Vec<Progress>,
    found: Vec<(Target, Option<String>)>,
    /// Bytes each share worker fetched, for a remote file.
    fetched: Vec<u64>,
    started: f64,
    last_report: f64,
}

/// A dominant member's worker, started before the package is listed ([`shares::dominant`]).
struct Early {
    member: ShareMember,
    worker: Nested,
}

/// The rest of a start, waiting for its [`Early`] worker to be up: a nested worker starts only
/// while its parent's thread is free, so listing a wheel's 25,467 local headers at once would
/// hold it back for as long. `None` in `early` once that worker has failed.
struct Waiting {
    early: Option<Early>,
    then: Box<dyn FnOnce(Option<Early>)>,
}

/// How long a start waits for its early worker before it lists the package all the same.
const EARLY_WAIT_MS: u32 = 1000;

thread_local! {
    static EXPLORING: RefCell<Option<Exploring>> = const { RefCell::new(None) };
    static WAITING: RefCell<Option<Waiting>> = const { RefCell::new(None) };
}

/// Explores `file`, with the `companions` it refers to (name and bytes), within the limits of
/// `settings`, and sends the page its document, keeping in `kept` what later requests need: a
/// package on share workers, one per core, anything else here, alone (with a scratch file for
/// a package's large members).
pub(crate) fn explore_file(
    name: &str,
    file: Source,
    companions: Vec<(String, Vec<u8>)>,
    settings: &Settings,
    kept: &Kept,
) {
    let started = js_sys::Date::now();
    // A remote file's line of bytes fetched shows from the start: its first block may take
    // seconds on a slow link, and a synchronous request tells nothing until it is done.
    report(Report::Progress(Loading { fetched: remote_fetched(&file), ..Loading::at("reading and decompressing", 0) }));
    if companions.is_empty() && start(name, &file, settings, kept, started) {
        return;
    }
    explore_alone(name, file, companions, settings, kept);
}

/// Explores `file` on this worker alone and sends the page its document.
fn explore_alone(name: &str, file: Source, companions: Vec<(String, Vec<u8>)>, settings: &Settings, kept: &Kept) {
    if file.size() < SPILL_OVER {
        report(Report::Explored(explore_file_alone(name, file, companions, settings, kept, None)));
        return;
    }
    // Large enough to hold a member worth a scratch file.
    let (name, settings, kept) = (name.to_string(), *settings, kept.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let scratch = Scratch::open().await;
        let doc = explore_file_alone(&name, file, companions, &settings, &kept, scratch.as_ref());
        report(Report::Explored(doc));
        scratch::keep_for_later(scratch);
    });
}

/// How many share workers this machine gets: one per core the browser reports, at least two
/// (a browser may report one core to hide the machine's), at most [`MAX_WORKERS`].
fn worker_count() -> usize {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let cores = scope.navigator().hardware_concurrency() as usize;
    cores.clamp(2, MAX_WORKERS)
}

/// Starts exploring `file` on share workers when it is a package whose members can be shared
/// (see [`shares::plan`]); `false` when it must be explored alone. Any exploration under way on
/// share workers is stopped first.
///
/// A member that outweighs all the others together (TensorFlow's 402 MiB library) is what the
/// whole exploration waits for: its worker starts first, from the central directory alone, and
/// the package is listed once that worker is up.
pub(crate) fn start(name: &str, file: &Source, settings: &Settings, kept: &Kept, started: f64) -> bool {
    stop();
    let options = explorer_options(settings, file);
    let cache = ReadCache::new(SourceReader::new(file.clone()));
    let workers = worker_count();
    let early = shares::dominant(&cache, &options, workers).and_then(|member| {
        let worker = start_share(0, file, settings, vec![member.clone()], kept).ok()?;
        Some(Early { member, worker })
    });
    let Some(early) = early else {
        return start_planned(&cache, name, file, settings, kept, started, workers, None);
    };
    let (name, file, settings, kept) = (name.to_string(), file.clone(), *settings, kept.clone());
    // The cache goes along: it holds the central directory `dominant` read.
    let then = Box::new(move |early: Option<Early>| {
        if !start_planned(&cache, &name, &file, &settings, &kept, started, workers, early) {
            explore_alone(&name, file, Vec::new(), &settings, &kept);
        }
    });
    WAITING.with(|w| *w.borrow_mut() = Some(Waiting { early: Some(early), then }));
    gloo_timers::callback::Timeout::new(EARLY_WAIT_MS, go_on).forget();
    true
}

/// The start waiting for its early worker goes on, if it still waits.
fn go_on() {
    if let Some(waiting) = WAITING.with(|w| w.borrow_mut().take()) {
        (waiting.then)(waiting.early);
    }
}

/// Starts the share workers of `file`'s plan, `early` (if any) as the first when the plan's
/// first share is its member alone; `false` when the file is to be explored alone.
#[allow(clippy::too_many_arguments)]
fn start_planned(
    cache: &ReadCache<SourceReader>,
    name: &str,
    file: &Source,
    settings: &Settings,
    kept: &Kept,
    started: f64,
    workers: usize,
    early: Option<Early>,
) -> bool {
    let options = explorer_options(settings, file);
    let Some(mut plan) = shares::plan(cache, &options, workers) else {
        early.iter().for_each(|e| e.worker.terminate());
        return false;
    };
    let mut early = early.filter(|e| {
        // The local headers could still place it otherwise (or flag it): then it starts again.
        let same = plan.shares.first().is_some_and(|first| first.len() == 1 && first[0] == e.member);
        if !same {
            e.worker.terminate();
        }
        same
    });
    report(Report::Progress(Loading {
        stage: "reading and decompressing".into(),
        bytes_read: 0,
        members: Some(Progress { members_done: 0, members: plan.members, bytes_done: 0, bytes: plan.bytes }),
        found: None,
        fetched: remote_fetched(file),
    }));
    let mut workers = Vec::with_capacity(plan.shares.len());
    for (index, share) in std::mem::take(&mut plan.shares).into_iter().enumerate() {
        let started = match early.take() {
            Some(e) => Ok(e.worker),
            None => start_share(index, file, settings, share, kept),
        };
        match started {
            Ok(worker) => workers.push(worker),
            Err(why) => {
                // Those started are let go: the file is explored here, alone.
                web_sys::console::warn_1(
                    &format!("a share worker could not be started ({why}): exploring on one worker").into(),
                );
                workers.iter().for_each(Nested::terminate);
                return false;
            }
        }
    }
    let count = workers.len();
    let exploring = Exploring {
        name: name.to_string(),
        file: file.clone(),
        settings: *settings,
        options,
        plan,
        workers,
        shares: vec![None; count],
        progress: vec![Progress::default(); count],
        found: Vec::new(),
        fetched: vec![0; count],
        started,
        last_report: 0.0,
    };
    EXPLORING.with(|e| *e.borrow_mut() = Some(exploring));
    true
}

/// Stops the share workers of the exploration under way, if any.
pub(crate) fn stop() {
    if let Some(exploring) = EXPLORING.with(|e| e.borrow_mut().take()) {
        exploring.workers.iter().for_each(Nested::terminate);
    }
    if let Some(early) = WAITING.with(|w| w.borrow_mut().take()).and_then(|w| w.early) {
        early.worker.terminate();
    }
}

/// Starts share worker `index` on `share`.
fn start_share(
    index: usize,
    file: &Source,
    settings: &Settings,
    share: Vec<ShareMember>,
    kept: &Kept,
) -> Result<Nested, String> {
    let held = match file {
        Source::Remote(remote) => remote::held_for_share(remote, &share),
        _ => Vec::new(),
    };
    let job = ToWorker::ExploreShare { file: file.clone(), settings: *settings, share, held };
    start_worker(index, kept).and_then(|worker| encode(&job).and_then(|m| worker.post_held(&m)).map(|()| worker))
}

/// Starts share worker `index`, whose messages come back to [`heard`].
fn start_worker(index: usize, kept: &Kept) -> Result<Nested, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let (heard_kept, stopped_kept) = (kept.clone(), kept.clone());
    let mut worker = Nested::start_with(
        SHARE_SCRIPT,
        &options,
        move |message| heard(index, message, &heard_kept),
        move |why| failed(index, &why, &stopped_kept),
    )?;
    worker.post_first(&wasm_bindgen::module())?;
    Ok(worker)
}

/// A message of share worker `index`.
fn heard(index: usize, message: JsValue, kept: &Kept) {
    match decode::<FromWorker>(message) {
        Ok(FromWorker::Ready) => {
            with_exploring(|e| e.workers.get_mut(index).map(Nested::now_ready));
            // An early worker is up: the start that waits for it goes on.
            go_on();
        }
        Ok(FromWorker::Share(FromShare::Progress { progress, found })) => {
            with_exploring(|e| e.heard(index, progress, found));
        }
        Ok(FromWorker::Share(FromShare::Fetched(fetched))) => {
            with_exploring(|e| e.heard_fetched(index, fetched));
        }
        Ok(FromWorker::Share(FromShare::Explored(share))) => {
            let done = with_exploring(|e| {
                if let Some(slot) = e.shares.get_mut(index) {
                    *slot = Some(share);
                }
                // Its work is done: the memory it grew to (a wasm module's never shrinks) is
                // given back now rather than once the last share is in.
                if let Some(worker) = e.workers.get(index) {
                    worker.terminate();
                }
                e.shares.iter().all(Option::is_some)
            });
            if done == Some(true) {
                finish(kept);
            }
        }
        Ok(FromWorker::Report(Report::Failed { message })) => failed(index, &message, kept),
        // Reports of bytes read: the shares' own progress says more.
        Ok(_) => {}
        Err(e) => failed(index, &format!("unreadable message: {e}"), kept),
    }
}

/// `f` of the exploration under way, if there is one.
fn with_exploring<T>(f: impl FnOnce(&mut Exploring) -> T) -> Option<T> {
    EXPLORING.with(|e| e.borrow_mut().as_mut().map(f))
}

impl Exploring {
    /// Share worker `index` has got to `progress` and found `found` since it last said.
    fn heard(&mut self, index: usize, progress: Progress, found: Vec<(Target, Option<String>)>) {
        let first = self.found.is_empty() && !found.is_empty();
        if let Some(p) = self.progress.get_mut(index) {
            *p = progress;
        }
        self.found.extend(found);
        let now = js_sys::Date::now();
        if first || now - self.last_report >= REPORT_EVERY_MS {
            self.last_report = now;
            report(Report::Progress(self.loading()));
        }
    }

    /// Share worker `index` has fetched `fetched` bytes of the remote file.
    fn heard_fetched(&mut self, index: usize, fetched: u64) {
        if let Some(f) = self.fetched.get_mut(index) {
            *f = fetched;
        }
        let now = js_sys::Date::now();
        if now - self.last_report >= REPORT_EVERY_MS {
            self.last_report = now;
            report(Report::Progress(self.loading()));
        }
    }

    /// The shares' progress added up, over the whole package.
    fn loading(&self) -> Loading {
        let done = |f: fn(&Progress) -> u64| self.progress.iter().map(f).sum::<u64>();
        let members = Progress {
            members_done: done(|p| p.members_done as u64) as usize,
            members: self.plan.members,
            bytes_done: done(|p| p.bytes_done),
            bytes: self.plan.bytes,
        };
        Loading {
            stage: "reading and decompressing".into(),
            bytes_read: members.bytes_done,
            members: Some(members),
            found: Some(runs_on::summarize_found(&self.found)),
            fetched: remote_fetched(&self.file).map(|own| own + self.fetched.iter().sum::<u64>()),
        }
    }
}

/// For a remote file, the bytes this worker fetched of it.
fn remote_fetched(file: &Source) -> Option<u64> {
    matches!(file, Source::Remote(_)).then(remote::fetched)
}

/// The bytes fetched by every worker exploring the file: `own`, this worker's, and its share
/// workers' while they run.
pub(crate) fn fetched_total(own: u64) -> u64 {
    own + with_exploring(|e| e.fetched.iter().sum::<u64>()).unwrap_or(0)
}

/// Every share is in: the tree they make together becomes the kept file, and the page gets
/// its document.
fn finish(kept: &Kept) {
    let Some(exploring) = EXPLORING.with(|e| e.borrow_mut().take()) else { return };
    exploring.workers.iter().for_each(Nested::terminate);
    report(Report::Progress(Loading { stage: "putting the members together".into(), ..exploring.loading() }));
    let shares: Vec<Share> = exploring.shares.into_iter().flatten().collect();
    let cache = ReadCache::new(SourceReader::new(exploring.file.clone()));
    let read = owned_reads(&exploring.file);
    let hooks = Hooks { read_owned: Some(&read), ..Hooks::default() };
    let (name, options) = (&exploring.name, &exploring.options);
    let large =
        exploring.plan.listing.members.iter().any(|m| m.compression == Compression::Deflate && m.size >= SPILL_OVER);
    let tree = shares::explore_merged(&cache, name, options, &[], exploring.plan.listing, shares, hooks);
    let size = exploring.file.size();
    report(Report::Progress(Loading::at("preparing the views", size)));
    let doc = document(&tree, &exploring.options, &exploring.file, size, exploring.started);
    *kept.borrow_mut() =
        Some(Explored::new(tree, exploring.file, exploring.name, exploring.settings, exploring.options));
    report(Report::Explored(doc));
    if large {
        scratch::keep_for_later(None);
    }
}

/// Share worker `index` failed or stopped (`why`): the file is explored here, alone.
fn failed(index: usize, why: &str, kept: &Kept) {
    // An early worker that fails before the start waiting for it goes on is left out of it.
    let early_failed = WAITING.with(|w| w.borrow_mut().as_mut().and_then(|w| w.early.take()));
    if let Some(early) = early_failed {
        early.worker.terminate();
        go_on();
        return;
    }
    let Some(exploring) = EXPLORING.with(|e| e.borrow_mut().take()) else { return };
    exploring.workers.iter().for_each(Nested::terminate);
    web_sys::console::warn_1(&format!("share worker {index} stopped ({why}): exploring on one worker").into());
    let doc = explore_file_alone(&exploring.name, exploring.file, Vec::new(), &exploring.settings, kept, None);
    report(Report::Explored(doc));
}

/// In a share worker: explores the members `share` of `file` and tells the explorer that
/// started it how far it has got and, at the end, what it found.
///
/// Its large deflated members are inflated into a scratch file rather than memory, where the
/// browser gives the page one (see [`scratch`]).
pub(crate) fn explore_share(file: Source, settings: Settings, share: Vec<ShareMember>) {
    if !share.iter().any(scratch::wanted) {
        explore_share_with(file, &settings, &share, None);
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let scratch = Scratch::open().await;
        explore_share_with(file, &settings, &share, scratch.as_ref());
    });
}

/// [`explore_share`], with a scratch file for its large members if there is one.
fn explore_share_with(file: Source, settings: &Settings, share: &[ShareMember], scratch: Option<&Scratch>) {
    let options = explorer_options(settings, &file);
    let cache = ReadCache::new(SourceReader::new(file.clone()));
    let read = owned_reads(&file);
    let since = RefCell::new(FoundSince::default());
    let mut observer = |p: &Progress, member: &Node| since.borrow_mut().member(p, member);
    let mut found = |bundle: &Node| since.borrow_mut().bundle(bundle);
    let spill = Some(scratch::spill_hook(scratch));
    let spill = spill.as_ref().map(|s| s as Spill<'_>);
    let hooks = Hooks { observer: Some(&mut observer), read_owned: Some(&read), spill, found: Some(&mut found) };
    let found = shares::explore_share(&cache, &options, &[], share, hooks);
    post(&FromWorker::Share(FromShare::Explored(found)));
}

/// The targets a share worker found since it last reported, reported no more often than
/// [`REPORT_EVERY_MS`], but at once when the first are found and at the share's end. A member's
/// bundles are heard as they are described, before the member is done.
#[derive(Default)]
struct FoundSince {
    found: Vec<(Target, Option<String>)>,
    heard: HeardImages,
    progress: Progress,
    reported_any: bool,
    last_report: f64,
}

impl FoundSince {
    fn bundle(&mut self, bundle: &Node) {
        let images = self.heard.bundle(bundle);
        self.found.extend(images);
        self.report_if(false);
    }

    fn member(&mut self, progress: &Progress, member: &Node) {
        let images = self.heard.member(member);
        self.found.extend(images);
        self.progress = *progress;
        self.report_if(progress.members_done == progress.members);
    }

    fn report_if(&mut self, last: bool) {
        let now = js_sys::Date::now();
        let first = !self.reported_any && !self.found.is_empty();
        if first || last || now - self.last_report >= REPORT_EVERY_MS {
            self.last_report = now;
            self.reported_any |= !self.found.is_empty();
            let found = std::mem::take(&mut self.found);
            post(&FromWorker::Share(FromShare::Progress { progress: self.progress, found }));
        }
    }
}
