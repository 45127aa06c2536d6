//! Text for people on a terminal: one line per finding or change, grouped by collection,
//! coloured only when stdout is a TTY.

use std::fmt::Write as _;

use mongo_schema::access::PlanAccess;
use mongo_schema::normalize;
use mongo_schema::plural;

use crate::report::{NO_SAMPLE, QueryReport};
use mongo_schema::{Finding, Severity};

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
    use anstyle::{AnsiColor, Style};
    let style = match paint {
        Paint::Red => AnsiColor::Red.on_default(),
        Paint::Yellow => AnsiColor::Yellow.on_default(),
        Paint::Green => AnsiColor::Green.on_default(),
        Paint::Dim => Style::new().dimmed(),
        Paint::Bold => Style::new().bold(),
    };
    format!("{style}{text}{style:#}")
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
            f.rule,
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
            "{what}: {}, {}, {}",
            plural::count(errors, "error"),
            plural::count(warnings, "warning"),
            plural::count(notes, "note")
        );
    }
    out
}

/// A BSON value as people read it in a report (relaxed Extended JSON, one line).
pub fn shown(value: &bson::Bson) -> String {
    mongo_schema::extjson::to_string_compact(value, mongo_schema::ExtJsonMode::Relaxed)
}

/// The audit: rejected documents per collection, with samples and per-version counts.
pub fn audit(audits: &[crate::report::CollectionAudit], colour: bool) -> String {
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
        let verdict = format!(
            "{} of {} rejected",
            a.rejected,
            plural::count(a.total, "document")
        );
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
                "  version {}: {}, {rejected} rejected",
                shown(version),
                plural::count(n, "document")
            );
        }
    }
    let rejected: i64 = audits.iter().map(|a| a.rejected).sum();
    let with = audits.iter().filter(|a| a.rejected > 0).count();
    let _ = writeln!(
        out,
        "audit: {} rejected in {with} of {}",
        plural::count(rejected, "document"),
        plural::count(audits.len(), "collection")
    );
    out
}

/// How a kind of change is coloured.
fn kind_paint(kind: mongo_schema::diff::ChangeKind) -> Paint {
    use mongo_schema::diff::ChangeKind::*;
    match kind {
        Cosmetic | IndexBuildInProgress => Paint::Dim,
        InPlace | Unmanaged => Paint::Yellow,
        Rebuild | ExtraCollection | ExtraIndex => Paint::Red,
        MissingCollection | MissingIndex => Paint::Green,
        // A kind this renderer does not know yet: shown like a change made in place.
        _ => Paint::Yellow,
    }
}

/// The values of the fields that differ, `field: live -> declared`, when short enough to read.
fn field_values(change: &mongo_schema::diff::Change) -> Vec<String> {
    let (Some(bson::Bson::Document(declared)), Some(bson::Bson::Document(live))) =
        (&change.declared, &change.live)
    else {
        return Vec::new();
    };
    change
        .fields
        .iter()
        .filter_map(|field| {
            let show = |v: Option<&bson::Bson>| v.map_or_else(|| "(absent)".to_owned(), shown);
            let (l, d) = (show(live.get(field)), show(declared.get(field)));
            (l.len() + d.len() <= 120).then(|| format!("{field}: {l} -> {d}"))
        })
        .collect()
}

/// What differs inside two validators, after both are put in canonical form (keyword and set
/// order, numeric types): `+ path: value` declared only, `- path: value` live only,
/// `~ path: live -> declared`; array members added or removed are listed as such. At most 12.
fn validator_lines(change: &mongo_schema::diff::Change) -> Vec<String> {
    use mongo_schema::diff::Aspect;
    if change.aspect != Aspect::Validator || !change.kind.is_drift() {
        return Vec::new();
    }
    let canonical = |v: &Option<bson::Bson>| match v {
        Some(bson::Bson::Document(d)) => bson::Bson::Document(normalize::canonical_validator(d)),
        _ => bson::Bson::Document(bson::Document::new()),
    };
    let mut lines = Vec::new();
    walk_difference(
        "",
        &canonical(&change.declared),
        &canonical(&change.live),
        &mut lines,
    );
    if lines.len() > 12 {
        let more = lines.len() - 12;
        lines.truncate(12);
        lines.push(format!("... and {more} more"));
    }
    lines
}

fn short(value: &bson::Bson) -> String {
    let text = shown(value);
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn walk_difference(path: &str, declared: &bson::Bson, live: &bson::Bson, out: &mut Vec<String>) {
    use bson::Bson;
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match (declared, live) {
        (Bson::Document(d), Bson::Document(l)) => {
            let mut keys: Vec<&String> = d.keys().chain(l.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                match (d.get(key), l.get(key)) {
                    (Some(dv), Some(lv)) => walk_difference(&join(key), dv, lv, out),
                    (Some(dv), None) => out.push(format!("+ {}: {}", join(key), short(dv))),
                    (None, Some(lv)) => out.push(format!("- {}: {}", join(key), short(lv))),
                    (None, None) => {}
                }
            }
        }
        (Bson::Array(d), Bson::Array(l))
            if d.iter()
                .chain(l)
                .all(|v| !matches!(v, Bson::Document(_) | Bson::Array(_))) =>
        {
            let added: Vec<String> = d
                .iter()
                .filter(|v| !l.iter().any(|w| normalize::values_equal(v, w)))
                .map(short)
                .collect();
            let removed: Vec<String> = l
                .iter()
                .filter(|v| !d.iter().any(|w| normalize::values_equal(v, w)))
                .map(short)
                .collect();
            if !added.is_empty() {
                out.push(format!("+ {path}: {}", added.join(", ")));
            }
            if !removed.is_empty() {
                out.push(format!("- {path}: {}", removed.join(", ")));
            }
        }
        (Bson::Array(d), Bson::Array(l)) if d.len() == l.len() => {
            for (i, (dv, lv)) in d.iter().zip(l).enumerate() {
                walk_difference(&join(&i.to_string()), dv, lv, out);
            }
        }
        _ if normalize::values_equal(declared, live) => {}
        _ => out.push(format!("~ {path}: {} -> {}", short(live), short(declared))),
    }
}

/// The drift report: changes grouped by collection, then a summary line.
pub fn changes(changes: &[mongo_schema::diff::Change], colour: bool) -> String {
    report(changes, &[], colour)
}

/// The drift report, after what the cluster itself reported (`checkMetadataConsistency`).
pub fn report(
    changes: &[mongo_schema::diff::Change],
    found: &[bson::Document],
    colour: bool,
) -> String {
    let mut out = inconsistencies(found, colour);
    let mut current: Option<&str> = None;
    for c in changes {
        if current != Some(c.collection.as_str()) {
            let _ = writeln!(out, "{}", paint(&c.collection, Paint::Bold, colour));
            current = Some(&c.collection);
        }
        let kind = format!("{:<18}", c.kind.as_str());
        let _ = writeln!(
            out,
            "  {} {}: {}",
            paint(&kind, kind_paint(c.kind), colour),
            c.aspect,
            c.reason
        );
        for line in field_values(c).into_iter().chain(validator_lines(c)) {
            let _ = writeln!(out, "  {:<18} {line}", "");
        }
    }
    let drift: Vec<_> = changes.iter().filter(|c| c.kind.is_drift()).collect();
    if !found.is_empty() {
        let _ = writeln!(
            out,
            "check: {} reported by the cluster",
            paint(
                &plural::count(found.len(), "inconsistency"),
                Paint::Red,
                colour
            )
        );
    }
    if drift.is_empty() && !found.is_empty() {
        return out;
    }
    if drift.is_empty() {
        let cosmetic = changes.len();
        let note = if cosmetic > 0 {
            format!(
                " ({} ignored)",
                plural::count(cosmetic, "cosmetic difference")
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "check: {}{note}",
            paint("in sync", Paint::Green, colour)
        );
        return out;
    }
    let mut kinds: Vec<(mongo_schema::diff::ChangeKind, usize)> = Vec::new();
    for c in &drift {
        match kinds.iter_mut().find(|(k, _)| *k == c.kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((c.kind, 1)),
        }
    }
    kinds.sort();
    let listed: Vec<String> = kinds
        .iter()
        .map(|(k, n)| format!("{n} {}", k.as_str()))
        .collect();
    let mut collections: Vec<&str> = drift.iter().map(|c| c.collection.as_str()).collect();
    collections.dedup();
    let _ = writeln!(
        out,
        "check: {} in {}: {}",
        paint(
            &plural::count(drift.len(), "difference"),
            Paint::Red,
            colour
        ),
        plural::count(collections.len(), "collection"),
        listed.join(", ")
    );
    out
}

/// The plan: numbered steps with their marks, then what it leaves alone.
pub fn plan(plan: &mongo_schema::diff::Plan, colour: bool) -> String {
    // Whether that means "in sync" is for the caller to say: drift a plan does not fix (an
    // unowned index kept without --prune) leaves nothing to run and is not in sync.
    let mut out = String::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let _ = write!(out, "{:>3}. {}: {}", i + 1, step.collection, step.summary);
        match (step.expensive, step.estimated_documents) {
            (true, Some(n)) => {
                out.push_str(&paint(
                    &format!(" [expensive: ~{}]", plural::count(n, "document")),
                    Paint::Yellow,
                    colour,
                ));
            }
            (true, None) => {
                out.push_str(&paint(" [expensive: size unknown]", Paint::Yellow, colour))
            }
            (false, Some(n)) => {
                let _ = write!(out, " [~{}]", plural::count(n, "document"));
            }
            (false, None) => {}
        }
        out.push('\n');
        if let Some(change) = &step.validator {
            out.push_str(&validator_change(change, colour));
        }
        if let Some(risk) = &step.risk {
            let _ = writeln!(out, "     {} {risk}", paint("risk:", Paint::Red, colour));
        }
    }
    // Cosmetic differences need nothing; the report of `check` lists them.
    let skipped = plan
        .skipped
        .iter()
        .filter(|s| s.kind != mongo_schema::diff::ChangeKind::Cosmetic);
    for s in skipped {
        let _ = writeln!(
            out,
            "  {} {}: {}: {}",
            paint("skipped", Paint::Dim, colour),
            s.collection,
            s.aspect,
            s.reason
        );
    }
    out.push_str(&proposals(&plan.proposals, colour));
    out
}

/// The plan's proposals: changes the declaration could make next, with the validator that
/// would follow.
pub fn proposals(proposals: &[mongo_schema::diff::Proposal], colour: bool) -> String {
    let mut out = String::new();
    for p in proposals {
        let _ = writeln!(
            out,
            "  {} {}: {}",
            paint("next:", Paint::Green, colour),
            p.collection,
            p.summary
        );
        if let Some(change) = &p.validator {
            out.push_str(&validator_change(change, colour));
            if let Some(n) = change.rejected {
                let _ = writeln!(
                    out,
                    "     {} {} {} it",
                    paint("rejects:", Paint::Dim, colour),
                    plural::count(n, "stored document"),
                    if n == 1 { "fails" } else { "fail" }
                );
            }
        }
    }
    out
}

/// A validator step's classification line: relaxing, tightening with its counterexample as
/// relaxed Extended JSON, or not proven with what the proof could not show.
fn validator_change(change: &mongo_schema::diff::ValidatorChange, colour: bool) -> String {
    let label = paint("validator:", Paint::Dim, colour);
    match &change.classification {
        mongo_schema::evolve::Classification::Tightening { counterexample } => format!(
            "     {label} {}: e.g. {} is accepted today and would be rejected\n",
            paint("tightening", Paint::Yellow, colour),
            shown(&bson::Bson::Document(counterexample.clone()))
        ),
        other => format!("     {label} {other}\n"),
    }
}

/// What `apply` did: each failed step with why, each step held back by one, the remaining
/// steps, and the counts.
pub fn applied(applied: &crate::report::Applied, colour: bool) -> String {
    let mut out = String::new();
    for (step, error) in &applied.failed {
        let _ = writeln!(
            out,
            "{} {}: {}: {error}",
            paint("failed", Paint::Red, colour),
            step.collection,
            step.summary
        );
    }
    for (step, why) in &applied.blocked {
        let _ = writeln!(
            out,
            "{} {}: {}: {why}",
            paint("blocked", Paint::Yellow, colour),
            step.collection,
            step.summary
        );
    }
    for step in &applied.remaining {
        let _ = writeln!(
            out,
            "{} {}: {}",
            paint("remaining", Paint::Dim, colour),
            step.collection,
            step.summary
        );
    }
    let _ = write!(
        out,
        "apply: {} done, {} failed, {} remaining",
        applied.done.len(),
        applied.failed.len(),
        applied.remaining.len()
    );
    if !applied.blocked.is_empty() {
        let _ = write!(out, ", {} blocked by a failed step", applied.blocked.len());
    }
    out.push('\n');
    out
}

/// What `checkMetadataConsistency` reported through mongos (an index that differs across
/// shards, ...), one line each; empty when nothing was.
pub fn inconsistencies(found: &[bson::Document], colour: bool) -> String {
    let mut out = String::new();
    for entry in found {
        let kind = entry.get_str("type").unwrap_or("Inconsistency");
        let description = entry.get_str("description").unwrap_or_default();
        let _ = writeln!(
            out,
            "{} {kind}: {description}",
            paint("cluster:", Paint::Red, colour)
        );
    }
    out
}

/// What explain said about one query, in one line (`IXSCAN status_1, keys examined ...`).
pub(crate) fn explain_line(r: &QueryReport) -> String {
    match &r.summary {
        None => format!("skipped: {}", r.skipped.as_deref().unwrap_or(NO_SAMPLE)),
        Some(s) => {
            let plan = match (s.access, s.index()) {
                (PlanAccess::IndexScan, Some(index)) => format!("IXSCAN {index}"),
                (PlanAccess::IndexScan, None) => "IXSCAN".to_owned(),
                (PlanAccess::CollectionScan, _) => "COLLSCAN".to_owned(),
                (PlanAccess::Eof, _) => "EOF".to_owned(),
                _ => "unknown plan".to_owned(),
            };
            let n = |v: Option<u64>| v.map_or_else(|| "?".to_owned(), |v| v.to_string());
            let mut line = format!(
                "{plan}{}, keys examined {}, docs examined {}, returned {}",
                if s.in_memory_sort {
                    ", in-memory sort"
                } else {
                    ""
                },
                n(s.keys_examined),
                n(s.docs_examined),
                n(s.n_returned)
            );
            if s.is_over_examined() {
                line.push_str(" [over-examined]");
            }
            line
        }
    }
}

/// The closing count of `explain`.
pub(crate) fn explain_tally(reports: &[QueryReport]) -> String {
    let bad = reports.iter().filter(|r| r.is_finding()).count();
    format!(
        "explain: {}, {bad} not served by an index",
        plural::count(reports.len(), "query")
    )
}

/// The `explain` report for a terminal: one line per query, then a count.
pub fn explain(reports: &[QueryReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let mark = if r.is_finding() { "error" } else { "ok" };
        out.push_str(&format!(
            "{mark}: {}.{}: {}\n",
            r.collection,
            r.query,
            explain_line(r)
        ));
    }
    out.push_str(&explain_tally(reports));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{Bson, doc};

    #[test]
    fn validator_differences_are_listed_by_path_ignoring_order_and_number_types() {
        let declared = doc! {"$jsonSchema": {"required": ["a", "b"], "properties": {
        "a": {"bsonType": "int", "maximum": 150}, "b": {"bsonType": "string"}}}};
        let live = doc! {"$jsonSchema": {"properties": {
        "b": {"bsonType": "string"}, "a": {"maximum": 100.0, "bsonType": "int"}, "c": {}},
        "required": ["a"]}};
        let mut lines = Vec::new();
        walk_difference(
            "",
            &Bson::Document(normalize::canonical_validator(&declared)),
            &Bson::Document(normalize::canonical_validator(&live)),
            &mut lines,
        );
        assert_eq!(
            lines,
            [
                "~ $jsonSchema.properties.a.maximum: 100 -> 150",
                "- $jsonSchema.properties.c: {}",
                "+ $jsonSchema.required: \"b\"",
            ]
        );
    }
}
