//! Equivalence rules: when two collations, indexes, validators, filters or values mean the same
//! to the server, so that `diff` reports only real differences (and an order-only one as
//! cosmetic).

use bson::{Bson, Document};

use crate::spec::{Collation, IndexSpec};

/// Whether a live collation matches a declared one: the same `locale`, and every field the
/// declaration gives equal. The server expands a collation to every ICU field with
/// locale-dependent defaults (fr_CA has `backwards: true`) that we cannot know; so fields the
/// declaration leaves out are not compared. `version` never is.
pub fn collation_matches(declared: &Collation, live: &Collation) -> bool {
    fn same<T: PartialEq>(d: &Option<T>, l: &Option<T>) -> bool {
        d.is_none() || d == l
    }
    declared.locale == live.locale
        && same(&declared.case_level, &live.case_level)
        && same(&declared.case_first, &live.case_first)
        && same(&declared.strength, &live.strength)
        && same(&declared.numeric_ordering, &live.numeric_ordering)
        && same(&declared.alternate, &live.alternate)
        && same(&declared.max_variable, &live.max_variable)
        && same(&declared.normalization, &live.normalization)
        && same(&declared.backwards, &live.backwards)
        && declared
            .other
            .iter()
            .all(|(k, v)| live.other.get(k).is_some_and(|l| values_equal(v, l)))
}

/// Two optional collations match ([`collation_matches`]); absent is simple.
pub fn collations_match(declared: Option<&Collation>, live: Option<&Collation>) -> bool {
    let simple = Collation::new("simple");
    collation_matches(declared.unwrap_or(&simple), live.unwrap_or(&simple))
}

/// Whether two canonical indexes have one identity: key pattern, collation, partial filter,
/// unique (unless `ignore_unique`), sparse and wildcard projection.
pub(crate) fn same_identity(d: &IndexSpec, l: &IndexSpec, ignore_unique: bool) -> bool {
    d.keys == l.keys
        && collations_match(d.collation.as_ref(), l.collation.as_ref())
        && optional_filters_equal(
            d.partial_filter_expression.as_ref(),
            l.partial_filter_expression.as_ref(),
        )
        && (ignore_unique || d.unique == l.unique)
        && d.sparse == l.sparse
        && optional_filters_equal(
            d.wildcard_projection.as_ref(),
            l.wildcard_projection.as_ref(),
        )
}

/// [`same_identity`] with `unique` compared.
pub(super) fn same_identity_exact(d: &IndexSpec, l: &IndexSpec) -> bool {
    same_identity(d, l, false)
}

/// Two optional filters are [`filters_equal`]; absent matches only absent.
pub(crate) fn optional_filters_equal(a: Option<&Document>, b: Option<&Document>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => filters_equal(x, y),
        _ => false,
    }
}

/// Whether two values are equal with numbers compared by value (Int32 5 = Int64 5 = Double 5.0
/// = Decimal128 5; -0 = 0; NaN equals nothing), documents in field order, arrays in order.
pub fn values_equal(a: &Bson, b: &Bson) -> bool {
    identical(&canonical_literal(a, true), &canonical_literal(b, true))
}

/// Whether two values are written identically: same types, documents with the same fields in
/// the same order, arrays in order. (`bson::Document`'s own `==` ignores field order.)
pub fn identical(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => documents_identical(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| identical(p, q))
        }
        _ => a == b,
    }
}

/// [`identical`] for documents.
pub fn documents_identical(a: &Document, b: &Document) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((k1, v1), (k2, v2))| k1 == k2 && identical(v1, v2))
}

/// Whether two validators mean the same to the server. At the top level and in operator
/// documents, field order carries no meaning (an implicit `$and`); `$and`/`$or`/`$nor` branches
/// and `$in`/`$nin`/`$all` members are sets. Inside `$jsonSchema`, keyword order, `properties`
/// order and the order of `required`, `enum`, type arrays and `allOf`/`anyOf`/`oneOf` branches
/// carry no meaning, and `enum` members compare ignoring field order (as the server evaluates
/// them); a single type equals a one-element type array. Literal documents compared by a query
/// operator keep their field order. Numbers compare by value everywhere.
///
/// ```
/// use bson::doc;
/// use mongo_schema::normalize::validators_equal;
/// assert!(validators_equal(
///     &doc! { "$jsonSchema": { "required": ["a", "b"], "bsonType": "object" } },
///     &doc! { "$jsonSchema": { "bsonType": ["object"], "required": ["b", "a"] } },
/// ));
/// assert!(!validators_equal(
///     &doc! { "$jsonSchema": { "maxLength": 5 } },
///     &doc! { "$jsonSchema": { "maxLength": 6 } },
/// ));
/// ```
pub fn validators_equal(a: &Document, b: &Document) -> bool {
    documents_identical(&canonical_query(a), &canonical_query(b))
}

/// Whether two query filters (partial filter expressions) mean the same: the rules of
/// [`validators_equal`].
pub fn filters_equal(a: &Document, b: &Document) -> bool {
    validators_equal(a, b)
}

/// The canonical form of a validator or filter under the equivalences of [`validators_equal`]:
/// two documents are equivalent exactly when their canonical forms are [`documents_identical`].
pub fn canonical_validator(doc: &Document) -> Document {
    canonical_query(doc)
}

fn sort_key(value: &Bson) -> String {
    format!("{value:?}")
}

fn sorted_set(mut items: Vec<Bson>) -> Bson {
    items.sort_by_cached_key(sort_key);
    Bson::Array(items)
}

fn sorted_doc(mut entries: Vec<(String, Bson)>) -> Document {
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

fn is_operator_doc(doc: &Document) -> bool {
    !doc.is_empty() && doc.keys().all(|k| k.starts_with('$'))
}

fn canonical_query(doc: &Document) -> Document {
    sorted_doc(
        doc.iter()
            .map(|(k, v)| {
                let value = if k.starts_with('$') {
                    canonical_top_operator(k, v)
                } else {
                    canonical_field_condition(v)
                };
                (k.clone(), value)
            })
            .collect(),
    )
}

fn canonical_top_operator(op: &str, value: &Bson) -> Bson {
    match (op, value) {
        ("$and" | "$or" | "$nor", Bson::Array(branches)) => sorted_set(
            branches
                .iter()
                .map(|b| match b {
                    Bson::Document(d) => Bson::Document(canonical_query(d)),
                    other => canonical_literal(other, true),
                })
                .collect(),
        ),
        ("$jsonSchema", Bson::Document(schema)) => Bson::Document(canonical_schema(schema)),
        _ => canonical_literal(value, true),
    }
}

fn canonical_field_condition(value: &Bson) -> Bson {
    match value {
        Bson::Document(d) if is_operator_doc(d) => Bson::Document(sorted_doc(
            d.iter()
                .map(|(op, v)| (op.clone(), canonical_field_operator(op, v)))
                .collect(),
        )),
        other => canonical_literal(other, true),
    }
}

fn canonical_field_operator(op: &str, value: &Bson) -> Bson {
    match (op, value) {
        ("$in" | "$nin" | "$all", Bson::Array(items)) => {
            sorted_set(items.iter().map(|i| canonical_literal(i, true)).collect())
        }
        ("$not", v) => canonical_field_condition(v),
        // `$exists` takes any truthy value: `1` means `true`.
        ("$exists", v) => match crate::spec::read::truthy("$exists", v) {
            Ok(b) => Bson::Boolean(b),
            Err(_) => canonical_literal(v, true),
        },
        ("$elemMatch", Bson::Document(d)) => {
            if is_operator_doc(d) {
                canonical_field_condition(value)
            } else {
                Bson::Document(canonical_query(d))
            }
        }
        _ => canonical_literal(value, true),
    }
}

fn canonical_schema(schema: &Document) -> Document {
    sorted_doc(
        schema
            .iter()
            .map(|(k, v)| (k.clone(), canonical_keyword(k, v)))
            .collect(),
    )
}

fn canonical_subschema(value: &Bson) -> Bson {
    match value {
        Bson::Document(d) => Bson::Document(canonical_schema(d)),
        other => canonical_literal(other, true),
    }
}

fn canonical_keyword(keyword: &str, value: &Bson) -> Bson {
    match (keyword, value) {
        ("properties" | "patternProperties", Bson::Document(d)) => Bson::Document(sorted_doc(
            d.iter()
                .map(|(k, v)| (k.clone(), canonical_subschema(v)))
                .collect(),
        )),
        ("dependencies", Bson::Document(d)) => Bson::Document(sorted_doc(
            d.iter()
                .map(|(k, v)| {
                    let value = match v {
                        Bson::Array(names) => sorted_set(names.clone()),
                        other => canonical_subschema(other),
                    };
                    (k.clone(), value)
                })
                .collect(),
        )),
        ("required", Bson::Array(names)) => sorted_set(names.clone()),
        ("enum", Bson::Array(members)) => sorted_set(
            members
                .iter()
                .map(|m| canonical_literal(m, false))
                .collect(),
        ),
        ("type" | "bsonType", Bson::String(s)) => Bson::Array(vec![Bson::String(s.clone())]),
        ("type" | "bsonType", Bson::Array(names)) => sorted_set(names.clone()),
        ("allOf" | "anyOf" | "oneOf", Bson::Array(branches)) => {
            sorted_set(branches.iter().map(canonical_subschema).collect())
        }
        ("not" | "additionalProperties" | "additionalItems", v) => canonical_subschema(v),
        ("items", Bson::Document(_)) => canonical_subschema(value),
        ("items", Bson::Array(list)) => Bson::Array(list.iter().map(canonical_subschema).collect()),
        ("encrypt" | "encryptMetadata", v) => canonical_literal(v, false),
        (_, v) => canonical_literal(v, true),
    }
}

/// A literal value with numbers by value; documents keep field order when `ordered`.
fn canonical_literal(value: &Bson, ordered: bool) -> Bson {
    match value {
        Bson::Document(d) => {
            let entries: Vec<(String, Bson)> = d
                .iter()
                .map(|(k, v)| (k.clone(), canonical_literal(v, ordered)))
                .collect();
            if ordered {
                Bson::Document(entries.into_iter().collect())
            } else {
                Bson::Document(sorted_doc(entries))
            }
        }
        Bson::Array(items) => Bson::Array(
            items
                .iter()
                .map(|i| canonical_literal(i, ordered))
                .collect(),
        ),
        other => canonical_number(other),
    }
}

/// A number in one representation per value: whole numbers as Int64 (so Int32 5, Int64 5,
/// Double 5.0, Decimal128 5 and -0.0 = 0 agree), others as Double (NaN stays NaN, which `==`
/// never matches). Non-numbers are returned unchanged.
pub(super) fn canonical_number(value: &Bson) -> Bson {
    let as_double = match value {
        Bson::Int32(v) => return Bson::Int64(i64::from(*v)),
        Bson::Int64(v) => return Bson::Int64(*v),
        Bson::Double(v) => *v,
        Bson::Decimal128(d) => match d.to_string().parse::<f64>() {
            Ok(v) => v,
            Err(_) => return value.clone(),
        },
        other => return other.clone(),
    };
    if as_double.is_finite() && as_double.fract() == 0.0 && as_double.abs() < 9.2e18 {
        Bson::Int64(as_double as i64)
    } else {
        Bson::Double(as_double)
    }
}
