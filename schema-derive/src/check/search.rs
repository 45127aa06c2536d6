//! `vector_index(...)` and `search_index(...)` against the service's rules and the field types:
//! a known similarity and quantization, 1 to 8192 dimensions, and a vector path that names a
//! numeric array (a `[f32; N]` must have `N = dimensions`). Source: the manual's "How to Index
//! Fields for Vector Search". Deeper paths and type aliases are checked when the spec is built.

use quote::ToTokens as _;

use crate::ast::{Body, Container, Declaration, Style};
use crate::errors::Errors;

const SIMILARITIES: &[&str] = &["euclidean", "cosine", "dotProduct"];
const QUANTIZATIONS: &[&str] = &["none", "scalar", "binary"];
const MAX_DIMENSIONS: u64 = 8192;

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
