//! Multikey paths: which fields of a collection can hold arrays (from its schema), as the planner
//! treats them.

use std::collections::BTreeSet;

use crate::schema::{Additional, BsonType, Items, JsonSchema};
use crate::spec::CollectionSpec;

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
                .json_schema
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
pub(super) const MAX_SCHEMA_DEPTH: usize = 64;

pub(super) fn collect_arrays(
    schema: &JsonSchema,
    path: &str,
    found: &mut BTreeSet<String>,
    depth: usize,
) {
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

pub(super) fn is_same_or_under(path: &str, prefix: &str) -> bool {
    path == prefix
        || (path.len() > prefix.len()
            && path.starts_with(prefix)
            && path.as_bytes()[prefix.len()] == b'.')
}
