//! The page's components, one per file. Each takes what it draws as props (the explored
//! document, the tab's state) and reports what the user does as [`crate::page::state::Action`]s
//! for the reducer, or as requests ([`crate::page::state::FileRequest`],
//! [`crate::page::state::DownloadRequest`]) for the app, which holds the session.
//!
//! Here are the app and the frame around the open file (toolbar, tabs, welcome, drop overlay,
//! samples menu, share button); below, the views of a file ([`views`]), the inspector's edit
//! forms and the undo buttons ([`edit`]), the download controls ([`download`]) and the dialogs
//! ([`dialogs`]).
//!
//! Imports go downwards only: `app` uses the frame, the dialogs and the views; the frame uses
//! `edit` and `download`; the views use `edit` and `download`; `edit`, `download` and
//! `dialogs` use no other component folder. Every component uses the page's state and modules,
//! none of which uses a component.

pub mod app;
pub mod dialogs;
pub mod download;
pub mod drop_overlay;
pub mod edit;
pub mod pane;
pub mod sample_menu;
pub mod share_button;
pub mod splitter;
pub mod tab_bar;
pub mod tab_view;
pub mod toolbar;
pub mod views;
pub mod welcome;
