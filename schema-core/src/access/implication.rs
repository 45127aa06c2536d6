//! Partial filter implication ("Partial Indexes": the query must imply the filter).

use bson::{Bson, Document};

use super::shape::{Cmp, Fact, is_operator_document};
use crate::normalize::values_equal;
use crate::spec::read;

/// Whether a query asserting `facts` certainly matches only documents that `filter` matches, so
/// that a partial index with this `partialFilterExpression` holds every document the query can
/// return.
///
/// Proven cases: equality (`{f: v}`, `$eq`), `$exists: true` (implied by an equality on a
/// non-null value, a range, or a declared field), `$exists: false`, and `$gt`/`$gte`/`$lt`/`$lte`
/// on the same field (implied by a tighter or equal bound, or an equality inside the range, of
/// comparable type); `$and` of implied branches; `$or` with one implied branch. Anything else
/// cannot be proven and counts as not implied.
pub(super) fn implies(facts: &[(String, Fact)], filter: &Document) -> bool {
    filter.iter().all(|(key, value)| match key.as_str() {
        "$and" => branches(value).is_some_and(|b| b.iter().all(|d| implies(facts, d))),
        "$or" => branches(value).is_some_and(|b| b.iter().any(|d| implies(facts, d))),
        k if k.starts_with('$') => false,
        path => match is_operator_document(value) {
            Some(ops) => ops
                .iter()
                .all(|(op, operand)| implies_condition(facts, path, op, operand)),
            None => implies_condition(facts, path, "$eq", value),
        },
    })
}

pub(super) fn branches(value: &Bson) -> Option<Vec<&Document>> {
    match value {
        Bson::Array(items) if !items.is_empty() => items.iter().map(Bson::as_document).collect(),
        _ => None,
    }
}

pub(super) fn implies_condition(
    facts: &[(String, Fact)],
    path: &str,
    op: &str,
    operand: &Bson,
) -> bool {
    let on_path = || facts.iter().filter(move |(p, _)| p == path).map(|(_, f)| f);
    match op {
        "$eq" => on_path().any(|f| matches!(f, Fact::Equals(v) if values_equal(v, operand))),
        "$exists" => match read::truthy(op, operand) {
            Ok(true) => on_path().any(|f| match f {
                Fact::NonNull | Fact::Exists(true) => true,
                Fact::Equals(v) | Fact::Bound(_, v) => !matches!(v, Bson::Null),
                Fact::Exists(false) | Fact::Other => false,
            }),
            Ok(false) => on_path().any(|f| matches!(f, Fact::Exists(false))),
            Err(_) => false,
        },
        other => match Cmp::from_operator(other) {
            Some(need) => on_path().any(|f| bound_implies(f, need, operand)),
            None => false,
        },
    }
}

/// Whether the fact `f` on a field implies `field <need> v`.
pub(super) fn bound_implies(f: &Fact, need: Cmp, v: &Bson) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (have, w) = match f {
        Fact::Bound(c, w) => (Some(*c), w),
        Fact::Equals(w) => (None, w),
        _ => return false,
    };
    let Some(order) = compare(w, v) else {
        return false;
    };
    match (need, have) {
        // field > v: from field > w >= v, field >= w > v, field = w > v.
        (Cmp::Gt, Some(Cmp::Gt)) => order != Less,
        (Cmp::Gt, Some(Cmp::Gte) | None) => order == Greater,
        (Cmp::Gte, Some(Cmp::Gt | Cmp::Gte) | None) => order != Less,
        (Cmp::Lt, Some(Cmp::Lt)) => order != Greater,
        (Cmp::Lt, Some(Cmp::Lte) | None) => order == Less,
        (Cmp::Lte, Some(Cmp::Lt | Cmp::Lte) | None) => matches!(order, Less | Equal),
        _ => false,
    }
}

/// Orders two values of one comparable kind (numbers by value, strings by bytes as the simple
/// collation does, dates); `None` across kinds, where a range never matches (type bracketing).
pub(super) fn compare(a: &Bson, b: &Bson) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Bson::String(x), Bson::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Bson::DateTime(x), Bson::DateTime(y)) => Some(x.cmp(y)),
        (Bson::Timestamp(x), Bson::Timestamp(y)) => {
            Some((x.time, x.increment).cmp(&(y.time, y.increment)))
        }
        (Bson::ObjectId(x), Bson::ObjectId(y)) => Some(x.bytes().cmp(&y.bytes())),
        _ => {
            let (x, y) = (read::number(a)?, read::number(b)?);
            x.partial_cmp(&y)
        }
    }
}
