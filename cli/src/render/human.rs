//! Text for people on a terminal: one line per finding or change, grouped by collection,
//! coloured only when stdout is a TTY.

use std::fmt::Write as _;

use super::{Finding, Severity};

/// ANSI colours used in text output.
#[derive(Clone, Copy)]
pub enum Paint {
    /// Errors, drops, rejected documents.
    Red,
    /// Warnings, changes in place.
    Yellow,
    /// Creations, in sync.
    Green,
    /// Notes and cosmetic differences.
    Dim,
    /// Headings.
    Bold,
}

/// `text` in `paint`, or as is when colour is off.
pub fn paint(text: &str, paint: Paint, colour: bool) -> String {
    if !colour {
        return text.to_owned();
    }
    let code = match paint {
        Paint::Red => "31",
        Paint::Yellow => "33",
        Paint::Green => "32",
        Paint::Dim => "2",
        Paint::Bold => "1",
    };
    format!("\u{1b}[{code}m{text}\u{1b}[0m")
}

fn severity_label(severity: Severity, colour: bool) -> String {
    match severity {
        Severity::Error => paint("error", Paint::Red, colour),
        Severity::Warning => paint("warning", Paint::Yellow, colour),
        Severity::Note => paint("note", Paint::Dim, colour),
    }
}

/// Findings, grouped by collection, then a one-line summary.
pub fn findings(findings: &[Finding], what: &str, colour: bool) -> String {
    let mut out = String::new();
    let mut current: Option<&str> = None;
    for f in findings {
        if current != Some(f.collection.as_str()) {
            let _ = writeln!(out, "{}", paint(&f.collection, Paint::Bold, colour));
            current = Some(&f.collection);
        }
        let _ = writeln!(
            out,
            "  {}[{}]: {}",
            severity_label(f.severity, colour),
            f.kind,
            f.message
        );
    }
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings, notes) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note),
    );
    if findings.is_empty() {
        let _ = writeln!(
            out,
            "{what}: {}",
            paint("no findings", Paint::Green, colour)
        );
    } else {
        let _ = writeln!(
            out,
            "{what}: {errors} error{}, {warnings} warning{}, {notes} note{}",
            plural(errors),
            plural(warnings),
            plural(notes)
        );
    }
    out
}

/// `"s"` unless `n` is one.
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A BSON value as people read it in a report (relaxed Extended JSON, one line).
pub fn shown(value: &bson::Bson) -> String {
    crate::extjson::to_string_compact(value, crate::extjson::Mode::Relaxed)
}

/// The audit: rejected documents per collection, with samples and per-version counts.
pub fn audit(audits: &[crate::cmd::audit::CollectionAudit], colour: bool) -> String {
    let mut out = String::new();
    for a in audits {
        let name = paint(&a.collection, Paint::Bold, colour);
        if !a.exists {
            let _ = writeln!(
                out,
                "{name}: {}",
                paint("collection does not exist", Paint::Dim, colour)
            );
            continue;
        }
        let verdict = format!("{} of {} documents rejected", a.rejected, a.total);
        let verdict = if a.rejected > 0 {
            paint(&verdict, Paint::Red, colour)
        } else {
            paint(&verdict, Paint::Green, colour)
        };
        let _ = writeln!(out, "{name}: {verdict}");
        for sample in &a.samples {
            let _ = writeln!(out, "  _id {}", shown(&sample.id));
            for reason in &sample.reasons {
                let _ = writeln!(out, "    {reason}");
            }
        }
        for (version, n, rejected) in &a.by_version {
            let _ = writeln!(
                out,
                "  version {}: {n} document{}, {rejected} rejected",
                shown(version),
                plural(usize::try_from(*n).unwrap_or(0))
            );
        }
    }
    let rejected: i64 = audits.iter().map(|a| a.rejected).sum();
    let with = audits.iter().filter(|a| a.rejected > 0).count();
    let _ = writeln!(
        out,
        "audit: {rejected} document{} rejected in {with} of {} collection{}",
        plural(usize::try_from(rejected).unwrap_or(0)),
        audits.len(),
        plural(audits.len())
    );
    out
}
