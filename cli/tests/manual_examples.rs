//! The examples of the llvm-offload-binary and clang-offload-bundler manuals, run as written
//! through both the reference (LLVM 22) and `offload`, each in a directory of its own with the
//! same inputs: packaging, extraction to named files and to LLVM's default names, several
//! matches for one file, `--archive`, response files with quoted paths holding spaces, and the
//! bundler's single-dash options mixed with response files. Outputs must be byte-identical
//! (archives: member contents and order). A reference that dies by a signal gave no answer: the
//! case is reported and not compared.

mod support;

use offload::format::archive::ar;
use std::fs;
use std::path::{Path, PathBuf};
use support::{llvm_bin, must_in, ours, run_in, Scratch};

fn offload_binary() -> PathBuf {
    llvm_bin().join("llvm-offload-binary")
}

fn bundler() -> PathBuf {
    llvm_bin().join("clang-offload-bundler")
}

/// A scratch directory holding the shared inputs: two objects by clang-22, a bitcode file, and
/// an offload binary of the two objects packaged by llvm-offload-binary.
struct Inputs {
    dir: Scratch,
}

impl Inputs {
    fn new(name: &str) -> Inputs {
        let dir = Scratch::new("manual_examples", name);
        let clang = llvm_bin().join("clang");
        for (file, body) in [("a", "int a(void) { return 1; }"), ("my b", "int b(void) { return 2; }")] {
            dir.write(&format!("{file}.c"), body.as_bytes());
            must_in(dir.dir(), &clang, &["-c", &format!("{file}.c"), "-o", &format!("{file}.o")]);
        }
        must_in(dir.dir(), &clang, &["-c", "-emit-llvm", "a.c", "-o", "a.bc"]);
        must_in(
            dir.dir(),
            &offload_binary(),
            &[
                "-o",
                "in.bin",
                "--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp",
                "--image=file=my b.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp",
            ],
        );
        Inputs { dir }
    }

    /// A copy of the inputs in `<dir>/<who>`, where one tool runs.
    fn copy_for(&self, who: &str) -> PathBuf {
        let to = self.dir.path(who);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(self.dir.dir()).unwrap().flatten() {
            if entry.file_type().unwrap().is_file() {
                fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
        to
    }
}

/// Runs the reference with `reference_args` and ours (`offload <sub>` + `our_args`) on copies of
/// the inputs; `None` when the reference died by a signal. Both must succeed.
fn both(inputs: &Inputs, reference: &Path, reference_args: &[&str], ours_args: &[&str]) -> Option<(PathBuf, PathBuf)> {
    let theirs = inputs.copy_for("reference");
    let mine = inputs.copy_for("ours");
    let out = run_in(&theirs, reference, reference_args);
    if out.code.is_none() {
        eprintln!("{} {reference_args:?} died by a signal: no answer to compare with", reference.display());
        return None;
    }
    assert!(out.ok(), "{} {reference_args:?}: {}", reference.display(), out.stderr);
    must_in(&mine, ours(), ours_args);
    Some((theirs, mine))
}

/// Every file either run wrote, with the same names and bytes on both sides.
fn assert_same_outputs(inputs: &Inputs, theirs: &Path, mine: &Path, case: &str) {
    let names = |dir: &Path| {
        let mut v: Vec<String> =
            fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    };
    assert_eq!(names(theirs), names(mine), "{case}: the files written");
    for name in names(theirs) {
        let (a, b) = (fs::read(theirs.join(&name)).unwrap(), fs::read(mine.join(&name)).unwrap());
        assert!(a == b, "{case}: {name} differs ({} bytes from the reference, {} from ours)", a.len(), b.len());
    }
    let _ = fs::remove_dir_all(theirs);
    let _ = fs::remove_dir_all(mine);
    let _ = inputs;
}

/// An archive's member contents, in order.
fn member_contents(path: &Path) -> Vec<Vec<u8>> {
    let data = fs::read(path).unwrap();
    let archive = ar::read(&data[..]).unwrap().complete().unwrap();
    archive.members.iter().map(|m| m.data(&data[..]).unwrap().to_vec()).collect()
}

#[test]
fn llvm_offload_binary_manual_examples() {
    let inputs = Inputs::new("offload-binary");
    let package = [
        "-o",
        "out.bin",
        "--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp",
        "--image=file=my b.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp,feature=+xnack",
    ];
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("packaging", package.to_vec()),
        ("extract to a named file", vec!["in.bin", "--image=file=output.o,triple=nvptx64-nvidia-cuda,arch=sm_70"]),
        ("several matches for one file", vec!["in.bin", "--image=file=one.o,kind=openmp"]),
        ("LLVM's default names", vec!["in.bin", "--image=kind=openmp", "--image=arch=gfx90a"]),
        ("nothing matches", vec!["in.bin", "--image=file=none.o,triple=spirv64"]),
    ];
    for (case, args) in cases {
        let Some((theirs, mine)) = both(&inputs, &offload_binary(), &args, &[&["package"], &args[..]].concat()) else {
            continue;
        };
        assert_same_outputs(&inputs, &theirs, &mine, case);
    }

    // A response file with quoted paths that hold spaces, as build systems write them.
    fs::write(
        inputs.dir.path("args with space.rsp"),
        "-o \"out dir.bin\"\n\"--image=file=my b.o,triple=amdgcn-amd-amdhsa,arch=gfx90a\" '--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_70'\n",
    )
    .unwrap();
    if let Some((theirs, mine)) =
        both(&inputs, &offload_binary(), &["@args with space.rsp"], &["package", "@args with space.rsp"])
    {
        assert_same_outputs(&inputs, &theirs, &mine, "@FILE");
    }

    // --archive: LLVM 22 writes the matches of each --image to its file=; ours too.
    if let Some((theirs, mine)) = both(
        &inputs,
        &offload_binary(),
        &["in.bin", "--archive", "--image=file=lib.a"],
        &["package", "in.bin", "--archive", "--image=file=lib.a"],
    ) {
        let reference = member_contents(&theirs.join("lib.a"));
        assert_eq!(reference.len(), 2);
        assert_eq!(member_contents(&mine.join("lib.a")), reference, "--archive: member contents and order");
        // The manual's `IN --archive -o LIB.a`, which LLVM 22 refuses, gives the same archive.
        must_in(&mine, ours(), &["offload-binary", "in.bin", "--archive", "-o", "libdevice.a"]);
        assert_eq!(member_contents(&mine.join("libdevice.a")), reference, "--archive -o: member contents and order");
    }
}

#[test]
fn clang_offload_bundler_examples_with_single_dashes_and_response_files() {
    let inputs = Inputs::new("bundler");
    fs::write(
        inputs.dir.path("bundle.rsp"),
        "-type=bc -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a\n-input=a.bc \"-input=my b.o\"\n",
    )
    .unwrap();
    // `@FILE` beside a plain single-dash option, as clang's driver mixes them.
    let bundle = ["@bundle.rsp", "-output=bundled file.bc"];
    let Some((theirs, mine)) = both(&inputs, &bundler(), &bundle, &[&["bundle"], &bundle[..]].concat()) else {
        return;
    };
    assert_same_outputs(&inputs, &theirs, &mine, "bundle with @FILE and -output");

    // Unbundle the reference's bundle with a response file naming outputs with spaces.
    fs::copy(inputs.dir.path("a.bc"), inputs.dir.path("a copy.bc")).unwrap();
    let made = inputs.copy_for("made");
    must_in(&made, &bundler(), &bundle);
    fs::copy(made.join("bundled file.bc"), inputs.dir.path("bundled file.bc")).unwrap();
    let _ = fs::remove_dir_all(&made);
    fs::write(
        inputs.dir.path("unbundle.rsp"),
        "-type=bc -targets=hip-amdgcn-amd-amdhsa--gfx90a -input=\"bundled file.bc\" '-output=device out.o' -unbundle\n",
    )
    .unwrap();
    if let Some((theirs, mine)) = both(&inputs, &bundler(), &["@unbundle.rsp"], &["unbundle", "@unbundle.rsp"]) {
        assert_same_outputs(&inputs, &theirs, &mine, "unbundle with @FILE");
    }
}
