//! A PTX image in the Code view: its text, a row per line (only those on screen drawn), and
//! its functions (`.entry` kernels, `.func` device functions) to jump to; a kernel selected
//! elsewhere is scrolled to.

use super::virtual_rows::VirtualRows;
use crate::wire::code::PtxText;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PtxProps {
    pub ptx: Rc<PtxText>,
    pub kernel: Option<String>,
}

#[function_component]
pub fn PtxView(props: &PtxProps) -> Html {
    let reveal = use_state_eq(|| (None::<usize>, 0u32));
    let go = {
        let reveal = reveal.clone();
        move |line: usize| reveal.set((Some(line), reveal.1.wrapping_add(1)))
    };
    {
        let (ptx, go) = (props.ptx.clone(), go.clone());
        use_effect_with((props.ptx.clone(), props.kernel.clone()), move |(_, kernel)| {
            if let Some(f) = kernel.as_deref().and_then(|k| ptx.functions.iter().find(|f| f.name == k)) {
                go(f.line as usize);
            }
        });
    }
    let render = {
        let ptx = props.ptx.clone();
        Callback::from(move |row: usize| {
            html! { <div class="code-row ptx-line" data-line={row.to_string()}>{ ptx.lines.get(row).cloned().unwrap_or_default() }</div> }
        })
    };
    html! {
        <div class="code-body">
            <nav class="ptx-functions" aria-label="PTX functions">
                <span class="muted">{ format!("{} functions: ", props.ptx.functions.len()) }</span>
                { for props.ptx.functions.iter().map(|f| {
                    let (go, line) = (go.clone(), f.line as usize);
                    html! {
                        <button type="button" class="link ptx-function" title={format!(".{} at line {}", f.directive, line + 1)}
                            onclick={Callback::from(move |_: MouseEvent| go(line))}>{ &f.name }</button>
                    }
                }) }
            </nav>
            <VirtualRows count={props.ptx.lines.len()} {render} reveal={*reveal} id="ptx-list" label="PTX text" />
        </div>
    }
}
