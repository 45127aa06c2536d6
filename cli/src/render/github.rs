//! GitHub Actions workflow commands: one `::error` / `::warning` / `::notice` line per finding,
//! shown as annotations on the run (and on `file` when the declarations came from one).

use std::path::Path;

use mongo_schema::{Finding, Severity};

/// Escapes a message as workflow commands require (`%`, CR and LF).
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`file`, `title`): also `:` and `,`.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// One annotation line.
pub fn annotation(severity: Severity, file: Option<&Path>, title: &str, message: &str) -> String {
    let mut properties = Vec::new();
    if let Some(file) = file {
        properties.push(format!(
            "file={}",
            escape_property(&file.display().to_string())
        ));
    }
    properties.push(format!("title={}", escape_property(title)));
    format!(
        "::{} {}::{}\n",
        severity.annotation_level(),
        properties.join(","),
        escape_data(message)
    )
}

/// One annotation per finding.
pub fn findings(findings: &[Finding], file: Option<&Path>) -> String {
    findings
        .iter()
        .map(|f| {
            annotation(
                f.severity,
                file,
                &format!("mongo-schema {}: {}", f.rule, f.collection),
                &f.message,
            )
        })
        .collect()
}

/// One error annotation per collection with rejected documents.
pub fn audit(audits: &[crate::report::CollectionAudit], file: Option<&Path>) -> String {
    audits
        .iter()
        .filter(|a| a.rejected > 0)
        .map(|a| {
            let mut message = format!(
                "the declared validator of {} rejects {} of {}",
                a.collection,
                a.rejected,
                mongo_schema::plural::count(a.total, "document")
            );
            for sample in &a.samples {
                message.push_str(&format!(
                    "\n_id {}: {}",
                    crate::render::human::shown(&sample.id),
                    sample.reasons.join("; ")
                ));
            }
            annotation(
                Severity::Error,
                file,
                &format!("mongo-schema audit: {}", a.collection),
                &message,
            )
        })
        .collect()
}

/// One annotation per difference: an error for drift, a notice for the rest.
pub fn changes(changes: &[mongo_schema::diff::Change], file: Option<&Path>) -> String {
    changes
        .iter()
        .map(|c| {
            let severity = if c.kind.is_drift() {
                Severity::Error
            } else {
                Severity::Note
            };
            annotation(
                severity,
                file,
                &format!("mongo-schema {}: {}", c.kind, c.collection),
                &format!("{}: {}: {}", c.collection, c.aspect, c.reason),
            )
        })
        .collect()
}

/// One error annotation per inconsistency `checkMetadataConsistency` reported.
pub fn inconsistencies(found: &[bson::Document], file: Option<&Path>) -> String {
    found
        .iter()
        .map(|entry| {
            let kind = entry.get_str("type").unwrap_or("Inconsistency");
            annotation(
                Severity::Error,
                file,
                &format!("mongo-schema cluster: {kind}"),
                entry.get_str("description").unwrap_or_default(),
            )
        })
        .collect()
}

/// The `explain` report as GitHub Actions annotations (on `file` when the declarations came from one).
pub fn explain(reports: &[crate::report::QueryReport], file: Option<&Path>) -> String {
    let mut out = String::new();
    for r in reports {
        let title = format!("mongo-schema explain: {}.{}", r.collection, r.query);
        if r.is_finding() {
            let message = format!("not served by an index: {}", super::human::explain_line(r));
            out.push_str(&annotation(Severity::Error, file, &title, &message));
        } else if r.summary.is_none() {
            out.push_str(&annotation(
                Severity::Note,
                file,
                &title,
                &super::human::explain_line(r),
            ));
        }
    }
    out.push_str(&annotation(
        Severity::Note,
        file,
        "mongo-schema explain",
        &super::human::explain_tally(reports),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_and_data_are_escaped() {
        let line = annotation(
            Severity::Error,
            Some(Path::new("a,b.json")),
            "t: x",
            "50% done\nnext",
        );
        assert_eq!(
            line,
            "::error file=a%2Cb.json,title=t%3A x::50%25 done%0Anext\n"
        );
    }
}
