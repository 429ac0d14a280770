//! `@FILE` response files, as every LLVM tool reads them (`cl::ExpandResponseFiles` with the GNU
//! tokenizer): `@FILE` is replaced by the arguments written in FILE, which may name further
//! response files. Paths are relative to the current directory, as LLVM's tools take them.
//!
//! GNU tokenization: arguments are separated by spaces, tabs and line breaks; a backslash takes
//! the next character as it is; `"…"` and `'…'` quote (spaces included), a backslash inside them
//! still escaping the next character; quotes join with the text around them (`a"b c"d` is one
//! argument `ab cd`).
//!
//! Where LLVM keeps an `@name` whose file does not exist as a literal argument, we stop with an
//! error that names it (a typo in a build system's list of targets should not turn into a file
//! name); a file that includes itself, directly or through others, is an error too.

use crate::fail::{Failure, Outcome};
use std::path::PathBuf;

/// Deepest nesting of response files accepted; deeper means a loop we failed to see, or abuse.
const MAX_DEPTH: usize = 64;
/// Largest response file read, in bytes: argument lists, not data.
const MAX_SIZE: u64 = 64 << 20;

/// `args` with every `@FILE` (after the program name) replaced by the file's arguments.
pub fn expand(args: Vec<String>) -> Outcome<Vec<String>> {
    let mut out = Vec::with_capacity(args.len());
    let mut args = args.into_iter();
    out.extend(args.next());
    let mut chain = Vec::new();
    for arg in args {
        expand_one(arg, &mut chain, &mut out)?;
    }
    Ok(out)
}

fn expand_one(arg: String, chain: &mut Vec<PathBuf>, out: &mut Vec<String>) -> Outcome<()> {
    let Some(name) = arg.strip_prefix('@') else {
        out.push(arg);
        return Ok(());
    };
    let path = PathBuf::from(name);
    let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    if chain.contains(&key) {
        let names: Vec<String> = chain.iter().chain([&key]).map(|p| p.display().to_string()).collect();
        return Err(Failure::new(format!("response file {name} includes itself: {}", names.join(" -> "))));
    }
    if chain.len() >= MAX_DEPTH {
        return Err(Failure::new(format!("response files nested deeper than {MAX_DEPTH} levels at {name}")));
    }
    let text = read(&path, name)?;
    chain.push(key);
    for token in tokenize_gnu(&text) {
        expand_one(token, chain, out)?;
    }
    chain.pop();
    Ok(())
}

fn read(path: &PathBuf, name: &str) -> Outcome<String> {
    let meta =
        std::fs::metadata(path).map_err(|e| Failure::new(format!("response file @{name}: cannot read {name}: {e}")))?;
    if meta.len() > MAX_SIZE {
        return Err(Failure::new(format!(
            "response file @{name}: expected at most {MAX_SIZE} bytes of arguments, found {} bytes",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| Failure::io(path, "read response file", e))?;
    String::from_utf8(bytes).map_err(|e| {
        Failure::new(format!(
            "response file @{name}: expected UTF-8 text, found a bad byte at offset {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Splits `text` into arguments by the GNU rules (module doc).
pub fn tokenize_gnu(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut token = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => token.push(next),
                None => token.push('\\'),
            },
            '"' | '\'' => {
                while let Some(q) = chars.next() {
                    if q == c {
                        break;
                    }
                    if q == '\\' {
                        match chars.next() {
                            Some(next) => token.push(next),
                            None => token.push('\\'),
                        }
                    } else {
                        token.push(q);
                    }
                }
            }
            ' ' | '\t' | '\r' | '\n' => {
                if !token.is_empty() {
                    out.push(std::mem::take(&mut token));
                }
            }
            _ => token.push(c),
        }
    }
    if !token.is_empty() {
        out.push(token);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gnu_tokens() {
        assert_eq!(tokenize_gnu("a  b\tc\r\nd"), ["a", "b", "c", "d"]);
        assert_eq!(tokenize_gnu(r#"--input="my file.o" 'x y'"#), ["--input=my file.o", "x y"]);
        assert_eq!(tokenize_gnu(r#"a\ b "q\"q" 'it\'s'"#), ["a b", "q\"q", "it's"]);
        assert_eq!(tokenize_gnu(r#"a"b c"d"#), ["ab cd"]);
        assert_eq!(tokenize_gnu("\"unterminated quote"), ["unterminated quote"]);
        assert_eq!(tokenize_gnu("trailing\\"), ["trailing\\"]);
        assert_eq!(tokenize_gnu("\"\" x"), ["x"]);
    }

    #[test]
    fn nested_files_loops_and_missing_files() {
        let dir = std::env::temp_dir().join(format!("offload-rsp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let inner = dir.join("inner.rsp");
        let outer = dir.join("outer.rsp");
        std::fs::write(&inner, "-type=o \"--input=a b.o\"\n").unwrap();
        std::fs::write(&outer, format!("bundle @{}\n--output=out.o", inner.display())).unwrap();
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let got = expand(args(&["offload", &format!("@{}", outer.display())])).unwrap();
        assert_eq!(got, ["offload", "bundle", "-type=o", "--input=a b.o", "--output=out.o"]);

        std::fs::write(&inner, format!("@{}", outer.display())).unwrap();
        let e = expand(args(&["offload", &format!("@{}", outer.display())])).unwrap_err();
        assert!(e.to_string().contains("includes itself"), "{e}");
        let e = expand(args(&["offload", "@/nonexistent/args.rsp"])).unwrap_err();
        assert!(e.to_string().contains("cannot read /nonexistent/args.rsp"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
