//! `#[derive(MongoSchema)]`: Rust types become `$jsonSchema` validators.
//!
//! The derive reads serde's attributes exactly as serde applies them (through
//! `serde_derive_internals`) and `#[mongo(...)]` keys, and implements
//! `mongo_schema::MongoSchema`. Its contract: every value bson's serializer writes passes the
//! validator (sound), and every document that passes deserializes (tight), wherever
//! `$jsonSchema` can say it. Misuse is a compile error at the offending token, reported once.
//!
//! # serde attributes honoured
//! Container: `rename_all` (every case), `rename_all_fields`, `deny_unknown_fields` (closed
//! object; at the top level `_id` stays admitted), `default`, `transparent`, `tag`, `content`,
//! `untagged`, `from` + `into` of one type (`try_from`, or `from`/`into` of different types,
//! need `#[mongo(schema_as)]` or `#[mongo(schema_with)]`). Variant: `rename`, `alias`, `skip*`,
//! `other`, `untagged`, `with` (with `#[mongo(bson_type)]` or `#[mongo(schema_with)]`). Field: `rename`, `alias` (each name accepted, at most one present),
//! `skip`, `skip_serializing`, `skip_deserializing`, `skip_serializing_if` (needs `default`
//! unless the field is an `Option`), `default`, `flatten` (struct, `Option` of struct, map),
//! `with` / `serialize_with` / `deserialize_with` naming bson 3's helpers (`object_id`,
//! `datetime`, `timestamp`, `u32`, `u64`, `uuid_1` converters, also through
//! `serde_with::As<Option<..>>` / `As<Vec<..>>`) or bson 2's helpers, as modules (`u32_as_f64`,
//! `hex_string_as_object_id`, `chrono_datetime_as_bson_datetime`, ...; feature `bson-2`) or as
//! bare functions (both halves, `serialize_hex_string_as_object_id` with
//! `deserialize_hex_string_from_object_id`; `serialize_u32_as_i32` and the other serializers
//! whose form the field's type reads back, alone); any other function needs
//! `#[mongo(bson_type = "...")]`, `#[mongo(schema_as = T)]` or `#[mongo(schema_with = path)]`.
//! A `T: MongoSchema` bound is added for each type parameter a (de)serialized field's schema
//! needs: not for skipped fields, `PhantomData` (stored as `null`) or stated schemas.
//!
//! # `#[mongo(...)]` keys
//! Field: `minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum` (flags beside a
//! bound, draft 4), `multiple_of`, `min_length`, `max_length`, `pattern` (checked at compile
//! time with `regex-syntax`; look-around and backreferences, which PCRE has, are let through),
//! `min_items`, `max_items`, `unique_items`, `bson_type = "a, b"`, `schema_with = path`
//! (`fn(&mut SchemaGenerator) -> JsonSchema`), `schema_as = Type` (a type serde writes the
//! same way), `title`, `description`, `exact`. A field whose schema is stated (`bson_type`,
//! `schema_with`) needs nothing of its type: foreign types without an impl are fine.
//! Variant: `bson_type`, `schema_with` (the content a variant's own `with` writes).
//! Container: `title`, `description`, `exact`, `recursion_depth = N`, `bound = "T: ..."`,
//! `schema_as = "Type"`, `schema_with = path`, `crate = "path"` (where the crate is reachable
//! when it is re-exported). Variant: `title`, `description`.
//! `bson_type` and `schema_with` replace the field's whole schema (list `null` yourself for an
//! `Option`). Doc comments become `description`. Bounds apply to the content of an `Option`; a key on a
//! type with no such notion (`minimum` on a `String`) is a compile error. Reserved for the
//! collection declaration: `collection`, `index`, `unique`, `ttl`, `text`, `hashed`,
//! `shard_key`, `validation_level`, `validation_action`, `timeseries`, `version`, `unbounded`.
//!
//! # Where `$jsonSchema` cannot say what serde does (known gaps)
//! - Recursive types are inlined to `recursion_depth` (default 3); beyond it any object passes.
//! - `try_from` checks, custom `serialize_with`/`deserialize_with`: only what you state.
//! - Binary subtypes (`bson::Uuid`, uuid helpers) cannot be pinned: any `binData` passes.
//! - Calendar validity of date strings (February 30) and day 366 of a common year in `time`'s
//!   tuple form pass the validator and fail to read.
//! - A collection root must read the `_id` the server adds: `deny_unknown_fields` without an
//!   `_id` field, an externally tagged enum, a flattened map (or an internally tagged newtype
//!   over one) whose values cannot read an ObjectId are compile errors on `collection`. A
//!   flattened or wrapped type from elsewhere that denies unknown fields cannot be seen.
//! - `deny_unknown_fields` beside a flattened field whose type serde reads as a map (an
//!   internally tagged or untagged enum, a map, a struct that flattens a field itself) cannot
//!   read what it writes, so it is a compile error (a foreign type with a hand-written impl
//!   says so with `MongoSchema::FLATTENED_AS_MAP`).
//! - A flattened internally tagged variant that is itself closed (`deny_unknown_fields` on the
//!   enum, or a newtype over a unit struct) refuses unknown fields beside it when serde reads
//!   it, but in a struct without `deny_unknown_fields` the validator admits them: the branch
//!   must stay open to the struct's own fields, and which branches serde closes is not carried
//!   into the schema.
//! - Variant tags are also readable as integers (variant index) by serde; only names pass.
//! - A `#[serde(other)]` variant's tag: a variant literally renamed to a name starting with
//!   `!` is not supported.

//!
//! # Stages
//! `attr` (one key table, one value reader) -> `ast` (serde's view joined with the keys) ->
//! `check` (rules across keys and fields) -> `expand` (the impls); `fallback` stubs the impls
//! beside errors. Each module imports only the ones before it.

mod ast;
mod attr;
mod check;
mod errors;
mod expand;
mod fallback;

use proc_macro::TokenStream;

/// Derives `mongo_schema::MongoSchema` from a type's serde form.
#[proc_macro_derive(MongoSchema, attributes(mongo))]
pub fn derive_mongo_schema(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    derive(&input).into()
}

/// Reads, checks and expands one input; every problem is reported together, beside stubs.
fn derive(input: &syn::DeriveInput) -> proc_macro2::TokenStream {
    let errors = errors::Errors::new();
    let container = ast::Container::from_ast(&errors, input);
    if let Some(c) = &container {
        check::container(&errors, c);
    }
    match (errors.finish(), container) {
        (Ok(()), Some(c)) => expand::derive(&c),
        // serde's own derive reports what it refused.
        (Ok(()), None) => fallback::stubs(input),
        (Err(e), _) => {
            let mut out = e.to_compile_error();
            out.extend(fallback::stubs(input));
            out
        }
    }
}
