//! `#[mongo(crate = "...")]`: types derived in a crate that knows mongo-schema by another name
//! (a renamed dependency, here `schema`, or a re-export of it, `facade::db`). The expansion
//! reaches the crate only through that path, so this crate compiling is the test.

use serde::{Deserialize, Serialize};

/// The way an application re-exports the crate from a module of its own.
pub mod facade {
    pub use schema as db;
}

/// A collection root derived through the renamed dependency: schema, declaration, index,
/// query and version reader all expand.
#[derive(Debug, PartialEq, Serialize, Deserialize, schema::MongoSchema)]
#[mongo(
    crate = "schema",
    collection = "accounts",
    validation_level = "strict",
    index(keys(email), unique),
    query(name = "by_email", eq(email)),
    version(field = "v", current = 2, previous(AccountV1 = 1))
)]
pub struct Account {
    v: i32,
    email: String,
    #[mongo(minimum = 0)]
    age: i32,
    #[mongo(ttl = 3600)]
    seen_at: bson::DateTime,
}

/// The older shape `version(...)` reads.
#[derive(Serialize, Deserialize, schema::MongoSchema)]
#[mongo(crate = "facade::db")]
pub struct AccountV1 {
    email: String,
}

impl From<AccountV1> for Account {
    fn from(v1: AccountV1) -> Account {
        Account {
            v: 2,
            email: v1.email,
            age: 0,
            seen_at: bson::DateTime::from_millis(0),
        }
    }
}

/// Generic and enum expansions take other paths in the derive (no `const` spec, map keys).
#[derive(Serialize, Deserialize, facade::db::MongoSchema)]
#[mongo(crate = "facade::db")]
pub enum Level<T> {
    /// Nothing to say.
    Low,
    /// With a value.
    High(T),
}

/// A unit-only enum also gets the string-key impls.
#[derive(Serialize, Deserialize, facade::db::MongoSchema)]
#[mongo(crate = "facade::db")]
pub enum Colour {
    /// Red.
    Red,
    /// Blue.
    Blue,
}

#[cfg(test)]
mod tests {
    use super::*;
    use schema::MongoSchema as _;
    use schema::spec::Collection as _;
    use schema::version::Versioned as _;

    #[test]
    fn derived_through_a_renamed_crate_builds_spec_and_schema() {
        let spec = Account::collection_spec();
        assert_eq!(spec.name, "accounts");
        let schema = Account::root_schema().to_document();
        assert!(
            schema
                .get_document("properties")
                .unwrap()
                .contains_key("email")
        );
        let level = <Level<Colour>>::root_schema().to_document();
        assert!(level.contains_key("anyOf"), "{level}");
    }

    #[test]
    fn version_reader_expands_through_the_renamed_crate() {
        let old = bson::rawdoc! { "email": "a@b.c" };
        let read = Account::from_any_version(&old).unwrap();
        assert_eq!(read.email, "a@b.c");
    }
}
