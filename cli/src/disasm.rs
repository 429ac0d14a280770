//! `offload disasm FILE`: the instructions of every AMDGPU code object in a file, wherever it
//! sits (a bare code object, bundles, compressed bundles, offload binaries, archives, objects,
//! libraries, packages, kpack archives), printed line for line as `llvm-objdump -d` prints them;
//! `--kernel` narrows to one kernel (its code and its descriptor's `.amdhsa_*` directives).
//!
//! NVIDIA images: a PTX entry prints its text (`--kernel`: that entry's function); a cubin's SASS
//! has no public encoding, so the command says so and points to `offload kernels`.

pub mod flow;

use crate::fail::{Failure, Outcome};
use crate::io::{open_lazy, shown, LazyFile};
use crate::Limits;
use clap::Args;
use object::ReadRef;
use offload::disasm::{descriptor, listing, Line, Listing};
use offload::explore::{member_spaces_again, Options, Recovered};
use offload::report::demangle::demangle;
use offload::report::targets::{self, Target};
use offload::tree::Span;
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct DisasmArgs {
    /// The file to read: a code object, bundle, offload binary, archive, object, library or
    /// package.
    pub file: PathBuf,
    /// Only these targets (`gfx90a:xnack+`, or a processor, `gfx90a`); repeat or separate
    /// with commas.
    #[arg(long = "target", value_delimiter = ',')]
    pub targets: Vec<String>,
    /// Only this kernel (its name as the image has it, or demangled): its code, then its
    /// kernel descriptor as `.amdhsa_*` directives.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Print one JSON document: each code object with its labels and instructions (address,
    /// words, text, class, branch target).
    #[arg(long)]
    pub json: bool,
    /// Decode runs of zero bytes like any other code, as `llvm-objdump -z` does, instead of
    /// printing `...` for a run of 8 or more zero bytes.
    #[arg(short = 'z', long = "disassemble-zeroes")]
    pub disassemble_zeroes: bool,
    #[command(flatten)]
    pub flow: flow::FlowArgs,
    #[command(flatten)]
    pub kpack: crate::kpack::KpackArgs,
    #[command(flatten)]
    pub limits: Limits,
}

/// Where a listed image is: the containers around it and its target.
pub(crate) struct Image {
    pub(crate) target: String,
    pub(crate) chain: String,
}

/// What one image gives: a listing, PTX text, or a note that it cannot be disassembled.
enum Disassembled {
    /// A code object's listing, and its kernel descriptors as llvm-objdump prints them:
    /// `(kernel, the `ADDRESS <NAME.kd>:` line and its directives)`.
    Code(Box<Listing>, Vec<(String, String)>),
    Ptx(String),
    NoEncoding(&'static str),
}

pub fn run(a: &DisasmArgs) -> Outcome<()> {
    let shown_file = shown(&a.file);
    let options = listing::Options { disassemble_zeroes: a.disassemble_zeroes };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = |e: std::io::Error| Failure::new(format!("writing the listing: {e}"));
    if a.flow.wanted() {
        return flow::run(a, &shown_file);
    }
    if !a.json && a.kernel.is_none() {
        // Every line of every code object: printed as it is decoded, never held whole.
        let mut first = true;
        for_each_image(a, &shown_file, &mut |image, bytes| {
            stream(&mut out, &image, bytes, first, options).map_err(written)?;
            first = false;
            Ok(())
        })?;
        return out.flush().map_err(written);
    }
    let mut results = Vec::new();
    for_each_image(a, &shown_file, &mut |image, bytes| {
        results.push((image, disassemble(bytes, options)));
        Ok(())
    })?;
    let results = narrow_to_kernel(results, a.kernel.as_deref(), &shown_file)?;
    let done = if a.json {
        let doc = document(&shown_file, &results, a.kernel.as_deref());
        serde_json::to_writer_pretty(&mut out, &doc).map_err(std::io::Error::from).and_then(|_| writeln!(out))
    } else {
        write_text(&mut out, &results, a.kernel.as_deref())
    };
    done.and_then(|_| out.flush()).map_err(written)
}

/// Calls `visit` with each device image of the file the user asked for and its bytes, in file
/// order.
pub(crate) fn for_each_image(
    a: &DisasmArgs,
    file: &str,
    visit: &mut dyn FnMut(Image, &[u8]) -> Outcome<()>,
) -> Outcome<()> {
    let name = a.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| file.to_string());
    let lazy = open_lazy(&a.file)?;
    let size = lazy.len().map_err(|()| Failure::new(format!("{file}: cannot read its size")))?;
    let head = lazy.read_bytes_at(0, size.min(4096)).unwrap_or(&[]);
    if is_device_image(head) {
        // A device image given alone (a code object, a cubin, PTX) is listed as it is.
        let data = crate::io::read_all(&a.file)?;
        return visit(Image { target: String::new(), chain: name }, &data);
    }
    if offload::format::package::detect(head).is_some() {
        return in_package(a, &lazy, &name, file, visit);
    }
    // The listing reads the images' bytes, so they are kept; every compressed bundle is
    // decompressed (within the limits) so that no target is missed.
    let data = crate::io::read_all(&a.file)?;
    let options = Options { verify_all: true, keep_bytes: true, ..a.limits.options() };
    let tree = crate::kpack::explore(&a.file, &data[..], &name, &options, &a.kpack)?;
    for (image, span) in chosen(file, &tree, &a.targets)? {
        let bytes = tree.bytes(&data, span).ok_or_else(|| unavailable(file, &image))?;
        visit(image, bytes)?;
    }
    Ok(())
}

/// One image's header line and listing, written as it is decoded.
fn stream(
    out: &mut dyn Write,
    image: &Image,
    bytes: &[u8],
    first: bool,
    options: listing::Options,
) -> std::io::Result<()> {
    if !first {
        writeln!(out)?;
    }
    write_header(out, image)?;
    if is_amdgpu_elf(bytes) {
        writeln!(out)?;
        let mut failed = None;
        let listed = listing::write_objdump_with(bytes, options, &mut |text| {
            if failed.is_none() {
                failed = out.write_all(text.as_bytes()).err();
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if listed.is_ok() {
            return Ok(());
        }
    }
    match disassemble(bytes, options) {
        Disassembled::Code(listing, _) => write_listing(out, &listing, &[], None),
        Disassembled::Ptx(text) => writeln!(out, "{text}"),
        Disassembled::NoEncoding(why) => writeln!(out, "  ({why})"),
    }
}

fn write_header(out: &mut dyn Write, image: &Image) -> std::io::Result<()> {
    match image.target.as_str() {
        "" => writeln!(out, "{}", image.chain),
        target => writeln!(out, "{}: {target}", image.chain),
    }
}

fn unavailable(file: &str, image: &Image) -> Failure {
    Failure::new(format!("{file}: the bytes of {} are not available", image.target))
}

/// The images of a package (wheel, tarball, …), in bounded memory: the package is explored
/// without keeping bytes (as `kernels` does), then each chosen image's bytes are found again by
/// exploring its member alone, one member at a time.
fn in_package(
    a: &DisasmArgs,
    lazy: &LazyFile,
    name: &str,
    file: &str,
    visit: &mut dyn FnMut(Image, &[u8]) -> Outcome<()>,
) -> Outcome<()> {
    let options = Options { verify_all: true, keep_bytes: false, ..a.limits.options() };
    let tree = crate::kpack::explore(&a.file, lazy, name, &options, &a.kpack)?;
    // The spaces of the member found last: images of one member come one after the other.
    let mut recovered: Recovered = Vec::new();
    for (image, span) in chosen(file, &tree, &a.targets)? {
        if span.space == 0 {
            let bytes = lazy.read_bytes_at(span.offset, span.size).map_err(|()| unavailable(file, &image))?;
            visit(image, bytes)?;
            continue;
        }
        if !recovered.iter().any(|(space, _)| *space == span.space) {
            // The previous member's bytes go before the next member's are read.
            recovered.clear();
            recovered = member_spaces_again(lazy, &tree, span.space, &options, &[], None)
                .map_err(|why| Failure::new(format!("{file}: the bytes of {}: {why}", image.target)))?;
        }
        let bytes = recovered
            .iter()
            .find(|(space, _)| *space == span.space)
            .and_then(|(_, bytes)| bytes.get(span.offset as usize..span.end() as usize))
            .ok_or_else(|| unavailable(file, &image))?;
        visit(image, bytes)?;
    }
    Ok(())
}

/// Whether the file starts as a device image itself: an AMDGPU code object, a cubin, PTX.
fn is_device_image(head: &[u8]) -> bool {
    is_amdgpu_elf(head) || is_cubin(head) || looks_like_ptx(head)
}

/// Whether `data` is an AMDGPU ELF file (`EM_AMDGPU`, 224).
fn is_amdgpu_elf(data: &[u8]) -> bool {
    data.starts_with(b"\x7fELF") && data.get(18..20) == Some(&[224, 0][..])
}

/// Whether `data` is a CUDA ELF file (`EM_CUDA`, 190).
fn is_cubin(data: &[u8]) -> bool {
    data.starts_with(b"\x7fELF") && data.get(18..20) == Some(&[190, 0][..])
}

/// Whether target `t` is one the user asked for (every target when none were named).
fn wanted(t: &Target, targets: &[String]) -> bool {
    targets.is_empty() || targets.iter().any(|w| &t.target_id == w || &t.processor == w || target_name(t) == *w)
}

fn target_name(t: &Target) -> String {
    targets::target_name(t)
}

/// The device images of `tree` the user asked for, with where their bytes are; an unknown
/// target is refused, naming the targets there are.
fn chosen(file: &str, tree: &offload::tree::Tree, names: &[String]) -> Outcome<Vec<(Image, Span)>> {
    let all = targets::collect(tree);
    if all.is_empty() {
        return Err(Failure::new(format!("{file}: no device images")));
    }
    let picked: Vec<&Target> = all.iter().filter(|t| wanted(t, names)).collect();
    if picked.is_empty() {
        let have: Vec<String> = all.iter().map(target_name).collect();
        return Err(Failure::new(format!(
            "{file}: no image for target {} (targets: {})",
            names.join(", "),
            have.join(", ")
        )));
    }
    let image = |t: &Target| {
        let chain: Vec<&str> = t.chain.iter().map(String::as_str).filter(|c| !c.is_empty()).collect();
        // NVIDIA images are told apart by the name cuobjdump gives them (`x.1.sm_80.cubin`).
        let target = match &t.file_name {
            Some(f) => format!("{} ({f})", target_name(t)),
            None => target_name(t),
        };
        Image { target, chain: chain.join(" / ") }
    };
    Ok(picked.into_iter().map(|t| (image(t), t.span)).collect())
}

fn disassemble(bytes: &[u8], options: listing::Options) -> Disassembled {
    if is_amdgpu_elf(bytes) {
        return match Listing::of_code_object_with(bytes, options) {
            Ok(listing) => {
                let descriptors = descriptors(bytes, listing.isa);
                Disassembled::Code(Box::new(listing), descriptors)
            }
            Err(_) => Disassembled::NoEncoding("not a GFX8-GFX12 code object the disassembler reads"),
        };
    }
    if is_cubin(bytes) {
        return Disassembled::NoEncoding(
            "a cubin: SASS has no public encoding; `offload kernels` shows its kernels' resources",
        );
    }
    if looks_like_ptx(bytes) {
        return Disassembled::Ptx(String::from_utf8_lossy(bytes).trim_end_matches('\0').to_string());
    }
    Disassembled::NoEncoding("not machine code (bitcode, SPIR-V or another format)")
}

/// The kernel descriptors of a code object, each as `llvm-objdump -D --disassemble-symbols=
/// <kernel>.kd` prints it; none when its symbols cannot be read (the listing says the rest).
fn descriptors(bytes: &[u8], isa: offload::disasm::Isa) -> Vec<(String, String)> {
    let symbols = descriptor::descriptor_symbols(bytes).unwrap_or_default();
    symbols
        .iter()
        .map(|d| {
            let text = format!("{:016x} <{}>:\n{}", d.address, d.symbol, d.objdump_text(isa));
            (d.kernel().to_string(), text)
        })
        .collect()
}

/// PTX is text that names its version near the start.
fn looks_like_ptx(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    std::str::from_utf8(head).map(|t| t.contains(".version")).unwrap_or(false)
}

/// Whether a label or PTX function `name` is the kernel the user named (as the image names it,
/// or demangled, or demangled up to its parameter list).
pub(crate) fn names_kernel(name: &str, wanted: &str) -> bool {
    if name == wanted {
        return true;
    }
    let readable = demangle(name);
    readable == wanted || readable.split('(').next() == Some(wanted)
}

/// With `--kernel`, only the images that have that kernel; refused when none has it.
fn narrow_to_kernel(
    results: Vec<(Image, Disassembled)>,
    kernel: Option<&str>,
    file: &str,
) -> Outcome<Vec<(Image, Disassembled)>> {
    let Some(kernel) = kernel else { return Ok(results) };
    let has = |d: &Disassembled| match d {
        Disassembled::Code(l, _) => l.symbols.iter().any(|s| names_kernel(&s.name, kernel)),
        Disassembled::Ptx(text) => ptx_function(text, kernel).is_some(),
        Disassembled::NoEncoding(_) => false,
    };
    let kept: Vec<_> = results.into_iter().filter(|(_, d)| has(d)).collect();
    if kept.is_empty() {
        return Err(Failure::new(format!("{file}: no kernel named {kernel} in a code object or PTX")));
    }
    Ok(kept)
}

/// The text of the PTX function (`.entry` or `.func`) named `kernel`, from its directive line
/// to its closing brace. Declarations without a body (`.extern .func f(...);`) are passed over.
fn ptx_function<'t>(text: &'t str, kernel: &str) -> Option<&'t str> {
    let mut search = 0;
    while let Some(at) = next_function(text, search) {
        let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        let after = &text[at..];
        let mut rest = after[after.find(char::is_whitespace)?..].trim_start();
        // A `.func` may name its return values first: `.func (.param .b32 r) name(`.
        if rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start();
        }
        let name: String = rest.chars().take_while(|c| !c.is_whitespace() && *c != '(').collect();
        let Some(end) = body_end(text, at) else {
            search = at + 1;
            continue;
        };
        if names_kernel(&name, kernel) {
            return Some(&text[start..end]);
        }
        search = end;
    }
    None
}

/// Where the next `.entry` or `.func` directive at or after `from` starts.
fn next_function(text: &str, from: usize) -> Option<usize> {
    let rest = &text[from..];
    let entry = rest.find(".entry ");
    let func = rest.find(".func ");
    let first = match (entry, func) {
        (Some(e), Some(f)) => e.min(f),
        (e, f) => e.or(f)?,
    };
    Some(from + first)
}

/// Where the body that starts at the first `{` after `from` closes (past its `}`); `None` for a
/// declaration, whose `;` comes before any `{`.
fn body_end(text: &str, from: usize) -> Option<usize> {
    let open = from + text[from..].find('{')?;
    if text[from..open].contains(';') {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(open + i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn write_text(out: &mut dyn Write, results: &[(Image, Disassembled)], kernel: Option<&str>) -> std::io::Result<()> {
    for (i, (image, result)) in results.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_header(out, image)?;
        match result {
            Disassembled::Code(listing, descriptors) => write_listing(out, listing, descriptors, kernel)?,
            Disassembled::Ptx(text) => match kernel.and_then(|k| ptx_function(text, k)) {
                Some(function) => writeln!(out, "{function}")?,
                None => writeln!(out, "{text}")?,
            },
            Disassembled::NoEncoding(why) => writeln!(out, "  ({why})")?,
        }
    }
    Ok(())
}

/// A code object's listing as llvm-objdump prints it; with `kernel`, that kernel's lines and
/// its descriptor's directives.
fn write_listing(
    out: &mut dyn Write,
    listing: &Listing,
    descriptors: &[(String, String)],
    kernel: Option<&str>,
) -> std::io::Result<()> {
    writeln!(out)?;
    let Some(kernel) = kernel else {
        return write!(out, "{}", listing.objdump_text());
    };
    for symbol in listing.symbols.iter().filter(|s| names_kernel(&s.name, kernel)) {
        writeln!(out, "{:016x} <{}>:", symbol.address, symbol.name)?;
        for line in listing.lines_of(symbol) {
            writeln!(out, "{}", listing.objdump_line(line))?;
        }
        if let Some((_, directives)) = descriptors.iter().find(|(k, _)| *k == symbol.name) {
            writeln!(out)?;
            write!(out, "{directives}")?;
        }
    }
    Ok(())
}

fn line_json(listing: &Listing, line: &Line) -> Value {
    let mut v = json!({
        "address": line.address,
        "offset": line.file_offset,
        "size": line.size,
        "kind": line.kind.as_str(),
        "words": listing.words(line),
        "text": line.text,
        "class": line.class.map(|c| c.as_str()),
    });
    if let Some(t) = line.target {
        v["target"] = json!(t);
        v["target_label"] = json!(listing.label_of(t));
    }
    v
}

/// `{file, images: [{image, target, processor?, labels?, lines?, ptx?, note?}]}`; a label is
/// `{name, demangled, address, size, descriptor}` (`descriptor`: its `.kd` as llvm-objdump -D
/// prints it, null for a label that is not a kernel); a line is
/// `{address, offset, size, kind, words, text, class, target?, target_label?}` (`kind`:
/// `instruction`, `undecoded` for a word printed as `.long`, or `zeros` for a run of `size` zero
/// bytes llvm-objdump prints as `...`, whose `words` are empty; `class` null for the last two;
/// `offset` within the code object).
fn document(file: &str, results: &[(Image, Disassembled)], kernel: Option<&str>) -> Value {
    let images: Vec<Value> = results
        .iter()
        .map(|(image, result)| {
            let mut v = json!({"image": image.chain, "target": image.target});
            match result {
                Disassembled::Code(listing, descriptors) => {
                    v["processor"] = json!(listing.processor);
                    let symbols: Vec<_> =
                        listing.symbols.iter().filter(|s| kernel.is_none_or(|k| names_kernel(&s.name, k))).collect();
                    let descriptor_of =
                        |name: &str| descriptors.iter().find(|(k, _)| k == name).map(|(_, text)| text.as_str());
                    v["labels"] = json!(symbols
                        .iter()
                        .map(|s| json!({
                            "name": s.name,
                            "demangled": demangle(&s.name),
                            "address": s.address,
                            "size": s.size,
                            "descriptor": descriptor_of(&s.name),
                        }))
                        .collect::<Vec<_>>());
                    let lines: Vec<Value> = match kernel {
                        Some(_) => {
                            symbols.iter().flat_map(|s| listing.lines_of(s)).map(|l| line_json(listing, l)).collect()
                        }
                        None => listing.lines.iter().map(|l| line_json(listing, l)).collect(),
                    };
                    v["lines"] = json!(lines);
                }
                Disassembled::Ptx(text) => {
                    let shown = kernel.and_then(|k| ptx_function(text, k)).unwrap_or(text);
                    v["ptx"] = json!(shown);
                }
                Disassembled::NoEncoding(why) => v["note"] = json!(why),
            }
            v
        })
        .collect();
    json!({"file": file, "images": images})
}
