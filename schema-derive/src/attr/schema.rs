//! The schema keys of `#[mongo]` (bounds, patterns, `bson_type`, `schema_with`, ...) as one
//! typed struct per container, variant or field.

use proc_macro2::Span;
use syn::LitStr;

use super::declaration::DeclarationAttrs;
use super::keys::{Scope, is_schema_key};
use super::value::{Entry, NumberLit, Value};
use crate::errors::{Errors, suggestion};

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
    /// `crate = "path"`: where the generated code finds `mongo_schema`.
    pub krate: Option<syn::Path>,
    /// The collection declaration's keys on this item.
    pub declaration: DeclarationAttrs,
}

impl MongoAttrs {
    /// Sorts an item's entries into the schema keys and the declaration's.
    pub fn from_entries(errors: &Errors, scope: Scope, entries: Vec<Entry>) -> MongoAttrs {
        let mut out = MongoAttrs::default();
        let mut declaration = Vec::new();
        for entry in entries {
            if is_schema_key(entry.name()) {
                out.set(errors, entry);
            } else {
                declaration.push(entry);
            }
        }
        out.declaration = DeclarationAttrs::from_entries(errors, scope, declaration);
        out
    }

    /// Stores one schema key; the table already refused repeats and wrong value shapes.
    fn set(&mut self, errors: &Errors, entry: Entry) {
        let span = entry.span;
        let spanned = |value| Spanned { value, span };
        match (entry.name(), entry.value) {
            ("minimum", Value::Number(n)) => self.minimum = Some(n),
            ("maximum", Value::Number(n)) => self.maximum = Some(n),
            ("multiple_of", Value::Number(n)) => self.multiple_of = Some(n),
            ("exclusive_minimum", Value::Flag(b)) => self.exclusive_minimum = Some(spanned(b)),
            ("exclusive_maximum", Value::Flag(b)) => self.exclusive_maximum = Some(spanned(b)),
            ("unique_items", Value::Flag(b)) => self.unique_items = Some(spanned(b)),
            ("exact", Value::Flag(b)) => self.exact = Some(spanned(b)),
            ("min_length", Value::Count(n)) => self.min_length = Some(Spanned { value: n, span }),
            ("max_length", Value::Count(n)) => self.max_length = Some(Spanned { value: n, span }),
            ("min_items", Value::Count(n)) => self.min_items = Some(Spanned { value: n, span }),
            ("max_items", Value::Count(n)) => self.max_items = Some(Spanned { value: n, span }),
            ("recursion_depth", Value::Count(n)) => {
                self.recursion_depth = Some(Spanned { value: n, span });
            }
            ("pattern", Value::Str(s)) => self.pattern = Some(s),
            ("title", Value::Str(s)) => self.title = Some(s.value()),
            ("description", Value::Str(s)) => self.description = Some(s.value()),
            ("bson_type", Value::Str(s)) => self.bson_type = bson_types(errors, &s),
            ("schema_with", Value::Path(p)) => self.schema_with = Some(p),
            ("crate", Value::Path(p)) => self.krate = Some(p.path),
            ("schema_as", Value::Type(ty)) => self.schema_as = Some(ty),
            ("bound", Value::Str(s)) => {
                let parsed = s.parse_with(
                    syn::punctuated::Punctuated::<syn::WherePredicate, syn::Token![,]>::parse_terminated,
                );
                match parsed {
                    Ok(list) => self.bound = Some(list.into_iter().collect()),
                    Err(_) => errors.spanned(
                        &s,
                        "`bound` expects where-clause predicates, e.g. `bound = \"T: MongoSchema\"`",
                    ),
                }
            }
            (name, _) => unreachable!("the key table gives `{name}` another kind"),
        }
    }

    /// The path generated code names the crate by: `::mongo_schema` unless
    /// `#[mongo(crate = "...")]` says where a re-export is.
    pub fn crate_path(&self) -> proc_macro2::TokenStream {
        match &self.krate {
            Some(path) => quote::quote!(#path),
            None => quote::quote!(::mongo_schema),
        }
    }

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

/// `"a, b"`: server aliases, each one the server accepts, none twice.
fn bson_types(errors: &Errors, s: &LitStr) -> Option<Spanned<Vec<String>>> {
    let mut types = Vec::new();
    for alias in s.value().split(',').map(str::trim) {
        if !BSON_TYPES.contains(&alias) {
            let hint = suggestion(alias, BSON_TYPES.iter().copied());
            errors.spanned(
                s,
                format!(
                    "unknown bson type `{alias}`{hint}\n  expected one or more of (comma separated): {}",
                    BSON_TYPES.join(", ")
                ),
            );
            return None;
        }
        if types.iter().any(|t| t == alias) {
            errors.spanned(s, format!("bson type `{alias}` is listed twice"));
        }
        types.push(alias.to_owned());
    }
    Some(Spanned {
        value: types,
        span: s.span(),
    })
}

/// Every `bsonType` alias the server accepts (SERVER-FACTS: `$jsonSchema` keywords).
const BSON_TYPES: &[&str] = &[
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
