//! Schemas of the std types serde writes as structures of their own (durations, ranges,
//! bounds, addresses) and of the std wrappers it writes as their content; each matches
//! serde's own `Serialize` and `Deserialize` for the type as bson runs them.

use std::cmp::Reverse;
use std::marker::PhantomData;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroIsize, NonZeroU8, NonZeroU16, NonZeroU32,
    NonZeroU64, NonZeroUsize, Saturating, Wrapping,
};
use std::ops::{Bound, Range, RangeFrom, RangeInclusive, RangeTo};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, SystemTime};

use bson::Bson;

use super::{MongoSchema, SchemaGenerator, Visiting, derive_support, object, tuple};
use crate::schema::{Additional, BsonType, JsonSchema, Number};

/// A closed object of required fields: how serde writes std's structs (`Duration`, `Range`),
/// whose visitors refuse an unknown field (`serde::de::impls`).
fn closed_struct(fields: Vec<(&str, JsonSchema)>) -> JsonSchema {
    let mut schema = object();
    for (name, field) in fields {
        schema.properties.insert(name.to_owned(), field);
        schema.require(name);
    }
    schema.additional_properties = Some(Additional::Allowed(false));
    schema
}

impl MongoSchema for Duration {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        // `{secs: u64, nanos: u32}`; serde carries nanos of a second or more into secs.
        closed_struct(vec![
            ("secs", u64::json_schema(g)),
            ("nanos", u32::json_schema(g)),
        ])
    }
}

impl MongoSchema for SystemTime {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        // The time since the epoch; serde refuses to write a time before it.
        closed_struct(vec![
            ("secs_since_epoch", u64::json_schema(g)),
            ("nanos_since_epoch", u32::json_schema(g)),
        ])
    }
}

impl<T: MongoSchema> MongoSchema for Range<T> {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        let bound = T::json_schema(g);
        closed_struct(vec![("start", bound.clone()), ("end", bound)])
    }
}

impl<T: MongoSchema> MongoSchema for RangeInclusive<T> {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        Range::<T>::json_schema(g)
    }
}

impl<T: MongoSchema> MongoSchema for RangeFrom<T> {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        closed_struct(vec![("start", T::json_schema(g))])
    }
}

impl<T: MongoSchema> MongoSchema for RangeTo<T> {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        closed_struct(vec![("end", T::json_schema(g))])
    }
}

/// An externally tagged enum of unit variants `units` and newtype variants `data`.
fn external_enum(units: &[&str], data: Vec<(&str, JsonSchema)>) -> JsonSchema {
    let mut branches = Vec::new();
    if !units.is_empty() {
        branches.push(super::string_enum(units.iter().copied()));
    }
    for (name, content) in data {
        branches.push(derive_support::external(name, content));
    }
    derive_support::any_of(branches)
}

impl<T: MongoSchema> MongoSchema for Bound<T> {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        let bound = T::json_schema(g);
        external_enum(
            &["Unbounded"],
            vec![("Included", bound.clone()), ("Excluded", bound)],
        )
    }
}

impl<T: MongoSchema, E: MongoSchema> MongoSchema for Result<T, E> {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        external_enum(
            &[],
            vec![("Ok", T::json_schema(g)), ("Err", E::json_schema(g))],
        )
    }
}

impl<T: ?Sized> MongoSchema for PhantomData<T> {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // A unit struct: written as null, read only from null (a missing field is an error).
        JsonSchema::bson_type(BsonType::Null)
    }
}

macro_rules! non_zero {
    ($($ty:ty => $int:ty),* $(,)?) => {$(
        impl MongoSchema for $ty {
            fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
            fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
                let mut schema = <$int>::json_schema(g);
                if <$int>::MIN == 0 {
                    schema.minimum = Some(Number::Int32(1));
                } else {
                    // serde refuses zero; BSON compares 0, 0L and 0.0 equal in `enum`.
                    schema.not = Some(Box::new(JsonSchema {
                        enumeration: Some(vec![Bson::Int32(0)]),
                        ..JsonSchema::default()
                    }));
                }
                schema
            }
        }
    )*};
}

non_zero! {
    NonZeroI8 => i8, NonZeroI16 => i16, NonZeroI32 => i32, NonZeroI64 => i64,
    NonZeroIsize => isize, NonZeroU8 => u8, NonZeroU16 => u16, NonZeroU32 => u32,
    NonZeroU64 => u64, NonZeroUsize => usize,
}

macro_rules! transparent {
    ($($(#[$m:meta])* impl<$t:ident> for $ty:ty;)*) => {$(
        $(#[$m])*
        impl<$t: MongoSchema> MongoSchema for $ty {
            const MAY_BE_ABSENT: bool = $t::MAY_BE_ABSENT;
            fn distinct_forms(visiting: &mut Visiting) -> bool {
                $t::distinct_forms(visiting)
            }
            fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
                $t::json_schema(g)
            }
        }
    )*};
}

transparent! {
    /// serde writes a `Wrapping` as its number.
    impl<T> for Wrapping<T>;
    /// serde writes a `Saturating` as its number.
    impl<T> for Saturating<T>;
    /// serde writes a `Reverse` as its content.
    impl<T> for Reverse<T>;
    /// serde writes a locked value as its content.
    impl<T> for Mutex<T>;
    /// serde writes a locked value as its content.
    impl<T> for RwLock<T>;
}

// Addresses: serde writes the string form only to human-readable formats. bson's raw
// serializer is not one, so the driver writes and reads the compact form below; the
// `serialize_to_document` path writes the string, which the driver cannot read back and the
// validator therefore refuses.

fn octets(g: &mut SchemaGenerator, n: usize) -> JsonSchema {
    tuple(vec![u8::json_schema(g); n])
}

impl MongoSchema for Ipv4Addr {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        octets(g, 4)
    }
}

impl MongoSchema for Ipv6Addr {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        octets(g, 16)
    }
}

impl MongoSchema for IpAddr {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        external_enum(&[], vec![("V4", octets(g, 4)), ("V6", octets(g, 16))])
    }
}

impl MongoSchema for SocketAddrV4 {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        tuple(vec![octets(g, 4), u16::json_schema(g)])
    }
}

impl MongoSchema for SocketAddrV6 {
    // The compact form drops the flow info and scope id.
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        tuple(vec![octets(g, 16), u16::json_schema(g)])
    }
}

impl MongoSchema for SocketAddr {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        let v4 = SocketAddrV4::json_schema(g);
        let v6 = SocketAddrV6::json_schema(g);
        external_enum(&[], vec![("V4", v4), ("V6", v6)])
    }
}

impl MongoSchema for std::path::PathBuf {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // Written as its UTF-8 string (serde refuses a path that is not UTF-8), read from any
        // string.
        JsonSchema::bson_type(BsonType::String)
    }
}

impl MongoSchema for std::path::Path {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        std::path::PathBuf::json_schema(g)
    }
}

impl<T: MongoSchema + Ord> MongoSchema for std::collections::BinaryHeap<T> {
    fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
        // A sequence in the heap's internal order; equal members may repeat.
        super::array_of(T::json_schema(g))
    }
}
