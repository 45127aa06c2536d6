//! `vector_index(...)` and `search_index(...)` against the service's rules and the field types:
//! a known similarity and quantization, 1 to 8192 dimensions, and a vector path that names a
//! numeric array (a `[f32; N]` must have `N = dimensions`). Source: the manual's "How to Index
//! Fields for Vector Search". Static mappings name a known field type that the Rust field can
//! hold ("Define Field Mappings": `number` indexes numbers, `string` strings, ...), each path
//! once. Deeper paths and type aliases are checked when the spec is built.

use quote::ToTokens as _;

use crate::ast::{Body, Container, Declaration, Field, Style, With};
use crate::errors::Errors;

const SIMILARITIES: &[&str] = &["euclidean", "cosine", "dotProduct"];
const QUANTIZATIONS: &[&str] = &["none", "scalar", "binary"];
const MAX_DIMENSIONS: u64 = 8192;
/// The field types of a static mapping ("Define Field Mappings", Atlas Search; the facet
/// types and knnVector are deprecated but still accepted).
const MAPPING_TYPES: &[&str] = &[
    "autocomplete",
    "boolean",
    "date",
    "dateFacet",
    "document",
    "embeddedDocuments",
    "geo",
    "knnVector",
    "number",
    "numberFacet",
    "objectId",
    "string",
    "stringFacet",
    "token",
    "uuid",
];

pub fn search(errors: &Errors, c: &Container, d: &Declaration) {
    let mut names: Vec<&str> = Vec::new();
    for v in &d.options.vector_indexes {
        if names.contains(&v.name.as_str()) {
            errors.at(v.span, format!("two search indexes are named {:?}", v.name));
        }
        names.push(&v.name);
        let similarity = v.similarity.value();
        if !SIMILARITIES.contains(&similarity.as_str()) {
            errors.spanned(
                &v.similarity,
                format!(
                    "unknown similarity {similarity:?}\n  expected one of: {}",
                    SIMILARITIES.join(", ")
                ),
            );
        }
        if let Some(q) = &v.quantization
            && !QUANTIZATIONS.contains(&q.value().as_str())
        {
            errors.spanned(
                q,
                format!(
                    "unknown quantization {:?}\n  expected one of: {}",
                    q.value(),
                    QUANTIZATIONS.join(", ")
                ),
            );
        }
        let (dimensions, at) = v.dimensions;
        if !(1..=MAX_DIMENSIONS).contains(&dimensions) {
            errors.at(
                at,
                format!("dimensions must be from 1 to {MAX_DIMENSIONS} (the service's limit)"),
            );
        }
        let Body::Struct(Style::Struct, fields) = &c.body else {
            continue;
        };
        if v.path.text.contains('.') {
            continue;
        }
        let Some(field) = fields.iter().find(|f| match &f.member {
            syn::Member::Named(ident) => v.path.first.as_ref().is_some_and(|p| p == ident),
            syn::Member::Unnamed(_) => false,
        }) else {
            continue;
        };
        match vector_shape(&field.ty) {
            Shape::Numeric(Some(len)) if len != dimensions => errors.at(
                at,
                format!(
                    "dimensions = {dimensions}, but `{}` is `{}` with {len} elements",
                    v.path.text,
                    field.ty.to_token_stream().to_string().replace(' ', "")
                ),
            ),
            Shape::NotAnArray => errors.at(
                v.path.span,
                format!(
                    "the vector path must name an array of numbers (`Vec<f32>`, `[f32; {dimensions}]`); `{}` is `{}`",
                    v.path.text,
                    field.ty.to_token_stream().to_string().replace(' ', "")
                ),
            ),
            _ => {}
        }
    }
    for s in &d.options.search_indexes {
        if names.contains(&s.name.as_str()) {
            errors.at(s.span, format!("two search indexes are named {:?}", s.name));
        }
        names.push(&s.name);
        mappings(errors, c, s);
    }
}

/// A static mapping's field types: known, held by the Rust field, one definition per path.
fn mappings(errors: &Errors, c: &Container, s: &crate::attr::SearchIndexDecl) {
    let mut paths: Vec<&str> = Vec::new();
    for m in &s.mappings {
        if paths.contains(&m.path.text.as_str()) {
            errors.at(
                m.path.span,
                format!(
                    "{:?} is mapped twice in search index {:?}; keep one",
                    m.path.text, s.name
                ),
            );
        }
        paths.push(&m.path.text);
        let ty = m.field_type.value();
        if !MAPPING_TYPES.contains(&ty.as_str()) {
            errors.spanned(
                &m.field_type,
                format!(
                    "unknown search field type {ty:?}{}\n  expected one of: {}",
                    crate::errors::suggestion(&ty, MAPPING_TYPES.iter().copied()),
                    MAPPING_TYPES.join(", ")
                ),
            );
            continue;
        }
        // "How to Index String Fields" takes analyzer and searchAnalyzer, "autocomplete" an
        // analyzer; the other field types have no analyzer option.
        let takes = match ty.as_str() {
            "string" => &["analyzer", "search_analyzer"][..],
            "autocomplete" => &["analyzer"][..],
            _ => &[][..],
        };
        for (key, given) in [
            ("analyzer", m.analyzer.is_some()),
            ("search_analyzer", m.search_analyzer.is_some()),
        ] {
            if given && !takes.contains(&key) {
                errors.spanned(
                    &m.field_type,
                    format!(
                        "a search field of type {ty:?} takes no {key}; analyzers apply to string fields{}",
                        if key == "analyzer" { " (and autocomplete)" } else { "" }
                    ),
                );
            }
        }
        let Some(field) = top_field(c, &m.path) else {
            continue;
        };
        let family = family(&field.ty);
        if let Some(family) = family
            && !accepts(&ty, family)
        {
            errors.spanned(
                &m.field_type,
                format!(
                    "`{}` is `{}`, which a search mapping of type {ty:?} does not index; {}",
                    m.path.text,
                    field.ty.to_token_stream().to_string().replace(' ', ""),
                    family.hint()
                ),
            );
        }
    }
}

/// The named field of a struct a one-segment path names, when serde stores it by the field
/// type's own impls (a `with` helper or a stated schema may store it otherwise).
fn top_field<'c>(c: &'c Container, path: &crate::attr::KeyPath) -> Option<&'c Field> {
    let Body::Struct(Style::Struct, fields) = &c.body else {
        return None;
    };
    if path.text.contains('.') {
        return None;
    }
    fields
        .iter()
        .find(|f| match &f.member {
            syn::Member::Named(ident) => path.first.as_ref().is_some_and(|p| p == ident),
            syn::Member::Unnamed(_) => false,
        })
        .filter(|f| {
            matches!(f.with, With::Native)
                && f.mongo.schema_as.is_none()
                && f.mongo.bson_type.is_none()
                && f.mongo.schema_with.is_none()
        })
}

/// What a Rust type surely stores, arrays and options looked through.
#[derive(Clone, Copy)]
enum Family {
    Text,
    Number,
    Bool,
    ObjectId,
}

impl Family {
    fn hint(self) -> &'static str {
        match self {
            Family::Text => "map it as string, token or autocomplete",
            Family::Number => "map it as number",
            Family::Bool => "map it as boolean",
            Family::ObjectId => "map it as objectId",
        }
    }
}

fn family(ty: &syn::Type) -> Option<Family> {
    match ty {
        syn::Type::Array(a) => family(&a.elem),
        syn::Type::Slice(a) => family(&a.elem),
        _ => {
            let (segment, name) = last_ident(ty)?;
            match name.as_str() {
                "Option" | "Box" | "Vec" => first_generic(segment).and_then(family),
                "String" | "str" | "char" => Some(Family::Text),
                "bool" => Some(Family::Bool),
                "ObjectId" => Some(Family::ObjectId),
                n if NUMBERS.contains(&n) => Some(Family::Number),
                _ => None,
            }
        }
    }
}

/// Whether a mapping of field type `ty` indexes values of `family`.
fn accepts(ty: &str, family: Family) -> bool {
    match family {
        Family::Text => matches!(ty, "string" | "token" | "autocomplete" | "stringFacet"),
        Family::Number => matches!(ty, "number" | "numberFacet" | "knnVector"),
        Family::Bool => ty == "boolean",
        Family::ObjectId => ty == "objectId",
    }
}

enum Shape {
    /// An array of numbers, with its length when fixed.
    Numeric(Option<u64>),
    /// Surely not an array of numbers (a string, a bool, a number).
    NotAnArray,
    /// Another type: checked when the spec is built, through its schema.
    Unknown,
}

const NUMBERS: &[&str] = &[
    "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
];
const SCALARS: &[&str] = &[
    "String", "str", "bool", "char", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
    "u64", "ObjectId", "DateTime",
];

fn last_ident(ty: &syn::Type) -> Option<(&syn::PathSegment, String)> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| (s, s.ident.to_string())),
        syn::Type::Reference(r) => last_ident(&r.elem),
        _ => None,
    }
}

fn first_generic(segment: &syn::PathSegment) -> Option<&syn::Type> {
    let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

fn is_number(ty: &syn::Type) -> bool {
    last_ident(ty).is_some_and(|(_, name)| NUMBERS.contains(&name.as_str()))
}

fn vector_shape(ty: &syn::Type) -> Shape {
    match ty {
        syn::Type::Array(a) if is_number(&a.elem) => {
            let len = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse::<u64>().ok(),
                _ => None,
            };
            Shape::Numeric(len)
        }
        syn::Type::Array(_) | syn::Type::Slice(_) => Shape::NotAnArray,
        _ => match last_ident(ty) {
            Some((segment, name)) if name == "Option" || name == "Box" => {
                first_generic(segment).map_or(Shape::Unknown, vector_shape)
            }
            Some((segment, name)) if name == "Vec" => match first_generic(segment) {
                Some(inner) if is_number(inner) => Shape::Numeric(None),
                Some(inner)
                    if last_ident(inner).is_some_and(|(_, n)| {
                        ["String", "str", "bool", "char"].contains(&n.as_str())
                    }) =>
                {
                    Shape::NotAnArray
                }
                _ => Shape::Unknown,
            },
            Some((_, name)) if SCALARS.contains(&name.as_str()) => Shape::NotAnArray,
            _ => Shape::Unknown,
        },
    }
}
