//! The serde attribute matrix: every tagging style x flatten (open and `deny_unknown_fields`)
//! x skip variants x default x rename/alias x generics x Option nesting x maps/sets/tuples x
//! Box/Arc/Cow x the helper crates. Each type names what it crosses.

#![allow(dead_code, reason = "fields exist to be serialized")]

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use mongo_schema::MongoSchema;
use proptest::prelude::*;
use proptest_derive::Arbitrary;
use serde::{Deserialize, Serialize};

use crate::values::*;

// ---- enums of each tagging style, each with every variant shape serde allows ----

/// Externally tagged: unit, newtype, tuple and struct variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub enum External {
    Unit,
    Flag(bool),
    Pair(i32, String),
    Shape { w: f64, h: f64 },
}

/// Internally tagged: unit, newtype over a struct, newtype over a unit struct, struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(tag = "kind")]
pub enum Internal {
    Unit,
    Wrapped(Inner),
    Nothing(Empty),
    Shape { w: f64, h: f64 },
}

/// Internally tagged without a closed variant: the shape a flattened enum keeps tight
/// (a closed variant flattened beside other fields admits unknown fields: a documented gap).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(tag = "kind")]
pub enum InternalOpen {
    Unit,
    Wrapped(Inner),
    Shape { w: f64, h: f64 },
}

/// Adjacently tagged: unit, newtype, tuple, struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Unit,
    Flag(bool),
    Pair(i32, String),
    Shape { w: f64, h: f64 },
}

/// Untagged: struct shapes that serde tells apart by their fields, then a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(untagged)]
pub enum Untagged {
    Shape { w: f64, h: f64 },
    Named { name: String },
    Text(String),
}

/// A unit struct: bson writes null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct Empty;

/// A plain embedded struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct Inner {
    pub a: i32,
    pub b: Option<String>,
}

/// A closed embedded struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(deny_unknown_fields)]
pub struct ClosedInner {
    pub a: i32,
}

// ---- flatten x tagging style x deny_unknown_fields (issue 11 item 1) ----

/// An open struct `$open` flattening `$ty` beside `f` and `g`, and with `$closed` the same with
/// `deny_unknown_fields` (only where serde can read it back: not beside a type serde reads as a
/// map, which the derive refuses; `closed_struct_beside_a_map_read_flatten_cannot_read_itself`).
macro_rules! flattened {
    ($($(#[$m:meta])* $open:ident $(, $closed:ident)?: $ty:ty;)*) => {$(
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
        pub struct $open {
            pub f: f32,
            #[serde(flatten)]
            pub e: $ty,
            pub g: Option<u8>,
        }
        $(
        /// The open struct's type with `deny_unknown_fields`.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
        #[serde(deny_unknown_fields)]
        pub struct $closed {
            pub f: f32,
            #[serde(flatten)]
            pub e: $ty,
            pub g: Option<u8>,
        }
        )?
    )*};
}

/// One data variant only: the issue's own example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub enum OneVariant {
    B(bool),
}

/// A struct that flattens an enum, to be flattened in turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct Nest {
    pub n: i8,
    #[serde(flatten)]
    pub e: External,
}

flattened! {
    /// Flattens an externally tagged enum of one variant.
    FlatOne, FlatOneClosed: OneVariant;
    /// Flattens an externally tagged enum: the variant's key sits beside `f`.
    FlatExternal, FlatExternalClosed: External;
    /// Flattens an internally tagged enum: the tag and the variant's fields sit beside `f`.
    FlatInternal: InternalOpen;
    /// Flattens an adjacently tagged enum: `t` and `c` sit beside `f`.
    FlatAdjacent, FlatAdjacentClosed: Adjacent;
    /// Flattens an optional externally tagged enum: serde reads None when no variant reads.
    FlatOptionExternal, FlatOptionExternalClosed: Option<External>;
    /// Flattens an optional internally tagged enum.
    FlatOptionInternal: Option<InternalOpen>;
    /// Flattens a struct that itself flattens an externally tagged enum.
    FlatNested: Nest;
    /// Flattens a closed struct.
    FlatClosedInner, FlatClosedInnerClosed: ClosedInner;
}

/// Flattens an untagged enum (its struct variants are read from the leftover fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct FlatUntagged {
    pub f: f32,
    #[serde(flatten)]
    pub e: UntaggedShapes,
}

/// Untagged struct variants only: a flattened untagged enum must be a map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(untagged)]
pub enum UntaggedShapes {
    Shape { w: f64, h: f64 },
    Named { name: String },
}

/// Two flattened enums side by side, and a flattened struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct FlatTwo {
    pub id: i64,
    #[serde(flatten)]
    pub first: OneVariant,
    #[serde(flatten)]
    pub second: Adjacent,
    #[serde(flatten)]
    pub inner: Inner,
}

// ---- internally tagged newtype over a unit struct (issue 11 item 4) ----

/// `{kind: "Nothing"}` only: serde reads the unit struct from an empty rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(tag = "kind")]
pub enum OverUnit {
    Nothing(Empty),
    Zero(()),
    Some { a: i32 },
}

// ---- sets whose written members can collide (issue 11 item 7) ----

/// A member that skips a field: `{a, 1}` and `{a, 2}` both write `{name: "a"}`.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    MongoSchema,
    Arbitrary,
)]
pub struct Tagged {
    pub name: String,
    #[serde(skip)]
    pub n: u8,
}

/// A member whose written form is lossy: an f32 and its widened f64 are distinct values.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    MongoSchema,
    Arbitrary,
)]
pub struct Slot {
    #[proptest(strategy = "0_u8..3")]
    pub at: u8,
    #[serde(skip_serializing, default)]
    pub cached: bool,
}

/// Sets of members that can collide, and of members that cannot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct Sets {
    #[proptest(strategy = "prop::collection::hash_set(any::<Tagged>(), 0..4)")]
    pub tags: HashSet<Tagged>,
    #[proptest(strategy = "prop::collection::btree_set(any::<Slot>(), 0..4)")]
    pub slots: BTreeSet<Slot>,
    pub names: BTreeSet<String>,
    pub numbers: HashSet<i64>,
}

// ---- skip x default x rename x alias ----

fn seven() -> u8 {
    7
}

/// Every skip variant with and without a default, renames and aliases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(rename_all = "camelCase")]
pub struct Attributes {
    #[serde(rename = "_id")]
    pub id: i64,
    pub first_name: String,
    #[serde(alias = "surname", alias = "familyName")]
    pub last_name: String,
    #[serde(skip)]
    pub cache: u64,
    #[serde(skip_serializing, default)]
    pub write_never: Option<String>,
    #[serde(skip_deserializing)]
    pub read_never: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maybe: Option<i32>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub tags: Vec<String>,
    #[serde(default = "seven")]
    pub level: u8,
    #[serde(default)]
    pub count: u32,
    #[serde(
        rename(serialize = "outName", deserialize = "inName"),
        alias = "outName"
    )]
    pub split: Option<bool>,
}

/// Option nesting, maps, sets, tuples and pointers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct Containers {
    pub twice: Option<Option<i32>>,
    pub list_of_options: Vec<Option<String>>,
    pub option_of_list: Option<Vec<u16>>,
    #[proptest(strategy = "prop::collection::btree_map(key(), any::<Option<i8>>(), 0..3)")]
    pub map: BTreeMap<String, Option<i8>>,
    #[proptest(strategy = "prop::collection::hash_map(key(), any::<Vec<bool>>(), 0..3)")]
    pub hash_map: HashMap<String, Vec<bool>>,
    pub tuple: (i32, String, Option<bool>),
    pub tuples: Vec<(u8, u8)>,
    pub array: [i16; 3],
    pub boxed: Box<Inner>,
    pub shared: Arc<String>,
    #[proptest(strategy = "cow()")]
    pub cow: Cow<'static, str>,
    pub boxed_str: Box<str>,
    pub nested: Vec<Vec<Option<External>>>,
}

/// Generic over its payload, with a defaulted parameter in use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct Envelope<T> {
    pub version: u8,
    pub payload: T,
    pub history: Vec<T>,
}

/// Enum variants with skip, rename, alias, other and per-variant rename_all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Created {
        at: i64,
    },
    #[serde(rename = "renamed", alias = "moved")]
    Renamed {
        from: String,
        to: String,
    },
    #[serde(skip_serializing)]
    Legacy,
    #[serde(rename_all = "camelCase")]
    Closed {
        closed_by: String,
        reopen_count: u32,
    },
    #[serde(other)]
    Unknown,
}

/// An enum as a map key and a unit-only enum with renames.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    MongoSchema,
    Arbitrary,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Level {
    Low,
    HighPriority,
}

/// Enum keys and values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct Levels {
    pub by_level: BTreeMap<Level, u32>,
    pub current: Level,
    pub previous: Option<Level>,
}

// ---- helper crates: serde_with, bson's serde_helpers, uuid, time ----

/// serde_with's `skip_serializing_none` and `serde_as`, bson's helpers under both `with` and
/// `serde_as`, serde_bytes, and fields whose stored form is stated (`DisplayFromStr` writes a string;
/// every u64 up to i64::MAX has at most 19 digits, and every 19-digit string parses).
#[serde_with::serde_as]
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct Helpers {
    pub maybe: Option<u8>,
    pub maybe_text: Option<String>,
    #[serde_as(as = "serde_with::DisplayFromStr")]
    #[mongo(bson_type = "string", pattern = "^[0-9]{1,19}\\z")]
    #[proptest(strategy = "0..=i64::MAX as u64")]
    pub count: u64,
    #[serde(with = "bson::serde_helpers::uuid_1::AsBinary")]
    #[proptest(strategy = "uuid()")]
    pub id: uuid::Uuid,
    #[serde_as(as = "Option<bson::serde_helpers::datetime::FromChrono04DateTime>")]
    #[proptest(strategy = "proptest::option::of(chrono_millis())")]
    pub at: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(with = "bson::serde_helpers::datetime::FromTime03OffsetDateTime")]
    #[proptest(strategy = "odt_millis()")]
    pub stamped: time::OffsetDateTime,
    #[serde(with = "serde_bytes")]
    #[mongo(bson_type = "binData")]
    pub bytes: Vec<u8>,
    #[serde_as(as = "Vec<bson::serde_helpers::object_id::AsHexString>")]
    #[proptest(strategy = "prop::collection::vec(oid(), 0..3)")]
    pub refs: Vec<bson::oid::ObjectId>,
}

crate::props::properties! {
    cases = 24;
    external: External,
    internal: Internal,
    adjacent: Adjacent,
    untagged: Untagged,
    flat_one: FlatOne,
    flat_one_closed: FlatOneClosed,
    flat_external: FlatExternal,
    flat_external_closed: FlatExternalClosed,
    flat_internal: FlatInternal,
    flat_adjacent: FlatAdjacent,
    flat_adjacent_closed: FlatAdjacentClosed,
    flat_option_external: FlatOptionExternal,
    flat_option_external_closed: FlatOptionExternalClosed,
    flat_option_internal: FlatOptionInternal,
    flat_nested: FlatNested,
    flat_closed_inner: FlatClosedInner,
    flat_closed_inner_closed: FlatClosedInnerClosed,
    flat_untagged: FlatUntagged,
    flat_two: FlatTwo,
    over_unit: OverUnit,
    sets: Sets,
    attributes: Attributes,
    containers: Containers,
    envelope: Envelope<Option<Internal>>,
    event: Event,
    levels: Levels,
    helpers: Helpers,
}

/// Found by the matrix: `deny_unknown_fields` beside a flattened value that serde reads as a
/// map (an internally tagged enum, a struct that flattens in turn) cannot read what it writes:
/// `FlatMapDeserializer` hands the map the fields without taking them, and the closed struct
/// then reports them as unknown. The derive refuses these types (`tests/ui/serde-conflict/
/// deny-unknown-beside-*.rs`); here they derive serde alone, to show why.
#[test]
fn closed_struct_beside_a_map_read_flatten_cannot_read_itself() {
    macro_rules! closed {
        ($($closed:ident: $ty:ty;)*) => {$(
            #[derive(Serialize, Deserialize)]
            #[serde(deny_unknown_fields)]
            struct $closed {
                f: f32,
                #[serde(flatten)]
                e: $ty,
                g: Option<u8>,
            }
        )*};
    }
    closed! {
        FlatInternalClosed: InternalOpen;
        FlatOptionInternalClosed: Option<InternalOpen>;
        FlatNestedClosed: Nest;
    }
    fn round_trips<T: Serialize + serde::de::DeserializeOwned>(value: &T) -> bool {
        let raw = bson::serialize_to_vec(value).expect("writes");
        bson::deserialize_from_slice::<T>(&raw).is_ok()
    }
    let internal = FlatInternalClosed {
        f: 1.0,
        e: InternalOpen::Unit,
        g: None,
    };
    let nested = FlatNestedClosed {
        f: 1.0,
        e: Nest {
            n: 1,
            e: External::Unit,
        },
        g: None,
    };
    assert!(!round_trips(&internal));
    assert!(!round_trips(&nested));
    assert!(!round_trips(&FlatOptionInternalClosed {
        f: 1.0,
        e: Some(InternalOpen::Unit),
        g: None,
    }));
}

/// A closed struct reads one externally tagged variant key and refuses the rest as unknown
/// fields: two keys must fail the validator too.
#[test]
fn closed_struct_admits_one_flattened_variant_key() {
    let two = bson::doc! { "f": 1.0, "Flag": true, "Pair": [1, "a"], "g": null };
    let raw = bson::RawDocumentBuf::try_from(&two).expect("a document");
    assert!(bson::deserialize_from_slice::<FlatExternalClosed>(raw.as_bytes()).is_err());
    assert!(!crate::props::validator::<FlatExternalClosed>().is_valid(&raw));
    // The struct that is not closed reads it (the first key wins) and so passes.
    assert!(bson::deserialize_from_slice::<FlatExternal>(raw.as_bytes()).is_ok());
    assert!(crate::props::validator::<FlatExternal>().is_valid(&raw));
}
