//! The samples offered by the "Open sample" menu: real files made by clang-22, nvcc and the
//! packaging tools (see tests/fixtures/README.md), listed once in `www/samples.txt`, which both
//! this module and the script that copies them next to the page (`scripts/copy-samples.sh`) read.

#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Its path below `tests/fixtures`, as listed (`packages/x.whl`).
    pub fixture: &'static str,
    /// Its file name, also its path below `samples/` on the site: the copy script puts every
    /// sample there by name alone, so a tab shows the name a user would see on a download.
    pub file: &'static str,
    pub title: &'static str,
}

const LIST: &str = include_str!("../../samples.txt");

pub fn samples() -> Vec<Sample> {
    LIST.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(fixture, title)| {
            let fixture = fixture.trim();
            Sample { fixture, file: file_name(fixture), title: title.trim() }
        })
        .collect()
}

/// The last part of a `/`-separated path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_is_a_committed_fixture() {
        let list = samples();
        assert!(list.len() >= 7);
        for s in list {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(s.fixture);
            assert!(path.is_file(), "{} is not in tests/fixtures", s.fixture);
            assert!(!s.title.is_empty());
        }
    }

    #[test]
    fn a_sample_below_a_folder_is_served_by_its_name_and_no_two_share_one() {
        let list = samples();
        let wheel = list.iter().find(|s| s.fixture.starts_with("packages/")).expect("a package among the samples");
        assert_eq!(wheel.file, "gpu_libs-1.0-py3-none-linux_x86_64.whl");
        let mut names: Vec<_> = list.iter().map(|s| s.file).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), list.len(), "two samples share a file name");
    }
}
