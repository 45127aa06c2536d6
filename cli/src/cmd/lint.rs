//! `lint`: the model lints of `mongo_schema::lint` over each declared collection: arrays with no
//! upper bound, worst-case document size against 16 MiB, low-cardinality index prefixes, unique
//! indexes not scoped to their variant, monotonically increasing shard keys; and, for the
//! declarations linked into the binary, whether an index serves each declared query
//! (`mongo_schema::access`). Exit 1 on an error.

use std::collections::BTreeMap;

use anyhow::Context as _;
use mongo_schema::access::{self, QuerySpec};
use mongo_schema::eval;
use mongo_schema::lint;
use mongo_schema::schema::{Items, JsonSchema};
use mongo_schema::spec::CollectionSpec;

use crate::args::{LintArgs, ReportFormat};
use crate::console::Console;
use crate::render;
use crate::{Outcome, cmd};
use mongo_schema::{Finding, Severity};

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
    // Queries are declared on the linked types; a manifest carries none.
    let queries = if linked.is_some() && args.declared.manifest.is_none() {
        access::registered_queries().context("resolving the declared queries")?
    } else {
        BTreeMap::new()
    };
    let findings = findings(&specs, &args.allow_unbounded, &queries);
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
/// [`lint::lint_collection`], a validator the server would refuse, and the coverage of each
/// declared query in `queries` (by collection name) by the collection's indexes.
pub fn findings(
    specs: &[CollectionSpec],
    allow_unbounded: &[String],
    queries: &BTreeMap<String, Vec<QuerySpec>>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for spec in specs {
        let mut spec = spec.clone();
        if let Some(validator) = &mut spec.validator
            && validator.json_schema.is_none()
        {
            // A validator read from a manifest keeps its `$jsonSchema` as a document; the
            // evaluator's parser reads it as the server would, for the lints to walk.
            match eval::Validator::from_validator(&validator.to_document()) {
                Ok(compiled) if validator.query.contains_key("$jsonSchema") => {
                    validator.query.remove("$jsonSchema");
                    validator.json_schema = Some(compiled.schema().clone());
                }
                Ok(_) => {}
                Err(e) => {
                    out.push(Finding::new(
                        &spec.name,
                        Severity::Error,
                        "invalid-validator",
                        "",
                        format!("the server would refuse this validator: {e}"),
                    ));
                    continue;
                }
            }
        }
        out.extend(lint::lint_collection(&spec, allow_unbounded));
        if let Some(declared) = queries.get(&spec.name) {
            let declared = scoped(&spec, declared);
            out.extend(
                access::lint(&spec, &declared)
                    .iter()
                    .map(|f| f.to_finding()),
            );
        }
    }
    out
}

/// The queries of `declared` that belong to `spec`: the registry keys queries by collection
/// name, so two types declared on the same name (two example applications linked into one
/// binary) share an entry. A query naming a field (filtered, sorted, compared by range, projected,
/// in its fixed filter or in its search stage) that `spec`'s `$jsonSchema` does not declare was
/// declared on another type; a spec with no `$jsonSchema` keeps every query.
pub(crate) fn scoped(spec: &CollectionSpec, declared: &[QuerySpec]) -> Vec<QuerySpec> {
    let Some(schema) = spec.validator.as_ref().and_then(|v| v.json_schema.as_ref()) else {
        return declared.to_vec();
    };
    declared
        .iter()
        .filter(|q| {
            let filtered = q.filter.iter().flat_map(|f| f.keys());
            let projected = q.projection.iter().flat_map(|p| &p.fields);
            let searched = q.search_stage.iter().flat_map(|s| s.paths());
            q.equality
                .iter()
                .chain(q.sort.iter().map(|(path, _)| path))
                .chain(&q.range)
                .chain(projected)
                .chain(filtered.filter(|key| !key.starts_with('$')))
                .map(String::as_str)
                .chain(searched)
                .all(|path| declares(schema, path))
        })
        .cloned()
        .collect()
}

/// Whether `schema` names the dotted `path`, through embedded documents, array elements and the
/// branches of `anyOf`/`oneOf`/`allOf` (the variants of a polymorphic root).
fn declares(schema: &JsonSchema, path: &str) -> bool {
    let (head, rest) = match path.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    let branches = [&schema.any_of, &schema.one_of, &schema.all_of];
    if branches
        .iter()
        .filter_map(|b| b.as_ref())
        .flatten()
        .any(|branch| declares(branch, path))
    {
        return true;
    }
    let Some(field) = schema.properties.get(head) else {
        return false;
    };
    let Some(rest) = rest else {
        return true;
    };
    let element = match &field.items {
        Some(Items::Single(element)) => element.as_ref(),
        _ => field,
    };
    declares(element, rest)
}
