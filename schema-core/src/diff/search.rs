//! Declared search and vector search indexes against those `$listSearchIndexes` returned:
//! matched by name, definitions compared with the service's defaults filled
//! ([`crate::normalize::search_definitions_equal`]), status reported; and the commands that fix
//! them (`createSearchIndexes`, `updateSearchIndex`, `dropSearchIndex`), for the plan and for
//! the model that `apply_plan` runs against.

use bson::{Bson, Document};

use super::{Aspect, Change, ChangeKind};
use crate::normalize::search_definitions_equal;
use crate::spec::{CollectionSpec, SearchIndexSpec};

fn change(
    spec: &CollectionSpec,
    name: &str,
    kind: ChangeKind,
    declared: Option<&SearchIndexSpec>,
    live: Option<&SearchIndexSpec>,
    reason: String,
) -> Change {
    Change {
        collection: spec.name.clone(),
        kind,
        aspect: Aspect::SearchIndex(name.to_owned()),
        declared: declared.map(|i| Bson::Document(i.to_document())),
        live: live.map(|i| Bson::Document(listed(i))),
        fields: Vec::new(),
        reason,
    }
}

/// A live index as `createSearchIndexes` would take it, with its status beside it.
fn listed(index: &SearchIndexSpec) -> Document {
    let mut d = index.to_document();
    if let Some(status) = &index.status {
        d.insert("status", status.clone());
    }
    if let Some(queryable) = index.queryable {
        d.insert("queryable", queryable);
    }
    d
}

/// Compares the search indexes of two specs of one collection.
pub(super) fn compare(d: &CollectionSpec, l: &CollectionSpec, out: &mut Vec<Change>) {
    if l.search_indexes_unknown {
        if !d.search_indexes.is_empty() {
            let names: Vec<&str> = d.search_indexes.iter().map(|i| i.name.as_str()).collect();
            out.push(Change {
                collection: d.name.clone(),
                kind: ChangeKind::Unmanaged,
                aspect: Aspect::SearchIndex(names.join(", ")),
                declared: Some(Bson::Array(
                    d.search_indexes
                        .iter()
                        .map(|i| Bson::Document(i.to_document()))
                        .collect(),
                )),
                live: None,
                fields: Vec::new(),
                reason: "search indexes not compared: the deployment's were not read ($listSearchIndexes)"
                    .into(),
            });
        }
        return;
    }
    for declared in &d.search_indexes {
        let name = declared.name.as_str();
        let Some(live) = l.search_indexes.iter().find(|i| i.name == name) else {
            out.push(change(
                d,
                name,
                ChangeKind::MissingIndex,
                Some(declared),
                None,
                "declared, not on the server: createSearchIndexes builds it (asynchronously)"
                    .into(),
            ));
            continue;
        };
        let (kind, reason) = if declared.index_type != live.index_type {
            (
                ChangeKind::Rebuild,
                format!(
                    "declared as {}, a {} index on the server: the type cannot be updated, the index is dropped and created again",
                    declared.index_type, live.index_type
                ),
            )
        } else if !search_definitions_equal(
            &declared.index_type,
            &declared.definition,
            &live.definition,
        ) {
            (
                ChangeKind::InPlace,
                "updateSearchIndex replaces the definition (the old one serves queries until the new one is built)"
                    .into(),
            )
        } else {
            match (live.status.as_deref(), live.queryable) {
                (Some("FAILED"), _) => (
                    ChangeKind::InPlace,
                    "the service reports FAILED: updateSearchIndex with the declared definition builds it again"
                        .into(),
                ),
                (Some("READY") | None, Some(true) | None) => continue,
                (status, queryable) => (
                    ChangeKind::IndexBuildInProgress,
                    format!(
                        "same definition; the service reports {}{}",
                        status.unwrap_or("no status"),
                        if queryable == Some(false) {
                            ", not queryable yet"
                        } else {
                            ""
                        }
                    ),
                ),
            }
        };
        out.push(change(d, name, kind, Some(declared), Some(live), reason));
    }
    for live in &l.search_indexes {
        if !d.search_indexes.iter().any(|i| i.name == live.name) {
            out.push(change(
                d,
                &live.name,
                ChangeKind::ExtraIndex,
                None,
                Some(live),
                "on the server, not declared (dropSearchIndex with --prune)".into(),
            ));
        }
    }
}

/// One command of a search index change.
pub(super) struct SearchStep {
    pub command: Document,
    pub summary: String,
    /// A drop: runs after every build, and only with `--prune`.
    pub drop: bool,
}

/// The commands that fix a search index change, or why there are none.
pub(super) fn steps(c: &Change, prune: bool) -> Result<Vec<SearchStep>, String> {
    let coll = c.collection.as_str();
    let Aspect::SearchIndex(name) = &c.aspect else {
        return Err("not a search index change".into());
    };
    let declared = c.declared.as_ref().and_then(Bson::as_document);
    let create = |d: &Document| SearchStep {
        command: bson::doc! { "createSearchIndexes": coll, "indexes": [d.clone()] },
        summary: format!("create search index {name}"),
        drop: false,
    };
    let drop = || SearchStep {
        command: bson::doc! { "dropSearchIndex": coll, "name": name.clone() },
        summary: format!("drop search index {name}"),
        drop: true,
    };
    match (c.kind, declared) {
        (ChangeKind::MissingIndex, Some(d)) => Ok(vec![create(d)]),
        (ChangeKind::InPlace, Some(d)) => {
            let definition = d.get_document("definition").cloned().unwrap_or_default();
            Ok(vec![SearchStep {
                command: bson::doc! { "updateSearchIndex": coll, "name": name.clone(), "definition": definition },
                summary: format!("update search index {name}"),
                drop: false,
            }])
        }
        (ChangeKind::ExtraIndex, _) if prune => Ok(vec![drop()]),
        (ChangeKind::ExtraIndex, _) => {
            Err("not declared; plan with --prune to drop it (dropSearchIndex)".into())
        }
        (ChangeKind::Rebuild, Some(d)) if prune => Ok(vec![drop(), create(d)]),
        (ChangeKind::Rebuild, _) => Err(format!(
            "{}; plan with --prune to drop and create it",
            c.reason
        )),
        _ => Err("nothing to plan".into()),
    }
}

/// Applies `createSearchIndexes`, `updateSearchIndex` or `dropSearchIndex` to a spec of the
/// model: an index the model creates is at once `READY` and queryable.
///
/// # Errors
/// `(code, message)`: IndexAlreadyExists (68) for a second index of one name, IndexNotFound
/// (27) for an update or drop of an unknown one, FailedToParse (9) for a malformed entry.
pub(super) fn apply(spec: &mut CollectionSpec, command: &Document) -> Result<(), (i32, String)> {
    let name = command
        .keys()
        .next()
        .map(String::as_str)
        .unwrap_or_default();
    let index_name = || {
        command
            .get_str("name")
            .map(str::to_owned)
            .map_err(|_| (9, "name must be a string".to_owned()))
    };
    let position =
        |spec: &CollectionSpec, n: &str| spec.search_indexes.iter().position(|i| i.name == n);
    match name {
        "createSearchIndexes" => {
            let list = command
                .get_array("indexes")
                .map_err(|_| (9, "indexes must be an array".to_owned()))?;
            for entry in list {
                let entry = entry
                    .as_document()
                    .ok_or((9, "each index must be a document".to_owned()))?;
                let mut index =
                    SearchIndexSpec::from_document(entry).map_err(|e| (9, e.to_string()))?;
                if position(spec, &index.name).is_some() {
                    return Err((68, format!("Index already exists: {}", index.name)));
                }
                index.status = Some("READY".into());
                index.queryable = Some(true);
                spec.search_indexes.push(index);
            }
            Ok(())
        }
        "updateSearchIndex" => {
            let n = index_name()?;
            let i = position(spec, &n).ok_or((27, format!("Search index {n} not found")))?;
            let definition = command
                .get_document("definition")
                .map_err(|_| (9, "definition must be a document".to_owned()))?;
            spec.search_indexes[i].definition = definition.clone();
            spec.search_indexes[i].status = Some("READY".into());
            Ok(())
        }
        "dropSearchIndex" => {
            let n = index_name()?;
            let i = position(spec, &n).ok_or((27, format!("Search index {n} not found")))?;
            spec.search_indexes.remove(i);
            Ok(())
        }
        other => Err((59, format!("no such command {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;
    use crate::diff::{PlanOptions, apply_plan, diff, has_drift, plan};
    use crate::spec::{SearchIndexType, VectorField};

    fn products(index: SearchIndexSpec) -> CollectionSpec {
        CollectionSpec::new("products").search_index(index)
    }

    fn vector(dims: i64) -> SearchIndexSpec {
        SearchIndexSpec::vector(
            "embedding",
            VectorField::new("embedding", dims, "cosine"),
            ["status"],
        )
    }

    fn listed(mut index: SearchIndexSpec, status: &str, queryable: bool) -> SearchIndexSpec {
        index.status = Some(status.into());
        index.queryable = Some(queryable);
        index
    }

    #[test]
    fn a_missing_index_is_created_and_the_model_converges() {
        let declared = [products(vector(3))];
        let live = [CollectionSpec::new("products")];
        let changes = diff(&declared, &live);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ChangeKind::MissingIndex);
        let plan = plan(&changes, &PlanOptions::default());
        assert_eq!(
            plan.steps[0].command.keys().next().unwrap(),
            "createSearchIndexes"
        );
        let mut model = live.to_vec();
        apply_plan(&mut model, &plan).unwrap();
        assert!(diff(&declared, &model).is_empty());
    }

    #[test]
    fn a_changed_definition_is_updated_in_place() {
        let declared = [products(vector(3))];
        let live = [products(listed(vector(4), "READY", true))];
        let changes = diff(&declared, &live);
        assert_eq!(changes[0].kind, ChangeKind::InPlace);
        let plan = plan(&changes, &PlanOptions::default());
        assert_eq!(plan.steps.len(), 1);
        assert_eq!(
            plan.steps[0].command.get_str("updateSearchIndex").unwrap(),
            "products"
        );
        let mut model = live.to_vec();
        apply_plan(&mut model, &plan).unwrap();
        assert!(diff(&declared, &model).is_empty());
    }

    #[test]
    fn building_is_reported_without_drift_and_failed_is_drift() {
        let declared = [products(vector(3))];
        let building = [products(listed(vector(3), "BUILDING", false))];
        let changes = diff(&declared, &building);
        assert_eq!(changes[0].kind, ChangeKind::IndexBuildInProgress);
        assert!(changes[0].reason.contains("BUILDING, not queryable yet"));
        assert!(!has_drift(&changes));
        let failed = [products(listed(vector(3), "FAILED", false))];
        let changes = diff(&declared, &failed);
        assert_eq!(changes[0].kind, ChangeKind::InPlace);
        assert!(has_drift(&changes));
        let ready = [products(listed(vector(3), "READY", true))];
        assert!(diff(&declared, &ready).is_empty());
    }

    #[test]
    fn an_undeclared_index_is_dropped_only_with_prune() {
        let declared = [CollectionSpec::new("products")];
        let live = [products(SearchIndexSpec::dynamic("default"))];
        let changes = diff(&declared, &live);
        assert_eq!(changes[0].kind, ChangeKind::ExtraIndex);
        assert!(plan(&changes, &PlanOptions::default()).steps.is_empty());
        let pruning = plan(
            &changes,
            &PlanOptions {
                prune: true,
                ..PlanOptions::default()
            },
        );
        assert_eq!(
            pruning.steps[0].command,
            doc! { "dropSearchIndex": "products", "name": "default" }
        );
        let mut model = live.to_vec();
        apply_plan(&mut model, &pruning).unwrap();
        assert!(diff(&declared, &model).is_empty());
    }

    #[test]
    fn unread_search_indexes_are_reported_not_compared() {
        let declared = [products(vector(3))];
        let mut live = CollectionSpec::new("products");
        live.search_indexes_unknown = true;
        let changes = diff(&declared, &[live]);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ChangeKind::Unmanaged);
        assert!(!has_drift(&changes));
        assert!(plan(&changes, &PlanOptions::default()).steps.is_empty());
    }

    #[test]
    fn a_type_change_drops_then_creates_with_prune() {
        let declared = [products(SearchIndexSpec::new(
            "embedding",
            SearchIndexType::Search,
            doc! { "mappings": { "dynamic": true } },
        ))];
        let live = [products(listed(vector(3), "READY", true))];
        let changes = diff(&declared, &live);
        assert_eq!(changes[0].kind, ChangeKind::Rebuild);
        assert!(plan(&changes, &PlanOptions::default()).steps.is_empty());
        let pruning = plan(
            &changes,
            &PlanOptions {
                prune: true,
                ..PlanOptions::default()
            },
        );
        let verbs: Vec<&str> = pruning
            .steps
            .iter()
            .map(|s| s.command.keys().next().unwrap().as_str())
            .collect();
        assert_eq!(verbs, ["dropSearchIndex", "createSearchIndexes"]);
        let mut model = live.to_vec();
        apply_plan(&mut model, &pruning).unwrap();
        assert!(diff(&declared, &model).is_empty());
    }
}
