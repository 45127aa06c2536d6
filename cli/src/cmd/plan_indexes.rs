//! The index part of `plan` from a catalog file: the builds carry `--commit-quorum`, and the
//! drops `--prune` proposes are marked unproven, since a file holds no `$indexStats` (the live
//! path is [`crate::converge::plan_with`]; `apply` always reads the deployment's usage).

use mongo_schema::diff::{Change, Plan, PlanOptions};

use crate::converge;
use crate::indexes::{self, IndexPolicy};

/// The plan of `changes` read from a file, under `policy`.
pub fn from_file(changes: &[Change], options: &PlanOptions, policy: &IndexPolicy) -> Plan {
    let mut plan = converge::plan_changes(changes, options);
    indexes::cost::annotate(
        &mut plan,
        &std::collections::BTreeMap::new(),
        policy.commit_quorum.as_ref(),
    );
    if options.prune {
        indexes::usage::guard(
            &mut plan,
            changes,
            &indexes::usage::Source::File,
            policy,
            bson::DateTime::now(),
        );
    }
    plan
}
