//! `lint`: the model lints of `mongo_schema::lint` over each declared collection: arrays with no
//! upper bound, worst-case document size against 16 MiB, low-cardinality index prefixes, unique
//! indexes not scoped to their variant, monotonically increasing shard keys. Exit 1 on an error.

use mongo_schema::collection::CollectionSpec;
use mongo_schema::eval;
use mongo_schema::lint;

use crate::args::{LintArgs, ReportFormat};
use crate::console::Console;
use crate::render::{self, Finding, Severity};
use crate::{Outcome, cmd};

/// Lints every declared collection and prints the findings.
///
/// # Errors
/// No declarations or a bad manifest.
pub fn run(
    args: &LintArgs,
    linked: Option<&[CollectionSpec]>,
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    let specs = cmd::declared(&args.declared, linked)?;
    let findings = findings(&specs, &args.allow_unbounded);
    let file = args.declared.manifest.as_deref();
    let text = match args.output.format.unwrap_or(ReportFormat::Text) {
        ReportFormat::Text => render::human::findings(&findings, "lint", console.colour),
        ReportFormat::Json => render::json::findings(&findings),
        ReportFormat::Github => render::github::findings(&findings, file),
    };
    console.out(&text);
    Ok(if findings.iter().any(|f| f.severity == Severity::Error) {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// The lint findings of each collection, in collection order: every rule of
/// [`lint::lint_collection`], plus a validator the server would refuse.
pub fn findings(specs: &[CollectionSpec], allow_unbounded: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    for spec in specs {
        let mut spec = spec.clone();
        if let Some(validator) = &mut spec.validator
            && validator.json_schema.is_none()
        {
            // A validator read from a manifest keeps its `$jsonSchema` as a document; the
            // evaluator's parser reads it as the server would, for the lints to walk.
            match eval::Validator::from_document(&validator.to_document()) {
                Ok(compiled) if validator.query.contains_key("$jsonSchema") => {
                    validator.query.remove("$jsonSchema");
                    validator.json_schema = Some(compiled.schema().clone());
                }
                Ok(_) => {}
                Err(e) => {
                    out.push(Finding {
                        collection: spec.name.clone(),
                        severity: Severity::Error,
                        kind: "invalid-validator".to_owned(),
                        path: String::new(),
                        message: format!("the server would refuse this validator: {e}"),
                    });
                    continue;
                }
            }
        }
        out.extend(
            lint::lint_collection(&spec, allow_unbounded)
                .into_iter()
                .map(|l| Finding {
                    collection: l.collection,
                    severity: match l.severity {
                        lint::Severity::Note => Severity::Note,
                        lint::Severity::Warning => Severity::Warning,
                        lint::Severity::Error => Severity::Error,
                    },
                    kind: l.kind.as_str().to_owned(),
                    path: l.path,
                    message: l.message,
                }),
        );
    }
    out
}
