//! The commands a plan emits, applied to an in-memory model of the live collections.
//!
//! This is how the tests prove that a plan converges (applying it to the live model yields the
//! declared one), and how a caller can preview a plan's effect. It follows the server's rules
//! for the parts a plan touches: `create` on an existing name fails with NamespaceExists (48),
//! `createIndexes` with IndexOptionsConflict (85) or IndexKeySpecsConflict (86), a new index
//! without a collation inherits the collection's, `unique` needs `prepareUnique` first.

use bson::{Bson, Document};

use super::plan::Plan;
use crate::normalize::{self, same_identity};
use crate::spec::IndexSpec;
use crate::spec::{
    Capped, CollectionSpec, Granularity, ValidationAction, ValidationLevel, ValidatorSpec, read,
};

/// A command the model refuses, with the server's error code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{command} failed with code {code}: {message}")]
pub struct ApplyError {
    /// The command name (`create`, `collMod`, ...).
    pub command: String,
    /// The server's error code (48 NamespaceExists, 26 NamespaceNotFound, 27 IndexNotFound,
    /// 85 IndexOptionsConflict, 86 IndexKeySpecsConflict, 2 BadValue, 59 CommandNotFound).
    pub code: i32,
    /// What went wrong.
    pub message: String,
}

fn fail(command: &str, code: i32, message: impl Into<String>) -> ApplyError {
    ApplyError {
        command: command.to_owned(),
        code,
        message: message.into(),
    }
}

/// Applies every step of `plan` in order to `model` (live canonical specs).
///
/// # Errors
/// The position of the failing step and its error; earlier steps stay applied.
pub fn apply_plan(model: &mut Vec<CollectionSpec>, plan: &Plan) -> Result<(), (usize, ApplyError)> {
    for (i, step) in plan.steps.iter().enumerate() {
        apply_command(model, &step.command).map_err(|e| (i, e))?;
    }
    Ok(())
}

/// Applies one command (`create`, `collMod`, `createIndexes`, `dropIndexes`) to `model`.
///
/// ```
/// use mongo_schema::diff::apply_command;
/// let mut model = Vec::new();
/// apply_command(&mut model, &bson::doc! { "create": "orders" })?;
/// apply_command(&mut model, &bson::doc! {
///     "createIndexes": "orders", "indexes": [{ "key": { "a": 1 }, "name": "a_1" }],
/// })?;
/// assert_eq!(model[0].indexes[0].name.as_deref(), Some("a_1"));
/// let again = apply_command(&mut model, &bson::doc! { "create": "orders" }).unwrap_err();
/// assert_eq!(again.code, 48);
/// # Ok::<(), mongo_schema::diff::ApplyError>(())
/// ```
///
/// # Errors
/// [`ApplyError`] with the code the server would return.
pub fn apply_command(
    model: &mut Vec<CollectionSpec>,
    command: &Document,
) -> Result<(), ApplyError> {
    let Some((name, target)) = command.iter().next() else {
        return Err(fail("", 59, "empty command"));
    };
    let Bson::String(collection) = target else {
        return Err(fail(name, 2, "the collection name must be a string"));
    };
    let position = model.iter().position(|c| c.name == *collection);
    match name.as_str() {
        "create" => {
            if position.is_some() {
                return Err(fail(
                    name,
                    48,
                    format!("Collection {collection} already exists."),
                ));
            }
            let mut options = command.clone();
            options.remove("create");
            let spec = CollectionSpec::from_options_document(collection.clone(), &options)
                .map_err(|e| fail(name, 2, e.to_string()))?;
            model.push(normalize::live(&spec));
            model.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(())
        }
        "collMod" => {
            let i = position.ok_or_else(|| fail(name, 26, "ns does not exist"))?;
            let mut spec = model[i].clone();
            coll_mod(&mut spec, command)?;
            model[i] = normalize::live(&spec);
            Ok(())
        }
        "createIndexes" => {
            let i = position.ok_or_else(|| fail(name, 26, "ns does not exist"))?;
            let mut spec = model[i].clone();
            let list = command
                .get_array("indexes")
                .map_err(|_| fail(name, 2, "indexes must be an array"))?;
            for entry in list {
                let entry = entry
                    .as_document()
                    .ok_or_else(|| fail(name, 2, "each index must be a document"))?;
                create_index(&mut spec, entry)?;
            }
            model[i] = normalize::live(&spec);
            Ok(())
        }
        "dropIndexes" => {
            let i = position.ok_or_else(|| fail(name, 26, "ns does not exist"))?;
            let index = command
                .get_str("index")
                .map_err(|_| fail(name, 2, "index must be a name"))?;
            let spec = &mut model[i];
            if index == "*" {
                spec.indexes.clear();
                return Ok(());
            }
            let before = spec.indexes.len();
            spec.indexes.retain(|x| x.name.as_deref() != Some(index));
            if spec.indexes.len() == before {
                return Err(fail(
                    name,
                    27,
                    format!("index not found with name [{index}]"),
                ));
            }
            Ok(())
        }
        "createSearchIndexes" | "updateSearchIndex" | "dropSearchIndex" => {
            let i = position.ok_or_else(|| fail(name, 26, "ns does not exist"))?;
            super::search::apply(&mut model[i], command)
                .map_err(|(code, message)| fail(name, code, message))
        }
        other => Err(fail(other, 59, "no such command in the model")),
    }
}

fn coll_mod(spec: &mut CollectionSpec, command: &Document) -> Result<(), ApplyError> {
    let cmd = "collMod";
    for (key, value) in command.iter().skip(1) {
        match key.as_str() {
            "validator" => {
                let v = read::document(key, value).map_err(|e| fail(cmd, 2, e.to_string()))?;
                spec.validator = (!v.is_empty()).then(|| ValidatorSpec::from_document(v));
            }
            "validationLevel" => {
                spec.validation_level = Some(ValidationLevel::from_name(
                    value
                        .as_str()
                        .ok_or_else(|| fail(cmd, 2, "validationLevel"))?,
                ));
            }
            "validationAction" => {
                spec.validation_action = Some(ValidationAction::from_name(
                    value
                        .as_str()
                        .ok_or_else(|| fail(cmd, 2, "validationAction"))?,
                ));
            }
            "expireAfterSeconds" => {
                spec.options.expire_after_seconds = match value {
                    Bson::String(s) if s == "off" => None,
                    v => Some(
                        read::ttl_seconds(v).ok_or_else(|| fail(cmd, 2, "expireAfterSeconds"))?,
                    ),
                };
            }
            "timeseries" => {
                let ts = spec
                    .options
                    .timeseries
                    .as_mut()
                    .ok_or_else(|| fail(cmd, 72, "not a time-series collection"))?;
                let change = read::document(key, value).map_err(|e| fail(cmd, 2, e.to_string()))?;
                if let Ok(g) = change.get_str("granularity") {
                    let g = Granularity::from_name(g);
                    ts.bucket_max_span_seconds = g.default_bucket_max_span_seconds();
                    ts.bucket_rounding_seconds = None;
                    ts.granularity = Some(g);
                }
                if let Some(v) = change.get("bucketMaxSpanSeconds") {
                    ts.bucket_max_span_seconds = read::whole_seconds(v);
                    ts.granularity = None;
                }
                if let Some(v) = change.get("bucketRoundingSeconds") {
                    ts.bucket_rounding_seconds = read::whole_seconds(v);
                }
            }
            "cappedSize" | "cappedMax" => {
                let capped: &mut Capped = spec
                    .options
                    .capped
                    .as_mut()
                    .ok_or_else(|| fail(cmd, 72, "not a capped collection"))?;
                let n = read::whole_seconds(value).ok_or_else(|| fail(cmd, 2, key.clone()))?;
                if key == "cappedSize" {
                    capped.size = n;
                } else {
                    capped.max = (n > 0).then_some(n);
                }
            }
            "changeStreamPreAndPostImages" => {
                let d = read::document(key, value).map_err(|e| fail(cmd, 2, e.to_string()))?;
                spec.options.change_stream_pre_and_post_images =
                    Some(d.get_bool("enabled").unwrap_or(false));
            }
            "index" => {
                let change = read::document(key, value).map_err(|e| fail(cmd, 2, e.to_string()))?;
                index_mod(spec, change)?;
            }
            "viewOn" | "pipeline" => {
                coll_mod_view(spec, key, value).map_err(|e| fail(cmd, 2, e))?;
            }
            other => return Err(fail(cmd, 2, format!("unknown collMod option {other}"))),
        }
    }
    Ok(())
}

fn index_mod(spec: &mut CollectionSpec, change: &Document) -> Result<(), ApplyError> {
    let cmd = "collMod";
    let index = match (change.get_str("name"), change.get_document("keyPattern")) {
        (Ok(name), _) => spec
            .indexes
            .iter_mut()
            .find(|i| i.name.as_deref() == Some(name)),
        (_, Ok(keys)) => {
            let keys = crate::spec::IndexKeys::from_document(keys);
            spec.indexes.iter_mut().find(|i| i.keys == keys)
        }
        _ => return Err(fail(cmd, 2, "index needs a name or a keyPattern")),
    }
    .ok_or_else(|| fail(cmd, 27, "cannot find index"))?;
    for (key, value) in change {
        match key.as_str() {
            "name" | "keyPattern" => {}
            "expireAfterSeconds" => {
                index.expire_after_seconds = Some(
                    read::ttl_seconds(value).ok_or_else(|| fail(cmd, 2, "expireAfterSeconds"))?,
                );
            }
            "hidden" => index.hidden = value.as_bool().unwrap_or(false),
            "prepareUnique" => index.prepare_unique = value.as_bool().unwrap_or(false),
            "unique" => {
                if !index.prepare_unique {
                    return Err(fail(
                        cmd,
                        2,
                        "Cannot make index unique with 'prepareUnique: false'",
                    ));
                }
                index.unique = value.as_bool().unwrap_or(false);
                index.prepare_unique = false;
            }
            other => return Err(fail(cmd, 2, format!("unknown index option {other}"))),
        }
    }
    Ok(())
}

fn create_index(spec: &mut CollectionSpec, entry: &Document) -> Result<(), ApplyError> {
    let cmd = "createIndexes";
    let mut index = IndexSpec::from_document(entry).map_err(|e| fail(cmd, 2, e.to_string()))?;
    if index.name.is_none() {
        return Err(fail(cmd, 2, "index must have a name"));
    }
    // The server writes the collection's collation into an index created without one.
    if index.collation.is_none() {
        index.collation = spec.options.collation.clone();
    }
    // Bring it to the listed (canonical) form to compare it with the others.
    let mut probe = spec.clone();
    probe.indexes = vec![index];
    let probe = normalize::live(&probe);
    let Some(index) = probe.indexes.into_iter().next() else {
        // A server-owned index (`_id_`, the time-series default): it exists already.
        return Ok(());
    };
    for existing in &spec.indexes {
        let same_name = existing.name == index.name;
        if same_identity(existing, &index, false) {
            if same_name && existing.expire_after_seconds == index.expire_after_seconds {
                if *existing == index {
                    return Ok(());
                }
                return Err(fail(cmd, 85, "Index already exists with different options"));
            }
            return Err(fail(
                cmd,
                85,
                format!(
                    "Index already exists with a different name: {}",
                    existing.effective_name()
                ),
            ));
        }
        if same_name {
            return Err(fail(
                cmd,
                86,
                format!(
                    "An existing index has the same name as the requested index: {}",
                    index.effective_name()
                ),
            ));
        }
        if existing.keys.is_text() && index.keys.is_text() {
            return Err(fail(cmd, 85, "only one text index per collection allowed"));
        }
    }
    spec.indexes.push(index);
    Ok(())
}

/// `collMod`'s `viewOn` or `pipeline` applied to a spec of the model (`diff::apply_command`).
///
/// # Errors
/// The server's reason: the collection is not a view, or the value has the wrong type.
pub(crate) fn coll_mod_view(
    spec: &mut CollectionSpec,
    key: &str,
    value: &Bson,
) -> Result<(), String> {
    let Some(view) = spec.options.view.as_mut() else {
        return Err(format!("{key} is only supported on views"));
    };
    match (key, value) {
        ("viewOn", Bson::String(on)) => view.view_on = on.clone(),
        ("pipeline", value) => {
            view.pipeline = crate::spec::View::read_pipeline(value).map_err(|e| e.to_string())?
        }
        _ => return Err(format!("{key} must be a string")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn model_with(indexes: Vec<Document>) -> Vec<CollectionSpec> {
        let mut model = Vec::new();
        apply_command(
            &mut model,
            &doc! { "create": "c", "collation": { "locale": "fr" } },
        )
        .unwrap();
        if !indexes.is_empty() {
            let list: Vec<Bson> = indexes.into_iter().map(Bson::Document).collect();
            apply_command(&mut model, &doc! { "createIndexes": "c", "indexes": list }).unwrap();
        }
        model
    }

    // SERVER-FACTS: "create on an existing namespace with other options fails with
    // NamespaceExists (48)".
    #[test]
    fn create_on_an_existing_namespace_fails_with_48() {
        let mut model = model_with(vec![]);
        let err = apply_command(&mut model, &doc! { "create": "c" }).unwrap_err();
        assert_eq!(err.code, 48);
    }

    // SERVER-FACTS: "same keys with a different TTL fail create with IndexOptionsConflict (85);
    // same name with different keys fails with IndexKeySpecsConflict (86)".
    #[test]
    fn index_conflicts_carry_the_server_codes() {
        let mut model = model_with(vec![
            doc! { "key": { "a": 1 }, "name": "a_1", "expireAfterSeconds": 60 },
        ]);
        let ttl = doc! { "createIndexes": "c", "indexes": [{ "key": { "a": 1 }, "name": "a_1", "expireAfterSeconds": 90 }] };
        assert_eq!(apply_command(&mut model, &ttl).unwrap_err().code, 85);
        let renamed = doc! { "createIndexes": "c", "indexes": [{ "key": { "a": 1 }, "name": "other", "expireAfterSeconds": 60 }] };
        assert_eq!(apply_command(&mut model, &renamed).unwrap_err().code, 85);
        let rekeyed =
            doc! { "createIndexes": "c", "indexes": [{ "key": { "b": 1 }, "name": "a_1" }] };
        assert_eq!(apply_command(&mut model, &rekeyed).unwrap_err().code, 86);
        let same = doc! { "createIndexes": "c", "indexes": [{ "key": { "a": 1.0 }, "name": "a_1", "expireAfterSeconds": 60 }] };
        assert!(
            apply_command(&mut model, &same).is_ok(),
            "an identical index is a no-op"
        );
    }

    #[test]
    fn a_collection_holds_one_text_index() {
        let mut model = model_with(vec![doc! { "key": { "t": "text" }, "name": "t_text" }]);
        let second = doc! { "createIndexes": "c", "indexes": [{ "key": { "u": "text" }, "name": "u_text" }] };
        assert_eq!(apply_command(&mut model, &second).unwrap_err().code, 85);
    }

    #[test]
    fn a_new_index_inherits_the_collection_collation() {
        let model = model_with(vec![doc! { "key": { "a": 1 }, "name": "a_1" }]);
        let collation = model[0].indexes[0].collation.as_ref().unwrap();
        assert_eq!(collation.locale, "fr");
    }

    // SERVER-FACTS "What can change in place": prepareUnique then unique (6.0+).
    #[test]
    fn unique_needs_prepare_unique_first() {
        let mut model = model_with(vec![doc! { "key": { "a": 1 }, "name": "a_1" }]);
        let unique = doc! { "collMod": "c", "index": { "name": "a_1", "unique": true } };
        assert!(apply_command(&mut model, &unique).is_err());
        let prepare = doc! { "collMod": "c", "index": { "name": "a_1", "prepareUnique": true } };
        apply_command(&mut model, &prepare).unwrap();
        apply_command(&mut model, &unique).unwrap();
        assert!(model[0].indexes[0].unique);
    }

    #[test]
    fn dropping_an_unknown_index_fails_with_27() {
        let mut model = model_with(vec![]);
        let err =
            apply_command(&mut model, &doc! { "dropIndexes": "c", "index": "nope" }).unwrap_err();
        assert_eq!(err.code, 27);
    }
}
