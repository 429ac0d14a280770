//! No import circles, in any crate of the workspace (an invariant of `docs/ARCHITECTURE.md`):
//! the files of each library crate, joined by what each takes from another (`use crate::…`,
//! `super::…`, a child module's name, and paths written inline), have no cycle. A module may use
//! what its parent modules define: that is where a Rust module's shared items live, and it is no
//! circle between parts. Comments, doc links included, are not imports.
//!
//! Read from the source text: the workspace's module paths are plain (no `#[path]`, no macros
//! that make modules), which the test checks for, so a path resolves to the file of its longest
//! prefix that is a module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The library crates of the workspace: their `src` folders.
const CRATES: [&str; 4] = ["src", "cli/src", "www/src", "python/src"];

/// One source file: its module path (`["explore", "shares"]`; empty for `lib.rs`) and its text
/// with comments removed.
struct SourceFile {
    path: PathBuf,
    module: Vec<String>,
    code: String,
}

/// Every `.rs` file under `dir`, but the binaries' own roots (`src/bin/`, `main.rs`), which no
/// library file can import.
fn rust_files(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path != root.join("bin") {
                rust_files(&path, root, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") && path != root.join("main.rs") {
            out.push(path);
        }
    }
}

/// `src/explore/shares.rs` → `["explore", "shares"]`; `mod.rs` and `lib.rs` name their folder.
fn module_of(path: &Path, root: &Path) -> Vec<String> {
    let relative = path.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// `text` without `//` and `/* */` comments, and with string and char literals emptied (a
/// message may say `crate::x`).
fn strip_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            (b'"', _) => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            _ => {
                out.push(bytes[i] as char);
                i += 1;
            }
        }
    }
    out
}

/// Every path written in `code`: `a::b::c` runs of identifiers, with `use` groups expanded
/// (`use crate::{a::B, c::{D, E}}` gives `crate::a::B`, `crate::c::D`, `crate::c::E`).
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("use ") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = code[at..].find(';') else { continue };
        expand_use(&code[at + 4..at + end], &[], &mut paths);
    }
    let tokens: Vec<&str> = code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).collect();
    for token in tokens {
        if token.contains("::") {
            let parts: Vec<String> = token.split("::").filter(|p| !p.is_empty()).map(String::from).collect();
            if parts.len() > 1 {
                paths.push(parts);
            }
        }
    }
    paths
}

/// The paths a `use` tree names, each after `prefix`.
fn expand_use(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let mut path = prefix.to_vec();
        path.extend(
            tree.split(" as ").next().unwrap_or("").split("::").map(|p| p.trim().to_string()).filter(|p| !p.is_empty()),
        );
        out.push(path);
        return;
    };
    let mut path = prefix.to_vec();
    path.extend(tree[..open].split("::").map(|p| p.trim().to_string()).filter(|p| !p.is_empty()));
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand_use(&inner[start..i], &path, out);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner[start..].trim().is_empty() {
        expand_use(&inner[start..], &path, out);
    }
}

/// The module a path written in `from` names: `crate::`, `super::` and `self::` resolved, a
/// leading name that is a child module of `from` too; `None` for other crates, the prelude
/// and local names. The longest prefix that is a module of `modules` wins.
fn target_module(path: &[String], from: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut absolute: Vec<String> = Vec::new();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("self") => {
            absolute = from.to_vec();
            rest = &path[1..];
        }
        Some("super") => {
            absolute = from.to_vec();
            while rest.first().map(String::as_str) == Some("super") {
                absolute.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) => {
            let mut child = from.to_vec();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
            absolute = from.to_vec();
        }
        None => return None,
    }
    absolute.extend(rest.iter().cloned());
    (1..=absolute.len()).rev().map(|n| absolute[..n].to_vec()).find(|m| modules.contains(m))
}

/// The files of one crate and, for each file, the other files it takes names from (never its
/// own parent modules), with the paths that tie them.
fn import_graph(root: &Path) -> (Vec<SourceFile>, Vec<BTreeMap<usize, BTreeSet<String>>>) {
    let mut paths = Vec::new();
    rust_files(root, root, &mut paths);
    let files: Vec<SourceFile> = paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(!text.contains("#[path"), "{}: a #[path] module, which this check cannot follow", path.display());
            SourceFile { module: module_of(&path, root), code: strip_comments(&text), path }
        })
        .collect();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    let index: BTreeMap<&Vec<String>, usize> = files.iter().enumerate().map(|(i, f)| (&f.module, i)).collect();
    let edges = files
        .iter()
        .map(|file| {
            let mut to: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
            for path in paths_in(&file.code) {
                let Some(target) = target_module(&path, &file.module, &modules) else { continue };
                let is_parent = file.module.starts_with(&target);
                if !is_parent {
                    to.entry(index[&target]).or_default().insert(path.join("::"));
                }
            }
            to
        })
        .collect();
    (files, edges)
}

/// The strongly connected groups of more than one file (Tarjan's algorithm).
fn circles(edges: &[BTreeMap<usize, BTreeSet<String>>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeMap<usize, BTreeSet<String>>],
        next: usize,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        found: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].keys() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.found.push(group);
            }
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        next: 0,
        index: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        found: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn no_crate_has_an_import_circle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = String::new();
    for krate in CRATES {
        let (files, edges) = import_graph(&workspace.join(krate));
        // The graph must have been read: the core's explorer takes from its formats.
        assert!(edges.iter().map(BTreeMap::len).sum::<usize>() >= files.len() / 2, "{krate}: too few imports read");
        for group in circles(&edges) {
            report.push_str(&format!("circle in {krate}:\n"));
            for &a in &group {
                for (&b, names) in &edges[a] {
                    if group.contains(&b) {
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        report.push_str(&format!(
                            "  {} -> {}: {}\n",
                            files[a].path.display(),
                            files[b].path.display(),
                            names.join(", ")
                        ));
                    }
                }
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn a_circle_between_two_files_is_found() {
    let modules: BTreeSet<Vec<String>> =
        [vec![], vec!["a".to_string()], vec!["a".to_string(), "x".to_string()], vec!["b".to_string()]].into();
    let from_b = vec!["b".to_string()];
    let from_x = vec!["a".to_string(), "x".to_string()];
    let code_b = strip_comments("use crate::a::{x::Thing, Other}; // crate::nothing\n");
    let code_x = strip_comments("fn f() { let _ = crate::b::make(\"crate::a\"); super::helper(); }");
    let targets = |code: &str, from: &[String]| -> BTreeSet<Vec<String>> {
        paths_in(code).iter().filter_map(|p| target_module(p, from, &modules)).collect()
    };
    assert_eq!(targets(&code_b, &from_b), [vec!["a".to_string(), "x".to_string()], vec!["a".to_string()]].into());
    // `super::helper` names x's parent, which is allowed; `crate::b` is the way back.
    assert_eq!(targets(&code_x, &from_x), [vec!["b".to_string()], vec!["a".to_string()]].into());
    let mut edges = vec![BTreeMap::new(), BTreeMap::new()];
    edges[0].insert(1, BTreeSet::from(["crate::a::x::Thing".to_string()]));
    edges[1].insert(0, BTreeSet::from(["crate::b::make".to_string()]));
    assert_eq!(circles(&edges), vec![vec![0, 1]]);
}
