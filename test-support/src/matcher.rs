//! Query filters over in-memory documents: what `find`, `count`, `aggregate`'s `$match` and
//! `listCollections`' `filter` need, with `$jsonSchema` handed to the [`SchemaEvaluator`].
//!
//! Source: the manual's "Query and Projection Operators" pages (comparison, logical, element and
//! array operators; numbers compare by value across types; a path through an array matches when any
//! element matches; a missing field equals `null`).

use std::cmp::Ordering;

use bson::{Bson, Document};

use crate::SchemaEvaluator;
use crate::error::{CommandError, code};

/// Field operators this matcher evaluates.
const FIELD_OPERATORS: &[&str] = &[
    "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$type", "$size", "$all",
    "$not",
];

/// Parses a filter without evaluating it, so a bad filter fails even on an empty collection, as
/// the server's parser does: unknown operators (BadValue 2), malformed `$and`/`$or`/`$nor`,
/// `$in`/`$nin` without an array, and `$jsonSchema` the evaluator refuses (FailedToParse 9).
pub(crate) fn check(
    filter: &Document,
    evaluator: Option<&dyn SchemaEvaluator>,
) -> Result<(), CommandError> {
    for (key, value) in filter {
        match key.as_str() {
            "$and" | "$or" | "$nor" => {
                for clause in clauses(value, key)? {
                    check(clause, evaluator)?;
                }
            }
            "$jsonSchema" => {
                let Bson::Document(schema) = value else {
                    return Err(CommandError::new(
                        code::TYPE_MISMATCH,
                        "$jsonSchema must be an object",
                    ));
                };
                schema_evaluator(evaluator)?
                    .check(schema)
                    .map_err(|m| CommandError::new(code::FAILED_TO_PARSE, m))?;
            }
            "$comment" => {}
            "$expr" | "$where" | "$text" => {
                return Err(CommandError::new(
                    code::BAD_VALUE,
                    format!("the test server does not evaluate {key}"),
                ));
            }
            other if other.starts_with('$') => {
                return Err(CommandError::new(
                    code::BAD_VALUE,
                    format!("unknown top level operator: {other}"),
                ));
            }
            _ => {
                if let Some(operators) = is_operator_document(value) {
                    check_operators(operators)?;
                }
            }
        }
    }
    Ok(())
}

/// Operators the server has and this matcher does not evaluate: refused with a message saying
/// so, rather than the server's "unknown operator".
const UNEVALUATED: &[&str] = &[
    "$regex",
    "$options",
    "$elemMatch",
    "$mod",
    "$bitsAllSet",
    "$bitsAnySet",
    "$bitsAllClear",
    "$bitsAnyClear",
    "$geoWithin",
    "$geoIntersects",
    "$near",
    "$nearSphere",
];

fn check_operators(operators: &Document) -> Result<(), CommandError> {
    for (op, operand) in operators {
        if UNEVALUATED.contains(&op.as_str()) {
            return Err(CommandError::new(
                code::BAD_VALUE,
                format!("the test server does not evaluate {op}"),
            ));
        }
        if !FIELD_OPERATORS.contains(&op.as_str()) {
            return Err(CommandError::new(
                code::BAD_VALUE,
                format!("unknown operator: {op}"),
            ));
        }
        match (op.as_str(), operand) {
            ("$in" | "$nin" | "$all", Bson::Array(_)) => {}
            ("$in" | "$nin" | "$all", _) => {
                return Err(CommandError::new(
                    code::BAD_VALUE,
                    format!("{op} needs an array"),
                ));
            }
            ("$not", inner) => match is_operator_document(inner) {
                Some(inner) => check_operators(inner)?,
                None => {
                    return Err(CommandError::new(
                        code::BAD_VALUE,
                        "$not needs a regex or a document",
                    ));
                }
            },
            _ => {}
        }
    }
    Ok(())
}

fn schema_evaluator(
    evaluator: Option<&dyn SchemaEvaluator>,
) -> Result<&dyn SchemaEvaluator, CommandError> {
    evaluator.ok_or_else(|| {
        CommandError::new(
            code::BAD_VALUE,
            "test server: $jsonSchema needs a SchemaEvaluator (TestServer::set_schema_evaluator)",
        )
    })
}

/// Whether `doc` matches `filter`.
pub(crate) fn matches(
    filter: &Document,
    doc: &Document,
    evaluator: Option<&dyn SchemaEvaluator>,
) -> Result<bool, CommandError> {
    for (key, value) in filter {
        let ok = match key.as_str() {
            "$and" => clauses(value, key)?
                .iter()
                .map(|f| matches(f, doc, evaluator))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .all(|b| b),
            "$or" => any_clause(value, key, doc, evaluator)?,
            "$nor" => !any_clause(value, key, doc, evaluator)?,
            "$jsonSchema" => {
                let Bson::Document(schema) = value else {
                    return Err(CommandError::new(
                        code::TYPE_MISMATCH,
                        "$jsonSchema must be an object",
                    ));
                };
                schema_evaluator(evaluator)?.evaluate(schema, doc).is_ok()
            }
            "$comment" => true,
            other if other.starts_with('$') => {
                return Err(CommandError::new(
                    code::BAD_VALUE,
                    format!("unknown top level operator: {other}"),
                ));
            }
            path => field_matches(doc, path, value)?,
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

fn clauses<'a>(value: &'a Bson, op: &str) -> Result<Vec<&'a Document>, CommandError> {
    // Source: "$and/$or/$nor must be a nonempty array" (BadValue) in the server's expression parser.
    let Bson::Array(items) = value else {
        return Err(CommandError::new(
            code::BAD_VALUE,
            format!("{op} must be an array"),
        ));
    };
    if items.is_empty() {
        return Err(CommandError::new(
            code::BAD_VALUE,
            format!("{op} must be a nonempty array"),
        ));
    }
    items
        .iter()
        .map(|item| match item {
            Bson::Document(d) => Ok(d),
            _ => Err(CommandError::new(
                code::BAD_VALUE,
                format!("{op} argument's entries must be objects"),
            )),
        })
        .collect()
}

fn any_clause(
    value: &Bson,
    op: &str,
    doc: &Document,
    evaluator: Option<&dyn SchemaEvaluator>,
) -> Result<bool, CommandError> {
    for clause in clauses(value, op)? {
        if matches(clause, doc, evaluator)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn is_operator_document(value: &Bson) -> Option<&Document> {
    match value {
        Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => Some(d),
        _ => None,
    }
}

fn field_matches(doc: &Document, path: &str, condition: &Bson) -> Result<bool, CommandError> {
    let values = lookup(doc, path);
    match is_operator_document(condition) {
        Some(operators) => {
            for (op, operand) in operators {
                if !operator_matches(&values, op, operand)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        None => Ok(equals_any(&values, condition)),
    }
}

fn equals_any(values: &[&Bson], target: &Bson) -> bool {
    if values.is_empty() {
        return matches!(target, Bson::Null);
    }
    values
        .iter()
        .any(|v| each_or_whole(v, |x| values_equal(x, target)))
}

/// Tests the value itself and, for an array, each element (implicit array traversal).
fn each_or_whole(value: &Bson, test: impl Fn(&Bson) -> bool) -> bool {
    test(value)
        || match value {
            Bson::Array(items) => items.iter().any(&test),
            _ => false,
        }
}

fn operator_matches(values: &[&Bson], op: &str, operand: &Bson) -> Result<bool, CommandError> {
    let ordered = |want: fn(Ordering) -> bool| {
        values
            .iter()
            .any(|v| each_or_whole(v, |x| compare(x, operand).is_some_and(want)))
    };
    Ok(match op {
        "$eq" => equals_any(values, operand),
        "$ne" => !equals_any(values, operand),
        "$gt" => ordered(|o| o == Ordering::Greater),
        "$gte" => ordered(|o| o != Ordering::Less),
        "$lt" => ordered(|o| o == Ordering::Less),
        "$lte" => ordered(|o| o != Ordering::Greater),
        "$in" => in_list(values, operand, op)?,
        "$nin" => !in_list(values, operand, op)?,
        "$exists" => values.is_empty() != truthy(operand),
        "$type" => {
            let wanted: Vec<&Bson> = match operand {
                Bson::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            values
                .iter()
                .any(|v| each_or_whole(v, |x| wanted.iter().any(|w| has_type(x, w))))
        }
        "$size" => {
            let size = number(operand)
                .ok_or_else(|| CommandError::new(code::BAD_VALUE, "$size needs a number"))?;
            values
                .iter()
                .any(|v| matches!(v, Bson::Array(items) if items.len() as f64 == size))
        }
        "$all" => {
            let Bson::Array(wanted) = operand else {
                return Err(CommandError::new(code::BAD_VALUE, "$all needs an array"));
            };
            wanted.iter().all(|w| equals_any(values, w))
        }
        "$not" => {
            let Some(inner) = is_operator_document(operand) else {
                return Err(CommandError::new(
                    code::BAD_VALUE,
                    "$not needs a regex or a document",
                ));
            };
            let mut all = true;
            for (inner_op, inner_operand) in inner {
                all &= operator_matches(values, inner_op, inner_operand)?;
            }
            !all
        }
        other => {
            return Err(CommandError::new(
                code::BAD_VALUE,
                format!("unknown operator: {other}"),
            ));
        }
    })
}

fn in_list(values: &[&Bson], operand: &Bson, op: &str) -> Result<bool, CommandError> {
    let Bson::Array(items) = operand else {
        return Err(CommandError::new(
            code::BAD_VALUE,
            format!("{op} needs an array"),
        ));
    };
    Ok(items.iter().any(|item| equals_any(values, item)))
}

fn truthy(value: &Bson) -> bool {
    match value {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        other => number(other).is_none_or(|n| n != 0.0),
    }
}

/// The values at a dotted path; a path through an array of documents collects from each element,
/// and a numeric segment indexes an array.
pub(crate) fn lookup<'a>(doc: &'a Document, path: &str) -> Vec<&'a Bson> {
    let mut current: Vec<&Bson> = Vec::new();
    let mut segments = path.split('.');
    let Some(first) = segments.next() else {
        return current;
    };
    if let Some(v) = doc.get(first) {
        current.push(v);
    }
    for segment in segments {
        let mut next = Vec::new();
        for value in current {
            match value {
                Bson::Document(d) => next.extend(d.get(segment)),
                Bson::Array(items) => {
                    if let Ok(index) = segment.parse::<usize>() {
                        next.extend(items.get(index));
                    } else {
                        next.extend(items.iter().filter_map(|item| match item {
                            Bson::Document(d) => d.get(segment),
                            _ => None,
                        }));
                    }
                }
                _ => {}
            }
        }
        current = next;
    }
    current
}

/// A numeric BSON value as f64 (Int32, Int64, Double, Decimal128).
pub(crate) fn number(value: &Bson) -> Option<f64> {
    match value {
        Bson::Int32(i) => Some(f64::from(*i)),
        Bson::Int64(i) => Some(*i as f64),
        Bson::Double(d) => Some(*d),
        Bson::Decimal128(d) => d.to_string().parse().ok(),
        _ => None,
    }
}

/// Equality as the server's query language sees it: numbers by value across types; embedded
/// documents field by field in order; arrays element by element.
pub(crate) fn values_equal(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && values_equal(va, vb))
        }
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q))
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
            _ => a == b,
        },
    }
}

/// Order within one canonical type class (numbers, strings, dates, ...); `None` across classes,
/// which the server's comparison operators never match ("type bracketing").
pub(crate) fn compare(a: &Bson, b: &Bson) -> Option<Ordering> {
    match (a, b) {
        (Bson::String(x), Bson::String(y)) => Some(x.cmp(y)),
        (Bson::DateTime(x), Bson::DateTime(y)) => Some(x.cmp(y)),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => Some(x.bytes().cmp(&y.bytes())),
        (Bson::Boolean(x), Bson::Boolean(y)) => Some(x.cmp(y)),
        (Bson::Timestamp(x), Bson::Timestamp(y)) => {
            Some((x.time, x.increment).cmp(&(y.time, y.increment)))
        }
        (Bson::Null, Bson::Null) => Some(Ordering::Equal),
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    }
}

/// The `$type` alias of a value, as the manual's "BSON Types" table spells it.
pub(crate) fn type_alias(value: &Bson) -> &'static str {
    match value {
        Bson::Double(_) => "double",
        Bson::String(_) => "string",
        Bson::Document(_) => "object",
        Bson::Array(_) => "array",
        Bson::Binary(_) => "binData",
        Bson::Undefined => "undefined",
        Bson::ObjectId(_) => "objectId",
        Bson::Boolean(_) => "bool",
        Bson::DateTime(_) => "date",
        Bson::Null => "null",
        Bson::RegularExpression(_) => "regex",
        Bson::DbPointer(_) => "dbPointer",
        Bson::JavaScriptCode(_) => "javascript",
        Bson::Symbol(_) => "symbol",
        Bson::JavaScriptCodeWithScope(_) => "javascriptWithScope",
        Bson::Int32(_) => "int",
        Bson::Timestamp(_) => "timestamp",
        Bson::Int64(_) => "long",
        Bson::Decimal128(_) => "decimal",
        Bson::MinKey => "minKey",
        Bson::MaxKey => "maxKey",
    }
}

fn has_type(value: &Bson, wanted: &Bson) -> bool {
    let alias = type_alias(value);
    match wanted {
        Bson::String(s) if s == "number" => number(value).is_some(),
        Bson::String(s) => s == alias,
        other => number(other).is_some_and(|n| n == f64::from(type_number(alias))),
    }
}

fn type_number(alias: &str) -> i32 {
    match alias {
        "double" => 1,
        "string" => 2,
        "object" => 3,
        "array" => 4,
        "binData" => 5,
        "undefined" => 6,
        "objectId" => 7,
        "bool" => 8,
        "date" => 9,
        "null" => 10,
        "regex" => 11,
        "dbPointer" => 12,
        "javascript" => 13,
        "symbol" => 14,
        "javascriptWithScope" => 15,
        "int" => 16,
        "timestamp" => 17,
        "long" => 18,
        "decimal" => 19,
        "minKey" => -1,
        _ => 127,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn m(filter: Document, doc: Document) -> bool {
        matches(&filter, &doc, None).unwrap()
    }

    #[test]
    fn numbers_compare_by_value_across_types() {
        assert!(m(doc! {"a": 5}, doc! {"a": 5.0}));
        assert!(m(doc! {"a": {"$gt": 4_i64}}, doc! {"a": 4.5}));
        assert!(!m(doc! {"a": {"$gt": 4}}, doc! {"a": "5"}));
    }

    #[test]
    fn missing_field_equals_null_and_fails_exists() {
        assert!(m(doc! {"a": null}, doc! {}));
        assert!(m(doc! {"a": {"$exists": false}}, doc! {}));
        assert!(!m(doc! {"a": {"$exists": true}}, doc! {"b": 1}));
    }

    #[test]
    fn paths_traverse_arrays_of_documents() {
        let d = doc! {"items": [{"sku": "a"}, {"sku": "b"}], "tags": ["x", "y"]};
        assert!(m(doc! {"items.sku": "b"}, d.clone()));
        assert!(m(doc! {"tags": "y"}, d.clone()));
        assert!(m(doc! {"items.1.sku": "b"}, d.clone()));
        assert!(!m(doc! {"items.sku": "c"}, d));
    }

    #[test]
    fn logical_operators_combine_clauses() {
        let d = doc! {"a": 1, "b": 2};
        assert!(m(doc! {"$or": [{"a": 2}, {"b": 2}]}, d.clone()));
        assert!(!m(doc! {"$nor": [{"a": 2}, {"b": 2}]}, d.clone()));
        assert!(m(
            doc! {"$and": [{"a": 1}, {"b": {"$in": [1, 2]}}]},
            d.clone()
        ));
        assert!(m(doc! {"a": {"$not": {"$gt": 3}}}, d));
    }

    #[test]
    fn empty_nor_is_rejected_with_bad_value() {
        let err = matches(&doc! {"$nor": []}, &doc! {}, None).unwrap_err();
        assert_eq!(err.code, code::BAD_VALUE);
    }

    #[test]
    fn json_schema_without_evaluator_is_an_error() {
        let err = matches(&doc! {"$jsonSchema": {}}, &doc! {}, None).unwrap_err();
        assert_eq!(err.code, code::BAD_VALUE);
        let err = check(&doc! {"a": 1, "$jsonSchema": {}}, None).unwrap_err();
        assert_eq!(err.code, code::BAD_VALUE);
    }

    #[test]
    fn unevaluated_server_operators_say_so() {
        let err = check(&doc! {"a": {"$regex": "x"}}, None).unwrap_err();
        assert_eq!(err.message, "the test server does not evaluate $regex");
        assert!(check(&doc! {"$expr": {}}, None).is_err());
    }

    #[test]
    fn check_rejects_unknown_operators_at_any_depth() {
        assert!(check(&doc! {"$or": [{"a": {"$not": {"$frob": 1}}}]}, None).is_err());
        assert!(check(&doc! {"a": {"$in": 1}}, None).is_err());
        assert!(check(&doc! {"a": {"$gt": 1}, "b": {"x": 1}}, None).is_ok());
    }

    #[test]
    fn type_matches_aliases_numbers_and_number() {
        assert!(m(doc! {"a": {"$type": "int"}}, doc! {"a": 1}));
        assert!(m(doc! {"a": {"$type": "number"}}, doc! {"a": 1.5}));
        assert!(m(doc! {"a": {"$type": 2}}, doc! {"a": "s"}));
        assert!(!m(doc! {"a": {"$type": "long"}}, doc! {"a": 1}));
    }
}
