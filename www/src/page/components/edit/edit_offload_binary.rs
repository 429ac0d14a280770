//! An offload binary of version 2 or 3 (several entries in one binary, LLVM main's layout) is
//! written as version 1 binaries, one per entry: what LLVM 22 and earlier, and the runtimes
//! built with them, read ([`offload::edit::Edit::OffloadBinaryToV1`]).

use super::form::EditFormProps;
use offload::edit::Edit;
use offload::tree::Value;
use yew::prelude::*;

#[function_component]
pub fn EditOffloadBinary(props: &EditFormProps) -> Html {
    let version = match props.doc.field(props.node, "version") {
        Some(Value::Uint(v)) => *v,
        _ => return html! {},
    };
    if version < 2 {
        return html! {};
    }
    let convert = {
        let props = props.clone();
        Callback::from(move |_: MouseEvent| props.send(Edit::OffloadBinaryToV1 { node: props.path() }))
    };
    html! {
        <div class="edit-form" role="group" aria-label="Offload binary version">
            <div class="edit-row">
                <span>{ format!("Version {version}: LLVM 22 and earlier read only version 1.") }</span>
                <button type="button" onclick={convert} disabled={props.busy}>{"Write as version 1 binaries"}</button>
            </div>
        </div>
    }
}
