//! The collection declaration against the server's rules, each refusal at the key to change:
//! what `create`, `createIndexes` or `shardCollection` would fail with, found at compile time.

use quote::ToTokens as _;

use crate::ast::{Body, Container, Declaration, Field, Style, Tag};
use crate::attr::{IndexDecl, KeyKind};
use crate::errors::Errors;

/// The most indexes a collection holds, `_id_` included.
const MAX_INDEXES: usize = 64;
/// The most fields in one key pattern.
const MAX_KEY_FIELDS: usize = 32;

pub fn container(errors: &Errors, c: &Container) {
    shorthands(errors, c);
    if let Some(d) = &c.declaration {
        super::view::view(errors, c, d);
        super::search::search(errors, c, d);
        declaration(errors, c, d);
    }
}

/// Field shorthands and variant indexes: only on a collection root, on named fields, on an
/// internally tagged enum's variants.
fn shorthands(errors: &Errors, c: &Container) {
    let mut first = None;
    match &c.body {
        Body::Struct(_, fields) => {
            for f in fields {
                let Some(span) = f.mongo.declaration.shorthand_at else {
                    continue;
                };
                first.get_or_insert(span);
                if let syn::Member::Unnamed(_) = f.member {
                    errors.at(
                        span,
                        "index and lint attributes name their field, which needs a name: \
                         declare the index on the type instead",
                    );
                }
            }
        }
        Body::Enum(variants) => {
            for v in variants {
                for f in &v.fields {
                    if let Some(span) = f.mongo.declaration.shorthand_at {
                        errors.at(
                            span,
                            "index and lint attributes on a variant's field are not read: \
                             declare the index on the variant, e.g. \
                             #[mongo(index(keys(field)))] (with #[serde(tag = \"...\")] on the enum)",
                        );
                    }
                }
                let Some(span) = v.mongo.declaration.shorthand_at else {
                    continue;
                };
                first.get_or_insert(span);
                if !matches!(c.tag, Tag::Internal(_)) {
                    errors.at(
                        span,
                        "an index on a variant is scoped to it by the discriminator, which needs \
                         an internally tagged enum: add #[serde(tag = \"type\")] to the enum, or \
                         declare the index on the enum",
                    );
                }
            }
        }
    }
    if let (None, Some(span)) = (&c.declaration, first) {
        errors.at(
            span,
            "index and lint attributes belong to a collection root: add \
             #[mongo(collection = \"name\")] to the type",
        );
    }
}

/// The server adds `_id` to every document it stores: a collection root must read it back.
/// What serde does with a key the type does not name: a struct ignores it unless
/// `deny_unknown_fields`; a flattened map or an internally tagged newtype over a map reads it
/// into the map (so its values must read an ObjectId); an externally tagged enum is a
/// one-key document and refuses a second key; an adjacently tagged one ignores it unless
/// `deny_unknown_fields`.
fn reads_id(errors: &Errors, c: &Container, d: &Declaration) {
    let add_id = "add an `_id` field, e.g. `#[serde(rename = \"_id\")] id: bson::oid::ObjectId`";
    match (&c.body, &c.tag) {
        (Body::Struct(Style::Struct, fields), _) => {
            if let Some(problem) = fields_refuse_id(fields, c.deny_unknown_fields) {
                errors.at(d.at, format!("{problem}; {add_id}"));
            }
        }
        (Body::Enum(_), Tag::External) => errors.at(
            d.at,
            "an externally tagged enum is stored as a one-key document ({\"Variant\": ...}) and \
             cannot read the `_id` the server adds beside its tag; make it internally tagged \
             with #[serde(tag = \"type\")]",
        ),
        (Body::Enum(_), Tag::Adjacent(..)) if c.deny_unknown_fields => errors.at(
            d.at,
            "with #[serde(deny_unknown_fields)] an adjacently tagged enum cannot read the `_id` \
             the server adds beside its tag and content; remove deny_unknown_fields, or make \
             it internally tagged with #[serde(tag = \"type\")] and give each variant an \
             `_id` field",
        ),
        (Body::Enum(variants), Tag::Internal(_) | Tag::Untagged) => {
            for v in variants.iter().filter(|v| !v.skip_deserializing) {
                let problem = match v.style {
                    Style::Struct => fields_refuse_id(&v.fields, c.deny_unknown_fields),
                    Style::Newtype => map_refusing_id(&v.fields[0].ty).then(|| {
                        "its content, a map, reads every other field, and the `_id` the server \
                         adds is an ObjectId its values cannot read"
                            .to_owned()
                    }),
                    _ => None,
                };
                if let Some(problem) = problem {
                    let fix = if v.style == Style::Newtype {
                        "make it a struct variant with an `_id` field beside the map \
                         (#[serde(flatten)])"
                    } else {
                        add_id
                    };
                    errors.at(d.at, format!("variant `{}`: {problem}; {fix}", v.ident));
                }
            }
        }
        _ => {}
    }
}

/// Why a document with the server's `_id` cannot be read into these fields, if it cannot.
fn fields_refuse_id(fields: &[Field], deny_unknown: bool) -> Option<String> {
    let has_id = fields
        .iter()
        .any(|f| !f.skip_deserializing && !f.flatten && f.read_names.iter().any(|n| n == "_id"));
    if has_id {
        return None;
    }
    if deny_unknown {
        return Some(
            "with #[serde(deny_unknown_fields)] this type cannot read the `_id` the server adds \
             to every document"
                .to_owned(),
        );
    }
    let map = fields
        .iter()
        .find(|f| f.flatten && !f.skip_deserializing && map_refusing_id(&f.ty))?;
    Some(format!(
        "the flattened map `{}` reads every field not named here, and the `_id` the server adds \
         is an ObjectId its values cannot read",
        map.member.to_token_stream()
    ))
}

/// Whether `ty` is written as a map (`HashMap`, `BTreeMap`, `IndexMap`, `Map`, also inside an
/// `Option`) whose values cannot read an ObjectId: only `Bson`, `RawBson` and JSON `Value`
/// (which reads it as `{"$oid": ...}`) can.
fn map_refusing_id(ty: &syn::Type) -> bool {
    let syn::Type::Path(tp) = ty else {
        return false;
    };
    let Some(last) = tp.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    let types: Vec<&syn::Type> = args
        .args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    if last.ident == "Option" {
        return types.first().is_some_and(|t| map_refusing_id(t));
    }
    if !["HashMap", "BTreeMap", "IndexMap", "Map"].contains(&last.ident.to_string().as_str()) {
        return false;
    }
    let Some(syn::Type::Path(value)) = types.get(1) else {
        return false;
    };
    let reads_any = value
        .path
        .segments
        .last()
        .is_some_and(|s| ["Bson", "RawBson", "Value"].contains(&s.ident.to_string().as_str()));
    !reads_any
}

fn declaration(errors: &Errors, c: &Container, d: &Declaration) {
    // A view's documents are whatever its pipeline makes: `$project: {_id: 0}` drops `_id`.
    if d.view.is_none() {
        reads_id(errors, c, d);
    }
    let at = d.at;
    let name = d.name.value();
    if name.is_empty() || name.contains('$') || name.starts_with("system.") {
        errors.spanned(
            &d.name,
            "a collection name must be non-empty, contain no `$`, and not start with `system.`",
        );
    }
    if !c.generics.params.is_empty() {
        errors.at(
            at,
            "a collection root cannot be generic: the registry needs one concrete type per \
             collection; declare the collection on a type alias's wrapper struct instead",
        );
    }
    if let Some(ts) = &d.options.timeseries {
        if d.options.validation_level.is_some() || d.options.validation_action.is_some() {
            errors.at(
                at,
                "time-series collections cannot have a validator (the server fails create \
                 with InvalidOptions, code 72): remove validation_level/validation_action",
            );
        }
        if d.options.version.is_some() {
            errors.at(
                at,
                "time-series collections cannot have a validator, so they cannot pin \
                 schema versions: remove version(...)",
            );
        }
        if let Some(g) = &ts.granularity {
            if !["seconds", "minutes", "hours"].contains(&g.value().as_str()) {
                errors.spanned(
                    g,
                    "granularity is one of \"seconds\", \"minutes\", \"hours\"",
                );
            }
        }
        match (ts.bucket_max_span_seconds, ts.bucket_rounding_seconds) {
            (Some(a), Some(b)) => {
                if a != b {
                    errors.at(
                        ts.span,
                        "bucket_max_span_seconds and bucket_rounding_seconds must be equal \
                         (server rule)",
                    );
                }
                if ts.granularity.is_some() {
                    errors.at(
                        ts.span,
                        "give either granularity or the bucket seconds, not both",
                    );
                }
            }
            (None, None) => {}
            _ => errors.at(
                ts.span,
                "bucket_max_span_seconds and bucket_rounding_seconds go together",
            ),
        }
    }
    if let Some(shard_key) = &d.options.shard_key {
        if shard_key.unique && shard_key.keys.iter().any(|(_, k)| *k == KeyKind::Hashed) {
            errors.at(shard_key.span, "a hashed shard key cannot be unique");
        }
    }
    if let Some(version) = &d.options.version {
        if d.options.validator == Some(false) {
            errors.at(
                at,
                "version(...) builds the validator; it cannot be combined with validator = false",
            );
        }
        let mut seen = vec![version.current];
        for (_, v) in &version.previous {
            if seen.contains(v) {
                errors.at(version.span, format!("version {v} is declared twice"));
            }
            seen.push(*v);
        }
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
    d.options.indexes.iter().for_each(|i| index(errors, i));
    for (path, weight) in &d.text_fields {
        text_weight(errors, path.span, *weight);
    }
    let text_indexes = d.options.indexes.iter().filter(|i| i.is_text()).count()
        + usize::from(!d.text_fields.is_empty());
    if text_indexes > 1 {
        let span = d
            .options
            .indexes
            .iter()
            .filter(|i| i.is_text())
            .nth(1)
            .map(|i| i.span)
            .or_else(|| d.text_fields.first().map(|(p, _)| p.span))
            .unwrap_or(at);
        errors.at(
            span,
            "only one text index per collection allowed: list every text field in one \
             index(keys(a = \"text\", b = \"text\"), weights(...)), or mark them #[mongo(text)]",
        );
    }
    let count = 1 + d.options.indexes.len() + usize::from(!d.text_fields.is_empty());
    if count > MAX_INDEXES {
        errors.at(
            at,
            format!(
                "add index fails, too many indexes: {count} with _id_ (the server allows {MAX_INDEXES})"
            ),
        );
    }
}

fn index(errors: &Errors, index: &IndexDecl) {
    for (i, (path, _)) in index.keys.iter().enumerate() {
        if index.keys[..i].iter().any(|(p, _)| p.text == path.text) {
            errors.at(
                path.span,
                format!("`{}` appears twice in one key pattern", path.text),
            );
        }
    }
    if index.ttl.is_some() && index.keys.len() > 1 {
        errors.at(
            index.span,
            "TTL indexes are single-field indexes, compound indexes do not support TTL (server rule)",
        );
    }
    if index.unique && index.keys.iter().any(|(_, k)| *k == KeyKind::Hashed) {
        match index.unique_at {
            Some(at) => errors.at(
                at,
                "Currently hashed indexes cannot guarantee uniqueness. Use a regular index. \
                 (server rule): drop `unique` or `hashed`",
            ),
            None => errors.at(
                index.span,
                "Currently hashed indexes cannot guarantee uniqueness. Use a regular index. \
                 (server rule)",
            ),
        }
    }
    if index.keys.len() > MAX_KEY_FIELDS {
        errors.at(
            index.span,
            format!(
                "Index key pattern has {} fields; the maximum is {MAX_KEY_FIELDS} (server rule)",
                index.keys.len()
            ),
        );
    }
    if !index.weights.is_empty() && !index.is_text() {
        errors.at(
            index.span,
            "weights apply to text indexes only: give a key = \"text\"",
        );
    }
    for (i, (path, weight)) in index.weights.iter().enumerate() {
        text_weight(errors, path.span, *weight);
        if index.weights[..i].iter().any(|(p, _)| p.text == path.text) {
            errors.at(
                path.span,
                format!("`{}` is given twice; keep one", path.text),
            );
        }
    }
}

fn text_weight(errors: &Errors, span: proc_macro2::Span, weight: i64) {
    if !(1..=99_999).contains(&weight) {
        errors.at(span, "text weights are whole numbers from 1 to 99999");
    }
}
