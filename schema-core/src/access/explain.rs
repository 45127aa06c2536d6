//! Live confirmation: the explain command for a declared query and its reply.

use bson::{Bson, Document, doc};

use super::multikey::MAX_SCHEMA_DEPTH;
use super::query::QuerySpec;
use super::shape::dedup;
use crate::spec::read;
use crate::spec::{IndexKeys, IndexSpec};

/// The time limit [`explain_command`] callers use by default: 5 seconds per query.
pub const DEFAULT_MAX_TIME_MS: u32 = 5_000;

/// A summary is flagged over-examined when it examined more than this many documents per
/// document returned (`docsExamined > 10 × max(nReturned, 1)`). "Interpret Explain Plan
/// Results": a collection scan reading 10 documents to return 3 is the manual's example of a
/// query an index would improve; ten times the result is where the waste dominates.
pub const OVER_EXAMINED_RATIO: f64 = 10.0;

/// A query's explain command could not be built, or an explain reply could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExplainError {
    /// The sampled document has no value at a field the query compares.
    #[error("query {query:?}: the sampled document has no value at {path:?}")]
    MissingSampleValue {
        /// The query.
        query: String,
        /// The field.
        path: String,
    },
    /// The server answered with an error.
    #[error("explain failed with code {code}: {message}")]
    CommandFailed {
        /// The server's error code (0 when absent).
        code: i32,
        /// The server's `errmsg`.
        message: String,
    },
    /// The reply has no `queryPlanner.winningPlan`.
    #[error("not an explain reply: {reason}")]
    NotAnExplainReply {
        /// What is missing.
        reason: String,
    },
    /// The query runs a search stage on a search index: it has no `find` and no B-tree plan.
    #[error(
        "query {query:?} runs {stage} on the search index {index:?}, not a B-tree plan: explain does not apply"
    )]
    SearchQuery {
        /// The query.
        query: String,
        /// `$search` or `$vectorSearch`.
        stage: &'static str,
        /// The search index.
        index: String,
    },
}

impl ExplainError {
    /// [`ExplainError::SearchQuery`] for a query with a search stage.
    pub fn search_query(query: &QuerySpec) -> Option<ExplainError> {
        query
            .search_stage
            .as_ref()
            .map(|stage| ExplainError::SearchQuery {
                query: query.name.clone(),
                stage: stage.stage_name(),
                index: stage.index().to_owned(),
            })
    }
}

/// The value at a dotted path of a sampled document, descending into arrays (the first element
/// that has the path): the value a query on that path would compare with.
pub(super) fn sampled_value(doc: &Document, path: &str) -> Option<Bson> {
    pub(super) fn walk(value: &Bson, segments: &[&str]) -> Option<Bson> {
        match (value, segments.split_first()) {
            (Bson::Array(items), _) => items.iter().find_map(|v| walk(v, segments)),
            (_, None) => Some(value.clone()),
            (Bson::Document(d), Some((first, rest))) => walk(d.get(*first)?, rest),
            _ => None,
        }
    }
    let segments: Vec<&str> = path.split('.').collect();
    let (first, rest) = segments.split_first()?;
    walk(doc.get(*first)?, rest)
}

/// The `find` filter a query runs with values from `sample`: each equality field equal to its
/// sampled value, each range field `$gte` its sampled value, and the query's `filter`.
///
/// # Errors
/// [`ExplainError::MissingSampleValue`] when `sample` has no value at a compared field.
pub fn sampled_filter(query: &QuerySpec, sample: &Document) -> Result<Document, ExplainError> {
    let value = |path: &String| {
        sampled_value(sample, path).ok_or_else(|| ExplainError::MissingSampleValue {
            query: query.name.clone(),
            path: path.clone(),
        })
    };
    let mut filter = Document::new();
    for path in dedup(&query.equality) {
        let v = value(&path)?;
        filter.insert(path, v);
    }
    for path in dedup(&query.range) {
        if filter.contains_key(&path) {
            continue;
        }
        let v = value(&path)?;
        filter.insert(path, doc! { "$gte": v });
    }
    if let Some(condition) = &query.filter {
        for (k, v) in condition {
            filter.insert(k.clone(), v.clone());
        }
    }
    Ok(filter)
}

/// The `find` command of a query with values from `sample` (see [`sampled_filter`]): its
/// filter, `sort`, `projection` and `limit`.
///
/// # Errors
/// [`ExplainError::MissingSampleValue`] when `sample` has no value at a compared field.
pub fn find_command(
    collection: &str,
    query: &QuerySpec,
    sample: &Document,
) -> Result<Document, ExplainError> {
    if let Some(e) = ExplainError::search_query(query) {
        return Err(e);
    }
    let mut find = doc! { "find": collection, "filter": sampled_filter(query, sample)? };
    if !query.sort.is_empty() {
        let sort: Document = query
            .sort
            .iter()
            .map(|(p, d)| (p.clone(), d.to_bson()))
            .collect();
        find.insert("sort", sort);
    }
    if let Some(projection) = &query.projection {
        find.insert("projection", projection.to_document());
    }
    if let Some(limit) = query.limit {
        find.insert("limit", limit);
    }
    Ok(find)
}

/// The read-only `explain` command for a declared query, run with values sampled from the
/// collection: `{explain: <find>, verbosity: "executionStats", maxTimeMS}`. The time limit sits
/// at the top level, where the explain command honours it (SERVER-28039). Run it on the
/// collection's database (`Database::run_command`).
///
/// ```
/// use mongo_schema::access::{explain_command, QuerySpec};
/// let query = QuerySpec::new("by_user").eq("user_id").sort_desc("created_at").range("total");
/// let sample = bson::doc! { "user_id": 7, "created_at": 1, "total": 20 };
/// assert_eq!(
///     explain_command("orders", &query, &sample, 5_000)?,
///     bson::doc! {
///         "explain": {
///             "find": "orders",
///             "filter": { "user_id": 7, "total": { "$gte": 20 } },
///             "sort": { "created_at": -1 },
///         },
///         "verbosity": "executionStats",
///         "maxTimeMS": 5_000_i64,
///     },
/// );
/// # Ok::<(), mongo_schema::access::ExplainError>(())
/// ```
///
/// # Errors
/// [`ExplainError::MissingSampleValue`] when `sample` has no value at a compared field.
pub fn explain_command(
    collection: &str,
    query: &QuerySpec,
    sample: &Document,
    max_time_ms: u32,
) -> Result<Document, ExplainError> {
    Ok(doc! {
        "explain": find_command(collection, query, sample)?,
        "verbosity": "executionStats",
        "maxTimeMS": i64::from(max_time_ms),
    })
}

/// The read-only `aggregate` command that samples one document for a query: one that matches
/// its `filter` and has every equality and range field, `{$sample: {size: 1}}`, with a time
/// limit. Its first batch's document is the `sample` for [`explain_command`]; an empty batch
/// means the collection holds no document this query could return.
pub fn sample_command(collection: &str, query: &QuerySpec, max_time_ms: u32) -> Document {
    let mut matching = query.filter.clone().unwrap_or_default();
    for path in query.equality.iter().chain(&query.range) {
        if !matching.contains_key(path) {
            matching.insert(path.clone(), doc! { "$exists": true });
        }
    }
    doc! {
        "aggregate": collection,
        "pipeline": [ { "$match": matching }, { "$sample": { "size": 1 } } ],
        "cursor": {},
        "maxTimeMS": i64::from(max_time_ms),
    }
}

/// How the winning plan reads the collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanAccess {
    /// Through an index (`IXSCAN`, `EXPRESS_IXSCAN`, `IDHACK`, `CLUSTERED_IXSCAN`, ...).
    IndexScan,
    /// A collection scan (`COLLSCAN`), on at least one shard.
    CollectionScan,
    /// No read at all (`EOF`: the collection does not exist, or the filter is always false).
    Eof,
    /// None of the stages above was recognised.
    Unknown,
}

/// What an `explain` reply with `executionStats` says about a query's plan ("Explain Results").
///
/// Reads the classic shape (`queryPlanner.winningPlan` as a stage tree), the slot-based engine's
/// (the tree under `winningPlan.queryPlan`, 5.1+; default for eligible queries in 7.0 and 8.0),
/// and the sharded shape (`winningPlan.shards[].winningPlan`, each possibly with `queryPlan`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ExplainSummary {
    /// Index scan, collection scan, or neither.
    pub access: PlanAccess,
    /// The winning plan's stage names, depth first (every shard's in turn).
    pub stages: Vec<String>,
    /// The indexes the winning plan scans, by name, in plan order, without repeats.
    pub indexes: Vec<String>,
    /// Whether the plan has a blocking `SORT` stage ("Explain Results", Sort Stage).
    pub in_memory_sort: bool,
    /// Whether an index scan is not below a `FETCH` and no document was examined ("Explain
    /// Results", Covered Queries).
    pub covered: bool,
    /// The shards that answered, for a sharded collection.
    pub shards: Vec<String>,
    /// `executionStats.totalKeysExamined`.
    pub keys_examined: Option<u64>,
    /// `executionStats.totalDocsExamined`.
    pub docs_examined: Option<u64>,
    /// `executionStats.nReturned`.
    pub n_returned: Option<u64>,
}

#[derive(Default)]
pub(super) struct PlanWalk {
    pub(super) stages: Vec<String>,
    pub(super) indexes: Vec<String>,
    pub(super) collscan: bool,
    pub(super) ixscan: bool,
    pub(super) unfetched_ixscan: bool,
    pub(super) eof: bool,
    pub(super) sort: bool,
    pub(super) shards: Vec<String>,
}

/// Stages that read through an index (8.0 adds the EXPRESS stages).
pub(super) const INDEX_STAGES: &[&str] = &[
    "IXSCAN",
    "EXPRESS_IXSCAN",
    "CLUSTERED_IXSCAN",
    "EXPRESS_CLUSTERED_IXSCAN",
    "IDHACK",
    "COUNT_SCAN",
    "DISTINCT_SCAN",
];

impl PlanWalk {
    /// Walks one winning plan: the slot-based engine's tree sits under `queryPlan`.
    pub(super) fn plan(&mut self, winning: &Document, depth: usize) {
        let root = winning.get_document("queryPlan").unwrap_or(winning);
        self.stage(root, false, depth);
    }

    pub(super) fn stage(&mut self, stage: &Document, under_fetch: bool, depth: usize) {
        if depth > MAX_SCHEMA_DEPTH {
            return;
        }
        let name = stage.get_str("stage").unwrap_or_default();
        if !name.is_empty() {
            self.stages.push(name.to_owned());
        }
        match name {
            "COLLSCAN" => self.collscan = true,
            "SORT" => self.sort = true,
            "EOF" => self.eof = true,
            n if INDEX_STAGES.contains(&n) => {
                self.ixscan = true;
                self.unfetched_ixscan |= !under_fetch;
                let index = match stage.get_str("indexName") {
                    Ok(index) => Some(index.to_owned()),
                    Err(_) if n == "IDHACK" => Some("_id_".to_owned()),
                    Err(_) => stage
                        .get_document("keyPattern")
                        .ok()
                        .map(|k| IndexSpec::new(IndexKeys::from_document(k).0).default_name()),
                };
                if let Some(index) = index {
                    if !self.indexes.contains(&index) {
                        self.indexes.push(index);
                    }
                }
            }
            _ => {}
        }
        let below_fetch = under_fetch || name == "FETCH";
        if let Ok(input) = stage.get_document("inputStage") {
            self.stage(input, below_fetch, depth + 1);
        }
        if let Ok(inputs) = stage.get_array("inputStages") {
            for input in inputs.iter().filter_map(Bson::as_document) {
                self.stage(input, below_fetch, depth + 1);
            }
        }
        if let Ok(shards) = stage.get_array("shards") {
            for shard in shards.iter().filter_map(Bson::as_document) {
                if let Ok(name) = shard.get_str("shardName") {
                    self.shards.push(name.to_owned());
                }
                if let Ok(plan) = shard.get_document("winningPlan") {
                    self.plan(plan, depth + 1);
                }
            }
        }
    }
}

pub(super) fn count(stats: Option<&Document>, field: &str) -> Option<u64> {
    let n = read::number(stats?.get(field)?)?;
    (n.is_finite() && n >= 0.0).then_some(n as u64)
}

impl ExplainSummary {
    /// Reads an `explain` reply (any verbosity; counts need `executionStats`).
    ///
    /// ```
    /// use mongo_schema::access::{ExplainSummary, PlanAccess};
    /// // "Interpret Explain Plan Results": the inventory query without an index.
    /// let reply = bson::doc! {
    ///     "queryPlanner": { "winningPlan": { "queryPlan": { "stage": "COLLSCAN" } } },
    ///     "executionStats": { "nReturned": 3, "totalKeysExamined": 0, "totalDocsExamined": 10 },
    ///     "ok": 1.0,
    /// };
    /// let summary = ExplainSummary::from_reply(&reply)?;
    /// assert_eq!(summary.access, PlanAccess::CollectionScan);
    /// assert_eq!((summary.docs_examined, summary.n_returned), (Some(10), Some(3)));
    /// # Ok::<(), mongo_schema::access::ExplainError>(())
    /// ```
    ///
    /// # Errors
    /// [`ExplainError::CommandFailed`] for an `ok: 0` reply, [`ExplainError::NotAnExplainReply`]
    /// when there is no `queryPlanner.winningPlan`.
    pub fn from_reply(reply: &Document) -> Result<ExplainSummary, ExplainError> {
        if reply.get("ok").and_then(read::number) == Some(0.0) {
            return Err(ExplainError::CommandFailed {
                code: reply
                    .get("code")
                    .and_then(read::number)
                    .map_or(0, |c| c as i32),
                message: reply.get_str("errmsg").unwrap_or_default().to_owned(),
            });
        }
        // An aggregate explain that was not pushed down wraps the find part in `$cursor`.
        let cursor = reply
            .get_array("stages")
            .ok()
            .and_then(|s| s.first())
            .and_then(Bson::as_document)
            .and_then(|s| s.get_document("$cursor").ok());
        let source = match reply.get_document("queryPlanner") {
            Ok(_) => reply,
            Err(_) => cursor.ok_or_else(|| ExplainError::NotAnExplainReply {
                reason: "no queryPlanner".to_owned(),
            })?,
        };
        let winning = source
            .get_document("queryPlanner")
            .and_then(|p| p.get_document("winningPlan"))
            .map_err(|_| ExplainError::NotAnExplainReply {
                reason: "no queryPlanner.winningPlan".to_owned(),
            })?;
        let mut walk = PlanWalk::default();
        walk.plan(winning, 0);
        let later_sort = reply.get_array("stages").is_ok_and(|stages| {
            stages
                .iter()
                .filter_map(Bson::as_document)
                .any(|s| s.contains_key("$sort"))
        });
        let stats = source.get_document("executionStats").ok();
        let docs_examined = count(stats, "totalDocsExamined");
        let access = if walk.collscan {
            PlanAccess::CollectionScan
        } else if walk.ixscan {
            PlanAccess::IndexScan
        } else if walk.eof {
            PlanAccess::Eof
        } else {
            PlanAccess::Unknown
        };
        Ok(ExplainSummary {
            access,
            covered: walk.unfetched_ixscan && !walk.collscan && docs_examined.unwrap_or(0) == 0,
            in_memory_sort: walk.sort || later_sort,
            stages: walk.stages,
            indexes: walk.indexes,
            shards: walk.shards,
            keys_examined: count(stats, "totalKeysExamined"),
            docs_examined,
            n_returned: count(stats, "nReturned"),
        })
    }

    /// The summary as a document for JSON reports (counts are absent without `executionStats`).
    pub fn to_document(&self) -> Document {
        let access = match self.access {
            PlanAccess::IndexScan => "indexScan",
            PlanAccess::CollectionScan => "collectionScan",
            PlanAccess::Eof => "eof",
            PlanAccess::Unknown => "unknown",
        };
        let mut d = doc! {
            "access": access,
            "indexes": self.indexes.clone(),
            "inMemorySort": self.in_memory_sort,
            "covered": self.covered,
            "stages": self.stages.clone(),
        };
        if !self.shards.is_empty() {
            d.insert("shards", self.shards.clone());
        }
        let counts = [
            ("keysExamined", self.keys_examined),
            ("docsExamined", self.docs_examined),
            ("nReturned", self.n_returned),
        ];
        for (name, value) in counts {
            if let Some(n) = value {
                d.insert(
                    name,
                    read::compact_integer(i64::try_from(n).unwrap_or(i64::MAX)),
                );
            }
        }
        d.insert("overExamined", self.is_over_examined());
        d
    }

    /// The first index the plan scans.
    pub fn index(&self) -> Option<&str> {
        self.indexes.first().map(String::as_str)
    }

    /// Documents examined per document returned (`nReturned` of 0 counts as 1); `None` without
    /// `executionStats`.
    pub fn examined_ratio(&self) -> Option<f64> {
        let docs = self.docs_examined?;
        let returned = self.n_returned?.max(1);
        Some(docs as f64 / returned as f64)
    }

    /// Whether the query examined far more documents than it returned: more than
    /// [`OVER_EXAMINED_RATIO`] per document returned.
    pub fn is_over_examined(&self) -> bool {
        self.examined_ratio()
            .is_some_and(|r| r > OVER_EXAMINED_RATIO)
    }
}
