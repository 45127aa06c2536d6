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

use anyhow::{Context as _, bail};
use bson::{Bson, Document};
use mongo_schema::access::{self, ExplainSummary, QuerySpec};
use mongo_schema::plural::count;
use mongo_schema::spec::CollectionSpec;
use mongodb::Database;

use crate::args::{ExplainArgs, ExplainFormat};
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::report::{NO_SAMPLE, QueryReport};
use crate::{Outcome, cmd, render};

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
        ExplainFormat::Text => render::human::explain(&reports),
        ExplainFormat::Json => render::json::explain(&reports),
        ExplainFormat::Github => {
            render::github::explain(&reports, args.declared.manifest.as_deref())
        }
    };
    console.out(&text);
    // Issue 16 item 7: a run that checked nothing is not a pass.
    if reports.iter().all(|r| r.summary.is_none()) {
        if reports.is_empty() {
            bail!("explain checked nothing: no declared collection has a declared query");
        }
        bail!(
            "explain checked nothing: {} skipped, which is every declared query; store \
             documents in the collections, or give values to explain with: --sample-values FILE",
            count(reports.len(), "query")
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
    if let Some(search) = access::ExplainError::search_query(query) {
        return Ok(skipped(search.to_string()));
    }
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
