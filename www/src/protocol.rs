//! Messages between the page and its explorer worker, sent with `postMessage` as structured
//! clones (serde-wasm-bindgen): the file goes over as the `Blob` it is (a reference, not a
//! copy), bytes as `Uint8Array`s, 64-bit numbers as `BigInt`s so that no offset is rounded.

use crate::model::Doc;
use crate::settings::Settings;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

#[derive(Serialize, Deserialize)]
pub enum ToWorker {
    /// Explore this file within the limits of `settings`; the worker reads the parts it needs
    /// by slicing it.
    Explore {
        name: String,
        #[serde(with = "serde_wasm_bindgen::preserve")]
        file: web_sys::Blob,
        settings: Settings,
    },
    /// Send the bytes `offset..offset+len` of a byte space of the explored file.
    Read { request: u32, space: u32, offset: u64, len: u32 },
}

#[derive(Serialize, Deserialize, Debug)]
pub enum FromWorker {
    /// The worker's code is loaded and it listens.
    Ready,
    Progress { stage: String, bytes_read: u64 },
    Explored(Doc),
    Bytes {
        request: u32,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    ReadFailed { request: u32, message: String },
    Failed { message: String },
}

fn serializer() -> serde_wasm_bindgen::Serializer {
    serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true)
}

pub fn encode<T: Serialize>(message: &T) -> Result<JsValue, String> {
    message.serialize(&serializer()).map_err(|e| e.to_string())
}

pub fn decode<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}
