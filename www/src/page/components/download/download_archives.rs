//! Under the target table of a heterogeneous device archive: one button per target for its
//! device-specific archive, as `offload unbundle --type=a --targets=<target>` writes it.

use crate::page::downloads::plan::{device_archive_name, device_archive_targets};
use crate::page::downloads::save::Downloader;
use crate::page::state::DownloadRequest;
use crate::wire::doc::Doc;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DownloadArchivesProps {
    pub doc: Rc<Doc>,
}

#[function_component]
pub fn DownloadArchives(props: &DownloadArchivesProps) -> Html {
    let Some(downloader) = use_context::<Downloader>() else { return html! {} };
    let targets = device_archive_targets(&props.doc);
    if targets.is_empty() {
        return html! {};
    }
    html! {
        <div class="device-archives" role="group" aria-label="Device-specific archives">
            <span class="muted">{"Device-specific archives:"}</span>
            { for targets.into_iter().map(|target| {
                let name = device_archive_name(&props.doc.name, &target);
                let label = format!("Device archive for {target}");
                let onclick = downloader.request.reform(move |_: MouseEvent| DownloadRequest::DeviceArchive(target.clone()));
                html! {
                    <button type="button" {onclick} aria-label={label.clone()} title={format!("Download {name}")}>{ label }</button>
                }
            }) }
        </div>
    }
}
