//! Coverage of one query by a set of indexes, by the server's index-selection rules.

use std::collections::BTreeSet;

use bson::Bson;

use super::implication::implies;
use super::multikey::{MultikeyPaths, is_same_or_under};
use super::query::{Direction, QuerySpec};
use super::shape::{Fact, Shape};
use crate::spec::read;
use crate::spec::{IndexKeys, IndexKind, IndexSpec, is_wildcard_path};

/// How one index serves one query.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexUse {
    /// The index name (explicit or default).
    pub index: String,
    /// The index's key pattern.
    pub keys: IndexKeys,
    /// How many leading key fields the query fixes by equality (point bounds).
    pub equality_prefix: usize,
    /// Whether a range field bounds the scan right after the equality prefix.
    pub range_bounded: bool,
    /// Whether the plan needs a blocking, in-memory sort ("Use Indexes to Sort Query Results").
    pub in_memory_sort: bool,
    /// Whether the index is scanned backwards to give the sort (every sort direction reversed).
    pub reverse_scan: bool,
    /// Whether the index covers the query ("Covered Queries"): no document is fetched.
    pub covered: bool,
    /// Whether the key pattern starts with every equality field, then the sort fields, then the
    /// range fields ("The ESR (Equality, Sort, Range) Guideline").
    pub follows_esr: bool,
}

/// Which indexes serve a declared query, and how well.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Coverage {
    /// The query's name.
    pub query: String,
    /// The indexes that serve it, best first: no in-memory sort, ESR order, covering, longest
    /// equality prefix, range bounded, fewest keys.
    pub serving: Vec<IndexUse>,
    /// Partial indexes whose keys would serve the query but whose filter the query's condition
    /// does not imply, so the planner cannot use them ("Partial Indexes").
    pub partial_not_implied: Vec<String>,
    /// The index to add, in ESR order, when nothing serves the query or every serving index
    /// needs an in-memory sort; `None` when the query filters and sorts on nothing.
    pub suggested: Option<IndexSpec>,
    /// Whether the query declares a sort that no index provides.
    sorts: bool,
}

impl Coverage {
    /// Whether an index serves the query (the plan is not a collection scan).
    pub fn is_served(&self) -> bool {
        !self.serving.is_empty()
    }

    /// The best serving index.
    pub fn best(&self) -> Option<&IndexUse> {
        self.serving.first()
    }

    /// Whether even the best plan sorts in memory (a collection scan with a sort does).
    pub fn needs_in_memory_sort(&self) -> bool {
        match self.best() {
            Some(best) => best.in_memory_sort,
            None => self.sorts,
        }
    }

    /// Whether some serving index covers the query.
    pub fn is_covered(&self) -> bool {
        self.serving.iter().any(|u| u.covered)
    }
}

/// Which of `indexes` serve `query`, by the rules in this module's documentation.
///
/// `indexes` are all the indexes the planner may choose from: include `{_id: 1}` (the `_id_`
/// index every collection has) when `_id` queries should count as served; [`lint`](super::lint) does.
/// `multikey` names the paths that hold arrays (see [`MultikeyPaths::from_schema`]). A query
/// with a search stage ([`QuerySpec::search_stage`]) runs on a search index, not through the
/// planner: no B-tree index serves it and none is suggested.
///
/// ```
/// use mongo_schema::access::{coverage, Direction, MultikeyPaths, QuerySpec};
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// let indexes = [IndexSpec::new([("user_id", Ascending), ("created_at", Descending)])];
/// let query = QuerySpec::new("recent").eq("user_id").sort("created_at", Direction::Ascending);
/// let found = coverage(&indexes, &query, &MultikeyPaths::none());
/// let best = found.best().expect("served");
/// assert_eq!(best.index, "user_id_1_created_at_-1");
/// assert!(best.reverse_scan && !best.in_memory_sort);
/// ```
pub fn coverage(indexes: &[IndexSpec], query: &QuerySpec, multikey: &MultikeyPaths) -> Coverage {
    if query.search_stage.is_some() {
        return Coverage {
            query: query.name.clone(),
            serving: Vec::new(),
            partial_not_implied: Vec::new(),
            suggested: None,
            sorts: false,
        };
    }
    let shape = Shape::of(query);
    let mut serving = Vec::new();
    let mut partial_not_implied = Vec::new();
    for index in indexes {
        let Some(usage) = judge(index, query, &shape, multikey) else {
            continue;
        };
        let implied = index
            .partial_filter_expression
            .as_ref()
            .is_none_or(|f| implies(&shape.facts, f));
        if implied {
            serving.push(usage);
        } else {
            partial_not_implied.push(usage.index);
        }
    }
    serving.sort_by_key(|u| {
        (
            u.in_memory_sort,
            !u.follows_esr,
            !u.covered,
            std::cmp::Reverse(u.equality_prefix),
            !u.range_bounded,
            u.keys.len(),
        )
    });
    let needs_better = serving.first().is_none_or(|b| b.in_memory_sort);
    // No suggestion an existing index already is (a sort over an array field, say, stays in
    // memory whatever the index): only a plain index the planner can always use counts.
    let suggested = esr_index(&shape).filter(|s| {
        needs_better
            && !indexes.iter().any(|i| {
                !i.hidden
                    && !i.sparse
                    && i.partial_filter_expression.is_none()
                    && i.keys.0.starts_with(&s.keys.0)
            })
    });
    Coverage {
        query: query.name.clone(),
        suggested,
        serving,
        partial_not_implied,
        sorts: !shape.sort.is_empty(),
    }
}

/// The index the ESR guideline gives for a query: its equality fields (declared, then those of
/// `filter`), then its sort fields in the declared directions, then its range fields; `None` for
/// a query that filters and sorts on nothing.
///
/// ```
/// use mongo_schema::access::{suggest_index, QuerySpec};
/// let query = QuerySpec::new("q").range("total").sort_desc("created_at").eq("status");
/// assert_eq!(
///     suggest_index(&query).unwrap().keys.to_document(),
///     bson::doc! { "status": 1, "created_at": -1, "total": 1 },
/// );
/// ```
pub fn suggest_index(query: &QuerySpec) -> Option<IndexSpec> {
    esr_index(&Shape::of(query))
}

pub(super) fn esr_index(shape: &Shape) -> Option<IndexSpec> {
    let mut keys: Vec<(String, IndexKind)> = Vec::new();
    let mut push = |path: &String, kind: IndexKind| {
        if !keys.iter().any(|(p, _)| p == path) {
            keys.push((path.clone(), kind));
        }
    };
    for path in shape.equality.iter().chain(&shape.filter_eq) {
        push(path, IndexKind::Ascending);
    }
    for (path, direction) in &shape.sort {
        push(path, direction.to_index_kind());
    }
    for path in shape.range.iter().chain(&shape.filter_range) {
        push(path, IndexKind::Ascending);
    }
    (!keys.is_empty()).then(|| IndexSpec::new(keys))
}

/// Whether index key `key` holds values of query field `path`: the same path, or a wildcard
/// key whose prefix and projection admit it.
pub(super) fn key_matches(index: &IndexSpec, key: &str, path: &str) -> bool {
    if key == path {
        return true;
    }
    if !is_wildcard_path(key) || path == "_id" {
        return false;
    }
    let prefix = key.trim_end_matches("$**").trim_end_matches('.');
    if !prefix.is_empty() && !is_same_or_under(path, prefix) {
        return false;
    }
    match &index.wildcard_projection {
        None => true,
        Some(projection) => {
            let included: Vec<&String> = projection
                .iter()
                .filter(|(k, v)| *k != "_id" && read::truthy(k, v).unwrap_or(false))
                .map(|(k, _)| k)
                .collect();
            if included.is_empty() {
                !projection
                    .keys()
                    .any(|k| k != "_id" && is_same_or_under(path, k))
            } else {
                included.iter().any(|k| is_same_or_under(path, k))
            }
        }
    }
}

/// How `index` serves the query when its keys can, ignoring its partial filter; `None` when
/// the planner would not use it for this query.
pub(super) fn judge(
    index: &IndexSpec,
    query: &QuerySpec,
    shape: &Shape,
    multikey: &MultikeyPaths,
) -> Option<IndexUse> {
    let keys = &index.keys;
    let special = keys.iter().any(|(_, k)| {
        matches!(
            k,
            IndexKind::Text | IndexKind::TwoD | IndexKind::TwoDSphere | IndexKind::Other(_)
        )
    });
    if index.hidden || keys.is_empty() || special {
        return None;
    }
    // Leading keys fixed by equality, then at most one range bound.
    let mut used: BTreeSet<&str> = BTreeSet::new();
    let mut equality_prefix = 0;
    let mut range_bounded = false;
    for (key, kind) in keys.iter() {
        let eq = shape
            .eq_all
            .iter()
            .find(|p| !used.contains(p.as_str()) && key_matches(index, key, p));
        if let Some(path) = eq {
            used.insert(path);
            equality_prefix += 1;
            continue;
        }
        let ranged = shape.range_all.iter().any(|p| key_matches(index, key, p));
        // A hashed key orders hashes, not values: no range bounds on it ("Hashed Indexes").
        range_bounded = ranged && *kind != IndexKind::Hashed;
        break;
    }
    let bounded = equality_prefix > 0 || range_bounded;
    let sort = sort_order(index, shape, multikey);
    let provides_sort = shape.sort.is_empty() || sort.is_some();
    let serves = if shape.has_predicates() {
        bounded
    } else {
        // Sort only: a full index scan in order. A sparse index would miss documents.
        !shape.sort.is_empty() && sort.is_some() && !index.sparse
    };
    if !serves {
        return None;
    }
    Some(IndexUse {
        index: index.effective_name(),
        keys: keys.clone(),
        equality_prefix,
        range_bounded,
        in_memory_sort: !provides_sort,
        reverse_scan: sort == Some(true),
        covered: covers(index, query, shape, multikey),
        follows_esr: follows_esr(index, shape, multikey),
    })
}

/// Whether the index gives the query's sort order: `Some(reverse)` when it does (`reverse` when
/// scanned backwards), `None` when the plan needs a blocking sort.
pub(super) fn sort_order(
    index: &IndexSpec,
    shape: &Shape,
    multikey: &MultikeyPaths,
) -> Option<bool> {
    if shape.sort.is_empty() {
        return Some(false);
    }
    let mut wanted = shape.sort.iter().peekable();
    let mut reverse: Option<bool> = None;
    for (key, kind) in index.keys.iter() {
        let Some((path, direction)) = wanted.peek() else {
            break;
        };
        if key == path {
            // "Multikey Indexes", Sorting: a sort over an array field is always a blocking sort.
            if multikey.is_multikey(path) {
                return None;
            }
            let have = Direction::from_index_kind(kind)?;
            let flipped = have != *direction;
            if *reverse.get_or_insert(flipped) != flipped {
                return None;
            }
            wanted.next();
        } else if !shape.eq_all.iter().any(|p| key_matches(index, key, p)) {
            // A key the query does not fix comes before the sort field.
            return None;
        }
    }
    if wanted.peek().is_some() {
        return None;
    }
    Some(reverse.unwrap_or(false))
}

pub(super) fn follows_esr(index: &IndexSpec, shape: &Shape, multikey: &MultikeyPaths) -> bool {
    let keys: Vec<(&str, &IndexKind)> = index.keys.iter().collect();
    let mut i = 0;
    let mut fixed = BTreeSet::new();
    while i < keys.len() && shape.eq_all.contains(keys[i].0) {
        fixed.insert(keys[i].0);
        i += 1;
    }
    if !shape.equality.iter().all(|p| fixed.contains(p.as_str())) {
        return false;
    }
    let mut reverse = None;
    for (path, direction) in &shape.sort {
        let Some((key, kind)) = keys.get(i) else {
            return false;
        };
        let Some(have) = Direction::from_index_kind(kind) else {
            return false;
        };
        let flipped = have != *direction;
        if key != path || multikey.is_multikey(path) || *reverse.get_or_insert(flipped) != flipped {
            return false;
        }
        i += 1;
    }
    let sorted: BTreeSet<&str> = shape.sort.iter().map(|(p, _)| p.as_str()).collect();
    let mut ranges: BTreeSet<&str> = shape
        .range
        .iter()
        .map(String::as_str)
        .filter(|p| !fixed.contains(p) && !sorted.contains(p))
        .collect();
    while !ranges.is_empty() {
        let Some((key, kind)) = keys.get(i) else {
            return false;
        };
        if Direction::from_index_kind(kind).is_none() || !ranges.remove(key) {
            return false;
        }
        i += 1;
    }
    true
}

/// "Covered Queries": every field the query filters, sorts and returns is a plain (ascending or
/// descending) key, none holds arrays, and `_id` is excluded unless it is a key.
pub(super) fn covers(
    index: &IndexSpec,
    query: &QuerySpec,
    shape: &Shape,
    multikey: &MultikeyPaths,
) -> bool {
    // No included field: whole documents (less `_id`) are returned.
    let Some(projection) = query.projection.as_ref().filter(|p| !p.fields.is_empty()) else {
        return false;
    };
    // "Covered Queries": a query comparing a field to null cannot be covered (the index holds
    // null for both a null and a missing field).
    if shape
        .facts
        .iter()
        .any(|(_, f)| matches!(f, Fact::Equals(Bson::Null)))
    {
        return false;
    }
    let plain = |path: &str| {
        index
            .keys
            .iter()
            .any(|(k, kind)| k == path && Direction::from_index_kind(kind).is_some())
            && !multikey.is_multikey(path)
    };
    let mut needed: BTreeSet<&str> = shape.filtered.iter().map(String::as_str).collect();
    needed.extend(query.sort.iter().map(|(p, _)| p.as_str()));
    needed.extend(projection.fields.iter().map(String::as_str));
    if projection.include_id {
        needed.insert("_id");
    }
    needed.into_iter().all(plain)
}
