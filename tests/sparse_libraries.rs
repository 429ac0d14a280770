//! Real libraries of 16 MiB or more (from the cached wheels: unpacked by `scripts/bench_packages.py`
//! and the tests that unpack them) explored from
//! what [`offload::explore::sparse`] keeps of them as they pass, against the same libraries read
//! whole: the same tree, no read outside the kept bytes, and little kept beyond the offload
//! sections. Skipped, saying so, where the cache holds none.

use offload::explore::sparse::{keep, Keeping};
use offload::explore::{explore, Options};
use offload::format::host::{read_host, SectionRole};
use std::path::PathBuf;

/// What the inflater hands on at a time ([`offload::codec::CHUNK`]).
const CHUNK: usize = offload::codec::CHUNK;

fn cached_libraries() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let cache = home.join(".cache/offload-explorer/wheels");
    let mut found = Vec::new();
    let mut dirs = vec![cache.join("bench-unzipped")];
    if let Ok(entries) = std::fs::read_dir(&cache) {
        dirs.extend(entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "unpacked")));
    }
    while let Some(dir) = dirs.pop() {
        for path in
            std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>()).unwrap_or_default()
        {
            if path.is_dir() {
                dirs.push(path);
            } else if path.to_string_lossy().contains(".so") && path.metadata().is_ok_and(|m| m.len() >= 16 << 20) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn real_libraries_explore_from_their_kept_bytes_as_whole() {
    let libraries = cached_libraries();
    if libraries.is_empty() {
        eprintln!("skipped: no unpacked libraries in ~/.cache/offload-explorer/wheels/bench-unzipped (make bench unpacks them)");
        return;
    }
    let opts = Options::default();
    for path in libraries {
        let data = std::fs::read(&path).unwrap();
        let mut passes = 0;
        let mut fill = |sink: &mut dyn FnMut(&[u8])| {
            passes += 1;
            data.chunks(CHUNK).for_each(&mut *sink);
            Ok(data.len() as u64)
        };
        let keeping = keep(data.len() as u64, &mut fill, &mut |_| panic!("{}: went elsewhere", path.display()));
        let Ok(Keeping::Kept(kept)) = keeping else { panic!("{}: not kept", path.display()) };
        let host = read_host(&data[..]).unwrap();
        let sections: u64 = host.sections.iter().map(|s| s.data.len() as u64).sum();
        let unmarked =
            host.sections.iter().any(|s| matches!(s.role, SectionRole::KpackReference | SectionRole::BundleEntry(_)));
        assert!(passes == 1 || unmarked && passes == 2, "{}: {passes} passes", path.display());
        eprintln!(
            "{}: {} MiB, kept {:.1} MiB for {:.1} MiB of offload sections, in {passes} passes",
            path.display(),
            data.len() >> 20,
            kept.kept_bytes() as f64 / 1048576.0,
            sections as f64 / 1048576.0
        );
        // Beyond the offload sections: headers, the section table and name table, and whole
        // fatbins some libraries carry as data (10 MiB of TensorFlow's `.rodata`).
        assert!(kept.kept_bytes() < sections + data.len() as u64 / 32, "{}", path.display());
        let name = path.file_name().unwrap().to_string_lossy();
        assert_eq!(explore(&kept, &name, &opts), explore(&data[..], &name, &opts), "{}", path.display());
        assert_eq!(kept.misses(), 0);
    }
}
