//! Search and vector search indexes (`mongot`: Atlas, and Community 8.2+): the declared
//! [`SearchIndexSpec`], the server's refusals, and the entries `$listSearchIndexes` returns.
//! Manual: [createSearchIndexes](https://www.mongodb.com/docs/manual/reference/command/createSearchIndexes/),
//! [$listSearchIndexes](https://www.mongodb.com/docs/manual/reference/operator/aggregation/listSearchIndexes/),
//! [vectorSearch index fields](https://www.mongodb.com/docs/atlas/atlas-vector-search/vector-search-type/).

use std::fmt;

use bson::{Bson, Document};

use super::error::{DocumentError, SpecError};
use super::read;
use crate::schema::BsonType;

/// `type` of a search index: `search` (the default when omitted) or `vectorSearch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchIndexType {
    /// `search`: full-text mappings.
    Search,
    /// `vectorSearch`: vector and filter fields for `$vectorSearch`.
    VectorSearch,
    /// Any other value, as the service spelled it.
    Other(String),
}

impl SearchIndexType {
    /// The value as the service spells it.
    pub fn as_str(&self) -> &str {
        match self {
            SearchIndexType::Search => "search",
            SearchIndexType::VectorSearch => "vectorSearch",
            SearchIndexType::Other(s) => s,
        }
    }

    /// Reads a value; unknown ones become [`SearchIndexType::Other`].
    pub fn from_name(name: &str) -> SearchIndexType {
        match name {
            "search" => SearchIndexType::Search,
            "vectorSearch" => SearchIndexType::VectorSearch,
            other => SearchIndexType::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for SearchIndexType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The similarity functions of a vector field.
pub const SIMILARITIES: &[&str] = &["euclidean", "cosine", "dotProduct"];
/// The quantizations of a vector field (`none` when omitted).
pub const QUANTIZATIONS: &[&str] = &["none", "scalar", "binary"];
/// The most dimensions a vector field takes.
pub const MAX_DIMENSIONS: i64 = 8192;
/// The field types of a static search mapping ("Define Field Mappings"; the facet types and
/// `knnVector` are deprecated but accepted).
pub const MAPPING_TYPES: &[&str] = &[
    "autocomplete",
    "boolean",
    "date",
    "dateFacet",
    "document",
    "embeddedDocuments",
    "geo",
    "knnVector",
    "number",
    "numberFacet",
    "objectId",
    "string",
    "stringFacet",
    "token",
    "uuid",
];

/// Whether a static mapping of `field_type` indexes values of BSON type `t`, by the manual's
/// field type pages (`string`/`token`/`autocomplete` index strings, `number` the numeric types,
/// `uuid` binData subtype 4, `document`/`embeddedDocuments`/`geo` embedded documents). An
/// unknown field type indexes anything (the service judges it).
fn indexes_type(field_type: &str, t: &BsonType) -> bool {
    match field_type {
        "string" | "token" | "autocomplete" | "stringFacet" => *t == BsonType::String,
        "number" | "numberFacet" => matches!(
            t,
            BsonType::Int
                | BsonType::Long
                | BsonType::Double
                | BsonType::Decimal
                | BsonType::Number
        ),
        "boolean" => *t == BsonType::Bool,
        "date" | "dateFacet" => *t == BsonType::Date,
        "objectId" => *t == BsonType::ObjectId,
        "uuid" => *t == BsonType::BinData,
        "document" | "embeddedDocuments" | "geo" => *t == BsonType::Object,
        "knnVector" => matches!(t, BsonType::Double | BsonType::Int | BsonType::Number),
        _ => true,
    }
}

/// The first of `types` (what a field's schema stores) when a mapping of `field_type` indexes
/// none of them; `None` when it indexes one, or the schema does not say (`types` empty).
pub(crate) fn unindexable(field_type: &str, types: &[BsonType]) -> Option<BsonType> {
    if types.iter().any(|t| indexes_type(field_type, t)) {
        return None;
    }
    types.first().copied()
}

/// One search or vector search index: its name, type and definition (as `createSearchIndexes`
/// takes it). On the live side, the status `$listSearchIndexes` reported.
///
/// ```
/// use mongo_schema::spec::{SearchIndexSpec, VectorField};
/// let index = SearchIndexSpec::vector(
///     "embedding_index",
///     VectorField::new("embedding", 1536, "cosine"),
///     ["status", "tenantId"],
/// );
/// assert_eq!(
///     index.to_document(),
///     bson::doc! { "name": "embedding_index", "type": "vectorSearch", "definition": { "fields": [
///         { "type": "vector", "path": "embedding", "numDimensions": 1536, "similarity": "cosine" },
///         { "type": "filter", "path": "status" },
///         { "type": "filter", "path": "tenantId" },
///     ] } },
/// );
/// assert!(index.check("products").is_ok());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SearchIndexSpec {
    /// `name` (`default` when omitted).
    pub name: String,
    /// `type`.
    pub index_type: SearchIndexType,
    /// `definition`, as written (mappings, analyzers, fields, ...).
    pub definition: Document,
    /// `status` as listed (`PENDING`, `BUILDING`, `READY`, `STALE`, `FAILED`, `DELETING`,
    /// `DOES_NOT_EXIST`). Never set on a declaration.
    pub status: Option<String>,
    /// `queryable` as listed. Never set on a declaration.
    pub queryable: Option<bool>,
}

/// The vector field of a vector search index.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct VectorField {
    /// Stored path of the embedding.
    pub path: String,
    /// `numDimensions`.
    pub dimensions: i64,
    /// `similarity`: `euclidean`, `cosine` or `dotProduct`.
    pub similarity: String,
    /// `quantization`: `none` (the default), `scalar` or `binary`.
    pub quantization: Option<String>,
}

impl VectorField {
    /// A vector field without quantization.
    pub fn new(path: impl Into<String>, dimensions: i64, similarity: impl Into<String>) -> Self {
        VectorField {
            path: path.into(),
            dimensions,
            similarity: similarity.into(),
            quantization: None,
        }
    }

    /// Sets `quantization`.
    #[must_use]
    pub fn quantization(mut self, quantization: impl Into<String>) -> Self {
        self.quantization = Some(quantization.into());
        self
    }

    fn to_document(&self) -> Document {
        let mut d = bson::doc! {
            "type": "vector",
            "path": self.path.clone(),
            "numDimensions": read::compact_integer(self.dimensions),
            "similarity": self.similarity.clone(),
        };
        if let Some(q) = &self.quantization {
            d.insert("quantization", q.clone());
        }
        d
    }
}

impl SearchIndexSpec {
    /// A search index with this definition.
    pub fn new(
        name: impl Into<String>,
        index_type: SearchIndexType,
        definition: Document,
    ) -> SearchIndexSpec {
        SearchIndexSpec {
            name: name.into(),
            index_type,
            definition,
            status: None,
            queryable: None,
        }
    }

    /// A search index with dynamic mappings (every field of a supported type is indexed).
    pub fn dynamic(name: impl Into<String>) -> SearchIndexSpec {
        SearchIndexSpec::new(
            name,
            SearchIndexType::Search,
            bson::doc! { "mappings": { "dynamic": true } },
        )
    }

    /// A search index with static mappings: each stored path with its field definition
    /// (`{type: "string"}`, `{type: "token"}`...), nested paths as nested `fields`.
    pub fn static_mappings<I, P>(name: impl Into<String>, fields: I) -> SearchIndexSpec
    where
        I: IntoIterator<Item = (P, Document)>,
        P: Into<String>,
    {
        let mut root = Document::new();
        for (path, field) in fields {
            insert_mapping(&mut root, &path.into(), field);
        }
        SearchIndexSpec::new(
            name,
            SearchIndexType::Search,
            bson::doc! { "mappings": { "dynamic": false, "fields": root } },
        )
    }

    /// A vector search index on `vector`, with filter fields at these stored paths.
    pub fn vector<I, P>(name: impl Into<String>, vector: VectorField, filters: I) -> SearchIndexSpec
    where
        I: IntoIterator<Item = P>,
        P: Into<String>,
    {
        let mut fields = vec![Bson::Document(vector.to_document())];
        for path in filters {
            fields.push(Bson::Document(
                bson::doc! { "type": "filter", "path": path.into() },
            ));
        }
        SearchIndexSpec::new(
            name,
            SearchIndexType::VectorSearch,
            bson::doc! { "fields": fields },
        )
    }

    /// Sets the definition's `analyzer` (and so the default `searchAnalyzer`).
    #[must_use]
    pub fn analyzer(mut self, analyzer: impl Into<String>) -> SearchIndexSpec {
        self.definition.insert("analyzer", analyzer.into());
        self
    }

    /// The index as a `createSearchIndexes` entry: `{name, type, definition}`.
    pub fn to_document(&self) -> Document {
        bson::doc! {
            "name": self.name.clone(),
            "type": self.index_type.as_str(),
            "definition": self.definition.clone(),
        }
    }

    /// Reads a `createSearchIndexes` entry (a manifest's `searchIndexes` entry).
    ///
    /// # Errors
    /// [`DocumentError`] at the offending field.
    pub fn from_document(doc: &Document) -> Result<SearchIndexSpec, DocumentError> {
        let name = match doc.get("name") {
            Some(v) => read::string("name", v)?,
            None => "default".to_owned(),
        };
        let index_type = match doc.get("type") {
            Some(v) => SearchIndexType::from_name(&read::string("type", v)?),
            None => SearchIndexType::Search,
        };
        let definition = match doc.get("definition") {
            Some(v) => read::document("definition", v)?.clone(),
            None => return Err(DocumentError::missing("definition")),
        };
        for key in doc.keys() {
            if !matches!(key.as_str(), "name" | "type" | "definition") {
                return Err(DocumentError {
                    path: key.clone(),
                    message: "unknown field; expected name, type or definition".into(),
                });
            }
        }
        Ok(SearchIndexSpec::new(name, index_type, definition))
    }

    /// Reads a `$listSearchIndexes` entry: `{id, name, type, status, queryable,
    /// latestDefinition, latestDefinitionVersion, statusDetail}`. `type` is absent on services
    /// that predate vector search (read as `search`).
    ///
    /// # Errors
    /// [`DocumentError`] when `name` or `latestDefinition` is missing or of the wrong type.
    pub fn from_listed(doc: &Document) -> Result<SearchIndexSpec, DocumentError> {
        let name = match doc.get("name") {
            Some(v) => read::string("name", v)?,
            None => return Err(DocumentError::missing("name")),
        };
        let index_type = match doc.get("type") {
            Some(v) => SearchIndexType::from_name(&read::string("type", v)?),
            None => SearchIndexType::Search,
        };
        let definition = match doc.get("latestDefinition") {
            Some(v) => read::document("latestDefinition", v)?.clone(),
            None => return Err(DocumentError::missing("latestDefinition")),
        };
        let mut spec = SearchIndexSpec::new(name, index_type, definition);
        spec.status = doc.get_str("status").ok().map(str::to_owned);
        spec.queryable = doc.get_bool("queryable").ok();
        Ok(spec)
    }

    /// The vector fields' `(path, numDimensions)` of a vector search index.
    pub fn vector_paths(&self) -> Vec<(String, Option<i64>)> {
        fields_of(&self.definition)
            .filter(|f| f.get_str("type").ok() == Some("vector"))
            .map(|f| {
                (
                    f.get_str("path").unwrap_or_default().to_owned(),
                    f.get("numDimensions").and_then(read::whole_seconds),
                )
            })
            .collect()
    }

    /// The refusals of `createSearchIndexes` the declaration can know of: a name, a type the
    /// service knows, `mappings` on a search index, and on a vector search index at least one
    /// vector field with 1 to 8192 dimensions, a known similarity and quantization, and every
    /// field of type `vector` or `filter` with a path.
    ///
    /// # Errors
    /// [`SpecError::InvalidIndex`] naming the index.
    pub fn check(&self, ns: &str) -> Result<(), SpecError> {
        let err = |reason: String| SpecError::InvalidIndex {
            collection: ns.to_owned(),
            index: self.name.clone(),
            reason,
        };
        if self.name.is_empty() {
            return Err(err("a search index needs a non-empty name".into()));
        }
        match &self.index_type {
            SearchIndexType::Search => {
                if !matches!(self.definition.get("mappings"), Some(Bson::Document(_))) {
                    return Err(err(
                        "a search index definition needs mappings (e.g. {dynamic: true})".into(),
                    ));
                }
            }
            SearchIndexType::VectorSearch => check_vector(&self.definition).map_err(err)?,
            SearchIndexType::Other(t) => {
                return Err(err(format!(
                    "unknown search index type {t:?}; expected search or vectorSearch"
                )));
            }
        }
        Ok(())
    }
}

/// Every index's [`SearchIndexSpec::check`], and no two with one name ("You cannot create
/// multiple indexes with the same name on a single collection", createSearchIndexes).
pub(crate) fn check_all(ns: &str, indexes: &[SearchIndexSpec]) -> Result<(), SpecError> {
    for (i, index) in indexes.iter().enumerate() {
        index.check(ns)?;
        if indexes[..i].iter().any(|other| other.name == index.name) {
            return Err(SpecError::InvalidIndex {
                collection: ns.to_owned(),
                index: index.name.clone(),
                reason: "two search indexes have this name".into(),
            });
        }
    }
    Ok(())
}

fn fields_of(definition: &Document) -> impl Iterator<Item = &Document> {
    definition
        .get_array("fields")
        .map(|a| a.as_slice())
        .unwrap_or(&[])
        .iter()
        .filter_map(Bson::as_document)
}

fn check_vector(definition: &Document) -> Result<(), String> {
    if !matches!(definition.get("fields"), Some(Bson::Array(_))) {
        return Err("a vectorSearch definition needs fields: [...]".into());
    }
    let mut vectors = 0;
    for (i, field) in fields_of(definition).enumerate() {
        let at = format!("fields[{i}]");
        if field.get_str("path").is_err() {
            return Err(format!("{at}: a path is required"));
        }
        match field.get_str("type") {
            Ok("vector") => {
                vectors += 1;
                let dims = field.get("numDimensions").and_then(read::whole_seconds);
                if !dims.is_some_and(|d| (1..=MAX_DIMENSIONS).contains(&d)) {
                    return Err(format!(
                        "{at}: numDimensions must be a whole number from 1 to {MAX_DIMENSIONS}"
                    ));
                }
                let similarity = field.get_str("similarity").unwrap_or_default();
                if !SIMILARITIES.contains(&similarity) {
                    return Err(format!(
                        "{at}: similarity must be one of {}",
                        SIMILARITIES.join(", ")
                    ));
                }
                if let Some(q) = field.get("quantization")
                    && !q.as_str().is_some_and(|q| QUANTIZATIONS.contains(&q))
                {
                    return Err(format!(
                        "{at}: quantization must be one of {}",
                        QUANTIZATIONS.join(", ")
                    ));
                }
            }
            Ok("filter") => {}
            _ => return Err(format!("{at}: type must be vector or filter")),
        }
    }
    if vectors == 0 {
        return Err("a vectorSearch definition needs a field of type vector".into());
    }
    Ok(())
}

/// Puts `field` at dotted `path` of a static mapping: `a.b` becomes `{a: {type: "document",
/// fields: {b: field}}}`, as the manual's static mappings nest documents.
fn insert_mapping(root: &mut Document, path: &str, field: Document) {
    match path.split_once('.') {
        None => {
            root.insert(path, field);
        }
        Some((first, rest)) => {
            let entry = root
                .entry(first.to_owned())
                .or_insert_with(|| Bson::Document(bson::doc! { "type": "document", "fields": {} }));
            if let Bson::Document(parent) = entry {
                if !matches!(parent.get("fields"), Some(Bson::Document(_))) {
                    parent.insert("fields", Document::new());
                }
                if let Some(Bson::Document(fields)) = parent.get_mut("fields") {
                    insert_mapping(fields, rest, field);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;

    // The manual's vectorSearch index fields: numDimensions up to 8192, similarity one of
    // euclidean, cosine, dotProduct; quantization none, scalar or binary.
    #[test]
    fn vector_definitions_are_checked_as_the_service_does() {
        let ok = SearchIndexSpec::vector("v", VectorField::new("e", 3, "cosine"), ["s"]);
        assert!(ok.check("c").is_ok());
        for (field, wanted) in [
            (VectorField::new("e", 0, "cosine"), "numDimensions"),
            (VectorField::new("e", 8193, "cosine"), "numDimensions"),
            (VectorField::new("e", 3, "cosinus"), "similarity"),
            (
                VectorField::new("e", 3, "cosine").quantization("int4"),
                "quantization",
            ),
        ] {
            let error = SearchIndexSpec::vector("v", field, ["s"])
                .check("c")
                .unwrap_err()
                .to_string();
            assert!(error.contains(wanted), "{error}");
        }
        let no_vector = SearchIndexSpec::new(
            "v",
            SearchIndexType::VectorSearch,
            doc! { "fields": [{ "type": "filter", "path": "s" }] },
        );
        assert!(no_vector.check("c").is_err());
        let no_mappings = SearchIndexSpec::new("s", SearchIndexType::Search, doc! {});
        assert!(no_mappings.check("c").is_err());
    }

    #[test]
    fn static_mappings_nest_dotted_paths() {
        let index = SearchIndexSpec::static_mappings(
            "s",
            [
                ("title", doc! { "type": "string" }),
                ("author.name", doc! { "type": "string" }),
            ],
        );
        assert_eq!(
            index.definition,
            doc! { "mappings": { "dynamic": false, "fields": {
                "title": { "type": "string" },
                "author": { "type": "document", "fields": { "name": { "type": "string" } } },
            } } }
        );
    }

    #[test]
    fn listed_entries_keep_status_and_the_latest_definition() {
        let listed = SearchIndexSpec::from_listed(&doc! {
            "id": "6524096020da840844a4c4a7", "name": "default", "status": "BUILDING",
            "queryable": false, "latestDefinitionVersion": { "version": 0 },
            "latestDefinition": { "mappings": { "dynamic": true } },
        })
        .unwrap();
        assert_eq!(listed.index_type, SearchIndexType::Search);
        assert_eq!(listed.status.as_deref(), Some("BUILDING"));
        assert_eq!(listed.queryable, Some(false));
        assert_eq!(listed.definition, doc! { "mappings": { "dynamic": true } });
        let round = SearchIndexSpec::from_document(&listed.to_document()).unwrap();
        assert_eq!(round.definition, listed.definition);
        assert!(SearchIndexSpec::from_document(&doc! { "name": "x" }).is_err());
    }
}
