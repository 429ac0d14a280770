//! `explore::package_kind` (how the web page's lean explorer decides to hand a file to the
//! package explorer) says "package" for exactly the files `explore` explores as packages: every
//! package fixture, and none of the others.

use offload::explore::{explore, package_kind, Options};
use offload::tree::NodeKind;
use std::path::Path;

fn explored_as_package(data: &[u8], name: &str) -> bool {
    let tree = explore(data, name, &Options::default());
    tree.root.children.first().is_some_and(|c| matches!(c.kind, NodeKind::Package | NodeKind::CompressedPayload))
}

/// Checks every fixture in `folder`; returns how many were checked and how many are packages.
fn check_folder(folder: &Path) -> (usize, usize) {
    let (mut checked, mut packages) = (0, 0);
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !path.is_file() || matches!(name.as_str(), "README.md" | "SHA256SUMS" | "generate.sh" | "expected.txt") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let is_package = package_kind(&data[..data.len().min(4096)]).is_some();
        assert_eq!(is_package, explored_as_package(&data, &name), "{name}");
        checked += 1;
        packages += usize::from(is_package);
    }
    (checked, packages)
}

#[test]
fn package_kind_agrees_with_explore_on_every_fixture() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let (checked, packages) = check_folder(&fixtures.join("packages"));
    assert!(checked >= 8 && packages == checked, "every package fixture is a package: {packages} of {checked}");
    let (checked, packages) = check_folder(&fixtures);
    assert!(checked >= 40 && packages == 0, "no other fixture is a package: {packages} of {checked}");
}
