//! `apply`: runs the plan. On a terminal it shows the plan and asks; elsewhere it refuses without
//! `--yes`. Each step is read back after the server acknowledges it; a step that failed (refused,
//! or acknowledged but not stored) holds back only the steps that need it, and a lost deployment
//! stops the run. It reports what was done, failed, blocked and remains; running it again
//! converges, and on an applied deployment it says so and does nothing.

use mongo_schema::diff::{Plan, PlanOptions};
use mongo_schema::plural::count;
use mongo_schema::spec::{CollectionSpec, ValidationAction};

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
        let (changes, mut plan) = converge::plan_with(
            &deployment.db,
            Some(&deployment.options),
            &declared,
            options.clone(),
            &policy,
        )
        .await
        .map_err(|e| {
            e.context(format!(
                "cannot read the catalog of {}",
                deployment.shown_uri
            ))
        })?;
        cmd::plan::count_rejects(&deployment.db, &mut plan, args.connect.timeout).await?;
        if !args.allow_tightening {
            refuse_rejecting_validators(&declared, &plan)?;
            refuse_enforcing_over_rejects(&deployment.db, &declared, &plan, args.connect.timeout)
                .await?;
        }
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
                    "refusing to apply {} without --yes when not on a terminal \
                     (run `mongo-schema plan` to see them)",
                    count(plan.steps.len(), "step")
                );
            }
            console.out(&(render::human::plan(&plan, colour) + &summary));
            if !console.confirm(&format!(
                "apply {} to {}?",
                count(plan.steps.len(), "step"),
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
        if args.wait && applied.failed.is_empty() {
            let awaited = crate::search_wait::awaited(&plan);
            crate::search_wait::wait(&deployment.db, &awaited, progress).await?;
            if !awaited.is_empty() {
                console.out(&format!(
                    "{} queryable\n",
                    count(awaited.len(), "search index")
                ));
            }
        }
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
                "{}: {} failed: {error} (and {} more, listed above); run apply again once fixed: it continues from what is done",
                step.collection,
                step.summary,
                count(rest.len(), "failed step")
            )),
        }
    })
}

/// Refuses a plan that sets a validator stored documents fail (counted by
/// [`cmd::plan::count_rejects`]) while the declared `validationAction` rejects writes: their
/// next update would be refused. The manual's advice for a new validator on a populated
/// collection is `validationAction: "warn"` first ("Specify Validation Level for Existing
/// Documents", "Choose How to Handle Invalid Documents").
///
/// # Errors
/// The first such step, with the count, a counterexample when proven, and the ways out.
fn refuse_rejecting_validators(declared: &[CollectionSpec], plan: &Plan) -> anyhow::Result<()> {
    for step in &plan.steps {
        let Some(change) = &step.validator else {
            continue;
        };
        let Some(rejected) = change.rejected.filter(|n| *n > 0) else {
            continue;
        };
        let action = declared
            .iter()
            .find(|c| c.name == step.collection)
            .and_then(|c| c.validation_action.clone())
            .unwrap_or(ValidationAction::DEFAULT);
        if matches!(action, ValidationAction::Warn) {
            continue;
        }
        let witness = change
            .classification
            .counterexample()
            .map(|d| {
                format!(
                    " (e.g. {} is accepted today and would be rejected)",
                    render::human::shown(&bson::Bson::Document(d.clone()))
                )
            })
            .unwrap_or_default();
        anyhow::bail!(
            "refusing to apply: {}: the declared validator is {}{witness} and {} \
             {} it under validationAction {:?}; declare validationAction \"warn\" \
             first, or fix or migrate the documents until `mongo-schema audit` is clean, or pass \
             --allow-tightening; nothing was applied",
            step.collection,
            if change.classification.counterexample().is_some() {
                "tightening"
            } else {
                "not proven relaxing"
            },
            count(rejected, "stored document"),
            if rejected == 1 { "fails" } else { "fail" },
            action.as_str(),
        );
    }
    Ok(())
}

/// Refuses a plan that switches `validationAction` to `"error"` (or `"errorAndLog"`) while
/// stored documents fail the declared validator: the step after `"warn"` in the manual's
/// advice, which waits for a clean audit. Counted as [`cmd::plan::count_rejects`] does.
///
/// # Errors
/// The first such step, with the count and the ways out; a count the server refuses.
async fn refuse_enforcing_over_rejects(
    db: &mongodb::Database,
    declared: &[CollectionSpec],
    plan: &Plan,
    max_time: std::time::Duration,
) -> anyhow::Result<()> {
    let max_time_ms = i64::try_from(max_time.as_millis()).unwrap_or(i64::MAX);
    for step in &plan.steps {
        let Ok(action) = step.command.get_str("validationAction") else {
            continue;
        };
        if !matches!(action, "error" | "errorAndLog") || !step.command.contains_key("collMod") {
            continue;
        }
        let Some(validator) = declared
            .iter()
            .find(|c| c.name == step.collection)
            .and_then(|c| c.validator.as_ref())
            .map(mongo_schema::spec::ValidatorSpec::to_document)
            .filter(|v| !v.is_empty())
        else {
            continue;
        };
        let rejects = bson::doc! { "$nor": [validator] };
        let n = cmd::audit::count(db, &step.collection, rejects, max_time_ms).await?;
        if n > 0 {
            anyhow::bail!(
                "refusing to apply: {}: validationAction {action:?} with {} \
                 failing the declared validator; fix or migrate them until `mongo-schema audit` \
                 is clean, or pass --allow-tightening; nothing was applied",
                step.collection,
                count(n, "stored document"),
            );
        }
    }
    Ok(())
}
