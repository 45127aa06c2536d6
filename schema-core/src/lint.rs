//! Model lints: unbounded arrays, worst-case document size, low-cardinality index prefixes, hot shard keys.
//!
//! This part reads only the `$jsonSchema` IR, so it applies to any schema, derived or read from
//! a server. Paths are dotted stored names; `[]` stands for "every element of the array".

use std::fmt;

use bson::Bson;

use crate::finding::{Finding, Severity};
use crate::schema::{Additional, BsonType, Items, JsonSchema};
use crate::spec::CollectionSpec;
use crate::spec::{IndexKind, IndexSpec};

/// The largest BSON document the server stores: 16 MiB.
pub const MAX_BSON_SIZE: u64 = 16 * 1024 * 1024;

/// Finds array-valued paths whose length has no upper bound (`maxItems`).
///
/// An array that grows forever approaches the 16 MiB limit and makes every update rewrite a
/// large document: the classic unbounded-array anti-pattern. Arrays inside combinator branches
/// are reported under the same path as the branch's value.
///
/// ```
/// use mongo_schema::lint::unbounded_arrays;
/// use mongo_schema::{MongoSchema, SchemaGenerator};
/// let schema = <Vec<String>>::json_schema(&mut SchemaGenerator::default());
/// assert_eq!(unbounded_arrays(&schema), vec![String::new()]);
/// ```
pub fn unbounded_arrays(schema: &JsonSchema) -> Vec<String> {
    let mut found = Vec::new();
    walk_arrays(schema, &mut String::new(), &mut found);
    found.dedup();
    found
}

fn may_be(schema: &JsonSchema, ty: BsonType) -> bool {
    match schema.allowed_types() {
        None => false,
        Some(types) => types.contains(&ty),
    }
}

fn walk_arrays(schema: &JsonSchema, path: &mut String, found: &mut Vec<String>) {
    if may_be(schema, BsonType::Array) {
        let positional_closed = matches!(schema.items, Some(Items::Positional(_)))
            && matches!(schema.additional_items, Some(Additional::Allowed(false)));
        if schema.max_items.is_none() && !positional_closed {
            found.push(path.clone());
        }
    }
    match &schema.items {
        Some(Items::Single(items)) => with_segment(path, "[]", |p| walk_arrays(items, p, found)),
        Some(Items::Positional(list)) => {
            for (i, items) in list.iter().enumerate() {
                with_segment(path, &i.to_string(), |p| walk_arrays(items, p, found));
            }
        }
        None => {}
    }
    for (name, property) in &schema.properties {
        with_segment(path, name, |p| walk_arrays(property, p, found));
    }
    if let Some(Additional::Schema(values)) = &schema.additional_properties {
        with_segment(path, "*", |p| walk_arrays(values, p, found));
    }
    for branch in branches(schema) {
        walk_arrays(branch, path, found);
    }
}

fn branches(schema: &JsonSchema) -> impl Iterator<Item = &JsonSchema> {
    [&schema.all_of, &schema.any_of, &schema.one_of]
        .into_iter()
        .flatten()
        .flatten()
}

fn with_segment<R>(path: &mut String, segment: &str, f: impl FnOnce(&mut String) -> R) -> R {
    let len = path.len();
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(segment);
    let result = f(path);
    path.truncate(len);
    result
}

/// An upper bound on the BSON size of the values a schema describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeBound {
    /// At most this many bytes; `dominant` is the path contributing most of it.
    Bounded {
        /// The bound in bytes.
        bytes: u64,
        /// The path whose value contributes the most bytes (`""` for the value itself).
        dominant: String,
    },
    /// No bound: `path` is the first value found with no bound (a string without `maxLength`,
    /// an array without `maxItems`, a map without `maxProperties`, binary data).
    Unbounded {
        /// The unbounded path.
        path: String,
    },
}

impl SizeBound {
    fn bytes(&self) -> Option<u64> {
        match self {
            SizeBound::Bounded { bytes, .. } => Some(*bytes),
            SizeBound::Unbounded { .. } => None,
        }
    }
}

impl fmt::Display for SizeBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeBound::Bounded { bytes, dominant } if dominant.is_empty() => {
                write!(f, "at most {bytes} bytes")
            }
            SizeBound::Bounded { bytes, dominant } => {
                write!(f, "at most {bytes} bytes, mostly {dominant}")
            }
            SizeBound::Unbounded { path } if path.is_empty() => write!(f, "unbounded"),
            SizeBound::Unbounded { path } => write!(f, "unbounded at {path}"),
        }
    }
}

/// The worst-case BSON size of a document the schema's type writes.
///
/// Counts the declared `properties` (what the type writes), not what an open object would also
/// admit. Strings count 4 bytes per code point of `maxLength`; arrays `maxItems` elements; maps
/// (`additionalProperties` with a schema) `maxProperties` entries with keys of unknown length,
/// so a map is unbounded unless its values are the only thing left to bound.
///
/// ```
/// use mongo_schema::lint::{worst_case_size, SizeBound};
/// use mongo_schema::schema::{BsonType, JsonSchema};
/// let mut doc = JsonSchema::bson_type(BsonType::Object);
/// doc.properties.insert("n".into(), JsonSchema::bson_type(BsonType::Int));
/// // 4 (length) + 1 (type) + 2 ("n\0") + 4 (int) + 1 (terminator)
/// assert_eq!(worst_case_size(&doc), SizeBound::Bounded { bytes: 12, dominant: "n".into() });
/// ```
pub fn worst_case_size(schema: &JsonSchema) -> SizeBound {
    value_size(schema, &mut String::new())
}

fn unbounded(path: &str) -> SizeBound {
    SizeBound::Unbounded {
        path: path.to_owned(),
    }
}

fn bounded(bytes: u64, dominant: &str) -> SizeBound {
    SizeBound::Bounded {
        bytes,
        dominant: dominant.to_owned(),
    }
}

/// The larger of two bounds; unbounded wins.
fn larger(a: SizeBound, b: SizeBound) -> SizeBound {
    match (a.bytes(), b.bytes()) {
        (None, _) => a,
        (_, None) => b,
        (Some(x), Some(y)) => {
            if y > x {
                b
            } else {
                a
            }
        }
    }
}

fn value_size(schema: &JsonSchema, path: &mut String) -> SizeBound {
    // An enum bounds the value by its largest member, whatever the other keywords say.
    if let Some(members) = &schema.enumeration {
        let bytes = members.iter().map(bson_value_size).max().unwrap_or(0);
        return bounded(bytes, path);
    }
    // allOf: every branch must hold, so the tightest bounded branch bounds the value.
    if let Some(all) = &schema.all_of {
        let tightest = all
            .iter()
            .map(|b| value_size(b, path))
            .filter_map(|b| b.bytes().map(|n| (n, b)))
            .min_by_key(|(n, _)| *n);
        if let Some((_, b)) = tightest {
            return b;
        }
    }
    let alternatives: Vec<&JsonSchema> = schema
        .any_of
        .iter()
        .chain(schema.one_of.iter())
        .flatten()
        .collect();
    if !alternatives.is_empty() && schema.types.is_none() {
        return alternatives
            .into_iter()
            .map(|b| value_size(b, path))
            .reduce(larger)
            .unwrap_or_else(|| unbounded(path));
    }
    let Some(types) = schema.allowed_types() else {
        return unbounded(path);
    };
    types
        .into_iter()
        .map(|ty| typed_size(schema, ty, path))
        .reduce(larger)
        .unwrap_or_else(|| unbounded(path))
}

fn typed_size(schema: &JsonSchema, ty: BsonType, path: &mut String) -> SizeBound {
    let fixed = |n: u64| bounded(n, path);
    match ty {
        BsonType::Double | BsonType::Long | BsonType::Date | BsonType::Timestamp => fixed(8),
        BsonType::Int => fixed(4),
        BsonType::Decimal => fixed(16),
        BsonType::Number => fixed(16),
        BsonType::ObjectId => fixed(12),
        BsonType::Bool => fixed(1),
        BsonType::Null | BsonType::Undefined | BsonType::MinKey | BsonType::MaxKey => fixed(0),
        BsonType::String | BsonType::Symbol | BsonType::JavaScript => match schema.max_length {
            // int32 length + up to 4 UTF-8 bytes per code point + NUL
            Some(n) => fixed(4 + 4 * n + 1),
            None => unbounded(path),
        },
        BsonType::BinData
        | BsonType::Regex
        | BsonType::DbPointer
        | BsonType::JavaScriptWithScope => unbounded(path),
        BsonType::Array => array_size(schema, path),
        BsonType::Object => object_size(schema, path),
    }
}

fn array_size(schema: &JsonSchema, path: &mut String) -> SizeBound {
    let element = |index: u64, item: SizeBound| -> SizeBound {
        match item {
            // type byte + decimal index key + NUL + value
            SizeBound::Bounded { bytes, dominant } => SizeBound::Bounded {
                bytes: 1 + index.max(1).to_string().len() as u64 + 1 + bytes,
                dominant,
            },
            u => u,
        }
    };
    match &schema.items {
        Some(Items::Positional(list))
            if matches!(schema.additional_items, Some(Additional::Allowed(false))) =>
        {
            let mut total = 5;
            let mut dominant = (0, path.clone());
            for (i, item) in list.iter().enumerate() {
                let size = with_segment(path, &i.to_string(), |p| value_size(item, p));
                match element(i as u64, size) {
                    SizeBound::Bounded { bytes, dominant: d } => {
                        total += bytes;
                        if bytes > dominant.0 {
                            dominant = (bytes, d);
                        }
                    }
                    u => return u,
                }
            }
            SizeBound::Bounded {
                bytes: total,
                dominant: dominant.1,
            }
        }
        _ => {
            let Some(max) = schema.max_items else {
                return unbounded(path);
            };
            let item = match &schema.items {
                Some(Items::Single(items)) => with_segment(path, "[]", |p| value_size(items, p)),
                _ => unbounded(path),
            };
            match element(max.saturating_sub(1), item) {
                SizeBound::Bounded { bytes, dominant } => SizeBound::Bounded {
                    bytes: 5u64.saturating_add(max.saturating_mul(bytes)),
                    dominant,
                },
                u => u,
            }
        }
    }
}

fn object_size(schema: &JsonSchema, path: &mut String) -> SizeBound {
    let mut total: u64 = 5;
    let mut dominant = (0u64, path.clone());
    for (name, property) in &schema.properties {
        let size = with_segment(path, name, |p| value_size(property, p));
        match size {
            SizeBound::Bounded { bytes, dominant: d } => {
                let entry = 1 + name.len() as u64 + 1 + bytes;
                total = total.saturating_add(entry);
                if entry > dominant.0 {
                    dominant = (entry, d);
                }
            }
            u => return u,
        }
    }
    if let Some(Additional::Schema(_)) = &schema.additional_properties {
        // A map's keys have no length bound in $jsonSchema: the map is unbounded.
        return with_segment(path, "*", |p| unbounded(p));
    }
    SizeBound::Bounded {
        bytes: total,
        dominant: dominant.1,
    }
}

fn bson_value_size(value: &bson::Bson) -> u64 {
    use bson::Bson;
    match value {
        Bson::Double(_) | Bson::Int64(_) | Bson::DateTime(_) | Bson::Timestamp(_) => 8,
        Bson::Int32(_) => 4,
        Bson::Decimal128(_) => 16,
        Bson::ObjectId(_) => 12,
        Bson::Boolean(_) => 1,
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => 4 + s.len() as u64 + 1,
        Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey => 0,
        Bson::Document(d) => bson::RawDocumentBuf::try_from(d)
            .map(|r| r.as_bytes().len() as u64)
            .unwrap_or(0),
        Bson::Array(a) => {
            let doc: bson::Document = a
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v.clone()))
                .collect();
            bson_value_size(&Bson::Document(doc))
        }
        Bson::Binary(b) => 4 + 1 + b.bytes.len() as u64,
        Bson::RegularExpression(r) => r.pattern.len() as u64 + r.options.len() as u64 + 2,
        other => other.to_string().len() as u64,
    }
}

/// Which rule a finding comes from; the kebab-case name is stable for tooling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LintKind {
    /// An array with no `maxItems`.
    UnboundedArray,
    /// The worst-case document size passes 16 MiB, or is unbounded.
    DocumentSize,
    /// An index whose leading field has very few distinct values.
    LowCardinalityPrefix,
    /// A unique index on a variant's field, not scoped to that variant.
    UnscopedUniqueIndex,
    /// A ranged shard key whose leading field only grows.
    MonotonicShardKey,
}

impl LintKind {
    /// The rule's stable name (`unbounded-array`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            LintKind::UnboundedArray => "unbounded-array",
            LintKind::DocumentSize => "document-size",
            LintKind::LowCardinalityPrefix => "low-cardinality-prefix",
            LintKind::UnscopedUniqueIndex => "unscoped-unique-index",
            LintKind::MonotonicShardKey => "monotonic-shard-key",
        }
    }
}

/// An enum with at most this many members counts as "very few values" for an index prefix.
pub const LOW_CARDINALITY: usize = 4;

/// Runs every model lint over one collection.
///
/// Arrays acknowledged as unbounded on purpose are not reported: those the declaration lists
/// (`#[mongo(unbounded)]`, [`CollectionSpec::acknowledged_unbounded`]) and those in
/// `allow_unbounded` (stored paths, for specs read from a manifest).
///
/// ```
/// use mongo_schema::spec::CollectionSpec;
/// use mongo_schema::lint::{lint_collection, LintKind};
/// use mongo_schema::{MongoSchema, SchemaGenerator, generate::object};
///
/// let mut user = object();
/// user.properties.insert("liked_posts".into(), <Vec<String>>::json_schema(&mut SchemaGenerator::default()));
/// let spec = CollectionSpec::new("users").json_schema(user);
/// let rules: Vec<&str> = lint_collection(&spec, &[]).into_iter().map(|l| l.rule).collect();
/// assert!(rules.contains(&LintKind::UnboundedArray.as_str()));
/// assert!(lint_collection(&spec, &["liked_posts".into()]).iter().all(|l| l.rule != LintKind::UnboundedArray.as_str()));
/// ```
pub fn lint_collection(spec: &CollectionSpec, allow_unbounded: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    let schema = spec.validator.as_ref().and_then(|v| v.json_schema.as_ref());
    let finding = |kind: LintKind, severity, path: &str, message: String| {
        Finding::new(&spec.name, severity, kind.as_str(), path, message)
    };
    if let Some(schema) = schema {
        for path in unbounded_arrays(schema) {
            if allow_unbounded.contains(&path) || spec.acknowledged_unbounded.contains(&path) {
                continue;
            }
            out.push(finding(
                LintKind::UnboundedArray,
                Severity::Warning,
                &path,
                format!(
                    "array {} has no maxItems: an array that grows forever approaches the 16 MiB \
                     document limit and makes every update rewrite a large document; bound it \
                     (#[mongo(max_items = N)]), move it to its own collection, or acknowledge it \
                     with #[mongo(unbounded)]",
                    shown(&path)
                ),
            ));
        }
        match worst_case_size(schema) {
            SizeBound::Bounded { bytes, dominant } if bytes > MAX_BSON_SIZE => out.push(finding(
                LintKind::DocumentSize,
                Severity::Error,
                &dominant,
                format!(
                    "a document can reach {bytes} bytes, over the {MAX_BSON_SIZE}-byte limit \
                     (mostly {})",
                    shown(&dominant)
                ),
            )),
            SizeBound::Unbounded { path } => out.push(finding(
                LintKind::DocumentSize,
                Severity::Note,
                &path,
                format!(
                    "worst-case document size is unbounded (first at {})",
                    shown(&path)
                ),
            )),
            SizeBound::Bounded { .. } => {}
        }
        for index in &spec.indexes {
            if let Some(lint) = low_cardinality_prefix(schema, index) {
                out.push(finding(
                    LintKind::LowCardinalityPrefix,
                    lint.0,
                    &index.effective_name(),
                    lint.1,
                ));
            }
            if let Some(message) = unscoped_unique(schema, index) {
                out.push(finding(
                    LintKind::UnscopedUniqueIndex,
                    Severity::Error,
                    &index.effective_name(),
                    message,
                ));
            }
        }
    }
    if let Some(shard_key) = &spec.shard_key {
        if let Some((field, kind)) = shard_key.keys.iter().next() {
            let leading_types = schema.map(|s| types_at(s, field));
            let monotonic = match (kind, leading_types) {
                (IndexKind::Hashed, _) => false,
                // The default _id is an ObjectId, which grows with time.
                (_, None) => field == "_id",
                (_, Some(types)) if types.is_empty() => field == "_id",
                (_, Some(types)) => types.iter().all(|t| {
                    matches!(t, BsonType::ObjectId | BsonType::Date | BsonType::Timestamp)
                }),
            };
            if monotonic {
                out.push(finding(
                    LintKind::MonotonicShardKey,
                    Severity::Warning,
                    field,
                    format!(
                        "ranged shard key leads with {field}, which only grows (an ObjectId or a \
                         date): every insert goes to the last chunk, one shard takes all writes; \
                         shard on {{{field}: \"hashed\"}} or lead with a well-spread field"
                    ),
                ));
            }
        }
    }
    out
}

fn shown(path: &str) -> &str {
    if path.is_empty() {
        "the document"
    } else {
        path
    }
}

/// The schemas a stored path can reach, through embedded documents, array elements (a
/// multikey path names a field of the elements) and every combinator branch.
pub fn schemas_at<'a>(schema: &'a JsonSchema, path: &str) -> Vec<&'a JsonSchema> {
    let mut out = Vec::new();
    let segments: Vec<&str> = path.split('.').collect();
    collect_at(schema, &segments, &mut out);
    out
}

fn collect_at<'a>(schema: &'a JsonSchema, segments: &[&str], out: &mut Vec<&'a JsonSchema>) {
    for branch in branches(schema) {
        collect_at(branch, segments, out);
    }
    let Some((first, rest)) = segments.split_first() else {
        out.push(schema);
        return;
    };
    if let Some(property) = schema.properties.get(*first) {
        collect_at(property, rest, out);
    }
    if let Some(Items::Single(items)) = &schema.items {
        collect_at(items, segments, out);
    }
}

/// The BSON types a stored path may hold by the schema (empty when nothing constrains it).
fn types_at(schema: &JsonSchema, path: &str) -> Vec<BsonType> {
    let mut types = Vec::new();
    for s in schemas_at(schema, path) {
        if let Some(allowed) = s.allowed_types() {
            for t in allowed {
                if t != BsonType::Null && !types.contains(&t) {
                    types.push(t);
                }
            }
        }
    }
    types
}

fn low_cardinality_prefix(schema: &JsonSchema, index: &IndexSpec) -> Option<(Severity, String)> {
    let (field, kind) = index.keys.iter().next()?;
    if !matches!(kind, IndexKind::Ascending | IndexKind::Descending) {
        return None;
    }
    if index.partial_filter_expression.is_some() {
        return None;
    }
    let reached = schemas_at(schema, field);
    if reached.is_empty() {
        return None;
    }
    let mut values = 0usize;
    for s in &reached {
        let count = match (&s.enumeration, s.allowed_types().as_deref()) {
            (Some(members), _) => members.iter().filter(|m| **m != Bson::Null).count(),
            (None, Some([BsonType::Bool])) | (None, Some([BsonType::Bool, BsonType::Null])) => 2,
            _ => return None,
        };
        values += count;
    }
    if values > LOW_CARDINALITY {
        return None;
    }
    let name = index.effective_name();
    Some(if index.keys.len() == 1 {
        (
            Severity::Warning,
            format!(
                "index {name} is on {field} alone, which has at most {values} values: each key \
                 matches a large share of the collection, so the index rarely beats a scan and \
                 costs every write; index it after a selective field, or use a partial index"
            ),
        )
    } else {
        (
            Severity::Note,
            format!(
                "index {name} leads with {field}, which has at most {values} values: fine for \
                 queries with equality on {field}, useless for the others"
            ),
        )
    })
}

/// The discriminator of a polymorphic schema: the property every branch pins to one value.
fn discriminator(schema: &JsonSchema) -> Option<(&str, Vec<&JsonSchema>)> {
    let branches: Vec<&JsonSchema> = schema
        .any_of
        .iter()
        .chain(schema.one_of.iter())
        .flatten()
        .collect();
    if branches.len() < 2 {
        return None;
    }
    let pins = |b: &JsonSchema| -> Vec<String> {
        b.properties
            .iter()
            .filter(|(name, p)| {
                p.enumeration.as_ref().is_some_and(|e| e.len() == 1)
                    && b.required.as_ref().is_some_and(|r| r.contains(name))
            })
            .map(|(name, _)| name.clone())
            .collect()
    };
    let first = pins(branches[0]);
    let name = first
        .into_iter()
        .find(|n| branches.iter().all(|b| pins(b).contains(n)))?;
    let name = branches[0].properties.get_key_value(&name)?.0.as_str();
    Some((name, branches))
}

fn unscoped_unique(schema: &JsonSchema, index: &IndexSpec) -> Option<String> {
    if !index.unique || index.sparse {
        return None;
    }
    let (tag, branches) = discriminator(schema)?;
    if index
        .partial_filter_expression
        .as_ref()
        .is_some_and(|f| f.contains_key(tag))
    {
        return None;
    }
    let (field, _) = index
        .keys
        .iter()
        .find(|(field, _)| branches.iter().any(|b| schemas_at(b, field).is_empty()))?;
    Some(format!(
        "unique index {} covers {field}, which only some variants have: every document of the \
         other variants indexes it as null, so the second one is refused as a duplicate; scope \
         the index to its variant (a partial filter on {tag}), or make it sparse",
        index.effective_name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{MongoSchema, SchemaGenerator, array_of, object};

    fn schema_of<T: MongoSchema>() -> JsonSchema {
        T::json_schema(&mut SchemaGenerator::default())
    }

    #[test]
    fn vec_without_max_items_is_unbounded() {
        let mut doc = object();
        doc.properties
            .insert("liked_posts".into(), schema_of::<Vec<String>>());
        assert_eq!(unbounded_arrays(&doc), vec!["liked_posts".to_owned()]);
    }

    #[test]
    fn bounded_array_and_fixed_length_array_stay_silent() {
        let mut doc = object();
        let mut bounded = schema_of::<Vec<String>>();
        bounded.max_items = Some(10);
        doc.properties.insert("reviews".into(), bounded);
        doc.properties
            .insert("pair".into(), schema_of::<(i32, i32)>());
        doc.properties.insert("rgb".into(), schema_of::<[u8; 3]>());
        assert!(unbounded_arrays(&doc).is_empty());
    }

    #[test]
    fn nested_unbounded_array_is_reported_with_its_path() {
        let mut item = object();
        item.properties
            .insert("tags".into(), schema_of::<Vec<String>>());
        let mut list = array_of(item);
        list.max_items = Some(50);
        let mut doc = object();
        doc.properties.insert("comments".into(), list);
        assert_eq!(unbounded_arrays(&doc), vec!["comments.[].tags".to_owned()]);
    }

    #[test]
    fn string_without_max_length_makes_the_size_unbounded() {
        let mut doc = object();
        doc.properties.insert("name".into(), schema_of::<String>());
        assert_eq!(
            worst_case_size(&doc),
            SizeBound::Unbounded {
                path: "name".into()
            }
        );
    }

    #[test]
    fn bounded_bucket_size_names_the_dominant_path() {
        let mut reading = object();
        reading.properties.insert("t".into(), schema_of::<i32>());
        reading.properties.insert("temp".into(), schema_of::<f64>());
        let mut readings = array_of(reading);
        readings.max_items = Some(60);
        let mut doc = object();
        doc.properties.insert("count".into(), schema_of::<i32>());
        doc.properties.insert("readings".into(), readings);
        let SizeBound::Bounded { bytes, dominant } = worst_case_size(&doc) else {
            panic!("bounded expected");
        };
        assert_eq!(dominant, "readings.[].temp");
        // reading: 5 + (1+2+8 t as long) + (1+5+8 temp) = 30; element: 1 + 2 ("59") + 1 + 30 = 34
        // array: 5 + 60 * 34 = 2045; doc: 5 + (1+6+8 count) + (1+9+2045) = 2075
        assert_eq!(bytes, 2075);
    }

    mod collection_lints {
        use super::*;
        use crate::generate::string_enum;
        use crate::spec::{CollectionSpec, ShardKey};
        use crate::spec::{IndexKind::*, IndexSpec};
        use bson::doc;

        fn kinds(spec: &CollectionSpec) -> Vec<(&'static str, Severity, String)> {
            lint_collection(spec, &[])
                .into_iter()
                .filter(|l| l.rule != LintKind::DocumentSize.as_str())
                .map(|l| (l.rule, l.severity, l.path))
                .collect()
        }

        fn orders() -> JsonSchema {
            let mut s = object();
            s.properties.insert("user_id".into(), schema_of::<String>());
            s.properties.insert(
                "status".into(),
                string_enum(["PENDING", "PAID", "SHIPPED", "CANCELLED"]),
            );
            s.properties.insert("paid".into(), schema_of::<bool>());
            s.properties
                .insert("created_at".into(), schema_of::<bson::DateTime>());
            s.properties
                .insert("_id".into(), schema_of::<bson::oid::ObjectId>());
            s
        }

        #[test]
        fn single_field_index_on_a_boolean_is_a_warning() {
            let spec = CollectionSpec::new("orders")
                .json_schema(orders())
                .index(IndexSpec::new([("paid", Ascending)]));
            assert_eq!(
                kinds(&spec),
                vec![(
                    LintKind::LowCardinalityPrefix.as_str(),
                    Severity::Warning,
                    "paid_1".into()
                )]
            );
        }

        #[test]
        fn compound_index_led_by_a_small_enum_is_a_note_and_a_selective_lead_is_silent() {
            let spec = CollectionSpec::new("orders")
                .json_schema(orders())
                .index(IndexSpec::new([
                    ("status", Ascending),
                    ("created_at", Descending),
                ]))
                .index(IndexSpec::new([
                    ("user_id", Ascending),
                    ("status", Ascending),
                    ("created_at", Descending),
                ]));
            assert_eq!(
                kinds(&spec),
                vec![(
                    LintKind::LowCardinalityPrefix.as_str(),
                    Severity::Note,
                    "status_1_created_at_-1".into()
                )]
            );
        }

        #[test]
        fn partial_index_on_a_boolean_stays_silent() {
            let spec = CollectionSpec::new("orders").json_schema(orders()).index(
                IndexSpec::new([("paid", Ascending)])
                    .partial_filter_expression(doc! { "paid": false }),
            );
            assert!(kinds(&spec).is_empty());
        }

        fn catalog() -> JsonSchema {
            let variant = |tag: &str, field: &str| {
                let mut b = object();
                b.properties.insert("type".into(), string_enum([tag]));
                b.properties.insert("title".into(), schema_of::<String>());
                b.properties.insert(field.into(), schema_of::<String>());
                b.require("type");
                b
            };
            JsonSchema {
                any_of: Some(vec![variant("BOOK", "isbn"), variant("COURSE", "level")]),
                ..JsonSchema::default()
            }
        }

        #[test]
        fn unique_index_on_one_variants_field_must_be_scoped() {
            let spec = CollectionSpec::new("catalog")
                .json_schema(catalog())
                .index(IndexSpec::new([("isbn", Ascending)]).unique(true));
            assert_eq!(
                kinds(&spec),
                vec![(
                    LintKind::UnscopedUniqueIndex.as_str(),
                    Severity::Error,
                    "isbn_1".into()
                )]
            );
        }

        #[test]
        fn scoped_or_shared_unique_indexes_stay_silent() {
            let spec = CollectionSpec::new("catalog")
                .json_schema(catalog())
                .index(
                    IndexSpec::new([("isbn", Ascending)])
                        .unique(true)
                        .partial_filter_expression(doc! { "type": "BOOK" }),
                )
                .index(IndexSpec::new([("title", Ascending)]).unique(true))
                .index(
                    IndexSpec::new([("level", Ascending)])
                        .unique(true)
                        .sparse(true),
                );
            assert!(kinds(&spec).is_empty());
        }

        #[test]
        fn ranged_shard_key_on_a_date_or_default_id_is_monotonic() {
            let by_date = CollectionSpec::new("events")
                .json_schema(orders())
                .shard_key(ShardKey::ranged(["created_at"]));
            assert_eq!(
                kinds(&by_date),
                vec![(
                    LintKind::MonotonicShardKey.as_str(),
                    Severity::Warning,
                    "created_at".into()
                )]
            );
            let by_id = CollectionSpec::new("events").shard_key(ShardKey::ranged(["_id"]));
            assert_eq!(kinds(&by_id).len(), 1);
        }

        #[test]
        fn hashed_or_well_spread_shard_keys_stay_silent() {
            let hashed = CollectionSpec::new("events")
                .json_schema(orders())
                .shard_key(ShardKey::hashed("created_at"));
            assert!(kinds(&hashed).is_empty());
            let spread = CollectionSpec::new("events")
                .json_schema(orders())
                .shard_key(ShardKey::ranged(["user_id", "created_at"]));
            assert!(kinds(&spread).is_empty());
        }
    }
}
