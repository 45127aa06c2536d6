//! `IndexSpec`: one index's key pattern and options, as `createIndexes` takes them and
//! `listIndexes` returns them. Declarations build it, [`crate::normalize`] brings it to canonical
//! form, [`crate::diff`] compares two of them.

use std::fmt;

use bson::{Bson, Document};
use indexmap::IndexMap;

use super::collation::Collation;
use super::error::{DocumentError, SpecError};
use super::read;
use crate::generate::{MongoSchema, PathError};

/// How one field of a key pattern is indexed: the value beside the field name.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum IndexKind {
    /// `1`: ascending.
    Ascending,
    /// `-1`: descending.
    Descending,
    /// `"hashed"`.
    Hashed,
    /// `"text"`: a text index field (listed by the server as `_fts`/`_ftsx`, see `normalize`).
    Text,
    /// `"2d"`: legacy coordinate pairs on a flat plane.
    TwoD,
    /// `"2dsphere"`: GeoJSON or coordinate pairs on a sphere.
    TwoDSphere,
    /// `1` on a wildcard path (`$**` or `path.$**`).
    Wildcard,
    /// Anything else the server accepts or once accepted (`2` is ascending to the server but a
    /// different key pattern, `"geoHaystack"`, `"columnstore"`), kept verbatim.
    Other(Bson),
}

impl IndexKind {
    /// The value as written in a key pattern: `1`, `-1`, `"hashed"`, `"text"`, `"2d"`, `"2dsphere"`.
    pub fn to_bson(&self) -> Bson {
        match self {
            IndexKind::Ascending | IndexKind::Wildcard => Bson::Int32(1),
            IndexKind::Descending => Bson::Int32(-1),
            IndexKind::Hashed => Bson::from("hashed"),
            IndexKind::Text => Bson::from("text"),
            IndexKind::TwoD => Bson::from("2d"),
            IndexKind::TwoDSphere => Bson::from("2dsphere"),
            IndexKind::Other(value) => value.clone(),
        }
    }

    /// Reads the value of one key pattern field. Numbers compare by value (`1.0` is ascending);
    /// `1` on a wildcard path is [`IndexKind::Wildcard`].
    pub fn from_bson(path: &str, value: &Bson) -> IndexKind {
        if let Some(n) = read::number(value) {
            if n == 1.0 {
                return if is_wildcard_path(path) {
                    IndexKind::Wildcard
                } else {
                    IndexKind::Ascending
                };
            }
            if n == -1.0 {
                return IndexKind::Descending;
            }
            return IndexKind::Other(value.clone());
        }
        match value.as_str() {
            Some("hashed") => IndexKind::Hashed,
            Some("text") => IndexKind::Text,
            Some("2d") => IndexKind::TwoD,
            Some("2dsphere") => IndexKind::TwoDSphere,
            _ => IndexKind::Other(value.clone()),
        }
    }

    /// The value part of the server's default index name: `1`, `-1`, `hashed`, `2dsphere`.
    fn name_part(&self) -> String {
        match self {
            IndexKind::Other(value) => match value {
                Bson::String(s) => s.clone(),
                Bson::Int32(v) => v.to_string(),
                Bson::Int64(v) => v.to_string(),
                // The server prints a double's value; whole numbers without a fraction.
                Bson::Double(v) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v:.0}"),
                other => other.to_string(),
            },
            kind => match kind.to_bson() {
                Bson::Int32(v) => v.to_string(),
                Bson::String(s) => s,
                other => other.to_string(),
            },
        }
    }
}

/// Whether a key pattern path names a wildcard index field: `$**` or `path.$**`.
pub fn is_wildcard_path(path: &str) -> bool {
    path == "$**" || path.ends_with(".$**")
}

/// Resolves one path of Rust field names of `T` (dotted: `customer.id`, `items.sku`) to the
/// stored names ([`MongoSchema::field_path`]). A wildcard path keeps its `$**` (`meta.$**` with
/// `meta` resolved), and a path starting at `_id` is kept as written: every stored document has
/// `_id`, whether or not the type names it.
///
/// # Errors
/// The [`PathError`] of a segment that names no field, with the nearest names.
pub fn resolve_path<T: MongoSchema + ?Sized>(path: &str) -> Result<String, PathError> {
    let (fields, wildcard) = match path.strip_suffix("$**") {
        Some(prefix) => (prefix.strip_suffix('.').unwrap_or(prefix), true),
        None => (path, false),
    };
    let segments: Vec<&str> = if fields.is_empty() {
        Vec::new()
    } else {
        fields.split('.').collect()
    };
    let mut stored = if segments.first() == Some(&"_id") {
        segments.iter().map(|s| (*s).to_owned()).collect()
    } else {
        T::field_path(&segments)?
    };
    if wildcard {
        stored.push("$**".to_owned());
    }
    Ok(stored.join("."))
}

/// An ordered key pattern: the field paths and how each is indexed.
///
/// Order carries meaning: `{a: 1, b: 1}` and `{b: 1, a: 1}` are different indexes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexKeys(pub Vec<(String, IndexKind)>);

impl IndexKeys {
    /// A key pattern from `(path, kind)` pairs in order.
    pub fn new<P: Into<String>>(keys: impl IntoIterator<Item = (P, IndexKind)>) -> IndexKeys {
        IndexKeys(keys.into_iter().map(|(p, k)| (p.into(), k)).collect())
    }

    /// A key pattern whose paths name Rust fields of `T` (dotted: `customer.id`, `items.sku`),
    /// resolved to the stored names through every serde rename ([`MongoSchema::field_path`]).
    /// A wildcard path keeps its `$**` (`$**`, `meta.$**` with `meta` resolved).
    ///
    /// ```
    /// use mongo_schema::spec::{IndexKeys, IndexKind::*};
    /// // `String` has no fields: any named path is refused, naming the type.
    /// let err = IndexKeys::resolve::<String>([("user_id", Ascending)]).unwrap_err();
    /// assert_eq!(err.segment, "user_id");
    /// assert!(IndexKeys::resolve::<String>([("$**", Wildcard)]).is_ok());
    /// // `_id` is every stored document's, named by the type or not.
    /// assert!(IndexKeys::resolve::<String>([("_id", Ascending)]).is_ok());
    /// ```
    ///
    /// # Errors
    /// The [`PathError`] of the first path that names no field, with the nearest names.
    pub fn resolve<'a, T: MongoSchema + ?Sized>(
        keys: impl IntoIterator<Item = (&'a str, IndexKind)>,
    ) -> Result<IndexKeys, PathError> {
        let mut resolved = Vec::new();
        for (path, kind) in keys {
            resolved.push((resolve_path::<T>(path)?, kind));
        }
        Ok(IndexKeys(resolved))
    }

    /// The fields in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &IndexKind)> {
        self.0.iter().map(|(p, k)| (p.as_str(), k))
    }

    /// How many fields the pattern has.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the pattern has no field (the server rejects that).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether any field is indexed as `kind`.
    pub fn has_kind(&self, kind: &IndexKind) -> bool {
        self.0.iter().any(|(_, k)| k == kind)
    }

    /// Whether this is a text index: a declared `"text"` field or the listed `_fts: "text"`.
    pub fn is_text(&self) -> bool {
        self.has_kind(&IndexKind::Text)
    }

    /// Whether any field is a wildcard path.
    pub fn is_wildcard(&self) -> bool {
        self.0.iter().any(|(p, _)| is_wildcard_path(p))
    }

    /// Whether this is the `{_id: 1}` pattern of the server's `_id_` index.
    pub fn is_id(&self) -> bool {
        matches!(self.0.as_slice(), [(p, IndexKind::Ascending)] if p == "_id")
    }

    /// The key pattern as a document: `{"user_id": 1, "created_at": -1}`.
    pub fn to_document(&self) -> Document {
        self.0
            .iter()
            .map(|(p, k)| (p.clone(), k.to_bson()))
            .collect()
    }

    /// Reads a key pattern document; each value through [`IndexKind::from_bson`].
    pub fn from_document(doc: &Document) -> IndexKeys {
        IndexKeys(
            doc.iter()
                .map(|(p, v)| (p.clone(), IndexKind::from_bson(p, v)))
                .collect(),
        )
    }
}

impl<P: Into<String>, const N: usize> From<[(P, IndexKind); N]> for IndexKeys {
    fn from(keys: [(P, IndexKind); N]) -> IndexKeys {
        IndexKeys::new(keys)
    }
}

impl fmt::Display for IndexKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_document())
    }
}

/// One index: its key pattern and options, with the driver's and server's option names.
///
/// Build it with [`IndexSpec::new`] and the option methods; read it from a `createIndexes` or
/// `listIndexes` entry with [`IndexSpec::from_document`].
///
/// ```
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// let index = IndexSpec::new([("user_id", Ascending), ("status", Ascending), ("created_at", Descending)]);
/// assert_eq!(index.default_name(), "user_id_1_status_1_created_at_-1");
/// let email = IndexSpec::new([("email", Ascending)])
///     .unique(true)
///     .partial_filter_expression(bson::doc! { "deleted_at": { "$exists": false } });
/// assert_eq!(
///     email.to_document(),
///     bson::doc! {
///         "key": { "email": 1 },
///         "name": "email_1",
///         "unique": true,
///         "partialFilterExpression": { "deleted_at": { "$exists": false } },
///     },
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexSpec {
    /// `key`: the ordered key pattern.
    pub keys: IndexKeys,
    /// `name`; `None` means the server's default name ([`IndexSpec::default_name`]).
    pub name: Option<String>,
    /// `unique` (absent = false).
    pub unique: bool,
    /// `sparse` (absent = false).
    pub sparse: bool,
    /// `partialFilterExpression`: only documents matching it are indexed.
    pub partial_filter_expression: Option<Document>,
    /// `expireAfterSeconds`: a TTL index (single field only).
    pub expire_after_seconds: Option<i64>,
    /// `hidden` (absent = false): maintained but not used by the planner.
    pub hidden: bool,
    /// `collation`; `None` inherits the collection's default collation.
    pub collation: Option<Collation>,
    /// `weights` of a text index, by field (default 1; the server keeps integers).
    pub weights: IndexMap<String, i32>,
    /// `default_language` of a text index (server default `english`).
    pub default_language: Option<String>,
    /// `language_override` of a text index (server default `language`).
    pub language_override: Option<String>,
    /// `bits` of a 2d index (server default 26).
    pub bits: Option<i32>,
    /// `min` of a 2d index (server default -180).
    pub min: Option<f64>,
    /// `max` of a 2d index (server default 180).
    pub max: Option<f64>,
    /// `wildcardProjection` of a wildcard index.
    pub wildcard_projection: Option<Document>,
    /// `prepareUnique`: the server refuses new duplicates, the first step towards `unique` (6.0+).
    pub prepare_unique: bool,
    /// Whether `listIndexes` reported the index as still being built (`{spec, indexBuildInfo}`).
    /// Never set on a declaration.
    pub build_in_progress: bool,
    /// Options the model does not know, kept verbatim (reported as unmanaged by `diff`).
    pub other: Document,
}

impl IndexSpec {
    /// An index on `keys`, in order, with no option set.
    pub fn new<P: Into<String>>(keys: impl IntoIterator<Item = (P, IndexKind)>) -> IndexSpec {
        IndexSpec {
            keys: IndexKeys::new(keys),
            ..IndexSpec::default()
        }
    }

    /// An index on Rust field paths of `T`, resolved to stored names ([`IndexKeys::resolve`]).
    ///
    /// # Errors
    /// The [`PathError`] of the first path that names no field.
    pub fn on<'a, T: MongoSchema + ?Sized>(
        keys: impl IntoIterator<Item = (&'a str, IndexKind)>,
    ) -> Result<IndexSpec, PathError> {
        Ok(IndexSpec {
            keys: IndexKeys::resolve::<T>(keys)?,
            ..IndexSpec::default()
        })
    }

    /// Sets an explicit `name`.
    pub fn name(mut self, name: impl Into<String>) -> IndexSpec {
        self.name = Some(name.into());
        self
    }

    /// Sets `unique`.
    pub fn unique(mut self, unique: bool) -> IndexSpec {
        self.unique = unique;
        self
    }

    /// Sets `sparse`.
    pub fn sparse(mut self, sparse: bool) -> IndexSpec {
        self.sparse = sparse;
        self
    }

    /// Sets `partialFilterExpression`.
    pub fn partial_filter_expression(mut self, filter: Document) -> IndexSpec {
        self.partial_filter_expression = Some(filter);
        self
    }

    /// Sets `expireAfterSeconds` (a TTL index).
    pub fn expire_after_seconds(mut self, seconds: i64) -> IndexSpec {
        self.expire_after_seconds = Some(seconds);
        self
    }

    /// Sets `hidden`.
    pub fn hidden(mut self, hidden: bool) -> IndexSpec {
        self.hidden = hidden;
        self
    }

    /// Sets `collation`.
    pub fn collation(mut self, collation: Collation) -> IndexSpec {
        self.collation = Some(collation);
        self
    }

    /// Sets the text `weights` entry of one field.
    pub fn weight(mut self, field: impl Into<String>, weight: i32) -> IndexSpec {
        self.weights.insert(field.into(), weight);
        self
    }

    /// Sets `default_language` (text indexes).
    pub fn default_language(mut self, language: impl Into<String>) -> IndexSpec {
        self.default_language = Some(language.into());
        self
    }

    /// Sets `language_override` (text indexes).
    pub fn language_override(mut self, field: impl Into<String>) -> IndexSpec {
        self.language_override = Some(field.into());
        self
    }

    /// Sets `bits` (2d indexes).
    pub fn bits(mut self, bits: i32) -> IndexSpec {
        self.bits = Some(bits);
        self
    }

    /// Sets `min` (2d indexes).
    pub fn min(mut self, min: f64) -> IndexSpec {
        self.min = Some(min);
        self
    }

    /// Sets `max` (2d indexes).
    pub fn max(mut self, max: f64) -> IndexSpec {
        self.max = Some(max);
        self
    }

    /// Sets `wildcardProjection` (wildcard indexes).
    pub fn wildcard_projection(mut self, projection: Document) -> IndexSpec {
        self.wildcard_projection = Some(projection);
        self
    }

    /// Sets an option the model does not know, passed to the server verbatim.
    pub fn option(mut self, key: impl Into<String>, value: impl Into<Bson>) -> IndexSpec {
        self.other.insert(key.into(), value.into());
        self
    }

    /// The name the server gives an index created without one: each field and its value joined
    /// with `_` (`user_id_1_status_1_created_at_-1`, `a_hashed`, `loc_2dsphere`,
    /// `title_text_body_text`).
    pub fn default_name(&self) -> String {
        let mut name = String::new();
        for (i, (path, kind)) in self.keys.iter().enumerate() {
            if i > 0 {
                name.push('_');
            }
            name.push_str(path);
            name.push('_');
            name.push_str(&kind.name_part());
        }
        name
    }

    /// The explicit name, or the default one.
    pub fn effective_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.default_name())
    }

    /// Whether this is the server's `_id_` index (the key pattern `{_id: 1}`).
    pub fn is_id(&self) -> bool {
        self.keys.is_id()
    }

    /// The index as a `createIndexes` entry, in a fixed field order: `key`, `name` (the default
    /// name when none is set; the command requires one), then the options that are set.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("key", self.keys.to_document());
        d.insert("name", self.effective_name());
        if self.unique {
            d.insert("unique", true);
        }
        if self.sparse {
            d.insert("sparse", true);
        }
        if let Some(filter) = &self.partial_filter_expression {
            d.insert("partialFilterExpression", filter.clone());
        }
        if let Some(seconds) = self.expire_after_seconds {
            d.insert("expireAfterSeconds", read::compact_integer(seconds));
        }
        if self.hidden {
            d.insert("hidden", true);
        }
        if let Some(collation) = &self.collation {
            d.insert("collation", collation.to_document());
        }
        if !self.weights.is_empty() {
            let weights: Document = self
                .weights
                .iter()
                .map(|(f, w)| (f.clone(), Bson::Int32(*w)))
                .collect();
            d.insert("weights", weights);
        }
        if let Some(language) = &self.default_language {
            d.insert("default_language", language.clone());
        }
        if let Some(field) = &self.language_override {
            d.insert("language_override", field.clone());
        }
        if let Some(bits) = self.bits {
            d.insert("bits", bits);
        }
        if let Some(min) = self.min {
            d.insert("min", min);
        }
        if let Some(max) = self.max {
            d.insert("max", max);
        }
        if let Some(projection) = &self.wildcard_projection {
            d.insert("wildcardProjection", projection.clone());
        }
        if self.prepare_unique {
            d.insert("prepareUnique", true);
        }
        for (k, v) in &self.other {
            d.insert(k.clone(), v.clone());
        }
        d
    }

    /// Reads a `createIndexes` or `listIndexes` entry as written, keeping every field it does not
    /// model in [`IndexSpec::other`] (`v`, `ns`, `background` included: `normalize` decides what
    /// to ignore). Booleans accept the server's truthy numbers (`unique: 1`); numbers are read by
    /// value; text weights are truncated to integers as the server does.
    ///
    /// # Errors
    /// [`DocumentError`] naming the field when `key` is missing or a known option has a type the
    /// server would refuse.
    pub fn from_document(doc: &Document) -> Result<IndexSpec, DocumentError> {
        let keys = match doc.get("key") {
            Some(Bson::Document(keys)) => IndexKeys::from_document(keys),
            Some(other) => return Err(DocumentError::expected("key", "a document", other)),
            None => return Err(DocumentError::missing("key")),
        };
        let mut spec = IndexSpec {
            keys,
            ..IndexSpec::default()
        };
        for (field, value) in doc {
            match field.as_str() {
                "key" => {}
                "name" => spec.name = Some(read::string(field, value)?),
                "unique" => spec.unique = read::truthy(field, value)?,
                "sparse" => spec.sparse = read::truthy(field, value)?,
                "hidden" => spec.hidden = read::truthy(field, value)?,
                "prepareUnique" => spec.prepare_unique = read::truthy(field, value)?,
                "partialFilterExpression" => {
                    spec.partial_filter_expression = Some(read::document(field, value)?.clone());
                }
                "wildcardProjection" => {
                    spec.wildcard_projection = Some(read::document(field, value)?.clone());
                }
                "expireAfterSeconds" => match read::ttl_seconds(value) {
                    Some(seconds) => spec.expire_after_seconds = Some(seconds),
                    // A NaN TTL (old servers stored one) stays visible as unmanaged.
                    None => {
                        spec.other.insert(field.clone(), value.clone());
                    }
                },
                "collation" => {
                    spec.collation = Some(
                        Collation::from_document(read::document(field, value)?)
                            .map_err(|e| e.within(field))?,
                    );
                }
                "weights" => {
                    for (f, w) in read::document(field, value)? {
                        let n = read::number(w).ok_or_else(|| {
                            DocumentError::expected(&format!("weights.{f}"), "a number", w)
                        })?;
                        // The server keeps integer weights: 2.7 is stored as 2.
                        spec.weights.insert(f.clone(), n.trunc() as i32);
                    }
                }
                "default_language" => spec.default_language = Some(read::string(field, value)?),
                "language_override" => spec.language_override = Some(read::string(field, value)?),
                "bits" => {
                    let n = read::number(value)
                        .ok_or_else(|| DocumentError::expected(field, "a number", value))?;
                    spec.bits = Some(n as i32);
                }
                "min" => {
                    spec.min = Some(
                        read::number(value)
                            .ok_or_else(|| DocumentError::expected(field, "a number", value))?,
                    );
                }
                "max" => {
                    spec.max = Some(
                        read::number(value)
                            .ok_or_else(|| DocumentError::expected(field, "a number", value))?,
                    );
                }
                _ => {
                    spec.other.insert(field.clone(), value.clone());
                }
            }
        }
        Ok(spec)
    }

    /// Checks the combinations the server refuses for this index alone, with the server's reason.
    ///
    /// # Errors
    /// The first [`SpecError`] found, naming `ns` and the index.
    pub fn check(&self, ns: &str) -> Result<(), SpecError> {
        let index = self.effective_name();
        let err = |reason: &str| SpecError::InvalidIndex {
            collection: ns.to_owned(),
            index: index.clone(),
            reason: reason.to_owned(),
        };
        if self.keys.is_empty() {
            return Err(err("Index keys cannot be empty"));
        }
        if self.keys.len() > MAX_KEY_FIELDS {
            return Err(SpecError::TooManyKeyFields {
                collection: ns.to_owned(),
                index,
                count: self.keys.len(),
            });
        }
        let mut seen = Vec::new();
        for (path, _) in self.keys.iter() {
            if path.is_empty() {
                return Err(err("Index keys cannot be an empty field"));
            }
            if seen.contains(&path) {
                return Err(err(&format!("duplicate key field {path:?}")));
            }
            seen.push(path);
        }
        let hashed = self
            .keys
            .iter()
            .filter(|(_, k)| **k == IndexKind::Hashed)
            .count();
        if hashed > 1 {
            return Err(err("A maximum of one index field is allowed to be hashed"));
        }
        if self.expire_after_seconds.is_some() && self.keys.len() > 1 {
            return Err(SpecError::TtlOnCompoundIndex {
                collection: ns.to_owned(),
                index,
            });
        }
        if self.expire_after_seconds.is_some() && self.is_id() {
            return Err(err(
                "The field 'expireAfterSeconds' is not valid for an _id index specification",
            ));
        }
        // Manual, "TTL Indexes": the value must be within 0 and 2147483647 inclusive.
        if matches!(self.expire_after_seconds, Some(s) if !(0..=i64::from(i32::MAX)).contains(&s)) {
            return Err(err(
                "TTL index 'expireAfterSeconds' option must be within 0 and 2147483647",
            ));
        }
        if self.unique && hashed > 0 {
            return Err(SpecError::UniqueHashed {
                collection: ns.to_owned(),
                index,
            });
        }
        if self.unique && self.keys.is_wildcard() {
            return Err(err(
                "Index type 'wildcard' does not support the unique option",
            ));
        }
        if self.sparse && self.partial_filter_expression.is_some() {
            return Err(err(
                "cannot mix \"partialFilterExpression\" and \"sparse\" options",
            ));
        }
        if self.wildcard_projection.is_some() && !self.keys.is_wildcard() {
            return Err(err(
                "The field 'wildcardProjection' is only allowed in an 'wildcard' index",
            ));
        }
        if !self.weights.is_empty() && !self.keys.is_text() {
            return Err(err("the 'weights' option is only allowed on a text index"));
        }
        if self.is_id() && (self.hidden || self.sparse || self.partial_filter_expression.is_some())
        {
            return Err(err("the _id index cannot be hidden, sparse or partial"));
        }
        Ok(())
    }
}

/// The most fields one key pattern may have (server limit).
pub const MAX_KEY_FIELDS: usize = 32;

/// The most indexes one collection may have, `_id_` included (server limit).
pub const MAX_INDEXES: usize = 64;

#[cfg(test)]
mod tests {
    use super::IndexKind::*;
    use super::*;
    use bson::doc;

    // Default names, manual "Index Names": field and value joined with `_`.
    #[test]
    fn default_names_follow_the_server_rule() {
        let compound = IndexSpec::new([
            ("user_id", Ascending),
            ("status", Ascending),
            ("created_at", Descending),
        ]);
        assert_eq!(compound.default_name(), "user_id_1_status_1_created_at_-1");
        assert_eq!(IndexSpec::new([("a", Hashed)]).default_name(), "a_hashed");
        assert_eq!(
            IndexSpec::new([("loc", TwoDSphere)]).default_name(),
            "loc_2dsphere"
        );
        assert_eq!(
            IndexSpec::new([("title", Text), ("body", Text)]).default_name(),
            "title_text_body_text"
        );
        assert_eq!(IndexSpec::new([("$**", Wildcard)]).default_name(), "$**_1");
        assert_eq!(
            IndexSpec::new([("a", Other(Bson::Double(2.0)))]).default_name(),
            "a_2"
        );
    }

    /// A type whose Rust field `user_id` is stored as `userId`, with an embedded `customer`.
    struct Order;

    impl MongoSchema for Order {
        fn json_schema(_: &mut crate::SchemaGenerator) -> crate::JsonSchema {
            crate::JsonSchema::any()
        }

        fn field_path(path: &[&str]) -> Result<Vec<String>, PathError> {
            match path {
                [] => Ok(Vec::new()),
                ["user_id"] => Ok(vec!["userId".into()]),
                ["customer", rest @ ..] => {
                    let mut out = vec!["customer".to_owned()];
                    match rest {
                        [] => {}
                        ["id"] => out.push("id".into()),
                        [other, ..] => {
                            return Err(PathError::new::<Order>(path, other, &["id", "name"]));
                        }
                    }
                    Ok(out)
                }
                [other, ..] => Err(PathError::new::<Order>(
                    path,
                    other,
                    &["user_id", "customer"],
                )),
            }
        }
    }

    #[test]
    fn paths_resolve_to_stored_names_and_misspellings_name_the_nearest() {
        let index = IndexSpec::on::<Order>([
            ("user_id", Ascending),
            ("customer.id", Descending),
            ("customer.$**", Wildcard),
        ])
        .unwrap();
        assert_eq!(
            index.keys.to_document(),
            doc! { "userId": 1, "customer.id": -1, "customer.$**": 1 }
        );
        let err = IndexSpec::on::<Order>([("usr_id", Ascending)]).unwrap_err();
        assert_eq!(err.candidates, ["user_id"]);
        assert_eq!(err.path, "usr_id");
    }

    #[test]
    fn explicit_name_wins_over_default() {
        let index = IndexSpec::new([("a", Ascending)]).name("by_a");
        assert_eq!(index.effective_name(), "by_a");
    }

    #[test]
    fn key_values_are_read_by_value() {
        let keys = IndexKeys::from_document(&doc! { "a": 1.0, "b": -1_i64, "c": 2, "$**": 1 });
        assert_eq!(
            keys.0,
            vec![
                ("a".to_owned(), Ascending),
                ("b".to_owned(), Descending),
                ("c".to_owned(), Other(Bson::Int32(2))),
                ("$**".to_owned(), Wildcard),
            ]
        );
    }

    #[test]
    fn document_round_trips_through_from_document() {
        let index = IndexSpec::new([("title", Text), ("content", Text)])
            .weight("title", 10)
            .weight("content", 1)
            .default_language("english")
            .option("storageEngine", doc! { "wiredTiger": {} });
        let read = IndexSpec::from_document(&index.to_document()).unwrap();
        assert_eq!(read, index.name("title_text_content_text"));
    }

    #[test]
    fn truthy_numbers_are_booleans_and_weights_truncate() {
        let read = IndexSpec::from_document(
            &doc! { "key": { "a": 1 }, "name": "a_1", "unique": 1, "sparse": 0.0 },
        )
        .unwrap();
        assert!(read.unique);
        assert!(!read.sparse);
        let text = IndexSpec::from_document(
            &doc! { "key": { "_fts": "text", "_ftsx": 1 }, "weights": { "t": 2.7 } },
        )
        .unwrap();
        assert_eq!(text.weights["t"], 2);
    }

    #[test]
    fn bad_entries_name_the_field() {
        let err = IndexSpec::from_document(&doc! { "name": "a_1" }).unwrap_err();
        assert_eq!(err.to_string(), "key: missing");
        let err = IndexSpec::from_document(&doc! { "key": { "a": 1 }, "name": 5 }).unwrap_err();
        assert!(
            err.to_string().starts_with("name: expected a string"),
            "{err}"
        );
    }

    #[test]
    fn ttl_on_compound_index_is_refused() {
        let index = IndexSpec::new([("a", Ascending), ("b", Ascending)]).expire_after_seconds(60);
        assert!(matches!(
            index.check("db.c"),
            Err(SpecError::TtlOnCompoundIndex { .. })
        ));
        assert!(
            IndexSpec::new([("a", Ascending)])
                .expire_after_seconds(60)
                .check("db.c")
                .is_ok()
        );
    }

    // SERVER-92366: a fractional TTL stored by an old server counts as its whole seconds.
    #[test]
    fn fractional_ttl_truncates_and_out_of_range_ttl_is_refused() {
        let read = IndexSpec::from_document(
            &doc! { "key": { "a": 1 }, "name": "a_1", "expireAfterSeconds": 10000.7 },
        )
        .unwrap();
        assert_eq!(read.expire_after_seconds, Some(10000));
        let nan = IndexSpec::from_document(
            &doc! { "key": { "a": 1 }, "name": "a_1", "expireAfterSeconds": f64::NAN },
        )
        .unwrap();
        assert_eq!(nan.expire_after_seconds, None);
        assert!(nan.other.contains_key("expireAfterSeconds"));
        let huge = IndexSpec::new([("a", Ascending)]).expire_after_seconds(1 << 31);
        assert!(huge.check("db.c").is_err());
    }

    #[test]
    fn unique_hashed_is_refused_with_the_server_reason() {
        let err = IndexSpec::new([("a", Hashed)])
            .unique(true)
            .check("db.c")
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("hashed indexes cannot guarantee uniqueness")
        );
    }

    #[test]
    fn more_than_32_key_fields_is_refused() {
        let index = IndexSpec::new((0..33).map(|i| (format!("f{i}"), Ascending)));
        assert!(matches!(
            index.check("db.c"),
            Err(SpecError::TooManyKeyFields { count: 33, .. })
        ));
        let ok = IndexSpec::new((0..32).map(|i| (format!("f{i}"), Ascending)));
        assert!(ok.check("db.c").is_ok());
    }

    #[test]
    fn sparse_with_partial_filter_is_refused() {
        let index = IndexSpec::new([("a", Ascending)])
            .sparse(true)
            .partial_filter_expression(doc! { "a": { "$exists": true } });
        assert!(index.check("db.c").is_err());
    }
}
