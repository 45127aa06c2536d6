//! Application shapes of `tests/corpus/apps.rs` written as their sources write them: with bson
//! 2's types and bson 2's helper names (`chrono_datetime_as_bson_datetime`,
//! `hex_string_as_object_id`, ...), where the bson 3 corpus uses bson 3's names. Each comment
//! names the source, as in `apps.rs`; the shapes are re-typed in our own words.

#![allow(dead_code, reason = "fields exist to be serialized")]

use std::collections::HashMap;

use bson2::oid::ObjectId;
use mongo_schema::MongoSchema;
use proptest::prelude::*;
use proptest_derive::Arbitrary;
use serde::{Deserialize, Serialize};

use crate::values::{Wrap, chrono_millis, key, rfc3339_date};

fn oid() -> impl Strategy<Value = ObjectId> {
    any::<[u8; 12]>().prop_map(ObjectId::from_bytes)
}

fn maybe_oid() -> impl Strategy<Value = Option<ObjectId>> {
    proptest::option::of(oid())
}

fn date() -> impl Strategy<Value = bson2::DateTime> {
    any::<i64>().prop_map(bson2::DateTime::from_millis)
}

/// Dates bson 2 writes as RFC 3339 (years 1 to 9999), from the bson 3 corpus's range.
fn rfc3339() -> impl Strategy<Value = bson2::DateTime> {
    rfc3339_date().prop_map(|d| bson2::DateTime::from_millis(d.timestamp_millis()))
}

fn uuid() -> impl Strategy<Value = bson2::Uuid> {
    any::<[u8; 16]>().prop_map(bson2::Uuid::from_bytes)
}

fn document() -> impl Strategy<Value = bson2::Document> {
    let value = prop_oneof![
        any::<i32>().prop_map(bson2::Bson::Int32),
        any::<i64>().prop_map(bson2::Bson::Int64),
        any::<bool>().prop_map(bson2::Bson::Boolean),
        "[a-z]{0,4}".prop_map(bson2::Bson::String),
        Just(bson2::Bson::Null),
    ];
    prop::collection::btree_map("[a-z]{1,4}", value, 0..3).prop_map(|m| m.into_iter().collect())
}

/// Every shape derives the same traits.
macro_rules! models {
    ($($(#[$m:meta])* pub struct $name:ident $body:tt)*) => {$(
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
        $(#[$m])*
        pub struct $name $body
    )*};
}

models! {
    // judegiordano/mongoose-rs README.md: a string id, an unsigned age and two chrono
    // timestamps stored as BSON dates through bson 2's helper.
    /// A user whose timestamps are BSON dates.
    pub struct MongooseUser {
        #[serde(rename = "_id")]
        pub id: String,
        pub age: u32,
        pub username: String,
        #[serde(with = "bson2::serde_helpers::chrono_datetime_as_bson_datetime")]
        #[proptest(strategy = "chrono_millis()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
        #[serde(with = "bson2::serde_helpers::chrono_datetime_as_bson_datetime")]
        #[proptest(strategy = "chrono_millis()")]
        pub updated_at: chrono::DateTime<chrono::Utc>,
    }

    // assidiqi598/halalho-rust bff/src/models/user.rs: camelCase timestamps through the
    // helper.
    /// A user with camelCase timestamps.
    pub struct HalalUser {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub username: String,
        pub email: String,
        #[serde(
            rename = "createdAt",
            with = "bson2::serde_helpers::chrono_datetime_as_bson_datetime"
        )]
        #[proptest(strategy = "chrono_millis()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
    }

    // dfberry/rust crates/crate_mongodb_crud/src/model.rs: a BSON date written as an RFC 3339
    // string.
    /// A catalogue item whose date is a string.
    pub struct CrudItem {
        pub name: String,
        pub category: String,
        #[serde(with = "bson2::serde_helpers::bson_datetime_as_rfc3339_string")]
        #[proptest(strategy = "rfc3339()")]
        pub created_at: bson2::DateTime,
    }

    // wandercn/serialize_with_bson README.md: genome samples with a map of dates, an embedded
    // document and a list of strings.
    /// A bacterium sample.
    pub struct Bacterium {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub has_genome: bool,
        #[proptest(strategy = "date()")]
        pub creation_time: bson2::DateTime,
        #[proptest(strategy = "prop::collection::hash_map(key(), date(), 0..3)")]
        pub locations: HashMap<String, bson2::DateTime>,
        #[proptest(strategy = "document()")]
        pub taxonomy: bson2::Document,
        pub backtrace: Vec<String>,
    }

    // Unnamed source (as in apps.rs): a user with embedded sessions, hex-string ids and chrono
    // dates through bson 2's helpers, a bson Uuid.
    /// A login session embedded in its user.
    pub struct EmbeddedSession {
        #[serde(with = "bson2::serde_helpers::hex_string_as_object_id")]
        #[proptest(strategy = "\"[0-9a-f]{24}\"")]
        pub _id: String,
        #[serde(with = "bson2::serde_helpers::chrono_datetime_as_bson_datetime")]
        #[proptest(strategy = "chrono_millis()")]
        pub expiration: chrono::DateTime<chrono::Utc>,
        #[proptest(strategy = "uuid()")]
        pub id: bson2::Uuid,
        pub csrf: String,
    }

    /// A user holding optional embedded sessions.
    pub struct SessionUser {
        #[serde(with = "bson2::serde_helpers::hex_string_as_object_id")]
        #[proptest(strategy = "\"[0-9a-f]{24}\"")]
        pub _id: String,
        pub email: String,
        pub sessions: Option<Vec<EmbeddedSession>>,
    }

    // integraledelebesgue/Weekings weeking/src/database/post.rs: optional references.
    /// A post with optional category and owner references.
    pub struct WeekPost {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "date()")]
        pub creation_date: bson2::DateTime,
        pub text: String,
        #[proptest(strategy = "maybe_oid()")]
        pub category: Option<ObjectId>,
        #[proptest(strategy = "maybe_oid()")]
        pub owner: Option<ObjectId>,
    }

    // opensass/opensass src/server/subscriber/model.rs: a renamed chrono date through the
    // helper, here as bson 2's bare functions (its docs' other spelling).
    /// A newsletter subscriber.
    pub struct Subscriber {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub email: String,
        #[serde(
            rename = "createdAt",
            serialize_with = "bson2::serde_helpers::serialize_chrono_datetime_as_bson_datetime",
            deserialize_with = "bson2::serde_helpers::deserialize_chrono_datetime_from_bson_datetime"
        )]
        #[proptest(strategy = "chrono_millis()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
    }
}

crate::props::properties! {
    cases = 24;
    exact;
    mongoose_user: MongooseUser,
    halal_user: HalalUser,
    crud_item: CrudItem,
    bacterium: Bacterium,
    embedded_session: EmbeddedSession,
    session_user: SessionUser,
    week_post: WeekPost,
    subscriber: Subscriber,
}
