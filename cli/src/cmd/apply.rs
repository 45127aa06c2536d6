//! `apply`: runs the plan. On a terminal it shows the plan and asks; elsewhere it refuses without
//! `--yes`. It stops at the first failure and reports what was done, what failed and what
//! remains; running it again converges, and on an applied deployment it says so and does nothing.

use mongo_schema::collection::CollectionSpec;
use mongo_schema::diff::PlanOptions;

use crate::args::ApplyArgs;
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::render::human::{Paint, paint};
use crate::{Outcome, cmd, converge, render};

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
    converge::check_declared(&declared)?;
    let colour = console.colour;
    block_on(args.connect.timeout, async {
        let deployment = deployment::connect(&args.connect).await?;
        let options = PlanOptions {
            prune: args.prune,
            hide_before_drop: args.hide,
            ..PlanOptions::default()
        };
        let (_, plan) = converge::plan(&deployment.db, &declared, options)
            .await
            .map_err(|e| {
                e.context(format!(
                    "cannot read the catalog of {}",
                    deployment.shown_uri
                ))
            })?;
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
        let applied = converge::apply_reporting(&deployment.db, &plan, |step| {
            console.out(&format!(
                "{} {}: {}\n",
                paint("done", Paint::Green, colour),
                step.collection,
                step.summary
            ));
        })
        .await;
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
