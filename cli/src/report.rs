//! What renderers read: the reports commands build from the server's replies and the core's
//! results (an audit per collection, an explain per query, a run of a plan).

use bson::Bson;
use mongo_schema::access::{ExplainSummary, PlanAccess};
use mongo_schema::diff::Step;

/// What the audit found for one collection.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionAudit {
    /// The collection.
    pub collection: String,
    /// Whether the collection exists on the deployment.
    pub exists: bool,
    /// Documents in the collection.
    pub total: i64,
    /// Documents the declared validator rejects.
    pub rejected: i64,
    /// Some rejected documents: their `_id` and the local evaluator's explanation.
    pub samples: Vec<Sample>,
    /// With `--by-version`: (version value, documents, rejected documents), by version.
    pub by_version: Vec<(Bson, i64, i64)>,
}

/// One rejected document.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Its `_id`.
    pub id: Bson,
    /// One line per failed rule, `path: what is wrong`.
    pub reasons: Vec<String>,
}

/// What explain said about one declared query.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryReport {
    /// The collection.
    pub collection: String,
    /// The declared query's name.
    pub query: String,
    /// The plan, or `None` when no document of the collection could be sampled for it.
    pub summary: Option<ExplainSummary>,
    /// Why the query was not explained, when it was not: no document to sample values from, or
    /// a reply without the shape of an explain (with what was missing).
    pub skipped: Option<String>,
}

impl QueryReport {
    /// Whether the query is not proven served by an index: a collection scan, a plan with no
    /// recognised stage, or over-examined. A skipped query (no sample) is not a finding.
    pub fn is_finding(&self) -> bool {
        self.summary.as_ref().is_some_and(|s| {
            matches!(s.access, PlanAccess::CollectionScan | PlanAccess::Unknown)
                || s.is_over_examined()
        })
    }
}

/// How a run of a plan ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// Steps the server accepted and whose effect was read back, in order.
    pub done: Vec<Step>,
    /// Steps that failed, each with why in one sentence: the server refused it (with its code),
    /// or acknowledged it without storing what it asked for (read back after the step).
    pub failed: Vec<(Step, String)>,
    /// Steps not run because a step they need ([`Step::depends_on`]) failed, with which.
    pub blocked: Vec<(Step, String)>,
    /// Steps not attempted because the deployment went away (connection lost, shutdown, no
    /// longer primary): nothing more can be done in this run.
    pub remaining: Vec<Step>,
}

impl Applied {
    /// Whether every step ran and stuck.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty() && self.blocked.is_empty() && self.remaining.is_empty()
    }
}

/// Why a query of a collection with no document is skipped.
pub(crate) const NO_SAMPLE: &str =
    "no document to sample values from (give some with --sample-values FILE)";
