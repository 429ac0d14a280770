//! Whether a `<details>` line has ever been opened: lines that put what they hold in the page
//! only once opened ([`super::kernel_hole`], [`super::diagnostic_group`]), since thousands of
//! items inside closed lines weigh on the first render all the same.

use yew::prelude::*;

/// Whether the `<details>` given the returned `ontoggle` has been opened yet (it stays so once
/// closed again), and that callback.
#[hook]
pub fn use_opened_once() -> (bool, Callback<Event>) {
    let opened = use_state(|| false);
    let ontoggle = {
        let opened = opened.clone();
        Callback::from(move |e: Event| {
            let open = e.target_dyn_into::<web_sys::HtmlDetailsElement>().is_some_and(|d| d.open());
            if open && !*opened {
                opened.set(true);
            }
        })
    };
    (*opened, ontoggle)
}
