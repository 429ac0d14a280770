//! The rule everything that leaves the worker follows: bytes offered to the user (an edited
//! file, a payload that did not fit, a download) are explored again first, and refused when
//! they read back with errors their source did not have. The error diagnostics are the core's
//! [`Tree::errors`]; said here the way each refusal shows them.

use offload::tree::{NodeKind, Tree};

/// The check every download passes: `tree` is what the explorer makes of the bytes about to
/// be saved; if it has more error diagnostics than their source had, the download is refused
/// with those errors (each with its node and where it is).
pub fn check_read_back(tree: &Tree, source_errors: u32) -> Result<(), Vec<String>> {
    let errors: Vec<String> = tree
        .errors()
        .into_iter()
        .map(|(node, d)| {
            let at = d.span.map(|s| format!(" (at byte {} of space {})", s.offset, s.space)).unwrap_or_default();
            format!("{}: {}{at}", node.label, d.message)
        })
        .collect();
    if errors.len() as u64 > u64::from(source_errors) {
        return Err(errors);
    }
    Ok(())
}

/// Every error diagnostic of a tree, with the label of its node.
pub fn error_messages(tree: &Tree) -> Vec<String> {
    tree.errors().into_iter().map(|(n, d)| format!("{}: {}", n.label, d.message)).collect()
}

/// The file name to offer a payload under when it does not fit in a linked file: the file's
/// name with the extension of what the payload is (`.hipfb` for a bundle or a compressed
/// bundle, as HIP names its fat binaries; `.offbin` for an offload binary).
pub fn payload_file_name(file: &str, kind: NodeKind) -> String {
    let extension = match kind {
        NodeKind::Bundle | NodeKind::CompressedBundle => "hipfb",
        NodeKind::OffloadBinary => "offbin",
        NodeKind::Section => "section.bin",
        _ => "bin",
    };
    format!("{file}.{extension}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use offload::explore::{explore, Options};

    const COMPRESSED: &[u8] = include_bytes!("../../../tests/fixtures/hip_elf_2arch_compressed.hipfb");

    #[test]
    fn bytes_that_read_back_worse_are_refused_with_their_errors() {
        let truncated = &COMPRESSED[..COMPRESSED.len() - 100];
        let back = explore(truncated, "x.hipfb", &Options::default());
        let errors = check_read_back(&back, 0).unwrap_err();
        assert!(!errors.is_empty() && errors.iter().all(|e| !e.is_empty()), "{errors:?}");
        // A source that already had that many errors gives nothing new.
        assert_eq!(check_read_back(&back, errors.len() as u32), Ok(()));
        // The same errors, said without their places.
        let messages = error_messages(&back);
        assert_eq!(messages.len(), errors.len());
        assert!(messages.iter().zip(&errors).all(|(m, e)| e.starts_with(m.as_str())), "{messages:?} {errors:?}");
        assert!(error_messages(&explore(COMPRESSED, "x.hipfb", &Options::default())).is_empty());
    }

    #[test]
    fn payload_names_follow_what_the_payload_is() {
        assert_eq!(payload_file_name("lib.so", NodeKind::CompressedBundle), "lib.so.hipfb");
        assert_eq!(payload_file_name("lib.so", NodeKind::Bundle), "lib.so.hipfb");
        assert_eq!(payload_file_name("a.out", NodeKind::OffloadBinary), "a.out.offbin");
        assert_eq!(payload_file_name("a.out", NodeKind::Section), "a.out.section.bin");
    }
}
