//! Inside the device images, against the reference tools: every kernel of every AMDGPU code
//! object field by field with `llvm-readelf --notes` (its YAML), cubins function by function with
//! `cuobjdump --dump-resource-usage`, SPIR-V with `spirv-dis`, bitcode with `llvm-dis`, PTX with
//! its own text. The committed fixtures (`tests/images/`, written by `tests/images/generate.sh`)
//! carry the reference output recorded with them; where the tool is installed it is run again.
//! HIP kernels are also compiled here with clang-22 for three targets and compared live.
//!
//! A reference tool that dies by a signal gave no answer: that case is reported and skipped.

mod common;
use common::nvidia;

use offload::explore::{explore, Options};
use offload::tree::{Node, NodeKind, Severity, Tree, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn images_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/images")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(images_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn explored(data: &[u8], name: &str) -> Tree {
    explore(data, name, &Options { verify_all: true, ..Options::default() })
}

/// Runs a reference tool; `None` (with a message) when it died by a signal or is missing.
fn run(cmd: &mut Command, what: &str) -> Option<String> {
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => {
            println!("skipped {what}: {e}");
            return None;
        }
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = out.status.signal() {
            println!("skipped {what}: the reference tool died by signal {sig}, which is no answer");
            return None;
        }
    }
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn image_nodes<'t>(tree: &'t Tree, format: &str) -> Vec<&'t Node> {
    let mut out = Vec::new();
    tree.root.walk(&mut |n, _| {
        if n.kind == NodeKind::Image && n.text("format") == Some(format) {
            out.push(n);
        }
    });
    out
}

fn kernels(image: &Node) -> Vec<&Node> {
    image.children.iter().filter(|c| c.kind == NodeKind::Kernel).collect()
}

fn shown(v: &Value) -> String {
    match v {
        Value::Uint(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Text(t) => t.clone(),
        other => format!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The block YAML llvm-readelf prints for the metadata note: maps, sequences and scalars.

#[derive(Clone, Debug, PartialEq)]
enum Yaml {
    Scalar(String),
    Seq(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A scalar, or a sequence of scalars as our fields show it (`1, 2`).
    fn text(&self) -> Option<String> {
        match self {
            Yaml::Scalar(s) => Some(s.clone()),
            Yaml::Seq(items) => items.iter().map(Yaml::text).collect::<Option<Vec<_>>>().map(|v| v.join(", ")),
            Yaml::Map(_) => None,
        }
    }
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    if s.len() >= 2 && ((s.starts_with('\'') && s.ends_with('\'')) || (s.starts_with('"') && s.ends_with('"'))) {
        s[1..s.len() - 1].replace("''", "'")
    } else {
        s.to_string()
    }
}

/// Parses lines (indent, text) from `*i` at indentation `indent`.
fn yaml_block(lines: &[(usize, String)], i: &mut usize, indent: usize) -> Yaml {
    if *i < lines.len() && lines[*i].0 == indent && lines[*i].1.starts_with("- ") {
        let mut seq = Vec::new();
        while *i < lines.len() && lines[*i].0 == indent && lines[*i].1.starts_with("- ") {
            let rest = lines[*i].1[2..].to_string();
            if rest.contains(": ") || rest.ends_with(':') {
                // A map whose first key shares the dash's line: re-indent it.
                let mut sub = vec![(indent + 2, rest)];
                *i += 1;
                while *i < lines.len() && lines[*i].0 > indent {
                    sub.push(lines[*i].clone());
                    *i += 1;
                }
                let mut j = 0;
                seq.push(yaml_block(&sub, &mut j, indent + 2));
            } else {
                seq.push(Yaml::Scalar(unquote(&rest)));
                *i += 1;
            }
        }
        return Yaml::Seq(seq);
    }
    let mut map = Vec::new();
    while *i < lines.len() && lines[*i].0 == indent {
        let line = lines[*i].1.clone();
        let (key, value) = line.split_once(':').unwrap_or((&line, ""));
        *i += 1;
        if value.trim().is_empty() {
            let child_indent = lines.get(*i).map(|l| l.0).unwrap_or(0);
            if child_indent > indent || (child_indent == indent && lines[*i].1.starts_with("- ")) {
                map.push((key.to_string(), yaml_block(lines, i, child_indent)));
            } else {
                map.push((key.to_string(), Yaml::Scalar(String::new())));
            }
        } else if value.trim() == "[]" {
            map.push((key.to_string(), Yaml::Seq(Vec::new())));
        } else {
            map.push((key.to_string(), Yaml::Scalar(unquote(value))));
        }
    }
    Yaml::Map(map)
}

/// The metadata documents of `llvm-readelf --notes` output, one per NT_AMDGPU_METADATA note.
fn metadata_documents(notes: &str) -> Vec<Yaml> {
    let mut docs = Vec::new();
    let mut current: Option<Vec<(usize, String)>> = None;
    for line in notes.lines() {
        match (&mut current, line.trim()) {
            (None, "---") => current = Some(Vec::new()),
            (Some(lines), "...") => {
                let mut i = 0;
                docs.push(yaml_block(lines, &mut i, 0));
                current = None;
            }
            (Some(lines), t) if !t.is_empty() => lines.push((line.len() - line.trim_start().len(), t.to_string())),
            _ => {}
        }
    }
    docs
}

/// Our field names for the metadata keys that are renamed; other keys lose their leading dot.
fn field_for(key: &str) -> String {
    match key {
        ".group_segment_fixed_size" => "lds_size".into(),
        ".private_segment_fixed_size" => "scratch_size".into(),
        ".kernarg_segment_size" => "kernarg_size".into(),
        ".kernarg_segment_align" => "kernarg_align".into(),
        other => other.trim_start_matches('.').to_string(),
    }
}

/// Compares one code object's image node with llvm-readelf's metadata for it, every key of
/// every kernel and argument. Returns the number of values compared.
fn compare_amdgpu(image: &Node, doc: &Yaml, what: &str) -> usize {
    let mut compared = 0;
    assert_eq!(
        image.text("amdhsa_target"),
        doc.get("amdhsa.target").and_then(Yaml::text).as_deref(),
        "{what}: amdhsa.target"
    );
    let version = doc.get("amdhsa.version").and_then(Yaml::text).map(|v| v.replace(", ", "."));
    assert_eq!(image.text("amdhsa_version"), version.as_deref(), "{what}: amdhsa.version");
    let Some(Yaml::Seq(want)) = doc.get("amdhsa.kernels") else { panic!("{what}: no amdhsa.kernels in {doc:?}") };
    let ours = kernels(image);
    assert_eq!(ours.len(), want.len(), "{what}: kernel count");
    for (k, w) in ours.iter().zip(want) {
        let Yaml::Map(keys) = w else { panic!("{what}: kernel is not a map") };
        let name = w.get(".name").and_then(Yaml::text).unwrap();
        for (key, value) in keys {
            if key == ".args" {
                let Yaml::Seq(args) = value else { panic!() };
                let our_args: Vec<&Node> = k.children.iter().filter(|c| c.kind == NodeKind::KernelArgument).collect();
                assert_eq!(our_args.len(), args.len(), "{what}: {name}: argument count");
                for (i, (a, wa)) in our_args.iter().zip(args).enumerate() {
                    let Yaml::Map(akeys) = wa else { panic!() };
                    for (ak, av) in akeys {
                        let ours = a.get(ak.trim_start_matches('.')).map(shown);
                        assert_eq!(ours, av.text(), "{what}: {name}: argument {i} {ak}");
                        compared += 1;
                    }
                }
                continue;
            }
            let ours = k.get(&field_for(key)).map(shown);
            assert_eq!(ours, value.text(), "{what}: {name}: {key} (field {})", field_for(key));
            compared += 1;
        }
        // Every field the issue names is there for every kernel.
        for f in ["name", "vgpr_count", "sgpr_count", "lds_size", "scratch_size", "wavefront_size"] {
            assert!(k.get(f).is_some(), "{what}: {name}: no field {f}");
        }
    }
    compared
}

/// The code object nodes under each bundle entry or offload entry, by the entry's target.
fn code_objects_by_target(tree: &Tree) -> BTreeMap<String, &Node> {
    let mut out = BTreeMap::new();
    fn go<'t>(n: &'t Node, carrier: Option<String>, out: &mut BTreeMap<String, &'t Node>) {
        let carrier = n
            .text("target_id")
            .filter(|_| n.kind == NodeKind::BundleEntry)
            .or(n.text("arch"))
            .map(String::from)
            .or(carrier);
        if n.kind == NodeKind::Image && n.text("format") == Some("AMDGPU code object") {
            out.insert(carrier.clone().unwrap_or_default(), n);
        }
        for c in &n.children {
            go(c, carrier.clone(), out);
        }
    }
    go(&tree.root, None, &mut out);
    out
}

/// llvm-readelf's notes for a code object: run now when installed, else the recorded output.
fn readelf_notes(co: &Path, recorded: Option<&Path>) -> Option<String> {
    if common::llvm_bin().join("llvm-readelf").exists() {
        return run(
            Command::new(common::llvm_bin().join("llvm-readelf")).arg("--notes").arg(co),
            "llvm-readelf --notes",
        );
    }
    recorded.map(|r| std::fs::read_to_string(r).unwrap())
}

#[test]
fn committed_code_objects_match_llvm_readelf() {
    let dir = images_dir();
    let mut compared = 0;
    // (container, entry target, code object file)
    let cases = [
        ("hip_kernels.o", "gfx90a", "hip_kernels_gfx90a"),
        ("hip_kernels.o", "gfx1100", "hip_kernels_gfx1100"),
        ("omp_kernels.o", "gfx90a:xnack+", "omp_kernels_gfx90a_xnack"),
    ];
    for (container, target, co) in cases {
        let co_path = dir.join(format!("{co}.co"));
        let notes = readelf_notes(&co_path, Some(&dir.join(format!("{co}.notes.txt")))).expect("notes");
        let docs = metadata_documents(&notes);
        assert_eq!(docs.len(), 1, "{co}: {notes}");
        // The code object alone, and inside its container under its entry.
        let alone = explored(&read(&format!("{co}.co")), co);
        let image = image_nodes(&alone, "AMDGPU code object")[0];
        compared += compare_amdgpu(image, &docs[0], co);
        let tree = explored(&read(container), container);
        let by_target = code_objects_by_target(&tree);
        let inside =
            by_target.get(target).unwrap_or_else(|| panic!("{container}: no {target} in {:?}", by_target.keys()));
        compared += compare_amdgpu(inside, &docs[0], &format!("{container} {target}"));
        assert_eq!(
            tree.root.worst_severity().filter(|s| *s >= Severity::Warning),
            None,
            "{container}: {:#?}",
            tree.root.diagnostics_of(Severity::Warning)
        );
    }
    println!("compared {compared} metadata values with llvm-readelf --notes");
    assert!(compared > 300, "{compared}");
}

#[test]
fn header_fields_of_the_committed_code_objects() {
    let gfx90a = explored(&read("hip_kernels_gfx90a.co"), "x");
    let i = image_nodes(&gfx90a, "AMDGPU code object")[0];
    assert_eq!((i.text("processor"), i.text("xnack"), i.text("sramecc")), (Some("gfx90a"), Some("any"), Some("any")));
    assert_eq!(i.get("code_object_version"), Some(&Value::Uint(6)));
    let omp = explored(&read("omp_kernels_gfx90a_xnack.co"), "x");
    let i = image_nodes(&omp, "AMDGPU code object")[0];
    assert_eq!((i.text("xnack"), i.text("target_id")), (Some("on"), Some("gfx90a:xnack+")));
    let gfx1100 = explored(&read("hip_kernels_gfx1100.co"), "x");
    let i = image_nodes(&gfx1100, "AMDGPU code object")[0];
    assert_eq!((i.text("xnack"), i.text("sramecc")), (Some("unsupported"), Some("unsupported")));
    // The kernels the sources were written to show.
    let k = |tree: &Tree, name: &str| -> BTreeMap<String, String> {
        let image = image_nodes(tree, "AMDGPU code object")[0];
        let k = kernels(image).into_iter().find(|k| k.text("name") == Some(name)).unwrap();
        k.fields.iter().map(|f| (f.name.to_string(), shown(&f.value))).collect()
    };
    assert_eq!(k(&gfx90a, "_Z10reduce_ldsPKiPi")["lds_size"], "1024");
    assert_ne!(k(&gfx90a, "_Z13private_arrayPKiPii")["scratch_size"], "0");
    assert_ne!(k(&gfx90a, "_Z5spillPKfPf")["vgpr_spill_count"], "0");
    assert_eq!(k(&gfx1100, "_Z9recursivePi")["uses_dynamic_stack"], "true");
    assert_eq!(k(&gfx1100, "_Z9recursivePi")["wavefront_size"], "32");
}

/// The code object a bundle entry carries must fit the entry's target ID.
#[test]
fn a_code_object_under_an_entry_for_another_target_is_flagged() {
    use offload::format::bundle::binary::Bundle;
    let co = read("hip_kernels_gfx90a.co");
    let omp = read("omp_kernels_gfx90a_xnack.co");
    let warnings = |id: &str, bytes: &[u8]| -> Vec<String> {
        let host = ("host-x86_64-unknown-linux-gnu-".to_string(), std::borrow::Cow::Borrowed(&[][..]));
        let b = Bundle::new(vec![host, (id.to_string(), std::borrow::Cow::Borrowed(bytes))], 1).unwrap();
        let bytes = b.write().unwrap();
        let tree = explored(&bytes, "b");
        tree.root.diagnostics_of(Severity::Warning).iter().map(|(_, d)| d.message.clone()).collect()
    };
    assert!(warnings("hipv4-amdgcn-amd-amdhsa--gfx90a", &co).is_empty());
    let w = warnings("hipv4-amdgcn-amd-amdhsa--gfx906", &co);
    assert!(
        w.iter().any(|m| m.contains("the entry's target gfx906 does not fit the image, a code object for gfx90a")),
        "{w:?}"
    );
    let w = warnings("hipv4-amdgcn-amd-amdhsa--gfx90a", &omp);
    assert!(w.iter().any(|m| m.contains("which needs xnack on")), "{w:?}");
    let w = warnings("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", &omp);
    assert!(w.iter().any(|m| m.contains("(xnack-) does not fit the image, which has xnack on")), "{w:?}");
    assert!(warnings("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", &omp).is_empty());
}

/// HIP kernels compiled now for three targets, compressed, each code object compared with
/// llvm-readelf.
#[test]
fn hip_kernels_compiled_here_match_llvm_readelf() {
    let (Some(clang), Some(bundler), Some(objcopy), Some(_)) = (
        common::tool("clang", "hip_kernels_compiled_here"),
        common::tool("clang-offload-bundler", "hip_kernels_compiled_here"),
        common::tool("llvm-objcopy", "hip_kernels_compiled_here"),
        common::tool("llvm-readelf", "hip_kernels_compiled_here"),
    ) else {
        return;
    };
    let s = common::Scratch::new("device_images", "hip");
    for f in ["kernels.hip", "mini_hip.h"] {
        std::fs::copy(images_dir().join(f), s.path(f)).unwrap();
    }
    let archs = ["gfx90a", "gfx1100", "gfx942:xnack-"];
    let mut cmd = Command::new(&clang);
    cmd.current_dir(s.dir()).args([
        "-x",
        "hip",
        "-nogpulib",
        "-nogpuinc",
        "-O2",
        "--offload-compress",
        "-cuid=t1",
        "-c",
        "kernels.hip",
        "-o",
        "k.o",
    ]);
    for a in archs {
        cmd.arg(format!("--offload-arch={a}"));
    }
    let Some(_) = run(&mut cmd, "clang -x hip") else { return };
    let data = s.read("k.o");
    let tree = explored(&data, "k.o");
    let by_target = code_objects_by_target(&tree);
    // The fat binary (a compressed bundle), as clang-offload-bundler unbundles it.
    let mut cmd = Command::new(&objcopy);
    cmd.arg(format!("--dump-section=.hip_fatbin={}", s.path("k.hipfb").display())).arg(s.path("k.o"));
    let Some(_) = run(&mut cmd, "llvm-objcopy --dump-section") else { return };
    let mut compared = 0;
    for a in archs {
        let id = format!("hipv4-amdgcn-amd-amdhsa--{a}");
        let out = s.path(&format!("{a}.co").replace(':', "_"));
        let mut cmd = Command::new(&bundler);
        cmd.args(["--type=o", "--unbundle", &format!("--targets={id}")])
            .arg(format!("--input={}", s.path("k.hipfb").display()))
            .arg(format!("--output={}", out.display()));
        let Some(_) = run(&mut cmd, "clang-offload-bundler --unbundle") else { continue };
        let notes = readelf_notes(&out, None).unwrap();
        let docs = metadata_documents(&notes);
        let image = by_target.get(a).unwrap_or_else(|| panic!("no {a} in {:?}", by_target.keys()));
        compared += compare_amdgpu(image, &docs[0], a);
        // The image's bytes are the unbundled code object's.
        assert_eq!(tree.bytes(&data, image.span).unwrap(), &std::fs::read(&out).unwrap()[..], "{a}");
    }
    println!("compared {compared} metadata values of kernels compiled here");
    assert!(compared > 200, "{compared}");
}

// ---------------------------------------------------------------------------------------------
// CUDA

/// `Function <name>:` blocks of `cuobjdump --dump-resource-usage`, each with its values.
fn resource_usage(text: &str) -> Vec<(String, BTreeMap<String, u64>)> {
    let mut out: Vec<(String, BTreeMap<String, u64>)> = Vec::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("Function ").and_then(|r| r.strip_suffix(':')) {
            pending = Some(name.to_string());
        } else if let Some(name) = pending.take() {
            let values = t
                .split_whitespace()
                .filter_map(|kv| kv.split_once(':'))
                .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
                .collect();
            out.push((name, values));
        }
    }
    out
}

/// Compares our kernel nodes of a cubin with cuobjdump's resource usage; returns the count.
fn compare_cubin(data: &[u8], usage: &str, what: &str) -> usize {
    let tree = explored(data, what);
    let images = image_nodes(&tree, "CUDA cubin");
    assert_eq!(images.len(), 1, "{what}");
    compare_kernels(images[0], &resource_usage(usage), what)
}

/// Compares the kernel nodes of a cubin's image node with cuobjdump's resource usage of that
/// cubin; returns the count.
fn compare_kernels(image: &Node, want: &[(String, BTreeMap<String, u64>)], what: &str) -> usize {
    let ours = kernels(image);
    let names: Vec<&str> = ours.iter().map(|k| k.text("name").unwrap()).collect();
    let want_names: Vec<&str> = want.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, want_names, "{what}: functions");
    let get = |k: &Node, f: &str| match k.get(f) {
        Some(Value::Uint(n)) => *n,
        other => panic!("{what}: {f} is {other:?}"),
    };
    for (k, (name, w)) in ours.iter().zip(want) {
        assert_eq!(get(k, "registers"), w["REG"], "{what}: {name}: REG");
        assert_eq!(get(k, "stack_size"), w["STACK"], "{what}: {name}: STACK");
        assert_eq!(get(k, "shared_size"), w["SHARED"], "{what}: {name}: SHARED");
        assert_eq!(get(k, "local_size"), w["LOCAL"], "{what}: {name}: LOCAL");
        assert_eq!(get(k, "constant_size"), w.get("CONSTANT[0]").copied().unwrap_or(0), "{what}: {name}: CONSTANT[0]");
    }
    ours.len()
}

#[test]
fn committed_cubins_match_cuobjdump() {
    let mut compared = 0;
    for c in ["cuda_kernels_sm80", "cuda_kernels_sm120"] {
        let path = images_dir().join(format!("{c}.cubin"));
        let usage = match nvidia::cuobjdump("the committed cubins against cuobjdump") {
            Some(tool) => match run(Command::new(tool).arg("--dump-resource-usage").arg(&path), "cuobjdump") {
                Some(u) => u,
                None => continue,
            },
            None => std::fs::read_to_string(images_dir().join(format!("{c}.resource-usage.txt"))).unwrap(),
        };
        compared += compare_cubin(&read(&format!("{c}.cubin")), &usage, c);
    }
    assert!(compared >= 6, "{compared}");
    // Entry kernels and device functions are told apart; sm from e_flags.
    let tree = explored(&read("cuda_kernels_sm80.cubin"), "c");
    let image = image_nodes(&tree, "CUDA cubin")[0];
    assert_eq!(image.text("sm"), Some("sm_80"));
    let kind: BTreeMap<&str, bool> =
        kernels(image).iter().map(|k| (k.text("name").unwrap(), k.get("entry") == Some(&Value::Bool(true)))).collect();
    assert!(kind["lds"]);
    assert!(kind["_Z11uses_helperPfi"]);
    assert!(!kind["_Z6helperPKfi"]);
    let uses = kernels(image).into_iter().find(|k| k.text("name") == Some("_Z11uses_helperPfi")).unwrap();
    assert_eq!(uses.text("max_threads"), Some("128, 1, 1"));
    let sm120 = explored(&read("cuda_kernels_sm120.cubin"), "c");
    assert_eq!(image_nodes(&sm120, "CUDA cubin")[0].text("sm"), Some("sm_120"));
}

/// Every cubin of two real CUDA libraries from PyPI (nvJPEG for CUDA 12, whose cubins up to sm_90
/// use the old e_flags encoding, and for CUDA 13; see `nvidia::REAL_LIBRARIES`), extracted by
/// cuobjdump: every function, its registers, stack, shared, local and constant sizes as
/// cuobjdump reports them, the architecture as llvm-readelf names it. Then the same from the
/// library as it is: the kernel nodes under each fatbin entry of the explored library against
/// `cuobjdump --dump-resource-usage` of the library, cubin by cubin.
#[test]
fn real_library_cubins_match_cuobjdump() {
    let Some(tool) = nvidia::cuobjdump("real_library_cubins_match_cuobjdump") else { return };
    let libs: Vec<PathBuf> = nvidia::REAL_LIBRARIES.iter().filter_map(nvidia::real_library).collect();
    if libs.is_empty() {
        println!("skipping real_library_cubins_match_cuobjdump: no real CUDA library could be had");
        return;
    }
    let readelf = common::llvm_bin().join("llvm-readelf");
    let (mut cubins, mut functions, mut old_abi, mut named_by_readelf) = (0, 0, 0, 0);
    let mut unnamed = std::collections::BTreeSet::new();
    for lib in &libs {
        let s = common::Scratch::new("device_images", &format!("nvjpeg{cubins}"));
        let Some(_) = run(Command::new(&tool).current_dir(s.dir()).args(["-xelf", "all"]).arg(lib), "cuobjdump -xelf")
        else {
            continue;
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(s.dir()).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).unwrap();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            let Some(usage) =
                run(Command::new(&tool).arg("--dump-resource-usage").arg(&f), "cuobjdump --dump-resource-usage")
            else {
                continue;
            };
            functions += compare_cubin(&data, &usage, &name);
            cubins += 1;
            old_abi += usize::from(data[8] == 7);
            if readelf.exists() {
                let Some(header) = run(Command::new(&readelf).arg("-h").arg(&f), "llvm-readelf -h") else { continue };
                let flags = header.lines().find(|l| l.trim_start().starts_with("Flags:")).unwrap();
                let tree = explored(&data, &name);
                let sm = image_nodes(&tree, "CUDA cubin")[0].text("sm").unwrap().to_string();
                match flags.split_once(", ") {
                    Some((_, named)) => {
                        assert_eq!(named.trim(), sm, "{name}: llvm-readelf says '{flags}'");
                        named_by_readelf += 1;
                    }
                    // An architecture LLVM 22 does not know (sm_107): nothing to compare.
                    None => {
                        unnamed.insert(sm);
                    }
                }
            }
        }
    }
    println!("compared {functions} functions of {cubins} cubins ({old_abi} with ABI version 7) with cuobjdump; architecture of {named_by_readelf} compared with llvm-readelf, which names none for {unnamed:?}");
    assert!(cubins > 0 && functions > cubins);

    let mut in_place = 0;
    for lib in &libs {
        let Some(usage) =
            run(Command::new(&tool).arg("--dump-resource-usage").arg(lib), "cuobjdump --dump-resource-usage")
        else {
            continue;
        };
        in_place += compare_library(&std::fs::read(lib).unwrap(), &usage, &lib.display().to_string());
    }
    println!("compared {in_place} functions of the cubins in the libraries as explored");
    assert!(in_place >= functions / 2, "{in_place} of {functions}");
}

/// The `Fatbin elf code:` blocks of `cuobjdump --dump-resource-usage` of a whole file, in order.
fn resource_usage_per_cubin(text: &str) -> Vec<Vec<(String, BTreeMap<String, u64>)>> {
    text.split("Fatbin ").filter(|b| b.starts_with("elf code:")).map(resource_usage).collect()
}

/// The cubins of an explored library (the images of its fatbin ELF entries, in order) against
/// cuobjdump's resource usage of the library; returns the functions compared.
fn compare_library(data: &[u8], usage: &str, what: &str) -> usize {
    let tree = explored(data, what);
    let mut images = Vec::new();
    tree.root.walk(&mut |n, _| {
        if n.kind == NodeKind::FatbinEntry && n.text("kind") == Some("elf") {
            let mut image = None;
            n.walk(&mut |c, _| {
                if image.is_none() && c.kind == NodeKind::Image {
                    image = Some(c);
                }
            });
            images.push((n.text("arch").unwrap_or("").to_string(), image));
        }
    });
    let want = resource_usage_per_cubin(usage);
    assert_eq!(images.len(), want.len(), "{what}: cubins");
    let mut functions = 0;
    for (i, ((arch, image), want)) in images.iter().zip(&want).enumerate() {
        let image = image.unwrap_or_else(|| panic!("{what}: cubin {i} ({arch}) has no image node (not decompressed?)"));
        functions += compare_kernels(image, want, &format!("{what}: cubin {i} ({arch})"));
    }
    functions
}

/// The attribute ids the cubin reader decodes, named as `cuobjdump -elf` names them.
#[test]
fn decoded_attribute_ids_are_named_as_cuobjdump_names_them() {
    let Some(tool) = nvidia::cuobjdump("decoded_attribute_ids_are_named_as_cuobjdump_names_them") else { return };
    let path = images_dir().join("cuda_kernels_sm80.cubin");
    let Some(dump) = run(Command::new(tool).arg("-elf").arg(&path), "cuobjdump -elf") else { return };
    let data = read("cuda_kernels_sm80.cubin");
    let elf = offload::image::elf::Elf::parse(&data).unwrap();
    let mut seen = 0;
    // Records in section order, and cuobjdump's attribute names in the same order.
    for s in elf.sections.iter().filter(|s| s.name.starts_with(".nv.info")) {
        let (attrs, err) = offload::image::cubin::attributes(s.data.unwrap(), s.offset);
        assert!(err.is_none());
        let block =
            dump.split(&format!("\n{}\n", s.name)).nth(1).unwrap_or_else(|| panic!("{} not in the dump", s.name));
        let names: Vec<&str> = block
            .lines()
            .take_while(|l| !l.starts_with('.'))
            .filter_map(|l| l.trim().strip_prefix("Attribute:"))
            .map(str::trim)
            .collect();
        assert_eq!(names.len(), attrs.len(), "{}", s.name);
        for (a, name) in attrs.iter().zip(names) {
            if let Some((_, ours)) = offload::image::cubin::ATTRIBUTE_NAMES.iter().find(|(id, _)| *id == a.id) {
                assert_eq!(*ours, name, "{}: attribute {:#x}", s.name, a.id);
                seen += 1;
            }
        }
    }
    assert!(seen >= 10, "{seen}");
}

#[test]
fn ptx_matches_its_text() {
    let text = String::from_utf8(read("cuda_kernels_sm80.ptx")).unwrap();
    let tree = explored(text.as_bytes(), "k.ptx");
    let image = image_nodes(&tree, "PTX")[0];
    let directive = |d: &str| text.lines().find_map(|l| l.strip_prefix(d)).map(|v| v.trim().to_string());
    assert_eq!(image.text("ptx_version").map(String::from), directive(".version "));
    assert_eq!(image.text("target").map(String::from), directive(".target "));
    assert_eq!(image.get("address_size").map(shown), directive(".address_size "));
    let entries: Vec<String> = text
        .lines()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|r| r.trim_end_matches('(').trim().to_string())
        .collect();
    let ours: Vec<String> = kernels(image).iter().map(|k| k.text("name").unwrap().to_string()).collect();
    assert_eq!(ours, entries);
    assert_eq!(image.label, "PTX sm_80");
}

// ---------------------------------------------------------------------------------------------
// SPIR-V and bitcode

#[test]
fn spirv_matches_spirv_dis() {
    let path = images_dir().join("hip_kernels_amdgcnspirv.spv");
    let dis = match run(Command::new("spirv-dis").arg("--raw-id").arg(&path), "spirv-dis") {
        Some(d) => d,
        None => std::fs::read_to_string(images_dir().join("hip_kernels_amdgcnspirv.dis.txt")).unwrap(),
    };
    let tree = explored(&read("hip_kernels_amdgcnspirv.spv"), "k.spv");
    let image = image_nodes(&tree, "SPIR-V module")[0];
    let header = |k: &str| dis.lines().find_map(|l| l.strip_prefix(&format!("; {k}: "))).unwrap().to_string();
    assert_eq!(image.text("spirv_version").map(String::from), Some(header("Version")));
    let generator = header("Generator");
    assert!(generator.ends_with(&format!("; {}", shown(image.get("generator_version").unwrap()))), "{generator}");
    assert_eq!(image.get("id_bound").map(shown), Some(header("Bound")));
    let caps: Vec<&str> = dis.lines().filter_map(|l| l.trim().strip_prefix("OpCapability ")).collect();
    let ours: Vec<&str> = image.text("capabilities").unwrap().split(", ").collect();
    assert_eq!(ours.len(), caps.len());
    for (o, c) in ours.iter().zip(&caps) {
        assert!(o == c || o.parse::<u32>().is_ok(), "capability {o} vs {c}");
    }
    let entries: Vec<(String, String)> = dis
        .lines()
        .filter_map(|l| l.trim().strip_prefix("OpEntryPoint "))
        .map(|r| {
            let model = r.split_whitespace().next().unwrap().to_string();
            let name = r.split('"').nth(1).unwrap().to_string();
            (model, name)
        })
        .collect();
    let ours: Vec<(String, String)> = kernels(image)
        .iter()
        .map(|k| (k.text("execution_model").unwrap().into(), k.text("name").unwrap().into()))
        .collect();
    assert_eq!(ours, entries);
    assert_eq!(entries.len(), 4);
}

#[test]
fn bitcode_matches_llvm_dis() {
    let Some(dis) = common::tool("llvm-dis", "bitcode_matches_llvm_dis") else { return };
    let mut compared = 0;
    let files: [(&str, Vec<u8>); 2] =
        [("hip_kernels_gfx90a.bc", read("hip_kernels_gfx90a.bc")), ("omp_kernels.o", read("omp_kernels.o"))];
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let more: Vec<(String, Vec<u8>)> =
        ["omp_elf_2arch.offload", "hip_elf_newdriver_rdc.offload", "offbin_openmp_bc.offbin"]
            .iter()
            .map(|f| (f.to_string(), std::fs::read(fixtures.join(f)).unwrap()))
            .collect();
    let all: Vec<(String, Vec<u8>)> = files.into_iter().map(|(n, d)| (n.to_string(), d)).chain(more).collect();
    let s = common::Scratch::new("device_images", "bitcode");
    for (name, data) in &all {
        let tree = explored(data, name);
        for image in image_nodes(&tree, "LLVM bitcode") {
            let path = s.write("m.bc", tree.bytes(data, image.span).unwrap());
            let Some(ir) = run(Command::new(&dis).arg(&path).arg("-o").arg("-"), "llvm-dis") else { continue };
            let quoted =
                |prefix: &str| ir.lines().find_map(|l| l.strip_prefix(prefix)).map(|v| v.trim_matches('"').to_string());
            assert_eq!(image.text("triple").map(String::from), quoted("target triple = "), "{name}");
            assert_eq!(image.text("data_layout").map(String::from), quoted("target datalayout = "), "{name}");
            let defined: Vec<(String, bool)> = ir
                .lines()
                .filter(|l| l.starts_with("define "))
                .map(|l| {
                    let name = l.split('@').nth(1).unwrap().split('(').next().unwrap().trim_matches('"').to_string();
                    (name, l.contains(" amdgpu_kernel ") || l.contains(" ptx_kernel ") || l.contains(" spir_kernel "))
                })
                .collect();
            let ours: Vec<(String, bool)> = kernels(image)
                .iter()
                .map(|k| (k.text("name").unwrap().to_string(), k.get("entry") == Some(&Value::Bool(true))))
                .collect();
            let mut a = defined.clone();
            let mut b = ours.clone();
            a.sort();
            b.sort();
            assert_eq!(b, a, "{name}");
            compared += ours.len();
        }
    }
    println!("compared {compared} defined functions with llvm-dis");
    assert!(compared >= 8, "{compared}");
}

/// Every node the image decoders make lies within its image, and so does every field span.
#[test]
fn image_spans_lie_within_their_images() {
    for entry in std::fs::read_dir(images_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !matches!(path.extension().and_then(|e| e.to_str()), Some("o" | "co" | "bc" | "spv" | "cubin" | "ptx")) {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let tree = explored(&data, &name);
        let images = image_nodes(&tree, "AMDGPU code object")
            .into_iter()
            .chain(image_nodes(&tree, "CUDA cubin"))
            .chain(image_nodes(&tree, "LLVM bitcode"));
        let mut checked = 0;
        for image in images.chain(image_nodes(&tree, "SPIR-V module")).chain(image_nodes(&tree, "PTX")) {
            image.walk(&mut |n, _| {
                let within = |s: &offload::tree::Span| {
                    s.space == image.span.space && s.offset >= image.span.offset && s.end() <= image.span.end()
                };
                assert!(within(&n.span), "{name}: {}", n.label);
                for f in &n.fields {
                    if let Some(s) = &f.span {
                        assert!(within(s), "{name}: {} field {}", n.label, f.name);
                    }
                }
                checked += 1;
            });
        }
        assert!(checked > 0, "{name}");
    }
}
