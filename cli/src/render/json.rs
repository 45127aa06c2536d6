//! One JSON document per run, for programs: field order fixed, values as relaxed Extended JSON.

use bson::{Bson, Document, doc};

use mongo_schema::Finding;
use mongo_schema::extjson::{self, ExtJsonMode, Layout};

/// A document as pretty relaxed Extended JSON with a final newline.
pub fn to_text(doc: Document) -> String {
    let mut text = extjson::to_string(&Bson::Document(doc), ExtJsonMode::Relaxed, Layout::Indented);
    text.push('\n');
    text
}

/// `{"findings": [{collection, severity, kind, path, message}]}`.
pub fn findings(findings: &[Finding]) -> String {
    let list: Vec<Bson> = findings
        .iter()
        .map(|f| {
            Bson::Document(doc! {
                "collection": &f.collection,
                // Levels named as GitHub annotations name them (`notice`), as this report
                // always has; the rule under its first name, `kind`.
                "severity": f.severity.annotation_level(),
                "kind": f.rule,
                "path": &f.path,
                "message": &f.message,
            })
        })
        .collect();
    to_text(doc! {"findings": list})
}

/// `{"collections": [{collection, exists, total, rejected, samples: [{_id, reasons}], byVersion}]}`.
pub fn audit(audits: &[crate::report::CollectionAudit]) -> String {
    let list: Vec<Bson> = audits
        .iter()
        .map(|a| {
            let samples: Vec<Bson> = a
                .samples
                .iter()
                .map(|s| Bson::Document(doc! {"_id": s.id.clone(), "reasons": s.reasons.clone()}))
                .collect();
            let by_version: Vec<Bson> = a
                .by_version
                .iter()
                .map(|(v, n, r)| {
                    Bson::Document(doc! {"version": v.clone(), "documents": *n, "rejected": *r})
                })
                .collect();
            Bson::Document(doc! {
                "collection": &a.collection,
                "exists": a.exists,
                "total": a.total,
                "rejected": a.rejected,
                "samples": samples,
                "byVersion": by_version,
            })
        })
        .collect();
    to_text(doc! {"collections": list})
}

/// `{"inSync": bool, "changes": [{collection, kind, aspect, fields, reason, declared?, live?}]}`.
pub fn changes(changes: &[mongo_schema::diff::Change]) -> String {
    changes_and_inconsistencies(changes, &[])
}

/// `{"steps": [{collection, command, summary, expensive, estimatedDocuments?, risk?}], "skipped": [...]}`.
pub fn plan(plan: &mongo_schema::diff::Plan) -> String {
    to_text(plan.to_document())
}

/// [`changes`], plus `inconsistencies` (what `checkMetadataConsistency` reported) when any.
pub fn changes_and_inconsistencies(
    changes: &[mongo_schema::diff::Change],
    found: &[Document],
) -> String {
    let list: Vec<Bson> = changes
        .iter()
        .map(|c| Bson::Document(c.to_document()))
        .collect();
    let mut report = doc! {
        "inSync": !mongo_schema::diff::has_drift(changes) && found.is_empty(),
        "changes": list,
    };
    if !found.is_empty() {
        let found: Vec<Bson> = found.iter().cloned().map(Bson::Document).collect();
        report.insert("inconsistencies", found);
    }
    to_text(report)
}

/// The `explain` report as one JSON document: `{"queries": [...]}`.
pub fn explain(reports: &[crate::report::QueryReport]) -> String {
    let queries: Vec<Bson> = reports
        .iter()
        .map(|r| {
            let mut d = doc! { "collection": &r.collection, "query": &r.query };
            match &r.summary {
                Some(s) => {
                    d.insert("plan", s.to_document());
                }
                None => {
                    d.insert(
                        "skipped",
                        r.skipped.as_deref().unwrap_or(crate::report::NO_SAMPLE),
                    );
                }
            }
            d.insert("finding", r.is_finding());
            Bson::Document(d)
        })
        .collect();
    let value = Bson::Document(doc! { "queries": queries }).into_relaxed_extjson();
    let mut text = serde_json::to_string_pretty(&value).expect("a JSON value always serializes");
    text.push('\n');
    text
}
