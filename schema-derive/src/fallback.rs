//! The stub impl emitted beside errors: code using `T: MongoSchema` still type-checks, so one
//! mistake in an attribute is reported once, not again at every use of the type.

use proc_macro2::TokenStream;
use quote::quote;

pub fn stub(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics ::mongo_schema::MongoSchema for #ident #ty_generics #where_clause {
                fn json_schema(_: &mut ::mongo_schema::SchemaGenerator) -> ::mongo_schema::JsonSchema {
                    ::mongo_schema::JsonSchema::any()
                }
            }
        };
    }
}
