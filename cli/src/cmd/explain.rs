//! `explain`: each declared query of the linked collections, run with `explain`
//! (`executionStats`) on a deployment with values sampled from the collection: the winning plan
//! (index scan and which index, or collection scan), an in-memory sort, keys and documents
//! examined, documents returned. Exit 1 when a query scans the collection or examines far more
//! documents than it returns. Read-only: `aggregate` ($match, $sample) and `explain` of a `find`,
//! each with `maxTimeMS`.
//!
//! A query is skipped, with the reason, when no document can be sampled for it and no sample
//! values are given (`--sample-values FILE`), or when the server's reply is not an explain of the
//! expected shape; the other queries go on. A run in which every query was skipped checked
//! nothing: exit 2, not a pass.

use std::time::Duration;

use anyhow::{Context as _, bail};
use bson::{Bson, Document, doc};
use clap::Args;
use mongo_schema::access::{self, ExplainSummary, PlanAccess, QuerySpec};
use mongo_schema::spec::CollectionSpec;
use mongodb::Database;

use crate::args::{ConnectArgs, DeclaredArgs, OutputArgs, parse_duration};
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::{Outcome, cmd};

/// `explain`.
#[derive(Clone, Debug, Args)]
pub struct ExplainArgs {
    /// Declared collections (their queries are declared on the linked types).
    #[command(flatten)]
    pub declared: DeclaredArgs,
    /// The deployment.
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Output format (default text).
    #[command(flatten)]
    pub output: OutputArgs<ExplainFormat>,
    /// Server-side time limit (`maxTimeMS`) of each sample and each explain.
    #[arg(long, default_value = "10s", value_parser = parse_duration, value_name = "DURATION")]
    pub max_time: Duration,
    /// Values to explain with where a collection has no document to sample (an empty collection
    /// in CI): a JSON object of one document per collection, `{"orders": {"user_id": 7,
    /// "status": "PAID"}}` (Extended JSON for ObjectId, dates, ...). Only the fields a query
    /// filters on are read; a collection with documents is sampled as usual.
    #[arg(long, value_name = "FILE")]
    pub sample_values: Option<std::path::PathBuf>,
}

/// Formats of the explain report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainFormat {
    /// Readable on a terminal.
    Text,
    /// One JSON document.
    Json,
    /// GitHub Actions annotations: an error per query not served by an index, a notice per
    /// skipped query, then a summary notice.
    Github,
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

/// Explains every declared query of the declared collections.
///
/// # Errors
/// No declarations, connection failure, a timeout, or a command the server refuses (including
/// one over `--max-time`).
pub fn run(
    args: &ExplainArgs,
    linked: Option<&[CollectionSpec]>,
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    let specs = cmd::declared(&args.declared, linked)?;
    let registered = access::registered_queries().context("resolving the declared queries")?;
    let work: Vec<(String, Vec<QuerySpec>)> = specs
        .iter()
        .filter_map(|spec| {
            let queries = cmd::lint::scoped(spec, registered.get(&spec.name)?);
            (!queries.is_empty()).then(|| (spec.name.clone(), queries))
        })
        .collect();
    let max_time_ms = u32::try_from(args.max_time.as_millis()).unwrap_or(u32::MAX);
    let given = match &args.sample_values {
        Some(path) => sample_values(path)?,
        None => Document::new(),
    };
    let reports = block_on(args.connect.timeout, async {
        let deployment = deployment::connect(&args.connect).await?;
        let mut reports = Vec::new();
        for (collection, queries) in &work {
            for query in queries {
                let given = given.get_document(collection).ok();
                let report = explain_one(&deployment.db, collection, query, given, max_time_ms)
                    .await
                    .with_context(|| format!("explaining {collection} query {:?}", query.name))?;
                reports.push(report);
            }
        }
        anyhow::Ok(reports)
    })?;
    let text = match args.output.format.unwrap_or(ExplainFormat::Text) {
        ExplainFormat::Text => text(&reports),
        ExplainFormat::Json => json(&reports),
        ExplainFormat::Github => github(&reports, args.declared.manifest.as_deref()),
    };
    console.out(&text);
    // Issue 16 item 7: a run that checked nothing is not a pass.
    if reports.iter().all(|r| r.summary.is_none()) {
        if reports.is_empty() {
            bail!("explain checked nothing: no declared collection has a declared query");
        }
        bail!(
            "explain checked nothing: every one of the {} queries was skipped; store documents \
             in the collections, or give values to explain with: --sample-values FILE",
            reports.len()
        );
    }
    Ok(if reports.iter().any(QueryReport::is_finding) {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// A command's reply; `Ok(Err(reason))` when the server refused it (that query is then left
/// unexplained and the others go on), `Err` when the deployment could not answer at all.
async fn run_command(db: &Database, command: Document) -> anyhow::Result<Result<Document, String>> {
    match db.run_command(command).await {
        Ok(reply) => Ok(Ok(reply)),
        Err(e) if matches!(*e.kind, mongodb::error::ErrorKind::Command(_)) => {
            Ok(Err(deployment::explain(&e)))
        }
        Err(e) => Err(anyhow::anyhow!("{}", deployment::explain(&e))),
    }
}

/// Reads `--sample-values FILE`: one document per collection name.
///
/// # Errors
/// The file cannot be read, is not Extended JSON, or is not an object of documents.
fn sample_values(path: &std::path::Path) -> anyhow::Result<Document> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read sample values file {}", path.display()))?;
    let value = mongo_schema::extjson::parse(&text)
        .with_context(|| format!("bad sample values file {}", path.display()))?;
    let Bson::Document(by_collection) = value else {
        bail!(
            "bad sample values file {}: expected an object of one document per collection",
            path.display()
        );
    };
    if let Some((name, _)) = by_collection
        .iter()
        .find(|(_, v)| v.as_document().is_none())
    {
        bail!(
            "bad sample values file {}: at $.{name}: expected a document of field values",
            path.display()
        );
    }
    Ok(by_collection)
}

async fn explain_one(
    db: &Database,
    collection: &str,
    query: &QuerySpec,
    given: Option<&Document>,
    max_time_ms: u32,
) -> anyhow::Result<QueryReport> {
    let skipped = |reason: String| QueryReport {
        collection: collection.to_owned(),
        query: query.name.clone(),
        summary: None,
        skipped: Some(reason),
    };
    let reply = match run_command(db, access::sample_command(collection, query, max_time_ms))
        .await?
    {
        Ok(reply) => reply,
        Err(refused) => return Ok(skipped(format!("the server refused the sample: {refused}"))),
    };
    let sample = reply
        .get_document("cursor")
        .ok()
        .and_then(|c| c.get_array("firstBatch").ok())
        .and_then(|b| b.first())
        .and_then(Bson::as_document)
        .cloned()
        .or_else(|| given.cloned());
    let Some(sample) = sample else {
        return Ok(skipped(NO_SAMPLE.to_owned()));
    };
    let command = access::explain_command(collection, query, &sample, max_time_ms)?;
    let reply = match run_command(db, command).await? {
        Ok(reply) => reply,
        Err(refused) => {
            return Ok(skipped(format!(
                "the server refused the explain: {refused}"
            )));
        }
    };
    // A reply without an explain's shape (a proxy, a server that answers otherwise) leaves this
    // query unexplained, with the reason; the others still run.
    Ok(match ExplainSummary::from_reply(&reply) {
        Ok(summary) => QueryReport {
            collection: collection.to_owned(),
            query: query.name.clone(),
            summary: Some(summary),
            skipped: None,
        },
        Err(e) => skipped(format!("the explain reply was not understood: {e}")),
    })
}

/// Why a query of a collection with no document is skipped.
const NO_SAMPLE: &str = "no document to sample values from (give some with --sample-values FILE)";

/// What explain said about one query, in one line (`IXSCAN status_1, keys examined ...`).
fn plan_line(r: &QueryReport) -> String {
    match &r.summary {
        None => format!("skipped: {}", r.skipped.as_deref().unwrap_or(NO_SAMPLE)),
        Some(s) => {
            let plan = match (s.access, s.index()) {
                (PlanAccess::IndexScan, Some(index)) => format!("IXSCAN {index}"),
                (PlanAccess::IndexScan, None) => "IXSCAN".to_owned(),
                (PlanAccess::CollectionScan, _) => "COLLSCAN".to_owned(),
                (PlanAccess::Eof, _) => "EOF".to_owned(),
                (PlanAccess::Unknown, _) => "unknown plan".to_owned(),
            };
            let n = |v: Option<u64>| v.map_or_else(|| "?".to_owned(), |v| v.to_string());
            let mut line = format!(
                "{plan}{}, keys examined {}, docs examined {}, returned {}",
                if s.in_memory_sort {
                    ", in-memory sort"
                } else {
                    ""
                },
                n(s.keys_examined),
                n(s.docs_examined),
                n(s.n_returned)
            );
            if s.is_over_examined() {
                line.push_str(" [over-examined]");
            }
            line
        }
    }
}

/// The closing count.
fn tally(reports: &[QueryReport]) -> String {
    let bad = reports.iter().filter(|r| r.is_finding()).count();
    format!(
        "explain: {} queries, {bad} not served by an index",
        reports.len()
    )
}

/// The report for a terminal: one line per query, then a count.
pub fn text(reports: &[QueryReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let mark = if r.is_finding() { "error" } else { "ok" };
        out.push_str(&format!(
            "{mark}: {}.{}: {}\n",
            r.collection,
            r.query,
            plan_line(r)
        ));
    }
    out.push_str(&tally(reports));
    out.push('\n');
    out
}

/// The report as GitHub Actions annotations (on `file` when the declarations came from one).
pub fn github(reports: &[QueryReport], file: Option<&std::path::Path>) -> String {
    use crate::render::{Severity, github::annotation};
    let mut out = String::new();
    for r in reports {
        let title = format!("mongo-schema explain: {}.{}", r.collection, r.query);
        if r.is_finding() {
            let message = format!("not served by an index: {}", plan_line(r));
            out.push_str(&annotation(Severity::Error, file, &title, &message));
        } else if r.summary.is_none() {
            out.push_str(&annotation(Severity::Note, file, &title, &plan_line(r)));
        }
    }
    out.push_str(&annotation(
        Severity::Note,
        file,
        "mongo-schema explain",
        &tally(reports),
    ));
    out
}

/// The report as one JSON document: `{"queries": [...]}`.
pub fn json(reports: &[QueryReport]) -> String {
    let queries: Vec<Bson> = reports
        .iter()
        .map(|r| {
            let mut d = doc! { "collection": &r.collection, "query": &r.query };
            match &r.summary {
                Some(s) => {
                    d.insert("plan", s.to_document());
                }
                None => {
                    d.insert("skipped", r.skipped.as_deref().unwrap_or(NO_SAMPLE));
                }
            }
            d.insert("finding", r.is_finding());
            Bson::Document(d)
        })
        .collect();
    let value = Bson::Document(doc! { "queries": queries }).into_relaxed_extjson();
    let mut text = serde_json::to_string_pretty(&value).expect("a JSON value always serializes");
    text.push('\n');
    text
}
