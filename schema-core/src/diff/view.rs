//! A declared view against its live namesake: `viewOn` and the pipeline, compared by value
//! (numbers by value, stages and their fields in order), and the `collMod` that fixes them.

use bson::{Bson, Document};

use super::{Aspect, Change, ChangeKind};
use crate::normalize::{identical, values_equal};
use crate::spec::{CollectionSpec, View};

fn definition(view: &View) -> Bson {
    Bson::Document(bson::doc! { "viewOn": view.view_on.clone(), "pipeline": view.pipeline_bson() })
}

/// Compares the view definitions of two canonical specs of one name.
///
/// The server stores a view's pipeline as the writer sent it and runs it stage by stage, so
/// the order of stages and of the fields in them is kept; only numeric types are forgiven
/// (`{$limit: 10}` from mongosh is an Int32, from the legacy shell a Double).
pub(super) fn compare(d: &CollectionSpec, l: &CollectionSpec, out: &mut Vec<Change>) {
    let (kind, reason, fields) = match (&d.options.view, &l.options.view) {
        (None, None) => return,
        (Some(a), Some(b)) => {
            let (da, db) = (a.pipeline_bson(), b.pipeline_bson());
            let mut fields = Vec::new();
            if a.view_on != b.view_on {
                fields.push("viewOn".to_owned());
            }
            if !values_equal(&da, &db) {
                fields.push("pipeline".to_owned());
            }
            if !fields.is_empty() {
                (
                    ChangeKind::InPlace,
                    "collMod changes the view's viewOn and pipeline",
                    fields,
                )
            } else if !identical(&da, &db) {
                (
                    ChangeKind::Cosmetic,
                    "same view; only numeric types in the pipeline differ",
                    Vec::new(),
                )
            } else {
                return;
            }
        }
        (Some(_), None) => (
            ChangeKind::Rebuild,
            "declared as a view, a collection on the server: drop it and create the view",
            Vec::new(),
        ),
        (None, Some(_)) => (
            ChangeKind::Rebuild,
            "declared as a collection, a view on the server: drop the view and create the collection",
            Vec::new(),
        ),
    };
    out.push(Change {
        collection: d.name.clone(),
        kind,
        aspect: Aspect::View,
        declared: d.options.view.as_ref().map(definition),
        live: l.options.view.as_ref().map(definition),
        fields,
        reason: reason.to_owned(),
    });
}

/// The `collMod` giving view `name` the declared definition of a [`Change`] (`{viewOn,
/// pipeline}`); `None` when the change has none.
pub(super) fn coll_mod(name: &str, declared: Option<&Document>) -> Option<Document> {
    let declared = declared?;
    let view_on = declared.get_str("viewOn").ok()?;
    let pipeline = View::read_pipeline(declared.get("pipeline")?).ok()?;
    Some(View::new(view_on, pipeline).coll_mod_command(name))
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;
    use crate::diff::{PlanOptions, diff, plan};
    use crate::normalize::live_collection;

    fn view(on: &str, pipeline: Vec<Document>) -> CollectionSpec {
        CollectionSpec::new("active").view(View::new(on, pipeline))
    }

    fn listed(on: &str, pipeline: Bson) -> CollectionSpec {
        let entry = doc! {
            "name": "active", "type": "view",
            "options": { "viewOn": on, "pipeline": pipeline },
            "info": { "readOnly": true },
        };
        live_collection(&entry, &[]).unwrap().unwrap()
    }

    #[test]
    fn numbers_compare_by_value_in_a_pipeline() {
        let declared = [view("users", vec![doc! { "$limit": 10 }])];
        let same = [listed("users", bson::bson!([{ "$limit": 10 }]))];
        assert!(diff(&declared, &same).is_empty());
        let double = [listed("users", bson::bson!([{ "$limit": 10.0 }]))];
        let changes = diff(&declared, &double);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ChangeKind::Cosmetic);
        assert!(!crate::diff::has_drift(&changes));
    }

    #[test]
    fn key_order_in_a_stage_is_significant() {
        let declared = [view("users", vec![doc! { "$sort": { "a": 1, "b": -1 } }])];
        let live = [listed(
            "users",
            bson::bson!([{ "$sort": { "b": -1, "a": 1 } }]),
        )];
        let changes = diff(&declared, &live);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ChangeKind::InPlace);
        assert_eq!(changes[0].fields, ["pipeline"]);
    }

    #[test]
    fn a_changed_view_is_fixed_with_one_coll_mod() {
        let declared = [view("users", vec![doc! { "$match": { "active": true } }])];
        let live = [listed("people", bson::bson!([]))];
        let changes = diff(&declared, &live);
        assert_eq!(changes[0].fields, ["viewOn", "pipeline"]);
        let plan = plan(&changes, &PlanOptions::default());
        assert_eq!(plan.steps.len(), 1);
        assert_eq!(
            plan.steps[0].command,
            doc! {
                "collMod": "active", "viewOn": "users",
                "pipeline": [{ "$match": { "active": true } }],
            }
        );
        let mut model = live.to_vec();
        crate::diff::apply_plan(&mut model, &plan).unwrap();
        assert!(diff(&declared, &model).is_empty());
    }

    #[test]
    fn a_missing_view_is_created_with_its_definition() {
        let declared = [view("users", vec![doc! { "$project": { "name": 1 } }])];
        let plan = plan(&diff(&declared, &[]), &PlanOptions::default());
        assert_eq!(
            plan.steps[0].command,
            doc! { "create": "active", "viewOn": "users", "pipeline": [{ "$project": { "name": 1 } }] }
        );
        assert_eq!(plan.steps[0].summary, "create view active on users");
        let mut model = Vec::new();
        crate::diff::apply_plan(&mut model, &plan).unwrap();
        assert!(diff(&declared, &model).is_empty());
    }

    #[test]
    fn a_collection_in_place_of_a_view_is_not_planned() {
        let declared = [view("users", Vec::new())];
        let live = [CollectionSpec::new("active")];
        let changes = diff(&declared, &live);
        let change = changes.iter().find(|c| c.aspect == Aspect::View).unwrap();
        assert_eq!(change.kind, ChangeKind::Rebuild);
        let plan = plan(&changes, &PlanOptions::default());
        assert!(plan.steps.is_empty());
    }
}
