//! What the page shows with no file open.

use crate::page::samples::samples;
use crate::page::state::FileRequest;
use yew::prelude::*;

/// What the page reads, in one paragraph: what a new user checks before dropping a file. The
/// static shell in `index.html` says the same while the app loads.
const READS: &str = "Read here, in your browser (nothing is uploaded): LLVM offload binaries, clang offload \
    bundles (binary, text, compressed), NVIDIA fatbins with their cubins and PTX, the ELF, COFF and Mach-O \
    files that carry them, and the packages that carry those: wheels, tarballs, conda, deb and rpm. \
    AMDGPU code is disassembled (Code, key 7).";

#[derive(Properties, PartialEq)]
pub struct WelcomeProps {
    pub on_file: Callback<FileRequest>,
}

#[function_component]
pub fn Welcome(props: &WelcomeProps) -> Html {
    let pick = props.on_file.reform(|_: MouseEvent| FileRequest::PickFile);
    let address = props.on_file.reform(|_: MouseEvent| FileRequest::OpenAddress);
    html! {
        <section class="welcome" aria-labelledby="welcome-title">
            <h2 id="welcome-title">{"See what is inside a GPU fat binary"}</h2>
            <p>{"Drop an executable, shared library, object file, archive, package or offload bundle anywhere on this page, or "}
                <button type="button" class="link" onclick={pick}>{"choose files"}</button>{", or "}
                <button type="button" class="link open-url" onclick={address}>{"open a file from an address"}</button>
                {" (read by ranges: only what is needed is downloaded)."}</p>
            <p class="welcome-reads">{ READS }</p>
            <h3>{"Or open a sample"}</h3>
            <ul class="welcome-samples">
                { for samples().into_iter().map(|s| {
                    let onclick = props.on_file.reform(move |_: MouseEvent| FileRequest::OpenSample(s.file));
                    html! { <li><button type="button" {onclick}><code>{ s.file }</code>{" — "}{ s.title }</button></li> }
                }) }
            </ul>
            <p class="hint">{"Press ? for keyboard shortcuts."}</p>
        </section>
    }
}
