//! Which files of a drop (or a pick) open in tabs of their own, and which go with them.
//!
//! A kpack'd ROCm build keeps its device code in `.kpack` archives beside the binary (see
//! [`offload::format::kpack`]). Dropped together with binaries, the archives are not opened on
//! their own: every other file of the drop is explored with them, so that a binary and its
//! archives show the targets and kernels of an ordinary build. Archives dropped alone open as
//! files of their own (their code objects listed).

use offload::util::sort;

/// Whether a file is a kpack archive, by its name as the splitter writes it (`<prefix>_<arch>.kpack`).
pub fn is_kpack_archive(name: &str) -> bool {
    name.len() > ".kpack".len() && name.to_ascii_lowercase().ends_with(".kpack")
}

/// A drop's files by index: those that open in tabs, and those each of them is explored with,
/// in name order (as the CLI finds them in a directory), so that the joined entries come in
/// the same order whatever order the files were dropped in.
pub fn split_drop(names: &[String]) -> (Vec<usize>, Vec<usize>) {
    let (mut archives, others): (Vec<usize>, Vec<usize>) = (0..names.len()).partition(|&i| is_kpack_archive(&names[i]));
    sort::sort_by(&mut archives, |&a, &b| names[a].cmp(&names[b]));
    if others.is_empty() {
        (archives, Vec::new())
    } else {
        (others, archives)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn archives_dropped_with_binaries_go_with_each_of_them() {
        let drop = names(&["libkp.so", "kp_gfx90a.kpack", "kp_app", "kp_gfx1100.kpack", "OLD.KPACK"]);
        assert_eq!(split_drop(&drop), (vec![0, 2], vec![4, 3, 1]));
    }

    #[test]
    fn archives_dropped_alone_open_on_their_own() {
        let drop = names(&["kp_gfx90a.kpack", "kp_gfx1100.kpack"]);
        assert_eq!(split_drop(&drop), (vec![1, 0], vec![]));
    }

    #[test]
    fn files_without_archives_open_as_they_are() {
        assert_eq!(split_drop(&names(&["a.o", "b.so"])), (vec![0, 1], vec![]));
        assert!(!is_kpack_archive(".kpack"));
        assert!(!is_kpack_archive("kpack.so"));
    }
}
