//! Declared queries: what a collection's code asks of it (filter, sort, projection), and their
//! registration by the derive.

use std::collections::BTreeMap;

use bson::{Bson, Document, doc};

use super::search::SearchStage;
use crate::generate::{MongoSchema, PathError};
use crate::spec::DocumentError;
use crate::spec::IndexKind;
use crate::spec::read;

/// The direction of one sort field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// `1`.
    Ascending,
    /// `-1`.
    Descending,
}

impl Direction {
    /// The other direction.
    pub fn reversed(self) -> Direction {
        match self {
            Direction::Ascending => Direction::Descending,
            Direction::Descending => Direction::Ascending,
        }
    }

    /// The value in a sort or key document: `1` or `-1`.
    pub fn to_bson(self) -> Bson {
        match self {
            Direction::Ascending => Bson::Int32(1),
            Direction::Descending => Bson::Int32(-1),
        }
    }

    /// The index kind with this direction.
    pub fn to_index_kind(self) -> IndexKind {
        match self {
            Direction::Ascending => IndexKind::Ascending,
            Direction::Descending => IndexKind::Descending,
        }
    }

    /// The direction of an ascending or descending index field; `None` for the other kinds.
    pub fn from_index_kind(kind: &IndexKind) -> Option<Direction> {
        match kind {
            IndexKind::Ascending => Some(Direction::Ascending),
            IndexKind::Descending => Some(Direction::Descending),
            _ => None,
        }
    }
}

/// The fields a query returns: `{field: 1, ...}`, with `_id` unless excluded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Projection {
    /// Included paths (stored names, dotted).
    pub fields: Vec<String>,
    /// Whether `_id` is returned: the server's default is yes.
    pub include_id: bool,
}

impl Projection {
    /// The projection document: `{a: 1, b: 1}` plus `_id: 0` when `_id` is excluded.
    pub fn to_document(&self) -> Document {
        let mut d: Document = self
            .fields
            .iter()
            .map(|f| (f.clone(), Bson::Int32(1)))
            .collect();
        if !self.include_id && !self.fields.iter().any(|f| f == "_id") {
            d.insert("_id", 0);
        }
        d
    }
}

/// One declared access pattern: the shape of a query the application runs, without its values.
///
/// Paths are stored names, dotted (`customer.id`), as the server sees them; a declaration written
/// with Rust field names goes through [`QuerySpec::resolve`]. `filter` is a condition the query
/// always includes, with its values (a discriminator such as `{type: "BOOK"}`), written as a
/// server query document with stored names: it decides whether a partial index can be used.
///
/// ```
/// use mongo_schema::access::{Direction, QuerySpec};
/// let recent = QuerySpec::new("recent_orders_of_user")
///     .eq("user_id")
///     .sort("created_at", Direction::Descending)
///     .range("total")
///     .project(["created_at", "total"])
///     .without_id()
///     .frequency("200/s");
/// assert_eq!(recent.equality, ["user_id"]);
/// assert_eq!(recent.projection.unwrap().to_document(), bson::doc! { "created_at": 1, "total": 1, "_id": 0 });
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuerySpec {
    /// A name unique within the collection, used in reports.
    pub name: String,
    /// Fields compared for equality (`{field: value}`), in declaration order.
    pub equality: Vec<String>,
    /// Sort fields with their directions, in order.
    pub sort: Vec<(String, Direction)>,
    /// Fields compared by range (`$gt`, `$gte`, `$lt`, `$lte`).
    pub range: Vec<String>,
    /// The fields returned; `None` returns whole documents.
    pub projection: Option<Projection>,
    /// How often the query runs (`"200/s"`, `"5 per minute"`): free text for reports.
    pub frequency: Option<String>,
    /// A condition the query always includes, with its values (a discriminator, a status).
    pub filter: Option<Document>,
    /// A limit the query always has.
    pub limit: Option<i64>,
    /// The `$search` or `$vectorSearch` stage the query runs on a search index; such a query
    /// is checked against the search indexes, never the B-tree planner.
    pub search_stage: Option<SearchStage>,
}

impl QuerySpec {
    /// A query named `name` with no field yet.
    pub fn new(name: impl Into<String>) -> QuerySpec {
        QuerySpec {
            name: name.into(),
            ..QuerySpec::default()
        }
    }

    /// Adds an equality field.
    pub fn eq(mut self, path: impl Into<String>) -> QuerySpec {
        self.equality.push(path.into());
        self
    }

    /// Adds a sort field.
    pub fn sort(mut self, path: impl Into<String>, direction: Direction) -> QuerySpec {
        self.sort.push((path.into(), direction));
        self
    }

    /// Adds an ascending sort field.
    pub fn sort_asc(self, path: impl Into<String>) -> QuerySpec {
        self.sort(path, Direction::Ascending)
    }

    /// Adds a descending sort field.
    pub fn sort_desc(self, path: impl Into<String>) -> QuerySpec {
        self.sort(path, Direction::Descending)
    }

    /// Adds a sort field written as a sort key: `-created_at` is descending, `created_at` or
    /// `+created_at` ascending (a short form for generated code).
    ///
    /// ```
    /// use mongo_schema::access::{Direction, QuerySpec};
    /// let q = QuerySpec::new("q").sort_key("-created_at").sort_key("name");
    /// assert_eq!(q.sort, [("created_at".into(), Direction::Descending), ("name".into(), Direction::Ascending)]);
    /// ```
    pub fn sort_key(self, key: &str) -> QuerySpec {
        match key.strip_prefix('-') {
            Some(path) => self.sort(path, Direction::Descending),
            None => self.sort(key.strip_prefix('+').unwrap_or(key), Direction::Ascending),
        }
    }

    /// Adds a range field.
    pub fn range(mut self, path: impl Into<String>) -> QuerySpec {
        self.range.push(path.into());
        self
    }

    /// Returns only `fields` (and `_id`, unless [`QuerySpec::without_id`] follows).
    pub fn project<P: Into<String>>(mut self, fields: impl IntoIterator<Item = P>) -> QuerySpec {
        self.projection = Some(Projection {
            fields: fields.into_iter().map(Into::into).collect(),
            include_id: true,
        });
        self
    }

    /// Excludes `_id` from the projection. Without [`QuerySpec::project`] the projection is
    /// `{_id: 0}`: every field but `_id`, which no index covers.
    pub fn without_id(mut self) -> QuerySpec {
        self.projection
            .get_or_insert_with(Projection::default)
            .include_id = false;
        self
    }

    /// Sets the expected frequency (free text).
    pub fn frequency(mut self, frequency: impl Into<String>) -> QuerySpec {
        self.frequency = Some(frequency.into());
        self
    }

    /// Sets the condition the query always includes (stored names, with values).
    pub fn filter(mut self, filter: Document) -> QuerySpec {
        self.filter = Some(filter);
        self
    }

    /// Sets the limit the query always has.
    pub fn limit(mut self, limit: i64) -> QuerySpec {
        self.limit = Some(limit);
        self
    }

    /// Runs the query as `$search` with the `text` operator over `paths` on the search index
    /// `index`.
    pub fn search<P: Into<String>>(
        mut self,
        index: impl Into<String>,
        paths: impl IntoIterator<Item = P>,
    ) -> QuerySpec {
        self.search_stage = Some(SearchStage::Search {
            index: index.into(),
            paths: paths.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// Runs the query as `$vectorSearch` on `path` of the vector search index `index`, its
    /// `filter` comparing `filters`.
    pub fn vector_search<P: Into<String>>(
        mut self,
        index: impl Into<String>,
        path: impl Into<String>,
        filters: impl IntoIterator<Item = P>,
    ) -> QuerySpec {
        self.search_stage = Some(SearchStage::VectorSearch {
            index: index.into(),
            path: path.into(),
            filters: filters.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// The same query with its equality, sort, range and projection paths written as Rust
    /// field paths (`customer.id`) resolved to stored names through `T::field_path` (serde
    /// renames, embedded documents, array elements). `_id` stays `_id` when `T` has no field of
    /// that name (the server adds it to every document). `filter` is already a server document
    /// and is kept as written.
    ///
    /// # Errors
    /// [`PathError`] for the first path naming no field of `T`, with the nearest names.
    pub fn resolve<T: MongoSchema + ?Sized>(&self) -> Result<QuerySpec, PathError> {
        let one = |path: &str| -> Result<String, PathError> {
            let segments: Vec<&str> = path.split('.').collect();
            match T::field_path(&segments) {
                Ok(stored) => Ok(stored.join(".")),
                Err(_) if path == "_id" => Ok(path.to_owned()),
                Err(e) => Err(e),
            }
        };
        let all = |paths: &[String]| -> Result<Vec<String>, PathError> {
            paths.iter().map(|p| one(p)).collect()
        };
        let mut out = self.clone();
        out.equality = all(&self.equality)?;
        out.range = all(&self.range)?;
        out.sort = self
            .sort
            .iter()
            .map(|(p, d)| Ok((one(p)?, *d)))
            .collect::<Result<_, PathError>>()?;
        if let Some(projection) = &mut out.projection {
            projection.fields = all(&projection.fields)?;
        }
        out.search_stage = match &self.search_stage {
            None => None,
            Some(SearchStage::Search { index, paths }) => Some(SearchStage::Search {
                index: index.clone(),
                paths: all(paths)?,
            }),
            Some(SearchStage::VectorSearch {
                index,
                path,
                filters,
            }) => Some(SearchStage::VectorSearch {
                index: index.clone(),
                path: one(path)?,
                filters: all(filters)?,
            }),
        };
        Ok(out)
    }

    /// The declaration as a manifest document, in a fixed key order, leaving out what is unset:
    /// `{name, equality: [..], sort: {path: 1 | -1}, range: [..], projection: {path: 1, _id: 0},
    /// filter, limit, frequency}`, and a search query's stage under its name (`$search:
    /// {index, path: [..]}` or `$vectorSearch: {index, path, filter: [..]}`).
    ///
    /// ```
    /// use mongo_schema::access::QuerySpec;
    /// let query = QuerySpec::new("by_user").eq("user_id").sort_desc("created_at").limit(20);
    /// let doc = query.to_document();
    /// assert_eq!(
    ///     doc,
    ///     bson::doc! {
    ///         "name": "by_user", "equality": ["user_id"], "sort": { "created_at": -1 }, "limit": 20_i64,
    ///     },
    /// );
    /// assert_eq!(QuerySpec::from_document(&doc)?, query);
    /// # Ok::<(), mongo_schema::spec::DocumentError>(())
    /// ```
    pub fn to_document(&self) -> Document {
        let mut d = doc! { "name": &self.name };
        if !self.equality.is_empty() {
            d.insert("equality", self.equality.clone());
        }
        if !self.sort.is_empty() {
            let sort: Document = self
                .sort
                .iter()
                .map(|(p, dir)| (p.clone(), dir.to_bson()))
                .collect();
            d.insert("sort", sort);
        }
        if !self.range.is_empty() {
            d.insert("range", self.range.clone());
        }
        if let Some(projection) = &self.projection {
            d.insert("projection", projection.to_document());
        }
        if let Some(filter) = &self.filter {
            d.insert("filter", filter.clone());
        }
        if let Some(limit) = self.limit {
            d.insert("limit", limit);
        }
        if let Some(frequency) = &self.frequency {
            d.insert("frequency", frequency.clone());
        }
        if let Some(stage) = &self.search_stage {
            let (key, value) = stage.to_manifest();
            d.insert(key, value);
        }
        d
    }

    /// Reads the manifest form written by [`QuerySpec::to_document`]. Numbers are read by
    /// value (`-1.0` is descending); a projection excluding a field other than `_id` is refused
    /// (only inclusion projections are modelled).
    ///
    /// # Errors
    /// [`DocumentError`] naming the field that is missing or of the wrong shape.
    pub fn from_document(doc: &Document) -> Result<QuerySpec, DocumentError> {
        let strings = |key: &str| -> Result<Vec<String>, DocumentError> {
            match doc.get(key) {
                None => Ok(Vec::new()),
                Some(Bson::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| read::string(&format!("{key}[{i}]"), v))
                    .collect(),
                Some(other) => Err(DocumentError::expected(key, "an array of paths", other)),
            }
        };
        let name = match doc.get("name") {
            Some(v) => read::string("name", v)?,
            None => return Err(DocumentError::missing("name")),
        };
        let mut query = QuerySpec::new(name);
        query.equality = strings("equality")?;
        query.range = strings("range")?;
        if let Some(v) = doc.get("sort") {
            for (path, value) in read::document("sort", v)? {
                // 1 and -1 by value, as in a key pattern.
                let direction = Direction::from_index_kind(&IndexKind::from_bson(path, value))
                    .ok_or_else(|| {
                        DocumentError::expected(&format!("sort.{path}"), "1 or -1", value)
                    })?;
                query.sort.push((path.clone(), direction));
            }
        }
        if let Some(v) = doc.get("projection") {
            let mut projection = Projection {
                fields: Vec::new(),
                include_id: true,
            };
            for (path, value) in read::document("projection", v)? {
                let at = format!("projection.{path}");
                let included = read::truthy(&at, value)?;
                match (path.as_str(), included) {
                    ("_id", included) => projection.include_id = included,
                    (_, true) => projection.fields.push(path.clone()),
                    (_, false) => {
                        return Err(DocumentError::expected(&at, "an included field (1)", value));
                    }
                }
            }
            query.projection = Some(projection);
        }
        if let Some(v) = doc.get("filter") {
            query.filter = Some(read::document("filter", v)?.clone());
        }
        if let Some(v) = doc.get("limit") {
            query.limit = Some(
                read::whole_seconds(v)
                    .ok_or_else(|| DocumentError::expected("limit", "a whole number", v))?,
            );
        }
        if let Some(v) = doc.get("frequency") {
            query.frequency = Some(read::string("frequency", v)?);
        }
        query.search_stage = SearchStage::from_manifest(doc)?;
        Ok(query)
    }

    /// Whether the query has no equality, range, filter, sort or search stage: it reads the
    /// whole collection by design and no index can serve it.
    pub fn is_unbounded(&self) -> bool {
        self.search_stage.is_none()
            && self.equality.is_empty()
            && self.range.is_empty()
            && self.sort.is_empty()
            && self.filter.as_ref().is_none_or(Document::is_empty)
    }
}

/// [`QuerySpec::resolve`] for each query, in order.
///
/// # Errors
/// The first [`PathError`].
pub fn resolve_all<T: MongoSchema + ?Sized>(
    queries: &[QuerySpec],
) -> Result<Vec<QuerySpec>, PathError> {
    queries.iter().map(QuerySpec::resolve::<T>).collect()
}

/// The declared queries of one collection root, as a derive submits them through `inventory`:
///
/// ```text
/// ::mongo_schema::__private::inventory::submit! {
///     ::mongo_schema::access::QueryRegistration::new("orders", || Ok(vec![
///         ::mongo_schema::access::QuerySpec::new("by_user").eq("user_id").resolve::<Order>()?,
///     ]))
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct QueryRegistration {
    collection: &'static str,
    queries: fn() -> Result<Vec<QuerySpec>, PathError>,
}

impl QueryRegistration {
    /// The queries `queries` builds for `collection`.
    pub const fn new(
        collection: &'static str,
        queries: fn() -> Result<Vec<QuerySpec>, PathError>,
    ) -> QueryRegistration {
        QueryRegistration {
            collection,
            queries,
        }
    }
}

inventory::collect!(QueryRegistration);

/// Every registered collection's declared queries, by collection name.
///
/// # Errors
/// The first [`PathError`] of a declaration whose path names no field.
pub fn registered_queries() -> Result<BTreeMap<String, Vec<QuerySpec>>, PathError> {
    let mut out: BTreeMap<String, Vec<QuerySpec>> = BTreeMap::new();
    for registration in inventory::iter::<QueryRegistration> {
        out.entry(registration.collection.to_owned())
            .or_default()
            .extend((registration.queries)()?);
    }
    Ok(out)
}
