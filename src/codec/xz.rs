//! xz through `lzma-rust2` (pure Rust, no_std), feature `xz`.

use super::*;

/// The dictionary an xz block may ask for before it is refused: xz's preset 9 uses 64 MiB.
#[cfg(feature = "xz")]
const MEMORY_LIMIT_KIB: u32 = 256 << 10;

#[cfg(feature = "xz")]
pub(super) fn decode(data: &[u8], budget: u64, overflow: Overflow, sink: &mut dyn FnMut(&[u8])) -> Result<u64> {
    use lzma_rust2::{Read as _, XzReader};
    const CONTEXT: &str = "xz stream";
    let mut out = Output { produced: 0, budget, overflow, sink };
    let mut reader = XzReader::new_mem_limit(data, true, MEMORY_LIMIT_KIB);
    let mut buf = alloc::vec![0u8; CHUNK];
    while out.flow() == Flow::Continue {
        let at = (data.len() - reader.inner().len()) as u64;
        let n = reader.read(&mut buf).map_err(|e| corrupt(at, CONTEXT, format_args!("{e:?}")))?;
        if n == 0 {
            break;
        }
        if out.emit(&buf[..n], at, CONTEXT)? == Flow::Done {
            break;
        }
    }
    Ok(out.produced)
}

#[cfg(not(feature = "xz"))]
pub(super) fn decode(_data: &[u8], _budget: u64, _overflow: Overflow, _sink: &mut dyn FnMut(&[u8])) -> Result<u64> {
    Err(Error::new(
        0,
        "compression method",
        "a build of offload with the `xz` feature",
        "xz compression, which this build does not include: xz members are not decoded",
    ))
}
