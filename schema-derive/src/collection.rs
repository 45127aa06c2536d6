//! `#[mongo(collection = "...")]`: the collection declaration beside the schema.
//!
//! Reads the collection-level keys (`collection`, `index`, `shard_key`, `timeseries`, `version`,
//! `query`, field shorthands such as `unique` and `ttl`) and expands to
//! `impl mongo_schema::collection::Collection` built from one constant
//! `mongo_schema::declare::Declaration`, plus its registration in the registry. The schema
//! keys are read by `attr.rs`; each side skips the other's keys.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, Token, UnOp};

use crate::ast::{Body, Container, Style, Tag};
use crate::errors::{Errors, suggestion};

/// Field shorthands read here; the other keys of `#[mongo]` on fields are `attr.rs`'s.
pub const FIELD_KEYS: &[&str] = &["index", "unique", "ttl", "text", "hashed", "unbounded"];

/// Whether the input declares a collection at all (cheap: used to stub on errors too).
pub fn is_declared(input: &syn::DeriveInput) -> bool {
    let mut found = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("mongo")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("collection") {
                found = true;
            }
            skip(&meta);
            Ok(())
        });
    }
    found
}

/// Consumes a key's value whatever its shape: `= expr`, `(anything)`, or nothing.
pub fn skip(meta: &ParseNestedMeta<'_>) {
    if meta.input.peek(Token![=]) {
        if let Ok(value) = meta.value() {
            let _ = value.parse::<Expr>();
        }
    } else if meta.input.peek(syn::token::Paren) {
        let _ = (|| -> syn::Result<()> {
            let content;
            syn::parenthesized!(content in meta.input);
            content.parse::<TokenStream>()?;
            Ok(())
        })();
    }
}

/// The stub beside errors, so uses of `T::collection_spec()` do not add errors of their own.
pub fn stub(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics ::mongo_schema::collection::Collection for #ident #ty_generics #where_clause {
                fn collection_spec() -> ::mongo_schema::collection::CollectionSpec {
                    ::mongo_schema::collection::CollectionSpec::new("")
                }
            }
        };
    }
}

/// A key path as written: Rust field names joined by dots, or a string (`"$**"`, `"meta.$**"`).
struct KeyPath {
    text: String,
    /// The first segment when it is a Rust identifier (checked at compile time on structs).
    first: Option<syn::Ident>,
    span: Span,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Ascending,
    Descending,
    Hashed,
    Text,
    TwoD,
    TwoDSphere,
}

impl KeyKind {
    fn tokens(self) -> TokenStream {
        match self {
            KeyKind::Ascending => quote!(__md::Key::Ascending),
            KeyKind::Descending => quote!(__md::Key::Descending),
            KeyKind::Hashed => quote!(__md::Key::Hashed),
            KeyKind::Text => quote!(__md::Key::Text),
            KeyKind::TwoD => quote!(__md::Key::TwoD),
            KeyKind::TwoDSphere => quote!(__md::Key::TwoDSphere),
        }
    }
}

const KEY_KINDS: &[&str] = &["1", "-1", "hashed", "text", "2d", "2dsphere"];

#[derive(Default)]
struct IndexDecl {
    keys: Vec<(KeyPath, KeyKind)>,
    name: Option<String>,
    unique: bool,
    sparse: bool,
    hidden: bool,
    ttl: Option<i64>,
    partial: Option<String>,
    collation: Option<String>,
    wildcard_projection: Option<String>,
    weights: Vec<(KeyPath, i32)>,
    default_language: Option<String>,
    language_override: Option<String>,
    bits: Option<i32>,
    min: Option<f64>,
    max: Option<f64>,
    variant: Option<(String, String)>,
    span: Option<Span>,
}

struct QueryDecl {
    name: String,
    eq: Vec<KeyPath>,
    sort: Vec<(KeyPath, bool)>,
    range: Vec<KeyPath>,
    project: Option<Vec<KeyPath>>,
    without_id: bool,
    filter: Option<String>,
    limit: Option<i64>,
    frequency: Option<String>,
}

struct TimeseriesDecl {
    time: KeyPath,
    meta: Option<KeyPath>,
    granularity: Option<String>,
    bucketing: Option<(i64, i64)>,
}

struct VersionDecl {
    field: String,
    current: i64,
    previous: Vec<(syn::Type, i64)>,
    absent: Option<i64>,
}

/// One collection root's declaration, read and checked.
#[derive(Default)]
pub struct Declaration {
    name: String,
    no_validator: bool,
    validation_level: Option<String>,
    validation_action: Option<String>,
    indexes: Vec<IndexDecl>,
    text_fields: Vec<(KeyPath, i32)>,
    shard_key: Option<(Vec<(KeyPath, KeyKind)>, bool)>,
    timeseries: Option<TimeseriesDecl>,
    expire_after_seconds: Option<i64>,
    capped: Option<(i64, Option<i64>)>,
    clustered_index: bool,
    collation: Option<String>,
    change_stream_pre_and_post_images: bool,
    version: Option<VersionDecl>,
    queries: Vec<QueryDecl>,
    unbounded: Vec<KeyPath>,
}

/// The most indexes a collection holds, `_id_` included.
const MAX_INDEXES: usize = 64;
/// The most fields in one key pattern.
const MAX_KEY_FIELDS: usize = 32;

impl Declaration {
    /// Reads the declaration; `None` when the type declares no collection. Problems go to
    /// `errors` with their spans.
    pub fn from_ast(
        errors: &Errors,
        input: &syn::DeriveInput,
        container: &Container,
    ) -> Option<Declaration> {
        let mut decl = Declaration::default();
        let mut declared_at: Option<Span> = None;
        for attr in mongo_attrs(&input.attrs) {
            let _ = attr.parse_nested_meta(|meta| {
                read_container_key(errors, &meta, &mut decl, &mut declared_at);
                Ok(())
            });
        }
        // Field shorthands and variant indexes, read even without `collection` so that a
        // forgotten `collection` is reported at the shorthand.
        let mut shorthand_at: Option<Span> = None;
        match (&input.data, &container.body) {
            (syn::Data::Struct(data), Body::Struct(..)) => {
                for field in &data.fields {
                    read_field(errors, field, &mut decl, &mut shorthand_at);
                }
            }
            (syn::Data::Enum(data), Body::Enum(variants)) => {
                for (variant, model) in data.variants.iter().zip(variants) {
                    for attr in mongo_attrs(&variant.attrs) {
                        let _ = attr.parse_nested_meta(|meta| {
                            if meta.path.is_ident("index") {
                                shorthand_at.get_or_insert(meta.path.span());
                                let scope = match &container.tag {
                                    Tag::Internal(tag) => {
                                        Some((tag.clone(), model.ser_name.clone()))
                                    }
                                    _ => {
                                        errors.at(
                                            meta.path.span(),
                                            "an index on a variant is scoped to it by the \
                                             discriminator, which needs an internally tagged \
                                             enum: add #[serde(tag = \"type\")] to the enum, or \
                                             declare the index on the enum",
                                        );
                                        None
                                    }
                                };
                                if let Some(mut index) = read_index(errors, &meta, true) {
                                    index.variant = scope;
                                    decl.indexes.push(index);
                                }
                            } else {
                                skip(&meta);
                            }
                            Ok(())
                        });
                    }
                }
            }
            _ => {}
        }
        let Some(at) = declared_at else {
            if let Some(span) = shorthand_at {
                errors.at(
                    span,
                    "index and lint attributes belong to a collection root: add \
                     #[mongo(collection = \"name\")] to the type",
                );
            }
            return None;
        };
        decl.check(errors, container, at);
        Some(decl)
    }

    fn check(&self, errors: &Errors, container: &Container, at: Span) {
        if !container.generics.params.is_empty() {
            errors.at(
                at,
                "a collection root cannot be generic: the registry needs one concrete type per \
                 collection; declare the collection on a type alias's wrapper struct instead",
            );
        }
        if self.timeseries.is_some() {
            if self.validation_level.is_some() || self.validation_action.is_some() {
                errors.at(
                    at,
                    "time-series collections cannot have a validator (the server fails create \
                     with InvalidOptions, code 72): remove validation_level/validation_action",
                );
            }
            if self.version.is_some() {
                errors.at(
                    at,
                    "time-series collections cannot have a validator, so they cannot pin \
                     schema versions: remove version(...)",
                );
            }
        }
        if self.version.is_some() && self.no_validator {
            errors.at(
                at,
                "version(...) builds the validator; it cannot be combined with validator = false",
            );
        }
        let text_indexes = self.indexes.iter().filter(|i| i.is_text()).count()
            + usize::from(!self.text_fields.is_empty());
        if text_indexes > 1 {
            let span = self
                .indexes
                .iter()
                .filter(|i| i.is_text())
                .nth(1)
                .and_then(|i| i.span)
                .or_else(|| self.text_fields.first().map(|(p, _)| p.span))
                .unwrap_or(at);
            errors.at(
                span,
                "only one text index per collection allowed: list every text field in one \
                 index(keys(a = \"text\", b = \"text\"), weights(...)), or mark them \
                 #[mongo(text)]",
            );
        }
        let count = 1 + self.indexes.len() + usize::from(!self.text_fields.is_empty());
        if count > MAX_INDEXES {
            errors.at(
                at,
                format!(
                    "add index fails, too many indexes: {count} with _id_ (the server allows {MAX_INDEXES})"
                ),
            );
        }
        if let Some(version) = &self.version {
            if let Some(absent) = version.absent {
                if !version.previous.iter().any(|(_, v)| *v == absent) {
                    errors.at(
                        at,
                        format!(
                            "version(absent = {absent}) names no previous version: documents \
                             without the field are read as one of previous(...)"
                        ),
                    );
                }
            }
        }
    }

    /// The `impl Collection`, the registration, and the compile-time path checks.
    pub fn expand(&self, container: &Container) -> TokenStream {
        let ident = &container.ident;
        let name = &self.name;
        let validator = if self.no_validator || self.timeseries.is_some() {
            quote!(__md::ValidatorSource::None)
        } else if let Some(v) = &self.version {
            let field = &v.field;
            let current = v.current;
            let current_absent = v.absent == Some(current);
            let mut versions = vec![quote! {
                (#current, #current_absent, <#ident as ::mongo_schema::MongoSchema>::root_schema)
            }];
            for (ty, value) in &v.previous {
                let absent = v
                    .absent
                    .or_else(|| v.previous.iter().map(|(_, v)| *v).min())
                    == Some(*value);
                versions.push(quote! {
                    (#value, #absent, <#ty as ::mongo_schema::MongoSchema>::root_schema)
                });
            }
            quote!(__md::ValidatorSource::Versioned { field: #field, versions: &[#(#versions),*] })
        } else {
            quote!(__md::ValidatorSource::Root)
        };
        let level = opt_str(&self.validation_level);
        let action = opt_str(&self.validation_action);
        let indexes = self.indexes.iter().map(IndexDecl::tokens);
        let text_fields = self.text_fields.iter().map(|(p, w)| {
            let t = &p.text;
            quote!((#t, #w))
        });
        let shard_key = match &self.shard_key {
            Some((keys, unique)) => {
                let keys = key_tokens(keys);
                quote!(::core::option::Option::Some((&[#(#keys),*], #unique)))
            }
            None => quote!(::core::option::Option::None),
        };
        let timeseries = match &self.timeseries {
            Some(TimeseriesDecl {
                time,
                meta,
                granularity,
                bucketing,
            }) => {
                let time = &time.text;
                let meta = opt_str(&meta.as_ref().map(|m| m.text.clone()));
                let granularity = opt_str(granularity);
                let bucketing = match bucketing {
                    Some((a, b)) => quote!(::core::option::Option::Some((#a, #b))),
                    None => quote!(::core::option::Option::None),
                };
                quote!(::core::option::Option::Some(__md::Timeseries {
                    time_field: #time, meta_field: #meta, granularity: #granularity, bucketing: #bucketing,
                }))
            }
            None => quote!(::core::option::Option::None),
        };
        let expire = opt_i64(self.expire_after_seconds);
        let capped = match self.capped {
            Some((size, max)) => {
                let max = opt_i64(max);
                quote!(::core::option::Option::Some((#size, #max)))
            }
            None => quote!(::core::option::Option::None),
        };
        let clustered = self.clustered_index;
        let collation = opt_str(&self.collation);
        let images = self.change_stream_pre_and_post_images;
        let unbounded = self.unbounded.iter().map(|p| &p.text);
        let path_checks = self.path_checks(container);
        let queries = self.queries_tokens(ident);
        let versioned = self.versioned_tokens(ident);
        quote! {
            const _: () = {
                use ::mongo_schema::declare as __md;
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
                };
                #[automatically_derived]
                impl ::mongo_schema::collection::Collection for #ident {
                    fn collection_spec() -> ::mongo_schema::collection::CollectionSpec {
                        __md::build_or_panic::<Self>(&__DECLARATION)
                    }
                    fn try_collection_spec() -> ::core::result::Result<
                        ::mongo_schema::collection::CollectionSpec,
                        ::mongo_schema::collection::SpecError,
                    > {
                        __md::build::<Self>(&__DECLARATION)
                    }
                }
                ::mongo_schema::__private::inventory::submit! {
                    ::mongo_schema::registry::Registration::fallible(
                        <#ident as ::mongo_schema::collection::Collection>::try_collection_spec
                    )
                }
                #path_checks
                #queries
                #versioned
            };
        }
    }

    /// Field accesses on `Self`, spanned at each path's first segment: a misspelled field is a
    /// compile error there (rustc suggests the nearest field). Only for named-field structs;
    /// deeper segments and enum variants resolve when the spec is built.
    fn path_checks(&self, container: &Container) -> TokenStream {
        let Body::Struct(Style::Struct, _) = &container.body else {
            return TokenStream::new();
        };
        let ident = &container.ident;
        let mut paths: Vec<&KeyPath> = Vec::new();
        for index in &self.indexes {
            paths.extend(index.keys.iter().map(|(p, _)| p));
            paths.extend(index.weights.iter().map(|(p, _)| p));
        }
        paths.extend(self.text_fields.iter().map(|(p, _)| p));
        if let Some((keys, _)) = &self.shard_key {
            paths.extend(keys.iter().map(|(p, _)| p));
        }
        if let Some(ts) = &self.timeseries {
            paths.push(&ts.time);
            paths.extend(&ts.meta);
        }
        for q in &self.queries {
            paths.extend(&q.eq);
            paths.extend(q.sort.iter().map(|(p, _)| p));
            paths.extend(&q.range);
            paths.extend(q.project.iter().flatten());
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

    fn queries_tokens(&self, ident: &syn::Ident) -> TokenStream {
        if self.queries.is_empty() {
            return TokenStream::new();
        }
        let name = &self.name;
        let queries = self.queries.iter().map(|q| {
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
            quote! {
                ::mongo_schema::access::QuerySpec::new(#qname)
                    #(#eq)* #(#sort)* #(#range)* #project #without_id #filter #limit #frequency
            }
        });
        quote! {
            fn __mongo_schema_queries() -> ::core::result::Result<
                ::std::vec::Vec<::mongo_schema::access::QuerySpec>,
                ::mongo_schema::PathError,
            > {
                ::mongo_schema::access::resolve_all::<#ident>(&[#(#queries),*])
            }
            ::mongo_schema::__private::inventory::submit! {
                ::mongo_schema::access::QueryRegistration::new(#name, __mongo_schema_queries)
            }
        }
    }

    fn versioned_tokens(&self, ident: &syn::Ident) -> TokenStream {
        let Some(v) = &self.version else {
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
                    __mv::read_as::<#ty>(document, version).map(::core::convert::From::from)
                }
            }
        });
        quote! {
            #[automatically_derived]
            impl ::mongo_schema::version::Versioned for #ident {
                const FIELD: &'static str = #field;
                const CURRENT: i64 = #current;
                fn from_any_version(
                    document: &::mongo_schema::__private::bson::RawDocument,
                ) -> ::core::result::Result<Self, ::mongo_schema::version::VersionError> {
                    use ::mongo_schema::version as __mv;
                    let version = __mv::version_of(document, #field)?;
                    match version {
                        ::core::option::Option::Some(#current) => __mv::read_as::<Self>(document, version),
                        #(#arms)*
                        other => ::core::result::Result::Err(__mv::unknown(#field, other, &[#(#accepted),*])),
                    }
                }
            }
        }
    }
}

impl IndexDecl {
    fn is_text(&self) -> bool {
        self.keys.iter().any(|(_, k)| *k == KeyKind::Text)
    }

    fn tokens(&self) -> TokenStream {
        let keys = key_tokens(&self.keys);
        let mut options = Vec::new();
        if let Some(n) = &self.name {
            options.push(quote!(name: ::core::option::Option::Some(#n)));
        }
        if self.unique {
            options.push(quote!(unique: true));
        }
        if self.sparse {
            options.push(quote!(sparse: true));
        }
        if self.hidden {
            options.push(quote!(hidden: true));
        }
        if let Some(t) = self.ttl {
            options.push(quote!(ttl: ::core::option::Option::Some(#t)));
        }
        for (key, value) in [
            ("partial", &self.partial),
            ("collation", &self.collation),
            ("wildcard_projection", &self.wildcard_projection),
            ("default_language", &self.default_language),
            ("language_override", &self.language_override),
        ] {
            if let Some(v) = value {
                let key = syn::Ident::new(key, Span::call_site());
                options.push(quote!(#key: ::core::option::Option::Some(#v)));
            }
        }
        if !self.weights.is_empty() {
            let w = self.weights.iter().map(|(p, w)| {
                let t = &p.text;
                quote!((#t, #w))
            });
            options.push(quote!(weights: &[#(#w),*]));
        }
        if let Some(b) = self.bits {
            options.push(quote!(bits: ::core::option::Option::Some(#b)));
        }
        if let Some(m) = self.min {
            options.push(quote!(min: ::core::option::Option::Some(#m)));
        }
        if let Some(m) = self.max {
            options.push(quote!(max: ::core::option::Option::Some(#m)));
        }
        if let Some((tag, value)) = &self.variant {
            options.push(quote!(variant: ::core::option::Option::Some((#tag, #value))));
        }
        quote!(__md::Index { #(#options,)* ..__md::Index::new(&[#(#keys),*]) })
    }
}

fn key_tokens(keys: &[(KeyPath, KeyKind)]) -> Vec<TokenStream> {
    keys.iter()
        .map(|(p, k)| {
            let t = &p.text;
            let k = k.tokens();
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

fn mongo_attrs(attrs: &[syn::Attribute]) -> impl Iterator<Item = &syn::Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("mongo") && !matches!(a.meta, syn::Meta::Path(_)))
}

fn key_name(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

fn read_container_key(
    errors: &Errors,
    meta: &ParseNestedMeta<'_>,
    decl: &mut Declaration,
    declared_at: &mut Option<Span>,
) {
    let key = key_name(meta);
    let span = meta.path.span();
    match key.as_str() {
        "collection" => {
            if let Some(name) = string(errors, meta, &key) {
                let value = name.value();
                if value.is_empty() || value.contains('$') || value.starts_with("system.") {
                    errors.spanned(
                        &name,
                        "a collection name must be non-empty, contain no `$`, and not start with \
                         `system.`",
                    );
                }
                if declared_at.replace(span).is_some() {
                    errors.at(span, "`collection` is declared twice");
                }
                decl.name = value;
            }
        }
        "validator" => {
            if let Some(on) = flag(errors, meta, &key) {
                decl.no_validator = !on;
            }
        }
        "validation_level" => decl.validation_level = string(errors, meta, &key).map(|s| s.value()),
        "validation_action" => {
            decl.validation_action = string(errors, meta, &key).map(|s| s.value());
        }
        "index" => {
            if let Some(index) = read_index(errors, meta, true) {
                decl.indexes.push(index);
            }
        }
        "shard_key" => {
            let mut keys = Vec::new();
            let mut unique = false;
            let result = meta.parse_nested_meta(|inner| {
                match key_name(&inner).as_str() {
                    "keys" => keys = parse_keys(errors, inner.input),
                    "unique" => unique = flag(errors, &inner, "unique").unwrap_or(false),
                    other => {
                        errors.at(
                            inner.path.span(),
                            format!(
                                "unknown shard_key option `{other}`; expected `keys(...)` and \
                                 optionally `unique`, e.g. shard_key(keys(user_id = \"hashed\"))"
                            ),
                        );
                        skip(&inner);
                    }
                }
                Ok(())
            });
            push(errors, result);
            if keys.is_empty() {
                errors.at(
                    span,
                    "shard_key needs keys(...), e.g. shard_key(keys(user_id = \"hashed\"))",
                );
            } else {
                if unique && keys.iter().any(|(_, k)| *k == KeyKind::Hashed) {
                    errors.at(span, "a hashed shard key cannot be unique");
                }
                decl.shard_key = Some((keys, unique));
            }
        }
        "timeseries" => {
            let mut time = None;
            let mut meta_field = None;
            let mut granularity = None;
            let mut span_s = None;
            let mut rounding = None;
            let result = meta.parse_nested_meta(|inner| {
                let k = key_name(&inner);
                match k.as_str() {
                    "time_field" => time = value_path(errors, &inner),
                    "meta_field" => meta_field = value_path(errors, &inner),
                    "granularity" => {
                        if let Some(g) = string(errors, &inner, &k) {
                            if !["seconds", "minutes", "hours"].contains(&g.value().as_str()) {
                                errors.spanned(
                                    &g,
                                    "granularity is one of \"seconds\", \"minutes\", \"hours\"",
                                );
                            }
                            granularity = Some(g.value());
                        }
                    }
                    "bucket_max_span_seconds" => span_s = integer(errors, &inner, &k),
                    "bucket_rounding_seconds" => rounding = integer(errors, &inner, &k),
                    other => {
                        let hint = suggestion(
                            other,
                            [
                                "time_field",
                                "meta_field",
                                "granularity",
                                "bucket_max_span_seconds",
                                "bucket_rounding_seconds",
                            ],
                        );
                        errors.at(
                            inner.path.span(),
                            format!("unknown timeseries option `{other}`{hint}"),
                        );
                        skip(&inner);
                    }
                }
                Ok(())
            });
            push(errors, result);
            let bucketing = match (span_s, rounding) {
                (Some(a), Some(b)) => {
                    if a != b {
                        errors.at(span, "bucket_max_span_seconds and bucket_rounding_seconds must be equal (server rule)");
                    }
                    if granularity.is_some() {
                        errors.at(
                            span,
                            "give either granularity or the bucket seconds, not both",
                        );
                    }
                    Some((a, b))
                }
                (None, None) => None,
                _ => {
                    errors.at(
                        span,
                        "bucket_max_span_seconds and bucket_rounding_seconds go together",
                    );
                    None
                }
            };
            match time {
                Some(time) => {
                    decl.timeseries = Some(TimeseriesDecl {
                        time,
                        meta: meta_field,
                        granularity,
                        bucketing,
                    });
                }
                None => errors.at(span, "timeseries needs time_field = <field>"),
            }
        }
        "expire_after_seconds" => decl.expire_after_seconds = positive(errors, meta, &key),
        "capped" => {
            let mut size = None;
            let mut max = None;
            let result = meta.parse_nested_meta(|inner| {
                match key_name(&inner).as_str() {
                    "size" => size = positive(errors, &inner, "size"),
                    "max" => max = integer(errors, &inner, "max"),
                    other => {
                        errors.at(
                            inner.path.span(),
                            format!("unknown capped option `{other}`; expected size and max"),
                        );
                        skip(&inner);
                    }
                }
                Ok(())
            });
            push(errors, result);
            match size {
                Some(size) => decl.capped = Some((size, max)),
                None => errors.at(span, "capped needs size = <bytes>"),
            }
        }
        "clustered_index" => decl.clustered_index = flag(errors, meta, &key).unwrap_or(false),
        "collation" => decl.collation = json_object(errors, meta, &key),
        "change_stream_pre_and_post_images" => {
            decl.change_stream_pre_and_post_images = flag(errors, meta, &key).unwrap_or(false);
        }
        "version" => decl.version = read_version(errors, meta),
        "query" => {
            if let Some(q) = read_query(errors, meta) {
                decl.queries.push(q);
            }
        }
        _ => skip(meta),
    }
}

fn read_field(
    errors: &Errors,
    field: &syn::Field,
    decl: &mut Declaration,
    shorthand_at: &mut Option<Span>,
) {
    let mut index: Option<IndexDecl> = None;
    let mut kind = KeyKind::Ascending;
    let mut hashed_at = None;
    let mut unique_at = None;
    for attr in mongo_attrs(&field.attrs) {
        let _ = attr.parse_nested_meta(|meta| {
            let key = key_name(&meta);
            if !FIELD_KEYS.contains(&key.as_str()) {
                skip(&meta);
                return Ok(());
            }
            let span = meta.path.span();
            shorthand_at.get_or_insert(span);
            let Some(ident) = &field.ident else {
                errors.at(span, format!("`{key}` needs a named field"));
                skip(&meta);
                return Ok(());
            };
            let path = KeyPath {
                text: ident.to_string(),
                first: Some(ident.clone()),
                span,
            };
            match key.as_str() {
                "unbounded" => {
                    if flag(errors, &meta, &key).unwrap_or(false) {
                        decl.unbounded.push(path);
                    }
                }
                "text" => {
                    let weight = if meta.input.peek(Token![=]) {
                        integer(errors, &meta, "text").map(|w| w as i32)
                    } else {
                        Some(1)
                    };
                    if let Some(w) = weight {
                        decl.text_fields.push((path, w));
                    }
                }
                _ => {
                    let entry = index.get_or_insert_with(|| IndexDecl {
                        span: Some(span),
                        ..IndexDecl::default()
                    });
                    match key.as_str() {
                        "unique" => {
                            entry.unique = flag(errors, &meta, &key).unwrap_or(false);
                            unique_at = Some(span);
                        }
                        "ttl" => entry.ttl = positive(errors, &meta, &key),
                        "hashed" => {
                            if flag(errors, &meta, &key).unwrap_or(false) {
                                kind = KeyKind::Hashed;
                                hashed_at = Some(span);
                            }
                        }
                        _ => {
                            // index, index = -1 | "2dsphere" | ..., index(options)
                            if meta.input.peek(Token![=]) {
                                if let Some(k) = key_value(errors, &meta) {
                                    kind = k;
                                }
                            } else if meta.input.peek(syn::token::Paren) {
                                let options = read_index_options(errors, &meta, false);
                                merge(entry, options);
                            }
                        }
                    }
                }
            }
            Ok(())
        });
    }
    if let Some(mut index) = index {
        let ident = field.ident.clone().expect("checked named above");
        if let (Some(_), Some(at)) = (hashed_at, unique_at) {
            errors.at(
                at,
                "Currently hashed indexes cannot guarantee uniqueness. Use a regular index. \
                 (server rule): drop `unique` or `hashed`",
            );
        }
        index.keys.push((
            KeyPath {
                text: ident.to_string(),
                first: Some(ident),
                span: index.span.unwrap_or_else(Span::call_site),
            },
            kind,
        ));
        decl.indexes.push(index);
    }
}

fn merge(into: &mut IndexDecl, from: IndexDecl) {
    into.name = from.name.or(into.name.take());
    into.unique |= from.unique;
    into.sparse |= from.sparse;
    into.hidden |= from.hidden;
    into.ttl = from.ttl.or(into.ttl);
    into.partial = from.partial.or(into.partial.take());
    into.collation = from.collation.or(into.collation.take());
    into.default_language = from.default_language.or(into.default_language.take());
    into.language_override = from.language_override.or(into.language_override.take());
}

/// `index(keys(...), options...)`; `keys` required when `with_keys`.
fn read_index(errors: &Errors, meta: &ParseNestedMeta<'_>, with_keys: bool) -> Option<IndexDecl> {
    let span = meta.path.span();
    if !meta.input.peek(syn::token::Paren) {
        errors.at(
            span,
            "expected index(keys(field, other = -1), options...), e.g. \
             index(keys(user_id, created_at = -1), unique)",
        );
        skip(meta);
        return None;
    }
    let index = read_index_options(errors, meta, with_keys);
    if with_keys && index.keys.is_empty() {
        errors.at(
            span,
            "index needs keys(...), e.g. index(keys(user_id, status, created_at = -1))",
        );
        return None;
    }
    Some(index)
}

const INDEX_OPTIONS: &[&str] = &[
    "keys",
    "name",
    "unique",
    "sparse",
    "hidden",
    "ttl",
    "expire_after_seconds",
    "partial",
    "collation",
    "wildcard_projection",
    "weights",
    "default_language",
    "language_override",
    "bits",
    "min",
    "max",
];

fn read_index_options(errors: &Errors, meta: &ParseNestedMeta<'_>, with_keys: bool) -> IndexDecl {
    let mut index = IndexDecl {
        span: Some(meta.path.span()),
        ..IndexDecl::default()
    };
    let result = meta.parse_nested_meta(|inner| {
        let key = key_name(&inner);
        match key.as_str() {
            "keys" if with_keys => index.keys = parse_keys(errors, inner.input),
            "name" => index.name = string(errors, &inner, &key).map(|s| s.value()),
            "unique" => index.unique = flag(errors, &inner, &key).unwrap_or(false),
            "sparse" => index.sparse = flag(errors, &inner, &key).unwrap_or(false),
            "hidden" => index.hidden = flag(errors, &inner, &key).unwrap_or(false),
            "ttl" | "expire_after_seconds" => index.ttl = positive(errors, &inner, &key),
            "partial" => index.partial = json_object(errors, &inner, &key),
            "collation" => index.collation = json_object(errors, &inner, &key),
            "wildcard_projection" => {
                index.wildcard_projection = json_object(errors, &inner, &key);
            }
            "weights" => {
                let result = inner.parse_nested_meta(|w| {
                    let name = key_name(&w);
                    if let Some(weight) = integer(errors, &w, "weight") {
                        if !(1..=99_999).contains(&weight) {
                            errors.at(
                                w.path.span(),
                                "text weights are whole numbers from 1 to 99999",
                            );
                        }
                        let ident = w.path.get_ident().cloned();
                        index.weights.push((
                            KeyPath {
                                text: name,
                                first: ident,
                                span: w.path.span(),
                            },
                            weight as i32,
                        ));
                    }
                    Ok(())
                });
                push(errors, result);
            }
            "default_language" => {
                index.default_language = string(errors, &inner, &key).map(|s| s.value());
            }
            "language_override" => {
                index.language_override = string(errors, &inner, &key).map(|s| s.value());
            }
            "bits" => index.bits = integer(errors, &inner, &key).map(|b| b as i32),
            "min" => index.min = float(errors, &inner, &key),
            "max" => index.max = float(errors, &inner, &key),
            other => {
                let hint = suggestion(other, INDEX_OPTIONS.iter().copied());
                errors.at(
                    inner.path.span(),
                    format!(
                        "unknown index option `{other}`{hint}\n  expected one of: {}",
                        INDEX_OPTIONS.join(", ")
                    ),
                );
                skip(&inner);
            }
        }
        Ok(())
    });
    push(errors, result);
    let span = index.span.unwrap_or_else(Span::call_site);
    if index.ttl.is_some() && index.keys.len() > 1 {
        errors.at(
            span,
            "TTL indexes are single-field indexes, compound indexes do not support TTL (server rule)",
        );
    }
    if index.unique && index.keys.iter().any(|(_, k)| *k == KeyKind::Hashed) {
        errors.at(
            span,
            "Currently hashed indexes cannot guarantee uniqueness. Use a regular index. (server rule)",
        );
    }
    if index.keys.len() > MAX_KEY_FIELDS {
        errors.at(
            span,
            format!(
                "Index key pattern has {} fields; the maximum is {MAX_KEY_FIELDS} (server rule)",
                index.keys.len()
            ),
        );
    }
    if !index.weights.is_empty() && !index.is_text() {
        errors.at(
            span,
            "weights apply to text indexes only: give a key = \"text\"",
        );
    }
    index
}

/// `a, b.c = -1, "meta.$**", loc = "2dsphere"` inside parentheses.
fn parse_keys(errors: &Errors, input: ParseStream<'_>) -> Vec<(KeyPath, KeyKind)> {
    let result = (|| -> syn::Result<Vec<(KeyPath, KeyKind)>> {
        let content;
        syn::parenthesized!(content in input);
        let mut keys = Vec::new();
        while !content.is_empty() {
            let path = parse_path(&content)?;
            let kind = if content.peek(Token![=]) {
                content.parse::<Token![=]>()?;
                let value: Expr = content.parse()?;
                match key_kind(&value) {
                    Some(k) => k,
                    None => {
                        unknown_kind(errors, &value);
                        KeyKind::Ascending
                    }
                }
            } else {
                KeyKind::Ascending
            };
            if keys
                .iter()
                .any(|(p, _): &(KeyPath, KeyKind)| p.text == path.text)
            {
                errors.at(
                    path.span,
                    format!("`{}` appears twice in one key pattern", path.text),
                );
            }
            keys.push((path, kind));
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        Ok(keys)
    })();
    match result {
        Ok(keys) => keys,
        Err(e) => {
            errors.push(e);
            Vec::new()
        }
    }
}

fn parse_path(input: ParseStream<'_>) -> syn::Result<KeyPath> {
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        let text = lit.value();
        let first = text
            .split('.')
            .next()
            .and_then(|s| syn::parse_str::<syn::Ident>(s).ok());
        return Ok(KeyPath {
            text,
            first: first.map(|mut i| {
                i.set_span(lit.span());
                i
            }),
            span: lit.span(),
        });
    }
    let first: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
    let span = first.span();
    let mut text = first.to_string();
    while input.peek(Token![.]) {
        input.parse::<Token![.]>()?;
        let next: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
        text.push('.');
        text.push_str(&next.to_string());
    }
    Ok(KeyPath {
        text,
        first: Some(first),
        span,
    })
}

fn key_kind(value: &Expr) -> Option<KeyKind> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) if i.base10_digits() == "1" => Some(KeyKind::Ascending),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(i), ..
            }) if i.base10_digits() == "1" => Some(KeyKind::Descending),
            _ => None,
        },
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.value().as_str() {
            "hashed" => Some(KeyKind::Hashed),
            "text" => Some(KeyKind::Text),
            "2d" => Some(KeyKind::TwoD),
            "2dsphere" => Some(KeyKind::TwoDSphere),
            _ => None,
        },
        _ => None,
    }
}

fn key_value(errors: &Errors, meta: &ParseNestedMeta<'_>) -> Option<KeyKind> {
    let value: Expr = match meta.value().and_then(|v| v.parse()) {
        Ok(v) => v,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let kind = key_kind(&value);
    if kind.is_none() {
        unknown_kind(errors, &value);
    }
    kind
}

fn unknown_kind(errors: &Errors, value: &Expr) {
    let hint = match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => suggestion(&s.value(), KEY_KINDS.iter().copied()),
        _ => String::new(),
    };
    errors.spanned(
        value,
        format!(
            "unknown index kind{hint}\n  expected one of: {}",
            KEY_KINDS.join(", ")
        ),
    );
}

fn read_version(errors: &Errors, meta: &ParseNestedMeta<'_>) -> Option<VersionDecl> {
    let span = meta.path.span();
    let mut field = None;
    let mut current = None;
    let mut previous = Vec::new();
    let mut absent = None;
    let result = meta.parse_nested_meta(|inner| {
        let key = key_name(&inner);
        match key.as_str() {
            "field" => field = string(errors, &inner, &key).map(|s| s.value()),
            "current" => current = integer(errors, &inner, &key),
            "absent" => absent = integer(errors, &inner, &key),
            "previous" => {
                let result = inner.parse_nested_meta(|p| {
                    let path = &p.path;
                    let ty: syn::Type = syn::parse_quote!(#path);
                    if let Some(value) = integer(errors, &p, "version") {
                        previous.push((ty, value));
                    }
                    Ok(())
                });
                push(errors, result);
            }
            other => {
                let hint = suggestion(other, ["field", "current", "previous", "absent"]);
                errors.at(
                    inner.path.span(),
                    format!("unknown version option `{other}`{hint}"),
                );
                skip(&inner);
            }
        }
        Ok(())
    });
    push(errors, result);
    let (Some(field), Some(current)) = (field, current) else {
        errors.at(
            span,
            "version needs field and current, e.g. version(field = \"schemaVersion\", current = 2, previous(UserV1 = 1))",
        );
        return None;
    };
    if previous.is_empty() {
        errors.at(
            span,
            "version needs previous(Type = n, ...): the older shapes still stored",
        );
        return None;
    }
    let mut seen = vec![current];
    for (_, v) in &previous {
        if seen.contains(v) {
            errors.at(span, format!("version {v} is declared twice"));
        }
        seen.push(*v);
    }
    Some(VersionDecl {
        field,
        current,
        previous,
        absent,
    })
}

fn read_query(errors: &Errors, meta: &ParseNestedMeta<'_>) -> Option<QueryDecl> {
    let span = meta.path.span();
    let mut q = QueryDecl {
        name: String::new(),
        eq: Vec::new(),
        sort: Vec::new(),
        range: Vec::new(),
        project: None,
        without_id: false,
        filter: None,
        limit: None,
        frequency: None,
    };
    let result = meta.parse_nested_meta(|inner| {
        let key = key_name(&inner);
        match key.as_str() {
            "name" => {
                q.name = string(errors, &inner, &key)
                    .map(|s| s.value())
                    .unwrap_or_default()
            }
            "eq" => {
                q.eq = parse_keys(errors, inner.input)
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect()
            }
            "range" => {
                q.range = parse_keys(errors, inner.input)
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect();
            }
            "project" => {
                q.project = Some(
                    parse_keys(errors, inner.input)
                        .into_iter()
                        .map(|(p, _)| p)
                        .collect(),
                );
            }
            "sort" => {
                for (p, k) in parse_keys(errors, inner.input) {
                    match k {
                        KeyKind::Ascending => q.sort.push((p, false)),
                        KeyKind::Descending => q.sort.push((p, true)),
                        _ => errors.at(p.span, "a sort key is 1 or -1"),
                    }
                }
            }
            "without_id" => q.without_id = flag(errors, &inner, &key).unwrap_or(false),
            "filter" => q.filter = json_object(errors, &inner, &key),
            "limit" => q.limit = positive(errors, &inner, &key),
            "frequency" => q.frequency = string(errors, &inner, &key).map(|s| s.value()),
            other => {
                let hint = suggestion(
                    other,
                    [
                        "name",
                        "eq",
                        "sort",
                        "range",
                        "project",
                        "without_id",
                        "filter",
                        "limit",
                        "frequency",
                    ],
                );
                errors.at(
                    inner.path.span(),
                    format!("unknown query option `{other}`{hint}"),
                );
                skip(&inner);
            }
        }
        Ok(())
    });
    push(errors, result);
    if q.name.is_empty() {
        errors.at(span, "a query needs name = \"...\", e.g. query(name = \"by_user\", eq(user_id), sort(created_at = -1))");
        return None;
    }
    Some(q)
}

fn push(errors: &Errors, result: syn::Result<()>) {
    if let Err(e) = result {
        errors.push(e);
    }
}

fn value_path(errors: &Errors, meta: &ParseNestedMeta<'_>) -> Option<KeyPath> {
    match meta.value().and_then(parse_path) {
        Ok(p) => Some(p),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

fn expr(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str, example: &str) -> Option<Expr> {
    match meta.value() {
        Ok(v) => match v.parse::<Expr>() {
            Ok(e) => Some(e),
            Err(e) => {
                errors.push(e);
                None
            }
        },
        Err(_) => {
            errors.at(
                meta.path.span(),
                format!("`{key}` takes a value, e.g. `{key} = {example}`"),
            );
            skip(meta);
            None
        }
    }
}

fn string(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<LitStr> {
    match expr(errors, meta, key, "\"...\"")? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s),
        other => {
            errors.spanned(
                &other,
                format!("`{key}` takes a string, e.g. `{key} = \"...\"`"),
            );
            None
        }
    }
}

fn flag(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<bool> {
    if !meta.input.peek(Token![=]) {
        return Some(true);
    }
    match expr(errors, meta, key, "true")? {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Some(b.value),
        other => {
            errors.spanned(&other, format!("`{key}` takes true or false, or no value"));
            None
        }
    }
}

fn integer(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<i64> {
    let value = expr(errors, meta, key, "1")?;
    let parsed = match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i64>().ok(),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(i), ..
            }) => i.base10_parse::<i64>().ok().map(|v| -v),
            _ => None,
        },
        _ => None,
    };
    if parsed.is_none() {
        errors.spanned(&value, format!("`{key}` takes a whole number"));
    }
    parsed
}

fn positive(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<i64> {
    let span = meta.path.span();
    let value = integer(errors, meta, key)?;
    if value < 0 {
        errors.at(span, format!("`{key}` cannot be negative"));
        return None;
    }
    Some(value)
}

fn float(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<f64> {
    let value = expr(errors, meta, key, "-180.0")?;
    let (negative, inner) = match &value {
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    let parsed = match inner {
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_parse::<f64>().ok(),
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<f64>().ok(),
        _ => None,
    };
    if parsed.is_none() {
        errors.spanned(&value, format!("`{key}` takes a number"));
    }
    parsed.map(|v| if negative { -v } else { v })
}

/// A JSON object in a string, checked now so a bad filter never reaches a database.
fn json_object(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<String> {
    let lit = string(errors, meta, key)?;
    match serde_json::from_str::<serde_json::Value>(&lit.value()) {
        Ok(serde_json::Value::Object(_)) => Some(lit.value()),
        Ok(_) => {
            errors.spanned(&lit, format!("`{key}` must be a JSON object, e.g. r#\"{{\"deleted_at\": {{\"$exists\": false}}}}\"#"));
            None
        }
        Err(e) => {
            errors.spanned(&lit, format!("`{key}` is not valid JSON: {e}"));
            None
        }
    }
}
