//! `lint`: the model lints of `mongo_schema::lint` over each declared validator: arrays with no
//! upper bound, and documents whose worst-case size passes 16 MiB. Exit 1 when any is an error.

use mongo_schema::collection::CollectionSpec;
use mongo_schema::eval;
use mongo_schema::lint::{self, MAX_BSON_SIZE, SizeBound};

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
    let findings = findings(&specs);
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

/// The lint findings of each collection, in collection order.
pub fn findings(specs: &[CollectionSpec]) -> Vec<Finding> {
    let mut out = Vec::new();
    for spec in specs {
        let Some(validator) = &spec.validator else {
            continue;
        };
        // A validator read from a manifest keeps its `$jsonSchema` as a document; the
        // evaluator's parser reads it as the server would.
        let parsed = match &validator.json_schema {
            Some(schema) => schema.clone(),
            None => match eval::Validator::from_document(&validator.to_document()) {
                Ok(compiled) => compiled.schema().clone(),
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
            },
        };
        let schema = &parsed;
        for path in lint::unbounded_arrays(schema) {
            out.push(Finding {
                collection: spec.name.clone(),
                severity: Severity::Warning,
                kind: "unbounded-array".to_owned(),
                path: path.clone(),
                message: format!(
                    "array {} has no maxItems: an array that grows forever approaches the 16 MiB \
                     document limit and makes every update rewrite a large document",
                    shown(&path)
                ),
            });
        }
        match lint::worst_case_size(schema) {
            SizeBound::Bounded { bytes, dominant } if bytes > MAX_BSON_SIZE => out.push(Finding {
                collection: spec.name.clone(),
                severity: Severity::Error,
                kind: "document-size".to_owned(),
                path: dominant.clone(),
                message: format!(
                    "a document can reach {bytes} bytes, over the {MAX_BSON_SIZE}-byte limit \
                     (mostly {})",
                    shown(&dominant)
                ),
            }),
            SizeBound::Unbounded { path } => out.push(Finding {
                collection: spec.name.clone(),
                severity: Severity::Note,
                kind: "document-size".to_owned(),
                path: path.clone(),
                message: format!(
                    "worst-case document size is unbounded (first at {})",
                    shown(&path)
                ),
            }),
            SizeBound::Bounded { .. } => {}
        }
    }
    out
}

fn shown(path: &str) -> &str {
    if path.is_empty() {
        "the document"
    } else {
        path
    }
}
