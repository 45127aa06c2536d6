//! What `infer` declares beside the types of a live collection: its indexes as `index(...)`
//! and its options as `#[mongo(...)]` keys, read from the collection's normalized live spec
//! (`listIndexes` and `listCollections`), so that `check` against the same deployment finds
//! the indexes and options in sync from the start.

use bson::Bson;

use super::model::{Model, Ty};
use super::names;
use crate::spec::{
    Collation, CollectionSpec, IndexKind, IndexSpec, ValidationAction, ValidationLevel,
};

/// The `#[mongo(...)]` keys after `collection = ...`, and a note for each thing left out.
pub(super) fn attributes(model: &Model, live: &CollectionSpec) -> (Vec<String>, Vec<String>) {
    let mut attrs = Vec::new();
    let mut notes = Vec::new();
    match &live.validator {
        // Declared without one, as the collection is; `infer`'s proof still shows what the
        // types would enforce once `validator = false` is removed.
        // A versioned model cannot: `version(...)` is the validator (the derive refuses both).
        None if model.versioning.is_some() => notes.push(
            "the collection has no validator, and version(...) declares one: `check` proposes \
             adding it (run `audit` first)"
                .to_owned(),
        ),
        None => attrs.push("validator = false".to_owned()),
        Some(_) => {
            notes.push(
                "the collection has a validator: the one these types derive replaces it, so \
                 `check` reports the difference until it is applied (or the types are edited)"
                    .to_owned(),
            );
            if let Some(level) = &live.validation_level
                && *level != ValidationLevel::Strict
            {
                attrs.push(format!("validation_level = {:?}", level.as_str()));
            }
            if let Some(action) = &live.validation_action
                && *action != ValidationAction::Error
            {
                attrs.push(format!("validation_action = {:?}", action.as_str()));
            }
        }
    }
    let options = &live.options;
    if let Some(capped) = &options.capped {
        attrs.push(match capped.max {
            Some(max) => format!("capped(size = {}, max = {max})", capped.size),
            None => format!("capped(size = {})", capped.size),
        });
    }
    let mut left_out = Vec::new();
    if options.timeseries.is_some() {
        left_out.push("timeseries");
    }
    if options.expire_after_seconds.is_some() {
        left_out.push("expireAfterSeconds");
    }
    if options.clustered_index.is_some() {
        left_out.push("clusteredIndex");
    }
    if options.collation.is_some() {
        left_out.push("collation");
    }
    if options.change_stream_pre_and_post_images.is_some() {
        left_out.push("changeStreamPreAndPostImages");
    }
    let others: Vec<&str> = options.other.keys().map(String::as_str).collect();
    left_out.extend(others);
    if !left_out.is_empty() {
        notes.push(format!(
            "collection options not declared (add them by hand, see attributes.md): {}",
            left_out.join(", ")
        ));
    }
    for index in live.indexes.iter().filter(|i| !i.is_id()) {
        match index_attribute(model, index, options.collation.as_ref()) {
            Ok(attr) => attrs.push(attr),
            Err(why) => notes.push(format!(
                "index {:?} not declared: {why}",
                index.effective_name()
            )),
        }
    }
    (attrs, notes)
}

/// `index(keys(a, b = -1), unique, ...)` for one live index, or why it cannot be written.
fn index_attribute(
    model: &Model,
    index: &IndexSpec,
    collection_collation: Option<&Collation>,
) -> Result<String, String> {
    if index.keys.is_text() || index.keys.is_wildcard() {
        return Err("text and wildcard indexes are declared by hand".to_owned());
    }
    let mut keys = Vec::new();
    for (path, kind) in index.keys.iter() {
        let rust = rust_path(model, path).ok_or_else(|| {
            format!("{path:?} is not a field of the inferred types (never seen in the documents)")
        })?;
        keys.push(match kind {
            IndexKind::Ascending => rust,
            IndexKind::Descending => format!("{rust} = -1"),
            IndexKind::Hashed => format!("{rust} = \"hashed\""),
            IndexKind::TwoD => format!("{rust} = \"2d\""),
            IndexKind::TwoDSphere => format!("{rust} = \"2dsphere\""),
            other => return Err(format!("{path:?} has the key kind {}", other.to_bson())),
        });
    }
    let mut parts = vec![format!("keys({})", keys.join(", "))];
    if let Some(name) = &index.name
        && *name != index.default_name()
    {
        parts.push(format!("name = {name:?}"));
    }
    for (set, flag) in [
        (index.unique, "unique"),
        (index.sparse, "sparse"),
        (index.hidden, "hidden"),
    ] {
        if set {
            parts.push(flag.to_owned());
        }
    }
    if let Some(seconds) = index.expire_after_seconds {
        parts.push(format!("ttl = {seconds}"));
    }
    if let Some(filter) = &index.partial_filter_expression {
        let json = Bson::Document(filter.clone())
            .into_canonical_extjson()
            .to_string();
        parts.push(format!("partial = {}", raw_string(&json)));
    }
    let mut left_out = Vec::new();
    // A listed index shows the collation it inherited (`normalize` writes "simple" out): only
    // one of its own needs declaring.
    if let Some(collation) = &index.collation
        && !collation.is_simple()
        && Some(collation) != collection_collation
    {
        left_out.push("collation");
    }
    if index.bits.is_some() || index.min.is_some() || index.max.is_some() {
        left_out.push("bits/min/max");
    }
    if !index.other.is_empty() || index.prepare_unique || index.build_in_progress {
        left_out.push("other options");
    }
    if !left_out.is_empty() {
        return Err(format!(
            "its {} must be declared by hand",
            left_out.join(", ")
        ));
    }
    Ok(format!("index({})", parts.join(", ")))
}

/// The Rust field path for a stored dotted path, through the inferred structs (and the arrays
/// and options around them), as the derive resolves index paths; `None` when a segment is not a
/// field the model has.
fn rust_path(model: &Model, path: &str) -> Option<String> {
    let mut current = 0;
    let mut rust = Vec::new();
    let mut keyword = false;
    let segments: Vec<&str> = path.split('.').collect();
    for (i, segment) in segments.iter().enumerate() {
        let field = model.structs[current]
            .fields
            .iter()
            .find(|f| f.name == *segment)?;
        keyword |= field.ident.starts_with("r#");
        rust.push(names::unraw(&field.ident).to_owned());
        if i + 1 < segments.len() {
            current = struct_in(&field.ty)?;
        }
    }
    let joined = rust.join(".");
    // The derive reads a raw identifier in a key path with its `r#` (and finds no such
    // field), but takes the same names as a string: `"tags.type"`.
    Some(if keyword {
        format!("{joined:?}")
    } else {
        joined
    })
}

/// The struct a field's values are, through `Option` and `Vec`.
fn struct_in(ty: &Ty) -> Option<usize> {
    match ty {
        Ty::Struct(i) => Some(*i),
        Ty::Option(inner) | Ty::Vec(inner) => struct_in(inner),
        _ => None,
    }
}

/// A Rust raw string literal holding `text`, with enough `#` that nothing inside ends it.
fn raw_string(text: &str) -> String {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    format!("r{h}\"{text}\"{h}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::{Census, Options, model};
    use crate::spec::IndexKind::*;

    fn model_of(docs: &[bson::RawDocumentBuf]) -> Model {
        let mut census = Census::new();
        for d in docs {
            census.add(d).unwrap();
        }
        model::build(&census, "orders", &Options::default())
    }

    #[test]
    fn indexes_name_rust_fields_through_renames_and_embedded_structs() {
        let model = model_of(&[bson::rawdoc! {
            "userId": 1, "type": "a", "customer": {"e-mail": "x"}, "items": [{"sku": "s"}]
        }]);
        let live = CollectionSpec::new("orders")
            .index(IndexSpec::new([
                ("userId", Ascending),
                ("type", Descending),
            ]))
            .index(
                IndexSpec::new([("customer.e-mail", Ascending)])
                    .unique(true)
                    .name("by_email"),
            )
            .index(
                IndexSpec::new([("items.sku", Hashed)])
                    .partial_filter_expression(bson::doc! {"type": "a\"#"}),
            )
            .index(IndexSpec::new([("missing", Ascending)]));
        let (attrs, notes) = attributes(&model, &live);
        assert_eq!(
            attrs,
            [
                "validator = false",
                "index(keys(user_id, \"type\" = -1))",
                "index(keys(customer.e_mail), name = \"by_email\", unique)",
                "index(keys(items.sku = \"hashed\"), partial = r##\"{\"type\":\"a\\\"#\"}\"##)",
            ]
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("\"missing\" is not a field"), "{notes:?}");
    }

    #[test]
    fn a_versioned_model_is_not_declared_without_a_validator() {
        let model = model_of(&[
            bson::rawdoc! { "v": 1, "a": 1 },
            bson::rawdoc! { "v": 1, "a": 2 },
            bson::rawdoc! { "v": 2, "b": 1 },
            bson::rawdoc! { "v": 2, "b": 2 },
        ]);
        assert!(model.versioning.is_some());
        let (attrs, notes) = attributes(&model, &CollectionSpec::new("orders"));
        assert!(attrs.is_empty(), "{attrs:?}");
        assert!(notes[0].contains("version(...) declares one"), "{notes:?}");
    }

    #[test]
    fn raw_strings_outlast_their_content() {
        assert_eq!(raw_string("a"), "r#\"a\"#");
        assert_eq!(raw_string("\"#"), "r##\"\"#\"##");
    }
}
