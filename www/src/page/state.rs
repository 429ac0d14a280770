//! The page's state and the one reducer that changes it. Plain data and a pure function: the
//! open files (tabs) and what is selected in each, every version of each file, which views are
//! shown, the settings files are explored with, which dialog is open. File handles and workers
//! live beside it (`crate::page::session`), so that every change the user can make is an
//! [`Action`] that tests can replay without a browser.
//!
//! What components ask of the page beyond state changes is said here too ([`FileRequest`],
//! [`DownloadRequest`]), so that components import the state and never the app that answers.

use crate::page::code::{subject, CodeFormat};
pub use crate::page::panes::View;
use crate::page::panes::{Panes, Slot};
use crate::page::remote::RemoteState;
use crate::page::tree_rows::{self, DeviceCode, Groups, Row, RowKey};
use crate::wire::doc::{DecodedKernels, Doc, NodeId};
use crate::wire::download::Refusal;
use crate::wire::edit::Verified;
use crate::wire::loading::Loading;
use crate::wire::settings::Settings;
use offload::edit::{Edit, NodePath};
use offload::explore::Progress;
use offload::report::diff::Diff;
use offload::report::fit::Fit;
use offload::tree::{Span, Value};
use offload::util::sort;
use std::rc::Rc;

pub type TabId = u32;

/// What components ask the page to do with files, beyond plain state changes: the session,
/// which holds the files and their workers, does it and tells the reducer.
#[derive(Clone, Debug, PartialEq)]
pub enum FileRequest {
    PickFile,
    /// "Open URL…": ask for an address to open a file from.
    OpenAddress,
    OpenSample(&'static str),
    Cancel(TabId),
    Restart(TabId),
    Close(TabId),
    /// Edits of the file: a change, a hash check, undo and redo.
    Edit(TabId, Edit),
    Verify(TabId, NodePath),
    /// Decompress the compressed bundle at (or above) this node, listed from its header only.
    Decompress(TabId, NodePath),
    /// Stop the edit, hash check or decompression under way; the file stays as it was.
    CancelWork(TabId),
    Undo(TabId),
    Redo(TabId),
    /// Save the payload of the tab's last edit that did not fit.
    DownloadPayload(TabId),
    /// Compare the tab's file (the version shown) with another file or version.
    Compare(TabId, CompareWith),
    /// Will the tab's file run on this GPU: every library, container and kernel.
    Fit(TabId, String),
    /// Decode every image of the tab's file for the Kernels view (a listing left some out).
    DecodeKernels(TabId),
}

/// The kernels of every image of a tab's file, decoded on request, and how far that has got.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelsDecoding {
    /// Under way: the members done so far, once the worker has said.
    Running(Option<Progress>),
    Done(Rc<DecodedKernels>),
    Failed(String),
}

/// The answer to "will it run on …" for a tab's file, and how far it got.
#[derive(Clone, Debug, PartialEq)]
pub enum FitOutcome {
    Running(String),
    Done(Rc<Fit>),
    Failed(String),
}

/// What a tab's file is compared with: the older side of the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareWith {
    /// The file of another tab (the version it shows).
    Tab(TabId),
    /// Another version of the same file (0: as opened).
    Version(usize),
}

/// A comparison of the tab's file with another, and how far it got.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// What the file is compared with, as the page names it.
    pub against: String,
    pub outcome: CompareOutcome,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CompareOutcome {
    Running,
    Done(Rc<Diff>),
    Failed(String),
}

/// What the user asks to download, always from the active tab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadRequest {
    /// The selected node's bytes (the `d` key).
    Selected,
    Node(NodeId),
    /// The whole current file.
    File,
    /// One tar of every device image.
    AllImages,
    /// The device-specific archive of this target (an entry ID) of an archive.
    DeviceArchive(String),
}

/// What the page says about the latest download.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DownloadNotice {
    /// Increases with every download, so that a late report of an earlier one is ignored.
    pub id: u32,
    pub name: String,
    pub stage: DownloadStage,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadStage {
    /// Being read and checked: `done` of `total` parts.
    Preparing {
        done: u64,
        total: u64,
    },
    Saved {
        size: u64,
    },
    /// Not offered.
    Refused(Refusal),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// The worker is reading and exploring the file.
    Loading(Loading),
    Ready(Rc<Doc>),
    /// The worker stopped without a result (it crashed or could not read the file).
    Failed(String),
    Cancelled,
}

/// Where the hex view is and what it should scroll to.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct HexState {
    pub space: u32,
    /// The byte last clicked or jumped to.
    pub cursor: Option<u64>,
    /// An offset the view should scroll to; `reveal_seq` changes with every request, so asking
    /// twice for the same offset scrolls twice.
    pub reveal: Option<u64>,
    pub reveal_seq: u32,
    /// Bytes another view pointed at (a field's, an instruction's), highlighted.
    pub marked: Option<Span>,
}

/// One version of a tab's file: the first is the file as opened, each edit adds one.
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    pub doc: Rc<Doc>,
    /// Paths (child indices from the root) of the nodes changed by the edits that led here:
    /// the marks of version i are those of edits 1..=i.
    pub marks: Vec<NodePath>,
}

/// Where the tab's latest edit (or hash check) stands, for the inspector's status line.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum EditStatus {
    #[default]
    Idle,
    Running {
        what: String,
        stage: String,
    },
    /// The user stopped it; nothing changed.
    Cancelled {
        what: String,
    },
    /// The edit is made: what the user should know about how the file was written.
    Done {
        what: String,
        notes: Vec<String>,
    },
    /// The edit was refused. `payload` names the file the new container alone can be saved
    /// as, when it did not fit in a linked file.
    Failed {
        what: String,
        message: String,
        payload: Option<String>,
    },
    /// A compressed bundle's hash was checked.
    Verified(Verified),
}

impl EditStatus {
    pub fn is_running(&self) -> bool {
        matches!(self, EditStatus::Running { .. })
    }
}

/// Where decompressing a bundle listed from its header stands, for the inspector.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Unpack {
    #[default]
    Idle,
    /// `done` of `total` bytes decompressed (0 of 0 until the worker first reports).
    Running { done: u64, total: u64 },
    /// Stopped by the user: a bundle is not decompressed again on selection until asked.
    Cancelled,
    /// Decompressed; `hash_ok` is what checking its hash found.
    Done { hash_ok: Option<bool> },
    /// The worker could not do it, and said why.
    Failed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tab {
    pub id: TabId,
    pub name: String,
    pub size: u64,
    pub status: Status,
    pub selected: Option<NodeId>,
    /// Per node: whether its children are shown in the tree.
    pub expanded: Vec<bool>,
    /// Per package: whether its group of members without device code is open, and its filter.
    pub groups: Groups,
    /// The tree's active row is this package's group row (the package is then `selected`).
    pub active_group: Option<NodeId>,
    pub hex: HexState,
    /// `performance.now()` when the file was opened (dropped, picked, or its sample fetched).
    pub opened_at: f64,
    /// Milliseconds from opening to the first render of the result.
    pub first_render_ms: Option<f64>,
    /// The settings the file is (being) explored with: those of when it was opened or last
    /// re-opened, which may differ from the page's current ones.
    pub settings: Settings,
    /// A node to select once the file is explored (a share link's selection), by its path.
    pub select_on_load: Option<NodePath>,
    /// Every version of the file, oldest first; empty until the file is first explored.
    pub versions: Vec<Version>,
    /// The version shown (and downloaded, and edited next).
    pub current: usize,
    pub edit: EditStatus,
    pub unpack: Unpack,
    /// The last comparison asked for in this tab.
    pub compare: Option<Comparison>,
    /// The last "will it run on …" asked in this tab.
    pub fit: Option<FitOutcome>,
    /// Every image's kernels, decoded on request, for the version shown.
    pub decoded_kernels: Option<KernelsDecoding>,
    /// How the shown views share the window in this tab (sizes, the view maximised).
    pub panes: Panes,
}

impl Tab {
    pub fn can_undo(&self) -> bool {
        self.current > 0 && !self.edit.is_running()
    }

    pub fn can_redo(&self) -> bool {
        self.current + 1 < self.versions.len() && !self.edit.is_running()
    }

    /// The version Undo shows, when there is one to show now.
    pub fn undo_version(&self) -> Option<usize> {
        self.can_undo().then(|| self.current - 1)
    }

    /// The version Redo shows, when there is one to show now.
    pub fn redo_version(&self) -> Option<usize> {
        self.can_redo().then(|| self.current + 1)
    }

    /// Whether the file shown differs from the file opened.
    pub fn is_edited(&self) -> bool {
        self.current > 0
    }

    /// The nodes of the shown version that edits changed (marks whose node no longer exists
    /// are left out).
    pub fn marked(&self) -> Vec<NodeId> {
        let (Some(doc), Some(version)) = (self.doc(), self.versions.get(self.current)) else { return Vec::new() };
        let mut out: Vec<NodeId> = version.marks.iter().filter_map(|p| doc.node_at(p)).collect();
        sort::sort(&mut out);
        out.dedup();
        out
    }

    pub fn doc(&self) -> Option<&Rc<Doc>> {
        match &self.status {
            Status::Ready(doc) => Some(doc),
            _ => None,
        }
    }

    pub fn is_expanded(&self, id: NodeId) -> bool {
        self.expanded.get(id).copied().unwrap_or(false)
    }

    /// The tree's rows as shown, top to bottom ([`tree_rows::visible_rows`]).
    pub fn tree_rows(&self) -> Vec<Row> {
        let Some(doc) = self.doc() else { return Vec::new() };
        tree_rows::visible_rows(doc, &DeviceCode::of(doc), &self.expanded, &self.groups)
    }

    /// The nodes of the tree's rows as shown (group rows left out), top to bottom.
    pub fn visible_nodes(&self) -> Vec<NodeId> {
        let node = |r: Row| match r.key {
            RowKey::Node(id) => Some(id),
            RowKey::Others(_) => None,
        };
        self.tree_rows().into_iter().filter_map(node).collect()
    }

    /// The tree's active row: the selected node's, or the group row the keys moved to.
    pub fn active_row(&self) -> Option<RowKey> {
        self.active_group.map(RowKey::Others).or(self.selected.map(RowKey::Node))
    }

    pub fn group_is_open(&self, package: NodeId) -> bool {
        self.groups.get(&package).is_some_and(|g| g.open)
    }
}

/// Keyboard moves in the tree (WAI-ARIA tree view pattern; selection follows focus).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nav {
    Up,
    Down,
    /// Expand, or go to the first child when already expanded.
    Right,
    /// Collapse, or go to the parent when already collapsed.
    Left,
    Home,
    End,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Open {
        id: TabId,
        name: String,
        size: u64,
        at_ms: f64,
        settings: Settings,
    },
    Progress {
        id: TabId,
        progress: Loading,
    },
    Loaded {
        id: TabId,
        doc: Rc<Doc>,
    },
    Failed {
        id: TabId,
        message: String,
    },
    Cancelled {
        id: TabId,
    },
    /// The explorer is started again on a tab (cancelled, failed, or re-opened with other
    /// settings).
    Restarted {
        id: TabId,
        at_ms: f64,
        settings: Settings,
    },
    FirstRender {
        id: TabId,
        after_ms: f64,
    },
    Close(TabId),
    Activate(TabId),
    NextTab,
    PrevTab,
    /// Select a node from a view other than the hex view: the hex view scrolls to it.
    Select(NodeId),
    /// Make a package's "other members" row the tree's active row (the package is selected).
    SelectOthers(NodeId),
    /// Open or close a package's group of members without device code.
    ToggleOthers(NodeId),
    /// Show only the members of a package's group whose name contains `filter`.
    FilterOthers {
        package: NodeId,
        filter: String,
    },
    /// Select a node and show some of its bytes (a field's, a diagnostic's) in the hex view.
    SelectSpan {
        node: NodeId,
        span: Span,
    },
    /// A byte was clicked: select the innermost node there.
    SelectAt {
        space: u32,
        offset: u64,
    },
    /// "Go to offset" in the hex view's current space.
    GoTo(u64),
    ShowSpace(u32),
    Toggle(NodeId),
    Nav(Nav),
    ToggleView(View),
    /// Show a view (hidden or not): the inspector's "Code" button.
    ShowView(View),
    Help(bool),
    /// Open or close the settings dialog.
    ShowSettings(bool),
    /// New settings (already checked), for files opened from now on.
    SetSettings(Settings),
    /// Select the node a share link names in a tab, now if it is explored, else once it is.
    SelectPath {
        id: TabId,
        path: NodePath,
    },
    /// What the page is doing about a `#url=` link (asking, fetching, failed), or nothing.
    Remote(Option<RemoteState>),
    /// How a download is going (ignored when a later download has reported already).
    Download(DownloadNotice),
    DismissDownload,
    /// The worker started an edit (or a hash check) of the tab's file.
    EditStarted {
        id: TabId,
        what: String,
    },
    EditProgress {
        id: TabId,
        stage: String,
    },
    /// The worker started decompressing a bundle listed from its header.
    DecompressStarted {
        id: TabId,
    },
    /// How far decompressing it has got, in bytes.
    DecompressProgress {
        id: TabId,
        done: u64,
        total: u64,
    },
    /// The work under way was stopped by the user.
    WorkCancelled {
        id: TabId,
    },
    /// The shown version explored again with the compressed bundle at `node` decompressed.
    Decompressed {
        id: TabId,
        doc: Rc<Doc>,
        node: NodePath,
    },
    /// An edit made a new version of the file: it replaces any versions after the shown one.
    /// `mark` is the node it changed, `select` the node to select there.
    Edited {
        id: TabId,
        doc: Rc<Doc>,
        mark: NodePath,
        select: NodePath,
        notes: Vec<String>,
    },
    EditFailed {
        id: TabId,
        message: String,
        payload: Option<String>,
    },
    Verified {
        id: TabId,
        verified: Verified,
    },
    /// A comparison started, ended, or was put away (`None`).
    Compare {
        id: TabId,
        comparison: Option<Comparison>,
    },
    /// A "will it run on …" started, ended, or was put away (`None`).
    Fit {
        id: TabId,
        fit: Option<FitOutcome>,
    },
    DecodeKernels {
        id: TabId,
        decoding: Option<KernelsDecoding>,
    },
    /// Show another version (undo, redo); `index` counts from the file as opened.
    SwitchVersion {
        id: TabId,
        index: usize,
    },
    /// A splitter moved: `first` gets the part `fraction` of its and `second`'s room.
    ResizePanes {
        id: TabId,
        first: Slot,
        second: Slot,
        fraction: f64,
    },
    /// Maximise a view of the tab, or restore the layout if it is the one maximised.
    ToggleMaximised {
        id: TabId,
        view: View,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct AppState {
    pub tabs: Vec<Tab>,
    pub active: Option<TabId>,
    /// Shown views, indexed by `View as usize`.
    pub views: [bool; 7],
    pub help_open: bool,
    /// What files opened from now on are explored with.
    pub settings: Settings,
    pub settings_open: bool,
    /// The `#url=` prompt, its download or why a link could not be opened.
    pub remote: Option<RemoteState>,
    /// The latest download and how it went.
    pub download: Option<DownloadNotice>,
}

impl Default for AppState {
    fn default() -> Self {
        AppState::with_settings(Settings::default())
    }
}

/// Trees with more nodes than this open with only their first levels expanded.
const EXPAND_ALL_UP_TO: usize = 400;
const FIRST_LEVELS: u32 = 3;

impl AppState {
    /// The page as it starts, with the settings kept from an earlier visit.
    pub fn with_settings(settings: Settings) -> AppState {
        AppState {
            tabs: Vec::new(),
            active: None,
            // The Code view starts its worker when it first opens: hidden until asked for.
            views: [true, true, true, true, true, true, false],
            help_open: false,
            settings,
            settings_open: false,
            remote: None,
            download: None,
        }
    }

    pub fn tab(&self, id: TabId) -> Option<&Tab> {
        self.tabs.iter().find(|t| t.id == id)
    }

    pub fn active_tab(&self) -> Option<&Tab> {
        self.active.and_then(|id| self.tab(id))
    }

    pub fn shows(&self, view: View) -> bool {
        self.views[view as usize]
    }

    fn tab_mut(&mut self, id: TabId) -> Option<&mut Tab> {
        self.tabs.iter_mut().find(|t| t.id == id)
    }

    fn active_mut(&mut self) -> Option<&mut Tab> {
        let id = self.active?;
        self.tab_mut(id)
    }

    /// Applies one action. Actions about a tab that was closed meanwhile (a late worker reply)
    /// change nothing.
    pub fn reduce(mut self, action: Action) -> AppState {
        match action {
            Action::Open { id, name, size, at_ms, settings } => self.open(id, name, size, at_ms, settings),
            Action::Progress { id, progress: p } => self.with_tab(id, |tab| progress(tab, p)),
            Action::Loaded { id, doc } => self.with_tab(id, |tab| loaded(tab, doc)),
            Action::Failed { id, message } => self.with_tab(id, |tab| failed(tab, message)),
            Action::Cancelled { id } => self.with_tab(id, cancelled),
            Action::Restarted { id, at_ms, settings } => self.with_tab(id, |tab| restarted(tab, at_ms, settings)),
            Action::FirstRender { id, after_ms } => self.with_tab(id, |tab| {
                tab.first_render_ms.get_or_insert(after_ms);
            }),
            Action::Close(id) => self.close(id),
            Action::Activate(id) => {
                if self.tab(id).is_some() {
                    self.active = Some(id);
                }
            }
            Action::NextTab => self.cycle_tab(1),
            Action::PrevTab => self.cycle_tab(-1),
            Action::Select(node) => self.with_active(|tab| select(tab, node, true)),
            Action::SelectOthers(package) => self.with_active(|tab| select_others(tab, package)),
            Action::ToggleOthers(package) => self.with_active(|tab| {
                let open = tab.group_is_open(package);
                tab.groups.entry(package).or_default().open = !open;
            }),
            Action::FilterOthers { package, filter } => {
                self.with_active(|tab| tab.groups.entry(package).or_default().filter = filter)
            }
            Action::SelectSpan { node, span } => self.with_active(|tab| select_span(tab, node, span)),
            Action::SelectAt { space, offset } => self.with_active(|tab| select_at(tab, space, offset)),
            Action::GoTo(offset) => self.with_active(|tab| go_to(tab, offset)),
            Action::ShowSpace(space) => self.with_active(|tab| show_space(tab, space)),
            Action::Toggle(node) => self.with_active(|tab| toggle(tab, node)),
            Action::Nav(nav) => self.with_active(|tab| navigate(tab, nav)),
            Action::ToggleView(view) => self.show_view(view, !self.shows(view)),
            Action::ShowView(view) if self.shows(view) => self.with_active(|tab| tab.panes.reveal(view)),
            Action::ShowView(view) => self.show_view(view, true),
            Action::Help(open) => self.help_open = open,
            Action::ShowSettings(open) => self.settings_open = open,
            Action::SetSettings(settings) => self.settings = settings,
            Action::SelectPath { id, path } => self.with_tab(id, |tab| select_path_now_or_on_load(tab, path)),
            Action::Remote(remote) => self.remote = remote,
            Action::Download(notice) => {
                if self.download.as_ref().is_none_or(|d| notice.id >= d.id) {
                    self.download = Some(notice);
                }
            }
            Action::DismissDownload => self.download = None,
            Action::EditStarted { id, what } => {
                self.with_tab(id, |tab| tab.edit = EditStatus::Running { what, stage: "starting".into() })
            }
            Action::EditProgress { id, stage } => self.with_tab(id, |tab| {
                if let EditStatus::Running { stage: s, .. } = &mut tab.edit {
                    *s = stage;
                }
            }),
            Action::DecompressStarted { id } => {
                self.with_tab(id, |tab| tab.unpack = Unpack::Running { done: 0, total: 0 })
            }
            Action::DecompressProgress { id, done, total } => self.with_tab(id, |tab| {
                if let Unpack::Running { .. } = tab.unpack {
                    tab.unpack = Unpack::Running { done, total };
                }
            }),
            Action::WorkCancelled { id } => self.with_tab(id, work_cancelled),
            Action::Decompressed { id, doc, node } => self.with_tab(id, |tab| decompressed(tab, doc, &node)),
            Action::Edited { id, doc, mark, select, notes } => {
                self.with_tab(id, |tab| edited(tab, doc, mark, &select, notes))
            }
            Action::EditFailed { id, message, payload } => self.with_tab(id, |tab| {
                if let Unpack::Running { .. } = tab.unpack {
                    tab.unpack = Unpack::Failed(message);
                } else {
                    tab.edit = EditStatus::Failed { what: running_what(&tab.edit), message, payload };
                }
            }),
            Action::Verified { id, verified } => self.with_tab(id, |tab| tab.edit = EditStatus::Verified(verified)),
            Action::SwitchVersion { id, index } => self.with_tab(id, |tab| switch_version(tab, index)),
            Action::Compare { id, comparison } => self.with_tab(id, |tab| tab.compare = comparison),
            Action::Fit { id, fit } => self.with_tab(id, |tab| tab.fit = fit),
            Action::DecodeKernels { id, decoding } => self.with_tab(id, |tab| tab.decoded_kernels = decoding),
            Action::ResizePanes { id, first, second, fraction } => {
                self.with_tab(id, |tab| tab.panes.resize(first, second, fraction))
            }
            Action::ToggleMaximised { id, view } => self.with_tab(id, |tab| tab.panes.toggle_maximised(view)),
        }
        self
    }

    /// Shows or hides a view in every tab. A view shown is opened in the active tab's layout
    /// ([`open_view`]); a view hidden gives back the layout of every tab where it was maximised.
    fn show_view(&mut self, view: View, shown: bool) {
        self.views[view as usize] = shown;
        if shown {
            self.with_active(|tab| open_view(tab, view));
        } else {
            self.tabs.iter_mut().for_each(|tab| tab.panes.closed(view));
        }
    }

    /// Changes the tab `id`, if it is still open.
    fn with_tab(&mut self, id: TabId, change: impl FnOnce(&mut Tab)) {
        if let Some(tab) = self.tab_mut(id) {
            change(tab);
        }
    }

    /// Changes the active tab, if there is one.
    fn with_active(&mut self, change: impl FnOnce(&mut Tab)) {
        if let Some(tab) = self.active_mut() {
            change(tab);
        }
    }

    /// A new tab for a file being explored, made the active one.
    fn open(&mut self, id: TabId, name: String, size: u64, at_ms: f64, settings: Settings) {
        self.tabs.push(Tab {
            id,
            name,
            size,
            status: Status::Loading(Loading::at("starting", 0)),
            selected: None,
            expanded: Vec::new(),
            groups: Groups::new(),
            active_group: None,
            hex: HexState::default(),
            opened_at: at_ms,
            first_render_ms: None,
            settings,
            select_on_load: None,
            versions: Vec::new(),
            current: 0,
            edit: EditStatus::Idle,
            unpack: Unpack::Idle,
            compare: None,
            fit: None,
            decoded_kernels: None,
            panes: Panes::default(),
        });
        self.active = Some(id);
    }

    fn close(&mut self, id: TabId) {
        if let Some(pos) = self.tabs.iter().position(|t| t.id == id) {
            self.tabs.remove(pos);
            if self.active == Some(id) {
                // The tab that took its place, else the one before it.
                self.active = self.tabs.get(pos).or_else(|| self.tabs.last()).map(|t| t.id);
            }
        }
    }

    fn cycle_tab(&mut self, step: isize) {
        let n = self.tabs.len() as isize;
        if n == 0 {
            return;
        }
        let pos = self.active.and_then(|id| self.tabs.iter().position(|t| t.id == id)).unwrap_or(0) as isize;
        self.active = Some(self.tabs[(pos + step).rem_euclid(n) as usize].id);
    }
}

/// Where a view opened in `tab` goes. The Code view, when the selection is in an image it lists
/// (an AMDGPU code object or PTX), takes the whole tab, maximised until restored or hidden:
/// stacked fifth in the centre column, under its legend and instruction mix, the listing had
/// a strip of a couple of lines. With nothing to list (or a cubin's note) it opens in the
/// centre, beside the tree an image is picked from. Any other view is put on screen.
fn open_view(tab: &mut Tab, view: View) {
    let lists_code =
        tab.doc().and_then(|doc| subject(doc, tab.selected)).is_some_and(|s| s.format != CodeFormat::Cubin);
    if view == View::Code && lists_code {
        tab.panes.maximise(View::Code);
    } else {
        tab.panes.reveal(view);
    }
}

fn progress(tab: &mut Tab, progress: Loading) {
    if let Status::Loading(before) = &tab.status {
        tab.status = Status::Loading(progress.after(before));
    }
}

/// The worker's document for the tab: its first version, or (explored again with other
/// settings after edits) the shown version's new document, the history kept.
fn loaded(tab: &mut Tab, doc: Rc<Doc>) {
    if let Some(version) = tab.versions.get_mut(tab.current) {
        version.doc = doc.clone();
        show_doc(tab, doc, None);
        return;
    }
    tab.versions = vec![Version { doc: doc.clone(), marks: Vec::new() }];
    tab.current = 0;
    let expand_all = doc.nodes.len() <= EXPAND_ALL_UP_TO;
    tab.expanded = doc.nodes.iter().map(|n| !n.children.is_empty() && (expand_all || n.depth < FIRST_LEVELS)).collect();
    tab.groups = Groups::new();
    tab.active_group = None;
    tab.selected = (!doc.nodes.is_empty()).then_some(0);
    tab.hex = HexState::default();
    tab.status = Status::Ready(doc);
    if let Some(path) = tab.select_on_load.take() {
        select_path(tab, &path);
    }
}

fn failed(tab: &mut Tab, message: String) {
    // A worker that stopped in the middle of an edit will not finish it.
    tab.edit = EditStatus::Idle;
    tab.unpack = Unpack::Idle;
    tab.status = Status::Failed(message);
}

fn cancelled(tab: &mut Tab) {
    if matches!(tab.status, Status::Loading(_)) {
        tab.status = Status::Cancelled;
    }
}

fn restarted(tab: &mut Tab, at_ms: f64, settings: Settings) {
    tab.status = Status::Loading(Loading::at("starting", 0));
    tab.edit = EditStatus::Idle;
    tab.unpack = Unpack::Idle;
    tab.opened_at = at_ms;
    tab.first_render_ms = None;
    tab.settings = settings;
}

/// An edit's result: a new version, and what the edit did (less the notes that only repeat
/// what it was).
fn edited(tab: &mut Tab, doc: Rc<Doc>, mark: NodePath, select: &[usize], mut notes: Vec<String>) {
    add_version(tab, doc, mark, select);
    let what = running_what(&tab.edit);
    notes.retain(|n| !restates(n, &what));
    tab.edit = EditStatus::Done { what, notes };
}

/// A bundle decompressed on request: the shown version's document is replaced (the same file,
/// more of it open), the selection and expanded rows kept, and the status says what its hash
/// check found.
fn decompressed(tab: &mut Tab, doc: Rc<Doc>, node: &[usize]) {
    let hash_ok = doc.node_at(node).and_then(|n| match doc.nodes[n].field("hash_ok") {
        Some(Value::Bool(ok)) => Some(*ok),
        _ => None,
    });
    if let Some(version) = tab.versions.get_mut(tab.current) {
        version.doc = doc.clone();
    }
    show_doc(tab, doc.clone(), None);
    // What was opened is shown opened: the bundle's new rows (its entries' images) expanded,
    // within the limit a whole document is expanded to.
    if let Some(bundle) = doc.node_at(node) {
        let rows = bundle..doc.nodes[bundle].subtree_end.min(doc.nodes.len());
        if rows.len() <= EXPAND_ALL_UP_TO {
            for n in rows {
                tab.expanded[n] = !doc.nodes[n].children.is_empty();
            }
        }
    }
    tab.unpack = Unpack::Done { hash_ok };
}

/// The user stopped the worker's work: a decompression, or an edit or hash check.
fn work_cancelled(tab: &mut Tab) {
    if let Unpack::Running { .. } = tab.unpack {
        tab.unpack = Unpack::Cancelled;
    }
    if tab.edit.is_running() {
        tab.edit = EditStatus::Cancelled { what: running_what(&tab.edit) };
    }
}

fn switch_version(tab: &mut Tab, index: usize) {
    if index < tab.versions.len() && index != tab.current && !tab.edit.is_running() {
        tab.current = index;
        tab.edit = EditStatus::Idle;
        let doc = tab.versions[index].doc.clone();
        show_doc(tab, doc, None);
    }
}

/// Selects a node and shows some of its bytes (a field's, a diagnostic's) in the hex view.
fn select_span(tab: &mut Tab, node: NodeId, span: Span) {
    if tab.doc().is_some_and(|d| (span.space as usize) < d.spaces.len()) {
        select(tab, node, false);
        tab.hex.space = span.space;
        tab.hex.cursor = Some(span.offset);
        tab.hex.marked = Some(span);
        reveal(tab, span.offset);
    }
}

/// A byte was clicked: the innermost node there is selected.
fn select_at(tab: &mut Tab, space: u32, offset: u64) {
    tab.hex.space = space;
    tab.hex.cursor = Some(offset);
    tab.hex.marked = None;
    if let Some(node) = tab.doc().and_then(|d| d.innermost_at(space, offset)) {
        select(tab, node, false);
    }
}

/// "Go to offset" in the hex view's space (an offset past its end goes to its last byte).
fn go_to(tab: &mut Tab, offset: u64) {
    let space = tab.hex.space;
    let Some(size) = tab.doc().and_then(|d| d.spaces.get(space as usize)).map(|s| s.size) else { return };
    let offset = offset.min(size.saturating_sub(1));
    if let Some(node) = tab.doc().and_then(|d| d.innermost_at(space, offset)) {
        select(tab, node, false);
    }
    tab.hex.cursor = Some(offset);
    reveal(tab, offset);
}

fn show_space(tab: &mut Tab, space: u32) {
    if tab.doc().is_some_and(|d| (space as usize) < d.spaces.len()) && tab.hex.space != space {
        tab.hex.space = space;
        tab.hex.cursor = None;
        reveal(tab, 0);
    }
}

fn toggle(tab: &mut Tab, node: NodeId) {
    let has_children = tab.doc().is_some_and(|d| d.nodes.get(node).is_some_and(|n| !n.children.is_empty()));
    if has_children {
        let open = tab.is_expanded(node);
        set_expanded(tab, node, !open);
    }
}

/// A share link's selection: applied now if the file is explored, else once it is.
fn select_path_now_or_on_load(tab: &mut Tab, path: NodePath) {
    if tab.doc().is_some() {
        select_path(tab, &path);
    } else {
        tab.select_on_load = Some(path);
    }
}

/// Whether an edit's note only says again what the edit's description says ("compressed with
/// zstd level 3, …" after "compressing with zstd level 3, …"): the same words after the verb.
pub fn restates(note: &str, what: &str) -> bool {
    let after_verb = |s: &str| s.split_once(' ').map(|(_, rest)| rest.to_string());
    after_verb(note).is_some_and(|n| Some(n) == after_verb(what))
}

/// What the running edit was doing (kept in its outcome's status line).
fn running_what(status: &EditStatus) -> String {
    match status {
        EditStatus::Running { what, .. } => what.clone(),
        _ => String::new(),
    }
}

/// Appends an edit's result after the shown version, dropping the versions that were undone,
/// and selects `select` in it.
fn add_version(tab: &mut Tab, doc: Rc<Doc>, mark: NodePath, select: &[usize]) {
    let mut marks = tab.versions.get(tab.current).map(|v| v.marks.clone()).unwrap_or_default();
    if !marks.contains(&mark) {
        marks.push(mark);
    }
    tab.versions.truncate(tab.current + 1);
    tab.versions.push(Version { doc: doc.clone(), marks });
    tab.current = tab.versions.len() - 1;
    show_doc(tab, doc, Some(select));
}

/// Shows another document for the same file (an edit, undo, redo, re-exploring): the tree
/// keeps what was expanded and the selection goes to `to_select`, or stays on the same path,
/// where those nodes still exist (otherwise on the nearest ancestor that does).
fn show_doc(tab: &mut Tab, doc: Rc<Doc>, to_select: Option<&[usize]>) {
    let old = tab.doc().cloned();
    let selected_path = match to_select {
        Some(path) => Some(path.to_vec()),
        None => old.as_ref().zip(tab.selected).map(|(o, s)| o.path_of(s)),
    };
    tab.expanded = match &old {
        Some(old) => carry_expansion(old, &tab.expanded, &doc),
        None => doc.nodes.iter().map(|n| !n.children.is_empty()).collect(),
    };
    tab.groups = match &old {
        Some(old) => carry_groups(old, &tab.groups, &doc),
        None => Groups::new(),
    };
    let space = tab.hex.space;
    tab.hex.cursor = None;
    tab.hex.space = if (space as usize) < doc.spaces.len() { space } else { 0 };
    tab.status = Status::Ready(doc.clone());
    // Decoded for the document shown before, perhaps another version.
    tab.decoded_kernels = None;
    tab.selected = None;
    if let Some(node) = selected_path.and_then(|p| doc.nearest_at(&p)).or((!doc.nodes.is_empty()).then_some(0)) {
        select(tab, node, true);
    }
}

/// The expansion of `new`'s rows: a row at a path that `old` has keeps its state there; a new
/// row is expanded.
fn carry_expansion(old: &Doc, old_expanded: &[bool], new: &Doc) -> Vec<bool> {
    let mut out: Vec<bool> = new.nodes.iter().map(|n| !n.children.is_empty()).collect();
    if new.nodes.is_empty() || old.nodes.is_empty() {
        return out;
    }
    // Both trees walked together, child index by child index.
    let mut stack = vec![(0usize, 0usize)];
    while let Some((n, o)) = stack.pop() {
        out[n] = old_expanded.get(o).copied().unwrap_or(out[n]) && !new.nodes[n].children.is_empty();
        for (i, &c) in new.nodes[n].children.iter().enumerate() {
            if let Some(&oc) = old.nodes[o].children.get(i) {
                stack.push((c, oc));
            }
        }
    }
    out
}

/// The groups of other members of `new`'s packages: each keeps what it was at the same path in
/// `old` (node ids shift when an edit grows or adds an entry; paths stay).
fn carry_groups(old: &Doc, old_groups: &Groups, new: &Doc) -> Groups {
    let carried = old_groups.iter().filter_map(|(&package, group)| {
        let at = new.node_at(&old.path_of(package))?;
        (new.nodes[at].kind == offload::tree::NodeKind::Package).then(|| (at, group.clone()))
    });
    carried.collect()
}

fn set_expanded(tab: &mut Tab, node: NodeId, open: bool) {
    if let Some(e) = tab.expanded.get_mut(node) {
        *e = open;
    }
}

fn reveal(tab: &mut Tab, offset: u64) {
    tab.hex.reveal = Some(offset);
    tab.hex.reveal_seq = tab.hex.reveal_seq.wrapping_add(1);
}

/// Selects a node, opening the tree down to it and showing its space in the hex view. With
/// `scroll`, the hex view scrolls to the node's first byte.
fn select(tab: &mut Tab, node: NodeId, scroll: bool) {
    let Some(doc) = tab.doc().cloned() else { return };
    let Some(info) = doc.nodes.get(node) else { return };
    for a in doc.ancestors(node) {
        set_expanded(tab, a, true);
    }
    open_groups_down_to(tab, &doc, node);
    tab.active_group = None;
    tab.selected = Some(node);
    tab.hex.space = info.span.space;
    tab.hex.marked = None;
    if scroll {
        tab.hex.cursor = None;
        reveal(tab, info.span.offset);
    }
}

/// Opens every group of other members that `node` or one of its ancestors is in, clearing a
/// filter that would hide it: a node selected from another view (the hex view, the kernels
/// table) is always shown in the tree.
fn open_groups_down_to(tab: &mut Tab, doc: &Doc, node: NodeId) {
    let is_package = |id: &NodeId| doc.nodes[*id].kind == offload::tree::NodeKind::Package;
    if !doc.ancestors(node).iter().any(is_package) {
        return;
    }
    let device = DeviceCode::of(doc);
    let mut at = Some(node);
    while let Some(id) = at {
        if let Some(package) = tree_rows::group_of(doc, &device, id) {
            let group = tab.groups.entry(package).or_default();
            group.open = true;
            if !tree_rows::matches(doc, id, &tree_rows::normal_filter(&group.filter)) {
                group.filter.clear();
            }
        }
        at = doc.nodes[id].parent;
    }
}

/// Makes a package's group row the tree's active row; the package is what the other views show.
fn select_others(tab: &mut Tab, package: NodeId) {
    let is_package =
        tab.doc().and_then(|d| d.nodes.get(package)).is_some_and(|n| n.kind == offload::tree::NodeKind::Package);
    if is_package {
        select(tab, package, true);
        tab.active_group = Some(package);
    }
}

/// Selects the node a share link's path names (or the deepest node on its way, when the file
/// was explored with other limits).
fn select_path(tab: &mut Tab, path: &[usize]) {
    if let Some(node) = tab.doc().and_then(|d| d.nearest_at(path)) {
        select(tab, node, true);
    }
}

/// Moves the tree's active row along the rows as shown (WAI-ARIA tree view pattern), where a
/// group row of other members is a row like any other.
fn navigate(tab: &mut Tab, nav: Nav) {
    let Some(doc) = tab.doc().cloned() else { return };
    let rows = tab.tree_rows();
    let device = DeviceCode::of(&doc);
    // A row hidden since it was selected (its group closed or filtered) moves from where it
    // would be.
    let Some(at) = tab.active_row().and_then(|key| tree_rows::nearest_shown(&doc, &device, &rows, key)) else {
        if let Some(first) = rows.first() {
            go_to_row(tab, first.key);
        }
        return;
    };
    let key = rows[at].key;
    let to = match nav {
        Nav::Up => at.checked_sub(1),
        Nav::Down => (at + 1 < rows.len()).then_some(at + 1),
        Nav::Home => Some(0),
        Nav::End => Some(rows.len() - 1),
        Nav::Right if !can_open(&doc, key) => None,
        Nav::Right if !row_is_open(tab, key) => {
            set_row_open(tab, key, true);
            None
        }
        Nav::Right => tree_rows::first_child_row(&rows, at),
        Nav::Left if can_open(&doc, key) && row_is_open(tab, key) => {
            set_row_open(tab, key, false);
            None
        }
        Nav::Left => tree_rows::parent_row(&rows, at),
    };
    match to {
        Some(i) => go_to_row(tab, rows[i].key),
        // Where the row moved from was hidden, the nearest shown row becomes the active one.
        None if tab.active_row() != Some(key) => go_to_row(tab, key),
        None => {}
    }
}

fn go_to_row(tab: &mut Tab, key: RowKey) {
    match key {
        RowKey::Node(id) => select(tab, id, true),
        RowKey::Others(package) => select_others(tab, package),
    }
}

/// Whether a row has rows below it to show: a node with children, or a group row.
fn can_open(doc: &Doc, key: RowKey) -> bool {
    match key {
        RowKey::Node(id) => doc.nodes.get(id).is_some_and(|n| !n.children.is_empty()),
        RowKey::Others(_) => true,
    }
}

fn row_is_open(tab: &Tab, key: RowKey) -> bool {
    match key {
        RowKey::Node(id) => tab.is_expanded(id),
        RowKey::Others(package) => tab.group_is_open(package),
    }
}

fn set_row_open(tab: &mut Tab, key: RowKey, open: bool) {
    match key {
        RowKey::Node(id) => set_expanded(tab, id, open),
        RowKey::Others(package) => tab.groups.entry(package).or_default().open = open,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_that_restate_the_edit_are_recognised() {
        let what = "compressing with zstd level 3, format version 3";
        assert!(restates("compressed with zstd level 3, format version 3", what));
        assert!(!restates("section .hip_fatbin is now 1881 bytes (was 4311)", what));
        assert!(!restates("compressed with zstd level 3, format version 3", "decompressing"));
    }

    #[test]
    fn a_late_report_of_an_earlier_download_does_not_replace_a_later_one() {
        let notice = |id, stage| DownloadNotice { id, name: format!("d{id}"), stage };
        let state = AppState::default()
            .reduce(Action::Download(notice(2, DownloadStage::Preparing { done: 0, total: 3 })))
            .reduce(Action::Download(notice(1, DownloadStage::Saved { size: 5 })));
        assert_eq!(state.download, Some(notice(2, DownloadStage::Preparing { done: 0, total: 3 })));
        let state = state.reduce(Action::Download(notice(2, DownloadStage::Saved { size: 9 })));
        assert_eq!(state.download, Some(notice(2, DownloadStage::Saved { size: 9 })));
        assert_eq!(state.reduce(Action::DismissDownload).download, None);
    }
}
