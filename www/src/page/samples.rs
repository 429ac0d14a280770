//! The samples offered by the "Open sample" menu: real files made by clang-22 (see
//! tests/fixtures/README.md), listed once in `www/samples.txt`, which both this module and the
//! script that copies them next to the page read.

#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// File name, also its path below `samples/` on the site.
    pub file: &'static str,
    pub title: &'static str,
}

const LIST: &str = include_str!("../../samples.txt");

pub fn samples() -> Vec<Sample> {
    LIST.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(file, title)| Sample { file: file.trim(), title: title.trim() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_is_a_committed_fixture() {
        let list = samples();
        assert!(list.len() >= 5);
        for s in list {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(s.file);
            assert!(path.is_file(), "{} is not in tests/fixtures", s.file);
            assert!(!s.title.is_empty());
        }
    }
}
