//! `apply`: runs the plan. On a terminal it shows the plan and asks; elsewhere it refuses without
//! `--yes`. It stops at the first failure and reports what was done, what failed and what
//! remains; running it again converges, and on an applied deployment it says so and does nothing.

use mongo_schema::collection::CollectionSpec;
use mongo_schema::diff::{self, Step};

use crate::args::ApplyArgs;
use crate::catalog;
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::render::human::{Paint, paint};
use crate::{Outcome, cmd, render};

/// How a run of the plan ended.
#[derive(Debug)]
pub struct Applied {
    /// Steps the server accepted, in order.
    pub done: Vec<Step>,
    /// The step the server refused, with its error.
    pub failed: Option<(Step, String)>,
    /// Steps not attempted.
    pub remaining: Vec<Step>,
}

/// Plans, confirms, and runs.
///
/// # Errors
/// No declarations, a deployment that cannot be read, `--yes` missing off a terminal, or a step
/// the server refuses (after the report of what was done).
pub fn run(
    args: &ApplyArgs,
    linked: Option<&[CollectionSpec]>,
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    let declared = cmd::declared(&args.declared, linked)?;
    let colour = console.colour;
    block_on(args.connect.timeout, async {
        let deployment = deployment::connect(&args.connect).await?;
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
        let counts = cmd::plan::estimate_counts(
            &deployment.db,
            &cmd::plan::collections_with_builds(&changes),
        )
        .await?;
        let plan = cmd::plan::make_plan(&changes, args.prune, counts);
        if plan.is_empty() {
            console.out(&render::human::plan(&plan, colour));
            return Ok(Outcome::Clean);
        }
        if !args.yes {
            if !console.interactive {
                anyhow::bail!(
                    "refusing to apply {} step{} without --yes when not on a terminal \
                     (run `mongo-schema plan` to see them)",
                    plan.steps.len(),
                    render::human::plural(plan.steps.len())
                );
            }
            console.out(&render::human::plan(&plan, colour));
            if !console.confirm(&format!(
                "apply these {} steps to {}?",
                plan.steps.len(),
                deployment.shown_uri
            )) {
                console.err("aborted: nothing was applied\n");
                return Ok(Outcome::Findings);
            }
        }
        let mut applied = Applied {
            done: Vec::new(),
            failed: None,
            remaining: plan.steps.clone(),
        };
        while !applied.remaining.is_empty() {
            let step = applied.remaining.remove(0);
            match deployment.db.run_command(step.command.clone()).await {
                Ok(_) => {
                    console.out(&format!(
                        "{} {}: {}\n",
                        paint("done", Paint::Green, colour),
                        step.collection,
                        step.summary
                    ));
                    applied.done.push(step);
                }
                Err(e) => {
                    applied.failed = Some((step, deployment::explain(&e)));
                    break;
                }
            }
        }
        console.out(&render::human::applied(&applied, colour));
        match &applied.failed {
            Some((step, error)) => Err(anyhow::anyhow!(
                "{}: {} failed: {error}; run apply again once fixed: it continues from what is done",
                step.collection,
                step.summary
            )),
            None => Ok(Outcome::Clean),
        }
    })
}
