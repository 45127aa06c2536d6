//! `plan`: the ordered server commands that would make live match declared (creates before drops,
//! drops only with `--prune`), with expensive and risky steps marked. Never writes.

use mongo_schema::diff::{self, PlanOptions};
use mongo_schema::spec::CollectionSpec;

use crate::args::{PlanArgs, PlanFormat};
use crate::catalog::Catalog;
use crate::cmd::plan_indexes;
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::{Outcome, cmd, converge, render};

/// Computes and prints the plan; exit 1 when there is drift to act on or report.
///
/// # Errors
/// No declarations, a bad manifest or catalog file, or a deployment that cannot be read.
pub fn run(
    args: &PlanArgs,
    linked: Option<&[CollectionSpec]>,
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    let declared = cmd::declared(&args.declared, linked)?;
    converge::check_declared(&declared)?;
    let policy = args.indexes.policy();
    let options = PlanOptions {
        prune: args.prune,
        hide_before_drop: args.hide,
        ..PlanOptions::default()
    };
    let (changes, plan) = match &args.live.catalog {
        // A file has no document counts: every index build is marked of unknown size.
        Some(path) => {
            let catalog = Catalog::from_file(path)?;
            let changes = diff::diff(&declared, &catalog.live_specs()?);
            let plan = plan_indexes::from_file(&changes, &options, &policy);
            (changes, plan)
        }
        None => block_on(args.live.connect.timeout, async {
            let deployment = deployment::connect(&args.live.connect).await?;
            converge::plan_with(&deployment.db, &declared, options, &policy)
                .await
                .map_err(|e| {
                    e.context(format!(
                        "cannot read the catalog of {}",
                        deployment.shown_uri
                    ))
                })
        })?,
    };
    let text = match args.output.format.unwrap_or(PlanFormat::Text) {
        PlanFormat::Text => {
            render::human::plan(&plan, console.colour)
                + &converge::summary(&declared, &changes, &plan, args.prune)
        }
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
