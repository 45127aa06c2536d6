//! How Rust types build the `$jsonSchema` IR: the [`MongoSchema`] trait, the [`SchemaGenerator`]
//! that carries settings and the recursion guard, and the implementations for the core Rust
//! types; the other families (std structures, bson, chrono, time, uuid, serde_json, url,
//! rust_decimal) are in `generate/`, each behind its crate's feature.
//!
//! The contract every implementation keeps: *sound* (every value bson's raw serializer writes,
//! as the driver's inserts do, passes; so does every value `bson::serialize_to_document`
//! writes, as `$set` updates do, that the driver can read back) and *tight* (every value that
//! passes deserializes with bson's raw deserializer, as the driver reads), wherever
//! `$jsonSchema` can say it. Where the two serializers differ (`uuid::Uuid`, `IpAddr` and
//! `SocketAddr` are strings on the document path, which the driver cannot read back), the
//! validator admits the form the driver reads. A property is `required` exactly when serde cannot read the type
//! from a missing field ([`MongoSchema::MAY_BE_ABSENT`]).
//!
//! # `#[derive(MongoSchema)]`
//! The derive (crate `mongo-schema-derive`, re-exported here) honours serde's attributes as
//! serde applies them and adds `#[mongo(...)]` validation keys; its crate documentation lists
//! every attribute. Where `$jsonSchema` cannot say what serde does, the validator is as tight
//! as it can be and the gap is documented:
//! - recursive types are inlined to `#[mongo(recursion_depth = N)]` levels (default 3), then any
//!   object (or any value) passes;
//! - `try_from` checks and custom `serialize_with`/`deserialize_with` functions are opaque: the
//!   derive asks for `#[mongo(schema_as)]`, `#[mongo(schema_with)]` or `#[mongo(bson_type)]`;
//! - binary subtypes cannot be pinned (`bson::Uuid` accepts any `binData`);
//! - date strings are checked by pattern, not calendar (February 30 passes and fails to read),
//!   and `time`'s tuple form accepts day 366 of a common year;
//! - serde also reads enum tags written as variant indexes; the validator accepts names only;
//! - an externally tagged enum or a struct flattening a map cannot read the `_id` the server
//!   adds, so it cannot be a collection's top-level type;
//! - a flattened enum's branches are open (the struct's other fields share the document), so a
//!   flattened internally tagged variant that is itself closed (`deny_unknown_fields`, or a
//!   newtype over a unit struct) admits unknown fields beside it unless the struct is closed;
//!   and of two externally tagged variant keys serde reads the first, which `$jsonSchema`
//!   cannot order;
//! - a `serde_json::Value` refuses binData and decimal (which it cannot read) three levels
//!   deep, and admits anything deeper;
//! - `time`'s years are its default range (-9999 to 9999): with its `large-dates` feature a
//!   model needs `schema_as`.
//!
//! A stored name with a dot (`#[serde(rename = "a.b")]`) is no gap, though the server reads it
//! as a path in `properties` and `required`: it is checked under a literal `patternProperties`
//! pattern and, when required, its presence by `not: {patternProperties: {pattern: {not: {}}}}`
//! ([`derive_support::insert_property`]). A name starting with `$` is a literal key to the
//! server's parser and stays in `properties`.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use bson::Bson;

#[cfg(feature = "bson-2")]
mod bson2_types;
mod bson_types;
#[cfg(feature = "chrono")]
mod chrono_types;
#[cfg(feature = "rust_decimal")]
mod decimal_types;
mod json_types;
mod std_types;
#[cfg(feature = "time")]
mod time_types;
#[cfg(feature = "url")]
mod url_types;
#[cfg(feature = "uuid")]
mod uuid_types;

use crate::schema::{Additional, BsonType, Items, JsonSchema, Number, TypeConstraint};

/// A Rust type whose BSON form has a `$jsonSchema`.
///
/// Derive it with `#[derive(MongoSchema)]` beside serde's derives; implement it by hand only for
/// types with a custom `Serialize`/`Deserialize`.
///
/// ```
/// use mongo_schema::{MongoSchema, SchemaGenerator};
/// let schema = <Option<u8>>::json_schema(&mut SchemaGenerator::default());
/// assert_eq!(
///     schema.to_document(),
///     bson::doc! { "bsonType": ["int", "long", "null"], "minimum": 0, "maximum": 255 },
/// );
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `$jsonSchema`: it does not implement `MongoSchema`",
    label = "no schema for `{Self}`",
    note = "derive it with `#[derive(MongoSchema)]` if the type is yours",
    note = "or state the stored form on the field: `#[mongo(bson_type = \"string\")]` (or `#[mongo(schema_with = path)]`)",
    note = "or name a type serde writes the same way: `#[mongo(schema_as = \"T\")]`"
)]
pub trait MongoSchema {
    /// Whether serde reads this type from a missing field, as it reads `Option` as `None`.
    ///
    /// A struct field of such a type is never `required`.
    const MAY_BE_ABSENT: bool = false;

    /// Whether serde reads this type from a `#[serde(flatten)]` field as a map, leaving every
    /// field it reads for the enclosing struct, whose `deny_unknown_fields` then refuses them.
    ///
    /// serde's `FlatMapDeserializer` *takes* the fields a struct or an externally or adjacently
    /// tagged enum reads (`deserialize_struct`, `deserialize_enum`), but `deserialize_map` and
    /// `deserialize_any` only look (`FlatMapAccess`): so a map, an internally tagged or untagged
    /// enum, and a struct that flattens a field itself, cannot sit flattened in a struct with
    /// `deny_unknown_fields` (it writes documents it cannot read: "unknown field `type`").
    /// The derive makes that a compile error.
    const FLATTENED_AS_MAP: bool = false;

    /// Whether two different values of this type always write different BSON, as the server
    /// compares values for `uniqueItems`.
    ///
    /// A set of such a type writes no two equal members, so its schema says `uniqueItems`.
    /// False unless stated: a struct that skips a field writes `{name: "a"}` for both
    /// `{a, 1}` and `{a, 2}`, and `1.0` and `1.00` are different `Decimal128`s that the server
    /// compares equal.
    ///
    /// A function, not a constant, so that mutually recursive types can answer: a constant
    /// defined by the constants of its field types is a compile-time cycle (E0391) for
    /// `struct A { b: Vec<B> }` and `struct B { a: Option<Box<A>> }`. `visiting` holds the
    /// derived types whose answer is being worked out; one met again answers `false`.
    fn distinct_forms(visiting: &mut Visiting) -> bool {
        let _ = visiting;
        false
    }

    /// The schema of one value of this type.
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema;

    /// The schema a collection validator needs for this type at the top level of a document.
    ///
    /// Differs from [`MongoSchema::json_schema`] only in what the server adds: a closed object
    /// (`additionalProperties: false`) also admits `_id`, which every stored document has.
    fn root_schema() -> JsonSchema {
        root_schema(Self::json_schema(&mut SchemaGenerator::default()))
    }

    /// Resolves a path of Rust field names (`["customer", "id"]`) to the stored field names
    /// (`["customer", "id"]` after every serde rename), descending through embedded structs and
    /// array elements. Index and query declarations name Rust fields; this is how they reach the
    /// database spelled as serde writes them.
    ///
    /// The default, for types with no named fields, resolves only the empty path.
    ///
    /// # Errors
    /// [`PathError`] naming the type, the path and the nearest existing names when a segment
    /// names no field.
    fn field_path(path: &[&str]) -> Result<Vec<String>, PathError> {
        match path.first() {
            None => Ok(Vec::new()),
            Some(segment) => Err(PathError::new::<Self>(path, segment, &[])),
        }
    }
}

/// The derived types [`MongoSchema::distinct_forms`] is working out, by `type_name`.
pub type Visiting = Vec<&'static str>;

/// A path names a field that does not exist on the type it reaches.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{ty} has no field {segment:?} (in path {path:?}){}", candidates_hint(.candidates))]
pub struct PathError {
    /// The type the failing segment was looked up in.
    pub ty: &'static str,
    /// The whole path as written, dotted.
    pub path: String,
    /// The segment that names nothing.
    pub segment: String,
    /// The type's Rust field names nearest to `segment`, closest first.
    pub candidates: Vec<&'static str>,
}

fn candidates_hint(candidates: &[&'static str]) -> String {
    if candidates.is_empty() {
        String::new()
    } else {
        format!(
            "; did you mean {}?",
            candidates
                .iter()
                .map(|c| format!("{c:?}"))
                .collect::<Vec<_>>()
                .join(" or ")
        )
    }
}

impl PathError {
    /// The error for `segment` of `path` on type `T` whose Rust fields are `fields`; keeps the
    /// fields within a small edit distance of `segment` as suggestions.
    pub fn new<T: ?Sized>(path: &[&str], segment: &str, fields: &[&'static str]) -> PathError {
        PathError::for_type(std::any::type_name::<T>(), path, segment, fields)
    }

    /// [`PathError::new`] for a type known by name (`std::any::type_name`).
    pub fn for_type(
        ty: &'static str,
        path: &[&str],
        segment: &str,
        fields: &[&'static str],
    ) -> PathError {
        let mut scored: Vec<(usize, &'static str)> = fields
            .iter()
            .map(|f| (strsim::levenshtein(segment, f), *f))
            .filter(|(d, f)| *d <= 2.max(f.len() / 3))
            .collect();
        scored.sort();
        PathError {
            ty,
            path: path.join("."),
            segment: segment.to_owned(),
            candidates: scored.into_iter().take(3).map(|(_, f)| f).collect(),
        }
    }
}

/// Makes a schema fit the top level of a stored document: a closed object admits `_id`.
///
/// The server adds `_id` before it validates an insert, so `additionalProperties: false` without
/// `_id` in `properties` rejects every document (SERVER-FACTS: "$jsonSchema: how the server evaluates").
pub fn root_schema(mut schema: JsonSchema) -> JsonSchema {
    admit_id(&mut schema);
    schema
}

fn admit_id(schema: &mut JsonSchema) {
    if matches!(
        schema.additional_properties,
        Some(Additional::Allowed(false))
    ) && !schema.properties.contains_key("_id")
        && !schema
            .pattern_properties
            .keys()
            .any(|p| p == "^_id$" || p.is_empty())
    {
        schema.properties.insert("_id".into(), JsonSchema::any());
    }
    // Branches of a polymorphic root are each a closed object at the top level too.
    for list in [&mut schema.any_of, &mut schema.one_of, &mut schema.all_of]
        .into_iter()
        .flatten()
    {
        list.iter_mut().for_each(admit_id);
    }
}

/// How numbers are typed in generated schemas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NumberTypes {
    /// Every BSON number type the Rust type can read: an `i32` field admits `int` and `long`
    /// within its range, an `f64` admits `double`, `int` and `long` (other drivers and the shell
    /// write whole numbers as integers).
    #[default]
    Readable,
    /// Only the BSON type the Rust type writes: `i32` is `int`, `f64` is `double`.
    Exact,
}

/// Options that apply while generating one schema.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GeneratorSettings {
    /// How numbers are typed, unless a field or type asks otherwise.
    pub numbers: NumberTypes,
    /// How many times a recursive type may nest inside itself before its schema becomes opaque.
    pub recursion_depth: usize,
}

impl Default for GeneratorSettings {
    fn default() -> Self {
        GeneratorSettings {
            numbers: NumberTypes::Readable,
            recursion_depth: 3,
        }
    }
}

/// Builds schemas: carries settings and guards against endless recursion.
#[derive(Debug, Default)]
pub struct SchemaGenerator {
    settings: GeneratorSettings,
    stack: Vec<&'static str>,
}

impl SchemaGenerator {
    /// A generator with the given settings.
    pub fn new(settings: GeneratorSettings) -> Self {
        SchemaGenerator {
            settings,
            stack: Vec::new(),
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> &GeneratorSettings {
        &self.settings
    }

    /// The schema of `T`.
    pub fn subschema<T: MongoSchema + ?Sized>(&mut self) -> JsonSchema {
        T::json_schema(self)
    }

    /// Runs `f` with numbers typed as `numbers`, then restores the previous setting.
    pub fn with_numbers<R>(&mut self, numbers: NumberTypes, f: impl FnOnce(&mut Self) -> R) -> R {
        let previous = std::mem::replace(&mut self.settings.numbers, numbers);
        let result = f(self);
        self.settings.numbers = previous;
        result
    }

    /// Builds the schema of a type that may contain itself.
    ///
    /// `$jsonSchema` has no `$ref`, so a recursive type is inlined: once `name` already encloses
    /// this point `depth` times, `opaque` stands in for it (by default `{bsonType: "object"}`
    /// for a struct), which accepts any value of that shape. The derive passes the type's
    /// `#[mongo(recursion_depth = N)]`, or the generator's default.
    pub fn recursive(
        &mut self,
        name: &'static str,
        depth: Option<usize>,
        opaque: impl FnOnce() -> JsonSchema,
        body: impl FnOnce(&mut Self) -> JsonSchema,
    ) -> JsonSchema {
        let limit = depth.unwrap_or(self.settings.recursion_depth);
        let enclosing = self.stack.iter().filter(|n| **n == name).count();
        if enclosing > limit {
            return opaque();
        }
        self.stack.push(name);
        let schema = body(self);
        self.stack.pop();
        schema
    }
}

/// Adds `null` to what a schema accepts: the schema of `Option<T>` from that of `T`.
///
/// A plain type constraint gains `null`; an `enum` gains `null` as a member; anything the type
/// keyword alone cannot widen (combinators, `not`) is wrapped as `anyOf: [{bsonType: "null"}, T]`.
pub fn nullable(mut schema: JsonSchema) -> JsonSchema {
    if schema.is_any() {
        return schema;
    }
    let widenable = schema.all_of.is_none()
        && schema.any_of.is_none()
        && schema.one_of.is_none()
        && schema.not.is_none()
        && schema.types.is_some();
    if !widenable {
        // A bare enum with no type constraint and no combinators can simply gain a member.
        if schema.types.is_none()
            && schema.all_of.is_none()
            && schema.any_of.is_none()
            && schema.one_of.is_none()
            && schema.not.is_none()
        {
            if let Some(values) = &mut schema.enumeration {
                if !values.contains(&Bson::Null) {
                    values.push(Bson::Null);
                }
                return schema;
            }
        }
        // Already admits null when one `anyOf` branch is exactly null.
        let null = JsonSchema::bson_type(BsonType::Null);
        if let Some(branches) = &mut schema.any_of {
            if schema.types.is_none()
                && schema.enumeration.is_none()
                && schema.all_of.is_none()
                && schema.one_of.is_none()
                && schema.not.is_none()
            {
                if !branches.contains(&null) {
                    branches.insert(0, null);
                }
                return schema;
            }
        }
        return JsonSchema {
            any_of: Some(vec![null, schema]),
            ..JsonSchema::default()
        };
    }
    match &mut schema.types {
        Some(TypeConstraint::BsonType(types)) => {
            if !types.contains(&BsonType::Null) {
                types.push(BsonType::Null);
            }
        }
        Some(TypeConstraint::Type(types)) => {
            if !types.contains(&crate::schema::JsonType::Null) {
                types.push(crate::schema::JsonType::Null);
            }
        }
        None => unreachable!("widenable requires a type constraint"),
    }
    if let Some(values) = &mut schema.enumeration {
        if !values.contains(&Bson::Null) {
            values.push(Bson::Null);
        }
    }
    schema
}

/// `{bsonType: "object"}`, the start of every struct schema.
pub fn object() -> JsonSchema {
    JsonSchema::bson_type(BsonType::Object)
}

/// A string that must be one of `values`: the schema of a unit-only enum.
pub fn string_enum<'a>(values: impl IntoIterator<Item = &'a str>) -> JsonSchema {
    let mut schema = JsonSchema::bson_type(BsonType::String);
    let mut members: Vec<Bson> = Vec::new();
    for v in values {
        let v = Bson::String(v.to_owned());
        if !members.contains(&v) {
            members.push(v);
        }
    }
    schema.enumeration = Some(members);
    schema
}

fn integer(
    generator: &SchemaGenerator,
    written: BsonType,
    min: i128,
    max: i128,
    natural_min: i128,
    natural_max: i128,
) -> JsonSchema {
    let mut schema = match generator.settings.numbers {
        NumberTypes::Readable => JsonSchema::bson_types([BsonType::Int, BsonType::Long]),
        NumberTypes::Exact => JsonSchema::bson_type(written),
    };
    // Bounds only where the stored type could hold a value the Rust type cannot read.
    let (lo, hi) = match schema.allowed_types().as_deref() {
        Some([BsonType::Int]) => (i128::from(i32::MIN), i128::from(i32::MAX)),
        _ => (i128::from(i64::MIN), i128::from(i64::MAX)),
    };
    let min = min.max(natural_min);
    let max = max.min(natural_max);
    if min > lo {
        schema.minimum = Some(Number::integer(min));
    }
    if max < hi {
        schema.maximum = Some(Number::integer(max));
    }
    schema
}

macro_rules! integers {
    ($($ty:ty => $written:expr),* $(,)?) => {$(
        impl MongoSchema for $ty {
            fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
            fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
                integer(
                    generator,
                    $written,
                    i128::from(<$ty>::MIN),
                    // u64 values above i64::MAX cannot be written: bson's serializer refuses them.
                    i128::try_from(<$ty>::MAX).unwrap_or(i128::MAX),
                    i128::from(i64::MIN),
                    i128::from(i64::MAX),
                )
            }
        }
    )*};
}

// bson's serializer writes i8, i16, i32, u8 and u16 as Int32, and i64, u32 and u64 as Int64.
integers! {
    i8 => BsonType::Int,
    i16 => BsonType::Int,
    i32 => BsonType::Int,
    i64 => BsonType::Long,
    u8 => BsonType::Int,
    u16 => BsonType::Int,
    u32 => BsonType::Long,
    u64 => BsonType::Long,
}

impl MongoSchema for isize {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        i64::json_schema(generator)
    }
}

impl MongoSchema for usize {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        u64::json_schema(generator)
    }
}

fn float(generator: &SchemaGenerator) -> JsonSchema {
    match generator.settings.numbers {
        // serde's float visitors accept i64 and u64 too, so whole numbers written as int or
        // long by other drivers read back; decimal does not.
        NumberTypes::Readable => {
            JsonSchema::bson_types([BsonType::Double, BsonType::Int, BsonType::Long])
        }
        NumberTypes::Exact => JsonSchema::bson_type(BsonType::Double),
    }
}

impl MongoSchema for f64 {
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        float(generator)
    }
}

impl MongoSchema for f32 {
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        float(generator)
    }
}

impl MongoSchema for bool {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::Bool)
    }
}

impl MongoSchema for char {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // serde reads a char from a string of exactly one character; the server counts code points.
        JsonSchema {
            min_length: Some(1),
            max_length: Some(1),
            ..JsonSchema::bson_type(BsonType::String)
        }
    }
}

impl MongoSchema for String {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::String)
    }
}

impl MongoSchema for str {
    fn distinct_forms(_: &mut Visiting) -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        JsonSchema::bson_type(BsonType::String)
    }
}

impl MongoSchema for () {
    fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
        // bson writes the unit value as null and reads it back only from null.
        JsonSchema::bson_type(BsonType::Null)
    }
}

impl<T: MongoSchema> MongoSchema for Option<T> {
    const MAY_BE_ABSENT: bool = true;
    // `FlatMapDeserializer::deserialize_option` reads `T` from the same fields.
    const FLATTENED_AS_MAP: bool = T::FLATTENED_AS_MAP;
    fn distinct_forms(visiting: &mut Visiting) -> bool {
        T::distinct_forms(visiting)
    }

    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        nullable(T::json_schema(generator))
    }

    fn field_path(path: &[&str]) -> Result<Vec<String>, PathError> {
        T::field_path(path)
    }
}

macro_rules! forward {
    ($($(#[$m:meta])* impl<$t:ident> for $ty:ty;)*) => {$(
        $(#[$m])*
        impl<$t: MongoSchema + ?Sized> MongoSchema for $ty {
            const MAY_BE_ABSENT: bool = $t::MAY_BE_ABSENT;
            const FLATTENED_AS_MAP: bool = $t::FLATTENED_AS_MAP;
            fn distinct_forms(visiting: &mut Visiting) -> bool {
                $t::distinct_forms(visiting)
            }
            fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
                $t::json_schema(generator)
            }
            fn field_path(path: &[&str]) -> Result<Vec<String>, PathError> {
                $t::field_path(path)
            }
        }
    )*};
}

forward! {
    impl<T> for Box<T>;
    impl<T> for Rc<T>;
    impl<T> for Arc<T>;
    impl<T> for &T;
    impl<T> for &mut T;
}

impl<T: MongoSchema + Copy> MongoSchema for Cell<T> {
    const MAY_BE_ABSENT: bool = T::MAY_BE_ABSENT;
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        T::json_schema(generator)
    }
}

impl<T: MongoSchema> MongoSchema for RefCell<T> {
    const MAY_BE_ABSENT: bool = T::MAY_BE_ABSENT;
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        T::json_schema(generator)
    }
}

impl<T: MongoSchema + ToOwned + ?Sized> MongoSchema for Cow<'_, T> {
    const MAY_BE_ABSENT: bool = T::MAY_BE_ABSENT;
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        T::json_schema(generator)
    }
}

/// `{bsonType: "array", items: T}`.
pub fn array_of(items: JsonSchema) -> JsonSchema {
    let mut schema = JsonSchema::bson_type(BsonType::Array);
    if !items.is_any() {
        schema.items = Some(Items::Single(Box::new(items)));
    }
    schema
}

macro_rules! sequences {
    ($($ty:ident),*) => {$(
        impl<T: MongoSchema> MongoSchema for $ty<T> {
            fn distinct_forms(visiting: &mut Visiting) -> bool {
        T::distinct_forms(visiting)
    }
            fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
                array_of(T::json_schema(generator))
            }
            // An index path through an array names a field of its elements (multikey).
            fn field_path(path: &[&str]) -> Result<Vec<String>, PathError> {
                T::field_path(path)
            }
        }
    )*};
}

sequences!(Vec, VecDeque, LinkedList);

impl<T: MongoSchema> MongoSchema for [T] {
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        array_of(T::json_schema(generator))
    }
}

/// The schema of a set of `T`: an array, whose members are unique when distinct members of
/// `T` write distinct BSON ([`MongoSchema::distinct_forms`]).
pub fn set_of<T: MongoSchema + ?Sized>(generator: &mut SchemaGenerator) -> JsonSchema {
    let mut schema = array_of(T::json_schema(generator));
    if T::distinct_forms(&mut Visiting::new()) {
        schema.unique_items = Some(true);
    }
    schema
}

impl<T: MongoSchema, S> MongoSchema for HashSet<T, S> {
    fn distinct_forms(visiting: &mut Visiting) -> bool {
        T::distinct_forms(visiting)
    }
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        set_of::<T>(generator)
    }
}

impl<T: MongoSchema> MongoSchema for BTreeSet<T> {
    fn distinct_forms(visiting: &mut Visiting) -> bool {
        T::distinct_forms(visiting)
    }
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        set_of::<T>(generator)
    }
}

impl<T: MongoSchema, S> MongoSchema for indexmap::IndexSet<T, S> {
    fn distinct_forms(visiting: &mut Visiting) -> bool {
        T::distinct_forms(visiting)
    }
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        set_of::<T>(generator)
    }
}

impl<T: MongoSchema, const N: usize> MongoSchema for [T; N] {
    fn distinct_forms(visiting: &mut Visiting) -> bool {
        T::distinct_forms(visiting)
    }
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        // serde writes an array as a tuple of exactly N elements and reads back only N.
        let mut schema = array_of(T::json_schema(generator));
        schema.min_items = Some(N as u64);
        schema.max_items = Some(N as u64);
        schema
    }
}

/// Positional `items` with no additional items: the schema of a tuple.
pub fn tuple(elements: Vec<JsonSchema>) -> JsonSchema {
    let n = elements.len() as u64;
    let mut schema = JsonSchema::bson_type(BsonType::Array);
    schema.min_items = Some(n);
    if n == 0 {
        schema.max_items = Some(0);
    } else {
        schema.items = Some(Items::Positional(elements));
        schema.additional_items = Some(Additional::Allowed(false));
    }
    schema
}

macro_rules! tuples {
    ($(($($t:ident),+))*) => {$(
        impl<$($t: MongoSchema),+> MongoSchema for ($($t,)+) {
            fn distinct_forms(visiting: &mut Visiting) -> bool {
                $($t::distinct_forms(visiting))&&+
            }
            fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
                tuple(vec![$($t::json_schema(generator)),+])
            }
        }
    )*};
}

tuples! {
    (A)
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
    (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H)
}

/// A type that serializes as a string and so can key a map stored as a document.
pub trait MapKey {
    /// The `patternProperties` pattern that every key this type reads matches, or `None`
    /// when every string is a key.
    fn key_pattern() -> Option<String> {
        None
    }
}

impl MapKey for String {}
impl MapKey for str {}
impl MapKey for Cow<'_, str> {}
impl<T: MapKey + ?Sized> MapKey for &T {}
impl<T: MapKey + ?Sized> MapKey for Box<T> {}
impl<T: MapKey + ?Sized> MapKey for Rc<T> {}
impl<T: MapKey + ?Sized> MapKey for Arc<T> {}

/// `{bsonType: "object", additionalProperties: V}`, or with a key pattern
/// `{patternProperties: {pattern: V}, additionalProperties: false}`.
pub fn map_of(key_pattern: Option<String>, values: JsonSchema) -> JsonSchema {
    let mut schema = object();
    match key_pattern {
        None => {
            if !values.is_any() {
                schema.additional_properties = Some(Additional::Schema(Box::new(values)));
            }
        }
        Some(pattern) => {
            schema.pattern_properties.insert(pattern, values);
            schema.additional_properties = Some(Additional::Allowed(false));
        }
    }
    schema
}

impl<K: MapKey, V: MongoSchema, S> MongoSchema for HashMap<K, V, S> {
    const FLATTENED_AS_MAP: bool = true;
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        map_of(K::key_pattern(), V::json_schema(generator))
    }
}

impl<K: MapKey, V: MongoSchema> MongoSchema for BTreeMap<K, V> {
    const FLATTENED_AS_MAP: bool = true;
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        map_of(K::key_pattern(), V::json_schema(generator))
    }
}

impl<K: MapKey, V: MongoSchema, S> MongoSchema for indexmap::IndexMap<K, V, S> {
    const FLATTENED_AS_MAP: bool = true;
    fn json_schema(generator: &mut SchemaGenerator) -> JsonSchema {
        map_of(K::key_pattern(), V::json_schema(generator))
    }
}

/// Marker for types whose schema has numeric bounds to constrain (`minimum`, `maximum`).
#[diagnostic::on_unimplemented(
    message = "`minimum`/`maximum`/`multiple_of` apply to numbers, and `{Self}` is not a number",
    label = "this bound would never be checked",
    note = "remove the bound, or put it on a numeric field"
)]
pub trait Numeric {}

/// Marker for types stored as strings (`min_length`, `max_length`, `pattern`).
#[diagnostic::on_unimplemented(
    message = "`min_length`/`max_length`/`pattern` apply to strings, and `{Self}` is not stored as a string",
    label = "this constraint would never be checked",
    note = "remove it, or give the field `#[mongo(bson_type = \"string\")]` if it is stored as a string"
)]
pub trait Text {}

/// Marker for types stored as arrays (`min_items`, `max_items`, `unique_items`).
#[diagnostic::on_unimplemented(
    message = "`min_items`/`max_items`/`unique_items` apply to arrays, and `{Self}` is not stored as an array",
    label = "this constraint would never be checked",
    note = "remove it, or put it on a Vec, slice, set or array field"
)]
pub trait Sequence {}

macro_rules! markers {
    ($tr:ident: $($ty:ty),*) => {$( impl $tr for $ty {} )*};
}
markers!(Numeric: i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, bson::Decimal128, Bson);
markers!(Text: String, str, char, Cow<'_, str>, Bson);
markers!(Sequence: Bson, bson::RawArrayBuf);
impl<T> Sequence for Vec<T> {}
impl<T> Sequence for VecDeque<T> {}
impl<T> Sequence for LinkedList<T> {}
impl<T> Sequence for [T] {}
impl<T, const N: usize> Sequence for [T; N] {}
impl<T, S> Sequence for HashSet<T, S> {}
impl<T> Sequence for BTreeSet<T> {}

macro_rules! marker_forward {
    ($($tr:ident),*) => {$(
        impl<T: $tr> $tr for Option<T> {}
        impl<T: $tr + ?Sized> $tr for Box<T> {}
        impl<T: $tr + ?Sized> $tr for Rc<T> {}
        impl<T: $tr + ?Sized> $tr for Arc<T> {}
        impl<T: $tr + ?Sized> $tr for &T {}
    )*};
}
marker_forward!(Numeric, Text, Sequence);

/// The schema of `T` with the given generator settings: a shorthand for tests and tools.
pub fn schema_for<T: MongoSchema + ?Sized>(settings: GeneratorSettings) -> JsonSchema {
    T::json_schema(&mut SchemaGenerator::new(settings))
}

/// Builders the derive's generated code calls: one call per field or variant keeps the
/// expansion small (the compile-time budget is 1.25x serde's derive alone).
///
/// Not a stable API: only `#[derive(MongoSchema)]` should call these.
#[doc(hidden)]
pub mod derive_support {
    pub use super::{
        MapKey, MongoSchema, NumberTypes, PathError, SchemaGenerator, Text, Visiting, array_of,
        nullable, object, string_enum, tuple,
    };
    pub use crate::schema::{Additional, BsonType, JsonSchema, Number, TypeConstraint};

    /// A `fn` resolving a Rust field path on one field's type.
    pub type PathFn = fn(&[&str]) -> Result<Vec<String>, PathError>;

    /// One named field as `field_path` sees it: Rust name, stored name (`None` when
    /// flattened), and the path resolver of its type.
    pub type PathEntry = (&'static str, Option<&'static str>, PathFn);

    /// Builds a struct's object schema field by field.
    #[derive(Debug)]
    pub struct Object {
        schema: JsonSchema,
        constraints: Vec<JsonSchema>,
        /// Names the flattened enums' branches may write beside this object's own fields.
        flattened_names: Vec<String>,
        /// Which of `constraints` are a flattened enum's branches.
        flattened_enums: Vec<usize>,
    }

    /// Whether the server reads a stored name in `properties` or `required` as a dotted path.
    ///
    /// `json_schema_parser.cpp` parses each `properties` entry with its name as the path of the
    /// nested match expressions (`parseProperties`) and each `required` name as an
    /// `ExistsMatchExpression` on that path (`translateRequired`); a path is a `FieldRef`, split
    /// at dots (our evaluator does the same: `eval/paths.rs`). So a field serde writes under the
    /// literal key `"a.b"` is checked by neither, and `required: ["a.b"]` is satisfied by no
    /// document that has it. A name starting with `$` is no path: `FieldRef` gives `$` no meaning
    /// at the start of a part, and the exists/type expressions read the literal key.
    pub fn is_dotted(name: &str) -> bool {
        name.contains('.')
    }

    /// The `patternProperties` pattern matching exactly the literal name `name`.
    ///
    /// `patternProperties` names are compiled by PCRE with no options
    /// (`InternalSchemaAllowedPropertiesMatchExpression::Pattern`), so every ASCII character
    /// that is not a letter, digit or `_` is escaped with a backslash (PCRE: a backslash before
    /// a non-alphanumeric character matches it literally), other bytes match themselves, and the
    /// end is `\z`: `$` would also match before a final newline.
    pub fn literal_pattern(name: &str) -> String {
        let mut pattern = String::with_capacity(name.len() + 4);
        pattern.push('^');
        for c in name.chars() {
            if c.is_ascii() && !c.is_ascii_alphanumeric() && c != '_' {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push_str("\\z");
        pattern
    }

    /// The name a [`literal_pattern`] matches, `None` for any other pattern.
    pub(super) fn literal_name(pattern: &str) -> Option<String> {
        let body = pattern.strip_prefix('^')?.strip_suffix("\\z")?;
        let mut name = String::with_capacity(body.len());
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            let literal = if c == '\\' {
                chars
                    .next()
                    .filter(|e| e.is_ascii() && !e.is_ascii_alphanumeric() && *e != '_')?
            } else if c.is_ascii() && !c.is_ascii_alphanumeric() && c != '_' {
                return None;
            } else {
                c
            };
            name.push(literal);
        }
        (literal_pattern(&name) == pattern).then_some(name)
    }

    /// Adds the property `name` to `schema`: in `properties` (and `required` when `required`),
    /// or, for a [dotted](is_dotted) name, in `patternProperties` under its
    /// [`literal_pattern`], its presence (when `required`) an `allOf` member ([`present`]).
    pub fn insert_property(schema: &mut JsonSchema, name: &str, required: bool, value: JsonSchema) {
        if is_dotted(name) {
            schema
                .pattern_properties
                .insert(literal_pattern(name), value);
            if required {
                schema
                    .all_of
                    .get_or_insert_with(Vec::new)
                    .push(present(name));
            }
        } else {
            schema.properties.insert(name.to_owned(), value);
            if required {
                schema.require(name);
            }
        }
    }

    /// The literal key `name` is present: `required`, or for a [dotted](is_dotted) name, which
    /// `required` reads as a path, "not every key matching its [`literal_pattern`] fails
    /// `{not: {}}`" (`patternProperties` matches literal names; `{}` matches every value).
    pub fn present(name: &str) -> JsonSchema {
        if !is_dotted(name) {
            return JsonSchema {
                required: Some(vec![name.to_owned()]),
                ..JsonSchema::default()
            };
        }
        let mut absent = JsonSchema::default();
        absent.pattern_properties.insert(
            literal_pattern(name),
            JsonSchema {
                not: Some(Box::new(JsonSchema::any())),
                ..JsonSchema::default()
            },
        );
        JsonSchema {
            not: Some(Box::new(absent)),
            ..JsonSchema::default()
        }
    }

    /// In a closed struct, each branch of a flattened enum refuses the names that only the
    /// other branches write: serde reads one externally tagged variant key and reports any
    /// other as an unknown field. (Names every branch writes, an adjacent `t` and `c`, stay.)
    fn exclusive_branches(constraint: &mut JsonSchema) {
        let Some(branches) = constraint.any_of.as_mut().or(constraint.one_of.as_mut()) else {
            return;
        };
        let names: Vec<Vec<String>> = branches
            .iter()
            .map(|b| {
                let mut out = Vec::new();
                property_names(b, &mut out);
                out
            })
            .collect();
        for (i, branch) in branches.iter_mut().enumerate() {
            let others: Vec<JsonSchema> = names
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .flat_map(|(_, n)| n.iter())
                .filter(|n| !names[i].contains(n))
                .map(|n| present(n))
                .collect();
            if others.is_empty() {
                continue;
            }
            let refuse = JsonSchema {
                any_of: Some(others),
                ..JsonSchema::default()
            };
            match &mut branch.not {
                None => branch.not = Some(Box::new(refuse)),
                Some(_) => {
                    let own = std::mem::take(branch);
                    *branch = JsonSchema {
                        all_of: Some(vec![
                            own,
                            JsonSchema {
                                not: Some(Box::new(refuse)),
                                ..JsonSchema::default()
                            },
                        ]),
                        ..JsonSchema::default()
                    };
                }
            }
        }
    }

    /// One branch of a flattened enum as it sits among the enclosing struct's fields.
    ///
    /// serde's `FlatMapSerializer` writes a unit variant as `{Variant: null}` (not the string
    /// an externally tagged unit variant is elsewhere) and an untagged unit variant as nothing;
    /// and each branch shares the document with the struct's other fields, so the branch's own
    /// `additionalProperties: false` (the one key of an externally tagged variant, `t` and `c`
    /// of an adjacently tagged one) no longer holds. serde's `FlatMapDeserializer` reads an
    /// externally tagged enum from its variant's key and an adjacently tagged one from `t` and
    /// `c`, and leaves the other fields to the struct, whose `deny_unknown_fields` (if any)
    /// [`Object::finish`] keeps.
    fn flattened_branches(branch: JsonSchema) -> Vec<JsonSchema> {
        let unit_names = match (&branch.enumeration, branch.allowed_types().as_deref()) {
            (Some(names), Some([BsonType::String])) if branch.not.is_none() => Some(names.clone()),
            _ => None,
        };
        if let Some(names) = unit_names {
            return names
                .iter()
                .filter_map(|n| n.as_str())
                .map(|name| {
                    let mut unit = object();
                    insert_property(&mut unit, name, true, null());
                    unit
                })
                .collect();
        }
        if branch == null() {
            // An untagged unit variant writes no field.
            return vec![object()];
        }
        let mut branch = branch;
        open_flattened(&mut branch);
        vec![branch]
    }

    /// Drops `additionalProperties: false` from a flattened branch and from the branches and
    /// members it combines.
    fn open_flattened(schema: &mut JsonSchema) {
        if matches!(
            schema.additional_properties,
            Some(Additional::Allowed(false))
        ) {
            schema.additional_properties = None;
        }
        for list in [&mut schema.any_of, &mut schema.one_of, &mut schema.all_of]
            .into_iter()
            .flatten()
        {
            list.iter_mut().for_each(open_flattened);
        }
    }

    /// Every property name a schema or its combined branches and members name, dotted names
    /// ([`insert_property`]) included.
    fn property_names(schema: &JsonSchema, out: &mut Vec<String>) {
        let dotted = schema
            .pattern_properties
            .keys()
            .filter_map(|p| literal_name(p));
        for name in schema.properties.keys().cloned().chain(dotted) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
        for list in [&schema.any_of, &schema.one_of, &schema.all_of]
            .into_iter()
            .flatten()
        {
            list.iter().for_each(|s| property_names(s, out));
        }
    }

    impl Object {
        /// An object, closed (`additionalProperties: false`) with `deny_unknown_fields`.
        pub fn new(closed: bool) -> Object {
            let mut schema = object();
            if closed {
                schema.additional_properties = Some(Additional::Allowed(false));
            }
            Object {
                schema,
                constraints: Vec::new(),
                flattened_names: Vec::new(),
                flattened_enums: Vec::new(),
            }
        }

        /// A property with an explicit schema.
        pub fn prop(&mut self, name: &str, required: bool, schema: JsonSchema) {
            insert_property(&mut self.schema, name, required, schema);
        }

        /// A property read under several names (serde `alias`): each name gets the schema, and
        /// at most one may appear (serde rejects a duplicate field); exactly one when required.
        pub fn aliased(&mut self, names: &[&str], required: bool, schema: JsonSchema) {
            for name in names {
                insert_property(&mut self.schema, name, false, schema.clone());
            }
            let mut one: Vec<JsonSchema> = names.iter().map(|n| present(n)).collect();
            if !required {
                // None of the names, or exactly one of them.
                let none = JsonSchema {
                    not: Some(Box::new(JsonSchema {
                        any_of: Some(one.clone()),
                        ..JsonSchema::default()
                    })),
                    ..JsonSchema::default()
                };
                one.insert(0, none);
            }
            self.constraints.push(JsonSchema {
                one_of: Some(one),
                ..JsonSchema::default()
            });
        }

        /// Merges a `#[serde(flatten)]` field: its properties join this object's, a map's
        /// value schema becomes `additionalProperties`, and an enum's branches become an
        /// `allOf` member. `optional` (a flattened `Option`) keeps nothing required.
        ///
        /// An enum's branches are rewritten for their place among the struct's fields
        /// ([`flattened_branches`]); their property names are kept so that a closed struct
        /// admits them.
        pub fn flatten(&mut self, mut inner: JsonSchema, optional: bool) {
            for list in [&mut inner.any_of, &mut inner.one_of].into_iter().flatten() {
                *list = std::mem::take(list)
                    .into_iter()
                    .flat_map(flattened_branches)
                    .collect();
            }
            inner.all_of.iter_mut().flatten().for_each(open_flattened);
            property_names(
                &JsonSchema {
                    any_of: inner.any_of.clone(),
                    one_of: inner.one_of.clone(),
                    all_of: inner.all_of.clone(),
                    ..JsonSchema::default()
                },
                &mut self.flattened_names,
            );
            for (name, schema) in std::mem::take(&mut inner.properties) {
                self.schema.properties.insert(name, schema);
            }
            // The flattened struct's dotted fields ([`insert_property`]); a map's key pattern
            // is not kept, since it would also apply to this struct's own fields.
            for (pattern, schema) in std::mem::take(&mut inner.pattern_properties) {
                if literal_name(&pattern).is_some() {
                    self.schema.pattern_properties.insert(pattern, schema);
                }
            }
            if let Some(required) = inner.required.take() {
                if !optional {
                    required.into_iter().for_each(|r| self.schema.require(r));
                }
            }
            if let Some(Additional::Schema(values)) = inner.additional_properties.take() {
                self.schema.additional_properties = Some(Additional::Schema(values));
            }
            // A flattened `Option` reads `None` whenever its value does not read
            // (`FlatMapDeserializer::deserialize_option`): its constraints are not kept.
            if !optional {
                if let Some(all) = inner.all_of.take() {
                    self.constraints.extend(all);
                }
                if inner.any_of.is_some() || inner.one_of.is_some() {
                    self.flattened_enums.push(self.constraints.len());
                    self.constraints.push(JsonSchema {
                        any_of: inner.any_of.take(),
                        one_of: inner.one_of.take(),
                        ..JsonSchema::default()
                    });
                }
            }
        }

        /// The finished schema.
        ///
        /// A closed struct (`deny_unknown_fields`) admits the fields its flattened enums write:
        /// each as `{}` here, its value checked by the enum's branch.
        pub fn finish(mut self) -> JsonSchema {
            if matches!(
                self.schema.additional_properties,
                Some(Additional::Allowed(false))
            ) {
                for name in self.flattened_names {
                    let (names, key) = if is_dotted(&name) {
                        (&mut self.schema.pattern_properties, literal_pattern(&name))
                    } else {
                        (&mut self.schema.properties, name)
                    };
                    names.entry(key).or_insert_with(JsonSchema::any);
                }
                for &i in &self.flattened_enums {
                    exclusive_branches(&mut self.constraints[i]);
                }
            }
            if !self.constraints.is_empty() {
                // After the presence of dotted required fields ([`insert_property`]).
                self.schema
                    .all_of
                    .get_or_insert_with(Vec::new)
                    .extend(self.constraints);
            }
            self.schema
        }
    }

    /// The [`MongoSchema::distinct_forms`] of a derived type `name` whose written form is
    /// injective in its fields: `fields` answers for them, and a type met again while its
    /// answer is worked out (a recursive type) answers `false`.
    pub fn distinct_fields(
        visiting: &mut super::Visiting,
        name: &'static str,
        fields: &[DistinctFn],
    ) -> bool {
        if visiting.contains(&name) {
            return false;
        }
        visiting.push(name);
        let distinct = fields.iter().all(|field| field(visiting));
        visiting.pop();
        distinct
    }

    /// The `distinct_forms` function of one field's type, as the derive lists them in a table
    /// (a slice of function pointers rather than a closure: one non-generic call per type).
    pub type DistinctFn = fn(&mut super::Visiting) -> bool;

    /// The schema function of one field or body.
    pub type SchemaFn = fn(&mut SchemaGenerator) -> JsonSchema;

    /// One named field of a struct, as the derive describes it in a `const` table.
    #[derive(Debug)]
    pub struct FieldSpec<'a> {
        /// Every name serde reads, the written one first; more than one means aliases.
        pub names: &'a [&'a str],
        /// The stored value's schema.
        pub schema: SchemaFn,
        /// Whether serde cannot read the struct without it (for `flatten`: whether the
        /// flattened fields keep their own `required`).
        pub required: bool,
        /// `#[serde(flatten)]`.
        pub flatten: bool,
    }

    /// A struct body: its fields and whether unknown fields are denied.
    #[derive(Debug)]
    pub struct ObjectSpec<'a> {
        /// `deny_unknown_fields`.
        pub closed: bool,
        /// The fields, in declaration order.
        pub fields: &'a [FieldSpec<'a>],
    }

    /// What a derived type's schema is built from.
    #[derive(Debug)]
    pub enum Body<'a> {
        /// A struct with named fields.
        Object(ObjectSpec<'a>),
        /// Anything else, built by a function.
        Schema(SchemaFn),
    }

    /// Everything a derived `json_schema` needs, as one constant.
    #[derive(Debug)]
    pub struct Derived<'a> {
        /// `#[mongo(recursion_depth)]`.
        pub depth: Option<usize>,
        /// Whether the opaque stand-in past the depth bound is `{bsonType: "object"}`.
        pub opaque_object: bool,
        /// `#[mongo(exact)]` on the container.
        pub exact: bool,
        /// Doc comment or `#[mongo(description)]`.
        pub description: Option<&'a str>,
        /// `#[mongo(title)]`.
        pub title: Option<&'a str>,
        /// The body.
        pub body: Body<'a>,
    }

    /// Builds a struct body from its field table.
    pub fn object_of(g: &mut SchemaGenerator, spec: &ObjectSpec<'_>) -> JsonSchema {
        let mut o = Object::new(spec.closed);
        for f in spec.fields {
            let schema = (f.schema)(g);
            if f.flatten {
                o.flatten(schema, !f.required);
            } else if let [name] = f.names {
                o.prop(name, f.required, schema);
            } else {
                o.aliased(f.names, f.required, schema);
            }
        }
        o.finish()
    }

    /// The schema of a derived type `name` (its `std::any::type_name`, the recursion key).
    pub fn derived(g: &mut SchemaGenerator, name: &'static str, spec: &Derived<'_>) -> JsonSchema {
        let opaque = || {
            if spec.opaque_object {
                object()
            } else {
                JsonSchema::any()
            }
        };
        let body = |g: &mut SchemaGenerator| match &spec.body {
            Body::Object(o) => object_of(g, o),
            Body::Schema(f) => f(g),
        };
        let mut schema = if spec.exact {
            g.with_numbers(NumberTypes::Exact, |g| {
                g.recursive(name, spec.depth, opaque, body)
            })
        } else {
            g.recursive(name, spec.depth, opaque, body)
        };
        if let Some(d) = spec.description {
            schema.description = Some(d.to_owned());
        }
        if let Some(t) = spec.title {
            schema.title = Some(t.to_owned());
        }
        schema
    }

    /// Resolves a Rust field path for the type named `ty` over its field table.
    ///
    /// # Errors
    /// [`PathError`] when the first segment names no field.
    pub fn resolve_path(
        ty: &'static str,
        path: &[&str],
        fields: &[PathEntry],
    ) -> Result<Vec<String>, PathError> {
        let Some((first, rest)) = path.split_first() else {
            return Ok(Vec::new());
        };
        if let Some((_, stored, resolve)) = fields.iter().find(|(rust, _, _)| rust == first) {
            let mut out: Vec<String> = stored.iter().map(|s| (*s).to_owned()).collect();
            out.extend(resolve(rest)?);
            return Ok(out);
        }
        // A field of a flattened struct is stored at this level.
        for (_, stored, resolve) in fields {
            if stored.is_none() {
                if let Ok(found) = resolve(path) {
                    return Ok(found);
                }
            }
        }
        let names: Vec<&'static str> = fields.iter().map(|(rust, _, _)| *rust).collect();
        Err(PathError::for_type(ty, path, first, &names))
    }

    /// `anyOf` of the branches, or the branch itself when there is one.
    pub fn any_of(mut branches: Vec<JsonSchema>) -> JsonSchema {
        if branches.len() == 1 {
            return branches.pop().expect("length checked");
        }
        JsonSchema {
            any_of: Some(branches),
            ..JsonSchema::default()
        }
    }

    /// An externally tagged data variant: `{V: content}` and nothing else.
    pub fn external(name: &str, content: JsonSchema) -> JsonSchema {
        let mut schema = object();
        insert_property(&mut schema, name, true, content);
        schema.additional_properties = Some(Additional::Allowed(false));
        schema
    }

    /// The tag of a variant read under `names`; a name starting with `!` marks the
    /// `#[serde(other)]` variant, which reads every string except the other variants' names.
    fn tag_schema(names: &[&str]) -> JsonSchema {
        if names.first().is_some_and(|n| n.starts_with('!')) {
            let known: Vec<&str> = names
                .iter()
                .map(|n| &n[1..])
                .filter(|n| !n.is_empty())
                .collect();
            let mut schema = JsonSchema::bson_type(BsonType::String);
            if !known.is_empty() {
                schema.not = Some(Box::new(JsonSchema {
                    enumeration: Some(string_enum(known).enumeration.unwrap_or_default()),
                    ..JsonSchema::default()
                }));
            }
            schema
        } else {
            string_enum(names.iter().copied())
        }
    }

    /// An internally tagged variant: `content` (an object, or `None` for a unit variant)
    /// with the tag property required. Names starting with `!` mark the `#[serde(other)]` variant.
    pub fn internal(tag: &str, names: &[&str], content: Option<JsonSchema>) -> JsonSchema {
        let tag_schema = tag_schema(names);
        // A newtype over a unit struct or `()` is written as the tag alone, and serde reads the
        // unit only from an empty rest (`ContentDeserializer::deserialize_unit_struct`): no
        // other field may appear.
        let over_unit = content.as_ref().is_some_and(|c| {
            JsonSchema {
                description: None,
                title: None,
                ..c.clone()
            } == null()
        });
        let mut content = match content {
            Some(_) if over_unit => {
                let mut closed = object();
                closed.additional_properties = Some(Additional::Allowed(false));
                closed
            }
            content => content.unwrap_or_else(object),
        };
        let mergeable = content.any_of.is_none()
            && content.one_of.is_none()
            && content.not.is_none()
            && !content.properties.contains_key(tag)
            && !is_dotted(tag);
        if mergeable {
            content.types = Some(TypeConstraint::BsonType(vec![BsonType::Object]));
            let mut properties = indexmap::IndexMap::new();
            properties.insert(tag.to_owned(), tag_schema);
            properties.extend(std::mem::take(&mut content.properties));
            content.properties = properties;
            let mut required = vec![tag.to_owned()];
            required.extend(content.required.take().unwrap_or_default());
            content.required = Some(required);
            content
        } else {
            let mut head = object();
            insert_property(&mut head, tag, true, tag_schema);
            JsonSchema {
                all_of: Some(vec![head, content]),
                ..JsonSchema::default()
            }
        }
    }

    /// An adjacently tagged variant: `{t: V, c: content}`; a unit variant (`content` `None`)
    /// has no content field.
    pub fn adjacent(
        tag: &str,
        content_key: &str,
        names: &[&str],
        content: Option<JsonSchema>,
        closed: bool,
    ) -> JsonSchema {
        let mut schema = object();
        insert_property(&mut schema, tag, true, tag_schema(names));
        match content {
            Some(content) => insert_property(&mut schema, content_key, true, content),
            None => schema.not = Some(Box::new(present(content_key))),
        }
        if closed {
            schema.additional_properties = Some(Additional::Allowed(false));
        }
        schema
    }

    fn as_f64(n: Number) -> f64 {
        match n {
            Number::Int32(v) => f64::from(v),
            Number::Int64(v) => v as f64,
            Number::Double(v) => v,
            Number::Decimal128(v) => v.to_string().parse().unwrap_or(f64::NAN),
        }
    }

    /// Tightens `minimum`: keeps whichever of the type's own bound and `bound` is higher.
    pub fn minimum(schema: &mut JsonSchema, bound: Number, exclusive: bool) {
        let keep_own = schema
            .minimum
            .is_some_and(|own| as_f64(own) > as_f64(bound));
        if !keep_own {
            schema.minimum = Some(bound);
            schema.exclusive_minimum = exclusive.then_some(true);
        }
    }

    /// Tightens `maximum`: keeps whichever of the type's own bound and `bound` is lower.
    pub fn maximum(schema: &mut JsonSchema, bound: Number, exclusive: bool) {
        let keep_own = schema
            .maximum
            .is_some_and(|own| as_f64(own) < as_f64(bound));
        if !keep_own {
            schema.maximum = Some(bound);
            schema.exclusive_maximum = exclusive.then_some(true);
        }
    }

    /// Sets `description` (from a doc comment or `#[mongo(description)]`).
    pub fn describe(mut schema: JsonSchema, description: &str) -> JsonSchema {
        schema.description = Some(description.to_owned());
        schema
    }

    /// The schema of `T` with numbers typed exactly as Rust writes them.
    pub fn exact<T: MongoSchema + ?Sized>(g: &mut SchemaGenerator) -> JsonSchema {
        g.with_numbers(NumberTypes::Exact, T::json_schema)
    }

    /// `{bsonType: [...]}` for `#[mongo(bson_type = ...)]`.
    pub fn bson_types(types: &[BsonType]) -> JsonSchema {
        JsonSchema::bson_types(types.iter().copied())
    }

    /// Asserts at compile time that a bound applies to `T` (`minimum`, `maximum`, `multiple_of`).
    pub fn numeric<T: super::Numeric + ?Sized>() {}
    /// Asserts at compile time that a string constraint applies to `T`.
    pub fn text<T: super::Text + ?Sized>() {}
    /// Asserts at compile time that an array constraint applies to `T`.
    pub fn sequence<T: super::Sequence + ?Sized>() {}

    /// A bson serde helper (`#[serde(with = "bson::serde_helpers::...")]`) whose stored form
    /// differs from the field's Rust type.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Helper {
        /// `object_id::AsHexString`: an ObjectId stored as 24 hex digits.
        ObjectIdAsHexString,
        /// `object_id::FromHexString`, `datetime::From*`, `timestamp::FromU32`, `uuid_1::*`:
        /// stored as the named BSON type.
        Stored(BsonType),
        /// `datetime::AsRfc3339String`: a date stored as an RFC 3339 string.
        DateTimeAsRfc3339String,
        /// `timestamp::AsU32`: a timestamp stored as its `u32` seconds.
        TimestampAsU32,
        /// `u32::AsF64`: a `u32` stored as a whole double.
        U32AsF64,
        /// `u32::AsI32`: a `u32` stored as an `i32`, so at most `i32::MAX`.
        U32AsI32,
        /// `u32::AsI64`: a `u32` stored as an `i64`.
        U32AsI64,
        /// `u64::AsF64`: a `u64` stored as a whole double.
        U64AsF64,
        /// `u64::AsI32`: a `u64` stored as an `i32`.
        U64AsI32,
        /// `u64::AsI64`: a `u64` stored as an `i64`.
        U64AsI64,
    }

    fn whole(mut schema: JsonSchema, max: f64) -> JsonSchema {
        schema.minimum = Some(Number::Int32(0));
        schema.maximum = Some(Number::Double(max));
        schema.multiple_of = Some(Number::Int32(1));
        schema
    }

    fn non_negative(mut schema: JsonSchema) -> JsonSchema {
        schema.minimum = Some(Number::Int32(0));
        schema
    }

    /// The schema of what a bson serde helper stores.
    pub fn helper(g: &mut SchemaGenerator, helper: Helper) -> JsonSchema {
        match helper {
            Helper::ObjectIdAsHexString => crate::formats::object_id_hex_string(),
            Helper::Stored(ty) => JsonSchema::bson_type(ty),
            Helper::DateTimeAsRfc3339String => crate::formats::rfc3339_string(),
            Helper::TimestampAsU32 => u32::json_schema(g),
            // The helpers read an f64 and accept it when it is whole and within range.
            Helper::U32AsF64 => whole(f64::json_schema(g), f64::from(u32::MAX)),
            Helper::U64AsF64 => whole(f64::json_schema(g), u64::MAX as f64),
            Helper::U32AsI32 | Helper::U64AsI32 => non_negative(i32::json_schema(g)),
            Helper::U32AsI64 => u32::json_schema(g),
            Helper::U64AsI64 => non_negative(i64::json_schema(g)),
        }
    }

    /// `Option<X>` inside `serde_with::As`: the helper's schema or null.
    pub fn helper_option(g: &mut SchemaGenerator, helper: Helper) -> JsonSchema {
        nullable(self::helper(g, helper))
    }

    /// `Vec<X>` inside `serde_with::As`: an array of the helper's schema.
    pub fn helper_vec(g: &mut SchemaGenerator, helper: Helper) -> JsonSchema {
        array_of(self::helper(g, helper))
    }

    /// A `null` value's schema: what bson writes for a unit struct or unit variant.
    pub fn null() -> JsonSchema {
        JsonSchema::bson_type(BsonType::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{Document, doc};

    fn doc_of<T: MongoSchema + ?Sized>() -> Document {
        schema_for::<T>(GeneratorSettings::default()).to_document()
    }

    fn exact<T: MongoSchema + ?Sized>() -> Document {
        schema_for::<T>(GeneratorSettings {
            numbers: NumberTypes::Exact,
            ..GeneratorSettings::default()
        })
        .to_document()
    }

    #[test]
    fn a_literal_pattern_reads_back_only_as_its_name() {
        use derive_support::{is_dotted, literal_pattern, present};
        for name in ["a.b", "x", "$p.q", r"a\z.^$", "é.(b)", "a b.c"] {
            let pattern = literal_pattern(name);
            assert_eq!(
                derive_support::literal_name(&pattern).as_deref(),
                Some(name),
                "{pattern}"
            );
        }
        assert_eq!(literal_pattern("a.b"), r"^a\.b\z");
        // A map's key pattern is no literal name.
        for pattern in ["^[0-9]+$", "^a.b\\z", "a", "^a\\z\\z"] {
            assert_eq!(derive_support::literal_name(pattern), None, "{pattern}");
        }
        assert!(is_dotted("a.b") && !is_dotted("$x"));
        assert_eq!(present("x").to_document(), doc! { "required": ["x"] });
        assert_eq!(
            present("a.b").to_document(),
            doc! { "not": { "patternProperties": { r"^a\.b\z": { "not": {} } } } }
        );
    }

    #[test]
    fn i32_admits_int_and_long_within_its_range() {
        assert_eq!(
            doc_of::<i32>(),
            doc! { "bsonType": ["int", "long"], "minimum": i32::MIN, "maximum": i32::MAX }
        );
        assert_eq!(exact::<i32>(), doc! { "bsonType": "int" });
    }

    #[test]
    fn u64_is_bounded_by_what_bson_can_write() {
        assert_eq!(
            doc_of::<u64>(),
            doc! { "bsonType": ["int", "long"], "minimum": 0 }
        );
        assert_eq!(
            exact::<u32>(),
            doc! { "bsonType": "long", "minimum": 0, "maximum": i64::from(u32::MAX) }
        );
    }

    #[test]
    fn f64_admits_whole_numbers_written_as_integers() {
        assert_eq!(
            doc_of::<f64>(),
            doc! { "bsonType": ["double", "int", "long"] }
        );
        assert_eq!(exact::<f64>(), doc! { "bsonType": "double" });
    }

    #[test]
    fn option_adds_null_and_may_be_absent() {
        const { assert!(<Option<String>>::MAY_BE_ABSENT) };
        const { assert!(!<String>::MAY_BE_ABSENT) };
        const { assert!(<Option<HashMap<String, i32>>>::FLATTENED_AS_MAP) };
        const { assert!(<bson::Document>::FLATTENED_AS_MAP && <serde_json::Value>::FLATTENED_AS_MAP) };
        const { assert!(!<Option<String>>::FLATTENED_AS_MAP) };
        assert_eq!(
            doc_of::<Option<String>>(),
            doc! { "bsonType": ["string", "null"] }
        );
    }

    #[test]
    fn nullable_enum_gains_a_null_member() {
        let s = nullable(string_enum(["A", "B"]));
        assert_eq!(
            s.to_document(),
            doc! { "bsonType": ["string", "null"], "enum": ["A", "B", null] }
        );
    }

    #[test]
    fn nullable_combinator_is_wrapped_in_any_of() {
        let s = JsonSchema {
            one_of: Some(vec![object(), JsonSchema::bson_type(BsonType::String)]),
            ..JsonSchema::default()
        };
        let n = nullable(s.clone());
        assert_eq!(
            n.any_of,
            Some(vec![JsonSchema::bson_type(BsonType::Null), s])
        );
    }

    #[test]
    fn tuple_is_positional_with_no_additional_items() {
        assert_eq!(
            exact::<(i32, String)>(),
            doc! {
                "bsonType": "array",
                "items": [{ "bsonType": "int" }, { "bsonType": "string" }],
                "additionalItems": false,
                "minItems": 2,
            }
        );
    }

    #[test]
    fn fixed_array_has_exact_length() {
        assert_eq!(
            exact::<[bool; 3]>(),
            doc! { "bsonType": "array", "items": { "bsonType": "bool" }, "minItems": 3, "maxItems": 3 }
        );
    }

    #[test]
    fn sets_have_unique_items_and_maps_constrain_values() {
        assert_eq!(
            doc_of::<BTreeSet<String>>(),
            doc! { "bsonType": "array", "items": { "bsonType": "string" }, "uniqueItems": true }
        );
        assert_eq!(
            doc_of::<HashMap<String, bool>>(),
            doc! { "bsonType": "object", "additionalProperties": { "bsonType": "bool" } }
        );
    }

    #[test]
    fn set_of_members_that_can_collide_has_no_unique_items() {
        // A type that states nothing about its forms, as a struct skipping a field.
        struct Skips;
        impl MongoSchema for Skips {
            fn json_schema(_: &mut SchemaGenerator) -> JsonSchema {
                object()
            }
        }
        assert_eq!(
            doc_of::<HashSet<Skips>>(),
            doc! { "bsonType": "array", "items": { "bsonType": "object" } }
        );
        assert_eq!(
            doc_of::<BTreeSet<(String, Option<i64>)>>().get("uniqueItems"),
            Some(&Bson::Boolean(true))
        );
        assert_eq!(
            doc_of::<BTreeSet<bson::Decimal128>>().get("uniqueItems"),
            None
        );
    }

    #[test]
    fn internal_newtype_over_a_unit_admits_the_tag_alone() {
        let s = derive_support::internal("kind", &["Nothing"], Some(derive_support::null()));
        assert_eq!(
            s.to_document(),
            doc! {
                "bsonType": "object",
                "properties": { "kind": { "bsonType": "string", "enum": ["Nothing"] } },
                "required": ["kind"],
                "additionalProperties": false,
            }
        );
    }

    #[test]
    fn flattened_external_enum_shares_the_document() {
        use derive_support::{Object, any_of, external};
        let e = any_of(vec![
            string_enum(["Unit"]),
            external("B", bool::json_schema(&mut SchemaGenerator::default())),
        ]);
        let mut open = Object::new(false);
        open.prop("f", true, JsonSchema::bson_type(BsonType::Double));
        open.flatten(e.clone(), false);
        assert_eq!(
            open.finish().to_document(),
            doc! {
                "bsonType": "object",
                "properties": { "f": { "bsonType": "double" } },
                "required": ["f"],
                "allOf": [{ "anyOf": [
                    { "bsonType": "object", "properties": { "Unit": { "bsonType": "null" } }, "required": ["Unit"] },
                    { "bsonType": "object", "properties": { "B": { "bsonType": "bool" } }, "required": ["B"] },
                ] }],
            }
        );
        let mut closed = Object::new(true);
        closed.prop("f", true, JsonSchema::bson_type(BsonType::Double));
        closed.flatten(e, false);
        let closed = closed.finish();
        assert_eq!(
            closed.properties.keys().collect::<Vec<_>>(),
            ["f", "Unit", "B"]
        );
        assert_eq!(
            closed.additional_properties,
            Some(Additional::Allowed(false))
        );
    }

    #[test]
    fn closed_root_admits_id() {
        let mut s = object();
        s.additional_properties = Some(Additional::Allowed(false));
        let root = root_schema(s);
        assert!(root.properties.contains_key("_id"));
    }

    #[test]
    fn recursion_stops_at_the_depth_bound() {
        struct Node;
        impl MongoSchema for Node {
            fn json_schema(g: &mut SchemaGenerator) -> JsonSchema {
                g.recursive("Node", Some(1), object, |g| {
                    let mut s = object();
                    s.properties
                        .insert("child".into(), nullable(Node::json_schema(g)));
                    s
                })
            }
        }
        let d = doc_of::<Node>();
        // Node -> child Node -> child opaque object.
        let inner = d
            .get_document("properties")
            .and_then(|p| p.get_document("child"))
            .and_then(|c| c.get_document("properties"))
            .and_then(|p| p.get_document("child"))
            .unwrap();
        assert_eq!(inner, &doc! { "bsonType": ["object", "null"] });
    }
}
