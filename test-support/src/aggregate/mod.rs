//! Aggregation stages beyond the filters `crud.rs` runs itself: `$group` with expressions,
//! `$unwind`, `$set`/`$addFields`, `$replaceWith`/`$replaceRoot`, over the expressions of
//! [`expr`] and the order of [`order`]. `infer --server-side` computes its census with them.

mod expr;
mod group;
pub(crate) mod order;

use bson::{Bson, Document};

use crate::error::{CommandError, code};

/// Runs `op` when it is one of this module's stages; `None` for the caller's own stages.
///
/// # Errors
/// A malformed stage or an expression's error, with the server's code.
pub(crate) fn stage(
    op: &str,
    arg: &Bson,
    docs: &[Document],
) -> Option<Result<Vec<Document>, CommandError>> {
    Some(match op {
        "$group" => match arg {
            Bson::Document(spec) => group::group(docs, spec),
            _ => Err(CommandError::new(
                15947,
                "a group's fields must be specified in an object",
            )),
        },
        "$unwind" => unwind(docs, arg),
        "$set" | "$addFields" => set(docs, arg, op),
        "$replaceWith" | "$replaceRoot" => replace(docs, arg, op),
        _ => return None,
    })
}

/// `$set`/`$addFields`: each field's expression evaluated against the incoming document and
/// set at the top level (a dotted name is not supported here).
fn set(docs: &[Document], arg: &Bson, op: &str) -> Result<Vec<Document>, CommandError> {
    let Bson::Document(spec) = arg else {
        return Err(CommandError::new(
            40272,
            format!("{op} specification stage must be an object, got {arg}"),
        ));
    };
    if let Some(dotted) = spec.keys().find(|k| k.contains('.')) {
        return Err(CommandError::new(
            code::BAD_VALUE,
            format!("the test server sets top-level fields only, not {dotted:?}"),
        ));
    }
    docs.iter()
        .map(|doc| {
            let mut out = doc.clone();
            for (field, expression) in spec {
                match expr::eval(expression, &mut expr::Scope::new(doc))? {
                    Some(value) => {
                        out.insert(field.clone(), value);
                    }
                    // Source: the manual's $addFields: a missing result removes the field.
                    None => {
                        out.remove(field);
                    }
                }
            }
            Ok(out)
        })
        .collect()
}

/// `$replaceWith: expr` and `$replaceRoot: {newRoot: expr}`: the result must be a document
/// (40228).
fn replace(docs: &[Document], arg: &Bson, op: &str) -> Result<Vec<Document>, CommandError> {
    let expression = if op == "$replaceRoot" {
        match arg {
            Bson::Document(spec) if spec.contains_key("newRoot") => &spec["newRoot"],
            _ => {
                return Err(CommandError::new(
                    40231,
                    "no newRoot specified for the $replaceRoot stage",
                ));
            }
        }
    } else {
        arg
    };
    docs.iter()
        .map(
            |doc| match expr::eval(expression, &mut expr::Scope::new(doc))? {
                Some(Bson::Document(out)) => Ok(out),
                other => Err(CommandError::new(
                    40228,
                    format!(
                        "'replacement document' must evaluate to an object, but resulting value \
                     was: {}",
                        other.map_or("MISSING".to_owned(), |v| v.to_string())
                    ),
                )),
            },
        )
        .collect()
}

/// `$unwind: "$path"` or `{path, includeArrayIndex, preserveNullAndEmptyArrays}`, as the
/// manual's stage page: one document per element; a non-array value passes as if a one-element
/// array (index null); null, missing and empty arrays are dropped unless preserved.
fn unwind(docs: &[Document], arg: &Bson) -> Result<Vec<Document>, CommandError> {
    let (path, index, preserve) = match arg {
        Bson::String(path) => (path.as_str(), None, false),
        Bson::Document(spec) => {
            let Some(Bson::String(path)) = spec.get("path") else {
                return Err(CommandError::new(
                    28812,
                    "no path specified to $unwind stage",
                ));
            };
            let index = match spec.get("includeArrayIndex") {
                None => None,
                Some(Bson::String(name)) if !name.is_empty() && !name.starts_with('$') => {
                    Some(name.as_str())
                }
                Some(_) => {
                    return Err(CommandError::new(
                        28822,
                        "includeArrayIndex option to $unwind stage must be a non-empty string \
                         not starting with '$'",
                    ));
                }
            };
            let preserve = matches!(
                spec.get("preserveNullAndEmptyArrays"),
                Some(Bson::Boolean(true))
            );
            (path.as_str(), index, preserve)
        }
        _ => {
            return Err(CommandError::new(
                15981,
                "expected either a string or an object as specification for $unwind stage",
            ));
        }
    };
    let Some(field) = path
        .strip_prefix('$')
        .filter(|f| !f.contains('.') && !f.is_empty())
    else {
        return Err(CommandError::new(
            28818,
            format!(
                "path option to $unwind stage should be prefixed with a '$' and name a top-level field here: {path}"
            ),
        ));
    };
    let mut out = Vec::new();
    for doc in docs {
        let with = |value: Option<Bson>, at: Bson| {
            let mut d = doc.clone();
            match value {
                Some(v) => {
                    d.insert(field, v);
                }
                None => {
                    d.remove(field);
                }
            }
            if let Some(name) = index {
                d.insert(name, at);
            }
            d
        };
        match doc.get(field) {
            Some(Bson::Array(items)) if !items.is_empty() => {
                for (i, item) in items.iter().enumerate() {
                    out.push(with(Some(item.clone()), Bson::Int64(i as i64)));
                }
            }
            Some(Bson::Array(_)) | None | Some(Bson::Null) => {
                if preserve {
                    // Null stays null; an empty array leaves the field out.
                    let kept = doc.get(field).filter(|v| !matches!(v, Bson::Array(_)));
                    out.push(with(kept.cloned(), Bson::Null));
                }
            }
            Some(other) => out.push(with(Some(other.clone()), Bson::Null)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn run(op: &str, arg: Bson, docs: &[Document]) -> Result<Vec<Document>, CommandError> {
        stage(op, &arg, docs).expect("a stage of this module")
    }

    #[test]
    fn unwind_numbers_elements_and_drops_empty_arrays() {
        let docs = [
            doc! {"a": [1, 2]},
            doc! {"a": []},
            doc! {"a": 5},
            doc! {"b": 1},
        ];
        let out = run(
            "$unwind",
            bson::bson!({"path": "$a", "includeArrayIndex": "i"}),
            &docs,
        )
        .unwrap();
        assert_eq!(
            out,
            vec![
                doc! {"a": 1, "i": 0_i64},
                doc! {"a": 2, "i": 1_i64},
                doc! {"a": 5, "i": null},
            ]
        );
        let kept = run(
            "$unwind",
            bson::bson!({"path": "$a", "preserveNullAndEmptyArrays": true}),
            &docs,
        )
        .unwrap();
        assert_eq!(kept.len(), 5);
        assert_eq!(
            run("$unwind", Bson::String("a".into()), &docs)
                .unwrap_err()
                .code,
            28818
        );
    }

    #[test]
    fn set_and_replace_with_evaluate_expressions() {
        let docs = [doc! {"_id": 1, "d": {"x": 1}}];
        let out = run(
            "$set",
            bson::bson!({"kv": {"$objectToArray": "$d"}, "d": "$$REMOVE_NOT_A_VAR_IS_AN_ERROR"}),
            &docs,
        );
        assert_eq!(out.unwrap_err().code, 17276);
        let out = run("$set", bson::bson!({"kv": {"$objectToArray": "$d"}}), &docs).unwrap();
        assert_eq!(out[0].get_array("kv").unwrap().len(), 1);
        let out = run(
            "$replaceWith",
            bson::bson!({"id": "$_id", "v": "$d.x"}),
            &docs,
        )
        .unwrap();
        assert_eq!(out, vec![doc! {"id": 1, "v": 1}]);
        assert_eq!(
            run("$replaceWith", Bson::String("$d.x".into()), &docs)
                .unwrap_err()
                .code,
            40228
        );
        assert!(stage("$match", &Bson::Null, &docs).is_none());
    }
}
