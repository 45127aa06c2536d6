//! The collection declaration's code: `impl Collection` built from one constant
//! `declare::Declaration`, its registration, the compile-time path checks, declared queries
//! and the `Versioned` reader.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::ast::{Body, Container, Declaration, Style};
use crate::attr::{
    CappedDecl, IndexDecl, KeyKind, KeyPath, SearchStageDecl, ShardKeyDecl, TimeseriesDecl,
};

fn key_kind(kind: KeyKind) -> TokenStream {
    match kind {
        KeyKind::Ascending => quote!(__md::IndexKind::Ascending),
        KeyKind::Descending => quote!(__md::IndexKind::Descending),
        KeyKind::Hashed => quote!(__md::IndexKind::Hashed),
        KeyKind::Text => quote!(__md::IndexKind::Text),
        KeyKind::TwoD => quote!(__md::IndexKind::TwoD),
        KeyKind::TwoDSphere => quote!(__md::IndexKind::TwoDSphere),
    }
}

/// The `impl Collection`, the registration, and the compile-time path checks.
pub fn expand(c: &Container, d: &Declaration) -> TokenStream {
    let ident = &c.ident;
    let krate = c.krate();
    let name = d.name.value();
    let validator =
        if d.options.validator == Some(false) || d.options.timeseries.is_some() || d.view.is_some()
        {
            quote!(__md::ValidatorSource::None)
        } else if let Some(v) = &d.options.version {
            let field = &v.field;
            let current = v.current;
            let current_absent = v.absent == Some(current);
            let mut versions = vec![quote! {
                (#current, #current_absent, <#ident as __mp::MongoSchema>::root_schema)
            }];
            for (ty, value) in &v.previous {
                let absent = v
                    .absent
                    .or_else(|| v.previous.iter().map(|(_, v)| *v).min())
                    == Some(*value);
                versions.push(quote! {
                    (#value, #absent, <#ty as __mp::MongoSchema>::root_schema)
                });
            }
            quote!(__md::ValidatorSource::Versioned { field: #field, versions: &[#(#versions),*] })
        } else {
            quote!(__md::ValidatorSource::Root)
        };
    let level = opt_str(&d.options.validation_level);
    let action = opt_str(&d.options.validation_action);
    let indexes = d.options.indexes.iter().map(index_tokens);
    let text_fields = d.text_fields.iter().map(|(p, w)| {
        let t = &p.text;
        let w = weight(*w);
        quote!((#t, #w))
    });
    let shard_key = match &d.options.shard_key {
        Some(ShardKeyDecl { keys, unique, .. }) => {
            let keys = key_tokens(keys);
            quote!(::core::option::Option::Some((&[#(#keys),*], #unique)))
        }
        None => quote!(::core::option::Option::None),
    };
    let timeseries = match &d.options.timeseries {
        Some(TimeseriesDecl {
            time,
            meta,
            granularity,
            bucket_max_span_seconds,
            bucket_rounding_seconds,
            ..
        }) => {
            let time = &time.text;
            let meta = opt_str(&meta.as_ref().map(|m| m.text.clone()));
            let granularity = opt_str(&granularity.as_ref().map(syn::LitStr::value));
            let bucketing = match (bucket_max_span_seconds, bucket_rounding_seconds) {
                (Some(a), Some(b)) => quote!(::core::option::Option::Some((#a, #b))),
                _ => quote!(::core::option::Option::None),
            };
            quote!(::core::option::Option::Some(__md::Timeseries {
                time_field: #time, meta_field: #meta, granularity: #granularity, bucketing: #bucketing,
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    let expire = opt_i64(d.options.expire_after_seconds);
    let capped = match &d.options.capped {
        Some(CappedDecl { size, max }) => {
            let max = opt_i64(*max);
            quote!(::core::option::Option::Some((#size, #max)))
        }
        None => quote!(::core::option::Option::None),
    };
    let clustered = d.options.clustered_index;
    let collation = opt_str(&d.options.collation);
    let images = d.options.change_stream_pre_and_post_images;
    let unbounded = d.unbounded.iter().map(|p| &p.text);
    let view = view_tokens(d);
    let vector_indexes = d.options.vector_indexes.iter().map(|v| {
        let (name, path, dims) = (&v.name, &v.path.text, v.dimensions.0 as i64);
        let similarity = v.similarity.value();
        let quantization = opt_str(&v.quantization.as_ref().map(syn::LitStr::value));
        let filters = v.filters.iter().map(|p| &p.text);
        quote!(__md::VectorIndex {
            name: #name, path: #path, dimensions: #dims, similarity: #similarity,
            quantization: #quantization, filters: &[#(#filters),*],
        })
    });
    let search_indexes = d.options.search_indexes.iter().map(|s| {
        let name = &s.name;
        let analyzer = opt_str(&s.analyzer);
        let dynamic = s.dynamic;
        let mappings = s.mappings.iter().map(|m| {
            let path = &m.path.text;
            let field_type = m.field_type.value();
            let analyzer = opt_str(&m.analyzer);
            let search_analyzer = opt_str(&m.search_analyzer);
            quote!(__md::Mapping {
                path: #path, field_type: #field_type, analyzer: #analyzer,
                search_analyzer: #search_analyzer,
            })
        });
        quote!(__md::SearchIndex {
            name: #name, analyzer: #analyzer, dynamic: #dynamic, mappings: &[#(#mappings),*],
        })
    });
    let path_checks = path_checks(c, d);
    let queries = queries_tokens(c, d);
    let versioned = versioned_tokens(c, d);
    quote! {
        const _: () = {
            use #krate::__private as __mp;
            use __mp::declare as __md;
            const __DECLARATION: __md::Declaration = __md::Declaration {
                name: #name,
                validator: #validator,
                validation_level: #level,
                validation_action: #action,
                indexes: &[#(#indexes),*],
                text_fields: &[#(#text_fields),*],
                shard_key: #shard_key,
                timeseries: #timeseries,
                expire_after_seconds: #expire,
                capped: #capped,
                clustered_index: #clustered,
                collation: #collation,
                change_stream_pre_and_post_images: #images,
                unbounded: &[#(#unbounded),*],
                view: #view,
                vector_indexes: &[#(#vector_indexes),*],
                search_indexes: &[#(#search_indexes),*],
            };
            #[automatically_derived]
            impl __md::Declared for #ident {
                const NAME: &'static str = #name;
            }
            #[automatically_derived]
            impl __mp::Collection for #ident {
                fn collection_spec() -> __mp::CollectionSpec {
                    __md::build_or_panic::<Self>(&__DECLARATION)
                }
                fn try_collection_spec() -> ::core::result::Result<
                    __mp::CollectionSpec,
                    __mp::SpecError,
                > {
                    __md::build::<Self>(&__DECLARATION)
                }
            }
            __mp::inventory::submit! {
                __mp::Registration::fallible(
                    <#ident as __mp::Collection>::try_collection_spec
                )
            }
            #path_checks
            #queries
            #versioned
        };
    }
}

/// `view: Some(ViewSource {...})` for a view: the source's name read through its type's
/// `Declared` impl, spanned at the type so that naming an undeclared type fails there.
fn view_tokens(d: &Declaration) -> TokenStream {
    if d.view.is_none() {
        return quote!(::core::option::Option::None);
    }
    let Some((ty, _)) = &d.options.view_on else {
        // `check` reported the missing source.
        return quote!(::core::option::Option::None);
    };
    let view_on = quote_spanned!(syn::spanned::Spanned::span(ty)=> <#ty as __md::Declared>::NAME);
    let pipeline = d
        .options
        .pipeline
        .as_ref()
        .map_or("[]", |(p, _)| p.as_str());
    quote!(::core::option::Option::Some(__md::ViewSource { view_on: #view_on, pipeline: #pipeline }))
}

/// Field accesses on `Self`, spanned at each path's first segment: a misspelled field is a
/// compile error there (rustc suggests the nearest field). Only for named-field structs;
/// deeper segments and enum variants resolve when the spec is built.
fn path_checks(c: &Container, d: &Declaration) -> TokenStream {
    let Body::Struct(Style::Struct, _) = &c.body else {
        return TokenStream::new();
    };
    let ident = &c.ident;
    let mut paths: Vec<&KeyPath> = Vec::new();
    for index in &d.options.indexes {
        paths.extend(index.keys.iter().map(|(p, _)| p));
        paths.extend(index.weights.iter().map(|(p, _)| p));
    }
    paths.extend(d.text_fields.iter().map(|(p, _)| p));
    if let Some(shard_key) = &d.options.shard_key {
        paths.extend(shard_key.keys.iter().map(|(p, _)| p));
    }
    if let Some(ts) = &d.options.timeseries {
        paths.push(&ts.time);
        paths.extend(&ts.meta);
    }
    for v in &d.options.vector_indexes {
        paths.push(&v.path);
        paths.extend(&v.filters);
    }
    for s in &d.options.search_indexes {
        paths.extend(s.mappings.iter().map(|m| &m.path));
    }
    for q in &d.options.queries {
        paths.extend(&q.eq);
        paths.extend(q.sort.iter().map(|(p, _)| p));
        paths.extend(&q.range);
        paths.extend(q.project.iter().flatten());
        paths.extend(q.search.iter().flat_map(SearchStageDecl::paths));
    }
    let accesses = paths.iter().filter_map(|p| {
        let first = p.first.as_ref()?;
        if first == "_id" {
            return None;
        }
        Some(quote_spanned!(first.span()=> let _ = &__value.#first;))
    });
    quote! {
        #[allow(dead_code, clippy::no_effect_underscore_binding)]
        fn __mongo_schema_paths(__value: &#ident) {
            #(#accesses)*
        }
    }
}

fn queries_tokens(c: &Container, d: &Declaration) -> TokenStream {
    let ident = &c.ident;
    if d.options.queries.is_empty() {
        return TokenStream::new();
    }
    let name = d.name.value();
    let queries = d.options.queries.iter().map(|q| {
        let qname = &q.name;
        let eq = q.eq.iter().map(|p| {
            let t = &p.text;
            quote!(.eq(#t))
        });
        let sort = q.sort.iter().map(|(p, desc)| {
            let t = &p.text;
            if *desc {
                quote!(.sort_desc(#t))
            } else {
                quote!(.sort_asc(#t))
            }
        });
        let range = q.range.iter().map(|p| {
            let t = &p.text;
            quote!(.range(#t))
        });
        let project = q.project.as_ref().map(|fields| {
            let f = fields.iter().map(|p| &p.text);
            quote!(.project([#(#f),*]))
        });
        let without_id = q.without_id.then(|| quote!(.without_id()));
        let filter = q
            .filter
            .as_ref()
            .map(|f| quote!(.filter(__md::json_document(#f))));
        let limit = q.limit.map(|l| quote!(.limit(#l)));
        let frequency = q.frequency.as_ref().map(|f| quote!(.frequency(#f)));
        let search = q.search.as_ref().map(|stage| match stage {
            SearchStageDecl::Search { index, paths } => {
                let paths = paths.iter().map(|p| &p.text);
                quote!(.search(#index, ::std::vec::Vec::<&str>::from([#(#paths),*])))
            }
            SearchStageDecl::VectorSearch {
                index,
                path,
                filters,
            } => {
                let path = &path.text;
                let filters = filters.iter().map(|p| &p.text);
                quote!(.vector_search(#index, #path, ::std::vec::Vec::<&str>::from([#(#filters),*])))
            }
        });
        quote! {
            __mp::QuerySpec::new(#qname)
                #(#eq)* #(#sort)* #(#range)* #project #without_id #filter #limit #frequency #search
        }
    });
    quote! {
        fn __mongo_schema_queries() -> ::core::result::Result<
            ::std::vec::Vec<__mp::QuerySpec>,
            __mp::PathError,
        > {
            __mp::resolve_all::<#ident>(&[#(#queries),*])
        }
        __mp::inventory::submit! {
            __mp::QueryRegistration::new(#name, __mongo_schema_queries)
        }
    }
}

fn versioned_tokens(c: &Container, d: &Declaration) -> TokenStream {
    let ident = &c.ident;
    let Some(v) = &d.options.version else {
        return TokenStream::new();
    };
    let field = &v.field;
    let current = v.current;
    let absent = v
        .absent
        .or_else(|| v.previous.iter().map(|(_, v)| *v).min());
    let mut accepted = vec![current];
    accepted.extend(v.previous.iter().map(|(_, v)| *v));
    let arms = v.previous.iter().map(|(ty, value)| {
        let none = (absent == Some(*value)).then(|| quote!(| ::core::option::Option::None));
        quote! {
            ::core::option::Option::Some(#value) #none => {
                __mp::read_as::<#ty>(document, version).map(::core::convert::From::from)
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl __mp::Versioned for #ident {
            const FIELD: &'static str = #field;
            const CURRENT: i64 = #current;
            fn from_any_version(
                document: &__mp::bson::RawDocument,
            ) -> ::core::result::Result<Self, __mp::VersionError> {
                                let version = __mp::version_of(document, #field)?;
                match version {
                    ::core::option::Option::Some(#current) => __mp::read_as::<Self>(document, version),
                    #(#arms)*
                    other => ::core::result::Result::Err(__mp::unknown(#field, other, &[#(#accepted),*])),
                }
            }
        }
    }
}

fn index_tokens(index: &IndexDecl) -> TokenStream {
    let keys = key_tokens(&index.keys);
    let mut options = Vec::new();
    if let Some(n) = &index.name {
        options.push(quote!(name: ::core::option::Option::Some(#n)));
    }
    if index.unique {
        options.push(quote!(unique: true));
    }
    if index.sparse {
        options.push(quote!(sparse: true));
    }
    if index.hidden {
        options.push(quote!(hidden: true));
    }
    if let Some(t) = index.ttl {
        options.push(quote!(ttl: ::core::option::Option::Some(#t)));
    }
    for (key, value) in [
        ("partial", &index.partial),
        ("collation", &index.collation),
        ("wildcard_projection", &index.wildcard_projection),
        ("default_language", &index.default_language),
        ("language_override", &index.language_override),
    ] {
        if let Some(v) = value {
            let key = syn::Ident::new(key, Span::call_site());
            options.push(quote!(#key: ::core::option::Option::Some(#v)));
        }
    }
    if !index.weights.is_empty() {
        let w = index.weights.iter().map(|(p, w)| {
            let t = &p.text;
            let w = weight(*w);
            quote!((#t, #w))
        });
        options.push(quote!(weights: &[#(#w),*]));
    }
    if let Some(b) = index.bits {
        let b = i32::try_from(b).unwrap_or(i32::MAX);
        options.push(quote!(bits: ::core::option::Option::Some(#b)));
    }
    if let Some(m) = index.min {
        options.push(quote!(min: ::core::option::Option::Some(#m)));
    }
    if let Some(m) = index.max {
        options.push(quote!(max: ::core::option::Option::Some(#m)));
    }
    if let Some((tag, value)) = &index.variant {
        options.push(quote!(variant: ::core::option::Option::Some((#tag, #value))));
    }
    quote!(__md::Index { #(#options,)* ..__md::Index::new(&[#(#keys),*]) })
}

fn key_tokens(keys: &[(KeyPath, KeyKind)]) -> Vec<TokenStream> {
    keys.iter()
        .map(|(p, k)| {
            let t = &p.text;
            let k = key_kind(*k);
            quote!((#t, #k))
        })
        .collect()
}

fn opt_str(value: &Option<String>) -> TokenStream {
    match value {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn opt_i64(value: Option<i64>) -> TokenStream {
    match value {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    }
}

/// A text weight as the server's 32-bit int; `check` keeps it within 1 to 99999.
fn weight(w: i64) -> i32 {
    i32::try_from(w).unwrap_or(i32::MAX)
}
