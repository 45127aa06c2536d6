//! `#[mongo(...)]` attributes into typed values, the derive's first stage: one key table
//! (`keys.rs`) and one value reader (`value.rs`) serve the schema keys and the collection
//! declaration alike, so a misspelled, misplaced or repeated key is reported the same way
//! everywhere. Nothing here knows serde's view of the type; `ast.rs` joins the two.

mod declaration;
mod keys;
mod schema;
mod value;

use syn::{Expr, ExprLit, Lit};

use crate::errors::Errors;

pub use declaration::{
    CappedDecl, CollectionAttrs, IndexDecl, SearchIndexDecl, SearchStageDecl, ShardKeyDecl,
    TimeseriesDecl,
};
pub use keys::Scope;
pub use schema::{MongoAttrs, Spanned};
pub use value::{KeyKind, KeyPath};

/// Everything `#[mongo]` says on one item: the schema keys and the declaration's.
pub fn parse(errors: &Errors, attrs: &[syn::Attribute], scope: Scope) -> MongoAttrs {
    let mut entries = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("mongo")) {
        if let syn::Meta::Path(_) = &attr.meta {
            errors.spanned(
                attr,
                "expected `#[mongo(key = value, ...)]`, e.g. `#[mongo(minimum = 0)]`",
            );
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            value::read_entry(errors, &meta, scope, &mut entries);
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    MongoAttrs::from_entries(errors, scope, entries)
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
