//! `offload disasm --cfg` and `--pressure`: each function's basic blocks, branch edges, loops
//! and unreachable blocks, and its live-register peak beside what the kernel is allocated
//! (text, `--json`, and `--dot` for Graphviz). The images and kernels are chosen as for the
//! listing (`--target`, `--kernel`); the analysis is `offload::disasm::flow`.

use super::{for_each_image, DisasmArgs, Image};
use crate::fail::{Failure, Outcome};
use clap::Args;
use offload::disasm::flow::{self, Allocation, File, Flow};
use offload::disasm::Listing;
use offload::report::demangle::demangle;
use serde_json::{json, Value};
use std::io::Write;

#[derive(Args, Default)]
pub struct FlowArgs {
    /// Print each function's control-flow graph: basic blocks, branch edges, loops and
    /// unreachable blocks (with `--json`: as JSON; with `--dot`: as Graphviz).
    #[arg(long)]
    pub cfg: bool,
    /// The control-flow graph as a Graphviz `digraph` (implies `--cfg`).
    #[arg(long)]
    pub dot: bool,
    /// Print each function's register pressure: the peak of live VGPRs, AGPRs and SGPRs,
    /// where it is, which loop holds it, what is allocated and the occupancy; with `--kernel`,
    /// each instruction with its live counts.
    #[arg(long)]
    pub pressure: bool,
}

impl FlowArgs {
    pub fn wanted(&self) -> bool {
        self.cfg || self.dot || self.pressure
    }
}

/// One code object's listing with its functions analysed.
struct Analysed {
    image: Image,
    listing: Listing,
    functions: Vec<(Flow, Option<Allocation>)>,
}

pub fn run(a: &DisasmArgs, file: &str) -> Outcome<()> {
    let kernel = a.kernel.as_deref();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = |e: std::io::Error| Failure::new(format!("writing the analysis: {e}"));
    let flow = &a.flow;
    let mut images: Vec<Value> = Vec::new();
    let mut clusters = 0usize;
    if flow.dot {
        write_dot_start(&mut out).map_err(written)?;
    }
    // Each image is analysed, printed (or turned into its JSON) and dropped before the next
    // is decoded: a package of thousands of code objects is never held whole.
    for_each_image(a, file, &mut |image, bytes| {
        // Images that are not AMDGPU code objects the disassembler reads have no flow.
        let Ok(listing) = Listing::of_code_object(bytes) else { return Ok(()) };
        let x = analyse(image, listing, bytes, kernel);
        if x.functions.is_empty() {
            return Ok(());
        }
        if flow.dot {
            clusters = write_dot_clusters(&mut out, &x, clusters).map_err(written)?;
        } else if a.json {
            images.push(image_json(&x, flow, kernel.is_some()));
        } else {
            write_text(&mut out, &x, flow, kernel.is_some(), images.len() + clusters > 0).map_err(written)?;
            clusters += 1;
        }
        Ok(())
    })?;
    if images.is_empty() && clusters == 0 {
        let what = kernel.map_or(String::from("an AMDGPU code object"), |k| format!("a kernel named {k}"));
        return Err(Failure::new(format!("{file}: no {what} to analyse")));
    }
    let done = if flow.dot {
        writeln!(out, "}}")
    } else if a.json {
        let doc = json!({"file": file, "images": images});
        serde_json::to_writer_pretty(&mut out, &doc).map_err(std::io::Error::from).and_then(|_| writeln!(out))
    } else {
        Ok(())
    };
    done.and_then(|_| out.flush()).map_err(written)
}

fn analyse(image: Image, listing: Listing, bytes: &[u8], kernel: Option<&str>) -> Analysed {
    let allocations = flow::budget::allocations(bytes, &listing.processor, listing.isa);
    let functions = flow::functions(&listing)
        .into_iter()
        .filter(|(name, _, _)| kernel.is_none_or(|k| super::names_kernel(name, k)))
        .map(|(name, _, lines)| {
            let allocation = allocations.iter().find(|al| al.kernel == name).cloned();
            let wave64 = allocation.as_ref().is_none_or(|al| al.wave_size != 32);
            (flow::analyze(&listing, &name, lines, wave64), allocation)
        })
        .collect();
    Analysed { image, listing, functions }
}

fn header(out: &mut dyn Write, image: &Image) -> std::io::Result<()> {
    match image.target.as_str() {
        "" => writeln!(out, "{}", image.chain),
        target => writeln!(out, "{}: {target}", image.chain),
    }
}

fn write_text(
    out: &mut dyn Write,
    x: &Analysed,
    args: &FlowArgs,
    one_kernel: bool,
    after: bool,
) -> std::io::Result<()> {
    {
        if after {
            writeln!(out)?;
        }
        header(out, &x.image)?;
        for (flow, allocation) in &x.functions {
            writeln!(out)?;
            let kind = if allocation.is_some() { "kernel" } else { "function" };
            writeln!(out, "{kind} {} at {:#x}", demangle(&flow.name), flow.address)?;
            if args.cfg {
                write_cfg_text(out, &x.listing, flow)?;
            }
            if args.pressure {
                writeln!(out, "  {}", flow.summary(&x.listing, allocation.as_ref()))?;
                if let Some(waves) = at_peak(&x.listing, flow, allocation.as_ref()) {
                    writeln!(out, "  allocated exactly at the peak: {waves} waves per SIMD")?;
                }
                if one_kernel {
                    write_pressure_lines(out, &x.listing, flow)?;
                }
            }
        }
    }
    Ok(())
}

/// The occupancy an allocation of exactly the peak would give, when it differs from the
/// allocation's.
fn at_peak(listing: &Listing, flow: &Flow, allocation: Option<&Allocation>) -> Option<u32> {
    let allocation = allocation?;
    let peak = |f| u32::from(flow.peak(f).count);
    let sgprs = allocation.sgprs.unwrap_or(0);
    let waves = flow::budget::occupancy_at(
        &listing.processor,
        listing.isa,
        allocation,
        peak(File::Vgpr),
        peak(File::Agpr),
        sgprs.min(peak(File::Sgpr)),
    )?;
    (Some(waves) != allocation.occupancy).then_some(waves)
}

fn write_cfg_text(out: &mut dyn Write, listing: &Listing, flow: &Flow) -> std::io::Result<()> {
    let edges: usize = flow.blocks.iter().map(|b| b.successors.len()).sum();
    let unreachable = flow.blocks.iter().filter(|b| !b.reachable).count();
    writeln!(
        out,
        "  {} blocks, {edges} edges, {} loops, {unreachable} unreachable{}{}",
        flow.blocks.len(),
        flow.loops.len(),
        if flow.irreducible > 0 { format!(", {} irreducible edges", flow.irreducible) } else { String::new() },
        if flow.has_indirect { " (an indirect jump may reach them)" } else { "" },
    )?;
    for (b, block) in flow.blocks.iter().enumerate() {
        let successors: Vec<String> = block
            .successors
            .iter()
            .map(|e| match e.to {
                Some(t) => format!("{t} ({})", e.kind.as_str()),
                None => format!("{:#x} outside ({})", e.address, e.kind.as_str()),
            })
            .collect();
        let mut notes = Vec::new();
        if !block.reachable {
            notes.push(String::from("unreachable"));
        }
        if let Some(l) = flow.loop_of(b) {
            notes.push(format!("loop {:#x}", flow.blocks[l.header].address));
        }
        if flow.loops.iter().any(|l| l.header == b) {
            notes.push(String::from("loop header"));
        }
        let arrow = if successors.is_empty() { String::new() } else { format!(" -> {}", successors.join(", ")) };
        let notes = if notes.is_empty() { String::new() } else { format!("  [{}]", notes.join(", ")) };
        writeln!(
            out,
            "  block {b} {:#x}-{:#x} {} instructions, {}{arrow}{notes}",
            block.address,
            block.end_address,
            block.end - block.first,
            block.exit.as_str(),
        )?;
    }
    for l in &flow.loops {
        let latches: Vec<String> = l.latches.iter().map(|b| b.to_string()).collect();
        let body: Vec<String> = l.body.iter().map(|b| b.to_string()).collect();
        writeln!(
            out,
            "  loop at {:#x}: header {}, blocks {}, back edges from {}, depth {}",
            flow.blocks[l.header].address,
            l.header,
            body.join(" "),
            latches.join(" "),
            l.depth
        )?;
    }
    let _ = listing;
    Ok(())
}

/// Each instruction with its live VGPRs, AGPRs and SGPRs.
fn write_pressure_lines(out: &mut dyn Write, listing: &Listing, flow: &Flow) -> std::io::Result<()> {
    writeln!(out, "  {:>5} {:>5} {:>5}  instruction", "VGPRs", "AGPRs", "SGPRs")?;
    for (line, p) in listing.lines[flow.lines.clone()].iter().zip(&flow.pressure) {
        writeln!(out, "  {:>5} {:>5} {:>5}  {}", p.vgprs, p.agprs, p.sgprs, listing.objdump_line(line).trim_start())?;
    }
    Ok(())
}

fn mix_json(listing: &Listing, range: std::ops::Range<usize>) -> Value {
    let mut map = serde_json::Map::new();
    for (class, n) in Flow::mix(listing, range) {
        map.insert(class.map_or("undecoded", |c| c.as_str()).to_string(), json!(n));
    }
    Value::Object(map)
}

fn image_json(x: &Analysed, args: &FlowArgs, one_kernel: bool) -> Value {
    let functions: Vec<Value> = x
        .functions
        .iter()
        .map(|(flow, allocation)| function_json(&x.listing, flow, allocation.as_ref(), args, one_kernel))
        .collect();
    json!({"image": x.image.chain, "target": x.image.target, "processor": &x.listing.processor, "functions": functions})
}

/// `{name, demangled, address, kernel, instructions, mix, cfg?, pressure?}`.
fn function_json(
    listing: &Listing,
    flow: &Flow,
    allocation: Option<&Allocation>,
    args: &FlowArgs,
    one_kernel: bool,
) -> Value {
    let mut v = json!({
        "name": flow.name,
        "demangled": demangle(&flow.name),
        "address": flow.address,
        "kernel": allocation.is_some(),
        "instructions": flow.lines.len(),
        "mix": mix_json(listing, flow.lines.clone()),
    });
    if args.cfg {
        v["cfg"] = cfg_json(listing, flow);
    }
    if args.pressure {
        v["pressure"] = pressure_json(listing, flow, allocation, one_kernel);
    }
    v
}

/// `{blocks: [{address, end, instructions, exit, successors: [{kind, block, address}],
/// predecessors, reachable, loop, loop_depth, mix}], loops: [{header, address, blocks, latches,
/// depth}], irreducible_edges, indirect}`.
fn cfg_json(listing: &Listing, flow: &Flow) -> Value {
    let start = flow.lines.start;
    let blocks: Vec<Value> = flow
        .blocks
        .iter()
        .enumerate()
        .map(|(b, block)| {
            json!({
                "address": block.address,
                "end": block.end_address,
                "instructions": block.end - block.first,
                "exit": block.exit.as_str(),
                "successors": block.successors.iter().map(|e| json!({"kind": e.kind.as_str(), "block": e.to, "address": e.address})).collect::<Vec<_>>(),
                "predecessors": block.predecessors,
                "reachable": block.reachable,
                "loop": flow.loop_of(b).map(|l| flow.blocks[l.header].address),
                "loop_depth": flow.loop_depth(b),
                "mix": mix_json(listing, start + block.first..start + block.end),
            })
        })
        .collect();
    let loops: Vec<Value> = flow
        .loops
        .iter()
        .map(|l| {
            json!({"header": l.header, "address": flow.blocks[l.header].address, "blocks": l.body, "latches": l.latches, "depth": l.depth})
        })
        .collect();
    json!({"blocks": blocks, "loops": loops, "irreducible_edges": flow.irreducible, "indirect": flow.has_indirect})
}

/// `{summary, peak: {vgprs|agprs|sgprs: {count, address, loop}}, allocated: {vgprs, agprs,
/// sgprs, source}, occupancy, max_waves, limited_by, occupancy_at_peak, lines?}`; `lines` (with
/// `--kernel`): `[address, vgprs, agprs, sgprs]` per instruction.
fn pressure_json(listing: &Listing, flow: &Flow, allocation: Option<&Allocation>, one_kernel: bool) -> Value {
    let peak = |file| {
        let p = flow.peak(file);
        let address = listing.lines.get(p.line).map(|l| l.address);
        let in_loop = flow.block_of(p.line).and_then(|b| flow.loop_of(b)).map(|l| flow.blocks[l.header].address);
        json!({"count": p.count, "address": address, "loop": in_loop})
    };
    let mut v = json!({
        "summary": flow.summary(listing, allocation),
        "peak": {"vgprs": peak(File::Vgpr), "agprs": peak(File::Agpr), "sgprs": peak(File::Sgpr)},
        "allocated": allocation.map(|a| json!({"vgprs": a.vgprs, "agprs": a.agprs, "sgprs": a.sgprs, "source": match a.source {
            flow::Source::Metadata => "metadata",
            flow::Source::Descriptor => "descriptor",
        }})),
        "occupancy": allocation.and_then(|a| a.occupancy),
        "max_waves": allocation.and_then(|a| a.max_waves),
        "limited_by": allocation.and_then(|a| a.limited_by.clone()),
        "occupancy_at_peak": at_peak(listing, flow, allocation).or_else(|| allocation.and_then(|a| a.occupancy)),
    });
    if one_kernel {
        let lines: Vec<Value> = listing.lines[flow.lines.clone()]
            .iter()
            .zip(&flow.pressure)
            .map(|(l, p)| json!([l.address, p.vgprs, p.agprs, p.sgprs]))
            .collect();
        v["lines"] = json!(lines);
    }
    v
}

/// The start of the one `digraph` of `--dot`.
fn write_dot_start(out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "digraph cfg {{")?;
    writeln!(out, "  node [shape=box, fontname=\"monospace\"];")
}

/// A cluster per function of one image, numbered from `cluster`: blocks as boxes (address
/// range, instruction count, exit), taken edges solid, fall-through and call-return edges
/// dashed, back edges bold red, unreachable blocks grey. Gives the next cluster number.
fn write_dot_clusters(out: &mut dyn Write, x: &Analysed, mut cluster: usize) -> std::io::Result<usize> {
    for (flow, _) in &x.functions {
        let id = |b: usize| format!("f{cluster}_b{b}");
        writeln!(out, "  subgraph cluster_{cluster} {{")?;
        let title = match x.image.target.as_str() {
            "" => demangle(&flow.name).into_owned(),
            target => format!("{} ({target})", demangle(&flow.name)),
        };
        writeln!(out, "    label=\"{}\";", escape(&title))?;
        for (b, block) in flow.blocks.iter().enumerate() {
            let header = flow.loops.iter().any(|l| l.header == b);
            let label = format!(
                "{:#x}-{:#x}\\n{} instructions, {}{}",
                block.address,
                block.end_address,
                block.end - block.first,
                block.exit.as_str(),
                if header { "\\nloop header" } else { "" }
            );
            let style = if block.reachable { "" } else { ", style=filled, fillcolor=lightgrey" };
            writeln!(out, "    {} [label=\"{label}\"{style}];", id(b))?;
        }
        for (b, block) in flow.blocks.iter().enumerate() {
            for e in &block.successors {
                let Some(to) = e.to else { continue };
                let back = flow.loops.iter().any(|l| l.header == to && l.latches.contains(&b));
                let style = match (back, e.kind) {
                    (true, _) => "style=bold, color=red",
                    (false, flow::EdgeKind::Taken) => "style=solid",
                    (false, _) => "style=dashed",
                };
                writeln!(out, "    {} -> {} [{style}];", id(b), id(to))?;
            }
        }
        writeln!(out, "  }}")?;
        cluster += 1;
    }
    Ok(cluster)
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}
