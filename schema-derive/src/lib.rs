//! `#[derive(MongoSchema)]`: Rust types become `$jsonSchema` validators.
//!
//! The derive reads serde's attributes exactly as serde applies them (through
//! `serde_derive_internals`) and `#[mongo(...)]` validation keys, and implements
//! `mongo_schema::MongoSchema`. See the `mongo-schema` crate documentation for the rules,
//! every supported attribute, and the known gaps of `$jsonSchema`.

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
    expand::derive(&input).into()
}
