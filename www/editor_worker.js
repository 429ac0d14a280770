// The editor worker's loader (a classic worker; www/src/worker/editing.rs starts it from the
// explorer worker). It loads the editor binary's glue (no-modules target, which defines
// `wasm_bindgen`) and starts it with the binary next to it, passed as the single object the
// glue asks for (a bare URL works too, but the glue warns that the form is deprecated).
importScripts('./editor.js');
wasm_bindgen({ module_or_path: './editor_bg.wasm' });
