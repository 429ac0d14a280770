//! `offload compress` and `offload decompress`.

use crate::fail::{Failure, InFile, Outcome};
use crate::input::{check_hash, open_input, stream_hashing, Input, Single};
use crate::io::{read_all, write_atomic, AtomicFile};
use clap::Args;
use offload::codec::Method;
use offload::format::bundle::compressed;
use offload::format::bundle::{binary as bundle, text as text_bundle};
use offload::format::nv_fatbin;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct CompressArgs {
    /// The bundle to compress (binary or text layout).
    pub input: PathBuf,
    /// Where to write the compressed bundle.
    #[arg(short, long)]
    pub output: PathBuf,
    /// zstd or zlib.
    #[arg(long, default_value = "zstd")]
    pub method: String,
    /// Compression level (zstd: 1..=22, default 3 like LLVM; zlib: 0..=9, default 6).
    #[arg(long)]
    pub level: Option<i32>,
    /// Compressed bundle format version: 3 (64-bit sizes; what clang-offload-bundler 22 writes),
    /// 2 (32-bit sizes) or 1 (no total size; LLVM 22 reads it but no longer writes it).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=3))]
    pub format_version: Option<u16>,
    /// Largest input accepted, in bytes.
    #[arg(long, default_value_t = 4 << 30)]
    pub max_size: u64,
}

#[derive(Args)]
pub struct DecompressArgs {
    /// The compressed bundle (CCOB); or an NVIDIA fatbin, or a file carrying fatbin sections,
    /// whose entries are all written decompressed.
    pub input: PathBuf,
    /// Where to write the bundle it holds (for fatbins: the fatbin, every entry decompressed).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Largest decompressed size accepted, in bytes.
    #[arg(long, default_value_t = 4 << 30)]
    pub max_decompressed: u64,
}

pub fn run_compress(a: &CompressArgs) -> Outcome<()> {
    let data = read_all(&a.input)?;
    if data.len() as u64 > a.max_size {
        return Err(Failure::new(format!(
            "{}: {} bytes is more than --max-size {}",
            a.input.display(),
            data.len(),
            a.max_size
        )));
    }
    if compressed::is_compressed(&data) {
        return Err(Failure::new(format!("{}: already a compressed bundle", a.input.display())));
    }
    if !bundle::is_bundle(&data) && text_bundle::detect_comment(&data).is_none() {
        return Err(Failure::new(format!(
            "{}: at byte 0 (bundle): expected a clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__` or a text bundle marker), found neither; clang-offload-bundler only unbundles compressed bundles",
            a.input.display()
        )));
    }
    if bundle::is_bundle(&data) {
        bundle::Bundle::parse(&data).in_file(&a.input)?;
    }
    let method = Method::from_name(&a.method)
        .ok_or_else(|| Failure::new(format!("unknown method '{}' (expected zstd or zlib)", a.method)))?;
    let version = a.format_version.unwrap_or(compressed::DEFAULT_VERSION);
    let out = compressed::compress(&data, method, a.level, version)
        .map_err(|e| Failure::new(format!("{}: cannot compress: {e}", a.input.display())))?;
    // Parse what we wrote before saving it: never hand out a file we cannot read back.
    let check = compressed::CompressedBundle::parse(&out).and_then(|cb| cb.decompress(data.len() as u64));
    if check.as_deref() != Ok(&data[..]) {
        return Err(Failure::new(
            "internal error: the compressed bundle does not decompress to its input; nothing written",
        ));
    }
    write_atomic(&a.output, &out)
}

pub fn run_decompress(a: &DecompressArgs) -> Outcome<()> {
    let data = match open_input(&a.input)? {
        Input::Compressed(single) => return decompress_to_file(&a.input, single, a.max_decompressed, &a.output),
        Input::Other(data) => data,
    };
    if nv_fatbin::is_fatbin(&data) || offload::format::host::is_host_file(&data) {
        if let Some(fatbin) = nv_fatbins(&a.input, &data)? {
            let plain = nv_fatbin::decompress_all(&fatbin, a.max_decompressed).in_file(&a.input)?;
            // Read back what we are about to write: never hand out a file we cannot parse.
            for found in nv_fatbin::walk(&plain) {
                if let nv_fatbin::Piece::Unreadable(e) = found.piece {
                    return Err(Failure::new(format!(
                        "internal error: the decompressed fatbin does not read back: {e}"
                    )));
                }
            }
            return write_atomic(&a.output, &plain);
        }
    }
    // Not a compressed bundle: this says what was expected and found.
    let single = Single::from_bytes(&a.input, data)?;
    decompress_to_file(&a.input, single, a.max_decompressed, &a.output)
}

/// Decompresses the one compressed bundle of `single` into `output` as it is decoded, never
/// holding the decompressed bundle: the bytes go to a temporary file next to `output`, which is
/// renamed to `output` only once the stream has ended at its declared size and its hash has
/// matched; on any failure the temporary file is removed and `output` is left as it was.
/// Errors come in the order, and with the words and offsets, of reading the whole bundle first.
fn decompress_to_file(path: &Path, mut single: Single, limit: u64, output: &Path) -> Outcome<()> {
    // Made now, but a failure to make it is reported only after the decoding and hash errors,
    // which come first when the bundle is read whole.
    let mut out = AtomicFile::create(output);
    let computed = stream_hashing(&mut single, limit, &mut |chunk| {
        if let Ok(file) = &mut out {
            if let Err(e) = file.write(chunk) {
                // Dropping the file removes what was written of it.
                out = Err(e);
            }
        }
    })
    .in_file(path)?;
    check_hash(path, &single.header, computed)?;
    out?.commit()
}

/// The NVIDIA fatbin containers of `data`: the file itself when it is a fatbin, or those of a
/// host file's fatbin sections (`.nv_fatbin`, `__nv_relfatbin`, ...), one after another; `None`
/// for a host file without any.
fn nv_fatbins(path: &Path, data: &[u8]) -> Outcome<Option<Vec<u8>>> {
    if nv_fatbin::is_fatbin(data) {
        return Ok(Some(data.to_vec()));
    }
    let host = offload::format::host::read_host(data).in_file(path)?;
    let sections: Vec<&[u8]> = host
        .sections
        .iter()
        .filter(|s| s.role == offload::format::host::SectionRole::NvFatbin)
        .map(|s| s.data)
        .collect();
    Ok((!sections.is_empty()).then(|| sections.concat()))
}
