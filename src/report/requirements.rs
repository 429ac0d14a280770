//! What a file needs of the tools, runtime or driver that read it: every container and image
//! says what it needs to load, and [`strictest`] keeps the most demanding need of each kind
//! (what `offload fit` prints).
//!
//! | kind | read from | needs | source |
//! |---|---|---|---|
//! | compressed bundle v1 | `CCOB` header `version` 1 | clang-offload-bundler / HIP runtime of LLVM 18 or later, built with the method (zlib or zstd) | llvm/llvm-project#67162 ("[HIP] Support compressing device binary", LLVM 18) |
//! | compressed bundle v2 | `version` 2 (32-bit total size in the header) | LLVM 19 or later (`__hipRegisterFatBinary` takes the size from the header) | llvm/llvm-project#88827 ("Add file size to header") |
//! | compressed bundle v3 | `version` 3 (64-bit sizes) | LLVM 20 or later to unbundle; a HIP runtime with v3 support, which LLVM 22 writes by default (`COMPRESSED_BUNDLE_FORMAT_VERSION=2` writes v2 for older runtimes) | llvm/llvm-project#122307 (v3, LLVM 20), #152600 ("compressed bundle format defaults to v3") |
//! | offload binary v1 | `10 FF 10 AD` header `version` 1 | LLVM 15 or later (the new offloading driver, `clang-linker-wrapper`) | `llvm/include/llvm/Object/OffloadBinary.h` |
//! | offload binary v2, v3 | `version` 2 (several entries), 3 (compressed) | LLVM after 22 (main): LLVM 22 refuses them | `OffloadBinary.h` on LLVM main; LLVM 22.1.8 (tested here) |
//! | AMDGPU code object vN | `e_ident[EI_ABIVERSION]` + 2 | a ROCm runtime (ROCr loader, comgr) that knows code object vN; v6 is written by LLVM 19 or later | LLVM `AMDGPUUsage.rst`, "Code Object Metadata" (V2–V6) |
//! | AMDGPU generic code object | `EF_AMDGPU_GENERIC_VERSION` in `e_flags` (v6) | a runtime that loads generic processors, at least that generic version | `AMDGPUUsage.rst`, "Generic Processor Versioning" |
//! | NVIDIA fatbin entry, LZ4 | entry flags | CUDA drivers since CUDA 11 (nvJPEG for CUDA 11.8 ships LZ4 entries); CUDA 12 driver 525.60.13 or later, CUDA 13 driver 580 or later | RAPIDS `rapids_cuda_enable_fatbin_compression` (driver table) |
//! | NVIDIA fatbin entry, zstd | entry flags | CUDA 12 driver 550.54.14 (CUDA 12.4) or later, CUDA 13 driver 580 or later; an older driver says "device kernel image is invalid" | RAPIDS `rapids_cuda_enable_fatbin_compression` (driver table) |
//! | kpack'd device code | a `.rocm_kpack_ref` section (HIP fatbin wrappers with the `HIPK` magic) | a HIP runtime that finds the code objects through rocm-kpack's loader, and the `.kpack` archives where the reference's search paths point; a runtime without that loader finds no code object in the binary (`hipErrorNoBinaryForGpu`) | ROCm/rocm-kpack `README.md` and `runtime/src/loader.cpp`; TheRock RFC0008, "Multi-Architecture Packaging with Kpack" |
//! | PTX ISA X.Y | `.version` of the PTX | a driver of the CUDA version that introduced PTX ISA X.Y ([`cuda_for_ptx`]) | PTX ISA, "Release Notes" (PTX ISA version per CUDA release) |

use crate::tree::{Node, NodeKind, Tree, Value};
use crate::util::sort;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// What a requirement is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum RequirementKind {
    CompressedBundle,
    OffloadBinary,
    CodeObject,
    GenericCodeObject,
    FatbinCompression,
    Ptx,
    KpackLoader,
}

/// One need of one or more containers or images.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Requirement {
    pub kind: RequirementKind,
    /// What is in the file: `compressed bundle v3 (zstd)`, `AMDGPU code object v5`.
    pub what: String,
    /// What reads it.
    pub needs: String,
    /// Where that fact comes from.
    pub source: String,
    /// How demanding it is among needs of its kind (higher is newer).
    pub level: u32,
    /// How many containers or images have it.
    pub count: usize,
    /// Child indices from the root to the first node that has it.
    pub path: Vec<usize>,
}

/// Every distinct need of the explored file, in tree order of first appearance.
pub fn requirements(tree: &Tree) -> Vec<Requirement> {
    let mut out: Vec<Requirement> = Vec::new();
    let mut path = Vec::new();
    visit(&tree.root, &mut path, &mut out);
    out
}

/// The most demanding need of each kind.
pub fn strictest(all: &[Requirement]) -> Vec<Requirement> {
    let mut out: Vec<Requirement> = Vec::new();
    for r in all {
        match out.iter_mut().find(|o| o.kind == r.kind) {
            Some(o) if r.level > o.level => *o = r.clone(),
            Some(_) => {}
            None => out.push(r.clone()),
        }
    }
    sort::sort_by_key(&mut out, |r| r.kind);
    out
}

fn visit(node: &Node, path: &mut Vec<usize>, out: &mut Vec<Requirement>) {
    for r in needs_of(node) {
        match out.iter_mut().find(|o| o.kind == r.kind && o.what == r.what) {
            Some(o) => o.count += 1,
            None => out.push(Requirement { path: path.clone(), ..r }),
        }
    }
    for (i, c) in node.children.iter().enumerate() {
        path.push(i);
        visit(c, path, out);
        path.pop();
    }
}

fn uint(node: &Node, name: &str) -> Option<u64> {
    match node.get(name) {
        Some(Value::Uint(v)) => Some(*v),
        _ => None,
    }
}

fn need(kind: RequirementKind, what: String, needs: &str, source: &str, level: u32) -> Requirement {
    Requirement { kind, what, needs: needs.to_string(), source: source.to_string(), level, count: 1, path: Vec::new() }
}

/// The needs one node states.
fn needs_of(node: &Node) -> Vec<Requirement> {
    match node.kind {
        NodeKind::CompressedBundle => compressed_bundle(node).into_iter().collect(),
        NodeKind::OffloadBinary => offload_binary(node).into_iter().collect(),
        NodeKind::FatbinEntry => fatbin_entry(node).into_iter().collect(),
        NodeKind::KpackReference => alloc::vec![kpack_reference()],
        NodeKind::Image => match node.text("format") {
            Some("AMDGPU code object") => code_object(node),
            Some("PTX") => ptx(node).into_iter().collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn kpack_reference() -> Requirement {
    need(
        RequirementKind::KpackLoader,
        "kpack'd device code (.rocm_kpack_ref)".to_string(),
        "a HIP runtime that loads code objects through rocm-kpack's loader, and the .kpack archives the reference's search paths name; without that loader the runtime finds no code object in this binary (hipErrorNoBinaryForGpu)",
        "ROCm/rocm-kpack README.md and runtime/src/loader.cpp; TheRock RFC0008 \"Multi-Architecture Packaging with Kpack\"",
        1,
    )
}

fn compressed_bundle(node: &Node) -> Option<Requirement> {
    let version = uint(node, "version")?;
    let method = node.text("method").unwrap_or("unknown method");
    let (needs, source) = match version {
        1 => ("clang-offload-bundler or a HIP runtime of LLVM 18 or later", "llvm/llvm-project#67162"),
        2 => ("clang-offload-bundler or a HIP runtime of LLVM 19 or later (the size is in the header)", "llvm/llvm-project#88827"),
        3 => (
            "LLVM 20 or later to unbundle, and a HIP runtime that reads v3 (LLVM 22's default; older runtimes need v2: COMPRESSED_BUNDLE_FORMAT_VERSION=2)",
            "llvm/llvm-project#122307, #152600",
        ),
        _ => ("a reader of a compressed bundle version LLVM 22 does not know", "LLVM 22 clang/lib/Driver/OffloadBundler.cpp"),
    };
    let needs = format!("{needs}, built with {method}");
    Some(need(
        RequirementKind::CompressedBundle,
        format!("compressed bundle v{version} ({method})"),
        &needs,
        source,
        version as u32,
    ))
}

fn offload_binary(node: &Node) -> Option<Requirement> {
    let version = uint(node, "version")?;
    let (needs, source) = match version {
        1 => {
            ("LLVM 15 or later (clang-linker-wrapper, llvm-offload-binary)", "llvm/include/llvm/Object/OffloadBinary.h")
        }
        _ => ("LLVM after 22 (main): LLVM 22 refuses offload binary versions above 1", "OffloadBinary.h on LLVM main"),
    };
    Some(need(RequirementKind::OffloadBinary, format!("offload binary v{version}"), needs, source, version as u32))
}

fn fatbin_entry(node: &Node) -> Option<Requirement> {
    let method = node.text("compressed")?;
    let (needs, level) = match method {
        "lz4" => ("CUDA 11 drivers and later (CUDA 12: 525.60.13+, CUDA 13: 580+)", 1),
        "zstd" => (
            "a CUDA 12.4 driver (550.54.14) or later, CUDA 13: 580+; older drivers: \"device kernel image is invalid\"",
            2,
        ),
        _ => return None,
    };
    let source = "RAPIDS rapids-cmake rapids_cuda_enable_fatbin_compression (driver versions per compression mode)";
    Some(need(
        RequirementKind::FatbinCompression,
        format!("NVIDIA fatbin entries compressed with {method}"),
        needs,
        source,
        level,
    ))
}

fn code_object(node: &Node) -> Vec<Requirement> {
    let mut out = Vec::new();
    if let Some(v) = uint(node, "code_object_version") {
        let needs = match v {
            2 | 3 => "a ROCm runtime that still loads code object v2/v3 (LLVM 22 no longer writes them)".to_string(),
            6 => "a ROCm runtime that knows code object v6 (written by LLVM 19 or later)".to_string(),
            _ => format!("a ROCm runtime (ROCr loader, comgr) that knows code object v{v}"),
        };
        let source = "LLVM AMDGPUUsage.rst, \"Code Object Metadata\"";
        out.push(need(RequirementKind::CodeObject, format!("AMDGPU code object v{v}"), &needs, source, v as u32));
    }
    if let Some(g) = uint(node, "generic_version") {
        let processor = node.text("processor").unwrap_or("generic");
        let needs = format!("a ROCm runtime that loads generic processors ({processor}, generic version {g} or later)");
        let source = "LLVM AMDGPUUsage.rst, \"Generic Processor Versioning\"";
        out.push(need(
            RequirementKind::GenericCodeObject,
            format!("{processor} code object, generic version {g}"),
            &needs,
            source,
            g as u32,
        ));
    }
    out
}

fn ptx(node: &Node) -> Option<Requirement> {
    let version = node.text("ptx_version")?;
    let (major, minor) = version.split_once('.')?;
    let (major, minor): (u32, u32) = (major.parse().ok()?, minor.parse().ok()?);
    let needs = match cuda_for_ptx(major, minor) {
        Some(cuda) => format!("a driver of CUDA {cuda} or later to compile it (JIT)"),
        None => format!("a driver newer than the PTX ISA versions known here (PTX {version} is after 9.1, CUDA 13.1)"),
    };
    let source = "PTX ISA, \"Release Notes\" (PTX ISA version per CUDA release)";
    Some(need(RequirementKind::Ptx, format!("PTX ISA {version}"), &needs, source, major * 100 + minor))
}

/// The CUDA release that introduced PTX ISA `major.minor` (PTX ISA release notes).
pub fn cuda_for_ptx(major: u32, minor: u32) -> Option<&'static str> {
    const TABLE: &[((u32, u32), &str)] = &[
        ((6, 0), "9.0"),
        ((6, 1), "9.1"),
        ((6, 2), "9.2"),
        ((6, 3), "10.0"),
        ((6, 4), "10.1"),
        ((6, 5), "10.2"),
        ((7, 0), "11.0"),
        ((7, 1), "11.1"),
        ((7, 2), "11.2"),
        ((7, 3), "11.3"),
        ((7, 4), "11.4"),
        ((7, 5), "11.5"),
        ((7, 6), "11.6"),
        ((7, 7), "11.7"),
        ((7, 8), "11.8"),
        ((8, 0), "12.0"),
        ((8, 1), "12.1"),
        ((8, 2), "12.2"),
        ((8, 3), "12.3"),
        ((8, 4), "12.4"),
        ((8, 5), "12.5"),
        ((8, 6), "12.7"),
        ((8, 7), "12.8"),
        ((8, 8), "12.9"),
        ((9, 0), "13.0"),
        ((9, 1), "13.1"),
    ];
    if (major, minor) < (6, 0) {
        return Some("9.0"); // any driver since CUDA 9 compiles the PTX of earlier releases
    }
    TABLE.iter().find(|(v, _)| *v == (major, minor)).map(|&(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Span;

    fn node(kind: NodeKind, fields: &[(&'static str, Value)]) -> Node {
        let mut n = Node::new(kind, "x", Span::default());
        for (k, v) in fields {
            n.field(*k, v.clone(), None);
        }
        n
    }

    fn tree(children: Vec<Node>) -> Tree {
        let mut root = node(NodeKind::File, &[]);
        root.children = children;
        Tree { spaces: Vec::new(), root }
    }

    #[test]
    fn strictest_of_each_kind_with_counts_and_paths() {
        let ccob = |v: u64| node(NodeKind::CompressedBundle, &[("version", Value::Uint(v)), ("method", "zstd".into())]);
        let co = |v: u64| {
            node(NodeKind::Image, &[("format", "AMDGPU code object".into()), ("code_object_version", Value::Uint(v))])
        };
        let t = tree(alloc::vec![ccob(2), ccob(3), ccob(3), co(5), co(6)]);
        let all = requirements(&t);
        let whats: Vec<(&str, usize)> = all.iter().map(|r| (r.what.as_str(), r.count)).collect();
        assert_eq!(
            whats,
            [
                ("compressed bundle v2 (zstd)", 1),
                ("compressed bundle v3 (zstd)", 2),
                ("AMDGPU code object v5", 1),
                ("AMDGPU code object v6", 1)
            ]
        );
        assert_eq!(all[1].path, [1]);
        let top: Vec<String> = strictest(&all).into_iter().map(|r| r.what).collect();
        assert_eq!(top, ["compressed bundle v3 (zstd)", "AMDGPU code object v6"]);
        assert!(strictest(&all)[0].needs.contains("HIP runtime that reads v3"));
    }

    #[test]
    fn nvidia_entry_compression_zstd_is_stricter_than_lz4() {
        let entry = |m: &str| node(NodeKind::FatbinEntry, &[("compressed", m.into())]);
        let t = tree(alloc::vec![entry("lz4"), entry("none"), entry("zstd")]);
        let top = strictest(&requirements(&t));
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].what, "NVIDIA fatbin entries compressed with zstd");
        assert!(top[0].needs.contains("550.54.14"));
    }

    #[test]
    fn ptx_needs_the_cuda_release_of_its_isa_version() {
        let ptx = |v: &str| node(NodeKind::Image, &[("format", "PTX".into()), ("ptx_version", v.into())]);
        let top = strictest(&requirements(&tree(alloc::vec![ptx("7.8"), ptx("8.7")])));
        assert_eq!(top[0].what, "PTX ISA 8.7");
        assert!(top[0].needs.contains("CUDA 12.8"), "{}", top[0].needs);
        assert_eq!(cuda_for_ptx(8, 6), Some("12.7"));
        assert_eq!(cuda_for_ptx(5, 0), Some("9.0"));
        assert_eq!(cuda_for_ptx(42, 0), None);
        // A version that is not a number is no requirement rather than a wrong one.
        assert!(requirements(&tree(alloc::vec![ptx("x.y")])).is_empty());
    }

    #[test]
    fn a_kpack_reference_needs_the_kpack_loader() {
        let top = strictest(&requirements(&tree(alloc::vec![node(NodeKind::KpackReference, &[])])));
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].kind, RequirementKind::KpackLoader);
        assert!(top[0].needs.contains("rocm-kpack's loader"));
    }

    #[test]
    fn offload_binary_versions_above_1_need_llvm_main() {
        let ob = |v: u64| node(NodeKind::OffloadBinary, &[("version", Value::Uint(v))]);
        let top = strictest(&requirements(&tree(alloc::vec![ob(1), ob(3)])));
        assert_eq!(top[0].what, "offload binary v3");
        assert!(top[0].needs.contains("LLVM 22 refuses"));
    }
}
