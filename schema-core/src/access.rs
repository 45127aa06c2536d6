//! Access patterns: declared queries ([`QuerySpec`]) checked against a collection's indexes.
//!
//! Declarations (the derive, or hand-written code) build `QuerySpec`s; [`coverage`] and [`lint`]
//! judge them statically against a [`CollectionSpec`]'s indexes by the server's index-selection
//! rules; [`explain_command`] and [`ExplainSummary`] confirm them on a live deployment.
//!
//! # The rules, and the manual pages they come from
//! - "The ESR (Equality, Sort, Range) Guideline": an index serves a query best when its leading
//!   fields are the equality fields (in any order), then the sort fields, then the range fields.
//! - "Use Indexes to Sort Query Results": an index provides a sort when the sort fields follow
//!   each other in the key pattern, each in the declared direction or each reversed (the index is
//!   scanned backwards), after leading fields that the query fixes by equality; otherwise the
//!   plan has a blocking, in-memory `SORT` stage.
//! - "Multikey Indexes": a sort on a field holding arrays is always a blocking sort (since 3.6), and
//!   an index cannot cover a query over an array field.
//! - "Covered Queries": an index covers a query when every field the query filters, sorts and
//!   returns is an index key, and `_id` is excluded from the projection or is itself a key.
//! - "Partial Indexes": the planner uses a partial index only when the query's condition implies
//!   the `partialFilterExpression`.
//! - "Hashed Indexes": a hashed field supports equality only; "Text Indexes" and the geospatial
//!   indexes (`2d`, `2dsphere`, sparse by construction) serve only their own query operators,
//!   which declared queries do not model; "Sparse Indexes": the planner uses a sparse index only
//!   when the query's condition excludes documents missing the field; a hidden index is not
//!   considered by the planner at all.
//!
//! Values of declared equality and range fields are not known statically; they are assumed not
//! to be `null`, so each such field implies `$exists: true`.
//!
//! Not modelled (the live `explain` is the check for these): collation (a string comparison
//! uses an index only when the query's collation is the index's), `$in` and `$or` shapes, index
//! intersection, geospatial and text operators, and the planner's choice among several serving
//! indexes (the best one here is ranked by the rules above, not by the server's trial runs).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use bson::{Bson, Document, doc};

use crate::collection::read;
use crate::collection::{CollectionSpec, DocumentError};
use crate::generate::{MongoSchema, PathError};
use crate::index::{IndexKeys, IndexKind, IndexSpec, is_wildcard_path};
use crate::normalize::values_equal;
use crate::schema::{Additional, BsonType, Items, JsonSchema};

// ---------------------------------------------------------------------------------------------
// Declared queries.

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
        Ok(out)
    }

    /// The declaration as a manifest document, in a fixed key order, leaving out what is unset:
    /// `{name, equality: [..], sort: {path: 1 | -1}, range: [..], projection: {path: 1, _id: 0},
    /// filter, limit, frequency}`.
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
    /// # Ok::<(), mongo_schema::collection::DocumentError>(())
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
        Ok(query)
    }

    /// Whether the query has no equality, range, filter or sort: it reads the whole collection
    /// by design and no index can serve it.
    pub fn is_unbounded(&self) -> bool {
        self.equality.is_empty()
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

// ---------------------------------------------------------------------------------------------
// Multikey paths.

/// Paths that may hold arrays: an index over them is multikey ("Multikey Indexes").
///
/// A path is multikey when it or one of its dotted prefixes is in the set (`items.sku` is
/// multikey when `items` is an array of documents).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MultikeyPaths(BTreeSet<String>);

impl MultikeyPaths {
    /// No path holds arrays.
    pub fn none() -> MultikeyPaths {
        MultikeyPaths::default()
    }

    /// The given array paths (stored names, dotted).
    pub fn new<P: Into<String>>(paths: impl IntoIterator<Item = P>) -> MultikeyPaths {
        MultikeyPaths(paths.into_iter().map(Into::into).collect())
    }

    /// The properties a `$jsonSchema` allows to be arrays (`bsonType` or `type` naming `array`),
    /// through embedded documents, array elements and `allOf`/`anyOf`/`oneOf` branches. A
    /// property with no type constraint is not counted: the schema does not say it is an array.
    ///
    /// ```
    /// use mongo_schema::access::MultikeyPaths;
    /// use mongo_schema::{MongoSchema, SchemaGenerator, generate::object};
    /// let mut schema = object();
    /// schema.properties.insert("tags".into(), <Vec<String>>::json_schema(&mut SchemaGenerator::default()));
    /// schema.properties.insert("name".into(), String::json_schema(&mut SchemaGenerator::default()));
    /// let multikey = MultikeyPaths::from_schema(&schema);
    /// assert!(multikey.is_multikey("tags"));
    /// assert!(!multikey.is_multikey("name"));
    /// ```
    pub fn from_schema(schema: &JsonSchema) -> MultikeyPaths {
        let mut found = BTreeSet::new();
        collect_arrays(schema, "", &mut found, 0);
        MultikeyPaths(found)
    }

    /// The array paths of a collection's `$jsonSchema` validator; none when it has no schema.
    pub fn from_collection(spec: &CollectionSpec) -> MultikeyPaths {
        let Some(validator) = &spec.validator else {
            return MultikeyPaths::none();
        };
        if let Some(schema) = &validator.json_schema {
            return MultikeyPaths::from_schema(schema);
        }
        match validator.parse() {
            Ok(parsed) => parsed
                .schema
                .as_ref()
                .map(MultikeyPaths::from_schema)
                .unwrap_or_default(),
            Err(_) => MultikeyPaths::none(),
        }
    }

    /// Whether `path` or one of its prefixes may hold an array.
    pub fn is_multikey(&self, path: &str) -> bool {
        self.0.iter().any(|m| is_same_or_under(path, m))
    }

    /// The array paths, sorted.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}

/// Depth bound for schemas: validators the server accepts nest far less deeply.
const MAX_SCHEMA_DEPTH: usize = 64;

fn collect_arrays(schema: &JsonSchema, path: &str, found: &mut BTreeSet<String>, depth: usize) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    if !path.is_empty()
        && schema
            .allowed_types()
            .is_some_and(|t| t.contains(&BsonType::Array))
    {
        found.insert(path.to_owned());
    }
    // Dot notation reaches into array elements without a segment of its own.
    match &schema.items {
        Some(Items::Single(items)) => collect_arrays(items, path, found, depth + 1),
        Some(Items::Positional(list)) => {
            for items in list {
                collect_arrays(items, path, found, depth + 1);
            }
        }
        None => {}
    }
    if let Some(Additional::Schema(extra)) = &schema.additional_items {
        collect_arrays(extra, path, found, depth + 1);
    }
    for (name, property) in &schema.properties {
        let child = if path.is_empty() {
            name.clone()
        } else {
            format!("{path}.{name}")
        };
        collect_arrays(property, &child, found, depth + 1);
    }
    for branch in [&schema.all_of, &schema.any_of, &schema.one_of]
        .into_iter()
        .flatten()
        .flatten()
    {
        collect_arrays(branch, path, found, depth + 1);
    }
}

fn is_same_or_under(path: &str, prefix: &str) -> bool {
    path == prefix
        || (path.len() > prefix.len()
            && path.starts_with(prefix)
            && path.as_bytes()[prefix.len()] == b'.')
}

// ---------------------------------------------------------------------------------------------
// What a query asserts: the facts partial filters are judged against.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Gt,
    Gte,
    Lt,
    Lte,
}

impl Cmp {
    fn from_operator(op: &str) -> Option<Cmp> {
        match op {
            "$gt" => Some(Cmp::Gt),
            "$gte" => Some(Cmp::Gte),
            "$lt" => Some(Cmp::Lt),
            "$lte" => Some(Cmp::Lte),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
enum Fact {
    /// `{path: value}` or `{path: {$eq: value}}`.
    Equals(Bson),
    /// `{path: {$exists: bool}}`.
    Exists(bool),
    /// A declared equality or range field: some non-null value, unknown.
    NonNull,
    /// `{path: {$gt: value}}` and the like.
    Bound(Cmp, Bson),
    /// Any other condition (`$in`, `$type`, ...): the field is filtered, nothing is provable.
    Other,
}

/// The shape of one query as the index rules see it.
struct Shape {
    /// Declared equality fields.
    equality: Vec<String>,
    /// Declared and filter equality fields.
    eq_all: BTreeSet<String>,
    /// Declared range fields.
    range: Vec<String>,
    /// Declared and filter range fields.
    range_all: BTreeSet<String>,
    /// Sort fields not fixed by an equality.
    sort: Vec<(String, Direction)>,
    /// Every field the query filters on, declared or in `filter`.
    filtered: BTreeSet<String>,
    /// What the query asserts, by path.
    facts: Vec<(String, Fact)>,
    /// Equality fields of `filter`, in order.
    filter_eq: Vec<String>,
    /// Range fields of `filter`, in order.
    filter_range: Vec<String>,
}

impl Shape {
    fn of(query: &QuerySpec) -> Shape {
        let mut shape = Shape {
            equality: dedup(&query.equality),
            eq_all: BTreeSet::new(),
            range: dedup(&query.range),
            range_all: BTreeSet::new(),
            sort: Vec::new(),
            filtered: BTreeSet::new(),
            facts: Vec::new(),
            filter_eq: Vec::new(),
            filter_range: Vec::new(),
        };
        for path in &shape.equality {
            shape.facts.push((path.clone(), Fact::NonNull));
        }
        for path in &shape.range {
            shape.facts.push((path.clone(), Fact::NonNull));
        }
        if let Some(filter) = &query.filter {
            collect_facts(filter, &mut shape.facts);
        }
        shape.eq_all.extend(shape.equality.iter().cloned());
        shape.range_all.extend(shape.range.iter().cloned());
        for (path, fact) in &shape.facts {
            shape.filtered.insert(path.clone());
            match fact {
                Fact::Equals(v)
                    if !matches!(v, Bson::RegularExpression(_))
                        && shape.eq_all.insert(path.clone()) =>
                {
                    shape.filter_eq.push(path.clone());
                }
                Fact::Bound(..)
                    if !shape.eq_all.contains(path) && shape.range_all.insert(path.clone()) =>
                {
                    shape.filter_range.push(path.clone());
                }
                _ => {}
            }
        }
        let mut seen = BTreeSet::new();
        for (path, direction) in &query.sort {
            if !shape.eq_all.contains(path) && seen.insert(path.clone()) {
                shape.sort.push((path.clone(), *direction));
            }
        }
        shape
    }

    fn has_predicates(&self) -> bool {
        !self.eq_all.is_empty() || !self.range_all.is_empty()
    }
}

fn dedup(paths: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    paths
        .iter()
        .filter(|p| seen.insert((*p).clone()))
        .cloned()
        .collect()
}

fn is_operator_document(value: &Bson) -> Option<&Document> {
    match value {
        Bson::Document(d) if !d.is_empty() && d.keys().all(|k| k.starts_with('$')) => Some(d),
        _ => None,
    }
}

/// The facts a filter document asserts: top-level field conditions and `$and` branches.
/// Operators it cannot reason about (`$in`, `$or`, `$type`, ...) assert nothing here.
fn collect_facts(filter: &Document, facts: &mut Vec<(String, Fact)>) {
    for (key, value) in filter {
        if key == "$and" {
            if let Bson::Array(branches) = value {
                for branch in branches {
                    if let Bson::Document(d) = branch {
                        collect_facts(d, facts);
                    }
                }
            }
            continue;
        }
        if key.starts_with('$') {
            continue;
        }
        match is_operator_document(value) {
            Some(ops) => {
                for (op, operand) in ops {
                    let fact = match op.as_str() {
                        "$eq" => Some(Fact::Equals(operand.clone())),
                        "$exists" => read::truthy(op, operand).ok().map(Fact::Exists),
                        other => Cmp::from_operator(other).map(|c| Fact::Bound(c, operand.clone())),
                    };
                    // An operator with nothing provable still names a field the query filters.
                    facts.push((key.clone(), fact.unwrap_or(Fact::Other)));
                }
            }
            None => facts.push((key.clone(), Fact::Equals(value.clone()))),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Partial filter implication ("Partial Indexes": the query must imply the filter).

/// Whether a query asserting `facts` certainly matches only documents that `filter` matches, so
/// that a partial index with this `partialFilterExpression` holds every document the query can
/// return.
///
/// Proven cases: equality (`{f: v}`, `$eq`), `$exists: true` (implied by an equality on a
/// non-null value, a range, or a declared field), `$exists: false`, and `$gt`/`$gte`/`$lt`/`$lte`
/// on the same field (implied by a tighter or equal bound, or an equality inside the range, of
/// comparable type); `$and` of implied branches; `$or` with one implied branch. Anything else
/// cannot be proven and counts as not implied.
fn implies(facts: &[(String, Fact)], filter: &Document) -> bool {
    filter.iter().all(|(key, value)| match key.as_str() {
        "$and" => branches(value).is_some_and(|b| b.iter().all(|d| implies(facts, d))),
        "$or" => branches(value).is_some_and(|b| b.iter().any(|d| implies(facts, d))),
        k if k.starts_with('$') => false,
        path => match is_operator_document(value) {
            Some(ops) => ops
                .iter()
                .all(|(op, operand)| implies_condition(facts, path, op, operand)),
            None => implies_condition(facts, path, "$eq", value),
        },
    })
}

fn branches(value: &Bson) -> Option<Vec<&Document>> {
    match value {
        Bson::Array(items) if !items.is_empty() => items.iter().map(Bson::as_document).collect(),
        _ => None,
    }
}

fn implies_condition(facts: &[(String, Fact)], path: &str, op: &str, operand: &Bson) -> bool {
    let on_path = || facts.iter().filter(move |(p, _)| p == path).map(|(_, f)| f);
    match op {
        "$eq" => on_path().any(|f| matches!(f, Fact::Equals(v) if values_equal(v, operand))),
        "$exists" => match read::truthy(op, operand) {
            Ok(true) => on_path().any(|f| match f {
                Fact::NonNull | Fact::Exists(true) => true,
                Fact::Equals(v) | Fact::Bound(_, v) => !matches!(v, Bson::Null),
                Fact::Exists(false) | Fact::Other => false,
            }),
            Ok(false) => on_path().any(|f| matches!(f, Fact::Exists(false))),
            Err(_) => false,
        },
        other => match Cmp::from_operator(other) {
            Some(need) => on_path().any(|f| bound_implies(f, need, operand)),
            None => false,
        },
    }
}

/// Whether the fact `f` on a field implies `field <need> v`.
fn bound_implies(f: &Fact, need: Cmp, v: &Bson) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (have, w) = match f {
        Fact::Bound(c, w) => (Some(*c), w),
        Fact::Equals(w) => (None, w),
        _ => return false,
    };
    let Some(order) = compare(w, v) else {
        return false;
    };
    match (need, have) {
        // field > v: from field > w >= v, field >= w > v, field = w > v.
        (Cmp::Gt, Some(Cmp::Gt)) => order != Less,
        (Cmp::Gt, Some(Cmp::Gte) | None) => order == Greater,
        (Cmp::Gte, Some(Cmp::Gt | Cmp::Gte) | None) => order != Less,
        (Cmp::Lt, Some(Cmp::Lt)) => order != Greater,
        (Cmp::Lt, Some(Cmp::Lte) | None) => order == Less,
        (Cmp::Lte, Some(Cmp::Lt | Cmp::Lte) | None) => matches!(order, Less | Equal),
        _ => false,
    }
}

/// Orders two values of one comparable kind (numbers by value, strings by bytes as the simple
/// collation does, dates); `None` across kinds, where a range never matches (type bracketing).
fn compare(a: &Bson, b: &Bson) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Bson::String(x), Bson::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Bson::DateTime(x), Bson::DateTime(y)) => Some(x.cmp(y)),
        (Bson::Timestamp(x), Bson::Timestamp(y)) => {
            Some((x.time, x.increment).cmp(&(y.time, y.increment)))
        }
        (Bson::ObjectId(x), Bson::ObjectId(y)) => Some(x.bytes().cmp(&y.bytes())),
        _ => {
            let (x, y) = (read::number(a)?, read::number(b)?);
            x.partial_cmp(&y)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Coverage of one query by a set of indexes.

/// How one index serves one query.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexUse {
    /// The index name (explicit or default).
    pub index: String,
    /// The index's key pattern.
    pub keys: IndexKeys,
    /// How many leading key fields the query fixes by equality (point bounds).
    pub equality_prefix: usize,
    /// Whether a range field bounds the scan right after the equality prefix.
    pub range_bounded: bool,
    /// Whether the plan needs a blocking, in-memory sort ("Use Indexes to Sort Query Results").
    pub in_memory_sort: bool,
    /// Whether the index is scanned backwards to give the sort (every sort direction reversed).
    pub reverse_scan: bool,
    /// Whether the index covers the query ("Covered Queries"): no document is fetched.
    pub covered: bool,
    /// Whether the key pattern starts with every equality field, then the sort fields, then the
    /// range fields ("The ESR (Equality, Sort, Range) Guideline").
    pub follows_esr: bool,
}

/// Which indexes serve a declared query, and how well.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// The query's name.
    pub query: String,
    /// The indexes that serve it, best first: no in-memory sort, ESR order, covering, longest
    /// equality prefix, range bounded, fewest keys.
    pub serving: Vec<IndexUse>,
    /// Partial indexes whose keys would serve the query but whose filter the query's condition
    /// does not imply, so the planner cannot use them ("Partial Indexes").
    pub partial_not_implied: Vec<String>,
    /// The index to add, in ESR order, when nothing serves the query or every serving index
    /// needs an in-memory sort; `None` when the query filters and sorts on nothing.
    pub suggested: Option<IndexSpec>,
    /// Whether the query declares a sort that no index provides.
    sorts: bool,
}

impl Coverage {
    /// Whether an index serves the query (the plan is not a collection scan).
    pub fn is_served(&self) -> bool {
        !self.serving.is_empty()
    }

    /// The best serving index.
    pub fn best(&self) -> Option<&IndexUse> {
        self.serving.first()
    }

    /// Whether even the best plan sorts in memory (a collection scan with a sort does).
    pub fn needs_in_memory_sort(&self) -> bool {
        match self.best() {
            Some(best) => best.in_memory_sort,
            None => self.sorts,
        }
    }

    /// Whether some serving index covers the query.
    pub fn is_covered(&self) -> bool {
        self.serving.iter().any(|u| u.covered)
    }
}

/// Which of `indexes` serve `query`, by the rules in this module's documentation.
///
/// `indexes` are all the indexes the planner may choose from: include `{_id: 1}` (the `_id_`
/// index every collection has) when `_id` queries should count as served; [`lint`] does.
/// `multikey` names the paths that hold arrays (see [`MultikeyPaths::from_schema`]).
///
/// ```
/// use mongo_schema::access::{coverage, Direction, MultikeyPaths, QuerySpec};
/// use mongo_schema::index::{IndexKind::*, IndexSpec};
/// let indexes = [IndexSpec::new([("user_id", Ascending), ("created_at", Descending)])];
/// let query = QuerySpec::new("recent").eq("user_id").sort("created_at", Direction::Ascending);
/// let found = coverage(&indexes, &query, &MultikeyPaths::none());
/// let best = found.best().expect("served");
/// assert_eq!(best.index, "user_id_1_created_at_-1");
/// assert!(best.reverse_scan && !best.in_memory_sort);
/// ```
pub fn coverage(indexes: &[IndexSpec], query: &QuerySpec, multikey: &MultikeyPaths) -> Coverage {
    let shape = Shape::of(query);
    let mut serving = Vec::new();
    let mut partial_not_implied = Vec::new();
    for index in indexes {
        let Some(usage) = judge(index, query, &shape, multikey) else {
            continue;
        };
        let implied = index
            .partial_filter_expression
            .as_ref()
            .is_none_or(|f| implies(&shape.facts, f));
        if implied {
            serving.push(usage);
        } else {
            partial_not_implied.push(usage.index);
        }
    }
    serving.sort_by_key(|u| {
        (
            u.in_memory_sort,
            !u.follows_esr,
            !u.covered,
            std::cmp::Reverse(u.equality_prefix),
            !u.range_bounded,
            u.keys.len(),
        )
    });
    let needs_better = serving.first().is_none_or(|b| b.in_memory_sort);
    // No suggestion an existing index already is (a sort over an array field, say, stays in
    // memory whatever the index): only a plain index the planner can always use counts.
    let suggested = esr_index(&shape).filter(|s| {
        needs_better
            && !indexes.iter().any(|i| {
                !i.hidden
                    && !i.sparse
                    && i.partial_filter_expression.is_none()
                    && i.keys.0.starts_with(&s.keys.0)
            })
    });
    Coverage {
        query: query.name.clone(),
        suggested,
        serving,
        partial_not_implied,
        sorts: !shape.sort.is_empty(),
    }
}

/// The index the ESR guideline gives for a query: its equality fields (declared, then those of
/// `filter`), then its sort fields in the declared directions, then its range fields; `None` for
/// a query that filters and sorts on nothing.
///
/// ```
/// use mongo_schema::access::{suggest_index, QuerySpec};
/// let query = QuerySpec::new("q").range("total").sort_desc("created_at").eq("status");
/// assert_eq!(
///     suggest_index(&query).unwrap().keys.to_document(),
///     bson::doc! { "status": 1, "created_at": -1, "total": 1 },
/// );
/// ```
pub fn suggest_index(query: &QuerySpec) -> Option<IndexSpec> {
    esr_index(&Shape::of(query))
}

fn esr_index(shape: &Shape) -> Option<IndexSpec> {
    let mut keys: Vec<(String, IndexKind)> = Vec::new();
    let mut push = |path: &String, kind: IndexKind| {
        if !keys.iter().any(|(p, _)| p == path) {
            keys.push((path.clone(), kind));
        }
    };
    for path in shape.equality.iter().chain(&shape.filter_eq) {
        push(path, IndexKind::Ascending);
    }
    for (path, direction) in &shape.sort {
        push(path, direction.to_index_kind());
    }
    for path in shape.range.iter().chain(&shape.filter_range) {
        push(path, IndexKind::Ascending);
    }
    (!keys.is_empty()).then(|| IndexSpec::new(keys))
}

/// Whether index key `key` holds values of query field `path`: the same path, or a wildcard
/// key whose prefix and projection admit it.
fn key_matches(index: &IndexSpec, key: &str, path: &str) -> bool {
    if key == path {
        return true;
    }
    if !is_wildcard_path(key) || path == "_id" {
        return false;
    }
    let prefix = key.trim_end_matches("$**").trim_end_matches('.');
    if !prefix.is_empty() && !is_same_or_under(path, prefix) {
        return false;
    }
    match &index.wildcard_projection {
        None => true,
        Some(projection) => {
            let included: Vec<&String> = projection
                .iter()
                .filter(|(k, v)| *k != "_id" && read::truthy(k, v).unwrap_or(false))
                .map(|(k, _)| k)
                .collect();
            if included.is_empty() {
                !projection
                    .keys()
                    .any(|k| k != "_id" && is_same_or_under(path, k))
            } else {
                included.iter().any(|k| is_same_or_under(path, k))
            }
        }
    }
}

/// How `index` serves the query when its keys can, ignoring its partial filter; `None` when
/// the planner would not use it for this query.
fn judge(
    index: &IndexSpec,
    query: &QuerySpec,
    shape: &Shape,
    multikey: &MultikeyPaths,
) -> Option<IndexUse> {
    let keys = &index.keys;
    let special = keys.iter().any(|(_, k)| {
        matches!(
            k,
            IndexKind::Text | IndexKind::TwoD | IndexKind::TwoDSphere | IndexKind::Other(_)
        )
    });
    if index.hidden || keys.is_empty() || special {
        return None;
    }
    // Leading keys fixed by equality, then at most one range bound.
    let mut used: BTreeSet<&str> = BTreeSet::new();
    let mut equality_prefix = 0;
    let mut range_bounded = false;
    for (key, kind) in keys.iter() {
        let eq = shape
            .eq_all
            .iter()
            .find(|p| !used.contains(p.as_str()) && key_matches(index, key, p));
        if let Some(path) = eq {
            used.insert(path);
            equality_prefix += 1;
            continue;
        }
        let ranged = shape.range_all.iter().any(|p| key_matches(index, key, p));
        // A hashed key orders hashes, not values: no range bounds on it ("Hashed Indexes").
        range_bounded = ranged && *kind != IndexKind::Hashed;
        break;
    }
    let bounded = equality_prefix > 0 || range_bounded;
    let sort = sort_order(index, shape, multikey);
    let provides_sort = shape.sort.is_empty() || sort.is_some();
    let serves = if shape.has_predicates() {
        bounded
    } else {
        // Sort only: a full index scan in order. A sparse index would miss documents.
        !shape.sort.is_empty() && sort.is_some() && !index.sparse
    };
    if !serves {
        return None;
    }
    Some(IndexUse {
        index: index.effective_name(),
        keys: keys.clone(),
        equality_prefix,
        range_bounded,
        in_memory_sort: !provides_sort,
        reverse_scan: sort == Some(true),
        covered: covers(index, query, shape, multikey),
        follows_esr: follows_esr(index, shape, multikey),
    })
}

/// Whether the index gives the query's sort order: `Some(reverse)` when it does (`reverse` when
/// scanned backwards), `None` when the plan needs a blocking sort.
fn sort_order(index: &IndexSpec, shape: &Shape, multikey: &MultikeyPaths) -> Option<bool> {
    if shape.sort.is_empty() {
        return Some(false);
    }
    let mut wanted = shape.sort.iter().peekable();
    let mut reverse: Option<bool> = None;
    for (key, kind) in index.keys.iter() {
        let Some((path, direction)) = wanted.peek() else {
            break;
        };
        if key == path {
            // "Multikey Indexes", Sorting: a sort over an array field is always a blocking sort.
            if multikey.is_multikey(path) {
                return None;
            }
            let have = Direction::from_index_kind(kind)?;
            let flipped = have != *direction;
            if *reverse.get_or_insert(flipped) != flipped {
                return None;
            }
            wanted.next();
        } else if !shape.eq_all.iter().any(|p| key_matches(index, key, p)) {
            // A key the query does not fix comes before the sort field.
            return None;
        }
    }
    if wanted.peek().is_some() {
        return None;
    }
    Some(reverse.unwrap_or(false))
}

fn follows_esr(index: &IndexSpec, shape: &Shape, multikey: &MultikeyPaths) -> bool {
    let keys: Vec<(&str, &IndexKind)> = index.keys.iter().collect();
    let mut i = 0;
    let mut fixed = BTreeSet::new();
    while i < keys.len() && shape.eq_all.contains(keys[i].0) {
        fixed.insert(keys[i].0);
        i += 1;
    }
    if !shape.equality.iter().all(|p| fixed.contains(p.as_str())) {
        return false;
    }
    let mut reverse = None;
    for (path, direction) in &shape.sort {
        let Some((key, kind)) = keys.get(i) else {
            return false;
        };
        let Some(have) = Direction::from_index_kind(kind) else {
            return false;
        };
        let flipped = have != *direction;
        if key != path || multikey.is_multikey(path) || *reverse.get_or_insert(flipped) != flipped {
            return false;
        }
        i += 1;
    }
    let sorted: BTreeSet<&str> = shape.sort.iter().map(|(p, _)| p.as_str()).collect();
    let mut ranges: BTreeSet<&str> = shape
        .range
        .iter()
        .map(String::as_str)
        .filter(|p| !fixed.contains(p) && !sorted.contains(p))
        .collect();
    while !ranges.is_empty() {
        let Some((key, kind)) = keys.get(i) else {
            return false;
        };
        if Direction::from_index_kind(kind).is_none() || !ranges.remove(key) {
            return false;
        }
        i += 1;
    }
    true
}

/// "Covered Queries": every field the query filters, sorts and returns is a plain (ascending or
/// descending) key, none holds arrays, and `_id` is excluded unless it is a key.
fn covers(index: &IndexSpec, query: &QuerySpec, shape: &Shape, multikey: &MultikeyPaths) -> bool {
    // No included field: whole documents (less `_id`) are returned.
    let Some(projection) = query.projection.as_ref().filter(|p| !p.fields.is_empty()) else {
        return false;
    };
    // "Covered Queries": a query comparing a field to null cannot be covered (the index holds
    // null for both a null and a missing field).
    if shape
        .facts
        .iter()
        .any(|(_, f)| matches!(f, Fact::Equals(Bson::Null)))
    {
        return false;
    }
    let plain = |path: &str| {
        index
            .keys
            .iter()
            .any(|(k, kind)| k == path && Direction::from_index_kind(kind).is_some())
            && !multikey.is_multikey(path)
    };
    let mut needed: BTreeSet<&str> = shape.filtered.iter().map(String::as_str).collect();
    needed.extend(query.sort.iter().map(|(p, _)| p.as_str()));
    needed.extend(projection.fields.iter().map(String::as_str));
    if projection.include_id {
        needed.insert("_id");
    }
    needed.into_iter().all(plain)
}

// ---------------------------------------------------------------------------------------------
// Lint: every declared query of a collection against its indexes.

/// How serious a finding is. `lint` exits 1 when any finding is an [`Severity::Error`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing (an index no declared query uses, a query not covered).
    Info,
    /// Costs at run time (an in-memory sort, a redundant index, an unusable partial index).
    Warning,
    /// A declared query that no index serves: a collection scan.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// What a finding is about.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FindingKind {
    /// No index serves the query: the server scans the collection. `suggested` is the ESR
    /// index to add.
    NoServingIndex {
        /// The index to add.
        suggested: Option<IndexSpec>,
    },
    /// The query filters and sorts on nothing: it reads the whole collection by design.
    UnboundedQuery,
    /// Every serving index leaves the sort to a blocking, in-memory `SORT` stage.
    InMemorySort {
        /// The best serving index.
        index: String,
        /// The ESR index that would give the sort.
        suggested: Option<IndexSpec>,
    },
    /// A projection is declared but no serving index covers it.
    NotCovered {
        /// The best serving index.
        index: String,
    },
    /// A partial index whose keys would serve the query, unusable because the query's
    /// condition does not imply its `partialFilterExpression`.
    PartialFilterNotImplied {
        /// The partial index.
        index: String,
        /// Its filter.
        partial_filter: Document,
    },
    /// An index no declared query uses: a candidate to drop.
    UnusedIndex {
        /// The index.
        index: String,
    },
    /// An index whose key pattern is a prefix of another's (or its reverse): the longer one
    /// serves every query the shorter one does.
    RedundantIndex {
        /// The redundant index.
        index: String,
        /// The index that makes it redundant.
        covered_by: String,
    },
}

impl FindingKind {
    /// A stable kebab-case name for machine-readable reports: `no-serving-index`,
    /// `unbounded-query`, `in-memory-sort`, `not-covered`, `partial-filter-not-implied`,
    /// `unused-index`, `redundant-index`.
    pub fn code(&self) -> &'static str {
        match self {
            FindingKind::NoServingIndex { .. } => "no-serving-index",
            FindingKind::UnboundedQuery => "unbounded-query",
            FindingKind::InMemorySort { .. } => "in-memory-sort",
            FindingKind::NotCovered { .. } => "not-covered",
            FindingKind::PartialFilterNotImplied { .. } => "partial-filter-not-implied",
            FindingKind::UnusedIndex { .. } => "unused-index",
            FindingKind::RedundantIndex { .. } => "redundant-index",
        }
    }

    /// The index the finding is about, if any (not the suggested one).
    pub fn index(&self) -> Option<&str> {
        match self {
            FindingKind::InMemorySort { index, .. }
            | FindingKind::NotCovered { index }
            | FindingKind::PartialFilterNotImplied { index, .. }
            | FindingKind::UnusedIndex { index }
            | FindingKind::RedundantIndex { index, .. } => Some(index),
            FindingKind::NoServingIndex { .. } | FindingKind::UnboundedQuery => None,
        }
    }

    /// The index to add, for a query no index serves well.
    pub fn suggested_index(&self) -> Option<&IndexSpec> {
        match self {
            FindingKind::NoServingIndex { suggested }
            | FindingKind::InMemorySort { suggested, .. } => suggested.as_ref(),
            _ => None,
        }
    }
}

/// One finding of [`lint`].
#[derive(Clone, Debug, PartialEq)]
pub struct AccessFinding {
    /// How serious it is.
    pub severity: Severity,
    /// The collection.
    pub collection: String,
    /// The declared query it is about, if any.
    pub query: Option<String>,
    /// What was found.
    pub kind: FindingKind,
}

impl AccessFinding {
    /// The finding as a document for JSON reports: `severity`, `code`, `collection`, then
    /// `query`, `index` and `suggestedIndex` (a `createIndexes` entry) when they apply, and the
    /// human `message`.
    ///
    /// ```
    /// use mongo_schema::access::{lint, QuerySpec};
    /// use mongo_schema::collection::CollectionSpec;
    /// let findings = lint(&CollectionSpec::new("users"), &[QuerySpec::new("by_email").eq("email")]);
    /// let d = findings[0].to_document();
    /// assert_eq!(d.get_str("code")?, "no-serving-index");
    /// assert_eq!(d.get_document("suggestedIndex")?.get_document("key")?, &bson::doc! { "email": 1 });
    /// # Ok::<(), bson::error::Error>(())
    /// ```
    pub fn to_document(&self) -> Document {
        let mut d = doc! {
            "severity": self.severity.to_string(),
            "code": self.kind.code(),
            "collection": &self.collection,
        };
        if let Some(query) = &self.query {
            d.insert("query", query);
        }
        if let Some(index) = self.kind.index() {
            d.insert("index", index);
        }
        if let Some(suggested) = self.kind.suggested_index() {
            d.insert("suggestedIndex", suggested.to_document());
        }
        d.insert("message", self.to_string());
        d
    }
}

impl fmt::Display for AccessFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.severity, self.collection)?;
        if let Some(query) = &self.query {
            write!(f, ": query {query:?}")?;
        }
        let suggestion = |s: &Option<IndexSpec>| match s {
            Some(index) => format!("; add the index {} (ESR order)", index.keys),
            None => String::new(),
        };
        match &self.kind {
            FindingKind::NoServingIndex { suggested } => write!(
                f,
                ": no index serves it, the server scans the collection{}",
                suggestion(suggested)
            ),
            FindingKind::UnboundedQuery => write!(
                f,
                ": filters and sorts on nothing, it reads the whole collection"
            ),
            FindingKind::InMemorySort { index, suggested } => write!(
                f,
                ": index {index:?} does not give the sort, the server sorts in memory{}",
                suggestion(suggested)
            ),
            FindingKind::NotCovered { index } => write!(
                f,
                ": index {index:?} does not cover the projection, documents are fetched"
            ),
            FindingKind::PartialFilterNotImplied {
                index,
                partial_filter,
            } => write!(
                f,
                ": partial index {index:?} is not usable, the query's condition does not imply {partial_filter}"
            ),
            FindingKind::UnusedIndex { index } => {
                write!(f, ": index {index:?} serves no declared query")
            }
            FindingKind::RedundantIndex { index, covered_by } => write!(
                f,
                ": index {index:?} is a prefix of {covered_by:?}, which serves the same queries"
            ),
        }
    }
}

/// Whether any finding is an error (the CLI's exit code 1).
pub fn has_errors(findings: &[AccessFinding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// The `_id_` index every collection has (or the clustered index, which serves `_id` alike).
fn id_index() -> IndexSpec {
    IndexSpec::new([("_id", IndexKind::Ascending)]).name("_id_")
}

/// Checks every declared query of a collection against its indexes, with the array paths of
/// its `$jsonSchema` validator as multikey paths ([`MultikeyPaths::from_collection`]).
///
/// ```
/// use mongo_schema::access::{lint, has_errors, QuerySpec};
/// use mongo_schema::collection::CollectionSpec;
/// use mongo_schema::index::{IndexKind::*, IndexSpec};
/// let orders = CollectionSpec::new("orders")
///     .index(IndexSpec::new([("user_id", Ascending), ("created_at", Descending)]));
/// let queries = [QuerySpec::new("by_user").eq("user_id").sort_desc("created_at")];
/// assert!(!has_errors(&lint(&orders, &queries)));
/// let bare = CollectionSpec::new("orders");
/// let findings = lint(&bare, &queries);
/// assert!(has_errors(&findings));
/// assert!(findings[0].to_string().contains(r#"add the index { "user_id": 1, "created_at": -1 }"#));
/// ```
pub fn lint(spec: &CollectionSpec, queries: &[QuerySpec]) -> Vec<AccessFinding> {
    lint_with(spec, queries, &MultikeyPaths::from_collection(spec))
}

/// [`lint`] with explicit multikey paths (for a spec without a `$jsonSchema`, or paths known
/// from the data).
///
/// Findings come per query in declaration order, then unused indexes, then redundant ones.
/// Unused indexes are reported only when at least one query is declared, and never for the
/// indexes that do work besides serving queries: unique, TTL, the shard key's, hidden ones
/// (already ignored by the planner), text and geospatial ones (their operators are not modelled).
pub fn lint_with(
    spec: &CollectionSpec,
    queries: &[QuerySpec],
    multikey: &MultikeyPaths,
) -> Vec<AccessFinding> {
    let mut indexes = vec![id_index()];
    indexes.extend(spec.indexes.iter().cloned());
    let mut findings = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    let finding = |severity, query: &QuerySpec, kind| AccessFinding {
        severity,
        collection: spec.name.clone(),
        query: Some(query.name.clone()),
        kind,
    };
    for query in queries {
        let found = coverage(&indexes, query, multikey);
        used.extend(found.serving.iter().map(|u| u.index.clone()));
        match found.best() {
            None if query.is_unbounded() => {
                findings.push(finding(
                    Severity::Warning,
                    query,
                    FindingKind::UnboundedQuery,
                ));
            }
            None => findings.push(finding(
                Severity::Error,
                query,
                FindingKind::NoServingIndex {
                    suggested: found.suggested.clone(),
                },
            )),
            Some(best) => {
                if best.in_memory_sort {
                    findings.push(finding(
                        Severity::Warning,
                        query,
                        FindingKind::InMemorySort {
                            index: best.index.clone(),
                            suggested: found.suggested.clone(),
                        },
                    ));
                }
                if query.projection.is_some() && !found.is_covered() {
                    findings.push(finding(
                        Severity::Info,
                        query,
                        FindingKind::NotCovered {
                            index: best.index.clone(),
                        },
                    ));
                }
            }
        }
        for name in &found.partial_not_implied {
            let Some(index) = indexes.iter().find(|i| i.effective_name() == *name) else {
                continue;
            };
            findings.push(finding(
                if found.is_served() {
                    Severity::Info
                } else {
                    Severity::Warning
                },
                query,
                FindingKind::PartialFilterNotImplied {
                    index: name.clone(),
                    partial_filter: index.partial_filter_expression.clone().unwrap_or_default(),
                },
            ));
        }
    }
    if !queries.is_empty() {
        for index in &spec.indexes {
            let name = index.effective_name();
            if !used.contains(&name) && may_be_unused(index, spec) {
                findings.push(AccessFinding {
                    severity: Severity::Info,
                    collection: spec.name.clone(),
                    query: None,
                    kind: FindingKind::UnusedIndex { index: name },
                });
            }
        }
    }
    for index in &spec.indexes {
        if let Some(longer) = spec.indexes.iter().find(|o| is_redundant(index, o)) {
            findings.push(AccessFinding {
                severity: Severity::Warning,
                collection: spec.name.clone(),
                query: None,
                kind: FindingKind::RedundantIndex {
                    index: index.effective_name(),
                    covered_by: longer.effective_name(),
                },
            });
        }
    }
    findings
}

fn may_be_unused(index: &IndexSpec, spec: &CollectionSpec) -> bool {
    let keys = &index.keys;
    let special = keys.iter().any(|(_, k)| {
        matches!(
            k,
            IndexKind::Text | IndexKind::TwoD | IndexKind::TwoDSphere | IndexKind::Other(_)
        )
    });
    let shard_key = spec
        .shard_key
        .as_ref()
        .is_some_and(|s| keys.0.starts_with(&s.keys.0));
    !(index.unique
        || index.prepare_unique
        || index.expire_after_seconds.is_some()
        || index.hidden
        || special
        || shard_key
        || index.is_id())
}

/// Whether `index` is redundant beside `longer`: its key pattern is a strict prefix of
/// `longer`'s, with the same directions or every direction reversed, and neither index has an
/// option that changes what it holds or does. Unique (a constraint), partial and sparse (a
/// subset of documents), TTL (expiry), collation (string order), hidden, and text, hashed,
/// wildcard and geospatial indexes are never redundant by prefix alone.
fn is_redundant(index: &IndexSpec, longer: &IndexSpec) -> bool {
    let plain = |i: &IndexSpec| {
        !i.sparse
            && !i.hidden
            && i.partial_filter_expression.is_none()
            && i.keys
                .iter()
                .all(|(p, k)| Direction::from_index_kind(k).is_some() && !is_wildcard_path(p))
    };
    if index.unique
        || index.prepare_unique
        || index.expire_after_seconds.is_some()
        || index.collation != longer.collation
        || !plain(index)
        || !plain(longer)
    {
        return false;
    }
    let short = &index.keys.0;
    let long = &longer.keys.0;
    if short.len() >= long.len() {
        return false;
    }
    let same = short.iter().zip(long).all(|(a, b)| a == b);
    let reversed = short.iter().zip(long).all(|((pa, ka), (pb, kb))| {
        pa == pb
            && Direction::from_index_kind(ka).map(Direction::reversed)
                == Direction::from_index_kind(kb)
    });
    same || reversed
}

// ---------------------------------------------------------------------------------------------
// Live confirmation: the explain command and its reply.

/// The time limit [`explain_command`] callers use by default: 5 seconds per query.
pub const DEFAULT_MAX_TIME_MS: u32 = 5_000;

/// A summary is flagged over-examined when it examined more than this many documents per
/// document returned (`docsExamined > 10 × max(nReturned, 1)`). "Interpret Explain Plan
/// Results": a collection scan reading 10 documents to return 3 is the manual's example of a
/// query an index would improve; ten times the result is where the waste dominates.
pub const OVER_EXAMINED_RATIO: f64 = 10.0;

/// A query's explain command could not be built, or an explain reply could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExplainError {
    /// The sampled document has no value at a field the query compares.
    #[error("query {query:?}: the sampled document has no value at {path:?}")]
    MissingSampleValue {
        /// The query.
        query: String,
        /// The field.
        path: String,
    },
    /// The server answered with an error.
    #[error("explain failed with code {code}: {message}")]
    CommandFailed {
        /// The server's error code (0 when absent).
        code: i32,
        /// The server's `errmsg`.
        message: String,
    },
    /// The reply has no `queryPlanner.winningPlan`.
    #[error("not an explain reply: {reason}")]
    NotAnExplainReply {
        /// What is missing.
        reason: String,
    },
}

/// The value at a dotted path of a sampled document, descending into arrays (the first element
/// that has the path): the value a query on that path would compare with.
fn sampled_value(doc: &Document, path: &str) -> Option<Bson> {
    fn walk(value: &Bson, segments: &[&str]) -> Option<Bson> {
        match (value, segments.split_first()) {
            (Bson::Array(items), _) => items.iter().find_map(|v| walk(v, segments)),
            (_, None) => Some(value.clone()),
            (Bson::Document(d), Some((first, rest))) => walk(d.get(*first)?, rest),
            _ => None,
        }
    }
    let segments: Vec<&str> = path.split('.').collect();
    let (first, rest) = segments.split_first()?;
    walk(doc.get(*first)?, rest)
}

/// The `find` filter a query runs with values from `sample`: each equality field equal to its
/// sampled value, each range field `$gte` its sampled value, and the query's `filter`.
///
/// # Errors
/// [`ExplainError::MissingSampleValue`] when `sample` has no value at a compared field.
pub fn sampled_filter(query: &QuerySpec, sample: &Document) -> Result<Document, ExplainError> {
    let value = |path: &String| {
        sampled_value(sample, path).ok_or_else(|| ExplainError::MissingSampleValue {
            query: query.name.clone(),
            path: path.clone(),
        })
    };
    let mut filter = Document::new();
    for path in dedup(&query.equality) {
        let v = value(&path)?;
        filter.insert(path, v);
    }
    for path in dedup(&query.range) {
        if filter.contains_key(&path) {
            continue;
        }
        let v = value(&path)?;
        filter.insert(path, doc! { "$gte": v });
    }
    if let Some(condition) = &query.filter {
        for (k, v) in condition {
            filter.insert(k.clone(), v.clone());
        }
    }
    Ok(filter)
}

/// The `find` command of a query with values from `sample` (see [`sampled_filter`]): its
/// filter, `sort`, `projection` and `limit`.
///
/// # Errors
/// [`ExplainError::MissingSampleValue`] when `sample` has no value at a compared field.
pub fn find_command(
    collection: &str,
    query: &QuerySpec,
    sample: &Document,
) -> Result<Document, ExplainError> {
    let mut find = doc! { "find": collection, "filter": sampled_filter(query, sample)? };
    if !query.sort.is_empty() {
        let sort: Document = query
            .sort
            .iter()
            .map(|(p, d)| (p.clone(), d.to_bson()))
            .collect();
        find.insert("sort", sort);
    }
    if let Some(projection) = &query.projection {
        find.insert("projection", projection.to_document());
    }
    if let Some(limit) = query.limit {
        find.insert("limit", limit);
    }
    Ok(find)
}

/// The read-only `explain` command for a declared query, run with values sampled from the
/// collection: `{explain: <find>, verbosity: "executionStats", maxTimeMS}`. The time limit sits
/// at the top level, where the explain command honours it (SERVER-28039). Run it on the
/// collection's database (`Database::run_command`).
///
/// ```
/// use mongo_schema::access::{explain_command, QuerySpec};
/// let query = QuerySpec::new("by_user").eq("user_id").sort_desc("created_at").range("total");
/// let sample = bson::doc! { "user_id": 7, "created_at": 1, "total": 20 };
/// assert_eq!(
///     explain_command("orders", &query, &sample, 5_000)?,
///     bson::doc! {
///         "explain": {
///             "find": "orders",
///             "filter": { "user_id": 7, "total": { "$gte": 20 } },
///             "sort": { "created_at": -1 },
///         },
///         "verbosity": "executionStats",
///         "maxTimeMS": 5_000_i64,
///     },
/// );
/// # Ok::<(), mongo_schema::access::ExplainError>(())
/// ```
///
/// # Errors
/// [`ExplainError::MissingSampleValue`] when `sample` has no value at a compared field.
pub fn explain_command(
    collection: &str,
    query: &QuerySpec,
    sample: &Document,
    max_time_ms: u32,
) -> Result<Document, ExplainError> {
    Ok(doc! {
        "explain": find_command(collection, query, sample)?,
        "verbosity": "executionStats",
        "maxTimeMS": i64::from(max_time_ms),
    })
}

/// The read-only `aggregate` command that samples one document for a query: one that matches
/// its `filter` and has every equality and range field, `{$sample: {size: 1}}`, with a time
/// limit. Its first batch's document is the `sample` for [`explain_command`]; an empty batch
/// means the collection holds no document this query could return.
pub fn sample_command(collection: &str, query: &QuerySpec, max_time_ms: u32) -> Document {
    let mut matching = query.filter.clone().unwrap_or_default();
    for path in query.equality.iter().chain(&query.range) {
        if !matching.contains_key(path) {
            matching.insert(path.clone(), doc! { "$exists": true });
        }
    }
    doc! {
        "aggregate": collection,
        "pipeline": [ { "$match": matching }, { "$sample": { "size": 1 } } ],
        "cursor": {},
        "maxTimeMS": i64::from(max_time_ms),
    }
}

/// How the winning plan reads the collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanAccess {
    /// Through an index (`IXSCAN`, `EXPRESS_IXSCAN`, `IDHACK`, `CLUSTERED_IXSCAN`, ...).
    IndexScan,
    /// A collection scan (`COLLSCAN`), on at least one shard.
    CollectionScan,
    /// No read at all (`EOF`: the collection does not exist, or the filter is always false).
    Eof,
    /// None of the stages above was recognised.
    Unknown,
}

/// What an `explain` reply with `executionStats` says about a query's plan ("Explain Results").
///
/// Reads the classic shape (`queryPlanner.winningPlan` as a stage tree), the slot-based engine's
/// (the tree under `winningPlan.queryPlan`, 5.1+; default for eligible queries in 7.0 and 8.0),
/// and the sharded shape (`winningPlan.shards[].winningPlan`, each possibly with `queryPlan`).
#[derive(Clone, Debug, PartialEq)]
pub struct ExplainSummary {
    /// Index scan, collection scan, or neither.
    pub access: PlanAccess,
    /// The winning plan's stage names, depth first (every shard's in turn).
    pub stages: Vec<String>,
    /// The indexes the winning plan scans, by name, in plan order, without repeats.
    pub indexes: Vec<String>,
    /// Whether the plan has a blocking `SORT` stage ("Explain Results", Sort Stage).
    pub in_memory_sort: bool,
    /// Whether an index scan is not below a `FETCH` and no document was examined ("Explain
    /// Results", Covered Queries).
    pub covered: bool,
    /// The shards that answered, for a sharded collection.
    pub shards: Vec<String>,
    /// `executionStats.totalKeysExamined`.
    pub keys_examined: Option<u64>,
    /// `executionStats.totalDocsExamined`.
    pub docs_examined: Option<u64>,
    /// `executionStats.nReturned`.
    pub n_returned: Option<u64>,
}

#[derive(Default)]
struct PlanWalk {
    stages: Vec<String>,
    indexes: Vec<String>,
    collscan: bool,
    ixscan: bool,
    unfetched_ixscan: bool,
    eof: bool,
    sort: bool,
    shards: Vec<String>,
}

/// Stages that read through an index (8.0 adds the EXPRESS stages).
const INDEX_STAGES: &[&str] = &[
    "IXSCAN",
    "EXPRESS_IXSCAN",
    "CLUSTERED_IXSCAN",
    "EXPRESS_CLUSTERED_IXSCAN",
    "IDHACK",
    "COUNT_SCAN",
    "DISTINCT_SCAN",
];

impl PlanWalk {
    /// Walks one winning plan: the slot-based engine's tree sits under `queryPlan`.
    fn plan(&mut self, winning: &Document, depth: usize) {
        let root = winning.get_document("queryPlan").unwrap_or(winning);
        self.stage(root, false, depth);
    }

    fn stage(&mut self, stage: &Document, under_fetch: bool, depth: usize) {
        if depth > MAX_SCHEMA_DEPTH {
            return;
        }
        let name = stage.get_str("stage").unwrap_or_default();
        if !name.is_empty() {
            self.stages.push(name.to_owned());
        }
        match name {
            "COLLSCAN" => self.collscan = true,
            "SORT" => self.sort = true,
            "EOF" => self.eof = true,
            n if INDEX_STAGES.contains(&n) => {
                self.ixscan = true;
                self.unfetched_ixscan |= !under_fetch;
                let index = match stage.get_str("indexName") {
                    Ok(index) => Some(index.to_owned()),
                    Err(_) if n == "IDHACK" => Some("_id_".to_owned()),
                    Err(_) => stage
                        .get_document("keyPattern")
                        .ok()
                        .map(|k| IndexSpec::new(IndexKeys::from_document(k).0).default_name()),
                };
                if let Some(index) = index {
                    if !self.indexes.contains(&index) {
                        self.indexes.push(index);
                    }
                }
            }
            _ => {}
        }
        let below_fetch = under_fetch || name == "FETCH";
        if let Ok(input) = stage.get_document("inputStage") {
            self.stage(input, below_fetch, depth + 1);
        }
        if let Ok(inputs) = stage.get_array("inputStages") {
            for input in inputs.iter().filter_map(Bson::as_document) {
                self.stage(input, below_fetch, depth + 1);
            }
        }
        if let Ok(shards) = stage.get_array("shards") {
            for shard in shards.iter().filter_map(Bson::as_document) {
                if let Ok(name) = shard.get_str("shardName") {
                    self.shards.push(name.to_owned());
                }
                if let Ok(plan) = shard.get_document("winningPlan") {
                    self.plan(plan, depth + 1);
                }
            }
        }
    }
}

fn count(stats: Option<&Document>, field: &str) -> Option<u64> {
    let n = read::number(stats?.get(field)?)?;
    (n.is_finite() && n >= 0.0).then_some(n as u64)
}

impl ExplainSummary {
    /// Reads an `explain` reply (any verbosity; counts need `executionStats`).
    ///
    /// ```
    /// use mongo_schema::access::{ExplainSummary, PlanAccess};
    /// // "Interpret Explain Plan Results": the inventory query without an index.
    /// let reply = bson::doc! {
    ///     "queryPlanner": { "winningPlan": { "queryPlan": { "stage": "COLLSCAN" } } },
    ///     "executionStats": { "nReturned": 3, "totalKeysExamined": 0, "totalDocsExamined": 10 },
    ///     "ok": 1.0,
    /// };
    /// let summary = ExplainSummary::from_reply(&reply)?;
    /// assert_eq!(summary.access, PlanAccess::CollectionScan);
    /// assert_eq!((summary.docs_examined, summary.n_returned), (Some(10), Some(3)));
    /// # Ok::<(), mongo_schema::access::ExplainError>(())
    /// ```
    ///
    /// # Errors
    /// [`ExplainError::CommandFailed`] for an `ok: 0` reply, [`ExplainError::NotAnExplainReply`]
    /// when there is no `queryPlanner.winningPlan`.
    pub fn from_reply(reply: &Document) -> Result<ExplainSummary, ExplainError> {
        if reply.get("ok").and_then(read::number) == Some(0.0) {
            return Err(ExplainError::CommandFailed {
                code: reply
                    .get("code")
                    .and_then(read::number)
                    .map_or(0, |c| c as i32),
                message: reply.get_str("errmsg").unwrap_or_default().to_owned(),
            });
        }
        // An aggregate explain that was not pushed down wraps the find part in `$cursor`.
        let cursor = reply
            .get_array("stages")
            .ok()
            .and_then(|s| s.first())
            .and_then(Bson::as_document)
            .and_then(|s| s.get_document("$cursor").ok());
        let source = match reply.get_document("queryPlanner") {
            Ok(_) => reply,
            Err(_) => cursor.ok_or_else(|| ExplainError::NotAnExplainReply {
                reason: "no queryPlanner".to_owned(),
            })?,
        };
        let winning = source
            .get_document("queryPlanner")
            .and_then(|p| p.get_document("winningPlan"))
            .map_err(|_| ExplainError::NotAnExplainReply {
                reason: "no queryPlanner.winningPlan".to_owned(),
            })?;
        let mut walk = PlanWalk::default();
        walk.plan(winning, 0);
        let later_sort = reply.get_array("stages").is_ok_and(|stages| {
            stages
                .iter()
                .filter_map(Bson::as_document)
                .any(|s| s.contains_key("$sort"))
        });
        let stats = source.get_document("executionStats").ok();
        let docs_examined = count(stats, "totalDocsExamined");
        let access = if walk.collscan {
            PlanAccess::CollectionScan
        } else if walk.ixscan {
            PlanAccess::IndexScan
        } else if walk.eof {
            PlanAccess::Eof
        } else {
            PlanAccess::Unknown
        };
        Ok(ExplainSummary {
            access,
            covered: walk.unfetched_ixscan && !walk.collscan && docs_examined.unwrap_or(0) == 0,
            in_memory_sort: walk.sort || later_sort,
            stages: walk.stages,
            indexes: walk.indexes,
            shards: walk.shards,
            keys_examined: count(stats, "totalKeysExamined"),
            docs_examined,
            n_returned: count(stats, "nReturned"),
        })
    }

    /// The summary as a document for JSON reports (counts are absent without `executionStats`).
    pub fn to_document(&self) -> Document {
        let access = match self.access {
            PlanAccess::IndexScan => "indexScan",
            PlanAccess::CollectionScan => "collectionScan",
            PlanAccess::Eof => "eof",
            PlanAccess::Unknown => "unknown",
        };
        let mut d = doc! {
            "access": access,
            "indexes": self.indexes.clone(),
            "inMemorySort": self.in_memory_sort,
            "covered": self.covered,
            "stages": self.stages.clone(),
        };
        if !self.shards.is_empty() {
            d.insert("shards", self.shards.clone());
        }
        let counts = [
            ("keysExamined", self.keys_examined),
            ("docsExamined", self.docs_examined),
            ("nReturned", self.n_returned),
        ];
        for (name, value) in counts {
            if let Some(n) = value {
                d.insert(
                    name,
                    read::compact_integer(i64::try_from(n).unwrap_or(i64::MAX)),
                );
            }
        }
        d.insert("overExamined", self.is_over_examined());
        d
    }

    /// The first index the plan scans.
    pub fn index(&self) -> Option<&str> {
        self.indexes.first().map(String::as_str)
    }

    /// Documents examined per document returned (`nReturned` of 0 counts as 1); `None` without
    /// `executionStats`.
    pub fn examined_ratio(&self) -> Option<f64> {
        let docs = self.docs_examined?;
        let returned = self.n_returned?.max(1);
        Some(docs as f64 / returned as f64)
    }

    /// Whether the query examined far more documents than it returned: more than
    /// [`OVER_EXAMINED_RATIO`] per document returned.
    pub fn is_over_examined(&self) -> bool {
        self.examined_ratio()
            .is_some_and(|r| r > OVER_EXAMINED_RATIO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexKind::*;
    use crate::schema::JsonSchema;
    use bson::doc;

    fn none() -> MultikeyPaths {
        MultikeyPaths::none()
    }

    fn served_by(indexes: &[IndexSpec], query: &QuerySpec) -> Vec<String> {
        coverage(indexes, query, &none())
            .serving
            .into_iter()
            .map(|u| u.index)
            .collect()
    }

    fn best(indexes: &[IndexSpec], query: &QuerySpec, multikey: &MultikeyPaths) -> IndexUse {
        coverage(indexes, query, multikey)
            .best()
            .cloned()
            .expect("an index serves the query")
    }

    // Manual, "The ESR (Equality, Sort, Range) Guideline": equality, then sort, then range.
    #[test]
    fn esr_index_serves_without_sorting_in_memory() {
        let index = IndexSpec::new([
            ("status", Ascending),
            ("created_at", Descending),
            ("total", Ascending),
        ]);
        let query = QuerySpec::new("q")
            .eq("status")
            .sort_desc("created_at")
            .range("total");
        let found = coverage(&[index], &query, &none());
        let best = found.best().unwrap();
        assert!(best.follows_esr && !best.in_memory_sort && !best.reverse_scan);
        assert_eq!(best.equality_prefix, 1);
        assert_eq!(found.suggested, None);
    }

    // "The ESR (Equality, Sort, Range) Guideline": a range before the sort breaks the sort.
    #[test]
    fn range_before_sort_sorts_in_memory_and_suggests_esr() {
        let index = IndexSpec::new([
            ("status", Ascending),
            ("total", Ascending),
            ("created_at", Descending),
        ]);
        let query = QuerySpec::new("q")
            .eq("status")
            .sort_desc("created_at")
            .range("total");
        let found = coverage(&[index], &query, &none());
        let best = found.best().unwrap();
        assert!(best.in_memory_sort && !best.follows_esr && best.range_bounded);
        assert!(found.needs_in_memory_sort());
        assert_eq!(
            found.suggested.unwrap().keys.to_document(),
            doc! { "status": 1, "created_at": -1, "total": 1 }
        );
    }

    // "The ESR (Equality, Sort, Range) Guideline": equality fields in any order.
    #[test]
    fn equality_fields_serve_in_any_order() {
        let index = IndexSpec::new([("b", Ascending), ("a", Descending)]);
        let query = QuerySpec::new("q").eq("a").eq("b");
        let best = best(&[index], &query, &none());
        assert_eq!(best.equality_prefix, 2);
        assert!(best.follows_esr);
    }

    // "Compound Indexes", prefixes: extra trailing fields still serve; a non-prefix does not.
    #[test]
    fn prefix_serves_and_non_prefix_does_not() {
        let trailing = IndexSpec::new([("a", Ascending), ("b", Ascending), ("z", Ascending)]);
        let query = QuerySpec::new("q").eq("a");
        assert_eq!(served_by(&[trailing], &query), ["a_1_b_1_z_1"]);
        assert!(
            best(
                &[IndexSpec::new([("a", Ascending), ("z", Ascending)])],
                &query,
                &none()
            )
            .follows_esr
        );
        let non_prefix = IndexSpec::new([("b", Ascending), ("a", Ascending)]);
        let found = coverage(&[non_prefix], &query, &none());
        assert!(!found.is_served());
        assert_eq!(found.suggested.unwrap().keys.to_document(), doc! { "a": 1 });
    }

    // "Use Indexes to Sort Query Results": a single-field index gives either direction.
    #[test]
    fn descending_sort_scans_an_ascending_index_backwards() {
        let index = IndexSpec::new([("created_at", Ascending)]);
        let query = QuerySpec::new("latest").sort_desc("created_at");
        let best = best(std::slice::from_ref(&index), &query, &none());
        assert!(best.reverse_scan && !best.in_memory_sort);
        let ascending = QuerySpec::new("oldest").sort_asc("created_at");
        assert!(!super::tests::best(&[index], &ascending, &none()).reverse_scan);
    }

    // "Use Indexes to Sort Query Results": a compound index gives the sort with every direction
    // as declared or every direction reversed, never a mix.
    #[test]
    fn reversed_compound_index_serves_only_the_fully_reversed_sort() {
        let index = IndexSpec::new([("a", Ascending), ("b", Descending)]);
        let reversed = QuerySpec::new("q").sort_desc("a").sort_asc("b");
        assert!(best(std::slice::from_ref(&index), &reversed, &none()).reverse_scan);
        let mixed = QuerySpec::new("q").sort_asc("a").sort_asc("b");
        let found = coverage(&[index], &mixed, &none());
        assert!(!found.is_served() && found.needs_in_memory_sort());
        assert_eq!(
            found.suggested.unwrap().keys.to_document(),
            doc! { "a": 1, "b": 1 }
        );
    }

    // "Use Indexes to Sort Query Results", Sort and Non-prefix Subset of an Index: the sort may
    // skip leading fields the query fixes by equality, and no others.
    #[test]
    fn sort_after_equality_prefix_and_not_after_a_gap() {
        let index = IndexSpec::new([("a", Ascending), ("b", Ascending), ("c", Ascending)]);
        let fixed = QuerySpec::new("q").eq("a").sort_desc("b");
        assert!(!best(std::slice::from_ref(&index), &fixed, &none()).in_memory_sort);
        let skipping_equality = QuerySpec::new("q").eq("a").eq("b").sort_asc("c");
        assert!(!best(std::slice::from_ref(&index), &skipping_equality, &none()).in_memory_sort);
        let gap = QuerySpec::new("q").eq("a").sort_asc("c");
        assert!(best(&[index], &gap, &none()).in_memory_sort);
    }

    #[test]
    fn sort_on_an_equality_field_needs_no_sort() {
        let query = QuerySpec::new("q").eq("a").sort_desc("a");
        assert!(!best(&[IndexSpec::new([("a", Ascending)])], &query, &none()).in_memory_sort);
    }

    // "Multikey Indexes", Sorting: a sort on an array field is a blocking sort.
    #[test]
    fn sort_on_multikey_path_is_blocking() {
        let index = IndexSpec::new([("user", Ascending), ("tags", Ascending)]);
        let query = QuerySpec::new("q").eq("user").sort_asc("tags");
        assert!(!best(std::slice::from_ref(&index), &query, &none()).in_memory_sort);
        let arrays = MultikeyPaths::new(["tags"]);
        let found = coverage(&[index], &query, &arrays);
        assert!(found.needs_in_memory_sort());
        assert_eq!(
            found.suggested, None,
            "the ESR index exists: no index avoids this sort"
        );
    }

    // "Multikey Indexes", Covered Queries: an array field cannot be covered; "Covered Queries".
    #[test]
    fn multikey_path_cannot_cover() {
        let index = IndexSpec::new([("items.sku", Ascending), ("status", Ascending)]);
        let query = QuerySpec::new("q")
            .eq("items.sku")
            .project(["status"])
            .without_id();
        assert!(best(std::slice::from_ref(&index), &query, &none()).covered);
        let arrays = MultikeyPaths::new(["items"]);
        assert!(arrays.is_multikey("items.sku") && !arrays.is_multikey("itemsx"));
        assert!(!best(&[index], &query, &arrays).covered);
    }

    // "Covered Queries": `_id` must be excluded unless it is a key; every field must be a key.
    #[test]
    fn covering_needs_every_field_and_id_handled() {
        let index = IndexSpec::new([("user_id", Ascending), ("total", Ascending)]);
        let covered = QuerySpec::new("q")
            .eq("user_id")
            .project(["total"])
            .without_id();
        assert!(best(std::slice::from_ref(&index), &covered, &none()).covered);
        let with_id = QuerySpec::new("q").eq("user_id").project(["total"]);
        assert!(!best(std::slice::from_ref(&index), &with_id, &none()).covered);
        let outside = QuerySpec::new("q")
            .eq("user_id")
            .project(["status"])
            .without_id();
        assert!(!best(std::slice::from_ref(&index), &outside, &none()).covered);
        let no_projection = QuerySpec::new("q").eq("user_id");
        assert!(!best(std::slice::from_ref(&index), &no_projection, &none()).covered);
        let all_but_id = QuerySpec::new("q").eq("user_id").without_id();
        assert_eq!(
            all_but_id.projection.as_ref().unwrap().to_document(),
            doc! { "_id": 0 }
        );
        assert!(!best(std::slice::from_ref(&index), &all_but_id, &none()).covered);
        let null = covered.clone().filter(doc! { "total": null });
        assert!(!best(std::slice::from_ref(&index), &null, &none()).covered);
        let not_null = covered.filter(doc! { "total": 5 });
        assert!(best(&[index], &not_null, &none()).covered);
        let id_key = IndexSpec::new([("user_id", Ascending), ("_id", Ascending)]);
        assert!(
            !best(&[id_key], &with_id, &none()).covered,
            "total is not a key"
        );
        let id_and_total = IndexSpec::new([
            ("user_id", Ascending),
            ("total", Ascending),
            ("_id", Ascending),
        ]);
        assert!(best(&[id_and_total], &with_id, &none()).covered);
    }

    #[test]
    fn multikey_paths_come_from_schema_arrays() {
        let mut item = crate::generate::object();
        item.properties
            .insert("sku".into(), JsonSchema::bson_type(BsonType::String));
        let mut items = JsonSchema::bson_type(BsonType::Array);
        items.items = Some(Items::Single(Box::new(item)));
        let mut root = crate::generate::object();
        root.properties.insert("items".into(), items);
        root.properties
            .insert("name".into(), JsonSchema::bson_type(BsonType::String));
        let multikey = MultikeyPaths::from_schema(&root);
        assert_eq!(multikey.iter().collect::<Vec<_>>(), ["items"]);
        assert!(multikey.is_multikey("items.sku"));
        assert!(!multikey.is_multikey("name"));
    }

    // Manual, "Partial Indexes", Query Coverage: the query must imply the filter. Polymorphic
    // collections declare the discriminator as the query's condition.
    #[test]
    fn discriminator_condition_implies_partial_filter() {
        let books = IndexSpec::new([("title", Ascending)])
            .name("books_by_title")
            .partial_filter_expression(doc! { "type": "BOOK" });
        let book = QuerySpec::new("book_by_title")
            .eq("title")
            .filter(doc! { "type": "BOOK" });
        assert_eq!(
            served_by(std::slice::from_ref(&books), &book),
            ["books_by_title"]
        );
        let eq_operator = book.clone().filter(doc! { "type": { "$eq": "BOOK" } });
        assert_eq!(
            served_by(std::slice::from_ref(&books), &eq_operator),
            ["books_by_title"]
        );
        let course = book.clone().filter(doc! { "type": "COURSE" });
        let found = coverage(std::slice::from_ref(&books), &course, &none());
        assert!(!found.is_served());
        assert_eq!(found.partial_not_implied, ["books_by_title"]);
        // The discriminator may instead lead the key pattern: it is an equality of the query.
        let typed = IndexSpec::new([("type", Ascending), ("title", Ascending)]);
        assert!(best(std::slice::from_ref(&typed), &book, &none()).follows_esr);
        assert_eq!(
            coverage(&[], &book, &none())
                .suggested
                .unwrap()
                .keys
                .to_document(),
            doc! { "title": 1, "type": 1 }
        );
        let no_condition = QuerySpec::new("any_by_title").eq("title");
        assert!(!coverage(&[books], &no_condition, &none()).is_served());
    }

    // "Partial Indexes": `$exists: true` is implied by an equality or range on the field.
    #[test]
    fn exists_true_is_implied_by_a_declared_field() {
        let email = IndexSpec::new([("email", Ascending)])
            .partial_filter_expression(doc! { "email": { "$exists": true } });
        assert!(
            coverage(
                std::slice::from_ref(&email),
                &QuerySpec::new("q").eq("email"),
                &none()
            )
            .is_served()
        );
        let other = IndexSpec::new([("name", Ascending)])
            .partial_filter_expression(doc! { "email": { "$exists": true } });
        assert!(
            !coverage(
                std::slice::from_ref(&other),
                &QuerySpec::new("q").eq("name"),
                &none()
            )
            .is_served()
        );
        let with_condition = QuerySpec::new("q")
            .eq("name")
            .filter(doc! { "email": { "$exists": true } });
        assert!(coverage(&[other], &with_condition, &none()).is_served());
        let null = QuerySpec::new("q").filter(doc! { "email": null });
        assert!(!coverage(&[email], &null, &none()).is_served());
    }

    // "Partial Indexes": `{age: {$gt: 21}}` implies `{age: {$gte: 18}}`; `{age: {$gte: 10}}` does not.
    #[test]
    fn range_conditions_imply_looser_ranges_of_the_same_type() {
        let adults = IndexSpec::new([("name", Ascending)])
            .partial_filter_expression(doc! { "age": { "$gte": 18 } });
        let with = |filter: Document| {
            coverage(
                std::slice::from_ref(&adults),
                &QuerySpec::new("q").eq("name").filter(filter),
                &none(),
            )
            .is_served()
        };
        assert!(with(doc! { "age": { "$gt": 21 } }));
        assert!(with(doc! { "age": { "$gte": 18.0 } }));
        assert!(with(doc! { "age": 30_i64 }));
        assert!(with(
            doc! { "$and": [ { "age": { "$gte": 20, "$lt": 65 } } ] }
        ));
        assert!(!with(doc! { "age": { "$gte": 10 } }));
        assert!(!with(doc! { "age": { "$lt": 30 } }));
        assert!(!with(doc! { "age": "30" }));
        let strict = IndexSpec::new([("name", Ascending)])
            .partial_filter_expression(doc! { "age": { "$gt": 18 } });
        let strictly = |filter: Document| {
            let q = QuerySpec::new("q").eq("name").filter(filter);
            coverage(std::slice::from_ref(&strict), &q, &none()).is_served()
        };
        assert!(!strictly(doc! { "age": { "$gte": 18 } }));
        assert!(!strictly(doc! { "age": 18 }));
        assert!(strictly(doc! { "age": { "$gte": 19 } }));
        assert!(strictly(doc! { "age": { "$gt": 18 } }));
        let below = IndexSpec::new([("name", Ascending)])
            .partial_filter_expression(doc! { "age": { "$lt": 18 } });
        let q = QuerySpec::new("q")
            .eq("name")
            .filter(doc! { "age": { "$lte": 17 } });
        assert!(coverage(&[below], &q, &none()).is_served());
    }

    // "Partial Indexes": operators we cannot reason about are never taken as implied.
    #[test]
    fn unprovable_partial_filters_are_not_usable() {
        let index = IndexSpec::new([("name", Ascending)])
            .partial_filter_expression(doc! { "status": { "$in": ["A", "B"] } });
        let q = QuerySpec::new("q")
            .eq("name")
            .filter(doc! { "status": "A" });
        assert!(!coverage(&[index], &q, &none()).is_served());
        let typed = IndexSpec::new([("name", Ascending)])
            .partial_filter_expression(doc! { "status": { "$type": "string" } });
        assert!(!coverage(&[typed], &q, &none()).is_served());
        let either = IndexSpec::new([("name", Ascending)])
            .partial_filter_expression(doc! { "$or": [ { "status": "A" }, { "status": "B" } ] });
        assert!(coverage(&[either], &q, &none()).is_served());
    }

    // Manual, "Hashed Indexes": equality only; no range, no sort.
    #[test]
    fn hashed_index_serves_equality_only() {
        let hashed = IndexSpec::new([("user_id", Hashed)]);
        assert!(
            coverage(
                std::slice::from_ref(&hashed),
                &QuerySpec::new("q").eq("user_id"),
                &none()
            )
            .is_served()
        );
        assert!(
            !coverage(
                std::slice::from_ref(&hashed),
                &QuerySpec::new("q").range("user_id"),
                &none()
            )
            .is_served()
        );
        assert!(
            !coverage(&[hashed], &QuerySpec::new("q").sort_asc("user_id"), &none()).is_served()
        );
    }

    // Manual, "Text Indexes": only `$text` uses them. Geospatial indexes: only geo operators.
    #[test]
    fn text_and_geo_indexes_serve_no_declared_query() {
        let text = IndexSpec::new([("title", Text)]);
        let geo = IndexSpec::new([("category", Ascending), ("loc", TwoDSphere)]);
        let q = QuerySpec::new("q").eq("title").eq("category");
        assert!(!coverage(&[text, geo], &q, &none()).is_served());
        let plain = IndexSpec::new([("title", Ascending)]);
        assert!(coverage(&[plain], &q, &none()).is_served());
    }

    // Manual, "Sparse Indexes": not used where it would miss documents (a sort over everything).
    #[test]
    fn sparse_index_gives_no_sort_over_the_whole_collection() {
        let sparse = IndexSpec::new([("score", Descending)]).sparse(true);
        let all = QuerySpec::new("top").sort_desc("score");
        assert!(!coverage(std::slice::from_ref(&sparse), &all, &none()).is_served());
        let some = QuerySpec::new("q").range("score").sort_desc("score");
        assert!(coverage(&[sparse], &some, &none()).is_served());
    }

    // Manual, "Hidden Indexes": the planner does not consider them.
    #[test]
    fn hidden_index_serves_nothing() {
        let q = QuerySpec::new("q").eq("a");
        let index = IndexSpec::new([("a", Ascending)]);
        assert!(coverage(std::slice::from_ref(&index), &q, &none()).is_served());
        assert!(!coverage(&[index.hidden(true)], &q, &none()).is_served());
    }

    // Manual, "Wildcard Indexes": one field under the wildcard path, within the projection.
    #[test]
    fn wildcard_index_serves_fields_under_its_path() {
        let attrs = IndexSpec::new([("attrs.$**", Wildcard)]);
        assert!(
            coverage(
                std::slice::from_ref(&attrs),
                &QuerySpec::new("q").eq("attrs.color"),
                &none()
            )
            .is_served()
        );
        assert!(!coverage(&[attrs], &QuerySpec::new("q").eq("name"), &none()).is_served());
        let all_but_secret =
            IndexSpec::new([("$**", Wildcard)]).wildcard_projection(doc! { "secret": 0 });
        assert!(
            coverage(
                std::slice::from_ref(&all_but_secret),
                &QuerySpec::new("q").eq("name"),
                &none()
            )
            .is_served()
        );
        assert!(
            !coverage(
                &[all_but_secret],
                &QuerySpec::new("q").eq("secret.x"),
                &none()
            )
            .is_served()
        );
        let only_a = IndexSpec::new([("$**", Wildcard)]).wildcard_projection(doc! { "a": 1 });
        assert!(!coverage(&[only_a], &QuerySpec::new("q").eq("b"), &none()).is_served());
    }

    #[test]
    fn queries_on_id_are_served_by_the_id_index() {
        let spec = CollectionSpec::new("c");
        assert!(lint(&spec, &[QuerySpec::new("by_id").eq("_id")]).is_empty());
    }

    #[test]
    fn no_serving_index_is_an_error_with_the_suggested_index() {
        let spec = CollectionSpec::new("orders").index(IndexSpec::new([("status", Ascending)]));
        let findings = lint(
            &spec,
            &[QuerySpec::new("by_user")
                .eq("user_id")
                .sort_desc("created_at")],
        );
        assert!(has_errors(&findings));
        assert_eq!(findings[0].severity, Severity::Error);
        let FindingKind::NoServingIndex { suggested } = &findings[0].kind else {
            panic!("{findings:?}");
        };
        assert_eq!(
            suggested.as_ref().unwrap().keys.to_document(),
            doc! { "user_id": 1, "created_at": -1 }
        );
        assert_eq!(
            findings[0].to_string(),
            "error: orders: query \"by_user\": no index serves it, the server scans the collection; add the index { \"user_id\": 1, \"created_at\": -1 } (ESR order)"
        );
    }

    #[test]
    fn in_memory_sort_is_a_warning_and_unbounded_query_too() {
        let spec = CollectionSpec::new("c").index(IndexSpec::new([("a", Ascending)]));
        let findings = lint(
            &spec,
            &[
                QuerySpec::new("sorted").eq("a").sort_asc("b"),
                QuerySpec::new("everything"),
            ],
        );
        let severities: Vec<(Severity, &FindingKind)> =
            findings.iter().map(|f| (f.severity, &f.kind)).collect();
        assert!(matches!(
            severities[..],
            [
                (Severity::Warning, FindingKind::InMemorySort { .. }),
                (Severity::Warning, FindingKind::UnboundedQuery)
            ]
        ));
        assert!(!has_errors(&findings));
    }

    #[test]
    fn unusable_partial_index_is_reported_beside_the_error() {
        let spec = CollectionSpec::new("catalog").index(
            IndexSpec::new([("title", Ascending)])
                .partial_filter_expression(doc! { "type": "BOOK" }),
        );
        let findings = lint(
            &spec,
            &[QuerySpec::new("course_by_title")
                .eq("title")
                .filter(doc! { "type": "COURSE" })],
        );
        let kinds: Vec<&FindingKind> = findings.iter().map(|f| &f.kind).collect();
        assert!(matches!(kinds[0], FindingKind::NoServingIndex { .. }));
        assert!(
            matches!(kinds[1], FindingKind::PartialFilterNotImplied { index, .. } if index == "title_1")
        );
        assert_eq!(findings[1].severity, Severity::Warning);
    }

    #[test]
    fn index_no_query_uses_is_unused_unless_it_does_other_work() {
        let spec = CollectionSpec::new("c")
            .index(IndexSpec::new([("a", Ascending)]))
            .index(IndexSpec::new([("b", Ascending)]))
            .index(IndexSpec::new([("email", Ascending)]).unique(true))
            .index(IndexSpec::new([("at", Ascending)]).expire_after_seconds(60));
        let findings = lint(&spec, &[QuerySpec::new("q").eq("a")]);
        let unused: Vec<&FindingKind> = findings.iter().map(|f| &f.kind).collect();
        assert_eq!(
            unused,
            [&FindingKind::UnusedIndex {
                index: "b_1".into()
            }]
        );
        assert_eq!(findings[0].severity, Severity::Info);
        assert!(
            lint(&spec, &[]).is_empty(),
            "no declared query, no unused index"
        );
    }

    #[test]
    fn prefix_index_is_redundant_with_same_or_reversed_directions() {
        let long = IndexSpec::new([("a", Ascending), ("b", Descending)]);
        assert!(is_redundant(&IndexSpec::new([("a", Ascending)]), &long));
        assert!(is_redundant(&IndexSpec::new([("a", Descending)]), &long));
        let mixed = IndexSpec::new([("a", Ascending), ("b", Ascending), ("c", Ascending)]);
        assert!(!is_redundant(
            &IndexSpec::new([("a", Ascending), ("b", Descending)]),
            &mixed
        ));
        assert!(!is_redundant(&long, &long));
        assert!(!is_redundant(&IndexSpec::new([("b", Descending)]), &long));
    }

    // Unique, partial, sparse, collation, TTL, hashed, text and wildcard indexes differ from a
    // longer index in what they hold or do: never redundant by prefix alone.
    #[test]
    fn indexes_with_options_are_not_redundant_by_prefix() {
        let long = IndexSpec::new([("a", Ascending), ("b", Ascending)]);
        let a = || IndexSpec::new([("a", Ascending)]);
        for short in [
            a().unique(true),
            a().sparse(true),
            a().partial_filter_expression(doc! { "a": { "$exists": true } }),
            a().expire_after_seconds(60),
            a().collation(crate::collection::Collation::new("fr")),
            IndexSpec::new([("a", Hashed)]),
            IndexSpec::new([("a", Text)]),
        ] {
            assert!(!is_redundant(&short, &long), "{short:?}");
        }
        assert!(!is_redundant(&a(), &long.clone().sparse(true)));
        let wildcard = IndexSpec::new([("a.$**", Wildcard)]);
        assert!(!is_redundant(
            &wildcard,
            &IndexSpec::new([("a.$**", Wildcard), ("b", Ascending)])
        ));
        let spec = CollectionSpec::new("c").index(a()).index(long);
        let findings = lint(&spec, &[QuerySpec::new("q").eq("a").eq("b")]);
        assert!(findings.iter().any(|f| f.severity == Severity::Warning
            && matches!(&f.kind, FindingKind::RedundantIndex { index, covered_by } if index == "a_1" && covered_by == "a_1_b_1")));
    }

    #[test]
    fn manifest_form_round_trips_and_names_bad_fields() {
        let query = QuerySpec::new("q")
            .eq("a")
            .sort_desc("b")
            .sort_asc("c")
            .range("d")
            .project(["a", "b"])
            .without_id()
            .filter(doc! { "type": "BOOK" })
            .limit(5)
            .frequency("3/min");
        assert_eq!(QuerySpec::from_document(&query.to_document()), Ok(query));
        let err = |d: Document| QuerySpec::from_document(&d).unwrap_err().path;
        assert_eq!(err(doc! { "equality": ["a"] }), "name");
        assert_eq!(
            err(doc! { "name": "q", "equality": ["a", 1] }),
            "equality[1]"
        );
        assert_eq!(err(doc! { "name": "q", "sort": { "a": 2 } }), "sort.a");
        assert_eq!(
            err(doc! { "name": "q", "projection": { "a": 0 } }),
            "projection.a"
        );
        let read = QuerySpec::from_document(&doc! { "name": "q", "sort": { "a": -1.0 } }).unwrap();
        assert_eq!(read.sort, [("a".to_owned(), Direction::Descending)]);
    }

    #[test]
    fn sampled_values_reach_into_arrays_and_report_missing_fields() {
        let sample = doc! { "items": [ { "qty": 1 }, { "sku": "A1" } ], "tags": ["x", "y"] };
        assert_eq!(sampled_value(&sample, "items.sku"), Some(Bson::from("A1")));
        assert_eq!(sampled_value(&sample, "tags"), Some(Bson::from("x")));
        assert_eq!(sampled_value(&sample, "items.price"), None);
        let query = QuerySpec::new("q").eq("items.price");
        assert_eq!(
            sampled_filter(&query, &sample),
            Err(ExplainError::MissingSampleValue {
                query: "q".into(),
                path: "items.price".into()
            })
        );
    }

    #[test]
    fn explain_command_carries_projection_limit_and_condition() {
        let query = QuerySpec::new("q")
            .eq("title")
            .filter(doc! { "type": "BOOK" })
            .project(["title"])
            .without_id()
            .limit(20);
        let command = explain_command("catalog", &query, &doc! { "title": "Dune" }, 100).unwrap();
        assert_eq!(
            command,
            doc! {
                "explain": {
                    "find": "catalog",
                    "filter": { "title": "Dune", "type": "BOOK" },
                    "projection": { "title": 1, "_id": 0 },
                    "limit": 20_i64,
                },
                "verbosity": "executionStats",
                "maxTimeMS": 100_i64,
            }
        );
        assert_eq!(
            sample_command("catalog", &query, 100),
            doc! {
                "aggregate": "catalog",
                "pipeline": [
                    { "$match": { "type": "BOOK", "title": { "$exists": true } } },
                    { "$sample": { "size": 1 } },
                ],
                "cursor": {},
                "maxTimeMS": 100_i64,
            }
        );
    }

    // "Explain Results": Sort Stage, Covered Queries, and the EXPRESS/IDHACK index stages.
    #[test]
    fn explain_summary_reads_sort_covering_and_express_stages() {
        let sorted = doc! {
            "queryPlanner": { "winningPlan": {
                "stage": "SORT", "inputStage": { "stage": "FETCH", "inputStage": {
                    "stage": "IXSCAN", "indexName": "status_1" } } } },
            "executionStats": { "nReturned": 5, "totalKeysExamined": 5, "totalDocsExamined": 5 },
        };
        let s = ExplainSummary::from_reply(&sorted).unwrap();
        assert!(s.in_memory_sort && !s.covered);
        assert_eq!(s.index(), Some("status_1"));
        let covered = doc! {
            "queryPlanner": { "winningPlan": {
                "stage": "PROJECTION_COVERED", "inputStage": {
                    "stage": "IXSCAN", "keyPattern": { "a": 1, "b": -1 } } } },
            "executionStats": { "nReturned": 5, "totalKeysExamined": 5, "totalDocsExamined": 0 },
        };
        let s = ExplainSummary::from_reply(&covered).unwrap();
        assert!(s.covered && !s.in_memory_sort);
        assert_eq!(s.indexes, ["a_1_b_-1"]);
        let express = doc! { "queryPlanner": { "winningPlan": { "stage": "EXPRESS_IXSCAN", "indexName": "_id_" } } };
        let s = ExplainSummary::from_reply(&express).unwrap();
        assert_eq!((s.access, s.n_returned), (PlanAccess::IndexScan, None));
        assert!(!s.is_over_examined(), "no executionStats, no verdict");
    }

    #[test]
    fn explain_summary_flags_documents_examined_far_above_returned() {
        let reply = |docs: i32, returned: i32| {
            doc! {
                "queryPlanner": { "winningPlan": { "stage": "COLLSCAN" } },
                "executionStats": { "nReturned": returned, "totalKeysExamined": 0, "totalDocsExamined": docs },
            }
        };
        let summary = |d, r| ExplainSummary::from_reply(&reply(d, r)).unwrap();
        assert!(!summary(10, 3).is_over_examined());
        assert!(!summary(10, 1).is_over_examined());
        assert!(summary(11, 1).is_over_examined());
        assert!(summary(11, 0).is_over_examined());
        assert!(summary(5000, 20).is_over_examined());
        assert_eq!(summary(50, 5).examined_ratio(), Some(10.0));
        assert_eq!(
            summary(5000, 20).to_document(),
            doc! {
                "access": "collectionScan", "indexes": [], "inMemorySort": false,
                "covered": false, "stages": ["COLLSCAN"], "keysExamined": 0,
                "docsExamined": 5000, "nReturned": 20, "overExamined": true,
            }
        );
    }

    // "Explain Results": an aggregate whose pipeline was not pushed down wraps the query part in
    // `stages[0].$cursor`; a later `$sort` stage sorts in memory.
    #[test]
    fn explain_summary_reads_an_aggregate_cursor_stage() {
        let reply = doc! {
            "stages": [
                { "$cursor": {
                    "queryPlanner": { "winningPlan": { "stage": "FETCH", "inputStage": {
                        "stage": "IXSCAN", "indexName": "status_1" } } },
                    "executionStats": { "nReturned": 8, "totalKeysExamined": 8, "totalDocsExamined": 8 },
                } },
                { "$sort": { "sortKey": { "total": -1 } } },
            ],
            "ok": 1.0,
        };
        let s = ExplainSummary::from_reply(&reply).unwrap();
        assert_eq!(
            (s.access, s.index()),
            (PlanAccess::IndexScan, Some("status_1"))
        );
        assert!(s.in_memory_sort);
        assert_eq!(s.n_returned, Some(8));
    }

    #[test]
    fn explain_errors_are_reported() {
        let failed = doc! { "ok": 0.0, "errmsg": "operation exceeded time limit", "code": 50 };
        assert_eq!(
            ExplainSummary::from_reply(&failed),
            Err(ExplainError::CommandFailed {
                code: 50,
                message: "operation exceeded time limit".into()
            })
        );
        assert!(matches!(
            ExplainSummary::from_reply(&doc! { "ok": 1.0 }),
            Err(ExplainError::NotAnExplainReply { .. })
        ));
    }
}
