//! `check`: declared against live, after normalizing both; every difference classified by what
//! fixing it would take. Exit 0 in sync, 1 drift, 2 could not check. Never writes.

use mongo_schema::diff::{self, Change};
use mongo_schema::spec::CollectionSpec;

use crate::args::{CheckArgs, LiveArgs, ReportFormat};
use crate::catalog::{self, Catalog};
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::{Outcome, cmd, converge, render};

/// Compares and prints the report.
///
/// # Errors
/// No declarations, a bad manifest or catalog file, or a deployment that cannot be read.
pub fn run(
    args: &CheckArgs,
    linked: Option<&[CollectionSpec]>,
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    let declared = cmd::declared(&args.declared, linked)?;
    converge::check_declared(&declared)?;
    let catalog = live_catalog(&args.live, &declared, args.concurrency)?;
    let changes = diff::diff(&declared, &catalog.live_specs()?);
    let file = args.declared.manifest.as_deref();
    let found = &catalog.inconsistencies;
    let text = match args.output.format.unwrap_or(ReportFormat::Text) {
        ReportFormat::Text => render::human::report(&changes, found, console.colour),
        ReportFormat::Json => render::json::changes_and_inconsistencies(&changes, found),
        ReportFormat::Github => {
            render::github::inconsistencies(found, file) + &render::github::changes(&changes, file)
        }
    };
    console.out(&text);
    // Declared search indexes on a deployment that cannot list them: that part could not be
    // checked (exit 2), the rest is reported above.
    if let Some(reason) = &catalog.search_unavailable
        && declared.iter().any(|s| !s.search_indexes.is_empty())
    {
        console.err(&format!(
            "search indexes not checked: the deployment does not list them ({reason})\n"
        ));
        return Ok(Outcome::Failed);
    }
    // An index that differs across shards is drift the server itself reports.
    Ok(if found.is_empty() {
        outcome(&changes)
    } else {
        Outcome::Findings
    })
}

/// Exit 1 when any change is drift.
pub fn outcome(changes: &[Change]) -> Outcome {
    if diff::has_drift(changes) {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}

/// The live catalog from `--catalog FILE`, or from the deployment (indexes of the declared
/// collections only: the others are reported from listCollections alone).
///
/// # Errors
/// A bad catalog file, or a deployment that cannot be read.
pub fn live_catalog(
    live: &LiveArgs,
    declared: &[CollectionSpec],
    concurrency: usize,
) -> anyhow::Result<Catalog> {
    if let Some(path) = &live.catalog {
        return Catalog::from_file(path);
    }
    let names: Vec<String> = declared.iter().map(|s| s.name.clone()).collect();
    block_on(live.connect.timeout, async {
        let deployment = deployment::connect(&live.connect).await?;
        catalog::read_live(&deployment.db, Some(&names), concurrency)
            .await
            .map_err(|e| {
                e.context(format!(
                    "cannot read the catalog of {}",
                    deployment.shown_uri
                ))
            })
    })
}
