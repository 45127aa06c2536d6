//! The lints on what a census saw, as [`Finding`]s: arrays long enough to be the
//! unbounded-array anti-pattern, documents near the 16 MiB limit or deeper than the server
//! stores, and fields so rare they look like leftovers. Read from the whole census, whatever
//! types the model chose.

use super::census::{Census, Fields, Node};
use crate::{Finding, Severity};

/// Documents at least this large are flagged: near the server's 16 MiB limit
/// (`BSONObjMaxUserSize`), an update that grows them fails.
pub const LARGE_DOCUMENT: u64 = 12 * 1024 * 1024;

/// Arrays at least this long are flagged as possibly unbounded.
pub const LONG_ARRAY: u64 = 1000;

/// Below this share of the documents that could have it (in percent), a field is flagged as
/// rare, once at least [`RARE_MIN_OBJECTS`] objects were seen (fewer say little).
pub const RARE_PERCENT: u64 = 1;

/// See [`RARE_PERCENT`].
pub const RARE_MIN_OBJECTS: u64 = 100;

/// The findings of `collection`'s census: the documents first, then each path depth first in
/// the order first seen (as [`Census::paths`] lists them).
pub fn lints(census: &Census, collection: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    if census.too_deep > 0 {
        // The manual's Limits and Thresholds, "Nested Depth for BSON Documents": 100 levels.
        out.push(Finding::new(
            collection,
            Severity::Error,
            "too-deep",
            "",
            format!(
                "{} deeper than {} levels: the server refuses to store such documents; flatten them",
                crate::plural::count(census.too_deep, "document"),
                super::census::MAX_DEPTH
            ),
        ));
    }
    if census.largest_document >= LARGE_DOCUMENT {
        out.push(Finding::new(
            collection,
            Severity::Warning,
            "large-document",
            "",
            format!(
                "the largest document has {} bytes, near the 16 MiB limit: an update that grows \
                 it will fail",
                census.largest_document
            ),
        ));
    }
    walk(&census.root, "", collection, &mut out);
    out
}

fn walk(node: &Node, path: &str, collection: &str, out: &mut Vec<Finding>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match &node.fields {
        Fields::Named(named) => {
            for (key, child) in named {
                let child_path = join(key);
                let objects = node.objects();
                if objects >= RARE_MIN_OBJECTS && child.count * 100 < objects * RARE_PERCENT {
                    out.push(Finding::new(
                        collection,
                        Severity::Note,
                        "rare-field",
                        child_path.as_str(),
                        format!(
                            "present in {} of {} (under {RARE_PERCENT}%): a leftover to migrate \
                             away?",
                            child.count, objects
                        ),
                    ));
                }
                arrays(child, &child_path, collection, out);
                walk(child, &child_path, collection, out);
            }
        }
        Fields::Map { values, .. } => {
            let child_path = join("*");
            arrays(values, &child_path, collection, out);
            walk(values, &child_path, collection, out);
        }
    }
    if let Some(elements) = &node.elements {
        let child_path = join("[]");
        arrays(elements, &child_path, collection, out);
        walk(elements, &child_path, collection, out);
    }
}

fn arrays(node: &Node, path: &str, collection: &str, out: &mut Vec<Finding>) {
    if let Some(lengths) = node.lengths.range.filter(|r| r.max >= LONG_ARRAY) {
        out.push(Finding::new(
            collection,
            Severity::Warning,
            "unbounded-array",
            path,
            format!(
                "arrays of up to {} elements (p99 at most {}): if it grows with the data, it is \
                 the unbounded-array anti-pattern; consider a collection of its own",
                lengths.max,
                node.lengths.p99().unwrap_or(lengths.max)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn census(docs: &[bson::Document]) -> Census {
        let mut census = Census::new();
        for d in docs {
            census
                .add(&bson::RawDocumentBuf::try_from(d).unwrap())
                .unwrap();
        }
        census
    }

    fn rules(findings: &[Finding]) -> Vec<(&str, &str, Severity)> {
        findings
            .iter()
            .map(|f| (f.rule, f.path.as_str(), f.severity))
            .collect()
    }

    #[test]
    fn rare_fields_and_long_arrays_anywhere() {
        let mut docs: Vec<_> = (0..150)
            .map(|i| bson::doc! { "n": i, "sub": { "k": 1 } })
            .collect();
        docs[0].insert("rare", 1);
        docs[1].insert("long", vec![1; 1000]);
        docs[2].insert(
            "sub",
            bson::doc! { "k": 1, "deep": [{ "xs": vec![2; 1200] }] },
        );
        let found = lints(&census(&docs), "things");
        assert_eq!(
            rules(&found),
            [
                ("rare-field", "sub.deep", Severity::Note),
                ("unbounded-array", "sub.deep.[].xs", Severity::Warning),
                ("rare-field", "rare", Severity::Note),
                ("rare-field", "long", Severity::Note),
                ("unbounded-array", "long", Severity::Warning),
            ]
        );
        assert!(found[2].message.starts_with("present in 1 of 150"));
        assert!(found[4].message.starts_with("arrays of up to 1000"));
        // Under 100 objects a rare field says little.
        let few = lints(&census(&docs[..99]), "things");
        assert!(few.iter().all(|f| f.rule != "rare-field"), "{few:?}");
    }

    #[test]
    fn documents_too_deep_are_an_error() {
        let mut doc = bson::doc! { "leaf": 1 };
        for _ in 0..super::super::census::MAX_DEPTH {
            doc = bson::doc! { "a": doc };
        }
        let found = lints(&census(&[doc]), "deep");
        assert_eq!(rules(&found), [("too-deep", "", Severity::Error)]);
    }
}
