//! PTX: NVIDIA's virtual assembly, as text.
//!
//! The module's header directives and its kernels are read from a token stream (comments and
//! string literals skipped; nothing else of PTX's grammar is needed):
//!
//! | directive | example | field |
//! |---|---|---|
//! | `.version` | `.version 8.7` | `ptx_version` |
//! | `.target` | `.target sm_80, texmode_independent` | `target` (first item: `target_id`), `target_options` |
//! | `.address_size` | `.address_size 64` | `address_size` |
//! | `.entry <name>(...)` | `.visible .entry _Z3fooPi(` | one `kernel` node, `name` spanning the name |
//! | `.maxntid`, `.reqntid`, `.maxnreg`, `.minnctapersm` after an entry's parameters | `.maxntid 256, 1, 1` | `max_threads`, `reqd_threads`, `max_registers`, `min_ctas_per_sm` |
//! | `.func <name>` | `.func (.param .b32 r) f(` | counted in `functions` |
//!
//! PTX names no resources (registers, shared memory): those are decided by `ptxas`.

use crate::tree::{Node, NodeKind, Severity, Span};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub const FORMAT: &str = "PTX";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Token {
    start: usize,
    end: usize,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'%' | b'.')
}

fn word<'t>(text: &'t [u8], t: &Token) -> &'t str {
    core::str::from_utf8(&text[t.start..t.end]).unwrap_or("")
}

/// Where the comment or string literal starting at `i` ends (the end of the text when it is
/// not closed); `None` when none starts there.
fn past_comment_or_string(text: &[u8], i: usize) -> Option<usize> {
    let rest = &text[i..];
    if rest.starts_with(b"//") {
        Some(rest.iter().position(|&c| c == b'\n').map_or(text.len(), |p| i + p))
    } else if rest.starts_with(b"/*") {
        Some(rest[2..].windows(2).position(|w| w == b"*/").map_or(text.len(), |p| i + 2 + p + 2))
    } else if rest.first() == Some(&b'"') {
        let mut j = i + 1;
        while j < text.len() && text[j] != b'"' {
            j += if text[j] == b'\\' { 2 } else { 1 };
        }
        Some(j.saturating_add(1).min(text.len()))
    } else {
        None
    }
}

/// Words and single punctuation characters, comments and strings left out, read one at a time
/// (a large PTX module is never held as a list of tokens).
#[derive(Clone)]
struct Lexer<'t> {
    text: &'t [u8],
    pos: usize,
    /// Where the next string starts from some earlier position ([`Lexer::skip_body`]'s
    /// memory: searched for again only once passed, so a module without strings is searched
    /// once, not once per body).
    quote: Option<usize>,
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let text = self.text;
        let mut i = self.pos;
        let token = loop {
            if i >= text.len() {
                break None;
            }
            let b = text[i];
            if b.is_ascii_whitespace() {
                i += 1;
            } else if let Some(end) = past_comment_or_string(text, i) {
                i = end;
            } else if is_word(b) {
                let start = i;
                while i < text.len() && is_word(text[i]) {
                    i += 1;
                }
                break Some(Token { start, end: i });
            } else {
                i += 1;
                break Some(Token { start: i - 1, end: i });
            }
        };
        self.pos = i;
        token
    }
}

impl Lexer<'_> {
    fn peek(&self) -> Option<Token> {
        self.clone().next()
    }

    /// Skips the rest of a body `depth` braces deep, up to and including the brace that closes
    /// it, looking only at braces, comments and strings: nothing inside a body is read, and
    /// tokenising every instruction of a large module was most of the time spent on PTX.
    fn skip_body(&mut self, mut depth: i64) {
        let text = self.text;
        let mut i = self.pos;
        while depth > 0 {
            // Strings are rare in bodies, braces and comments are not.
            let next_quote = match self.quote {
                Some(q) if q >= i => q,
                _ => {
                    let q = memchr::memchr(b'"', &text[i..]).map_or(text.len(), |p| i + p);
                    self.quote = Some(q);
                    q
                }
            };
            let Some(at) = memchr::memchr3(b'{', b'}', b'/', &text[i..next_quote])
                .map(|p| i + p)
                .or((next_quote < text.len()).then_some(next_quote))
            else {
                i = text.len();
                break;
            };
            i = at;
            match text[i] {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                _ => {
                    if let Some(end) = past_comment_or_string(text, i) {
                        i = end;
                        continue;
                    }
                }
            }
            i += 1;
        }
        self.pos = i;
    }
}

/// Describes a PTX module on its image node (lying at `span`).
pub fn describe(text: &[u8], node: &mut Node, span: Span) {
    let mut lex = Lexer { text, pos: 0, quote: None };
    let word = |t: &Token| word(text, t);
    let at = |t: &Token| Some(span.sub(t.start as u64, (t.end - t.start) as u64));
    let mut depth = 0i64;
    let mut functions = 0u64;
    let mut kernels = Vec::new();
    let mut dropped = 0u64;
    while let Some(t) = lex.next() {
        match word(&t) {
            // Only the module's top level is read: a body is skipped whole.
            "{" if depth == 0 => lex.skip_body(1),
            "{" => depth += 1,
            "}" => depth -= 1,
            ".version" if depth == 0 => {
                if let Some(v) = lex.peek() {
                    node.field("ptx_version", word(&v), at(&v));
                }
            }
            ".address_size" if depth == 0 => {
                if let Some(v) = lex.peek() {
                    match word(&v).parse::<u64>() {
                        Ok(n) => node.field("address_size", n, at(&v)),
                        Err(_) => node.diag(
                            Severity::Warning,
                            format!(".address_size: expected a number, found '{}'", word(&v)),
                            at(&v),
                        ),
                    };
                }
            }
            ".target" if depth == 0 => {
                // The items run to the end of the line.
                let line_end = text[t.end..].iter().position(|&c| c == b'\n').map_or(text.len(), |p| t.end + p);
                let mut items = Vec::new();
                while let Some(x) = lex.peek().filter(|x| x.start < line_end) {
                    lex.next();
                    if word(&x) != "," {
                        items.push(x);
                    }
                }
                if let (Some(first), Some(last)) = (items.first(), items.last()) {
                    let all: Vec<&str> = items.iter().map(word).collect();
                    let whole = Some(span.sub(first.start as u64, (last.end - first.start) as u64));
                    node.field("target", all.join(", "), whole);
                    node.field("target_id", word(first), at(first));
                }
            }
            ".func" if depth == 0 => functions += 1,
            ".entry" if depth == 0 => {
                if kernels.len() >= super::MAX_KERNEL_NODES {
                    dropped += 1;
                } else if let Some(name) = lex.peek().filter(|n| is_word(text[n.start])) {
                    lex.next();
                    kernels.push(entry(text, &mut lex, name, span));
                }
            }
            _ => {}
        }
    }
    if node.get("ptx_version").is_none() {
        node.diag(Severity::Warning, "no .version directive", None);
    }
    node.field("kernels", kernels.len() as u64 + dropped, None);
    if dropped > 0 {
        node.diag(
            Severity::Error,
            format!("{dropped} more .entry kernels are not shown: the limit is {}", super::MAX_KERNEL_NODES),
            None,
        );
    }
    node.field("functions", functions, None);
    node.children = kernels;
}

/// The kernel named by the token `n`, with the performance directives between its parameter
/// list and its body, which `lex` reads up to (and, for `{`, including) the body's start.
fn entry(text: &[u8], lex: &mut Lexer<'_>, n: Token, span: Span) -> Node {
    let word = |t: &Token| word(text, t);
    let name_span = span.sub(n.start as u64, (n.end - n.start) as u64);
    let mut k = Node::new(NodeKind::Kernel, format!("kernel {}", word(&n)), name_span);
    k.field("name", word(&n), Some(name_span));
    k.field("entry", true, None);
    k.field("function_kind", "entry", None);
    let mut parens = 0i64;
    while let Some(t) = lex.peek() {
        let w = word(&t);
        match w {
            "{" | ";" if parens <= 0 => break,
            "(" => parens += 1,
            ")" => parens -= 1,
            ".maxntid" | ".reqntid" | ".maxnreg" | ".minnctapersm" if parens <= 0 => {
                lex.next();
                let mut values = Vec::new();
                while let Some(v) = lex.peek().filter(|v| word(v) == "," || word(v).bytes().all(|c| c.is_ascii_digit()))
                {
                    lex.next();
                    if word(&v) != "," {
                        values.push(v);
                    }
                }
                if let (Some(first), Some(last)) = (values.first(), values.last()) {
                    let at = Some(span.sub(first.start as u64, (last.end - first.start) as u64));
                    let joined: Vec<&str> = values.iter().map(word).collect();
                    let field = match w {
                        ".maxntid" => "max_threads",
                        ".reqntid" => "reqd_threads",
                        ".maxnreg" => "max_registers",
                        _ => "min_ctas_per_sm",
                    };
                    match joined[..] {
                        [one] if matches!(w, ".maxnreg" | ".minnctapersm") => {
                            k.field(field, one.parse::<u64>().unwrap_or(0), at);
                        }
                        _ => {
                            k.field(field, joined.join(", "), at);
                        }
                    }
                }
                continue;
            }
            _ => {}
        }
        lex.next();
    }
    k
}

/// The text of a PTX module's `.target` (for labels): `sm_80`.
pub fn target_of(text: &[u8]) -> Option<String> {
    let head = &text[..text.len().min(1 << 16)];
    let mut lex = Lexer { text: head, pos: 0, quote: None };
    lex.find(|t| &head[t.start..t.end] == b".target")?;
    let t = lex.next()?;
    core::str::from_utf8(&head[t.start..t.end]).ok().map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "//\n// Generated by NVIDIA NVVM Compiler\n/* .entry fake( */\n.version 8.7\n.target sm_80, texmode_independent\n.address_size 64\n\n\t// .globl\tstore42\n.func (.param .b32 r) helper(.param .b64 p)\n{\n ret;\n}\n.visible .entry store42(\n\t.param .u64 store42_param_0\n)\n.maxntid 256, 1, 1\n.maxnreg 32\n{\n\tret;\n}\n.entry other() { ret; }\n";

    #[test]
    fn header_and_entries() {
        let mut n = Node::new(NodeKind::Image, "PTX", Span::new(0, 100, PTX.len() as u64));
        let span = n.span;
        describe(PTX.as_bytes(), &mut n, span);
        assert_eq!(n.text("ptx_version"), Some("8.7"));
        assert_eq!(n.text("target"), Some("sm_80, texmode_independent"));
        assert_eq!(n.text("target_id"), Some("sm_80"));
        assert_eq!(n.get("address_size"), Some(&crate::tree::Value::Uint(64)));
        assert_eq!(n.get("functions"), Some(&crate::tree::Value::Uint(1)));
        let names: Vec<&str> = n.children.iter().map(|k| k.text("name").unwrap()).collect();
        assert_eq!(names, ["store42", "other"]);
        let k = &n.children[0];
        assert_eq!(k.text("max_threads"), Some("256, 1, 1"));
        assert_eq!(k.get("max_registers"), Some(&crate::tree::Value::Uint(32)));
        let at = PTX.find("store42(").unwrap() as u64;
        assert_eq!(k.span, Span::new(0, 100 + at, 7));
        assert_eq!(target_of(PTX.as_bytes()).as_deref(), Some("sm_80"));
    }

    #[test]
    fn bodies_are_skipped_to_their_closing_brace() {
        // Braces in comments and strings inside a body do not count; nested blocks do; what
        // a body holds (even `.entry`) is not read.
        let text = ".version 8.7\n.entry a() { { // }\n \"}\\\"}\" /* } */ .entry fake( } .func x\n}\n.entry b() {}\n";
        let mut n = Node::new(NodeKind::Image, "PTX", Span::new(0, 0, text.len() as u64));
        let span = n.span;
        describe(text.as_bytes(), &mut n, span);
        let names: Vec<&str> = n.children.iter().map(|k| k.text("name").unwrap()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(n.get("functions"), Some(&crate::tree::Value::Uint(0)));
    }

    #[test]
    fn unterminated_comments_and_strings_end_the_text() {
        for text in ["/* never closed .entry a(", "\"never closed .entry a(", ".entry", ".target", ".version"] {
            let mut n = Node::new(NodeKind::Image, "PTX", Span::new(0, 0, text.len() as u64));
            let span = n.span;
            describe(text.as_bytes(), &mut n, span);
            assert!(n.children.is_empty(), "{text}");
        }
    }
}
