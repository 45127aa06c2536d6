//! What a query asserts: the shape of its filter and sort, and the facts partial filters are
//! judged against.

use std::collections::BTreeSet;

use bson::{Bson, Document};

use super::query::{Direction, QuerySpec};
use crate::spec::read;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cmp {
    Gt,
    Gte,
    Lt,
    Lte,
}

impl Cmp {
    pub(super) fn from_operator(op: &str) -> Option<Cmp> {
        match op {
            "$gt" => Some(Cmp::Gt),
            "$gte" => Some(Cmp::Gte),
            "$lt" => Some(Cmp::Lt),
            "$lte" => Some(Cmp::Lte),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub(super) enum Fact {
    /// `{path: value}` or `{path: {$eq: value}}`.
    Equals(Bson),
    /// `{path: {$exists: bool}}`.
    Exists(bool),
    /// A declared equality or range field: some non-null value, unknown.
    NonNull,
    /// `{path: {$gt: value}}` and the like.
    Bound(Cmp, Bson),
    /// Any other condition (`$in`, `$type`, ...): the field is filtered, nothing is provable.
    Other,
}

/// The shape of one query as the index rules see it.
pub(super) struct Shape {
    /// Declared equality fields.
    pub(super) equality: Vec<String>,
    /// Declared and filter equality fields.
    pub(super) eq_all: BTreeSet<String>,
    /// Declared range fields.
    pub(super) range: Vec<String>,
    /// Declared and filter range fields.
    pub(super) range_all: BTreeSet<String>,
    /// Sort fields not fixed by an equality.
    pub(super) sort: Vec<(String, Direction)>,
    /// Every field the query filters on, declared or in `filter`.
    pub(super) filtered: BTreeSet<String>,
    /// What the query asserts, by path.
    pub(super) facts: Vec<(String, Fact)>,
    /// Equality fields of `filter`, in order.
    pub(super) filter_eq: Vec<String>,
    /// Range fields of `filter`, in order.
    pub(super) filter_range: Vec<String>,
}

impl Shape {
    pub(super) fn of(query: &QuerySpec) -> Shape {
        let mut shape = Shape {
            equality: dedup(&query.equality),
            eq_all: BTreeSet::new(),
            range: dedup(&query.range),
            range_all: BTreeSet::new(),
            sort: Vec::new(),
            filtered: BTreeSet::new(),
            facts: Vec::new(),
            filter_eq: Vec::new(),
            filter_range: Vec::new(),
        };
        for path in &shape.equality {
            shape.facts.push((path.clone(), Fact::NonNull));
        }
        for path in &shape.range {
            shape.facts.push((path.clone(), Fact::NonNull));
        }
        if let Some(filter) = &query.filter {
            collect_facts(filter, &mut shape.facts);
        }
        shape.eq_all.extend(shape.equality.iter().cloned());
        shape.range_all.extend(shape.range.iter().cloned());
        for (path, fact) in &shape.facts {
            shape.filtered.insert(path.clone());
            match fact {
                Fact::Equals(v)
                    if !matches!(v, Bson::RegularExpression(_))
                        && shape.eq_all.insert(path.clone()) =>
                {
                    shape.filter_eq.push(path.clone());
                }
                Fact::Bound(..)
                    if !shape.eq_all.contains(path) && shape.range_all.insert(path.clone()) =>
                {
                    shape.filter_range.push(path.clone());
                }
                _ => {}
            }
        }
        let mut seen = BTreeSet::new();
        for (path, direction) in &query.sort {
            if !shape.eq_all.contains(path) && seen.insert(path.clone()) {
                shape.sort.push((path.clone(), *direction));
            }
        }
        shape
    }

    pub(super) fn has_predicates(&self) -> bool {
        !self.eq_all.is_empty() || !self.range_all.is_empty()
    }
}

pub(super) fn dedup(paths: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    paths
        .iter()
        .filter(|p| seen.insert((*p).clone()))
        .cloned()
        .collect()
}

pub(super) fn is_operator_document(value: &Bson) -> Option<&Document> {
    match value {
        Bson::Document(d) if !d.is_empty() && d.keys().all(|k| k.starts_with('$')) => Some(d),
        _ => None,
    }
}

/// The facts a filter document asserts: top-level field conditions and `$and` branches.
/// Operators it cannot reason about (`$in`, `$or`, `$type`, ...) assert nothing here.
pub(super) fn collect_facts(filter: &Document, facts: &mut Vec<(String, Fact)>) {
    for (key, value) in filter {
        if key == "$and" {
            if let Bson::Array(branches) = value {
                for branch in branches {
                    if let Bson::Document(d) = branch {
                        collect_facts(d, facts);
                    }
                }
            }
            continue;
        }
        if key.starts_with('$') {
            continue;
        }
        match is_operator_document(value) {
            Some(ops) => {
                for (op, operand) in ops {
                    let fact = match op.as_str() {
                        "$eq" => Some(Fact::Equals(operand.clone())),
                        "$exists" => read::truthy(op, operand).ok().map(Fact::Exists),
                        other => Cmp::from_operator(other).map(|c| Fact::Bound(c, operand.clone())),
                    };
                    // An operator with nothing provable still names a field the query filters.
                    facts.push((key.clone(), fact.unwrap_or(Fact::Other)));
                }
            }
            None => facts.push((key.clone(), Fact::Equals(value.clone()))),
        }
    }
}
