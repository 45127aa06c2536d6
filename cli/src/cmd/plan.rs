//! `plan`: the ordered server commands that would make live match declared (creates before drops,
//! drops only with `--prune`), with expensive and risky steps marked. Never writes.

use std::collections::BTreeMap;

use anyhow::Context;
use bson::{Bson, doc};
use mongo_schema::collection::CollectionSpec;
use mongo_schema::diff::{self, Change, ChangeKind, Plan, PlanOptions};
use mongodb::Database;

use crate::args::{PlanArgs, PlanFormat};
use crate::catalog::{self, Catalog};
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::{Outcome, cmd, render};

/// Computes and prints the plan; exit 1 when it has steps.
///
/// # Errors
/// No declarations, a bad manifest or catalog file, or a deployment that cannot be read.
pub fn run(
    args: &PlanArgs,
    linked: Option<&[CollectionSpec]>,
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    let declared = cmd::declared(&args.declared, linked)?;
    let (changes, counts) = match &args.live.catalog {
        Some(path) => {
            let catalog = Catalog::from_file(path)?;
            (
                diff::diff(&declared, &catalog.live_specs()?),
                BTreeMap::new(),
            )
        }
        None => block_on(args.live.connect.timeout, async {
            let deployment = deployment::connect(&args.live.connect).await?;
            let names: Vec<String> = declared.iter().map(|s| s.name.clone()).collect();
            let catalog = catalog::read_live(&deployment.db, Some(&names), 16)
                .await
                .map_err(|e| {
                    e.context(format!(
                        "cannot read the catalog of {}",
                        deployment.shown_uri
                    ))
                })?;
            let changes = diff::diff(&declared, &catalog.live_specs()?);
            let counts =
                estimate_counts(&deployment.db, &collections_with_builds(&changes)).await?;
            anyhow::Ok((changes, counts))
        })?,
    };
    let plan = make_plan(&changes, args.prune, counts);
    let text = match args.output.format.unwrap_or(PlanFormat::Text) {
        PlanFormat::Text => render::human::plan(&plan, console.colour),
        PlanFormat::Json => render::json::plan(&plan),
        PlanFormat::Mongosh => render::mongosh::plan_script(&plan),
    };
    console.out(&text);
    Ok(if plan.is_empty() && !diff::has_drift(&changes) {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

/// The plan for `changes`, never dropping without `prune`.
pub fn make_plan(changes: &[Change], prune: bool, counts: BTreeMap<String, u64>) -> Plan {
    let options = PlanOptions {
        prune,
        estimated_documents: counts,
        ..PlanOptions::default()
    };
    diff::plan(changes, &options)
}

/// The collections that would get an index build: those worth an estimated count.
pub fn collections_with_builds(changes: &[Change]) -> Vec<String> {
    let mut names: Vec<String> = changes
        .iter()
        .filter(|c| matches!(c.kind, ChangeKind::MissingIndex | ChangeKind::Rebuild))
        .map(|c| c.collection.clone())
        .collect();
    names.dedup();
    names
}

/// Estimated document counts (`count` without a query: collection metadata, no scan).
///
/// # Errors
/// A count the server refuses.
pub async fn estimate_counts(
    db: &Database,
    names: &[String],
) -> anyhow::Result<BTreeMap<String, u64>> {
    let mut counts = BTreeMap::new();
    for name in names {
        let reply = db
            .run_command(doc! {"count": name})
            .await
            .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
            .with_context(|| format!("counting documents of {name}"))?;
        let n = match reply.get("n") {
            Some(Bson::Int32(n)) => u64::try_from(*n).unwrap_or(0),
            Some(Bson::Int64(n)) => u64::try_from(*n).unwrap_or(0),
            // Counts are whole numbers; some servers send them as doubles.
            Some(Bson::Double(n)) if *n >= 0.0 => *n as u64,
            _ => 0,
        };
        counts.insert(name.clone(), n);
    }
    Ok(counts)
}
