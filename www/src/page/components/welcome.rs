//! What the page shows with no file open.

use crate::page::samples::samples;
use crate::page::state::FileRequest;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WelcomeProps {
    pub on_file: Callback<FileRequest>,
}

#[function_component]
pub fn Welcome(props: &WelcomeProps) -> Html {
    let pick = props.on_file.reform(|_: MouseEvent| FileRequest::PickFile);
    html! {
        <section class="welcome" aria-labelledby="welcome-title">
            <h2 id="welcome-title">{"See what is inside a GPU fat binary"}</h2>
            <p>{"Drop an executable, shared library, object file, archive or offload bundle anywhere on this page, or "}
                <button type="button" class="link" onclick={pick}>{"choose files"}</button>{"."}</p>
            <p>{"LLVM offload binaries, clang offload bundles (binary and text), compressed bundles and the ELF, COFF and Mach-O files that carry them are read here, in your browser: nothing is uploaded."}</p>
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
