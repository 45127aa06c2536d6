//! # mongo-schema
//!
//! Make your Rust types the single source of truth for your MongoDB collections.
//! `#[derive(MongoSchema)]` turns a serde type into the collection's `$jsonSchema` validator,
//! honouring serde exactly: it accepts every document the type writes and rejects what the type
//! cannot read.
//!
//! ```
//! use mongo_schema::{MongoSchema, SchemaGenerator};
//!
//! // Every Rust type with a BSON form has a schema; derived types build on these.
//! let schema = <Vec<Option<i32>>>::json_schema(&mut SchemaGenerator::default());
//! assert_eq!(
//!     schema.to_document(),
//!     bson::doc! {
//!         "bsonType": "array",
//!         "items": {
//!             "bsonType": ["int", "long", "null"],
//!             "minimum": i32::MIN,
//!             "maximum": i32::MAX,
//!         },
//!     },
//! );
//! ```
//!
//! The collection around the schema is a [`CollectionSpec`] (the declared model, in [`spec`]):
//! validator, options, indexes and shard key, as `#[mongo(collection = "...")]` declares them.
//!
//! ```
//! use mongo_schema::{CollectionSpec, IndexKind, IndexSpec};
//!
//! let orders = CollectionSpec::new("orders")
//!     .index(IndexSpec::new([("user_id", IndexKind::Ascending), ("at", IndexKind::Descending)]));
//! assert_eq!(orders.indexes[0].default_name(), "user_id_1_at_-1");
//! orders.check()?;
//! # Ok::<(), mongo_schema::spec::SpecError>(())
//! ```

pub mod access;
pub mod catalog;
pub mod declare;
pub mod diff;
pub mod eval;
pub mod evolve;
pub mod extjson;
mod finding;
pub mod formats;
pub mod generate;
pub mod infer;
pub mod lint;
pub mod manifest;
pub mod normalize;
pub mod patterns;
pub mod plural;
pub mod registry;
pub mod schema;
pub mod spec;
mod value;
pub mod version;

pub use eval::Validator;
pub use finding::{Finding, Severity};
pub use generate::{
    GeneratorSettings, MongoSchema, NumberTypes, PathError, SchemaGenerator, nullable, root_schema,
};
pub use schema::{BsonType, ExtJsonMode, JsonSchema};
pub use spec::{Collection, CollectionSpec, IndexKind, IndexSpec};

#[cfg(feature = "derive")]
pub use mongo_schema_derive::MongoSchema;

/// Everything `#[derive(MongoSchema)]` expands to names, and nothing else does: generated code
/// reaches the crate only through `<crate>::__private::...` (as serde's and schemars' derives
/// do), so `#[mongo(crate = "...")]` can point it at a re-export and the public paths can move
/// without breaking derived code. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use bson;
    pub use inventory;

    pub use crate::access::{QueryRegistration, QuerySpec, resolve_all};
    pub use crate::declare;
    pub use crate::generate::derive_support;
    pub use crate::generate::{MongoSchema, PathError, SchemaGenerator};
    pub use crate::registry::Registration;
    pub use crate::schema::JsonSchema;
    pub use crate::spec::{Collection, CollectionSpec, SpecError};
    pub use crate::version::{VersionError, Versioned, read_as, unknown, version_of};
}
