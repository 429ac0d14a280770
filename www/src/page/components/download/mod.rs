//! The download controls: "Download file" and "Download all images" in the toolbar, the
//! download button of the selected node, the device archives of an archive's targets, and the
//! status line of the latest download. They ask through the
//! [`crate::page::downloads::save::Downloader`] context and name what they offer by the
//! download plan (`crate::page::downloads::plan`).
//!
//! Imports: only the page's state and download modules; no other component.

pub mod download_actions;
pub mod download_archives;
pub mod download_button;
pub mod download_status;
