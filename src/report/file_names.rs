//! File names for what is taken out of a file: `offload extract` and the web page's downloads
//! name device images with these rules, so that the same image gets the same name from both.
//!
//! - An image is `<file>.<target>.<ext>`, or `<file>.<member>.<target>.<ext>` inside an archive
//!   member ([`image_stem`]); every part made safe by [`sanitize`] (`:` becomes `_`).
//! - The extension says what the image is ([`extension_for_format`]: `co`, `cubin`, `bc`, `spv`,
//!   `fatbin`, `ptx`, `o`, `a` for an archive, else `bin`).
//! - When an earlier image took the name, `<stem>.<n>.<ext>` ([`UniqueNames`]), counting in
//!   the order the images are found.

use crate::image;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;

/// Longest part [`sanitize`] keeps, in characters: file systems allow 255 bytes per name, and a
/// name has a file name and an extension around the part.
pub const MAX_PART: usize = 200;

/// A file name part with only safe characters: ASCII letters and digits, `-`, `_`, `.` and `+`
/// stay, anything else (`:`, `/`, spaces, markup) becomes `_`; leading dots go (no hidden
/// files, no `..`), and the part is cut to [`MAX_PART`] characters.
pub fn sanitize(part: &str) -> String {
    let cleaned: String = part
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+') { c } else { '_' })
        .collect();
    cleaned.trim_start_matches('.').chars().take(MAX_PART).collect()
}

/// The extension for an image of the format [`image::identify`] names.
pub fn extension_for_format(format: &str) -> &'static str {
    match format {
        "AMDGPU code object" => "co",
        "CUDA cubin" => "cubin",
        "LLVM bitcode" => "bc",
        "SPIR-V module" => "spv",
        "NVIDIA fatbin" => "fatbin",
        "PTX" => "ptx",
        "ELF object" => "o",
        _ => "bin",
    }
}

/// The extension that says what an image's bytes are; `a` for an archive of device images
/// (what a SYCL `spir64_gen` frame holds).
pub fn image_extension(bytes: &[u8]) -> &'static str {
    if crate::format::archive::ar::is_archive(bytes) {
        return "a";
    }
    image::identify(bytes).map_or("bin", |(format, _)| extension_for_format(format))
}

/// `<file>.<target>`, or `<file>.<member>.<target>` for an image inside an archive member.
pub fn image_stem(file: &str, target_id: &str, member: Option<&str>) -> String {
    match member {
        Some(member) => format!("{file}.{}.{}", sanitize(member), sanitize(target_id)),
        None => format!("{file}.{}", sanitize(target_id)),
    }
}

/// Names handed out so far, so that no two outputs of one run share a name.
#[derive(Clone, Debug, Default)]
pub struct UniqueNames {
    used: BTreeSet<String>,
}

impl UniqueNames {
    pub fn new() -> Self {
        UniqueNames::default()
    }

    /// `<stem>.<ext>`, or `<stem>.<n>.<ext>` with the smallest `n` not taken yet; an empty
    /// `ext` gives `<stem>` or `<stem>.<n>`.
    pub fn take(&mut self, stem: &str, ext: &str) -> String {
        let mut n = 0u64;
        loop {
            let name = match (n, ext.is_empty()) {
                (0, true) => String::from(stem),
                (0, false) => format!("{stem}.{ext}"),
                (_, true) => format!("{stem}.{n}"),
                (_, false) => format!("{stem}.{n}.{ext}"),
            };
            if self.used.insert(name.clone()) {
                return name;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_keep_only_safe_characters() {
        assert_eq!(sanitize("hipv4-amdgcn-amd-amdhsa--gfx906:xnack-"), "hipv4-amdgcn-amd-amdhsa--gfx906_xnack-");
        assert_eq!(sanitize(".hip_fatbin"), "hip_fatbin");
        assert_eq!(sanitize("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(sanitize("<b>x</b>"), "_b_x__b_");
        assert_eq!(sanitize(&"a".repeat(300)).len(), MAX_PART);
    }

    #[test]
    fn images_are_named_by_file_member_target_and_format() {
        assert_eq!(
            image_stem("lib.so", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", None),
            "lib.so.hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+"
        );
        assert_eq!(
            image_stem("x.a", "hip-amdgcn-amd-amdhsa--gfx90a", Some("rdc_a.o")),
            "x.a.rdc_a.o.hip-amdgcn-amd-amdhsa--gfx90a"
        );
        assert_eq!(image_extension(b"BC\xC0\xDE rest"), "bc");
        assert_eq!(image_extension(b"what is this"), "bin");
    }

    #[test]
    fn repeated_names_get_a_number() {
        let mut names = UniqueNames::new();
        assert_eq!(names.take("f.t", "co"), "f.t.co");
        assert_eq!(names.take("f.t", "co"), "f.t.1.co");
        assert_eq!(names.take("f.t", "co"), "f.t.2.co");
        assert_eq!(names.take("f.t", ""), "f.t");
        assert_eq!(names.take("f.t", ""), "f.t.1");
    }
}
