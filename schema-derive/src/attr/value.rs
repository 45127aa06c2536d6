//! The one reader of `#[mongo]` keys and values: every key, whatever its scope, is looked up
//! in the table (`keys.rs`), refused when unknown, misplaced or repeated, and its value read by
//! the kind the table gives it, with one wording of each mistake.

use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, Token, UnOp};

use proc_macro2::Span;

use super::keys::{C, F, KEYS, Key, Kind, Scope, V, is_schema_key};
use crate::errors::{Errors, suggestion};

/// A numeric literal from an attribute, with the tokens that build it as a `Number`.
#[derive(Clone, Debug)]
pub struct NumberLit {
    pub value: f64,
    /// `Int32`, `Int64` or `Double`, chosen from the literal.
    pub tokens: proc_macro2::TokenStream,
    pub span: Span,
}

/// A key path as written: Rust field names joined by dots, or a string (`"$**"`, `"meta.$**"`).
pub struct KeyPath {
    pub text: String,
    /// The first segment when it is a Rust identifier (checked at compile time on structs).
    pub first: Option<syn::Ident>,
    pub span: Span,
}

/// One key of an index or shard key pattern.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeyKind {
    Ascending,
    Descending,
    Hashed,
    Text,
    TwoD,
    TwoDSphere,
}

/// A field's `index` shorthand: the kind of key, or options for the index on the field.
pub enum FieldIndex {
    Plain,
    Kind(KeyKind),
    Options(Vec<Entry>),
}

/// One key read, with its value and the span of the key.
pub struct Entry {
    pub key: &'static Key,
    pub span: Span,
    pub value: Value,
}

impl Entry {
    pub fn name(&self) -> &'static str {
        self.key.name
    }
}

/// `key(inner = value, ...)`: the entries of a nested list, read with the keys of `scope`.
pub fn parse_nested(errors: &Errors, meta: &ParseNestedMeta<'_>, scope: Scope) -> Vec<Entry> {
    let mut entries = Vec::new();
    let result = meta.parse_nested_meta(|inner| {
        read_entry(errors, &inner, scope, &mut entries);
        Ok(())
    });
    if let Err(e) = result {
        errors.push(e);
    }
    entries
}

/// Looks the key up, refuses an unknown, misplaced or repeated one (at the offending
/// occurrence, consuming its value so that reading continues), and reads its value.
pub fn read_entry(errors: &Errors, meta: &ParseNestedMeta<'_>, scope: Scope, out: &mut Vec<Entry>) {
    let span = meta.path.span();
    let Some(name) = meta.path.get_ident().map(ToString::to_string) else {
        errors.at(span, "expected a `#[mongo]` key such as `minimum`");
        skip(meta);
        return;
    };
    let here = |k: &&Key| k.scopes & scope.bit() != 0;
    let Some(key) = KEYS.iter().filter(here).find(|k| k.name == name) else {
        let elsewhere = KEYS
            .iter()
            .filter(|k| k.name == name && k.scopes & (C | V | F) != 0);
        let mask = elsewhere.fold(0, |m, k| m | k.scopes);
        if scope.is_item() && mask != 0 {
            errors.at(
                span,
                format!(
                    "`{name}` does not apply to {}; it goes on {}",
                    scope.place(),
                    places(mask)
                ),
            );
        } else {
            unknown(errors, span, &name, scope);
        }
        skip(meta);
        return;
    };
    if !key.repeatable && out.iter().any(|e| e.key.name == key.name) {
        errors.at(span, format!("`{name}` is given twice; keep one"));
        skip(meta);
        return;
    }
    if let Some(value) = read(errors, meta, key) {
        out.push(Entry { key, span, value });
    }
}

fn unknown(errors: &Errors, span: Span, name: &str, scope: Scope) {
    let candidates: Vec<&str> = if scope.is_item() {
        KEYS.iter()
            .filter(|k| k.scopes & (C | V | F) != 0)
            .map(|k| k.name)
            .collect()
    } else {
        KEYS.iter()
            .filter(|k| k.scopes & scope.bit() != 0)
            .map(|k| k.name)
            .collect()
    };
    let hint = suggestion(name, candidates.iter().copied());
    // On an item the list names the schema keys of that place; the declaration's keys are
    // listed in the crate docs (they only mean something beside `collection`).
    let list: Vec<&str> = KEYS
        .iter()
        .filter(|k| k.scopes & scope.bit() != 0)
        .filter(|k| !scope.is_item() || is_schema_key(k.name))
        .map(|k| k.name)
        .collect();
    errors.at(
        span,
        format!(
            "unknown {} `{name}`{hint}\n  expected one of: {}",
            scope.noun(),
            list.join(", ")
        ),
    );
}

fn places(mask: u16) -> String {
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

/// A key's value, read by its [`Kind`].
pub enum Value {
    Number(NumberLit),
    Count(u64),
    Integer(i64),
    Str(LitStr),
    Flag(bool),
    Path(syn::ExprPath),
    Type(syn::Type),
    /// A JSON object (or, for [`Kind::JsonArray`], an array of objects), checked.
    Json(String),
    Keys(Vec<(KeyPath, KeyKind)>),
    KeyPath(KeyPath),
    Weights(Vec<(KeyPath, i64)>),
    Previous(Vec<(syn::Type, i64)>),
    FieldIndex(FieldIndex),
    TextWeight(i64),
    Nested(Vec<Entry>),
    /// `mappings(path(options...), ...)`: each field path with its options.
    Mappings(Vec<(KeyPath, Vec<Entry>)>),
}

/// Reads the value of `key`; `None` (with the problem recorded) when it has the wrong shape.
pub fn read(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &'static Key) -> Option<Value> {
    Some(match key.kind {
        Kind::Number => Value::Number(number(errors, meta, key)?),
        Kind::Count => Value::Count(count(errors, meta, key)?),
        Kind::Integer => Value::Integer(integer(errors, meta, key)?),
        Kind::Str => Value::Str(string(errors, meta, key)?),
        Kind::Flag => Value::Flag(flag(errors, meta, key)?),
        Kind::Path => Value::Path(path(errors, meta, key)?),
        Kind::Type => Value::Type(type_value(errors, meta, key)?),
        Kind::Json => Value::Json(json_object(errors, meta, key)?),
        Kind::JsonArray => Value::Json(json_array(errors, meta, key)?),
        Kind::Keys => Value::Keys(parenthesized(errors, meta, key, keys)?),
        Kind::KeyPath => Value::KeyPath(key_path_value(errors, meta, key)?),
        Kind::Weights => Value::Weights(pairs(errors, meta, key, |p| {
            let ident = p.get_ident().cloned();
            KeyPath {
                text: ident.as_ref().map(ToString::to_string).unwrap_or_default(),
                span: p.span(),
                first: ident,
            }
        })?),
        Kind::Previous => Value::Previous(pairs(errors, meta, key, |p| syn::parse_quote!(#p))?),
        Kind::TextWeight => {
            if meta.input.peek(Token![=]) {
                Value::TextWeight(integer(errors, meta, key)?)
            } else {
                Value::TextWeight(1)
            }
        }
        Kind::FieldIndex => Value::FieldIndex(if meta.input.peek(Token![=]) {
            let value = expr(errors, meta, key)?;
            let Some(kind) = key_kind(&value) else {
                unknown_kind(errors, &value);
                return None;
            };
            FieldIndex::Kind(kind)
        } else if meta.input.peek(syn::token::Paren) {
            FieldIndex::Options(parse_nested(errors, meta, Scope::Index))
        } else {
            FieldIndex::Plain
        }),
        Kind::Nested(scope) => {
            if !has_parens(errors, meta, key) {
                return None;
            }
            Value::Nested(parse_nested(errors, meta, scope))
        }
        Kind::Mappings => Value::Mappings(parenthesized(errors, meta, key, mappings)?),
    })
}

/// `title(type = "string"), author.name(type = "token", analyzer = "...")`: a key path, then
/// its options in parentheses, read with the keys of [`Scope::SearchMapping`].
fn mappings(errors: &Errors, content: ParseStream<'_>) -> syn::Result<Vec<(KeyPath, Vec<Entry>)>> {
    let mut out = Vec::new();
    while !content.is_empty() {
        let path = key_path(content)?;
        if !content.peek(syn::token::Paren) {
            return Err(syn::Error::new(
                path.span,
                format!(
                    "a mapped field takes its options in parentheses, e.g. {}(type = \"string\")",
                    path.text
                ),
            ));
        }
        let inner;
        syn::parenthesized!(inner in content);
        let tokens: proc_macro2::TokenStream = inner.parse()?;
        let mut entries = Vec::new();
        syn::parse::Parser::parse2(
            syn::meta::parser(|meta| {
                read_entry(errors, &meta, Scope::SearchMapping, &mut entries);
                Ok(())
            }),
            tokens,
        )?;
        out.push((path, entries));
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(out)
}

/// Consumes a key's value whatever its shape (`= expr`, `(anything)`, or nothing), so that
/// reading goes on with the next key after a mistake.
pub fn skip(meta: &ParseNestedMeta<'_>) {
    if meta.input.peek(Token![=]) {
        if let Ok(value) = meta.value() {
            let _ = value.parse::<Expr>();
        }
    } else if meta.input.peek(syn::token::Paren) {
        let _ = (|| -> syn::Result<()> {
            let content;
            syn::parenthesized!(content in meta.input);
            content.parse::<proc_macro2::TokenStream>()?;
            Ok(())
        })();
    }
}

fn expr(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<Expr> {
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
                format!("`{}` needs a value, e.g. `{}`", key.name, key.example),
            );
            skip(meta);
            None
        }
    }
}

/// A literal integer, negative or not, as `i128` (every range the callers check fits).
fn int_literal(value: &Expr) -> Option<i128> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i128>().ok(),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(i), ..
            }) => i.base10_parse::<i128>().ok().map(|v| -v),
            _ => None,
        },
        _ => None,
    }
}

fn number(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<NumberLit> {
    let name = key.name;
    let value = expr(errors, meta, key)?;
    let span = value.span();
    let (negative, inner) = match &value {
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    match inner {
        Expr::Lit(ExprLit {
            lit: Lit::Int(_), ..
        }) => {
            let Some(v) = int_literal(&value) else {
                errors.spanned(&value, format!("`{name}` is out of range"));
                return None;
            };
            let tokens = if let Ok(v) = i32::try_from(v) {
                quote::quote!(__ms::Number::Int32(#v))
            } else if let Ok(v) = i64::try_from(v) {
                quote::quote!(__ms::Number::Int64(#v))
            } else {
                errors.spanned(&value, format!("`{name}` must fit in 64 bits"));
                return None;
            };
            Some(NumberLit {
                value: v as f64,
                tokens,
                span,
            })
        }
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => {
            let Ok(v) = f.base10_parse::<f64>() else {
                errors.spanned(&value, format!("`{name}` is not a valid number"));
                return None;
            };
            let v = if negative { -v } else { v };
            if !v.is_finite() {
                errors.spanned(&value, format!("`{name}` must be finite"));
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
                &value,
                format!("`{name}` expects a number, e.g. `{name} = 0` or `{name} = 0.5`"),
            );
            None
        }
    }
}

fn count(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<u64> {
    whole(errors, meta, key, "a whole number of at least 0")
}

fn integer(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<i64> {
    whole(errors, meta, key, "a whole number")
}

/// An integer literal that fits `T`, else "`key` expects {what}".
fn whole<T: TryFrom<i128>>(
    errors: &Errors,
    meta: &ParseNestedMeta<'_>,
    key: &Key,
    what: &str,
) -> Option<T> {
    let value = expr(errors, meta, key)?;
    if let Some(n) = int_literal(&value).and_then(|n| T::try_from(n).ok()) {
        return Some(n);
    }
    errors.spanned(
        &value,
        format!("`{}` expects {what}, e.g. `{}`", key.name, key.example),
    );
    None
}

fn flag(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<bool> {
    if !meta.input.peek(Token![=]) {
        return Some(true);
    }
    let name = key.name;
    let value = expr(errors, meta, key)?;
    if let Expr::Lit(ExprLit {
        lit: Lit::Bool(b), ..
    }) = &value
    {
        return Some(b.value);
    }
    errors.spanned(
        &value,
        format!("`{name}` is a flag: write `{name}` or `{name} = true`"),
    );
    None
}

fn string(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<LitStr> {
    let value = expr(errors, meta, key)?;
    if let Expr::Lit(ExprLit {
        lit: Lit::Str(s), ..
    }) = &value
    {
        return Some(s.clone());
    }
    errors.spanned(
        &value,
        format!("`{}` expects a string, e.g. `{}`", key.name, key.example),
    );
    None
}

fn path(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<syn::ExprPath> {
    let value = expr(errors, meta, key)?;
    match &value {
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
    let what = if key.name == "crate" {
        "the path the crate is reachable at"
    } else {
        "the path of a `fn(&mut SchemaGenerator) -> JsonSchema`"
    };
    errors.spanned(
        &value,
        format!("`{}` expects {what}, e.g. `{}`", key.name, key.example),
    );
    None
}

/// `= Type` or `= "Type"`.
fn type_value(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<syn::Type> {
    let Ok(stream) = meta.value() else {
        errors.at(
            meta.path.span(),
            format!("`{}` needs a value, e.g. `{}`", key.name, key.example),
        );
        skip(meta);
        return None;
    };
    let parsed = if stream.peek(LitStr) {
        stream.parse::<LitStr>().and_then(|s| {
            s.parse::<syn::Type>()
                .map_err(|_| syn::Error::new(s.span(), ""))
        })
    } else {
        stream.parse::<syn::Type>()
    };
    match parsed {
        Ok(ty) => Some(ty),
        Err(e) => {
            errors.at(
                e.span(),
                format!("`{}` expects a type, e.g. `{}`", key.name, key.example),
            );
            None
        }
    }
}

/// A JSON object in a string, checked now so a bad filter never reaches a database.
fn json_object(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<String> {
    let name = key.name;
    let lit = string(errors, meta, key)?;
    match serde_json::from_str::<serde_json::Value>(&lit.value()) {
        Ok(serde_json::Value::Object(_)) => Some(lit.value()),
        Ok(_) => {
            errors.spanned(
                &lit,
                format!("`{name}` must be a JSON object, e.g. `{}`", key.example),
            );
            None
        }
        Err(e) => {
            errors.spanned(&lit, format!("`{name}` is not valid JSON: {e}"));
            None
        }
    }
}

/// A JSON array of objects in a string (a pipeline's stages), checked now as a filter is.
fn json_array(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<String> {
    let name = key.name;
    let lit = string(errors, meta, key)?;
    match serde_json::from_str::<serde_json::Value>(&lit.value()) {
        Ok(serde_json::Value::Array(items)) => {
            if let Some(i) = items.iter().position(|v| !v.is_object()) {
                errors.spanned(
                    &lit,
                    format!(
                        "`{name}`: element {i} is not a JSON object; each stage is one, e.g. `{}`",
                        key.example
                    ),
                );
                return None;
            }
            Some(lit.value())
        }
        Ok(_) => {
            errors.spanned(
                &lit,
                format!(
                    "`{name}` must be a JSON array of stages, e.g. `{}`",
                    key.example
                ),
            );
            None
        }
        Err(e) => {
            errors.spanned(&lit, format!("`{name}` is not valid JSON: {e}"));
            None
        }
    }
}

/// Whether `key` is followed by `(...)`; when it is not, the error says how the key is written and
/// the rest of the key is skipped.
fn has_parens(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> bool {
    if meta.input.peek(syn::token::Paren) {
        return true;
    }
    errors.at(
        meta.path.span(),
        format!("expected `{}(...)`, e.g. {}", key.name, key.example),
    );
    skip(meta);
    false
}

/// `key(...)` read by `inner`; a key written without parentheses is refused.
fn parenthesized<T>(
    errors: &Errors,
    meta: &ParseNestedMeta<'_>,
    key: &Key,
    inner: impl FnOnce(&Errors, ParseStream<'_>) -> syn::Result<T>,
) -> Option<T> {
    if !has_parens(errors, meta, key) {
        return None;
    }
    let result = (|| {
        let content;
        syn::parenthesized!(content in meta.input);
        inner(errors, &content)
    })();
    match result {
        Ok(v) => Some(v),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// `(Name = 1, Other = 2)`: each name (a field, a type) with a whole number.
fn pairs<T>(
    errors: &Errors,
    meta: &ParseNestedMeta<'_>,
    key: &'static Key,
    name: impl Fn(&syn::Path) -> T,
) -> Option<Vec<(T, i64)>> {
    if !has_parens(errors, meta, key) {
        return None;
    }
    let mut out = Vec::new();
    let result = meta.parse_nested_meta(|inner| {
        if let Some(value) = integer(errors, &inner, key) {
            out.push((name(&inner.path), value));
        }
        Ok(())
    });
    if let Err(e) = result {
        errors.push(e);
    }
    Some(out)
}

/// `a, b.c = -1, "meta.$**", loc = "2dsphere"`.
fn keys(errors: &Errors, content: ParseStream<'_>) -> syn::Result<Vec<(KeyPath, KeyKind)>> {
    let mut keys = Vec::new();
    while !content.is_empty() {
        let path = key_path(content)?;
        let kind = if content.peek(Token![=]) {
            content.parse::<Token![=]>()?;
            let value: Expr = content.parse()?;
            key_kind(&value).unwrap_or_else(|| {
                unknown_kind(errors, &value);
                KeyKind::Ascending
            })
        } else {
            KeyKind::Ascending
        };
        keys.push((path, kind));
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(keys)
}

fn key_path_value(errors: &Errors, meta: &ParseNestedMeta<'_>, key: &Key) -> Option<KeyPath> {
    let result = match meta.value() {
        Ok(stream) => key_path(stream),
        Err(_) => {
            errors.at(
                meta.path.span(),
                format!("`{}` needs a value, e.g. `{}`", key.name, key.example),
            );
            skip(meta);
            return None;
        }
    };
    match result {
        Ok(p) => Some(p),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

/// A key path as written: Rust field names joined by dots, or a string.
fn key_path(input: ParseStream<'_>) -> syn::Result<KeyPath> {
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
    // Paths name fields as serde does: `r#type` is the field `type`.
    let first: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
    let span = first.span();
    let mut text = syn::ext::IdentExt::unraw(&first).to_string();
    while input.peek(Token![.]) {
        input.parse::<Token![.]>()?;
        let next: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
        text.push('.');
        text.push_str(&syn::ext::IdentExt::unraw(&next).to_string());
    }
    Ok(KeyPath {
        text,
        first: Some(first),
        span,
    })
}

const KEY_KINDS: &[&str] = &["1", "-1", "hashed", "text", "2d", "2dsphere"];

fn key_kind(value: &Expr) -> Option<KeyKind> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.value().as_str() {
            "hashed" => Some(KeyKind::Hashed),
            "text" => Some(KeyKind::Text),
            "2d" => Some(KeyKind::TwoD),
            "2dsphere" => Some(KeyKind::TwoDSphere),
            _ => None,
        },
        _ => match int_literal(value) {
            Some(1) => Some(KeyKind::Ascending),
            Some(-1) => Some(KeyKind::Descending),
            _ => None,
        },
    }
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
