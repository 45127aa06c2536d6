//! Access patterns: declared queries ([`QuerySpec`]) checked against a collection's indexes.
//!
//! Declarations (the derive, or hand-written code) build `QuerySpec`s; [`coverage`] and [`lint`]
//! judge them statically against a [`CollectionSpec`](crate::spec::CollectionSpec)'s indexes by the server's index-selection
//! rules; [`explain_command`] and [`ExplainSummary`] confirm them on a live deployment.
//!
//! # The rules, and the manual pages they come from
//! - "The ESR (Equality, Sort, Range) Guideline": an index serves a query best when its leading
//!   fields are the equality fields (in any order), then the sort fields, then the range fields.
//! - "Use Indexes to Sort Query Results": an index provides a sort when the sort fields follow
//!   each other in the key pattern, each in the declared direction or each reversed (the index is
//!   scanned backwards), after leading fields that the query fixes by equality; otherwise the
//!   plan has a blocking, in-memory `SORT` stage.
//! - "Multikey Indexes": a sort on a field holding arrays is always a blocking sort (since 3.6), and
//!   an index cannot cover a query over an array field.
//! - "Covered Queries": an index covers a query when every field the query filters, sorts and
//!   returns is an index key, and `_id` is excluded from the projection or is itself a key.
//! - "Partial Indexes": the planner uses a partial index only when the query's condition implies
//!   the `partialFilterExpression`.
//! - "Hashed Indexes": a hashed field supports equality only; "Text Indexes" and the geospatial
//!   indexes (`2d`, `2dsphere`, sparse by construction) serve only their own query operators,
//!   which declared queries do not model; "Sparse Indexes": the planner uses a sparse index only
//!   when the query's condition excludes documents missing the field; a hidden index is not
//!   considered by the planner at all.
//!
//! Values of declared equality and range fields are not known statically; they are assumed not
//! to be `null`, so each such field implies `$exists: true`.
//!
//! - A query declared with a `$search` or `$vectorSearch` stage runs on a search index (`mongot`),
//!   not through the planner: [`search_problems`] checks it against the collection's search
//!   indexes instead, and neither coverage nor `explain` considers it.
//!
//! Not modelled (the live `explain` is the check for these): collation (a string comparison
//! uses an index only when the query's collation is the index's), `$in` and `$or` shapes, index
//! intersection, geospatial and text operators, and the planner's choice among several serving
//! indexes (the best one here is ranked by the rules above, not by the server's trial runs).

mod coverage;
mod explain;
mod findings;
mod implication;
mod multikey;
mod query;
mod search;
mod shape;
#[cfg(test)]
mod tests;

pub use coverage::{Coverage, IndexUse, coverage, suggest_index};
pub use explain::{
    DEFAULT_MAX_TIME_MS, ExplainError, ExplainSummary, OVER_EXAMINED_RATIO, PlanAccess,
    explain_command, find_command, sample_command, sampled_filter,
};
pub use findings::{AccessFinding, FindingKind, has_errors, lint, lint_with};
pub use multikey::MultikeyPaths;
pub use query::{
    Direction, Projection, QueryRegistration, QuerySpec, registered_queries, resolve_all,
};
pub use search::{SearchProblem, SearchStage, search_problems};
