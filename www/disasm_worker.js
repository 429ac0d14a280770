// The disassembler worker's loader (a classic worker; www/src/page/disasm_client.rs starts it
// from the page the first time the Code view opens). It loads the disasm binary's glue
// (no-modules target, which defines `wasm_bindgen`) and starts it with the binary next to it.
importScripts('./disasm.js');
wasm_bindgen({ module_or_path: './disasm_bg.wasm' });
