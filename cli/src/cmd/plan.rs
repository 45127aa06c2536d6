//! `plan`: the ordered server commands that would make live match declared (creates before drops,
//! drops only with `--prune`), with expensive and risky steps marked. Never writes.

use std::collections::BTreeMap;

use mongo_schema::collection::CollectionSpec;
use mongo_schema::diff::{self, Change, Plan, PlanOptions};

use crate::args::{PlanArgs, PlanFormat};
use crate::catalog::{self, Catalog};
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::{Outcome, cmd, converge, render};

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
            let counts = converge::estimate_counts(
                &deployment.db,
                &converge::collections_with_builds(&changes),
            )
            .await?;
            anyhow::Ok((changes, counts))
        })?,
    };
    let plan = make_plan(&changes, args.prune, args.hide, counts);
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

/// The plan for `changes`, never dropping without `prune` (and hiding instead with `hide`).
pub fn make_plan(
    changes: &[Change],
    prune: bool,
    hide: bool,
    counts: BTreeMap<String, u64>,
) -> Plan {
    let options = PlanOptions {
        prune,
        hide_before_drop: hide,
        estimated_documents: counts,
        ..PlanOptions::default()
    };
    converge::plan_changes(changes, &options)
}
