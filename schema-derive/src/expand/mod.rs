//! Codegen, the last stage: one `impl MongoSchema` inside `const _: () = { ... };`, one builder
//! call per field or variant into `derive_support`, and the collection declaration's impls
//! (`declaration.rs`). Generated code names the crate only through `<crate>::__private`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned as _;

mod declaration;

use crate::ast::{Body, Container, Field, HelperShape, Style, Tag, Variant, With, is_option};
use crate::attr::MongoAttrs;

/// The impls of a checked container: `MongoSchema`, and `Collection` when it declares one.
pub fn derive(c: &Container) -> TokenStream {
    let mut out = schema_impl(c);
    if let Some(d) = &c.declaration {
        out.extend(declaration::expand(c, d));
    }
    out
}

fn schema_impl(c: &Container) -> TokenStream {
    let ident = &c.ident;
    let krate = c.krate();
    let mut generics = c.generics.clone();
    match &c.mongo.bound {
        Some(predicates) => generics
            .make_where_clause()
            .predicates
            .extend(predicates.iter().cloned()),
        None => {
            let params = bounded_params(c);
            let clause = generics.make_where_clause();
            for p in params {
                clause
                    .predicates
                    .push(syn::parse_quote!(#p: __mp::MongoSchema));
            }
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    // A type with no generics gets its whole description as one `const`: the expansion is
    // data, not code, which keeps the derive's compile time near serde's alone.
    let use_const = c.generics.params.is_empty() && !mentions_self(c);
    let spec = derived_spec(c);
    let schema = if use_const {
        quote! {
            const __SPEC: __ms::Derived<'static> = #spec;
            __ms::derived(__g, ::core::any::type_name::<Self>(), &__SPEC)
        }
    } else {
        quote!(__ms::derived(__g, ::core::any::type_name::<Self>(), &#spec))
    };
    let extra = extra_items(c, use_const);
    let distinct = distinct_forms(c, use_const);
    let flattened_as_map = flattened_as_map(c);
    let readable = readable_flattens(c);
    let (free_checks, body_checks) = if c.generics.params.is_empty() {
        (quote!(#(const _: () = #readable;)*), TokenStream::new())
    } else {
        // A free constant cannot name the type's parameters; an inline one is checked for
        // each instance.
        (TokenStream::new(), quote!(#(const { #readable };)*))
    };
    let key_impls = string_enum_impls(c);
    quote! {
        const _: () = {
            use #krate::__private as __mp;
            use __mp::derive_support as __ms;
            #[automatically_derived]
            impl #impl_generics __mp::MongoSchema for #ident #ty_generics #where_clause {
                #extra
                #flattened_as_map
                #distinct
                fn json_schema(__g: &mut __ms::SchemaGenerator) -> __ms::JsonSchema {
                    #body_checks
                    #schema
                }
            }
            #free_checks
            #key_impls
        };
    }
}

/// The type parameters the generated code needs a `MongoSchema` impl of, as serde bounds
/// only the parameters of fields it (de)serializes: those in a type whose impl is named, not
/// those of a skipped field, a `PhantomData`, or a field or variant whose schema is stated.
fn bounded_params(c: &Container) -> Vec<syn::Ident> {
    let params: Vec<syn::Ident> = c.generics.type_params().map(|p| p.ident.clone()).collect();
    let mut types: Vec<syn::Type> = Vec::new();
    if c.mongo.schema_with.is_some() {
        return Vec::new();
    }
    if let Some(ty) = c
        .mongo
        .schema_as
        .as_ref()
        .or(c.from.as_ref())
        .or(c.into.as_ref())
    {
        types.push(ty.clone());
    } else {
        let fields: Vec<&Field> = match &c.body {
            Body::Struct(_, fields) => fields.iter().collect(),
            Body::Enum(variants) => variants
                .iter()
                .filter(|v| {
                    stated(&v.mongo).is_none() && !(v.skip_serializing && v.skip_deserializing)
                })
                .flat_map(|v| v.fields.iter())
                .collect(),
        };
        types.extend(
            fields
                .into_iter()
                .filter(|f| !f.is_skipped())
                .filter_map(Field::schema_type),
        );
    }
    params
        .into_iter()
        .filter(|p| types.iter().any(|ty| names_ident(ty.to_token_stream(), p)))
        .collect()
}

fn names_ident(tokens: TokenStream, ident: &syn::Ident) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == *ident,
        proc_macro2::TokenTree::Group(g) => names_ident(g.stream(), ident),
        _ => false,
    })
}

/// A unit-only, externally tagged enum is stored as a string: it can key a map (its names
/// become the `patternProperties` pattern) and take string constraints.
fn string_enum_impls(c: &Container) -> TokenStream {
    let Body::Enum(variants) = &c.body else {
        return TokenStream::new();
    };
    let unit_only = !variants.is_empty()
        && variants
            .iter()
            .all(|v| v.style == Style::Unit && !v.untagged && !v.other);
    if !unit_only
        || !matches!(c.tag, Tag::External)
        || !c.generics.params.is_empty()
        || c.mongo.schema_with.is_some()
        || c.mongo.schema_as.is_some()
        || c.from.is_some()
        || c.into.is_some()
    {
        return TokenStream::new();
    }
    let names: Vec<String> = variants
        .iter()
        .filter(|v| !v.skip_deserializing)
        .flat_map(|v| v.read_names.iter().map(|n| regex_escape(n)))
        .collect();
    let pattern = format!("^(?:{})\\z", names.join("|"));
    let ident = &c.ident;
    quote! {
        impl __ms::MapKey for #ident {
            fn key_pattern() -> ::core::option::Option<::std::string::String> {
                ::core::option::Option::Some(::std::string::String::from(#pattern))
            }
        }
        impl __ms::Text for #ident {}
    }
}

fn regex_escape(name: &str) -> String {
    let mut out = String::new();
    for ch in name.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// `FLATTENED_AS_MAP` (see the trait) for a type serde reads through `deserialize_map` or
/// `deserialize_any`: a struct that flattens a field, an internally tagged or untagged enum,
/// an enum with an untagged variant.
fn flattened_as_map(c: &Container) -> TokenStream {
    if c.transparent || c.from.is_some() || c.try_from.is_some() {
        return TokenStream::new();
    }
    let as_map = match &c.body {
        Body::Struct(Style::Struct, fields) => fields.iter().any(|f| f.flatten && !f.is_skipped()),
        Body::Struct(..) => false,
        Body::Enum(variants) => {
            matches!(c.tag, Tag::Internal(_) | Tag::Untagged) || variants.iter().any(|v| v.untagged)
        }
    };
    if as_map {
        quote!(
            const FLATTENED_AS_MAP: bool = true;
        )
    } else {
        TokenStream::new()
    }
}

/// With `deny_unknown_fields`, each flattened field's type must be read as serde takes its
/// fields, or the struct cannot read what it writes: one compile-time assertion per field,
/// spanned at its type.
fn readable_flattens(c: &Container) -> Vec<TokenStream> {
    if !c.deny_unknown_fields {
        return Vec::new();
    }
    let fields: Box<dyn Iterator<Item = &Field>> = match &c.body {
        Body::Struct(_, fields) => Box::new(fields.iter()),
        Body::Enum(variants) => Box::new(variants.iter().flat_map(|v| v.fields.iter())),
    };
    fields
        .filter(|f| f.flatten && !f.skip_deserializing)
        .filter_map(|f| {
            let ty = f.schema_type()?;
            let span = f.ty.span();
            let message = format!(
                "#[serde(deny_unknown_fields)] beside the flattened field `{}`, which serde reads \
                 as a map (an internally tagged or untagged enum, a map, a struct that flattens a \
                 field itself), cannot read what it writes: serde leaves the fields it read for \
                 deny_unknown_fields to refuse; remove deny_unknown_fields or do not flatten \
                 this field",
                f.member.to_token_stream()
            );
            Some(quote_spanned! {span=>
                ::core::assert!(!<#ty as __ms::MongoSchema>::FLATTENED_AS_MAP, #message)
            })
        })
        .collect()
}

/// `distinct_forms` where the written form is injective (a set of the type then gets
/// `uniqueItems`): a struct that writes every field with its type's own impl, each of a type
/// whose forms are distinct, or a unit-only enum (each variant its own name). Anything that
/// can write two values alike keeps the default `false`: a skipped field (`skip`,
/// `skip_serializing`, `skip_serializing_if`), a `with` / `serialize_with` / `serde_as`
/// function or a stated schema (nothing says the function is injective), a flattened field
/// (a map's keys can meet the other fields), a unit struct or untagged unit variant (both
/// `null`, as `None` is), `into` or a container-level stated schema.
/// A recursive type answers `false` when it meets itself (`derive_support::distinct_fields`).
fn distinct_forms(c: &Container, use_const: bool) -> TokenStream {
    if c.mongo.schema_as.is_some() || c.mongo.schema_with.is_some() || c.into.is_some() {
        return TokenStream::new();
    }
    let value = match &c.body {
        Body::Struct(Style::Unit, _) => return TokenStream::new(),
        Body::Struct(_, fields) => {
            let mut types = Vec::new();
            for f in fields {
                let written_as_itself = !f.skip_serializing
                    && !f.skip_serializing_if
                    && !f.flatten
                    && matches!(f.with, With::Native)
                    && f.mongo.schema_as.is_none()
                    && f.mongo.bson_type.is_none()
                    && f.mongo.schema_with.is_none();
                if !written_as_itself {
                    return TokenStream::new();
                }
                types.push(&f.ty);
            }
            let table =
                quote!(&[#(<#types as __ms::MongoSchema>::distinct_forms as __ms::DistinctFn),*]);
            let table = if use_const {
                quote!(const __DISTINCT: &[__ms::DistinctFn] = #table;)
            } else {
                quote!(let __DISTINCT: &[__ms::DistinctFn] = #table;)
            };
            quote! {{
                #table
                __ms::distinct_fields(__v, ::core::any::type_name::<Self>(), __DISTINCT)
            }}
        }
        Body::Enum(variants) => {
            let mut names = Vec::new();
            for v in variants.iter().filter(|v| !v.skip_serializing) {
                if v.style != Style::Unit
                    || v.untagged
                    || v.custom_with
                    || names.contains(&&v.ser_name)
                {
                    return TokenStream::new();
                }
                names.push(&v.ser_name);
            }
            if matches!(c.tag, Tag::Untagged) {
                return TokenStream::new();
            }
            quote!(true)
        }
    };
    quote!(fn distinct_forms(__v: &mut __ms::Visiting) -> bool { #value })
}

/// `MAY_BE_ABSENT` and `field_path`, where the type has them.
fn extra_items(c: &Container, use_const: bool) -> TokenStream {
    if c.mongo.schema_as.is_some() || c.mongo.schema_with.is_some() || c.into.is_some() {
        return TokenStream::new();
    }
    let (style, fields) = match &c.body {
        Body::Struct(style, fields) => (style, fields),
        Body::Enum(variants) => return enum_field_path(c, variants, use_const),
    };
    let path_sig = quote!(fn field_path(__p: &[&str]) -> ::core::result::Result<::std::vec::Vec<::std::string::String>, __ms::PathError>);
    if c.transparent || *style == Style::Newtype {
        let Some(f) = fields.iter().find(|f| !f.skip_serializing) else {
            return TokenStream::new();
        };
        // A stated schema says nothing of paths below the field: the default (no fields) holds.
        let Some(ty) = f.schema_type() else {
            return TokenStream::new();
        };
        let absent = if c.transparent {
            quote!(const MAY_BE_ABSENT: bool = <#ty as __ms::MongoSchema>::MAY_BE_ABSENT;)
        } else {
            TokenStream::new()
        };
        return quote! {
            #absent
            #path_sig { <#ty as __ms::MongoSchema>::field_path(__p) }
        };
    }
    if *style != Style::Struct {
        return TokenStream::new();
    }
    let entries: Vec<TokenStream> = fields
        .iter()
        .filter(|f| !f.skip_serializing)
        .map(path_entry)
        .collect();
    path_table(&entries, use_const)
}

fn path_entry(f: &Field) -> TokenStream {
    let rust = match &f.member {
        syn::Member::Named(i) => i.to_string().trim_start_matches("r#").to_owned(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    };
    let stored = if f.flatten {
        quote!(::core::option::Option::None)
    } else {
        let s = &f.ser_name;
        quote!(::core::option::Option::Some(#s))
    };
    let resolve = match f.schema_type() {
        Some(ty) => quote!(<#ty as __ms::MongoSchema>::field_path as __ms::PathFn),
        // A stated schema has no fields to name: only the path ending at the field resolves.
        None => {
            let ty = &f.ty;
            quote!((|__p: &[&str]| match __p.first() {
                ::core::option::Option::None => ::core::result::Result::Ok(::std::vec::Vec::new()),
                ::core::option::Option::Some(__s) => ::core::result::Result::Err(
                    __ms::PathError::for_type(::core::any::type_name::<#ty>(), __p, __s, &[]),
                ),
            }) as __ms::PathFn)
        }
    };
    quote!((#rust, #stored, #resolve))
}

fn path_table(entries: &[TokenStream], use_const: bool) -> TokenStream {
    let path_sig = quote!(fn field_path(__p: &[&str]) -> ::core::result::Result<::std::vec::Vec<::std::string::String>, __ms::PathError>);
    let call = quote!(__ms::resolve_path(
        ::core::any::type_name::<Self>(),
        __p,
        __FIELDS
    ));
    if use_const {
        quote! {
            #path_sig {
                const __FIELDS: &[__ms::PathEntry] = &[#(#entries),*];
                #call
            }
        }
    } else {
        quote! {
            #path_sig {
                let __FIELDS: &[__ms::PathEntry] = &[#(#entries),*];
                #call
            }
        }
    }
}

/// An internally tagged or untagged enum stores its variants' fields at the top level of the
/// document: a path names a field of any struct variant (the first that has it), or of a
/// struct wrapped by a newtype variant. Other representations keep the default.
fn enum_field_path(c: &Container, variants: &[Variant], use_const: bool) -> TokenStream {
    let mut seen: Vec<String> = Vec::new();
    let mut entries = Vec::new();
    for v in variants.iter().filter(|v| !v.skip_serializing) {
        let at_top = v.untagged || matches!(c.tag, Tag::Internal(_) | Tag::Untagged);
        if !at_top {
            continue;
        }
        match v.style {
            Style::Struct if stated(&v.mongo).is_none() => {
                for f in v.fields.iter().filter(|f| !f.skip_serializing) {
                    let name = f.member.to_token_stream().to_string();
                    if !seen.contains(&name) {
                        seen.push(name);
                        entries.push(path_entry(f));
                    }
                }
            }
            Style::Newtype if stated(&v.mongo).is_none() => {
                if let Some(ty) = v.fields[0].schema_type() {
                    entries.push(quote!(("", ::core::option::Option::None, <#ty as __ms::MongoSchema>::field_path as __ms::PathFn)));
                }
            }
            _ => {}
        }
    }
    if entries.is_empty() {
        return TokenStream::new();
    }
    path_table(&entries, use_const)
}

fn body(c: &Container) -> TokenStream {
    if let Some(path) = &c.mongo.schema_with {
        return quote!(#path(__g));
    }
    if let Some(ty) = &c.mongo.schema_as {
        return quote!(<#ty as __ms::MongoSchema>::json_schema(__g));
    }
    if let Some(ty) = c.from.as_ref().or(c.into.as_ref()) {
        // check.rs ensured from and into are the same type.
        return quote!(<#ty as __ms::MongoSchema>::json_schema(__g));
    }
    match &c.body {
        Body::Struct(style, fields) => {
            if c.transparent {
                let f = fields
                    .iter()
                    .find(|f| !f.skip_serializing)
                    .expect("serde checks a transparent struct has one field");
                return field_schema(f);
            }
            content(*style, fields, c.deny_unknown_fields, c.has_default)
        }
        Body::Enum(variants) => enumeration(c, variants),
    }
}

/// The schema of a struct body or variant content.
fn content(style: Style, fields: &[Field], closed: bool, container_default: bool) -> TokenStream {
    match style {
        Style::Unit => quote!(__ms::null()),
        Style::Newtype => field_schema(&fields[0]),
        Style::Tuple => {
            let written: Vec<&Field> = fields.iter().filter(|f| !f.skip_serializing).collect();
            let elements = written.iter().map(|f| field_schema(f));
            let tuple = quote!(__ms::tuple(::std::vec![#(#elements),*]));
            // `check` allows `skip_serializing_if` only on the last elements: the array may end
            // before them.
            match written.iter().position(|f| f.skip_serializing_if) {
                Some(always) => {
                    let always = always as u64;
                    quote!({ let mut __s = #tuple; __s.min_items = ::core::option::Option::Some(#always); __s })
                }
                None => tuple,
            }
        }
        Style::Struct => {
            let spec = object_spec(fields, closed, container_default);
            quote!(__ms::object_of(__g, &#spec))
        }
    }
}

/// The `FieldSpec` of a named field, or nothing for a field serde never reads nor writes.
fn field_spec(f: &Field, container_default: bool) -> TokenStream {
    if f.skip_serializing && f.skip_deserializing {
        return TokenStream::new();
    }
    let ty = &f.ty;
    let schema = if let (true, Some(ty)) = (is_plain(f), f.schema_type()) {
        quote!(<#ty as __ms::MongoSchema>::json_schema)
    } else {
        let body = field_schema(f);
        quote!(|__g: &mut __ms::SchemaGenerator| -> __ms::JsonSchema { #body })
    };
    if f.flatten {
        let optional = is_option(ty) || f.has_default || container_default;
        let required = !optional;
        return quote!(__ms::FieldSpec { names: &[], schema: #schema, required: #required, flatten: true },);
    }
    // Required iff always written and serde cannot read the type from a missing field.
    let maybe_unwritten = f.skip_serializing || f.skip_serializing_if;
    let defaulted = f.has_default || container_default || f.skip_deserializing;
    let required = if maybe_unwritten || defaulted {
        quote!(false)
    } else if f.has_deserialize_with() {
        // serde_derive's expr_is_missing: with deserialize_with a missing field is an error.
        quote!(true)
    } else if let Some(ty) = f.schema_type() {
        quote!(!<#ty as __ms::MongoSchema>::MAY_BE_ABSENT)
    } else {
        // A stated schema, no impl to ask: serde reads a missing field only into an `Option`.
        let required = !is_option(ty);
        quote!(#required)
    };
    // Names the type reads; a field skipped when reading is only ever seen as written.
    let names: Vec<&String> = if f.skip_deserializing {
        vec![&f.ser_name]
    } else {
        f.read_names.iter().collect()
    };
    quote!(__ms::FieldSpec { names: &[#(#names),*], schema: #schema, required: #required, flatten: false },)
}

/// `ObjectSpec { ... }` of a struct body.
fn object_spec(fields: &[Field], closed: bool, container_default: bool) -> TokenStream {
    let specs = fields.iter().map(|f| field_spec(f, container_default));
    quote!(__ms::ObjectSpec { closed: #closed, fields: &[#(#specs)*] })
}

/// `Derived { ... }`: everything `json_schema` needs.
fn derived_spec(c: &Container) -> TokenStream {
    let depth = match &c.mongo.recursion_depth {
        Some(d) => {
            let d = d.value as usize;
            quote!(::core::option::Option::Some(#d))
        }
        None => quote!(::core::option::Option::None),
    };
    let opaque_object = matches!(c.body, Body::Struct(Style::Struct, _));
    let exact = c.mongo.exact.as_ref().is_some_and(|e| e.value);
    let opt = |v: Option<&String>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let description = opt(c.mongo.description.as_ref().or(c.doc.as_ref()));
    let title = opt(c.mongo.title.as_ref());
    let plain_struct = c.mongo.schema_with.is_none()
        && c.mongo.schema_as.is_none()
        && c.from.is_none()
        && c.into.is_none()
        && !c.transparent;
    let body = match &c.body {
        Body::Struct(Style::Struct, fields) if plain_struct => {
            let spec = object_spec(fields, c.deny_unknown_fields, c.has_default);
            quote!(__ms::Body::Object(#spec))
        }
        _ => {
            let b = body(c);
            quote!(__ms::Body::Schema(|__g: &mut __ms::SchemaGenerator| -> __ms::JsonSchema { #b }))
        }
    };
    quote! {
        __ms::Derived {
            depth: #depth,
            opaque_object: #opaque_object,
            exact: #exact,
            description: #description,
            title: #title,
            body: #body,
        }
    }
}

/// Whether a field type names `Self`, which a nested `const` cannot.
fn mentions_self(c: &Container) -> bool {
    fn has_self(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "Self",
            proc_macro2::TokenTree::Group(g) => has_self(g.stream()),
            _ => false,
        })
    }
    let fields: Box<dyn Iterator<Item = &Field>> = match &c.body {
        Body::Struct(_, fields) => Box::new(fields.iter()),
        Body::Enum(variants) => Box::new(variants.iter().flat_map(|v| v.fields.iter())),
    };
    fields.into_iter().any(|f| has_self(f.ty.to_token_stream())) || c.mongo.schema_as.is_some()
}

/// Whether the field's schema is exactly its type's schema.
fn is_plain(f: &Field) -> bool {
    matches!(f.with, With::Native)
        && f.mongo.schema_with.is_none()
        && f.mongo.bson_type.is_none()
        && !f.mongo.exact.as_ref().is_some_and(|e| e.value)
        && f.mongo.has_number_keys().is_none()
        && f.mongo.has_text_keys().is_none()
        && f.mongo.has_array_keys().is_none()
        && f.mongo.title.is_none()
        && f.mongo.description.is_none()
        && f.doc.is_none()
}

/// The schema of one field's stored value, with its `#[mongo]` keys applied.
fn field_schema(f: &Field) -> TokenStream {
    let m = &f.mongo;
    let native = matches!(f.with, With::Native) && m.schema_with.is_none() && m.bson_type.is_none();
    let ty = &f.schema_type().unwrap_or_else(|| f.ty.clone());
    let base = if let Some(base) = stated(m) {
        base
    } else {
        match &f.with {
            With::Helper(h, HelperShape::Plain) => quote!(__ms::helper(__g, #h)),
            With::Helper(h, HelperShape::Option) => quote!(__ms::helper_option(__g, #h)),
            With::Helper(h, HelperShape::Vec) => quote!(__ms::helper_vec(__g, #h)),
            With::Native | With::Custom(_) => {
                if m.exact.as_ref().is_some_and(|e| e.value) {
                    quote!(__ms::exact::<#ty>(__g))
                } else {
                    quote!(<#ty as __ms::MongoSchema>::json_schema(__g))
                }
            }
        }
    };
    let mut edits = Vec::new();
    // Applicability: a bound on a type with no such notion is a compile error at the key.
    // The type's tokens are respanned to the key so the error points at the attribute.
    if native {
        if let Some(span) = m.has_number_keys() {
            let ty = respan(ty, span);
            edits.push(quote_spanned!(span=> __ms::numeric::<#ty>();));
        }
        if let Some(span) = m.has_text_keys() {
            let ty = respan(ty, span);
            edits.push(quote_spanned!(span=> __ms::text::<#ty>();));
        }
        if let Some(span) = m.has_array_keys() {
            let ty = respan(ty, span);
            edits.push(quote_spanned!(span=> __ms::sequence::<#ty>();));
        }
    }
    let exclusive = |x: &Option<crate::attr::Spanned<bool>>| x.as_ref().is_some_and(|x| x.value);
    if let Some(n) = &m.minimum {
        let t = &n.tokens;
        let x = exclusive(&m.exclusive_minimum);
        edits.push(quote!(__ms::minimum(&mut __s, #t, #x);));
    }
    if let Some(n) = &m.maximum {
        let t = &n.tokens;
        let x = exclusive(&m.exclusive_maximum);
        edits.push(quote!(__ms::maximum(&mut __s, #t, #x);));
    }
    if let Some(n) = &m.multiple_of {
        let t = &n.tokens;
        edits.push(quote!(__s.multiple_of = ::core::option::Option::Some(#t);));
    }
    for (slot, value) in [
        ("min_length", &m.min_length),
        ("max_length", &m.max_length),
        ("min_items", &m.min_items),
        ("max_items", &m.max_items),
    ] {
        if let Some(v) = value {
            let slot = syn::Ident::new(slot, Span::call_site());
            let v = v.value;
            edits.push(quote!(__s.#slot = ::core::option::Option::Some(#v);));
        }
    }
    if let Some(p) = &m.pattern {
        edits.push(quote!(__s.pattern = ::core::option::Option::Some(#p.into());));
    }
    if let Some(u) = &m.unique_items {
        let v = u.value;
        edits.push(quote!(__s.unique_items = ::core::option::Option::Some(#v);));
    }
    if let Some(t) = &m.title {
        edits.push(quote!(__s.title = ::core::option::Option::Some(#t.into());));
    }
    if let Some(d) = m.description.as_ref().or(f.doc.as_ref()) {
        edits.push(quote!(__s.description = ::core::option::Option::Some(#d.into());));
    }
    if edits.is_empty() {
        base
    } else {
        quote!({ let mut __s = #base; #(#edits)* __s })
    }
}

/// The schema `bson_type` or `schema_with` states, if either is given.
fn stated(m: &MongoAttrs) -> Option<TokenStream> {
    if let Some(path) = &m.schema_with {
        return Some(quote!(#path(__g)));
    }
    let types = m.bson_type.as_ref()?;
    let idents = types.value.iter().map(|t| bson_type_ident(t));
    Some(quote!(__ms::bson_types(&[#(__ms::BsonType::#idents),*])))
}

fn respan(tokens: &impl ToTokens, span: Span) -> TokenStream {
    tokens
        .to_token_stream()
        .into_iter()
        .map(|mut t| {
            if let proc_macro2::TokenTree::Group(g) = &t {
                let mut inner = proc_macro2::Group::new(g.delimiter(), respan(&g.stream(), span));
                inner.set_span(span);
                t = proc_macro2::TokenTree::Group(inner);
            } else {
                t.set_span(span);
            }
            t
        })
        .collect()
}

fn bson_type_ident(alias: &str) -> syn::Ident {
    let name = match alias {
        "double" => "Double",
        "string" => "String",
        "object" => "Object",
        "array" => "Array",
        "binData" => "BinData",
        "undefined" => "Undefined",
        "objectId" => "ObjectId",
        "bool" => "Bool",
        "date" => "Date",
        "null" => "Null",
        "regex" => "Regex",
        "dbPointer" => "DbPointer",
        "javascript" => "JavaScript",
        "symbol" => "Symbol",
        "javascriptWithScope" => "JavaScriptWithScope",
        "int" => "Int",
        "timestamp" => "Timestamp",
        "long" => "Long",
        "decimal" => "Decimal",
        "minKey" => "MinKey",
        "maxKey" => "MaxKey",
        _ => "Number",
    };
    syn::Ident::new(name, Span::call_site())
}

/// The content of a data variant, or `None` for a unit variant.
fn variant_content(c: &Container, v: &Variant) -> Option<TokenStream> {
    // A variant's own `with` writes what its `bson_type`/`schema_with` states.
    if let Some(base) = stated(&v.mongo) {
        return Some(base);
    }
    match v.style {
        Style::Unit => None,
        style => Some(content(
            style,
            &v.fields,
            c.deny_unknown_fields,
            c.has_default,
        )),
    }
}

fn with_doc(v: &Variant, schema: TokenStream) -> TokenStream {
    let schema = match v.mongo.description.as_ref().or(v.doc.as_ref()) {
        Some(d) => quote!(__ms::describe(#schema, #d)),
        None => schema,
    };
    match &v.mongo.title {
        Some(t) => {
            quote!({ let mut __s = #schema; __s.title = ::core::option::Option::Some(#t.into()); __s })
        }
        None => schema,
    }
}

/// The tag values a variant reads; for `#[serde(other)]`, every other variant's names marked
/// with `!` (the builder turns them into "any string but these").
fn tag_names(tagged: &[&Variant], v: &Variant) -> Vec<String> {
    if !v.other {
        return v.read_names.clone();
    }
    let mut known: Vec<String> = tagged
        .iter()
        .filter(|o| !o.other)
        .flat_map(|o| o.read_names.iter().map(|n| format!("!{n}")))
        .collect();
    if known.is_empty() {
        known.push("!".to_owned());
    }
    known
}

/// `Some(tokens)` or `None` as generated code.
fn optional(tokens: Option<TokenStream>) -> TokenStream {
    match tokens {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    }
}

fn enumeration(c: &Container, variants: &[Variant]) -> TokenStream {
    // A variant never read cannot be in the schema; one never written is still readable.
    let live: Vec<&Variant> = variants.iter().filter(|v| !v.skip_deserializing).collect();
    let (tagged, untagged): (Vec<&Variant>, Vec<&Variant>) = live
        .iter()
        .partition(|v| !v.untagged && !matches!(c.tag, Tag::Untagged));
    let mut branches: Vec<TokenStream> = Vec::new();
    match &c.tag {
        Tag::External => {
            let units: Vec<&String> = tagged
                .iter()
                .filter(|v| v.style == Style::Unit)
                .flat_map(|v| v.read_names.iter())
                .collect();
            if !units.is_empty() {
                branches.push(quote!(__ms::string_enum([#(#units),*])));
            }
            for v in tagged.iter().filter(|v| v.style != Style::Unit) {
                let content = variant_content(c, v).expect("data variant");
                for name in &v.read_names {
                    branches.push(with_doc(v, quote!(__ms::external(#name, #content))));
                }
            }
        }
        Tag::Internal(tag) => {
            for v in &tagged {
                let names = tag_names(&tagged, v);
                let content = optional(variant_content(c, v));
                branches.push(with_doc(
                    v,
                    quote!(__ms::internal(#tag, &[#(#names),*], #content)),
                ));
            }
        }
        Tag::Adjacent(tag, content_key) => {
            let closed = c.deny_unknown_fields;
            for v in &tagged {
                let names = tag_names(&tagged, v);
                let content = optional(variant_content(c, v));
                branches.push(with_doc(
                    v,
                    quote!(__ms::adjacent(#tag, #content_key, &[#(#names),*], #content, #closed)),
                ));
            }
        }
        Tag::Untagged => {}
    }
    for v in &untagged {
        let content = variant_content(c, v).unwrap_or_else(|| quote!(__ms::null()));
        branches.push(with_doc(v, content));
    }
    if branches.is_empty() {
        // No variant can be read: nothing is valid.
        return quote!(__ms::JsonSchema {
            not: ::core::option::Option::Some(::std::boxed::Box::new(__ms::JsonSchema::any())),
            ..__ms::JsonSchema::any()
        });
    }
    quote!(__ms::any_of(::std::vec![#(#branches),*]))
}
