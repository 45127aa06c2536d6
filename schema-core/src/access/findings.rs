//! Lint: every declared query of a collection against its indexes, as findings.

use std::collections::BTreeSet;
use std::fmt;

use bson::{Document, doc};

use super::coverage::coverage;
use super::multikey::MultikeyPaths;
use super::query::{Direction, QuerySpec};
use super::search::{SearchProblem, SearchStage, search_problems};
use crate::finding::{Finding, Severity};
use crate::spec::CollectionSpec;
use crate::spec::{IndexKind, IndexSpec, is_wildcard_path};

/// What a finding is about.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum FindingKind {
    /// No index serves the query: the server scans the collection. `suggested` is the ESR
    /// index to add.
    NoServingIndex {
        /// The index to add.
        suggested: Option<IndexSpec>,
    },
    /// The query filters and sorts on nothing: it reads the whole collection by design.
    UnboundedQuery,
    /// Every serving index leaves the sort to a blocking, in-memory `SORT` stage.
    InMemorySort {
        /// The best serving index.
        index: String,
        /// The ESR index that would give the sort.
        suggested: Option<IndexSpec>,
    },
    /// A projection is declared but no serving index covers it.
    NotCovered {
        /// The best serving index.
        index: String,
    },
    /// A partial index whose keys would serve the query, unusable because the query's
    /// condition does not imply its `partialFilterExpression`.
    PartialFilterNotImplied {
        /// The partial index.
        index: String,
        /// Its filter.
        partial_filter: Document,
    },
    /// An index no declared query uses: a candidate to drop.
    UnusedIndex {
        /// The index.
        index: String,
    },
    /// An index whose key pattern is a prefix of another's (or its reverse): the longer one
    /// serves every query the shorter one does.
    RedundantIndex {
        /// The redundant index.
        index: String,
        /// The index that makes it redundant.
        covered_by: String,
    },
    /// A `$search` or `$vectorSearch` query runs on a search index, not a B-tree plan: index
    /// coverage and `explain` do not apply to it (a note).
    SearchQuery {
        /// The search index.
        index: String,
        /// `$search` or `$vectorSearch`.
        stage: &'static str,
    },
    /// A search query names a search index the collection does not declare.
    UnknownSearchIndex {
        /// The name the query gives.
        index: String,
        /// `$search` or `$vectorSearch`.
        stage: &'static str,
        /// The nearest declared search index name.
        nearest: Option<String>,
    },
    /// A search query names an index of the other type.
    WrongSearchIndexType {
        /// The index.
        index: String,
        /// `$search` or `$vectorSearch`.
        stage: &'static str,
        /// The index's type.
        found: String,
    },
    /// A search query reads a path its index does not index for that stage.
    SearchPathNotIndexed {
        /// The index.
        index: String,
        /// The stored path.
        path: String,
        /// Why it is not covered.
        reason: String,
    },
}

impl FindingKind {
    /// A stable kebab-case name for machine-readable reports: `no-serving-index`,
    /// `unbounded-query`, `in-memory-sort`, `not-covered`, `partial-filter-not-implied`,
    /// `unused-index`, `redundant-index`, `search-query`, `unknown-search-index`,
    /// `wrong-search-index-type`, `search-path-not-indexed`.
    pub fn code(&self) -> &'static str {
        match self {
            FindingKind::NoServingIndex { .. } => "no-serving-index",
            FindingKind::UnboundedQuery => "unbounded-query",
            FindingKind::InMemorySort { .. } => "in-memory-sort",
            FindingKind::NotCovered { .. } => "not-covered",
            FindingKind::PartialFilterNotImplied { .. } => "partial-filter-not-implied",
            FindingKind::UnusedIndex { .. } => "unused-index",
            FindingKind::RedundantIndex { .. } => "redundant-index",
            FindingKind::SearchQuery { .. } => "search-query",
            FindingKind::UnknownSearchIndex { .. } => "unknown-search-index",
            FindingKind::WrongSearchIndexType { .. } => "wrong-search-index-type",
            FindingKind::SearchPathNotIndexed { .. } => "search-path-not-indexed",
        }
    }

    /// The index the finding is about, if any (not the suggested one).
    pub fn index(&self) -> Option<&str> {
        match self {
            FindingKind::InMemorySort { index, .. }
            | FindingKind::NotCovered { index }
            | FindingKind::PartialFilterNotImplied { index, .. }
            | FindingKind::UnusedIndex { index }
            | FindingKind::RedundantIndex { index, .. }
            | FindingKind::SearchQuery { index, .. }
            | FindingKind::UnknownSearchIndex { index, .. }
            | FindingKind::WrongSearchIndexType { index, .. }
            | FindingKind::SearchPathNotIndexed { index, .. } => Some(index),
            FindingKind::NoServingIndex { .. } | FindingKind::UnboundedQuery => None,
        }
    }

    /// The index to add, for a query no index serves well.
    pub fn suggested_index(&self) -> Option<&IndexSpec> {
        match self {
            FindingKind::NoServingIndex { suggested }
            | FindingKind::InMemorySort { suggested, .. } => suggested.as_ref(),
            _ => None,
        }
    }
}

/// One finding of [`lint`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct AccessFinding {
    /// How serious it is.
    pub severity: Severity,
    /// The collection.
    pub collection: String,
    /// The declared query it is about, if any.
    pub query: Option<String>,
    /// What was found.
    pub kind: FindingKind,
}

impl AccessFinding {
    /// The finding as a document for JSON reports: `severity`, `code`, `collection`, then
    /// `query`, `index` and `suggestedIndex` (a `createIndexes` entry) when they apply, and the
    /// human `message`.
    ///
    /// ```
    /// use mongo_schema::access::{lint, QuerySpec};
    /// use mongo_schema::spec::CollectionSpec;
    /// let findings = lint(&CollectionSpec::new("users"), &[QuerySpec::new("by_email").eq("email")]);
    /// let d = findings[0].to_document();
    /// assert_eq!(d.get_str("code")?, "no-serving-index");
    /// assert_eq!(d.get_document("suggestedIndex")?.get_document("key")?, &bson::doc! { "email": 1 });
    /// # Ok::<(), bson::error::Error>(())
    /// ```
    pub fn to_document(&self) -> Document {
        let mut d = doc! {
            "severity": self.severity.to_string(),
            "code": self.kind.code(),
            "collection": &self.collection,
        };
        if let Some(query) = &self.query {
            d.insert("query", query);
        }
        if let Some(index) = self.kind.index() {
            d.insert("index", index);
        }
        if let Some(suggested) = self.kind.suggested_index() {
            d.insert("suggestedIndex", suggested.to_document());
        }
        d.insert("message", self.to_string());
        d
    }
}

impl AccessFinding {
    /// What was found, after the collection: `query "by_user": no index serves it, ...`.
    pub fn message(&self) -> String {
        let suggestion = |s: &Option<IndexSpec>| match s {
            Some(index) => format!("; add the index {} (ESR order)", index.keys),
            None => String::new(),
        };
        let what = match &self.kind {
            FindingKind::NoServingIndex { suggested } => format!(
                "no index serves it, the server scans the collection{}",
                suggestion(suggested)
            ),
            FindingKind::UnboundedQuery => {
                "filters and sorts on nothing, it reads the whole collection".to_owned()
            }
            FindingKind::InMemorySort { index, suggested } => format!(
                "index {index:?} does not give the sort, the server sorts in memory{}",
                suggestion(suggested)
            ),
            FindingKind::NotCovered { index } => {
                format!("index {index:?} does not cover the projection, documents are fetched")
            }
            FindingKind::PartialFilterNotImplied {
                index,
                partial_filter,
            } => format!(
                "partial index {index:?} is not usable, the query's condition does not imply {partial_filter}"
            ),
            FindingKind::UnusedIndex { index } => {
                format!("index {index:?} serves no declared query")
            }
            FindingKind::RedundantIndex { index, covered_by } => {
                format!(
                    "index {index:?} is a prefix of {covered_by:?}, which serves the same queries"
                )
            }
            FindingKind::SearchQuery { index, stage } => format!(
                "runs {stage} on the search index {index:?}, not a B-tree plan: index coverage \
                 and explain do not apply"
            ),
            FindingKind::UnknownSearchIndex {
                index,
                stage,
                nearest,
            } => {
                let hint = nearest
                    .as_ref()
                    .map(|n| format!("; did you mean {n:?}?"))
                    .unwrap_or_default();
                format!("{stage} names the search index {index:?}, which is not declared{hint}")
            }
            FindingKind::WrongSearchIndexType {
                index,
                stage,
                found,
            } => {
                let wanted = if *stage == "$search" {
                    "search"
                } else {
                    "vectorSearch"
                };
                format!("{stage} needs a {wanted} index, but {index:?} is a {found} index")
            }
            FindingKind::SearchPathNotIndexed {
                index,
                path,
                reason,
            } => format!("search index {index:?} does not index {path:?}: {reason}"),
        };
        match &self.query {
            Some(query) => format!("query {query:?}: {what}"),
            None => what,
        }
    }

    /// The finding as every report prints it: the rule's code, and the declared query's name
    /// (or the index's, for an index finding) as the path.
    pub fn to_finding(&self) -> Finding {
        let path = self
            .query
            .as_deref()
            .or(self.kind.index())
            .unwrap_or_default();
        Finding::new(
            &self.collection,
            self.severity,
            self.kind.code(),
            path,
            self.message(),
        )
    }
}

impl fmt::Display for AccessFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.severity,
            self.collection,
            self.message()
        )
    }
}

/// Whether any finding is an error (the CLI's exit code 1).
pub fn has_errors(findings: &[AccessFinding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// The `_id_` index every collection has (or the clustered index, which serves `_id` alike).
pub(super) fn id_index() -> IndexSpec {
    IndexSpec::new([("_id", IndexKind::Ascending)]).name("_id_")
}

/// Checks every declared query of a collection against its indexes, with the array paths of
/// its `$jsonSchema` validator as multikey paths ([`MultikeyPaths::from_collection`]).
///
/// ```
/// use mongo_schema::access::{lint, has_errors, QuerySpec};
/// use mongo_schema::spec::CollectionSpec;
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// let orders = CollectionSpec::new("orders")
///     .index(IndexSpec::new([("user_id", Ascending), ("created_at", Descending)]));
/// let queries = [QuerySpec::new("by_user").eq("user_id").sort_desc("created_at")];
/// assert!(!has_errors(&lint(&orders, &queries)));
/// let bare = CollectionSpec::new("orders");
/// let findings = lint(&bare, &queries);
/// assert!(has_errors(&findings));
/// assert!(findings[0].to_string().contains(r#"add the index { "user_id": 1, "created_at": -1 }"#));
/// ```
pub fn lint(spec: &CollectionSpec, queries: &[QuerySpec]) -> Vec<AccessFinding> {
    lint_with(spec, queries, &MultikeyPaths::from_collection(spec))
}

/// [`lint`] with explicit multikey paths (for a spec without a `$jsonSchema`, or paths known
/// from the data).
///
/// Findings come per query in declaration order, then unused indexes, then redundant ones.
/// Unused indexes are reported only when at least one query is declared, and never for the
/// indexes that do work besides serving queries: unique, TTL, the shard key's, hidden ones
/// (already ignored by the planner), text and geospatial ones (their operators are not modelled).
pub fn lint_with(
    spec: &CollectionSpec,
    queries: &[QuerySpec],
    multikey: &MultikeyPaths,
) -> Vec<AccessFinding> {
    let mut indexes = vec![id_index()];
    indexes.extend(spec.indexes.iter().cloned());
    let mut findings = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    let finding = |severity, query: &QuerySpec, kind| AccessFinding {
        severity,
        collection: spec.name.clone(),
        query: Some(query.name.clone()),
        kind,
    };
    for query in queries {
        if let Some(stage) = &query.search_stage {
            findings.extend(
                search_findings(spec, stage)
                    .into_iter()
                    .map(|(severity, kind)| finding(severity, query, kind)),
            );
            continue;
        }
        let found = coverage(&indexes, query, multikey);
        used.extend(found.serving.iter().map(|u| u.index.clone()));
        match found.best() {
            None if query.is_unbounded() => {
                findings.push(finding(
                    Severity::Warning,
                    query,
                    FindingKind::UnboundedQuery,
                ));
            }
            None => findings.push(finding(
                Severity::Error,
                query,
                FindingKind::NoServingIndex {
                    suggested: found.suggested.clone(),
                },
            )),
            Some(best) => {
                if best.in_memory_sort {
                    findings.push(finding(
                        Severity::Warning,
                        query,
                        FindingKind::InMemorySort {
                            index: best.index.clone(),
                            suggested: found.suggested.clone(),
                        },
                    ));
                }
                if query.projection.is_some() && !found.is_covered() {
                    findings.push(finding(
                        Severity::Note,
                        query,
                        FindingKind::NotCovered {
                            index: best.index.clone(),
                        },
                    ));
                }
            }
        }
        for name in &found.partial_not_implied {
            let Some(index) = indexes.iter().find(|i| i.effective_name() == *name) else {
                continue;
            };
            findings.push(finding(
                if found.is_served() {
                    Severity::Note
                } else {
                    Severity::Warning
                },
                query,
                FindingKind::PartialFilterNotImplied {
                    index: name.clone(),
                    partial_filter: index.partial_filter_expression.clone().unwrap_or_default(),
                },
            ));
        }
    }
    if queries.iter().any(|q| q.search_stage.is_none()) {
        for index in &spec.indexes {
            let name = index.effective_name();
            if !used.contains(&name) && may_be_unused(index, spec) {
                findings.push(AccessFinding {
                    severity: Severity::Note,
                    collection: spec.name.clone(),
                    query: None,
                    kind: FindingKind::UnusedIndex { index: name },
                });
            }
        }
    }
    for index in &spec.indexes {
        if let Some(longer) = spec.indexes.iter().find(|o| is_redundant(index, o)) {
            findings.push(AccessFinding {
                severity: Severity::Warning,
                collection: spec.name.clone(),
                query: None,
                kind: FindingKind::RedundantIndex {
                    index: index.effective_name(),
                    covered_by: longer.effective_name(),
                },
            });
        }
    }
    findings
}

/// A search query's findings: an error per problem of [`search_problems`], or the note that
/// it runs on its search index and not on a B-tree plan.
fn search_findings(spec: &CollectionSpec, stage: &SearchStage) -> Vec<(Severity, FindingKind)> {
    let index = stage.index().to_owned();
    let problems = search_problems(spec, stage);
    if problems.is_empty() {
        return vec![(
            Severity::Note,
            FindingKind::SearchQuery {
                index,
                stage: stage.stage_name(),
            },
        )];
    }
    problems
        .into_iter()
        .map(|problem| {
            let kind = match problem {
                SearchProblem::UnknownIndex { nearest } => FindingKind::UnknownSearchIndex {
                    index: index.clone(),
                    stage: stage.stage_name(),
                    nearest,
                },
                SearchProblem::WrongType { found } => FindingKind::WrongSearchIndexType {
                    index: index.clone(),
                    stage: stage.stage_name(),
                    found,
                },
                SearchProblem::PathNotIndexed { path, reason } => {
                    FindingKind::SearchPathNotIndexed {
                        index: index.clone(),
                        path,
                        reason,
                    }
                }
            };
            (Severity::Error, kind)
        })
        .collect()
}

pub(super) fn may_be_unused(index: &IndexSpec, spec: &CollectionSpec) -> bool {
    let keys = &index.keys;
    let special = keys.iter().any(|(_, k)| {
        matches!(
            k,
            IndexKind::Text | IndexKind::TwoD | IndexKind::TwoDSphere | IndexKind::Other(_)
        )
    });
    let shard_key = spec
        .shard_key
        .as_ref()
        .is_some_and(|s| keys.0.starts_with(&s.keys.0));
    !(index.unique
        || index.prepare_unique
        || index.expire_after_seconds.is_some()
        || index.hidden
        || special
        || shard_key
        || index.is_id())
}

/// Whether `index` is redundant beside `longer`: its key pattern is a strict prefix of
/// `longer`'s, with the same directions or every direction reversed, and neither index has an
/// option that changes what it holds or does. Unique (a constraint), partial and sparse (a
/// subset of documents), TTL (expiry), collation (string order), hidden, and text, hashed,
/// wildcard and geospatial indexes are never redundant by prefix alone.
pub(super) fn is_redundant(index: &IndexSpec, longer: &IndexSpec) -> bool {
    let plain = |i: &IndexSpec| {
        !i.sparse
            && !i.hidden
            && i.partial_filter_expression.is_none()
            && i.keys
                .iter()
                .all(|(p, k)| Direction::from_index_kind(k).is_some() && !is_wildcard_path(p))
    };
    if index.unique
        || index.prepare_unique
        || index.expire_after_seconds.is_some()
        || index.collation != longer.collation
        || !plain(index)
        || !plain(longer)
    {
        return false;
    }
    let short = &index.keys.0;
    let long = &longer.keys.0;
    if short.len() >= long.len() {
        return false;
    }
    let same = short.iter().zip(long).all(|(a, b)| a == b);
    let reversed = short.iter().zip(long).all(|((pa, ka), (pb, kb))| {
        pa == pb
            && Direction::from_index_kind(ka).map(Direction::reversed)
                == Direction::from_index_kind(kb)
    });
    same || reversed
}
