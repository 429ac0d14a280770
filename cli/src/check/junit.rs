//! `offload check --junit FILE`: JUnit XML as CI systems read it (the Jenkins xunit-plugin's
//! `junit-10.xsd`, which GitLab, GitHub test reporters and Jenkins accept): a `testsuite` per
//! file, a `testcase` per check (`classname` the library, `name` what was checked), a
//! `failure` per failed check holding its errors; improvements go to `system-out`.

use offload::report::check::{FileCheck, Level};
use std::fmt::Write as _;

/// `text` for an XML attribute or element: markup escaped, and the characters XML 1.0 cannot
/// hold at all (control characters other than tab and line breaks) replaced by U+FFFD.
fn xml(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') { '\u{fffd}' } else { c })
        .collect();
    quick_xml::escape::escape(clean.as_str()).into_owned()
}

pub fn report(files: &[FileCheck]) -> String {
    let tests: usize = files.iter().map(|f| f.checks.len()).sum();
    let failures: usize = files.iter().flat_map(|f| &f.checks).filter(|c| !c.passed()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(out, "<testsuites name=\"offload check\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">");
    for f in files {
        let failed = f.checks.iter().filter(|c| !c.passed()).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\">",
            xml(&f.file),
            f.checks.len()
        );
        for c in &f.checks {
            let _ = write!(out, "    <testcase classname=\"{}\" name=\"{}\"", xml(&c.library), xml(&c.name));
            let errors: Vec<_> = c.findings.iter().filter(|x| x.level == Level::Error).collect();
            let notes: Vec<_> = c.findings.iter().filter(|x| x.level == Level::Note).collect();
            if errors.is_empty() && notes.is_empty() {
                out.push_str("/>\n");
                continue;
            }
            out.push_str(">\n");
            if let Some(first) = errors.first() {
                let body: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.rule.id(), e.message)).collect();
                let message = if errors.len() == 1 {
                    first.message.clone()
                } else {
                    format!("{} ({} errors)", first.message, errors.len())
                };
                let _ = writeln!(
                    out,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    first.rule.id(),
                    xml(&message),
                    xml(&body.join("\n"))
                );
            }
            if !notes.is_empty() {
                let body: Vec<String> = notes.iter().map(|n| n.message.clone()).collect();
                let _ = writeln!(out, "      <system-out>{}</system-out>", xml(&body.join("\n")));
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
