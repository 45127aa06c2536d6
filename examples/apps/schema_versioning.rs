//! Schema versioning: version 1 users stored one `name`; version 2 stores `firstName` and
//! `lastName` with `schemaVersion: 2`. The validator accepts both while the migration runs; the
//! application reads either into the current type, rewrites a document on its next update, and
//! a background job finds the rest with one filter.

use bson::{Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::patterns::Update;
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema::version::Versioned;
use serde::{Deserialize, Serialize};

use crate::{Example, json};

/// A user as version 2 stores it (`users`). The validator accepts version 2 and version 1 (which
/// may lack the field), each branch pinned to its `schemaVersion`; the derive also implements
/// `Versioned`, reading a version 1 document through `From<UserV1>`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "camelCase")]
#[mongo(
    collection = "users",
    version(field = "schemaVersion", current = 2, previous(UserV1 = 1)),
    // Load a user by id, whichever version it was written in.
    query(name = "by_id", eq(id), project(first_name, last_name, schema_version))
)]
pub struct User {
    /// The user id.
    #[serde(rename = "_id")]
    #[mongo(max_length = 40)]
    pub id: String,
    /// Given name.
    #[mongo(max_length = 100)]
    pub first_name: String,
    /// Family name; empty for a mononym.
    #[mongo(max_length = 100)]
    pub last_name: String,
    /// Always 2 for this shape.
    pub schema_version: i32,
}

/// A user as version 1 stored it: one `name`, with `schemaVersion: 1` or, in the oldest ones, no
/// version field at all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserV1 {
    /// The user id.
    #[serde(rename = "_id")]
    #[mongo(max_length = 40)]
    pub id: String,
    /// The full name as typed.
    #[mongo(max_length = 200)]
    pub name: String,
    // No `schemaVersion` field: the validator pins it to 1 (or absent), and not reading it means
    // a `1.0` written by the legacy shell, which the pin accepts, still reads.
}

/// Splits a version 1 name at its first space: `"Asha Rao"` is Asha / Rao, `"Cher"` is Cher /
/// "" (the seed's warning: a naive `split(" ")[1]` crashes on a name without a space).
pub fn split_name(name: &str) -> (String, String) {
    match name.split_once(' ') {
        Some((first, rest)) => (first.to_owned(), rest.to_owned()),
        None => (name.to_owned(), String::new()),
    }
}

impl From<UserV1> for User {
    fn from(old: UserV1) -> User {
        let (first_name, last_name) = split_name(&old.name);
        User {
            id: old.id,
            first_name,
            last_name,
            schema_version: 2,
        }
    }
}

/// The lazy migration: rewrite a document read in an old shape as the current one, only if it
/// is still old (another writer may have migrated it meanwhile).
pub fn migrate(user: &User) -> Update {
    Update::new(
        "users",
        doc! { "_id": &user.id, User::FIELD: { "$ne": 2 } },
        doc! {
            "$set": { "firstName": &user.first_name, "lastName": &user.last_name, User::FIELD: 2 },
            "$unset": { "name": "" },
        },
    )
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "schema_versioning",
    pattern: "schema versioning (users)",
    summary: "Version 1 stored `name`; version 2 stores `firstName`, `lastName` and \
              `schemaVersion: 2`. The declaration `version(field = \"schemaVersion\", current = 2, \
              previous(UserV1 = 1))` makes the validator an anyOf with one branch per version, \
              each pinning its schemaVersion (version 1 may lack it). Reading goes through \
              `Versioned::from_any_version`, converting with `From<UserV1> for User`, which \
              splits at the first space and keeps a name without one whole. \
              `Versioned::outdated_filter` is the background job's query.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![User::collection_spec()]
}

fn explain() -> String {
    let stored = [
        doc! { "_id": "u_1", "name": "Asha Rao" },
        doc! { "_id": "u_2", "name": "Cher", "schemaVersion": 1 },
        doc! { "_id": "u_3", "firstName": "Lin", "lastName": "Wei", "schemaVersion": 2 },
    ];
    let mut out = String::from("Stored documents, read as the current User:\n");
    for document in &stored {
        let raw = bson::RawDocumentBuf::try_from(document).expect("a document encodes");
        let read = match User::from_any_version(&raw) {
            Ok(user) => format!(
                "firstName {:?}, lastName {:?}",
                user.first_name, user.last_name
            ),
            Err(e) => format!("error: {e}"),
        };
        out.push_str(&format!("  {} -> {read}\n", json(document)));
    }
    let asha = User::from(UserV1 {
        id: "u_1".into(),
        name: "Asha Rao".into(),
    });
    let lazy = migrate(&asha);
    out.push_str(&format!(
        "\nLazy migration on the next write: db.users.updateOne({}, {})\n\
         Background migration, in batches: db.users.find({})\n",
        json(&lazy.filter),
        json(&lazy.update),
        json(&User::outdated_filter()),
    ));
    out
}

/// The deployment still has the version 1 validator: `check` shows the validator to replace.
fn drift() -> Vec<Document> {
    vec![doc! { "collMod": "users", "validator": UserV1::root_schema().to_validator() }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict;
    use mongo_schema::version::VersionError;

    fn read(document: Document) -> Result<User, VersionError> {
        User::from_any_version(&bson::RawDocumentBuf::try_from(&document).unwrap())
    }

    #[test]
    fn a_name_without_a_space_does_not_crash() {
        assert_eq!(split_name("Cher"), ("Cher".into(), String::new()));
        assert_eq!(split_name(""), (String::new(), String::new()));
        assert_eq!(
            split_name("Asha Rao Kumar"),
            ("Asha".into(), "Rao Kumar".into())
        );
        let cher = read(doc! { "_id": "u_2", "name": "Cher" }).unwrap();
        assert_eq!(
            (cher.first_name.as_str(), cher.last_name.as_str()),
            ("Cher", "")
        );
        assert_eq!(cher.schema_version, 2);
    }

    #[test]
    fn every_accepted_version_reads_and_others_are_refused() {
        let v2 = read(
            doc! { "_id": "u", "firstName": "Lin", "lastName": "Wei", "schemaVersion": 2_i64 },
        );
        assert_eq!(v2.unwrap().first_name, "Lin");
        let v1 = read(doc! { "_id": "u", "name": "Asha Rao", "schemaVersion": 1.0 }).unwrap();
        assert_eq!(
            (v1.first_name.as_str(), v1.last_name.as_str()),
            ("Asha", "Rao")
        );
        assert!(matches!(
            read(doc! { "_id": "u", "name": "x", "schemaVersion": 3 }),
            Err(VersionError::Unknown { .. })
        ));
        assert!(matches!(
            read(doc! { "_id": "u", "name": "x", "schemaVersion": 2 }),
            Err(VersionError::Deserialize { .. })
        ));
    }

    #[test]
    fn the_validator_accepts_each_version_in_its_own_shape_only() {
        let spec = User::collection_spec();
        let accepts = |d: Document| verdict(&spec, &d).is_ok();
        assert!(accepts(doc! { "_id": "u", "name": "Asha" }));
        assert!(accepts(
            doc! { "_id": "u", "name": "Asha", "schemaVersion": 1 }
        ));
        assert!(accepts(
            doc! { "_id": "u", "firstName": "A", "lastName": "", "schemaVersion": 2 }
        ));
        assert!(!accepts(
            doc! { "_id": "u", "name": "Asha", "schemaVersion": 2 }
        ));
        assert!(!accepts(
            doc! { "_id": "u", "firstName": "A", "lastName": "" }
        ));
    }

    #[test]
    fn migration_writes_the_current_shape_once() {
        let user = User::from(UserV1 {
            id: "u_2".into(),
            name: "Cher".into(),
        });
        let write = migrate(&user);
        assert_eq!(
            write.filter,
            doc! { "_id": "u_2", "schemaVersion": { "$ne": 2 } }
        );
        assert_eq!(
            write.update,
            doc! { "$set": { "firstName": "Cher", "lastName": "", "schemaVersion": 2 }, "$unset": { "name": "" } }
        );
        assert_eq!(
            User::outdated_filter(),
            doc! { "schemaVersion": { "$ne": 2 } }
        );
    }
}
