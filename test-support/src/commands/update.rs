//! `update`: replacement documents and `$set` / `$unset` of top-level fields, enough for a
//! background migration's optimistic replace (the filter names the whole document it read) and
//! for an application writing beside it.

use bson::{Bson, Document, doc};

use super::{Context, collection, wrong_type};
use crate::error::{CommandError, code};
use crate::matcher::{self, values_equal};
use crate::state::State;

/// Source: the manual's `update` command page: `updates: [{q, u, multi?, upsert?}]`, `ordered`
/// (default true) stops at the first write error; the reply is `{n, nModified, writeErrors?,
/// ok: 1}` where `n` counts matched documents and `nModified` those that changed. A replacement
/// (`u` without `$` keys) keeps the matched `_id` and may not change it (ImmutableField 66); a
/// replacement with `multi: true` is FailedToParse (9); a result the validator rejects is a
/// write error DocumentValidationFailure (121), except under `validationLevel: "moderate"` when
/// the matched document already failed it ("Specify Validation Level for Existing Documents").
///
/// Not modelled, and refused with BadValue (2) rather than answered wrongly: `upsert`, pipeline
/// updates, operators other than `$set` and `$unset`, dotted paths in them.
pub(crate) fn update(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let statements = match cx.body.get("updates") {
        Some(Bson::Array(items)) => items.clone(),
        Some(other) => return Err(wrong_type("update", "updates", other, "array")),
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'update.updates' is missing but a required field",
            ));
        }
    };
    let ordered = cx.body.get_bool("ordered").unwrap_or(true);
    let bypass = cx.flag("bypassDocumentValidation");
    let (mut matched, mut modified) = (0_i32, 0_i32);
    let mut write_errors = Vec::new();
    for (index, statement) in statements.iter().enumerate() {
        let Bson::Document(statement) = statement else {
            return Err(wrong_type("update", "updates", statement, "object"));
        };
        match run_statement(state, cx.db, &name, statement, bypass)? {
            Ok((n, m)) => {
                matched += n;
                modified += m;
            }
            Err(mut error) => {
                error.insert("index", index as i32);
                write_errors.push(error);
                if ordered {
                    break;
                }
            }
        }
    }
    let mut reply = doc! { "n": matched, "nModified": modified };
    if !write_errors.is_empty() {
        reply.insert("writeErrors", write_errors);
    }
    reply.insert("ok", 1.0);
    Ok(reply)
}

/// One statement: `Ok(Ok((matched, modified)))`, or a write error (without its `index`).
fn run_statement(
    state: &mut State,
    db: &str,
    name: &str,
    statement: &Document,
    bypass: bool,
) -> Result<Result<(i32, i32), Document>, CommandError> {
    let filter = match statement.get("q") {
        Some(Bson::Document(q)) => q.clone(),
        Some(other) => return Err(wrong_type("update.updates", "q", other, "object")),
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'update.updates.q' is missing but a required field",
            ));
        }
    };
    let change = match statement.get("u") {
        Some(Bson::Document(u)) => u.clone(),
        Some(Bson::Array(_)) => {
            return Err(CommandError::new(
                code::BAD_VALUE,
                "the test server does not run pipeline updates",
            ));
        }
        Some(other) => return Err(wrong_type("update.updates", "u", other, "object")),
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'update.updates.u' is missing but a required field",
            ));
        }
    };
    let multi = statement.get_bool("multi").unwrap_or(false);
    if statement.get_bool("upsert").unwrap_or(false) {
        return Err(CommandError::new(
            code::BAD_VALUE,
            "the test server does not run upserts",
        ));
    }
    let replacement = !change.keys().any(|k| k.starts_with('$'));
    if replacement && multi {
        return Err(CommandError::new(
            code::FAILED_TO_PARSE,
            "multi update is not supported for replacement-style update",
        ));
    }
    if !replacement {
        check_operators(&change)?;
    }
    let evaluator = state.evaluator.clone();
    matcher::check(&filter, evaluator.as_deref())?;
    let Some(snapshot) = state.collection(db, name).cloned() else {
        return Ok(Ok((0, 0)));
    };
    let mut targets = Vec::new();
    for (position, document) in snapshot.documents.iter().enumerate() {
        if matcher::matches(&filter, document, evaluator.as_deref())? {
            targets.push(position);
            if !multi {
                break;
            }
        }
    }
    let (mut matched, mut modified) = (0, 0);
    for position in targets {
        let before = &snapshot.documents[position];
        let after = if replacement {
            match replace(before, &change) {
                Ok(after) => after,
                Err(error) => return Ok(Err(error)),
            }
        } else {
            apply_operators(before, &change)
        };
        matched += 1;
        if after == *before {
            continue;
        }
        let moderate_skip = snapshot.options().get_str("validationLevel").ok() == Some("moderate")
            && collection::validate(state, &snapshot, before).is_err();
        if !bypass
            && !moderate_skip
            && let Err(info) = collection::validate(state, &snapshot, &after)
        {
            let mut error = doc! {
                "code": code::DOCUMENT_VALIDATION_FAILURE,
                "errmsg": "Document failed validation",
            };
            if let Some(info) = info {
                error.insert("errInfo", info);
            }
            return Ok(Err(error));
        }
        let stored = state
            .collection_mut(db, name)
            .expect("the collection was just read");
        stored.documents[position] = after;
        modified += 1;
    }
    Ok(Ok((matched, modified)))
}

/// The replacement with the matched `_id` first; a different `_id` is ImmutableField (66).
fn replace(before: &Document, replacement: &Document) -> Result<Document, Document> {
    let id = before.get("_id").cloned().unwrap_or(Bson::Null);
    if let Some(new_id) = replacement.get("_id")
        && !values_equal(new_id, &id)
    {
        return Err(doc! {
            "code": 66,
            "errmsg": format!(
                "After applying the update, the (immutable) field '_id' was found to have been altered to _id: {new_id}"
            ),
        });
    }
    let mut after = doc! { "_id": id };
    for (k, v) in replacement {
        if k != "_id" {
            after.insert(k.clone(), v.clone());
        }
    }
    Ok(after)
}

fn check_operators(change: &Document) -> Result<(), CommandError> {
    for (operator, fields) in change {
        let Bson::Document(fields) = fields else {
            return Err(CommandError::new(
                code::FAILED_TO_PARSE,
                format!("Modifiers operate on fields but we found type {fields} instead"),
            ));
        };
        if !matches!(operator.as_str(), "$set" | "$unset") {
            return Err(CommandError::new(
                code::BAD_VALUE,
                format!("the test server does not run the update operator {operator}"),
            ));
        }
        if let Some(path) = fields.keys().find(|k| k.contains('.')) {
            return Err(CommandError::new(
                code::BAD_VALUE,
                format!("the test server updates top-level fields only, not {path:?}"),
            ));
        }
        if fields.contains_key("_id") {
            return Err(CommandError::new(
                66,
                "Performing an update on the path '_id' would modify the immutable field '_id'",
            ));
        }
    }
    Ok(())
}

/// `$set` replaces or appends a field (a new field goes last, as the server appends it);
/// `$unset` removes one.
fn apply_operators(before: &Document, change: &Document) -> Document {
    let mut after = before.clone();
    for (operator, fields) in change {
        let Bson::Document(fields) = fields else {
            continue;
        };
        for (field, value) in fields {
            if operator == "$set" {
                after.insert(field.clone(), value.clone());
            } else {
                after.remove(field);
            }
        }
    }
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_keeps_the_id_first_and_refuses_another() {
        let before = doc! { "_id": 1, "name": "a" };
        assert_eq!(
            replace(&before, &doc! { "name": "b", "_id": 1 }).unwrap(),
            doc! { "_id": 1, "name": "b" }
        );
        let refused = replace(&before, &doc! { "_id": 2 }).unwrap_err();
        assert_eq!(refused.get_i32("code").ok(), Some(66));
    }

    #[test]
    fn set_appends_new_fields_and_unset_removes() {
        let before = doc! { "_id": 1, "name": "a", "old": true };
        let change = doc! { "$set": { "name": "b", "v": 2 }, "$unset": { "old": "" } };
        assert!(check_operators(&change).is_ok());
        assert_eq!(
            apply_operators(&before, &change),
            doc! { "_id": 1, "name": "b", "v": 2 }
        );
    }

    #[test]
    fn unmodelled_updates_are_refused_rather_than_guessed() {
        for change in [
            doc! { "$inc": { "n": 1 } },
            doc! { "$set": { "a.b": 1 } },
            doc! { "$set": { "_id": 2 } },
        ] {
            assert!(check_operators(&change).is_err(), "{change}");
        }
    }
}
