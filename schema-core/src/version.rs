//! Schema versions during a migration: one validator that accepts every version still stored,
//! each branch pinned to its version, and the read side that turns any accepted version into
//! the current type (the lazy migration of the schema-versioning pattern).
//!
//! The derive builds on this module for `#[mongo(version(field = "schemaVersion", current = 2,
//! previous(UserV1 = 1)))]`; everything here also works by hand.

use bson::{Bson, RawBsonRef, RawDocument, doc};

use crate::schema::{BsonType, JsonSchema, TypeConstraint};

/// One stored version of a collection's documents.
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    /// The value of the version field for this version.
    pub value: i64,
    /// Whether documents of this version may lack the version field (those written before
    /// versioning was introduced).
    pub may_be_absent: bool,
    /// The schema of a document of this version.
    pub schema: JsonSchema,
}

/// A versioned collection's declared versions, current first: the declaration `plan` reads to
/// say when the older versions can go (no stored document left at one of them) and what the
/// validator of the current version alone would be.
#[derive(Clone, Debug, PartialEq)]
pub struct Versions {
    /// The version field's stored name.
    pub field: String,
    /// The versions, the current one first (never empty).
    pub versions: Vec<Version>,
}

impl Versions {
    /// The current version's value.
    pub fn current(&self) -> i64 {
        self.versions.first().map_or(0, |v| v.value)
    }

    /// The versions other than the current one.
    pub fn older(&self) -> &[Version] {
        self.versions.get(1..).unwrap_or_default()
    }

    /// The documents not at the current version (what [`Versioned::outdated_filter`] finds).
    pub fn outdated_filter(&self) -> bson::Document {
        doc! { self.field.as_str(): { "$ne": integer(self.current()) } }
    }

    /// The collection's validator schema once the older versions are dropped from the
    /// declaration: the current version's branch alone, with the server's `_id` admitted, as
    /// the declaration would then derive it.
    pub fn current_only(&self) -> JsonSchema {
        crate::generate::root_schema(versioned(
            &self.field,
            &self.versions[..1.min(self.versions.len())],
        ))
    }
}

/// Pins `schema` to one version: the version field must equal `value` (any numeric type, as the
/// server's `enum` compares numbers by value), or, when `may_be_absent`, may also be missing.
pub fn pin(field: &str, version: &Version) -> JsonSchema {
    let mut schema = version.schema.clone();
    // Numbers compare by value in `enum`: int 2, long 2 and double 2.0 all match `[2]`. The
    // field's own schema stays beside it, so a version field the type reads as an integer
    // still refuses 2.0, which it could not read.
    let mut pinned = schema.properties.get(field).cloned().unwrap_or_default();
    pinned.enumeration = Some(vec![integer(version.value)]);
    schema.properties.insert(field.to_owned(), pinned);
    if version.may_be_absent {
        if let Some(required) = &mut schema.required {
            required.retain(|r| r != field);
            if required.is_empty() {
                schema.required = None;
            }
        }
    } else {
        schema.require(field);
    }
    if schema.types.is_none() && schema.any_of.is_none() && schema.one_of.is_none() {
        schema.types = Some(TypeConstraint::BsonType(vec![BsonType::Object]));
    }
    schema
}

fn integer(value: i64) -> Bson {
    match i32::try_from(value) {
        Ok(v) => Bson::Int32(v),
        Err(_) => Bson::Int64(value),
    }
}

/// The validator schema of a versioned collection: `anyOf` one pinned branch per version,
/// current first (the branch alone when there is one version).
///
/// ```
/// use mongo_schema::version::{versioned, Version};
/// use mongo_schema::generate::object;
/// let schema = versioned(
///     "schemaVersion",
///     &[
///         Version { value: 2, may_be_absent: false, schema: object() },
///         Version { value: 1, may_be_absent: true, schema: object() },
///     ],
/// );
/// assert_eq!(schema.any_of.as_ref().map(Vec::len), Some(2));
/// ```
pub fn versioned(field: &str, versions: &[Version]) -> JsonSchema {
    if let [only] = versions {
        // One version: its pinned branch, without an `anyOf` of one.
        return pin(field, only);
    }
    JsonSchema {
        any_of: Some(versions.iter().map(|v| pin(field, v)).collect()),
        ..JsonSchema::default()
    }
}

/// Why a stored document could not be read as any accepted version.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VersionError {
    /// The version field holds something other than a whole number.
    #[error("{field} is {found}, not a whole number")]
    NotANumber {
        /// The version field.
        field: String,
        /// What it holds, rendered.
        found: String,
    },
    /// The version is not one the type accepts.
    #[error("{field} is {version}, which this program does not read (it reads {accepted})")]
    Unknown {
        /// The version field.
        field: String,
        /// The stored version (`None` when absent).
        version: String,
        /// The versions accepted, rendered.
        accepted: String,
    },
    /// The document has the version's number but not its shape.
    #[error("version {version}: {source}")]
    Deserialize {
        /// The stored version.
        version: String,
        /// bson's error.
        source: bson::error::Error,
    },
    /// The bytes are not a readable document.
    #[error("malformed document: {0}")]
    Malformed(#[from] bson::error::Error),
}

/// Reads the version field of a stored document: `None` when absent or null, the whole number
/// otherwise (int, long, or a double or decimal with no fraction).
///
/// # Errors
/// [`VersionError::NotANumber`] for any other value; [`VersionError::Malformed`] for bad bytes.
pub fn version_of(document: &RawDocument, field: &str) -> Result<Option<i64>, VersionError> {
    let not_a_number = |found: String| VersionError::NotANumber {
        field: field.to_owned(),
        found,
    };
    match document.get(field)? {
        None | Some(RawBsonRef::Null) => Ok(None),
        Some(RawBsonRef::Int32(v)) => Ok(Some(i64::from(v))),
        Some(RawBsonRef::Int64(v)) => Ok(Some(v)),
        Some(RawBsonRef::Double(v)) if v.fract() == 0.0 && v.abs() < 9.0e15 => Ok(Some(v as i64)),
        Some(RawBsonRef::Decimal128(d)) => d
            .to_string()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| not_a_number(d.to_string())),
        Some(other) => Err(not_a_number(format!("{other:?}"))),
    }
}

/// A type read from any stored version of its collection, converting older versions with `From`.
///
/// The derive implements it for a collection with `#[mongo(version(...))]`.
pub trait Versioned: Sized {
    /// The version field's stored name.
    const FIELD: &'static str;
    /// The current version.
    const CURRENT: i64;

    /// Reads a stored document of any accepted version as the current type.
    ///
    /// # Errors
    /// [`VersionError`] when the version is unknown or the document does not have its shape.
    fn from_any_version(document: &RawDocument) -> Result<Self, VersionError>;

    /// The filter that finds the documents still on an older version: the background
    /// migration's query (`{schemaVersion: {$ne: 2}}` also matches documents without it).
    fn outdated_filter() -> bson::Document {
        doc! { Self::FIELD: { "$ne": integer(Self::CURRENT) } }
    }
}

/// Deserializes `document` as `T`, labelling a failure with its version.
///
/// # Errors
/// [`VersionError::Deserialize`] with bson's reason.
pub fn read_as<T: serde::de::DeserializeOwned>(
    document: &RawDocument,
    version: Option<i64>,
) -> Result<T, VersionError> {
    bson::deserialize_from_slice(document.as_bytes()).map_err(|source| VersionError::Deserialize {
        version: version.map_or_else(|| "absent".to_owned(), |v| v.to_string()),
        source,
    })
}

/// The error for a version no branch accepts.
pub fn unknown(field: &str, version: Option<i64>, accepted: &[i64]) -> VersionError {
    VersionError::Unknown {
        field: field.to_owned(),
        version: version.map_or_else(|| "absent".to_owned(), |v| v.to_string()),
        accepted: accepted
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{MongoSchema, SchemaGenerator, object};

    fn user_v2() -> JsonSchema {
        let mut s = object();
        for f in ["firstName", "lastName"] {
            s.properties.insert(
                f.into(),
                String::json_schema(&mut SchemaGenerator::default()),
            );
            s.require(f);
        }
        s.properties.insert(
            "schemaVersion".into(),
            i32::json_schema(&mut SchemaGenerator::default()),
        );
        s.require("schemaVersion");
        s
    }

    fn user_v1() -> JsonSchema {
        let mut s = object();
        s.properties.insert(
            "name".into(),
            String::json_schema(&mut SchemaGenerator::default()),
        );
        s.require("name");
        s
    }

    #[test]
    fn current_branch_requires_its_pinned_version() {
        let pinned = pin(
            "schemaVersion",
            &Version {
                value: 2,
                may_be_absent: false,
                schema: user_v2(),
            },
        );
        // The pin keeps the field's type: an i32 field refuses 2.0, which it cannot read.
        assert_eq!(
            pinned.properties["schemaVersion"].to_document(),
            doc! {
                "bsonType": ["int", "long"],
                "enum": [2],
                "minimum": i32::MIN,
                "maximum": i32::MAX,
            }
        );
        assert!(
            pinned
                .required
                .as_ref()
                .is_some_and(|r| r.contains(&"schemaVersion".to_owned()))
        );
    }

    #[test]
    fn oldest_branch_may_lack_the_field() {
        let pinned = pin(
            "schemaVersion",
            &Version {
                value: 1,
                may_be_absent: true,
                schema: user_v1(),
            },
        );
        assert_eq!(pinned.required, Some(vec!["name".to_owned()]));
        assert_eq!(
            pinned.properties["schemaVersion"].to_document(),
            doc! { "enum": [1] }
        );
    }

    #[test]
    fn version_of_reads_every_numeric_type_and_absence() {
        let raw = |d: bson::Document| bson::RawDocumentBuf::try_from(&d).unwrap();
        assert_eq!(version_of(&raw(doc! { "v": 2_i64 }), "v").unwrap(), Some(2));
        assert_eq!(version_of(&raw(doc! { "v": 2.0 }), "v").unwrap(), Some(2));
        assert_eq!(version_of(&raw(doc! {}), "v").unwrap(), None);
        assert!(matches!(
            version_of(&raw(doc! { "v": 2.5 }), "v"),
            Err(VersionError::NotANumber { .. })
        ));
        assert!(matches!(
            version_of(&raw(doc! { "v": "2" }), "v"),
            Err(VersionError::NotANumber { .. })
        ));
    }

    #[test]
    fn outdated_filter_matches_other_and_missing_versions() {
        struct U;
        impl Versioned for U {
            const FIELD: &'static str = "schemaVersion";
            const CURRENT: i64 = 2;
            fn from_any_version(_: &RawDocument) -> Result<Self, VersionError> {
                Ok(U)
            }
        }
        assert_eq!(U::outdated_filter(), doc! { "schemaVersion": { "$ne": 2 } });
    }
}
