//! SPIR-V modules: a stream of 32-bit words, in the byte order the magic number shows.
//!
//! | word | meaning | field |
//! |---|---|---|
//! | 0 | magic `0x07230203` (either byte order) | `byte_order` |
//! | 1 | version: major in bits 16-23, minor in bits 8-15 | `spirv_version` |
//! | 2 | generator: tool id in the high 16 bits, its version in the low 16 | `generator`, `generator_tool`, `generator_version` |
//! | 3 | bound on result ids | `id_bound` |
//! | 4 | schema (0) | |
//! | 5.. | instructions: word count in the high 16 bits, opcode in the low 16, then operands | |
//!
//! Instructions read, up to the first `OpFunction` (the module's preamble holds all of them):
//!
//! | opcode | instruction | what is kept |
//! |---|---|---|
//! | 3 | `OpSource` | `source_language`, `source_version` |
//! | 10 | `OpExtension` | `extensions` |
//! | 11 | `OpExtInstImport` | `ext_inst_imports` |
//! | 14 | `OpMemoryModel` | `addressing_model`, `memory_model` |
//! | 15 | `OpEntryPoint` | one `kernel` node: `name`, `execution_model`, `function_id` |
//! | 16 | `OpExecutionMode` | `LocalSize` (17) as `reqd_work_group_size`, `LocalSizeHint` (18) as `work_group_size_hint`, `SubgroupSize` (35) as `subgroup_size`, on the entry point |
//! | 17 | `OpCapability` | `capabilities` |
//!
//! A literal string is UTF-8, NUL-terminated, padded to a whole word.

use crate::tree::{Node, NodeKind, Severity, Span, Value};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub const FORMAT: &str = "SPIR-V module";
pub const MAGIC: u32 = 0x0723_0203;

const OP_SOURCE: u16 = 3;
const OP_EXTENSION: u16 = 10;
const OP_EXT_INST_IMPORT: u16 = 11;
const OP_MEMORY_MODEL: u16 = 14;
const OP_ENTRY_POINT: u16 = 15;
const OP_EXECUTION_MODE: u16 = 16;
const OP_CAPABILITY: u16 = 17;
const OP_FUNCTION: u16 = 54;

/// The names of the capabilities of the core specification (unified 1.6), by number.
const CAPABILITIES: &[&str] = &[
    "Matrix",
    "Shader",
    "Geometry",
    "Tessellation",
    "Addresses",
    "Linkage",
    "Kernel",
    "Vector16",
    "Float16Buffer",
    "Float16",
    "Float64",
    "Int64",
    "Int64Atomics",
    "ImageBasic",
    "ImageReadWrite",
    "ImageMipmap",
    "",
    "Pipes",
    "Groups",
    "DeviceEnqueue",
    "LiteralSampler",
    "AtomicStorage",
    "Int16",
    "TessellationPointSize",
    "GeometryPointSize",
    "ImageGatherExtended",
    "",
    "StorageImageMultisample",
    "UniformBufferArrayDynamicIndexing",
    "SampledImageArrayDynamicIndexing",
    "StorageBufferArrayDynamicIndexing",
    "StorageImageArrayDynamicIndexing",
    "ClipDistance",
    "CullDistance",
    "ImageCubeArray",
    "SampleRateShading",
    "ImageRect",
    "SampledRect",
    "GenericPointer",
    "Int8",
    "InputAttachment",
    "SparseResidency",
    "MinLod",
    "Sampled1D",
    "Image1D",
    "SampledCubeArray",
    "SampledBuffer",
    "ImageBuffer",
    "ImageMSArray",
    "StorageImageExtendedFormats",
    "ImageQuery",
    "DerivativeControl",
    "InterpolationFunction",
    "TransformFeedback",
    "GeometryStreams",
    "StorageImageReadWithoutFormat",
    "StorageImageWriteWithoutFormat",
    "MultiViewport",
    "SubgroupDispatch",
    "NamedBarrier",
    "PipeStorage",
    "GroupNonUniform",
    "GroupNonUniformVote",
    "GroupNonUniformArithmetic",
    "GroupNonUniformBallot",
    "GroupNonUniformShuffle",
    "GroupNonUniformShuffleRelative",
    "GroupNonUniformClustered",
    "GroupNonUniformQuad",
    "ShaderLayer",
    "ShaderViewportIndex",
    "UniformDecoration",
];

const EXECUTION_MODELS: &[&str] =
    &["Vertex", "TessellationControl", "TessellationEvaluation", "Geometry", "Fragment", "GLCompute", "Kernel"];
const SOURCE_LANGUAGES: &[&str] =
    &["Unknown", "ESSL", "GLSL", "OpenCL_C", "OpenCL_CPP", "HLSL", "CPP_for_OpenCL", "SYCL"];

fn named(table: &[&str], n: u32) -> String {
    match table.get(n as usize).filter(|s| !s.is_empty()) {
        Some(s) => s.to_string(),
        None => format!("{n}"),
    }
}

fn addressing_model(n: u32) -> String {
    match n {
        0 => "Logical".into(),
        1 => "Physical32".into(),
        2 => "Physical64".into(),
        5348 => "PhysicalStorageBuffer64".into(),
        _ => format!("{n}"),
    }
}

fn memory_model(n: u32) -> String {
    named(&["Simple", "GLSL450", "OpenCL", "Vulkan"], n)
}

/// Generator tool ids registered with Khronos that compilers of offload code use.
fn generator_tool(id: u32) -> Option<&'static str> {
    Some(match id {
        6 => "Khronos LLVM/SPIR-V Translator",
        7 => "Khronos SPIR-V Tools Assembler",
        8 => "Khronos Glslang Reference Front End",
        13 => "Google Shaderc over Glslang",
        14 => "Google spiregg",
        21 => "Google Clspv",
        22 => "Google MLIR SPIR-V Serializer",
        23 => "Google Tint Compiler",
        28 => "gfx-rs community Naga",
        43 => "LLVM SPIR-V Backend",
        _ => return None,
    })
}

/// A literal string starting at `words[0]`: the text and how many words it takes. Characters
/// fill each word from its lowest-order byte, whatever the module's byte order.
fn literal(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (i, w) in words.iter().enumerate() {
        for c in w.to_le_bytes() {
            if c == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), i + 1);
            }
            bytes.push(c);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}

/// Describes a SPIR-V module on its image node (lying at `span`).
pub fn describe(data: &[u8], node: &mut Node, span: Span) {
    let Some(head) = data.get(0..4) else { return };
    let little = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) == MAGIC;

    let word = |i: usize| -> Option<u32> {
        let b = data.get(i * 4..i * 4 + 4)?;
        let b = [b[0], b[1], b[2], b[3]];
        Some(if little { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) })
    };
    let at = |i: usize, n: usize| Some(span.sub(i as u64 * 4, n as u64 * 4));
    node.field("byte_order", if little { "little-endian" } else { "big-endian" }, at(0, 1));
    let (Some(version), Some(generator), Some(bound)) = (word(1), word(2), word(3)) else {
        node.diag(Severity::Error, format!("a SPIR-V header is 20 bytes; this module has {}", data.len()), Some(span));
        return;
    };
    node.field("spirv_version", format!("{}.{}", (version >> 16) & 0xff, (version >> 8) & 0xff), at(1, 1));
    node.field("generator", generator as u64, at(2, 1));
    let tool = generator >> 16;
    node.field("generator_tool", generator_tool(tool).map_or_else(|| format!("tool {tool}"), String::from), at(2, 1));
    node.field("generator_version", (generator & 0xffff) as u64, at(2, 1));
    node.field("id_bound", bound as u64, at(3, 1));

    let total = data.len() / 4;
    let mut capabilities = Vec::new();
    let mut extensions = Vec::new();
    let mut imports = Vec::new();
    let mut entries: Vec<(u32, Node)> = Vec::new();
    let mut dropped = 0u64;
    let mut i = 5;
    while i < total {
        let Some(first) = word(i) else { break };
        let (count, opcode) = ((first >> 16) as usize, (first & 0xffff) as u16);
        if count == 0 || i + count > total {
            let message =
                format!("instruction at word {i} (opcode {opcode}) declares {count} words; {} are left", total - i);
            node.diag(Severity::Error, message, at(i, 1));
            break;
        }
        let ops: Vec<u32> = (i + 1..i + count).filter_map(word).collect();
        match opcode {
            OP_FUNCTION => break,
            OP_CAPABILITY => {
                if let Some(&c) = ops.first() {
                    capabilities.push(named(CAPABILITIES, c));
                }
            }
            OP_EXTENSION => extensions.push(literal(&ops).0),
            OP_EXT_INST_IMPORT if ops.len() > 1 => imports.push(literal(&ops[1..]).0),
            OP_MEMORY_MODEL if ops.len() >= 2 => {
                node.field("addressing_model", addressing_model(ops[0]), at(i + 1, 1));
                node.field("memory_model", memory_model(ops[1]), at(i + 2, 1));
            }
            OP_SOURCE if !ops.is_empty() => {
                node.field("source_language", named(SOURCE_LANGUAGES, ops[0]), at(i + 1, 1));
                if let Some(&v) = ops.get(1) {
                    node.field("source_version", v as u64, at(i + 2, 1));
                }
            }
            OP_ENTRY_POINT if ops.len() >= 3 && entries.len() >= super::MAX_KERNEL_NODES => dropped += 1,
            OP_ENTRY_POINT if ops.len() >= 3 => {
                let (name, words) = literal(&ops[2..]);
                let mut k =
                    Node::new(NodeKind::Kernel, format!("kernel {name}"), span.sub(i as u64 * 4, count as u64 * 4));
                k.field("name", name.as_str(), at(i + 3, words));
                k.field("entry", true, None);
                k.field("function_kind", "entry", None);
                k.field("execution_model", named(EXECUTION_MODELS, ops[0]), at(i + 1, 1));
                k.field("function_id", ops[1] as u64, at(i + 2, 1));
                entries.push((ops[1], k));
            }
            OP_EXECUTION_MODE if ops.len() >= 2 => {
                let field = match ops[1] {
                    17 => Some("reqd_work_group_size"),
                    18 => Some("work_group_size_hint"),
                    35 => Some("subgroup_size"),
                    _ => None,
                };
                if let (Some(field), Some((_, k))) = (field, entries.iter_mut().find(|(id, _)| *id == ops[0])) {
                    let values: Vec<String> = ops[2..].iter().map(|v| format!("{v}")).collect();
                    let value = match values.len() {
                        1 => Value::Uint(ops[2] as u64),
                        _ => Value::Text(values.join(", ")),
                    };
                    k.field(field, value, at(i + 3, count - 3));
                }
            }
            _ => {}
        }
        i += count;
    }
    node.field("capabilities", capabilities.join(", "), None);
    if !extensions.is_empty() {
        node.field("extensions", extensions.join(", "), None);
    }
    if !imports.is_empty() {
        node.field("ext_inst_imports", imports.join(", "), None);
    }
    node.field("kernels", entries.len() as u64 + dropped, None);
    if dropped > 0 {
        node.diag(
            Severity::Error,
            format!("{dropped} more entry points are not shown: the limit is {}", super::MAX_KERNEL_NODES),
            None,
        );
    }
    node.children.extend(entries.into_iter().map(|(_, k)| k));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(little: bool) -> Vec<u8> {
        let name = u32::from_le_bytes(*b"k\0\0\0");
        let words: Vec<u32> = [
            MAGIC,
            0x0001_0400,
            0x002b_0016,
            9,
            0,
            (2 << 16) | 17,
            4, // OpCapability Addresses
            (2 << 16) | 17,
            6, // OpCapability Kernel
            (3 << 16) | 14,
            2,
            2, // OpMemoryModel Physical64 OpenCL
            (4 << 16) | 15,
            6,
            5,
            name, // OpEntryPoint Kernel %5 "k"
            (6 << 16) | 16,
            5,
            17,
            64,
            1,
            1, // OpExecutionMode %5 LocalSize 64 1 1
            (5 << 16) | 54,
            1,
            5,
            0,
            2,              // OpFunction: the end of what is read
            (1 << 16) | 17, // never read
        ]
        .to_vec();
        words.iter().flat_map(|&w| if little { w.to_le_bytes() } else { w.to_be_bytes() }).collect()
    }

    #[test]
    fn header_capabilities_and_entry_points_in_both_byte_orders() {
        for little in [true, false] {
            let data = module(little);
            let mut n = Node::new(NodeKind::Image, FORMAT, Span::new(0, 0, data.len() as u64));
            let span = n.span;
            describe(&data, &mut n, span);
            assert!(n.diagnostics.is_empty(), "{:?}", n.diagnostics);
            assert_eq!(n.text("spirv_version"), Some("1.4"));
            assert_eq!(n.text("generator_tool"), Some("LLVM SPIR-V Backend"));
            assert_eq!(n.get("generator_version"), Some(&Value::Uint(22)));
            assert_eq!(n.text("capabilities"), Some("Addresses, Kernel"));
            assert_eq!(n.text("memory_model"), Some("OpenCL"));
            assert_eq!(n.children.len(), 1);
            let k = &n.children[0];
            assert_eq!(k.text("name"), Some("k"));
            assert_eq!(k.text("execution_model"), Some("Kernel"));
            assert_eq!(k.text("reqd_work_group_size"), Some("64, 1, 1"));
        }
    }

    #[test]
    fn truncated_and_zero_length_instructions_stop_with_an_error() {
        let data = module(true);
        for n in 0..data.len() {
            let mut node = Node::new(NodeKind::Image, FORMAT, Span::new(0, 0, n as u64));
            let span = node.span;
            describe(&data[..n], &mut node, span);
        }
        let mut zero = data[..20].to_vec();
        zero.extend([0, 0, 0, 0]);
        let mut node = Node::new(NodeKind::Image, FORMAT, Span::default());
        let span = node.span;
        describe(&zero, &mut node, span);
        assert!(node.diagnostics[0].message.contains("declares 0 words"), "{:?}", node.diagnostics);
    }
}
