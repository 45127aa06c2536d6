//! The declared model: a collection ([`CollectionSpec`]: validator, options, indexes, shard
//! key), its collation and indexes ([`IndexSpec`]), the checks each part makes against what the
//! server would refuse, and the errors. Declarations (the derive, a manifest) build it;
//! `normalize` turns server replies into it; `diff` compares a declared one with a live one.

mod collation;
mod collection;
mod error;
mod index;
pub(crate) mod read;
pub(crate) mod search;
mod validator;
pub(crate) mod view;

pub use collation::Collation;
pub use collection::{
    Capped, ClusteredIndex, Collection, CollectionOptions, CollectionSpec, Granularity, ShardKey,
    TimeseriesOptions, ValidationAction, ValidationLevel,
};
pub use error::{DocumentError, SpecError};
pub use index::{
    IndexKeys, IndexKind, IndexSpec, MAX_INDEXES, MAX_KEY_FIELDS, is_wildcard_path, resolve_path,
};
pub use search::{
    MAPPING_TYPES, MAX_DIMENSIONS, QUANTIZATIONS, SIMILARITIES, SearchIndexSpec, SearchIndexType,
    VectorField,
};
pub use validator::ValidatorSpec;
pub use view::View;
