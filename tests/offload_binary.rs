//! Offload binaries against LLVM 22: what `llvm-offload-binary` writes we write byte for byte and
//! read back; what we read agrees with `llvm-objdump --offloading` and with the images the tool
//! extracts, for packaged files and for the `.llvm.offloading` sections clang-22 puts in objects.
//!
//! Each test prints why and returns when a tool it needs is not installed (`LLVM_BIN` overrides
//! `/usr/lib/llvm-22/bin`). With the tools present every case runs and is compared; the random
//! cases print their seed (replay one with `OFFLOAD_DIFF_SEED=<seed>`).

use offload::format::offload_binary::{self as ob, packager, ImageKind, OffloadBinary, OffloadEntry, OffloadKind};
mod common;
use common::{tool, Scratch, XorShift};
use std::path::Path;
use std::process::Command;

const RANDOM_CASES: usize = 400;

/// Runs a command in `dir`, panicking with its output unless it succeeds; returns stdout.
fn run(program: &Path, args: &[&str], dir: &Path) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {:?} failed: {}{}",
        program.display(),
        args,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Text without `,` (it separates arguments) and `=` (it separates a key from its value).
fn word(rng: &mut XorShift, min: usize, max: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789_-.:+";
    let len = min + rng.below(max - min + 1);
    (0..len).map(|_| *rng.pick(ALPHABET) as char).collect()
}

/// Keys and values chosen to stress the string table: suffixes of one another, shared tails,
/// keys used as values, empty strings.
const KEYS: &[&str] = &["triple", "arch", "rch", "h", "march", "feature", "features", "ure", "kind2", "a", "sm", ""];
const VALUES: &[&str] = &[
    "amdgcn-amd-amdhsa",
    "hsa",
    "amdhsa",
    "gfx90a",
    "90a",
    "a",
    "",
    "gfx906:xnack-",
    "sm_70",
    "nvptx64-nvidia-cuda",
    "cuda",
    "arch",
    "triple",
    "1=2",
];
const KINDS: &[&str] = &["hip", "openmp", "cuda", "sycl", "none", "HIP", "", "hip,cuda"];
const EXTENSIONS: &[&str] = &["o", "bc", "cubin", "fatbin", "s", "spv", "bin", ""];

/// One random `--image` argument; writes its files into `dir`.
fn random_spec(rng: &mut XorShift, dir: &Scratch, file_counter: &mut usize) -> String {
    let mut args: Vec<String> = Vec::new();
    let files = 1 + usize::from(rng.chance(15));
    for _ in 0..files {
        let ext = *rng.pick(EXTENSIONS);
        let name = if ext.is_empty() { format!("img{file_counter}") } else { format!("img{file_counter}.{ext}") };
        *file_counter += 1;
        let len = rng.below(301);
        let mut data = rng.bytes(len);
        if rng.chance(10) {
            data.splice(0..0, *b"BC\xC0\xDE");
        }
        dir.write(&name, &data);
        args.push(format!("file={name}"));
    }
    if rng.chance(85) {
        args.push(format!("kind={}", rng.pick(KINDS)));
    }
    let many = rng.chance(8);
    let count = if many { 40 + rng.below(40) } else { rng.below(7) };
    for _ in 0..count {
        let key = if rng.chance(60) { rng.pick(KEYS).to_string() } else { word(rng, 1, 90) };
        let value = if rng.chance(60) { rng.pick(VALUES).to_string() } else { word(rng, 0, 120) };
        args.push(format!("{key}={value}"));
    }
    if rng.chance(10) {
        args.push("flag".into()); // a key without `=`: empty value
    }
    // The tool's map order does not depend on argument order, except for repeated keys.
    for i in (1..args.len()).rev() {
        let j = rng.below(i + 1);
        args.swap(i, j);
    }
    args.join(",")
}

fn read_from(dir: &Scratch) -> impl FnMut(&str) -> offload::Result<Vec<u8>> + '_ {
    move |name| Ok(dir.read(name))
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()))
}

/// What `llvm-objdump --offloading` prints for one image.
#[derive(Debug, PartialEq, Eq)]
struct Listed {
    kind: String,
    arch: String,
    triple: String,
    producer: String,
}

fn parse_objdump(text: &str) -> Vec<Listed> {
    let mut out = Vec::new();
    let field = |line: &str| line.get(16..).unwrap_or("").to_string();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("OFFLOADING IMAGE [") {
            out.push(Listed {
                kind: field(lines[i + 1]),
                arch: field(lines[i + 2]),
                triple: field(lines[i + 3]),
                producer: field(lines[i + 4]),
            });
        }
    }
    out
}

/// What llvm-objdump 22 would print for an entry we read.
fn listed(entry: &OffloadEntry<'_>) -> Listed {
    let kind = match entry.image_kind.0 {
        1 => "elf",
        2 => "llvm ir",
        3 => "cubin",
        4 => "fatbinary",
        5 => "ptx",
        _ => "<none>",
    };
    let producer = match entry.offload_kind {
        OffloadKind::OPENMP | OffloadKind::CUDA | OffloadKind::HIP | OffloadKind::SYCL => entry.offload_kind.name(),
        _ => "none",
    };
    Listed {
        kind: kind.into(),
        arch: entry.arch().unwrap_or("").into(),
        triple: entry.triple().unwrap_or("").into(),
        producer: producer.into(),
    }
}

/// Reads `data` as LLVM does (binaries back to back, nothing else) and checks it writes back.
fn read_clean(data: &[u8]) -> Vec<OffloadBinary<'_>> {
    let walk = ob::walk(data);
    assert!(walk.is_clean(), "unused bytes: {:?}", walk.unused().collect::<Vec<_>>());
    assert_eq!(walk.write().unwrap(), data, "an unedited walk must write back its input");
    walk.binaries().map(|(_, b)| b.clone()).collect()
}

#[test]
fn packaging_matches_llvm_offload_binary_byte_for_byte() {
    let test = "packaging_matches_llvm_offload_binary_byte_for_byte";
    let (Some(packager_tool), Some(objdump)) = (tool("llvm-offload-binary", test), tool("llvm-objdump", test)) else {
        return;
    };
    let seed = common::seed("OFFLOAD_DIFF_SEED", 0x0ff1_0ad5);
    println!("{test}: seed {seed} (replay with OFFLOAD_DIFF_SEED={seed})");
    let mut rng = XorShift(seed);
    let dir = Scratch::new("obin", "random");
    let mut file_counter = 0;
    let (mut compared, mut binaries_read, mut listings_compared) = (0, 0, 0);
    for case in 0..RANDOM_CASES {
        let specs: Vec<String> =
            (0..1 + rng.below(3)).map(|_| random_spec(&mut rng, &dir, &mut file_counter)).collect();
        let out = format!("out{case}.bin");
        let mut args = vec!["-o".to_string(), out.clone()];
        args.extend(specs.iter().map(|s| format!("--image={s}")));
        run(&packager_tool, &args.iter().map(String::as_str).collect::<Vec<_>>(), &dir.0);
        let theirs = dir.read(&out);
        let spec_refs: Vec<&str> = specs.iter().map(String::as_str).collect();
        let ours = packager::package(&spec_refs, read_from(&dir)).unwrap();
        assert!(
            ours == theirs,
            "case {case}: bytes differ at {} (ours {} bytes, theirs {})\nspecs: {specs:#?}",
            first_difference(&ours, &theirs),
            ours.len(),
            theirs.len()
        );
        compared += 1;

        let expected = packager::entries(&spec_refs, read_from(&dir)).unwrap();
        let read = read_clean(&theirs);
        assert_eq!(read.len(), expected.len(), "case {case}");
        for (bin, want) in read.iter().zip(&expected) {
            assert_eq!(bin.version, 1);
            assert!(!bin.is_edited());
            assert_eq!(bin.entries.len(), 1);
            assert_eq!(&bin.entries[0], want, "case {case}");
            assert_eq!(bin.write_canonical().unwrap(), ob::write_v1(want).unwrap());
            binaries_read += 1;
        }
        if case % 10 == 0 {
            let listing = parse_objdump(&run(&objdump, &["--offloading", &out], &dir.0));
            let ours: Vec<Listed> = read.iter().map(|b| listed(&b.entries[0])).collect();
            assert_eq!(listing, ours, "case {case}: llvm-objdump --offloading disagrees");
            listings_compared += 1;
        }
    }
    assert_eq!(compared, RANDOM_CASES);
    assert!(binaries_read >= RANDOM_CASES);
    assert_eq!(listings_compared, RANDOM_CASES / 10);
    println!(
        "{test}: {compared} packages, {binaries_read} binaries, {listings_compared} llvm-objdump listings compared"
    );
}

#[test]
fn string_table_edge_cases_match_the_tool() {
    let test = "string_table_edge_cases_match_the_tool";
    let Some(packager_tool) = tool("llvm-offload-binary", test) else {
        return;
    };
    let dir = Scratch::new("obin", "edge");
    dir.write("a.o", b"image bytes");
    let long = "k".repeat(70);
    let many: Vec<String> = (0..100).map(|i| format!("key{i}=v{}", i % 7)).collect();
    let cases: Vec<String> = vec![
        "file=a.o".into(),
        "file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip".into(),
        "file=a.o,arch=rch,rch=h,h=,march=arch".into(),
        "file=a.o,x=,y=,z=".into(),
        "file=a.o,=,==,===".into(),
        "file=a.o,,,,".into(),
        "file=a.o,dup=1,dup=2,dup=,dup=3".into(),
        "file=a.o,kind=hip,kind=cuda".into(),
        "file=a.o,file=a.o,triple=t".into(),
        format!("file=a.o,{long}=1,{}=2,k=3", &long[..33]),
        format!("file=a.o,{}", many.join(",")),
        "file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_70,feature=+ptx64,kind=cuda".into(),
    ];
    for (i, spec) in cases.iter().enumerate() {
        let out = format!("edge{i}.bin");
        run(&packager_tool, &["-o", &out, &format!("--image={spec}")], &dir.0);
        let theirs = dir.read(&out);
        let ours = packager::package(&[spec.as_str()], read_from(&dir)).unwrap();
        assert!(ours == theirs, "spec {spec:?}: bytes differ at {}", first_difference(&ours, &theirs));
        let read = read_clean(&theirs);
        let expected = packager::entries(&[spec.as_str()], read_from(&dir)).unwrap();
        assert_eq!(read.iter().map(|b| b.entries[0].clone()).collect::<Vec<_>>(), expected, "spec {spec:?}");
    }
}

#[test]
fn clang_offload_packager_writes_the_same() {
    let test = "clang_offload_packager_writes_the_same";
    let (Some(new), Some(old)) = (tool("llvm-offload-binary", test), tool("clang-offload-packager", test)) else {
        return;
    };
    let dir = Scratch::new("obin", "names");
    dir.write("k.bc", b"BC\xC0\xDE rest of the module");
    let spec = "--image=file=k.bc,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=openmp";
    run(&new, &["-o", "new.bin", spec], &dir.0);
    run(&old, &["-o", "old.bin", spec], &dir.0);
    assert_eq!(dir.read("new.bin"), dir.read("old.bin"));
    let ours = packager::package(&[&spec["--image=".len()..]], read_from(&dir)).unwrap();
    assert_eq!(ours, dir.read("new.bin"));
    assert_eq!(ob::parse(&ours).unwrap().entries[0].image_kind, ImageKind::BITCODE);
}

/// The `.llvm.offloading` section of an object compiled by clang-22, checked against
/// llvm-objdump's listing and the tool's extraction; returns the binaries' entries.
fn check_object(dir: &Scratch, object: &str, test: &str) -> Option<Vec<OffloadEntry<'static>>> {
    let objcopy = tool("llvm-objcopy", test)?;
    let objdump = tool("llvm-objdump", test)?;
    let extractor = tool("llvm-offload-binary", test)?;
    run(&objcopy, &[&format!("--dump-section=.llvm.offloading={object}.sec"), object], &dir.0);
    let section = dir.read(&format!("{object}.sec"));
    let binaries = read_clean(&section);
    let entries: Vec<OffloadEntry<'static>> =
        binaries.iter().flat_map(|b| b.entries.iter().map(|e| e.clone().into_owned())).collect();
    assert!(!entries.is_empty(), "{object}: no offload entries");
    let listing = parse_objdump(&run(&objdump, &["--offloading", object], &dir.0));
    assert_eq!(listing, entries.iter().map(listed).collect::<Vec<_>>(), "{object}: llvm-objdump disagrees");
    for (i, entry) in entries.iter().enumerate() {
        let arch = entry.arch().expect("clang writes arch");
        let out = format!("{object}.{i}.img");
        run(&extractor, &[&format!("{object}.sec"), &format!("--image=file={out},arch={arch}")], &dir.0);
        assert_eq!(dir.read(&out), &*entry.image, "{object}: image for {arch} differs from the tool's extraction");
    }
    // Unedited binaries write back their input; re-laid out they are what LLVM writes.
    for bin in &binaries {
        assert_eq!(bin.write_canonical().unwrap(), bin.layout().unwrap().bytes.to_vec());
    }
    Some(entries)
}

#[test]
fn clang_openmp_object() {
    let test = "clang_openmp_object";
    let Some(clang) = tool("clang", test) else {
        return;
    };
    let dir = Scratch::new("obin", "openmp");
    dir.write("k.c", b"int main(void) { int x = 0;\n#pragma omp target map(tofrom: x)\n x = 42;\n return x; }\n");
    run(&clang, &["-fopenmp", "--offload-arch=gfx90a:xnack+", "-nogpulib", "-c", "k.c", "-o", "k.o"], &dir.0);
    let Some(entries) = check_object(&dir, "k.o", test) else {
        return;
    };
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert_eq!((e.offload_kind, e.image_kind), (OffloadKind::OPENMP, ImageKind::BITCODE));
    assert_eq!(e.triple(), Some("amdgcn-amd-amdhsa"));
    assert_eq!(e.arch(), Some("gfx90a:xnack+"));
    assert!(e.image.starts_with(b"BC\xC0\xDE"));
}

const HIP_SOURCE: &str = r#"
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
struct dim3 { unsigned x, y, z; __host__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
extern "C" unsigned __hipPushCallConfiguration(dim3, dim3, unsigned long = 0, hipStream_t = 0);
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, hipStream_t *);
__global__ void kern(int *p) { *p = 1; }
"#;

#[test]
fn clang_hip_new_driver_object() {
    let test = "clang_hip_new_driver_object";
    let Some(clang) = tool("clang", test) else {
        return;
    };
    let dir = Scratch::new("obin", "hip");
    dir.write("h.hip", HIP_SOURCE.as_bytes());
    let args = [
        "-x",
        "hip",
        "--offload-new-driver",
        "-fgpu-rdc",
        "--offload-arch=gfx90a",
        "--offload-arch=gfx906:xnack-",
        "-nogpulib",
        "-nogpuinc",
        "-c",
        "h.hip",
        "-o",
        "h.o",
    ];
    run(&clang, &args, &dir.0);
    let Some(entries) = check_object(&dir, "h.o", test) else {
        return;
    };
    let mut arches: Vec<&str> = entries.iter().filter_map(|e| e.arch()).collect();
    arches.sort_unstable();
    assert_eq!(arches, ["gfx906:xnack-", "gfx90a"]);
    for e in &entries {
        // LLVM 22 writes HIP as 4: the value the old table calls SYCL.
        assert_eq!(e.offload_kind, OffloadKind::HIP);
        assert!(e.offload_kind.caveat().is_some());
        assert_eq!(e.triple(), Some("amdgcn-amd-amdhsa"));
    }
}

#[test]
fn llvm_reads_what_we_write() {
    let test = "llvm_reads_what_we_write";
    let (Some(objdump), Some(extractor)) = (tool("llvm-objdump", test), tool("llvm-offload-binary", test)) else {
        return;
    };
    let dir = Scratch::new("obin", "ours");
    dir.write("a.o", b"original image");
    run(&extractor, &["-o", "orig.bin", "--image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"], &dir.0);
    let original = dir.read("orig.bin");
    let mut bin = ob::parse(&original).unwrap();
    // Edit: new arch, a new key, another image; then add a second binary of our own.
    bin.entries[0].set("arch", "gfx942").set("feature", "+xnack");
    bin.entries[0].image = b"a different, longer image".to_vec().into();
    let mut second = OffloadEntry::new(ImageKind::PTX, OffloadKind::CUDA, &b"// ptx text"[..]);
    second.set("triple", "nvptx64-nvidia-cuda").set("arch", "sm_80");
    let mut data = bin.write().unwrap();
    data.extend(ob::write_v1(&second).unwrap());
    dir.write("ours.bin", &data);

    let listing = parse_objdump(&run(&objdump, &["--offloading", "ours.bin"], &dir.0));
    assert_eq!(listing, [listed(&bin.entries[0]), listed(&second)]);
    run(&extractor, &["ours.bin", "--image=file=x.img,arch=gfx942"], &dir.0);
    assert_eq!(dir.read("x.img"), b"a different, longer image");
    run(&extractor, &["ours.bin", "--image=file=y.img,triple=nvptx64-nvidia-cuda,kind=cuda"], &dir.0);
    assert_eq!(dir.read("y.img"), b"// ptx text");
}
