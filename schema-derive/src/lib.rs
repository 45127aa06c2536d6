//! `#[derive(MongoSchema)]`: Rust types become `$jsonSchema` validators.

use proc_macro::TokenStream;

/// Derives `mongo_schema::MongoSchema`.
#[proc_macro_derive(MongoSchema, attributes(mongo))]
pub fn derive_mongo_schema(input: TokenStream) -> TokenStream {
    let _ = input;
    TokenStream::new()
}
