//! Aggregation expressions, as the manual's "Expressions" and operator pages define them: field
//! paths (`"$a.b"`), variables (`"$$ROOT"`, `"$$CURRENT"`, `$map`'s `"$$this"`), literals, object
//! and array expressions, and the operators listed in [`operator`]. A missing value is `None`,
//! apart from null, as the server keeps it apart.

use std::cmp::Ordering;

use bson::{Bson, Document, doc};

use super::order::compare;
use crate::error::CommandError;

/// InvalidPipelineOperator (168), the server's code for an unknown expression operator.
const INVALID_PIPELINE_OPERATOR: i32 = 168;

/// What an expression can name: the document the stage is at, and `$map`/`$let` variables.
pub(crate) struct Scope<'a> {
    root: &'a Document,
    vars: Vec<(String, Bson)>,
}

impl<'a> Scope<'a> {
    /// The scope of a stage at `root`.
    pub(crate) fn new(root: &'a Document) -> Scope<'a> {
        Scope {
            root,
            vars: Vec::new(),
        }
    }
}

fn failed(code: i32, message: impl Into<String>) -> CommandError {
    CommandError::new(code, message)
}

/// The value at `path` below `value`: through documents by name; through an array, the values
/// of its elements, as an array (the manual's "Field Paths").
fn descend(value: &Bson, path: &[&str]) -> Option<Bson> {
    let Some((first, rest)) = path.split_first() else {
        return Some(value.clone());
    };
    match value {
        Bson::Document(d) => descend(d.get(*first)?, rest),
        Bson::Array(items) => Some(Bson::Array(
            items
                .iter()
                .filter(|item| matches!(item, Bson::Document(_) | Bson::Array(_)))
                .filter_map(|item| descend(item, path))
                .collect(),
        )),
        _ => None,
    }
}

/// Evaluates `expression` in `scope`; `Ok(None)` is a missing value.
///
/// # Errors
/// An unknown operator (31325 "Unrecognized expression"), or an operator given a value of the
/// wrong type, with the server's code and message.
pub(crate) fn eval(expression: &Bson, scope: &mut Scope<'_>) -> Result<Option<Bson>, CommandError> {
    match expression {
        Bson::String(s) if s.starts_with("$$") => {
            let mut parts = s[2..].split('.');
            let name = parts.next().unwrap_or_default();
            let rest: Vec<&str> = parts.collect();
            let base = match name {
                "ROOT" | "CURRENT" => Bson::Document(scope.root.clone()),
                _ => match scope.vars.iter().rev().find(|(n, _)| n == name) {
                    Some((_, v)) => v.clone(),
                    None => {
                        return Err(failed(17276, format!("Use of undefined variable: {name}")));
                    }
                },
            };
            Ok(descend(&base, &rest))
        }
        Bson::String(s) if s.starts_with('$') => {
            let path: Vec<&str> = s[1..].split('.').collect();
            let (first, rest) = path.split_first().expect("split yields one part at least");
            Ok(scope.root.get(*first).and_then(|v| descend(v, rest)))
        }
        Bson::Document(d) => match d.iter().next() {
            Some((op, arg)) if op.starts_with('$') => {
                if d.len() > 1 {
                    return Err(failed(
                        15983,
                        format!(
                            "an expression specification must contain exactly one field, the \
                             name of the expression. Found {} fields",
                            d.len()
                        ),
                    ));
                }
                operator(op, arg, scope)
            }
            _ => {
                let mut out = Document::new();
                for (k, v) in d {
                    if let Some(value) = eval(v, scope)? {
                        out.insert(k.clone(), value);
                    }
                }
                Ok(Some(Bson::Document(out)))
            }
        },
        Bson::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(eval(item, scope)?.unwrap_or(Bson::Null));
            }
            Ok(Some(Bson::Array(out)))
        }
        other => Ok(Some(other.clone())),
    }
}

/// The operands of an operator: an array's elements, or one operand not in an array.
fn operands(arg: &Bson, scope: &mut Scope<'_>) -> Result<Vec<Option<Bson>>, CommandError> {
    match arg {
        Bson::Array(items) => items.iter().map(|item| eval(item, scope)).collect(),
        other => Ok(vec![eval(other, scope)?]),
    }
}

fn exactly<const N: usize>(
    op: &str,
    arg: &Bson,
    scope: &mut Scope<'_>,
) -> Result<[Option<Bson>; N], CommandError> {
    let values = operands(arg, scope)?;
    let found = values.len();
    values.try_into().map_err(|_| {
        failed(
            16020,
            format!("Expression {op} takes exactly {N} arguments. {found} were passed in."),
        )
    })
}

/// Truthiness as `$cond` and `$and` read it: false, null, undefined, missing and zero are false.
fn truthy(value: &Option<Bson>) -> bool {
    match value {
        None | Some(Bson::Null | Bson::Undefined | Bson::Boolean(false)) => false,
        Some(Bson::Int32(n)) => *n != 0,
        Some(Bson::Int64(n)) => *n != 0,
        Some(Bson::Double(d)) => *d != 0.0,
        Some(_) => true,
    }
}

/// Orders two operands, a missing value below every other (the manual's `$cmp`).
fn order(a: &Option<Bson>, b: &Option<Bson>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => compare(x, y),
    }
}

fn length(n: usize) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n as i64), Bson::Int32)
}

fn field<'d>(spec: &'d Document, name: &str) -> Option<&'d Bson> {
    spec.get(name)
}

/// One operator applied to its argument.
fn operator(op: &str, arg: &Bson, scope: &mut Scope<'_>) -> Result<Option<Bson>, CommandError> {
    let value = match op {
        "$literal" => arg.clone(),
        // Source: the manual's $type (aggregation): "missing" for a missing field.
        "$type" => {
            let [v] = exactly::<1>(op, arg, scope)?;
            Bson::String(
                v.as_ref()
                    .map_or("missing", crate::matcher::type_alias)
                    .into(),
            )
        }
        "$isArray" => {
            let [v] = exactly::<1>(op, arg, scope)?;
            Bson::Boolean(matches!(v, Some(Bson::Array(_))))
        }
        // Source: the manual's $objectToArray: `[{k, v}]` in field order; null for null or missing.
        "$objectToArray" => {
            let [v] = exactly::<1>(op, arg, scope)?;
            match v {
                None | Some(Bson::Null | Bson::Undefined) => Bson::Null,
                Some(Bson::Document(d)) => Bson::Array(
                    d.into_iter()
                        .map(|(k, v)| Bson::Document(doc! {"k": k, "v": v}))
                        .collect(),
                ),
                Some(other) => {
                    return Err(failed(
                        40390,
                        format!(
                            "$objectToArray requires a document input, found: {}",
                            crate::matcher::type_alias(&other)
                        ),
                    ));
                }
            }
        }
        // Source: the manual's $map: {input, as (default "this"), in}; null input gives null.
        "$map" => {
            let Bson::Document(spec) = arg else {
                return Err(failed(
                    16878,
                    "$map only supports an object as its argument",
                ));
            };
            let as_name = match field(spec, "as") {
                Some(Bson::String(s)) => s.clone(),
                None => "this".to_owned(),
                Some(_) => return Err(failed(16866, "$map 'as' must be a string")),
            };
            let Some(body) = field(spec, "in") else {
                return Err(failed(16882, "Missing 'in' parameter to $map"));
            };
            let input = match field(spec, "input") {
                Some(input) => eval(input, scope)?,
                None => return Err(failed(16880, "Missing 'input' parameter to $map")),
            };
            match input {
                None | Some(Bson::Null | Bson::Undefined) => Bson::Null,
                Some(Bson::Array(items)) => {
                    let mut out = Vec::with_capacity(items.len());
                    for item in items {
                        scope.vars.push((as_name.clone(), item));
                        let result = eval(body, scope);
                        scope.vars.pop();
                        out.push(result?.unwrap_or(Bson::Null));
                    }
                    Bson::Array(out)
                }
                Some(other) => {
                    return Err(failed(
                        16883,
                        format!(
                            "input to $map must be an array not {}",
                            crate::matcher::type_alias(&other)
                        ),
                    ));
                }
            }
        }
        // Source: the manual's $concatArrays: null if any argument is null or missing.
        "$concatArrays" => {
            let mut out = Vec::new();
            for v in operands(arg, scope)? {
                match v {
                    None | Some(Bson::Null | Bson::Undefined) => return Ok(Some(Bson::Null)),
                    Some(Bson::Array(items)) => out.extend(items),
                    Some(other) => {
                        return Err(failed(
                            28664,
                            format!(
                                "$concatArrays only supports arrays, not {}",
                                crate::matcher::type_alias(&other)
                            ),
                        ));
                    }
                }
            }
            Bson::Array(out)
        }
        "$cond" => {
            let (test, then, otherwise) = match arg {
                Bson::Array(items) if items.len() == 3 => (&items[0], &items[1], &items[2]),
                Bson::Document(spec) => {
                    match (spec.get("if"), spec.get("then"), spec.get("else")) {
                        (Some(a), Some(b), Some(c)) => (a, b, c),
                        _ => return Err(failed(17080, "Missing 'if', 'then' or 'else' to $cond")),
                    }
                }
                _ => return Err(failed(16020, "Expression $cond takes exactly 3 arguments.")),
            };
            let chosen = if truthy(&eval(test, scope)?) {
                then
            } else {
                otherwise
            };
            return eval(chosen, scope);
        }
        // Source: the manual's $switch: the first true case; `default`, or error 40066.
        "$switch" => {
            let Bson::Document(spec) = arg else {
                return Err(failed(40060, "$switch requires an object as an argument"));
            };
            let Some(Bson::Array(branches)) = spec.get("branches") else {
                return Err(failed(40061, "$switch requires at least one branch."));
            };
            for branch in branches {
                let Bson::Document(branch) = branch else {
                    return Err(failed(40062, "$switch expected an object in 'branches'"));
                };
                let (Some(case), Some(then)) = (branch.get("case"), branch.get("then")) else {
                    return Err(failed(
                        40064,
                        "$switch requires each branch have 'case' and 'then'",
                    ));
                };
                if truthy(&eval(case, scope)?) {
                    return eval(then, scope);
                }
            }
            match spec.get("default") {
                Some(default) => return eval(default, scope),
                None => {
                    return Err(failed(
                        40066,
                        "$switch could not find a matching branch for an input, and no default \
                         was specified.",
                    ));
                }
            }
        }
        "$eq" | "$ne" | "$gt" | "$gte" | "$lt" | "$lte" => {
            let [a, b] = exactly::<2>(op, arg, scope)?;
            let o = order(&a, &b);
            Bson::Boolean(match op {
                "$eq" => o == Ordering::Equal,
                "$ne" => o != Ordering::Equal,
                "$gt" => o == Ordering::Greater,
                "$gte" => o != Ordering::Less,
                "$lt" => o == Ordering::Less,
                _ => o != Ordering::Greater,
            })
        }
        // Source: the manual's $in (aggregation): the second operand must be an array (40081).
        "$in" => {
            let [needle, haystack] = exactly::<2>(op, arg, scope)?;
            let Some(Bson::Array(items)) = haystack else {
                return Err(failed(40081, "$in requires an array as a second argument"));
            };
            Bson::Boolean(
                items
                    .iter()
                    .any(|item| order(&needle, &Some(item.clone())) == Ordering::Equal),
            )
        }
        "$and" => Bson::Boolean(operands(arg, scope)?.iter().all(truthy)),
        "$or" => Bson::Boolean(operands(arg, scope)?.iter().any(truthy)),
        "$not" => {
            let [v] = exactly::<1>(op, arg, scope)?;
            Bson::Boolean(!truthy(&v))
        }
        // Source: the manual's $size: an array's length; anything else fails (17124).
        "$size" => {
            let [v] = exactly::<1>(op, arg, scope)?;
            match v {
                Some(Bson::Array(items)) => length(items.len()),
                other => {
                    return Err(failed(
                        17124,
                        format!(
                            "The argument to $size must be an array. Type of argument: {}",
                            other.as_ref().map_or("missing", crate::matcher::type_alias)
                        ),
                    ));
                }
            }
        }
        // Source: the manual's $strLenCP and $strLenBytes: strings only (34471, 34473).
        "$strLenCP" | "$strLenBytes" => {
            let [v] = exactly::<1>(op, arg, scope)?;
            match v {
                Some(Bson::String(s)) if op == "$strLenCP" => length(s.chars().count()),
                Some(Bson::String(s)) => length(s.len()),
                other => {
                    let code = if op == "$strLenCP" { 34471 } else { 34473 };
                    return Err(failed(
                        code,
                        format!(
                            "{op} requires a string argument, found: {}",
                            other.as_ref().map_or("missing", crate::matcher::type_alias)
                        ),
                    ));
                }
            }
        }
        // Source: the manual's $binarySize: bytes of a string or binData; null for null/missing.
        "$binarySize" => {
            let [v] = exactly::<1>(op, arg, scope)?;
            match v {
                None | Some(Bson::Null | Bson::Undefined) => Bson::Null,
                Some(Bson::Binary(b)) => length(b.bytes.len()),
                Some(Bson::String(s)) => length(s.len()),
                Some(other) => {
                    return Err(failed(
                        51276,
                        format!(
                            "$binarySize requires a string or BinData argument, found: {}",
                            crate::matcher::type_alias(&other)
                        ),
                    ));
                }
            }
        }
        // Source: the manual's $bsonSize: a document's size in bytes; null for null/missing.
        "$bsonSize" => {
            let [v] = exactly::<1>(op, arg, scope)?;
            match v {
                None | Some(Bson::Null | Bson::Undefined) => Bson::Null,
                Some(Bson::Document(d)) => {
                    length(bson::serialize_to_vec(&d).map_or(0, |bytes| bytes.len()))
                }
                Some(other) => {
                    return Err(failed(
                        31393,
                        format!(
                            "$bsonSize requires a document input, found: {}",
                            crate::matcher::type_alias(&other)
                        ),
                    ));
                }
            }
        }
        other => {
            return Err(failed(
                INVALID_PIPELINE_OPERATOR,
                format!("Unrecognized expression '{other}'"),
            ));
        }
    };
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(expression: Bson, root: &Document) -> Result<Option<Bson>, CommandError> {
        eval(&expression, &mut Scope::new(root))
    }

    #[test]
    fn field_paths_reach_through_arrays_and_missing_is_not_null() {
        let root = doc! {"a": [{"b": 1}, {"c": 2}, {"b": 3}], "n": null};
        assert_eq!(
            run(Bson::String("$a.b".into()), &root).unwrap(),
            Some(Bson::Array(vec![Bson::Int32(1), Bson::Int32(3)]))
        );
        assert_eq!(run(Bson::String("$zz".into()), &root).unwrap(), None);
        assert_eq!(
            run(Bson::String("$n".into()), &root).unwrap(),
            Some(Bson::Null)
        );
        let t = run(bson::bson!({"$type": "$zz"}), &root).unwrap();
        assert_eq!(t, Some(Bson::String("missing".into())));
    }

    #[test]
    fn object_to_array_and_map_with_this() {
        let root = doc! {"d": {"x": 1, "y": "s"}};
        let out = run(
            bson::bson!({"$map": {"input": {"$objectToArray": "$d"}, "in": "$$this.k"}}),
            &root,
        )
        .unwrap();
        assert_eq!(out, Some(bson::bson!(["x", "y"])));
        let err = run(bson::bson!({"$objectToArray": 5}), &root).unwrap_err();
        assert_eq!(err.code, 40390);
    }

    #[test]
    fn cond_switch_and_comparisons() {
        let root = doc! {"s": "héllo", "xs": [1, 2, 3]};
        let out = run(
            bson::bson!({"$switch": {"branches": [
                {"case": {"$isArray": "$s"}, "then": "array"},
                {"case": {"$eq": [{"$type": "$s"}, "string"]}, "then": {"$strLenCP": "$s"}},
            ], "default": null}}),
            &root,
        )
        .unwrap();
        assert_eq!(out, Some(Bson::Int32(5)));
        assert_eq!(
            run(bson::bson!({"$strLenBytes": "$s"}), &root).unwrap(),
            Some(Bson::Int32(6))
        );
        assert_eq!(
            run(
                bson::bson!({"$cond": [{"$gte": [{"$size": "$xs"}, 3]}, "big", "small"]}),
                &root
            )
            .unwrap(),
            Some(Bson::String("big".into()))
        );
        assert_eq!(
            run(bson::bson!({"$in": [[1], [[1], [2]]]}), &root).unwrap(),
            Some(Bson::Boolean(true))
        );
        assert_eq!(
            run(bson::bson!({"$size": "$s"}), &root).unwrap_err().code,
            17124
        );
        assert_eq!(
            run(bson::bson!({"$nope": 1}), &root).unwrap_err().code,
            INVALID_PIPELINE_OPERATOR
        );
    }

    #[test]
    fn concat_arrays_is_null_when_an_operand_is_missing() {
        let root = doc! {"a": [1]};
        assert_eq!(
            run(bson::bson!({"$concatArrays": ["$a", [2]]}), &root).unwrap(),
            Some(bson::bson!([1, 2]))
        );
        assert_eq!(
            run(bson::bson!({"$concatArrays": ["$a", "$zz"]}), &root).unwrap(),
            Some(Bson::Null)
        );
    }

    #[test]
    fn sizes_of_binaries_and_documents() {
        let root = doc! {"b": bson::Binary {subtype: bson::spec::BinarySubtype::Generic, bytes: vec![1, 2, 3]}};
        assert_eq!(
            run(bson::bson!({"$binarySize": "$b"}), &root).unwrap(),
            Some(Bson::Int32(3))
        );
        let size = bson::serialize_to_vec(&root).unwrap().len() as i32;
        assert_eq!(
            run(bson::bson!({"$bsonSize": "$$ROOT"}), &root).unwrap(),
            Some(Bson::Int32(size))
        );
    }
}
