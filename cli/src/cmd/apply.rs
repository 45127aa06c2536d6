//! `apply`: runs the plan. On a terminal it shows the plan and asks; elsewhere it refuses without
//! `--yes`. Each step is read back after the server acknowledges it; a step that failed (refused,
//! or acknowledged but not stored) holds back only the steps that need it, and a lost deployment
//! stops the run. It reports what was done, failed, blocked and remains; running it again
//! converges, and on an applied deployment it says so and does nothing.

use mongo_schema::diff::PlanOptions;
use mongo_schema::spec::CollectionSpec;

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
        let policy = args.indexes.policy();
        let (changes, plan) =
            converge::plan_with(&deployment.db, &declared, options.clone(), &policy)
                .await
                .map_err(|e| {
                    e.context(format!(
                        "cannot read the catalog of {}",
                        deployment.shown_uri
                    ))
                })?;
        // Drift a plan does not fix (an unowned index kept without --prune) is exit 1, as `plan`
        // and `check` say, even when nothing runs.
        let settled = if converge::drift_remains(&changes, &plan, &options) {
            Outcome::Findings
        } else {
            Outcome::Clean
        };
        let summary = converge::summary(&declared, &changes, &plan, args.prune);
        if plan.is_empty() {
            console.out(&(render::human::plan(&plan, colour) + &summary));
            return Ok(settled);
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
            console.out(&(render::human::plan(&plan, colour) + &summary));
            if !console.confirm(&format!(
                "apply these {} steps to {}?",
                plan.steps.len(),
                deployment.shown_uri
            )) {
                console.err("aborted: nothing was applied\n");
                return Ok(Outcome::Findings);
            }
        }
        // Index builds draw their progress from currentOp on stderr, on a terminal only.
        let progress = console.progress;
        let applied = converge::apply_showing(
            &deployment.db,
            &plan,
            |step| {
                console.out(&format!(
                    "{} {}: {}\n",
                    paint("done", Paint::Green, colour),
                    step.collection,
                    step.summary
                ));
            },
            progress,
        )
        .await;
        console.out(&render::human::applied(&applied, colour));
        if args.yes && settled == Outcome::Findings {
            // What the run leaves, as the plan said it (its last line counts the steps).
            for line in summary.lines().filter(|l| l.starts_with("kept:")) {
                console.out(&format!("{line}\n"));
            }
            // The drops `$indexStats` evidence kept, with why (the plan was not shown).
            for kept in crate::indexes::usage::kept_by_evidence(&plan) {
                console.out(&format!("{kept}\n"));
            }
        }
        match applied.failed.as_slice() {
            [] => Ok(settled),
            [(step, error)] => Err(anyhow::anyhow!(
                "{}: {} failed: {error}; run apply again once fixed: it continues from what is done",
                step.collection,
                step.summary
            )),
            [(step, error), rest @ ..] => Err(anyhow::anyhow!(
                "{}: {} failed: {error} (and {} more failed step{}, listed above); run apply again once fixed: it continues from what is done",
                step.collection,
                step.summary,
                rest.len(),
                render::human::plural(rest.len())
            )),
        }
    })
}
