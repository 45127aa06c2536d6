//! Search index definitions in one canonical form, so that defaults the search service fills in
//! (`analyzer: "lucene.standard"`, `searchAnalyzer` = `analyzer`, `dynamic: false`,
//! `storedSource: false`, `numPartitions: 1`, `quantization: "none"`, the HNSW defaults, a static
//! field's type defaults) and the
//! order of a definition's fields never read as drift. Sources: the manual's createSearchIndexes
//! ("Search Index Definition Syntax") and "How to Index Fields for Vector Search".

use bson::{Bson, Document};

use super::equivalence::values_equal;
use crate::spec::SearchIndexType;

/// The analyzer a search index uses when its definition names none.
const DEFAULT_ANALYZER: &str = "lucene.standard";

/// Whether two search index definitions of one type mean the same to the service: equal after
/// the defaults are filled, with keys in any order, vector fields in any order, and numbers by
/// value.
///
/// ```
/// use bson::doc;
/// use mongo_schema::normalize::search_definitions_equal;
/// use mongo_schema::spec::SearchIndexType::Search;
/// assert!(search_definitions_equal(
///     &Search,
///     &doc! { "mappings": { "dynamic": true } },
///     &doc! { "analyzer": "lucene.standard", "searchAnalyzer": "lucene.standard",
///             "storedSource": false, "mappings": { "dynamic": true, "fields": {} } },
/// ));
/// ```
pub fn search_definitions_equal(kind: &SearchIndexType, a: &Document, b: &Document) -> bool {
    values_equal(
        &Bson::Document(canonical_definition(kind, a)),
        &Bson::Document(canonical_definition(kind, b)),
    )
}

/// The canonical form: defaults removed, keys sorted at every depth, vector fields sorted by
/// type and path.
pub fn canonical_definition(kind: &SearchIndexType, definition: &Document) -> Document {
    let mut d = definition.clone();
    if d.get("numPartitions")
        .is_some_and(|v| values_equal(v, &Bson::Int32(1)))
    {
        d.remove("numPartitions");
    }
    match kind {
        SearchIndexType::Search => {
            let analyzer = d.get_str("analyzer").unwrap_or(DEFAULT_ANALYZER).to_owned();
            if d.get_str("searchAnalyzer").ok() == Some(analyzer.as_str()) {
                d.remove("searchAnalyzer");
            }
            if analyzer == DEFAULT_ANALYZER {
                d.remove("analyzer");
            }
            if d.get("storedSource") == Some(&Bson::Boolean(false)) {
                d.remove("storedSource");
            }
            for key in ["analyzers", "synonyms"] {
                if d.get_array(key).is_ok_and(Vec::is_empty) {
                    d.remove(key);
                }
            }
            if let Ok(mappings) = d.get_document_mut("mappings") {
                canonical_mapping(mappings, &analyzer);
            }
        }
        SearchIndexType::VectorSearch => {
            if let Ok(fields) = d.get_array_mut("fields") {
                for field in fields.iter_mut() {
                    if let Bson::Document(f) = field {
                        canonical_vector_field(f);
                    }
                }
                fields.sort_by_cached_key(|f| {
                    let f = f.as_document();
                    let get = |k: &str| {
                        f.and_then(|f| f.get_str(k).ok())
                            .unwrap_or_default()
                            .to_owned()
                    };
                    (get("type"), get("path"))
                });
            }
        }
        SearchIndexType::Other(_) => {}
    }
    sorted(&d)
}

/// `dynamic` defaults to false, and an empty `fields` is none; the same at every nested
/// `document` mapping. Each field definition loses its type's defaults ([`canonical_field`]).
fn canonical_mapping(mapping: &mut Document, analyzer: &str) {
    if mapping.get("dynamic") == Some(&Bson::Boolean(false)) {
        mapping.remove("dynamic");
    }
    if mapping.get_document("fields").is_ok_and(Document::is_empty) {
        mapping.remove("fields");
    }
    if let Ok(fields) = mapping.get_document_mut("fields") {
        for (_, field) in fields.iter_mut() {
            match field {
                Bson::Document(f) => {
                    canonical_field(f, analyzer);
                    canonical_mapping(f, analyzer);
                }
                Bson::Array(list) => {
                    for f in list.iter_mut().filter_map(|f| match f {
                        Bson::Document(d) => Some(d),
                        _ => None,
                    }) {
                        canonical_field(f, analyzer);
                        canonical_mapping(f, analyzer);
                    }
                }
                _ => {}
            }
        }
    }
}

/// A static field definition without the defaults of its type. `string` ("How to Index String
/// Fields"): `analyzer` is the index's, `searchAnalyzer` the field's analyzer, `indexOptions`
/// `offsets`, `store` true, `norms` `include`. `token` ("How to Index String Fields for
/// Efficient Filtering and Sorting"): `normalizer` `none`.
fn canonical_field(field: &mut Document, index_analyzer: &str) {
    match field.get_str("type").ok() {
        Some("string") => {
            let analyzer = field
                .get_str("analyzer")
                .unwrap_or(index_analyzer)
                .to_owned();
            if field.get_str("searchAnalyzer").ok() == Some(analyzer.as_str()) {
                field.remove("searchAnalyzer");
            }
            if analyzer == index_analyzer {
                field.remove("analyzer");
            }
            if field.get_str("indexOptions").ok() == Some("offsets") {
                field.remove("indexOptions");
            }
            if field.get("store") == Some(&Bson::Boolean(true)) {
                field.remove("store");
            }
            if field.get_str("norms").ok() == Some("include") {
                field.remove("norms");
            }
        }
        Some("token") if field.get_str("normalizer").ok() == Some("none") => {
            field.remove("normalizer");
        }
        _ => {}
    }
}

fn canonical_vector_field(field: &mut Document) {
    if field.get_str("quantization").ok() == Some("none") {
        field.remove("quantization");
    }
    if field.get_str("indexingMethod").ok() == Some("hnsw") {
        field.remove("indexingMethod");
    }
    if let Ok(hnsw) = field.get_document("hnswOptions") {
        let default =
            |k: &str, v: i32| hnsw.get(k).is_none_or(|x| values_equal(x, &Bson::Int32(v)));
        if hnsw
            .keys()
            .all(|k| k == "maxEdges" || k == "numEdgeCandidates")
            && default("maxEdges", 16)
            && default("numEdgeCandidates", 100)
        {
            field.remove("hnswOptions");
        }
    }
}

fn sorted(d: &Document) -> Document {
    let mut entries: Vec<(&String, &Bson)> = d.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
        .into_iter()
        .map(|(k, v)| (k.clone(), sorted_value(v)))
        .collect()
}

fn sorted_value(v: &Bson) -> Bson {
    match v {
        Bson::Document(d) => Bson::Document(sorted(d)),
        Bson::Array(items) => Bson::Array(items.iter().map(sorted_value).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;
    use SearchIndexType::{Search, VectorSearch};

    #[test]
    fn service_defaults_are_not_drift() {
        assert!(search_definitions_equal(
            &Search,
            &doc! { "analyzer": "lucene.english", "mappings": { "dynamic": false, "fields": {
            "title": { "type": "string" } } } },
            &doc! { "analyzer": "lucene.english", "searchAnalyzer": "lucene.english",
            "numPartitions": 1_i64, "analyzers": [], "synonyms": [],
            "mappings": { "fields": { "title": { "type": "string" } } } },
        ));
        assert!(search_definitions_equal(
            &VectorSearch,
            &doc! { "fields": [
                { "type": "vector", "path": "e", "numDimensions": 3, "similarity": "cosine" },
                { "type": "filter", "path": "s" },
            ] },
            &doc! { "fields": [
                { "path": "s", "type": "filter" },
                { "similarity": "cosine", "numDimensions": 3.0, "path": "e", "type": "vector",
                  "quantization": "none", "hnswOptions": { "maxEdges": 16, "numEdgeCandidates": 100 } },
            ] },
        ));
    }

    #[test]
    fn a_changed_option_is_drift() {
        let base = doc! { "fields": [
            { "type": "vector", "path": "e", "numDimensions": 3, "similarity": "cosine" },
        ] };
        for changed in [
            doc! { "fields": [{ "type": "vector", "path": "e", "numDimensions": 4, "similarity": "cosine" }] },
            doc! { "fields": [{ "type": "vector", "path": "e", "numDimensions": 3, "similarity": "euclidean" }] },
            doc! { "fields": [{ "type": "vector", "path": "e", "numDimensions": 3, "similarity": "cosine", "quantization": "scalar" }] },
            doc! { "fields": [{ "type": "vector", "path": "f", "numDimensions": 3, "similarity": "cosine" }] },
            doc! { "fields": [
                { "type": "vector", "path": "e", "numDimensions": 3, "similarity": "cosine" },
                { "type": "filter", "path": "s" },
            ] },
        ] {
            assert!(
                !search_definitions_equal(&VectorSearch, &base, &changed),
                "{changed}"
            );
        }
        assert!(!search_definitions_equal(
            &Search,
            &doc! { "mappings": { "dynamic": true } },
            &doc! { "mappings": { "dynamic": false } },
        ));
        assert!(!search_definitions_equal(
            &Search,
            &doc! { "mappings": { "dynamic": true } },
            &doc! { "analyzer": "lucene.french", "mappings": { "dynamic": true } },
        ));
    }

    #[test]
    fn static_field_defaults_are_not_drift_but_a_changed_field_option_is() {
        let declared = doc! { "analyzer": "lucene.english", "mappings": { "fields": {
            "title": { "type": "string" },
            "body": { "type": "string", "analyzer": "lucene.french" },
            "author": { "type": "document", "fields": { "name": { "type": "token" } } },
        } } };
        let listed = doc! { "analyzer": "lucene.english", "mappings": { "dynamic": false, "fields": {
            "author": { "fields": { "name": { "normalizer": "none", "type": "token" } }, "type": "document" },
            "body": { "type": "string", "analyzer": "lucene.french", "searchAnalyzer": "lucene.french",
                      "indexOptions": "offsets", "store": true, "norms": "include" },
            "title": { "type": "string", "analyzer": "lucene.english" },
        } } };
        assert!(search_definitions_equal(&Search, &declared, &listed));
        for changed in [
            doc! { "analyzer": "lucene.english", "mappings": { "fields": {
            "title": { "type": "string", "analyzer": "lucene.standard" },
            "body": { "type": "string", "analyzer": "lucene.french" },
            "author": { "type": "document", "fields": { "name": { "type": "token" } } } } } },
            doc! { "analyzer": "lucene.english", "mappings": { "fields": {
            "title": { "type": "string" },
            "body": { "type": "string", "analyzer": "lucene.french" },
            "author": { "type": "document", "fields": { "name": { "type": "string" } } } } } },
            doc! { "analyzer": "lucene.english", "mappings": { "fields": {
            "title": { "type": "string", "norms": "omit" },
            "body": { "type": "string", "analyzer": "lucene.french" },
            "author": { "type": "document", "fields": { "name": { "type": "token" } } } } } },
        ] {
            assert!(
                !search_definitions_equal(&Search, &declared, &changed),
                "{changed}"
            );
        }
    }

    #[test]
    fn canonical_form_is_idempotent() {
        let d = doc! { "searchAnalyzer": "lucene.standard", "mappings": { "dynamic": false,
        "fields": { "b": { "type": "document", "dynamic": false, "fields": {} }, "a": { "type": "token" } } } };
        let once = canonical_definition(&Search, &d);
        assert_eq!(canonical_definition(&Search, &once), once);
        assert_eq!(
            once,
            doc! { "mappings": { "fields": { "a": { "type": "token" }, "b": { "type": "document" } } } }
        );
    }

    fn arb_field() -> impl proptest::strategy::Strategy<Value = Document> {
        use proptest::prelude::*;
        let analyzer = proptest::option::of(prop_oneof![
            Just("lucene.standard"),
            Just("lucene.english"),
            Just("lucene.french"),
        ]);
        (
            prop_oneof![Just("string"), Just("token"), Just("number")],
            analyzer.clone(),
            analyzer,
            proptest::option::of(prop_oneof![Just("offsets"), Just("positions")]),
            proptest::option::of(any::<bool>()),
            proptest::option::of(prop_oneof![Just("none"), Just("lowercase")]),
        )
            .prop_map(|(t, a, sa, io, store, normalizer)| {
                let mut d = doc! { "type": t };
                for (k, v) in [
                    ("analyzer", a),
                    ("searchAnalyzer", sa),
                    ("indexOptions", io),
                    ("normalizer", normalizer),
                ] {
                    if let Some(v) = v {
                        d.insert(k, v);
                    }
                }
                if let Some(store) = store {
                    d.insert("store", store);
                }
                d
            })
    }

    proptest::proptest! {
        // normalize is idempotent, and a definition always equals its own canonical form.
        #[test]
        fn canonical_static_mappings_are_idempotent(
            fields in proptest::collection::btree_map("[a-c]", arb_field(), 1..4),
            analyzer in proptest::option::of(proptest::prelude::Just("lucene.english")),
        ) {
            let mut d = doc! { "mappings": { "dynamic": false, "fields": fields
                .into_iter()
                .map(|(k, v)| (k, Bson::Document(v)))
                .collect::<Document>() } };
            if let Some(a) = analyzer {
                d.insert("analyzer", a);
            }
            let once = canonical_definition(&Search, &d);
            proptest::prop_assert_eq!(canonical_definition(&Search, &once), once.clone());
            proptest::prop_assert!(search_definitions_equal(&Search, &d, &once));
        }
    }
}
