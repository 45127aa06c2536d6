//! A view declaration (`#[mongo(view = "...", view_on = Source, pipeline = "[...]")]`) against
//! the server's rules: a view has a source and a pipeline, and nothing a collection has beside
//! them (no validator, no index, no collection option). `db.createView` in the manual:
//! <https://www.mongodb.com/docs/manual/reference/method/db.createView/>.

use quote::ToTokens as _;

use crate::ast::{Container, Declaration};
use crate::errors::Errors;

pub fn view(errors: &Errors, c: &Container, d: &Declaration) {
    let options = &d.options;
    let Some(at) = d.view else {
        for (key, span) in [
            ("view_on", options.view_on.as_ref().map(|v| v.1)),
            ("pipeline", options.pipeline.as_ref().map(|p| p.1)),
        ] {
            if let Some(span) = span {
                errors.at(
                    span,
                    format!(
                        "`{key}` belongs to a view: write `view = \"name\"` in place of \
                         `collection`, e.g. #[mongo(view = \"active_users\", view_on = User, \
                         pipeline = r#\"[...]\"#)]"
                    ),
                );
            }
        }
        return;
    };
    if let Some(span) = d.collection_beside_view {
        errors.at(
            span,
            "a type declares a collection or a view, not both: remove `collection`, or move \
             the view to a type of its own",
        );
    }
    match &options.view_on {
        None => errors.at(
            at,
            "a view needs its source: add `view_on = SourceType`, the type of a declared \
             collection or view",
        ),
        Some((ty, span)) => {
            let names_itself = match ty {
                syn::Type::Path(p) if p.qself.is_none() => {
                    p.path.is_ident("Self") || p.path.is_ident(&c.ident)
                }
                _ => false,
            };
            if names_itself {
                errors.at(
                    *span,
                    format!(
                        "a view cannot read itself: `view_on = {}` names this type; name the \
                         source collection's type",
                        ty.to_token_stream()
                    ),
                );
            }
        }
    }
    for index in &options.indexes {
        errors.at(
            index.span,
            "a view has no indexes of its own (reads through it use its source's): declare \
             the index on the `view_on` type",
        );
    }
    for (path, _) in &d.text_fields {
        errors.at(
            path.span,
            "a view has no indexes of its own: declare the text index on the `view_on` type",
        );
    }
    if let Some(shard_key) = &options.shard_key {
        errors.at(shard_key.span, "a view cannot be sharded: shard its source");
    }
    if let Some(ts) = &options.timeseries {
        errors.at(
            ts.span,
            "a view is not a time-series collection: declare timeseries(...) on its source",
        );
    }
    if let Some(v) = &options.version {
        errors.at(
            v.span,
            "a view has no validator, so it cannot pin schema versions: remove version(...)",
        );
    }
    let refused = [
        ("validator", options.validator.is_some()),
        ("validation_level", options.validation_level.is_some()),
        ("validation_action", options.validation_action.is_some()),
        (
            "expire_after_seconds",
            options.expire_after_seconds.is_some(),
        ),
        ("capped", options.capped.is_some()),
        ("clustered_index", options.clustered_index),
        (
            "change_stream_pre_and_post_images",
            options.change_stream_pre_and_post_images,
        ),
        ("query", !options.queries.is_empty()),
    ];
    for (key, _) in refused.iter().filter(|(_, set)| *set) {
        let why = if key.starts_with("valid") {
            "a view never has a validator: the documents it produces are validated where \
             they are stored"
        } else if *key == "query" {
            "a query through a view runs on its source's indexes: declare it on the \
             `view_on` type"
        } else {
            "a view takes only view_on, pipeline and collation"
        };
        errors.at(at, format!("`{key}` does not apply to a view: {why}"));
    }
}
