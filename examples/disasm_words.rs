//! Decodes candidate instructions for the table generators' checks (`scripts/disasm/`): each
//! line of standard input is one candidate's dwords in hex (`BE800000 3F800000`); each line of
//! output is the decoded text and its size in bytes, tab-separated, or `<none>`.
//!
//!     cargo run --release -p offload --example disasm_words -- gfx90a < words.txt

use std::io::{BufRead, BufWriter, Write};

use offload::disasm::{decode, Isa};

fn main() {
    let processor = std::env::args().nth(1).unwrap_or_else(|| String::from("gfx90a"));
    let Some(isa) = Isa::for_processor(&processor) else {
        eprintln!("disasm_words: {processor} is not a GFX8-GFX12 processor");
        std::process::exit(2);
    };
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line.expect("standard input");
        let bytes: Vec<u8> = line
            .split_whitespace()
            .filter_map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16).ok())
            .flat_map(u32::to_le_bytes)
            .collect();
        let _ = match decode(isa, &bytes, 0) {
            Some(d) => writeln!(out, "{}\t{}", d.text, d.size),
            None => writeln!(out, "<none>"),
        };
    }
}
