//! `#[mongo(...)]` attributes into typed structs, and doc comments into descriptions.
//!
//! Every key lives in one table, [`KEYS`], with where it may appear and what value it takes;
//! the collection declaration's keys are listed there too, and read by `collection.rs`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, UnOp};

use crate::errors::{Errors, suggestion};

/// Where a `#[mongo]` attribute is written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    Container,
    Variant,
    Field,
}

const C: u8 = 1;
const V: u8 = 2;
const F: u8 = 4;

/// The value a key takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `key = 1.5` or `key = -3`
    Number,
    /// `key = 10`
    Count,
    /// `key = "text"`
    Str,
    /// `key` or `key = true`
    Flag,
    /// `key = path::to::function` or `key = "path::to::function"`
    Path,
    /// The collection declaration's (`collection.rs`); not read here.
    Reserved,
}

/// Every `#[mongo]` key: name, where it may appear, what it takes.
const KEYS: &[(&str, u8, Kind)] = &[
    ("minimum", F, Kind::Number),
    ("maximum", F, Kind::Number),
    ("exclusive_minimum", F, Kind::Flag),
    ("exclusive_maximum", F, Kind::Flag),
    ("multiple_of", F, Kind::Number),
    ("min_length", F, Kind::Count),
    ("max_length", F, Kind::Count),
    ("pattern", F, Kind::Str),
    ("min_items", F, Kind::Count),
    ("max_items", F, Kind::Count),
    ("unique_items", F, Kind::Flag),
    ("bson_type", F, Kind::Str),
    ("schema_with", C | F, Kind::Path),
    ("schema_as", C, Kind::Str),
    ("title", C | V | F, Kind::Str),
    ("description", C | V | F, Kind::Str),
    ("exact", C | F, Kind::Flag),
    ("recursion_depth", C, Kind::Count),
    ("bound", C, Kind::Str),
    // The collection declaration's keys: read by `collection.rs`, skipped here where they apply.
    ("collection", C, Kind::Reserved),
    ("validator", C, Kind::Reserved),
    ("validation_level", C, Kind::Reserved),
    ("validation_action", C, Kind::Reserved),
    ("index", C | V | F, Kind::Reserved),
    ("shard_key", C, Kind::Reserved),
    ("timeseries", C, Kind::Reserved),
    ("expire_after_seconds", C, Kind::Reserved),
    ("capped", C, Kind::Reserved),
    ("clustered_index", C, Kind::Reserved),
    ("collation", C, Kind::Reserved),
    ("change_stream_pre_and_post_images", C, Kind::Reserved),
    ("version", C, Kind::Reserved),
    ("query", C, Kind::Reserved),
    ("unique", F, Kind::Reserved),
    ("ttl", F, Kind::Reserved),
    ("text", F, Kind::Reserved),
    ("hashed", F, Kind::Reserved),
    ("unbounded", F, Kind::Reserved),
];

/// A numeric literal from an attribute, with the tokens that build it as a `Number`.
#[derive(Clone, Debug)]
pub struct NumberLit {
    pub value: f64,
    /// `Int32`, `Int64` or `Double`, chosen from the literal.
    pub tokens: proc_macro2::TokenStream,
    pub span: Span,
}

/// A value with the span of the key that set it.
#[derive(Clone, Debug)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// Everything `#[mongo(...)]` can say about a container, variant or field.
#[derive(Default)]
pub struct MongoAttrs {
    pub minimum: Option<NumberLit>,
    pub maximum: Option<NumberLit>,
    pub exclusive_minimum: Option<Spanned<bool>>,
    pub exclusive_maximum: Option<Spanned<bool>>,
    pub multiple_of: Option<NumberLit>,
    pub min_length: Option<Spanned<u64>>,
    pub max_length: Option<Spanned<u64>>,
    pub pattern: Option<LitStr>,
    pub min_items: Option<Spanned<u64>>,
    pub max_items: Option<Spanned<u64>>,
    pub unique_items: Option<Spanned<bool>>,
    /// Server aliases, each checked against the list the server accepts.
    pub bson_type: Option<Spanned<Vec<String>>>,
    pub schema_with: Option<syn::ExprPath>,
    pub schema_as: Option<syn::Type>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub exact: Option<Spanned<bool>>,
    pub recursion_depth: Option<Spanned<u64>>,
    pub bound: Option<Vec<syn::WherePredicate>>,
}

impl MongoAttrs {
    /// Whether any key constraining strings is set.
    pub fn has_text_keys(&self) -> Option<Span> {
        (self.min_length.as_ref().map(|s| s.span))
            .or(self.max_length.as_ref().map(|s| s.span))
            .or(self.pattern.as_ref().map(LitStr::span))
    }

    /// Whether any key constraining numbers is set.
    pub fn has_number_keys(&self) -> Option<Span> {
        (self.minimum.as_ref().map(|n| n.span))
            .or(self.maximum.as_ref().map(|n| n.span))
            .or(self.multiple_of.as_ref().map(|n| n.span))
    }

    /// Whether any key constraining arrays is set.
    pub fn has_array_keys(&self) -> Option<Span> {
        (self.min_items.as_ref().map(|s| s.span))
            .or(self.max_items.as_ref().map(|s| s.span))
            .or(self.unique_items.as_ref().map(|s| s.span))
    }
}

/// Reads every `#[mongo(...)]` attribute of one item; problems go to `errors`.
pub fn parse(errors: &Errors, attrs: &[syn::Attribute], place: Place) -> MongoAttrs {
    let mut out = MongoAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("mongo")) {
        if let syn::Meta::Path(_) = &attr.meta {
            errors.spanned(
                attr,
                "expected `#[mongo(key = value, ...)]`, e.g. `#[mongo(minimum = 0)]`",
            );
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            read_key(errors, &meta, place, &mut out);
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

fn place_name(place: Place) -> &'static str {
    match place {
        Place::Container => "a struct or enum",
        Place::Variant => "an enum variant",
        Place::Field => "a field",
    }
}

fn places(mask: u8) -> String {
    let mut v = Vec::new();
    if mask & C != 0 {
        v.push("the struct or enum");
    }
    if mask & V != 0 {
        v.push("a variant");
    }
    if mask & F != 0 {
        v.push("a field");
    }
    v.join(" or ")
}

fn read_key(errors: &Errors, meta: &ParseNestedMeta<'_>, place: Place, out: &mut MongoAttrs) {
    let key_span = meta.path.span();
    let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
        errors.at(key_span, "expected a `#[mongo]` key such as `minimum`");
        skip_value(meta);
        return;
    };
    let mask = match place {
        Place::Container => C,
        Place::Variant => V,
        Place::Field => F,
    };
    let Some(&(_, allowed, kind)) = KEYS.iter().find(|(k, _, _)| *k == key) else {
        let here = KEYS
            .iter()
            .filter(|(_, m, k)| m & mask != 0 && *k != Kind::Reserved)
            .map(|(k, _, _)| *k);
        let hint = suggestion(&key, KEYS.iter().map(|(k, _, _)| *k));
        let list: Vec<&str> = here.collect();
        errors.at(
            key_span,
            format!(
                "unknown mongo attribute `{key}`{hint}\n  expected one of: {}",
                list.join(", ")
            ),
        );
        skip_value(meta);
        return;
    };
    if kind == Kind::Reserved && allowed & mask != 0 {
        // The collection declaration's key, read by `collection.rs`.
        crate::collection::skip(meta);
        return;
    }
    if allowed & mask == 0 {
        errors.at(
            key_span,
            format!(
                "`{key}` does not apply to {}; it goes on {}",
                place_name(place),
                places(allowed)
            ),
        );
        skip_value(meta);
        return;
    }
    match kind {
        Kind::Number => {
            if let Some(n) = number(errors, meta, &key) {
                let slot = match key.as_str() {
                    "minimum" => &mut out.minimum,
                    "maximum" => &mut out.maximum,
                    _ => &mut out.multiple_of,
                };
                set_once(errors, key_span, &key, slot, n);
            }
        }
        Kind::Count => {
            if let Some(n) = count(errors, meta, &key) {
                let value = Spanned {
                    value: n,
                    span: key_span,
                };
                let slot = match key.as_str() {
                    "min_length" => &mut out.min_length,
                    "max_length" => &mut out.max_length,
                    "min_items" => &mut out.min_items,
                    "max_items" => &mut out.max_items,
                    _ => &mut out.recursion_depth,
                };
                set_once(errors, key_span, &key, slot, value);
            }
        }
        Kind::Flag => {
            if let Some(b) = flag(errors, meta, &key) {
                let value = Spanned {
                    value: b,
                    span: key_span,
                };
                let slot = match key.as_str() {
                    "exclusive_minimum" => &mut out.exclusive_minimum,
                    "exclusive_maximum" => &mut out.exclusive_maximum,
                    "unique_items" => &mut out.unique_items,
                    _ => &mut out.exact,
                };
                set_once(errors, key_span, &key, slot, value);
            }
        }
        Kind::Str => {
            if let Some(s) = string(errors, meta, &key) {
                read_str_key(errors, key_span, &key, s, out);
            }
        }
        Kind::Path => {
            if let Some(p) = path(errors, meta, &key) {
                set_once(errors, key_span, &key, &mut out.schema_with, p);
            }
        }
        Kind::Reserved => {}
    }
}

fn read_str_key(errors: &Errors, key_span: Span, key: &str, s: LitStr, out: &mut MongoAttrs) {
    match key {
        "pattern" => set_once(errors, key_span, key, &mut out.pattern, s),
        "title" => set_once(errors, key_span, key, &mut out.title, s.value()),
        "description" => set_once(errors, key_span, key, &mut out.description, s.value()),
        "bson_type" => {
            let mut types = Vec::new();
            for alias in s.value().split(',').map(str::trim) {
                if BSON_TYPES.contains(&alias) {
                    if types.iter().any(|t| t == alias) {
                        errors.spanned(&s, format!("bson type `{alias}` is listed twice"));
                    }
                    types.push(alias.to_owned());
                } else {
                    let hint = suggestion(alias, BSON_TYPES.iter().copied());
                    errors.spanned(
                        &s,
                        format!(
                            "unknown bson type `{alias}`{hint}\n  expected one or more of (comma separated): {}",
                            BSON_TYPES.join(", ")
                        ),
                    );
                    return;
                }
            }
            let value = Spanned {
                value: types,
                span: s.span(),
            };
            set_once(errors, key_span, key, &mut out.bson_type, value);
        }
        "schema_as" => match s.parse::<syn::Type>() {
            Ok(ty) => set_once(errors, key_span, key, &mut out.schema_as, ty),
            Err(_) => errors.spanned(
                &s,
                "`schema_as` expects a type in a string, e.g. `schema_as = \"String\"`",
            ),
        },
        _ => {
            let parsed = s.parse_with(
                syn::punctuated::Punctuated::<syn::WherePredicate, syn::Token![,]>::parse_terminated,
            );
            match parsed {
                Ok(list) => {
                    set_once(
                        errors,
                        key_span,
                        key,
                        &mut out.bound,
                        list.into_iter().collect(),
                    );
                }
                Err(_) => errors.spanned(
                    &s,
                    "`bound` expects where-clause predicates, e.g. `bound = \"T: MongoSchema\"`",
                ),
            }
        }
    }
}

/// Every `bsonType` alias the server accepts (SERVER-FACTS: `$jsonSchema` keywords).
pub const BSON_TYPES: &[&str] = &[
    "double",
    "string",
    "object",
    "array",
    "binData",
    "undefined",
    "objectId",
    "bool",
    "date",
    "null",
    "regex",
    "dbPointer",
    "javascript",
    "symbol",
    "javascriptWithScope",
    "int",
    "timestamp",
    "long",
    "decimal",
    "minKey",
    "maxKey",
    "number",
];

fn set_once<T>(errors: &Errors, span: Span, key: &str, slot: &mut Option<T>, value: T) {
    if slot.is_some() {
        errors.at(span, format!("`{key}` is given twice; keep one"));
    } else {
        *slot = Some(value);
    }
}

/// Consumes `= value` after a key we reject, so that parsing continues with the next key.
fn skip_value(meta: &ParseNestedMeta<'_>) {
    if let Ok(value) = meta.value() {
        let _ = value.parse::<Expr>();
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|inner| {
            skip_value(&inner);
            Ok(())
        });
    }
}

fn value_expr(
    errors: &Errors,
    meta: &ParseNestedMeta<'_>,
    key: &str,
    example: &str,
) -> Option<Expr> {
    match meta.value() {
        Ok(stream) => match stream.parse::<Expr>() {
            Ok(e) => Some(e),
            Err(e) => {
                errors.push(e);
                None
            }
        },
        Err(_) => {
            errors.at(
                meta.path.span(),
                format!("`{key}` needs a value, e.g. `{example}`"),
            );
            skip_value(meta);
            None
        }
    }
}

fn number(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<NumberLit> {
    let example = format!("{key} = 0");
    let expr = value_expr(errors, meta, key, &example)?;
    let (negative, lit) = match &expr {
        Expr::Lit(ExprLit { lit, .. }) => (false, lit),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr: inner,
            ..
        }) => match &**inner {
            Expr::Lit(ExprLit { lit, .. }) => (true, lit),
            _ => (
                false,
                &Lit::Verbatim(proc_macro2::Literal::u8_unsuffixed(0)),
            ),
        },
        _ => (
            false,
            &Lit::Verbatim(proc_macro2::Literal::u8_unsuffixed(0)),
        ),
    };
    let sign = if negative { -1.0 } else { 1.0 };
    let span = expr.span();
    match lit {
        Lit::Int(i) => {
            let Ok(magnitude) = i.base10_parse::<i128>() else {
                errors.spanned(&expr, format!("`{key}` is out of range"));
                return None;
            };
            let v = if negative { -magnitude } else { magnitude };
            let tokens = if let Ok(v) = i32::try_from(v) {
                quote::quote!(__ms::Number::Int32(#v))
            } else if let Ok(v) = i64::try_from(v) {
                quote::quote!(__ms::Number::Int64(#v))
            } else {
                errors.spanned(&expr, format!("`{key}` must fit in 64 bits"));
                return None;
            };
            Some(NumberLit {
                value: v as f64,
                tokens,
                span,
            })
        }
        Lit::Float(f) => {
            let Ok(v) = f.base10_parse::<f64>() else {
                errors.spanned(&expr, format!("`{key}` is not a valid number"));
                return None;
            };
            let v = sign * v;
            if !v.is_finite() {
                errors.spanned(&expr, format!("`{key}` must be finite"));
                return None;
            }
            Some(NumberLit {
                value: v,
                tokens: quote::quote!(__ms::Number::Double(#v)),
                span,
            })
        }
        _ => {
            errors.spanned(
                &expr,
                format!("`{key}` expects a number, e.g. `{example}` or `{key} = 0.5`"),
            );
            None
        }
    }
}

fn count(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<u64> {
    let example = format!("{key} = 10");
    let expr = value_expr(errors, meta, key, &example)?;
    if let Expr::Lit(ExprLit {
        lit: Lit::Int(i), ..
    }) = &expr
    {
        if let Ok(n) = i.base10_parse::<u64>() {
            return Some(n);
        }
    }
    errors.spanned(
        &expr,
        format!("`{key}` expects a whole number of at least 0, e.g. `{example}`"),
    );
    None
}

fn flag(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<bool> {
    if meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
        return Some(true);
    }
    let expr = value_expr(errors, meta, key, key)?;
    if let Expr::Lit(ExprLit {
        lit: Lit::Bool(b), ..
    }) = &expr
    {
        return Some(b.value);
    }
    errors.spanned(
        &expr,
        format!("`{key}` is a flag: write `{key}` or `{key} = true`"),
    );
    None
}

fn string(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<LitStr> {
    let example = format!("{key} = \"...\"");
    let expr = value_expr(errors, meta, key, &example)?;
    if let Expr::Lit(ExprLit {
        lit: Lit::Str(s), ..
    }) = &expr
    {
        return Some(s.clone());
    }
    errors.spanned(&expr, format!("`{key}` expects a string, e.g. `{example}`"));
    None
}

fn path(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &str) -> Option<syn::ExprPath> {
    let example = format!("{key} = my_module::my_schema");
    let expr = value_expr(errors, meta, key, &example)?;
    match &expr {
        Expr::Path(p) => return Some(p.clone()),
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => {
            if let Ok(p) = s.parse::<syn::ExprPath>() {
                return Some(p);
            }
        }
        _ => {}
    }
    errors.spanned(
        &expr,
        format!(
            "`{key}` expects the path of a `fn(&mut SchemaGenerator) -> JsonSchema`, e.g. `{example}`"
        ),
    );
    None
}

/// The doc comment of an item, lines joined and trimmed: its `description`.
pub fn doc_comment(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
            {
                lines.push(s.value().trim().to_owned());
            }
        }
    }
    // Paragraphs joined by one space; blank lines end a paragraph.
    let text = lines
        .split(String::is_empty)
        .map(|p| p.join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    (!text.is_empty()).then_some(text)
}
