//! `plan`: the ordered server commands that would make live match declared (creates before drops,
//! drops only with `--prune`), with expensive and risky steps marked. Never writes.

use std::time::Duration;

use mongo_schema::diff::{self, Plan, PlanOptions, Proposal, ValidatorChange, classify_validator};
use mongo_schema::plural::count;
use mongo_schema::spec::CollectionSpec;
use mongo_schema::spec::ValidatorSpec;
use mongodb::Database;

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
            let (changes, mut plan) = converge::plan_with(
                &deployment.db,
                Some(&deployment.options),
                &declared,
                options,
                &policy,
            )
            .await
            .map_err(|e| {
                e.context(format!(
                    "cannot read the catalog of {}",
                    deployment.shown_uri
                ))
            })?;
            count_rejects(&deployment.db, &mut plan, args.live.connect.timeout).await?;
            propose_version_drops(
                &deployment.db,
                &declared,
                &mut plan,
                args.live.connect.timeout,
            )
            .await;
            Ok((changes, plan))
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

/// Counts, for each validator step not proven relaxing, the stored documents its validator
/// rejects ([`diff::ValidatorChange::rejected`]), and says in the step's risk what to do when
/// there are some: declare `validationAction: "warn"` first.
///
/// The count is the manual's query for documents that fail a validator, `{$nor: [validator]}`
/// ("Schema Validation > Query for and Modify Valid or Invalid Documents"), run by the server
/// under `maxTimeMS` = `max_time`: a collection scan, done only for steps that may reject.
///
/// # Errors
/// A count the server refuses or that runs out of time.
pub(crate) async fn count_rejects(
    db: &Database,
    plan: &mut Plan,
    max_time: Duration,
) -> anyhow::Result<()> {
    let max_time_ms = i64::try_from(max_time.as_millis()).unwrap_or(i64::MAX);
    for step in &mut plan.steps {
        let Some(change) = &mut step.validator else {
            continue;
        };
        if !change.may_reject() || !step.command.contains_key("collMod") {
            continue;
        }
        let Ok(validator) = step.command.get_document("validator") else {
            continue;
        };
        let rejects = bson::doc! { "$nor": [validator.clone()] };
        let n = cmd::audit::count(db, &step.collection, rejects, max_time_ms)
            .await
            .map_err(|e| {
                e.context(format!(
                    "{}: counting the stored documents the declared validator rejects",
                    step.collection
                ))
            })?;
        let n = u64::try_from(n).unwrap_or(0);
        change.rejected = Some(n);
        step.risk = Some(if n == 0 {
            "no stored document fails it today (counted with {$nor: [validator]}); writes the live \
             validator accepts may still be refused"
                .to_owned()
        } else {
            format!(
                "{} {} it: declare validationAction \"warn\" first, fix or \
                 migrate them until `mongo-schema audit` is clean, then switch to \"error\"",
                mongo_schema::plural::count(n, "stored document"),
                if n == 1 { "fails" } else { "fail" }
            )
        });
    }
    Ok(())
}

/// For each versioned declaration with stored documents, what the deployment says of its older
/// versions ([`Plan::proposals`]):
/// - none left: drop them from the declaration, and the validator becomes the current version's
///   branch alone, classified against the declared one (the live one once this plan has run)
///   and counted with `{$nor: [validator]}` when it may reject;
/// - some left: `migrate` rewrites them first.
///
/// An empty or missing collection proposes nothing: a fresh deployment says nothing of the
/// versions the application's other deployments still hold. The counts are advice, so one the
/// server refuses or that runs out of time (a collection scan under `maxTimeMS`) becomes a
/// proposal saying so, never a failed plan.
pub(crate) async fn propose_version_drops(
    db: &Database,
    declared: &[CollectionSpec],
    plan: &mut Plan,
    max_time: Duration,
) {
    let max_time_ms = i64::try_from(max_time.as_millis()).unwrap_or(i64::MAX);
    for spec in declared {
        let Some(versions) = spec.versions.as_ref().filter(|v| !v.older().is_empty()) else {
            continue;
        };
        match propose(db, spec, versions, max_time_ms).await {
            Ok(Some(proposal)) => plan.proposals.push(proposal),
            Ok(None) => {}
            Err(e) => plan.proposals.push(Proposal::new(
                &spec.name,
                format!(
                    "the documents at older versions were not counted ({e:#}); \
                     `migrate --dry-run` counts them"
                ),
            )),
        }
    }
}

/// [`propose_version_drops`] for one collection; `None` when it holds no document.
async fn propose(
    db: &Database,
    spec: &CollectionSpec,
    versions: &mongo_schema::version::Versions,
    max_time_ms: i64,
) -> anyhow::Result<Option<Proposal>> {
    let stored = cmd::audit::count(db, &spec.name, bson::Document::new(), max_time_ms).await?;
    if stored == 0 {
        return Ok(None);
    }
    let outdated = versions.outdated_filter();
    let left = cmd::audit::count(db, &spec.name, outdated.clone(), max_time_ms).await?;
    let current = versions.current();
    let shown = crate::render::human::shown(&bson::Bson::Document(outdated));
    if left > 0 {
        return Ok(Some(Proposal::new(
            &spec.name,
            format!(
                "{} not at version {current} yet (countDocuments({shown})): `migrate` \
                 rewrites them; the older versions stay declared until none is left",
                count(u64::try_from(left).unwrap_or(0), "stored document")
            ),
        )));
    }
    let validator = ValidatorSpec::json_schema(versions.current_only()).to_document();
    let declared_validator = spec.validator.as_ref().map(ValidatorSpec::to_document);
    let mut change = ValidatorChange::new(classify_validator(
        Some(&validator),
        declared_validator.as_ref(),
    ));
    if change.may_reject() {
        let rejects = bson::doc! { "$nor": [validator.clone()] };
        let n = cmd::audit::count(db, &spec.name, rejects, max_time_ms).await?;
        change.rejected = Some(u64::try_from(n).unwrap_or(0));
    }
    let mut proposal = Proposal::new(
        &spec.name,
        format!(
            "every stored document is version {current} (countDocuments({shown}) = 0): drop the \
             older versions from the declaration (`previous(...)` in #[mongo(version(...))]) and \
             the validator becomes the version {current} branch only"
        ),
    );
    proposal.command = Some(bson::doc! { "collMod": spec.name.clone(), "validator": validator });
    proposal.validator = Some(change);
    Ok(Some(proposal))
}
