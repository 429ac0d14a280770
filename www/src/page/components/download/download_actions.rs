//! The toolbar's downloads for the active tab: the whole current file, and one tar of every
//! device image in it.

use crate::page::downloads::save::Downloader;
use crate::page::state::DownloadRequest;
use yew::prelude::*;

#[function_component]
pub fn DownloadActions() -> Html {
    let Some(downloader) = use_context::<Downloader>() else { return html! {} };
    let doc = downloader.doc.as_ref();
    let file = downloader.request.reform(|_: MouseEvent| DownloadRequest::File);
    let images = downloader.request.reform(|_: MouseEvent| DownloadRequest::AllImages);
    let image_count = doc.map_or(0, |d| d.targets.len());
    html! {
        <div class="download-actions" role="group" aria-label="Downloads">
            <button type="button" onclick={file} disabled={doc.is_none()}
                title="Download the file of this tab, as it is now">{"Download file"}</button>
            <button type="button" onclick={images} disabled={image_count == 0}
                title={format!("Download the {image_count} device images of this file in one tar")}>{"Download all images"}</button>
        </div>
    }
}
