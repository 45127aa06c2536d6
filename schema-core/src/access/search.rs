//! Declared queries that run on a search or vector search index (`$search`, `$vectorSearch`):
//! the stage a query names, and the lint that the named index exists, is of the right type and
//! indexes every path the stage uses. These queries never reach the B-tree planner, so
//! [`coverage`](super::coverage) and `explain` leave them out.
//!
//! Manual: [$vectorSearch](https://www.mongodb.com/docs/atlas/atlas-vector-search/vector-search-stage/)
//! (`path` must be indexed as a `vector` field, each field of `filter` as a `filter` field);
//! [Define Field Mappings](https://www.mongodb.com/docs/atlas/atlas-search/define-field-mappings/)
//! (dynamic mappings index every field of a supported type, static ones the listed fields, a
//! nested document through `type: "document"` with its own `fields` and `dynamic`);
//! [string type](https://www.mongodb.com/docs/atlas/atlas-search/field-types/string-type/)
//! (the `text` operator queries fields indexed as `string`; dynamic mappings with the default
//! `typeSet` index strings as `string`, so a path the `$jsonSchema` stores as another type is
//! not searched).

use bson::{Bson, Document, doc};

use crate::schema::{BsonType, Items, JsonSchema, TypeConstraint};
use crate::spec::{CollectionSpec, DocumentError, SearchIndexSpec, SearchIndexType, read};

/// The first stage of a query that runs on a search index instead of the B-tree planner.
///
/// ```
/// use mongo_schema::access::{QuerySpec, SearchStage};
/// let similar = QuerySpec::new("similar").vector_search("embeddings", "embedding", ["status"]);
/// assert_eq!(
///     similar.search_stage.unwrap().to_stage(),
///     bson::doc! { "$vectorSearch": { "index": "embeddings", "path": "embedding" } },
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchStage {
    /// `$search` with the `text` operator over `paths` (stored names, dotted).
    Search {
        /// The search index's name.
        index: String,
        /// The fields searched.
        paths: Vec<String>,
    },
    /// `$vectorSearch` on `path`, pre-filtered on `filters` (stored names, dotted).
    VectorSearch {
        /// The vector search index's name.
        index: String,
        /// The embedding searched.
        path: String,
        /// The fields the stage's `filter` compares.
        filters: Vec<String>,
    },
}

impl SearchStage {
    /// The stage's name: `$search` or `$vectorSearch`.
    pub fn stage_name(&self) -> &'static str {
        match self {
            SearchStage::Search { .. } => "$search",
            SearchStage::VectorSearch { .. } => "$vectorSearch",
        }
    }

    /// The index the stage names.
    pub fn index(&self) -> &str {
        match self {
            SearchStage::Search { index, .. } | SearchStage::VectorSearch { index, .. } => index,
        }
    }

    /// The index type the stage needs: `search` for `$search`, `vectorSearch` for
    /// `$vectorSearch`.
    pub fn index_type(&self) -> SearchIndexType {
        match self {
            SearchStage::Search { .. } => SearchIndexType::Search,
            SearchStage::VectorSearch { .. } => SearchIndexType::VectorSearch,
        }
    }

    /// Every stored path the stage reads.
    pub fn paths(&self) -> Vec<&str> {
        match self {
            SearchStage::Search { paths, .. } => paths.iter().map(String::as_str).collect(),
            SearchStage::VectorSearch { path, filters, .. } => std::iter::once(path.as_str())
                .chain(filters.iter().map(String::as_str))
                .collect(),
        }
    }

    /// The stage as a pipeline's first stage, with what the declaration knows: the index and
    /// the paths (`{$search: {index, text: {path}}}`, `{$vectorSearch: {index, path}}`). The
    /// values (`query`, `queryVector`, `limit`, the filter's values) are the application's.
    pub fn to_stage(&self) -> Document {
        match self {
            SearchStage::Search { index, paths } => doc! {
                "$search": { "index": index, "text": { "path": paths.clone() } },
            },
            SearchStage::VectorSearch { index, path, .. } => doc! {
                "$vectorSearch": { "index": index, "path": path },
            },
        }
    }

    /// The manifest form, under the stage's name: `{index, path: [..]}` for `$search`,
    /// `{index, path, filter: [..]}` for `$vectorSearch` (filter fields without values).
    pub(super) fn to_manifest(&self) -> (&'static str, Document) {
        match self {
            SearchStage::Search { index, paths } => {
                ("$search", doc! { "index": index, "path": paths.clone() })
            }
            SearchStage::VectorSearch {
                index,
                path,
                filters,
            } => {
                let mut d = doc! { "index": index, "path": path };
                if !filters.is_empty() {
                    d.insert("filter", filters.clone());
                }
                ("$vectorSearch", d)
            }
        }
    }

    /// Reads the manifest form of [`SearchStage::to_manifest`] from a query document; `None`
    /// when it has neither `$search` nor `$vectorSearch`.
    pub(super) fn from_manifest(query: &Document) -> Result<Option<SearchStage>, DocumentError> {
        let strings = |at: &str, v: &Bson| -> Result<Vec<String>, DocumentError> {
            match v {
                Bson::Array(items) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| read::string(&format!("{at}[{i}]"), v))
                    .collect(),
                other => Err(DocumentError::expected(at, "an array of paths", other)),
            }
        };
        let index = |at: &str, d: &Document| match d.get("index") {
            Some(v) => read::string(&format!("{at}.index"), v),
            None => Err(DocumentError::missing(&format!("{at}.index"))),
        };
        match (query.get("$search"), query.get("$vectorSearch")) {
            (Some(_), Some(_)) => Err(DocumentError {
                path: "$vectorSearch".into(),
                message: "a query runs one of $search and $vectorSearch, not both".into(),
            }),
            (Some(v), None) => {
                let d = read::document("$search", v)?;
                let paths = match d.get("path") {
                    Some(v) => strings("$search.path", v)?,
                    None => return Err(DocumentError::missing("$search.path")),
                };
                Ok(Some(SearchStage::Search {
                    index: index("$search", d)?,
                    paths,
                }))
            }
            (None, Some(v)) => {
                let d = read::document("$vectorSearch", v)?;
                let path = match d.get("path") {
                    Some(v) => read::string("$vectorSearch.path", v)?,
                    None => return Err(DocumentError::missing("$vectorSearch.path")),
                };
                let filters = match d.get("filter") {
                    Some(v) => strings("$vectorSearch.filter", v)?,
                    None => Vec::new(),
                };
                Ok(Some(SearchStage::VectorSearch {
                    index: index("$vectorSearch", d)?,
                    path,
                    filters,
                }))
            }
            (None, None) => Ok(None),
        }
    }
}

/// What is wrong with a search query's use of its index: the finding's detail.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchProblem {
    /// No search index of the collection has the name; `nearest` is the closest declared one.
    UnknownIndex {
        /// The nearest declared search index name.
        nearest: Option<String>,
    },
    /// The index is of the other type (`$search` on a `vectorSearch` index, or the reverse).
    WrongType {
        /// The index's type.
        found: String,
    },
    /// A path the stage reads that the index does not index (as it must be for this stage).
    PathNotIndexed {
        /// The stored path.
        path: String,
        /// Why, for the message.
        reason: String,
    },
}

/// Checks one search query against the collection's search indexes; empty when the index
/// exists, has the stage's type and indexes every path.
///
/// ```
/// use mongo_schema::access::{SearchProblem, SearchStage, search_problems};
/// use mongo_schema::spec::{CollectionSpec, SearchIndexSpec};
/// let posts = CollectionSpec::new("posts").search_index(SearchIndexSpec::dynamic("text"));
/// let stage = SearchStage::Search { index: "txt".into(), paths: vec!["title".into()] };
/// assert_eq!(
///     search_problems(&posts, &stage),
///     [SearchProblem::UnknownIndex { nearest: Some("text".into()) }],
/// );
/// ```
pub fn search_problems(spec: &CollectionSpec, stage: &SearchStage) -> Vec<SearchProblem> {
    let Some(index) = spec.search_indexes.iter().find(|i| i.name == stage.index()) else {
        return vec![SearchProblem::UnknownIndex {
            nearest: nearest(stage.index(), &spec.search_indexes),
        }];
    };
    if index.index_type != stage.index_type() {
        return vec![SearchProblem::WrongType {
            found: index.index_type.to_string(),
        }];
    }
    let mut problems = Vec::new();
    match stage {
        SearchStage::VectorSearch { path, filters, .. } => {
            let vectors = index.vector_paths();
            if !vectors.iter().any(|(p, _)| p == path) {
                let listed: Vec<&str> = vectors.iter().map(|(p, _)| p.as_str()).collect();
                problems.push(SearchProblem::PathNotIndexed {
                    path: path.clone(),
                    reason: format!(
                        "$vectorSearch path must be the index's vector field ({})",
                        listed.join(", ")
                    ),
                });
            }
            let indexed = filter_paths(index);
            for filter in filters {
                if !indexed.contains(&filter.as_str()) {
                    problems.push(SearchProblem::PathNotIndexed {
                        path: filter.clone(),
                        reason: "a $vectorSearch filter field must be indexed as a filter field"
                            .into(),
                    });
                }
            }
        }
        SearchStage::Search { paths, .. } => {
            let mappings = index.definition.get_document("mappings").ok();
            for path in paths {
                match mappings.map(|m| mapping_of(m, path)) {
                    Some(Mapped::Dynamic) => {
                        if let Some(types) = stored_types(spec, path)
                            && !types.contains(&BsonType::String)
                        {
                            let names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
                            problems.push(SearchProblem::PathNotIndexed {
                                path: path.clone(),
                                reason: format!(
                                    "its schema stores {}, which dynamic mappings do not index as string; the text operator searches strings",
                                    names.join(", ")
                                ),
                            });
                        }
                    }
                    Some(Mapped::Static(types)) if types.iter().any(|t| t == "string") => {}
                    Some(Mapped::Static(types)) => {
                        problems.push(SearchProblem::PathNotIndexed {
                            path: path.clone(),
                            reason: format!(
                                "it is mapped as {}; the text operator searches fields mapped as string",
                                types.join(", ")
                            ),
                        });
                    }
                    Some(Mapped::No) | None => problems.push(SearchProblem::PathNotIndexed {
                        path: path.clone(),
                        reason:
                            "no dynamic mapping covers it and the static mappings do not list it"
                                .into(),
                    }),
                }
            }
        }
    }
    problems
}

/// The BSON types the collection's `$jsonSchema` stores at `path` (an array's element types
/// for an array, `null` left out); `None` when the schema does not say.
fn stored_types(spec: &CollectionSpec, path: &str) -> Option<Vec<BsonType>> {
    let mut node: &JsonSchema = spec.validator.as_ref()?.json_schema.as_ref()?;
    for segment in path.split('.') {
        if let Some(Items::Single(element)) = &node.items {
            node = element;
        }
        node = node.properties.get(segment)?;
    }
    let mut out = Vec::new();
    let Some(TypeConstraint::BsonType(types)) = &node.types else {
        return None;
    };
    for t in types {
        match t {
            BsonType::Null => {}
            BsonType::Array => match &node.items {
                Some(Items::Single(element)) => match &element.types {
                    Some(TypeConstraint::BsonType(inner)) => out.extend(inner.iter().copied()),
                    _ => return None,
                },
                _ => return None,
            },
            other => out.push(*other),
        }
    }
    (!out.is_empty()).then_some(out)
}

fn nearest(name: &str, indexes: &[SearchIndexSpec]) -> Option<String> {
    indexes
        .iter()
        .map(|i| (strsim::levenshtein(name, &i.name), &i.name))
        .filter(|(d, n)| *d <= 2.max(n.len() / 3))
        .min()
        .map(|(_, n)| n.clone())
}

fn filter_paths(index: &SearchIndexSpec) -> Vec<&str> {
    index
        .definition
        .get_array("fields")
        .map(|a| a.as_slice())
        .unwrap_or(&[])
        .iter()
        .filter_map(Bson::as_document)
        .filter(|f| f.get_str("type").ok() == Some("filter"))
        .filter_map(|f| f.get_str("path").ok())
        .collect()
}

/// How a mapping indexes one path.
enum Mapped {
    /// A dynamic mapping indexes it (as every field of a supported type).
    Dynamic,
    /// Static field definitions list it, with these types.
    Static(Vec<String>),
    /// Nothing indexes it.
    No,
}

/// `dynamic` is `true` or, on recent services, a `{typeSet: ...}` document; absent is false.
fn is_dynamic(mappings: &Document) -> bool {
    match mappings.get("dynamic") {
        Some(Bson::Boolean(b)) => *b,
        Some(Bson::Document(_)) => true,
        _ => false,
    }
}

/// How `mappings` (the root mapping, or a `document` field's definition) indexes `path`. A
/// listed field wins over the dynamic mapping around it; a field may be a definition or an
/// array of them (one per type).
fn mapping_of(mappings: &Document, path: &str) -> Mapped {
    let (head, rest) = match path.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    let definitions: Vec<&Document> = match mappings
        .get_document("fields")
        .ok()
        .and_then(|f| f.get(head))
    {
        Some(Bson::Document(d)) => vec![d],
        Some(Bson::Array(items)) => items.iter().filter_map(Bson::as_document).collect(),
        _ => Vec::new(),
    };
    if definitions.is_empty() {
        return if is_dynamic(mappings) {
            Mapped::Dynamic
        } else {
            Mapped::No
        };
    }
    match rest {
        None => Mapped::Static(
            definitions
                .iter()
                .filter_map(|d| d.get_str("type").ok().map(str::to_owned))
                .collect(),
        ),
        Some(rest) => definitions
            .iter()
            .filter(|d| {
                matches!(
                    d.get_str("type").ok(),
                    Some("document" | "embeddedDocuments")
                )
            })
            .map(|d| mapping_of(d, rest))
            .find(|m| !matches!(m, Mapped::No))
            .unwrap_or(Mapped::No),
    }
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;
    use crate::spec::VectorField;

    fn products() -> CollectionSpec {
        CollectionSpec::new("products")
            .search_index(SearchIndexSpec::vector(
                "embeddings",
                VectorField::new("embedding", 3, "cosine"),
                ["status"],
            ))
            .search_index(SearchIndexSpec::static_mappings(
                "text",
                [
                    ("title", doc! { "type": "string" }),
                    ("sku", doc! { "type": "token" }),
                    ("author.name", doc! { "type": "string" }),
                ],
            ))
            .search_index(SearchIndexSpec::dynamic("everything"))
    }

    fn vector(path: &str, filters: &[&str]) -> SearchStage {
        SearchStage::VectorSearch {
            index: "embeddings".into(),
            path: path.into(),
            filters: filters.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    fn search(index: &str, paths: &[&str]) -> SearchStage {
        SearchStage::Search {
            index: index.into(),
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
        }
    }

    #[test]
    fn a_vector_query_on_the_indexed_path_and_filters_is_covered() {
        assert_eq!(
            search_problems(&products(), &vector("embedding", &["status"])),
            []
        );
    }

    #[test]
    fn a_vector_query_on_another_path_or_filter_is_not_covered() {
        let problems = search_problems(&products(), &vector("title", &["status", "tenant"]));
        let paths: Vec<&str> = problems
            .iter()
            .map(|p| match p {
                SearchProblem::PathNotIndexed { path, .. } => path.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(paths, ["title", "tenant"]);
    }

    #[test]
    fn static_mappings_cover_listed_string_fields_and_nested_ones() {
        assert_eq!(
            search_problems(&products(), &search("text", &["title", "author.name"])),
            []
        );
        let problems =
            search_problems(&products(), &search("text", &["body", "sku", "author.bio"]));
        assert_eq!(problems.len(), 3, "{problems:?}");
        let SearchProblem::PathNotIndexed { reason, .. } = &problems[1] else {
            panic!("{problems:?}");
        };
        assert!(reason.contains("mapped as token"), "{reason}");
    }

    #[test]
    fn dynamic_mappings_cover_every_path() {
        assert_eq!(
            search_problems(&products(), &search("everything", &["body", "a.b.c"])),
            []
        );
        let nested_dynamic = CollectionSpec::new("c").search_index(SearchIndexSpec::new(
            "s",
            SearchIndexType::Search,
            doc! { "mappings": { "fields": { "meta": { "type": "document", "dynamic": true } } } },
        ));
        assert_eq!(
            search_problems(&nested_dynamic, &search("s", &["meta.x"])),
            []
        );
        assert_eq!(
            search_problems(&nested_dynamic, &search("s", &["other"])).len(),
            1
        );
    }

    // Dynamic mappings with the default typeSet index strings as string ("How to Index String
    // Fields"): a field the schema stores as a number is not searched by the text operator.
    #[test]
    fn a_dynamic_mapping_covers_a_path_the_schema_stores_as_a_string() {
        let mut schema = JsonSchema::bson_type(BsonType::Object);
        let mut tags = JsonSchema::bson_type(BsonType::Array);
        tags.items = Some(Items::Single(Box::new(JsonSchema::bson_type(
            BsonType::String,
        ))));
        for (name, node) in [
            (
                "title",
                JsonSchema::bson_types([BsonType::String, BsonType::Null]),
            ),
            (
                "views",
                JsonSchema::bson_types([BsonType::Int, BsonType::Long]),
            ),
            ("tags", tags),
        ] {
            schema.properties.insert(name.to_owned(), node);
        }
        let spec = CollectionSpec::new("c")
            .json_schema(schema)
            .search_index(SearchIndexSpec::dynamic("s"));
        assert_eq!(
            search_problems(&spec, &search("s", &["title", "tags", "unknown"])),
            []
        );
        let problems = search_problems(&spec, &search("s", &["views"]));
        let [SearchProblem::PathNotIndexed { reason, .. }] = problems.as_slice() else {
            panic!("{problems:?}");
        };
        assert!(reason.contains("stores int, long"), "{reason}");
    }

    #[test]
    fn the_index_must_exist_and_be_of_the_stage_type() {
        assert_eq!(
            search_problems(&products(), &search("txet", &["title"])),
            [SearchProblem::UnknownIndex {
                nearest: Some("text".into())
            }]
        );
        assert_eq!(
            search_problems(&products(), &search("zzzzzzzz", &["title"])),
            [SearchProblem::UnknownIndex { nearest: None }]
        );
        assert_eq!(
            search_problems(&products(), &search("embeddings", &["title"])),
            [SearchProblem::WrongType {
                found: "vectorSearch".into()
            }]
        );
        let mut on_text = vector("embedding", &[]);
        if let SearchStage::VectorSearch { index, .. } = &mut on_text {
            *index = "text".into();
        }
        assert_eq!(
            search_problems(&products(), &on_text),
            [SearchProblem::WrongType {
                found: "search".into()
            }]
        );
    }

    #[test]
    fn the_manifest_form_reads_back() {
        for stage in [
            vector("embedding", &["status"]),
            vector("e", &[]),
            search("text", &["a", "b.c"]),
        ] {
            let (key, value) = stage.to_manifest();
            let read = SearchStage::from_manifest(&doc! { key: value }).unwrap();
            assert_eq!(read, Some(stage));
        }
        assert!(SearchStage::from_manifest(&doc! { "$search": { "index": "x" } }).is_err());
        assert!(
            SearchStage::from_manifest(
                &doc! { "$search": { "index": "x", "path": ["a"] }, "$vectorSearch": {} }
            )
            .is_err()
        );
    }

    fn arb_path() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec("[a-d]", 1..4).prop_map(|segments| segments.join("."))
    }

    fn arb_stage() -> impl proptest::strategy::Strategy<Value = SearchStage> {
        let index = "[a-z]{1,8}";
        proptest::prop_oneof![
            (index, proptest::collection::vec(arb_path(), 1..4))
                .prop_map(|(index, paths)| SearchStage::Search { index, paths }),
            (
                index,
                arb_path(),
                proptest::collection::vec(arb_path(), 0..3)
            )
                .prop_map(|(index, path, filters)| SearchStage::VectorSearch {
                    index,
                    path,
                    filters
                }),
        ]
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #[test]
        fn a_query_with_a_stage_reads_back_from_its_manifest_form(stage in arb_stage()) {
            let mut query = crate::access::QuerySpec::new("q");
            query.search_stage = Some(stage);
            let read = crate::access::QuerySpec::from_document(&query.to_document());
            proptest::prop_assert_eq!(read, Ok(query));
        }

        // "Define Field Mappings": a static mapping indexes exactly the listed fields.
        #[test]
        fn static_string_mappings_cover_exactly_the_listed_paths(
            paths in proptest::collection::btree_set(arb_path(), 1..6),
            other in arb_path(),
        ) {
            let prefix = |a: &String, b: &String| a != b && b.starts_with(&format!("{a}."));
            proptest::prop_assume!(!paths.iter().any(|a| paths.iter().any(|b| prefix(a, b))));
            let spec = CollectionSpec::new("c").search_index(SearchIndexSpec::static_mappings(
                "s",
                paths.iter().map(|p| (p.clone(), doc! { "type": "string" })),
            ));
            for path in &paths {
                proptest::prop_assert_eq!(search_problems(&spec, &search("s", &[path])), []);
            }
            let listed = paths.contains(&other);
            proptest::prop_assert_eq!(search_problems(&spec, &search("s", &[&other])).is_empty(), listed);
        }
    }
}
