//! One JSON document per run, for programs: field order fixed, values as relaxed Extended JSON.

use bson::{Bson, Document, doc};

use super::Finding;
use crate::extjson::{self, Mode};

/// A document as pretty relaxed Extended JSON with a final newline.
pub fn to_text(doc: Document) -> String {
    let mut text = extjson::to_string_pretty(&Bson::Document(doc), Mode::Relaxed);
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
                "severity": f.severity.as_str(),
                "kind": &f.kind,
                "path": &f.path,
                "message": &f.message,
            })
        })
        .collect();
    to_text(doc! {"findings": list})
}
