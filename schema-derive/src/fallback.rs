//! The stub impls emitted beside errors: code using `T: MongoSchema` or `T::collection_spec()`
//! still type-checks, so one mistake in an attribute is reported once, not again at every use
//! of the type.

use proc_macro2::TokenStream;
use quote::quote;

use crate::attr::{self, Scope};
use crate::errors::Errors;

/// `MongoSchema` accepting anything, and `Collection` (and `Declared`) with an empty spec when
/// the type declares a collection or a view.
pub fn stubs(input: &syn::DeriveInput) -> TokenStream {
    // The attributes again, for the crate path and `collection`/`view` only: their problems were
    // reported by the first reading.
    let scratch = Errors::new();
    let mongo = attr::parse(&scratch, &input.attrs, Scope::Container);
    let _ = scratch.finish();
    let krate = mongo.crate_path();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let declared = mongo.declaration.collection.is_some() || mongo.declaration.view.is_some();
    let collection = declared.then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics __mp::Collection for #ident #ty_generics #where_clause {
                fn collection_spec() -> __mp::CollectionSpec {
                    __mp::CollectionSpec::new("")
                }
            }
            #[automatically_derived]
            impl #impl_generics __mp::declare::Declared for #ident #ty_generics #where_clause {
                const NAME: &'static str = "";
            }
        }
    });
    quote! {
        const _: () = {
            use #krate::__private as __mp;
            #[automatically_derived]
            impl #impl_generics __mp::MongoSchema for #ident #ty_generics #where_clause {
                fn json_schema(_: &mut __mp::SchemaGenerator) -> __mp::JsonSchema {
                    __mp::JsonSchema::any()
                }
            }
            #collection
        };
    }
}
