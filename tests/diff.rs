//! Drift cases: each `diff_cases/<case>/` holds a manifest (`declared.json`), a captured catalog
//! (`live.json`, the shape `mongo-schema snapshot` writes, in canonical Extended JSON) and
//! `source.txt`, the server behaviour it encodes. Each case snapshots the change list and the
//! plans; `*-same` cases must show no drift and `*-differs` cases must; every plan run with
//! `prune` against the live model must leave only the changes a plan cannot fix.
//!
//! A property test then checks the same convergence on generated specs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mongo_schema::ExtJsonMode;
use mongo_schema::catalog::Catalog;
use mongo_schema::diff::{
    Aspect, Change, ChangeKind, Plan, PlanOptions, apply_plan, diff, has_drift, plan,
};
use mongo_schema::extjson::to_string_pretty as to_json_text;
use mongo_schema::manifest::Manifest;
use mongo_schema::normalize;
use mongo_schema::spec::{
    Capped, Collation, CollectionOptions, CollectionSpec, Granularity, TimeseriesOptions,
    ValidationAction, ValidationLevel, ValidatorSpec,
};
use mongo_schema::spec::{IndexKind, IndexSpec};
use proptest::prelude::*;

fn case_dir(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("diff_cases")
        .join(case)
}

fn json(value: &bson::Bson) -> String {
    to_json_text(value, ExtJsonMode::Relaxed).replace('\n', "\n    ")
}

fn render_changes(changes: &[Change], out: &mut String) {
    if changes.is_empty() {
        out.push_str("(none)\n");
    }
    for c in changes {
        let _ = writeln!(
            out,
            "{} | {} | {} | {}",
            c.collection, c.aspect, c.kind, c.reason
        );
        if !c.fields.is_empty() {
            let _ = writeln!(out, "  fields: {}", c.fields.join(", "));
        }
        if let Some(v) = &c.declared {
            let _ = writeln!(out, "  declared: {}", json(v));
        }
        if let Some(v) = &c.live {
            let _ = writeln!(out, "  live: {}", json(v));
        }
    }
}

fn render_plan(plan: &Plan, out: &mut String) {
    if plan.steps.is_empty() && plan.skipped.is_empty() {
        out.push_str("(nothing)\n");
    }
    for (i, step) in plan.steps.iter().enumerate() {
        let _ = write!(out, "{}. {}: {}", i + 1, step.collection, step.summary);
        if step.expensive {
            match step.estimated_documents {
                Some(n) => {
                    let _ = write!(out, " [expensive: ~{n} documents]");
                }
                None => out.push_str(" [expensive: size unknown]"),
            }
        }
        if let Some(risk) = &step.risk {
            let _ = write!(out, " [risky: {risk}]");
        }
        let _ = writeln!(
            out,
            "\n    {}",
            json(&bson::Bson::Document(step.command.clone()))
        );
    }
    for s in &plan.skipped {
        let _ = writeln!(
            out,
            "skipped: {} | {} | {} | {}",
            s.collection, s.aspect, s.kind, s.reason
        );
    }
}

/// Whether a plan may leave this change behind: nothing to do, or nothing a plan can do.
fn plan_cannot_fix(change: &Change) -> bool {
    match change.kind {
        ChangeKind::Cosmetic
        | ChangeKind::Unmanaged
        | ChangeKind::IndexBuildInProgress
        | ChangeKind::ExtraCollection => true,
        ChangeKind::Rebuild => !matches!(change.aspect, Aspect::Index(_)),
        _ => false,
    }
}

/// Applies the pruning plan to the live model and returns what is left.
fn converge(declared: &[CollectionSpec], live: &[CollectionSpec], plan: &Plan) -> Vec<Change> {
    let mut model = live.to_vec();
    if let Err((i, e)) = apply_plan(&mut model, plan) {
        panic!("step {} failed: {e}\nplan:\n{plan}", i + 1);
    }
    diff(declared, &model)
}

fn run(case: &str) {
    let dir = case_dir(case);
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{case}/{name}: {e}"))
    };
    let source = read("source.txt");
    assert!(
        !source.trim().is_empty(),
        "{case}: source.txt names the behaviour"
    );
    let manifest = Manifest::from_json(&read("declared.json")).unwrap();
    manifest.check().unwrap();
    let catalog = Catalog::from_json(&read("live.json")).unwrap();
    let live = catalog.to_live_specs().unwrap();

    let changes = diff(&manifest.collections, &live);
    if case.ends_with("-same") {
        assert!(
            !has_drift(&changes),
            "{case}: expected no drift, got {changes:#?}"
        );
    } else {
        assert!(has_drift(&changes), "{case}: expected drift, got none");
    }

    let default_plan = plan(&changes, &PlanOptions::default());
    let counts: BTreeMap<String, u64> = manifest
        .collections
        .iter()
        .map(|c| (c.name.clone(), 250_000))
        .collect();
    let prune = PlanOptions {
        prune: true,
        estimated_documents: counts,
        ..PlanOptions::default()
    };
    let prune_plan = plan(&changes, &prune);
    let hide_plan = plan(
        &changes,
        &PlanOptions {
            hide_before_drop: true,
            ..prune.clone()
        },
    );

    let left = converge(&manifest.collections, &live, &prune_plan);
    let unfixed: Vec<&Change> = left.iter().filter(|c| !plan_cannot_fix(c)).collect();
    assert!(
        unfixed.is_empty(),
        "{case}: the plan did not converge: {unfixed:#?}"
    );
    // Hiding instead of dropping leaves exactly the extra indexes, hidden.
    let left = converge(&manifest.collections, &live, &hide_plan);
    let unfixed: Vec<&Change> = left
        .iter()
        .filter(|c| !plan_cannot_fix(c) && c.kind != ChangeKind::ExtraIndex)
        .collect();
    assert!(
        unfixed.is_empty(),
        "{case}: hiding did not converge: {unfixed:#?}"
    );
    // The default plan never drops and never fails either.
    let mut model = live.clone();
    apply_plan(&mut model, &default_plan).unwrap();
    // Normalizing is idempotent on both sides.
    assert_eq!(live.iter().map(normalize::live).collect::<Vec<_>>(), live);
    let declared = normalize::declared_all(&manifest.collections);
    assert!(diff(&declared, &declared).is_empty());

    let mut out = String::new();
    let _ = writeln!(
        out,
        "source: {}\n",
        source.trim().replace('\n', "\n        ")
    );
    out.push_str("== changes\n");
    render_changes(&changes, &mut out);
    out.push_str("\n== plan\n");
    render_plan(&default_plan, &mut out);
    out.push_str("\n== plan with prune (250000 documents per collection)\n");
    render_plan(&prune_plan, &mut out);
    if hide_plan != prune_plan {
        out.push_str("\n== plan with prune and hide_before_drop\n");
        render_plan(&hide_plan, &mut out);
    }
    insta::assert_snapshot!(case, out);
}

macro_rules! cases {
    ($($test:ident => $dir:literal,)*) => {
        $(
            #[test]
            fn $test() {
                run($dir);
            }
        )*

        #[test]
        fn every_case_directory_is_listed() {
            let listed = [$($dir),*];
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("diff_cases");
            let mut found: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            found.sort();
            let mut listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
            listed.sort();
            assert_eq!(found, listed);
        }
    };
}

cases! {
    numbers_by_value_same => "numbers-by-value-same",
    numbers_by_value_differs => "numbers-by-value-differs",
    validator_order_same => "validator-order-same",
    validator_order_differs => "validator-order-differs",
    validator_missing_differs => "validator-missing-differs",
    validation_defaults_same => "validation-defaults-same",
    validation_defaults_differs => "validation-defaults-differs",
    index_identity_same => "index-identity-same",
    index_identity_differs => "index-identity-differs",
    index_name_same => "index-name-same",
    index_name_differs => "index-name-differs",
    index_ttl_same => "index-ttl-same",
    index_ttl_differs => "index-ttl-differs",
    index_flags_same => "index-flags-same",
    index_flags_differs => "index-flags-differs",
    server_owned_indexes_same => "server-owned-indexes-same",
    server_owned_indexes_differs => "server-owned-indexes-differs",
    text_index_same => "text-index-same",
    text_index_differs => "text-index-differs",
    collation_same => "collation-same",
    collation_differs => "collation-differs",
    wildcard_projection_same => "wildcard-projection-same",
    wildcard_projection_differs => "wildcard-projection-differs",
    timeseries_same => "timeseries-same",
    timeseries_differs => "timeseries-differs",
    capped_same => "capped-same",
    capped_differs => "capped-differs",
    index_build_in_progress_same => "index-build-in-progress-same",
    index_build_uuid_same => "index-build-uuid-same",
    unmanaged_options_differs => "unmanaged-options-differs",
    collections_missing_extra_differs => "collections-missing-extra-differs",
    partial_filter_same => "partial-filter-same",
    partial_filter_differs => "partial-filter-differs",
    mongosh_relaxed_same => "mongosh-relaxed-same",
    geo_hashed_text_wildcard_same => "geo-hashed-text-wildcard-same",
    geo_hashed_text_wildcard_differs => "geo-hashed-text-wildcard-differs",
    index_ttl_added_differs => "index-ttl-added-differs",
    view_same => "view-same",
    view_differs => "view-differs",
    search_index_same => "search-index-same",
    search_index_differs => "search-index-differs",
    search_static_mapping_same => "search-static-mapping-same",
    search_static_mapping_differs => "search-static-mapping-differs",
}

// ---------------------------------------------------------------------------------------------
// Property: a pruning plan, applied to the live model, leaves only what no plan can fix.

fn index_pool() -> Vec<IndexSpec> {
    use IndexKind::*;
    vec![
        IndexSpec::new([("a", Ascending)]),
        IndexSpec::new([("a", Descending)]),
        IndexSpec::new([("a", Ascending), ("b", Ascending)]),
        IndexSpec::new([("b", Hashed)]),
        IndexSpec::new([("title", Text), ("body", Text)]),
        IndexSpec::new([("body", Text)]).weight("body", 5),
        IndexSpec::new([("loc", TwoDSphere)]),
        IndexSpec::new([("c", Ascending)])
            .partial_filter_expression(bson::doc! { "c": { "$exists": true } }),
        IndexSpec::new([("c", Ascending)]).collation(Collation::new("fr").strength(2)),
        IndexSpec::new([("$**", Wildcard)]).wildcard_projection(bson::doc! { "d": 1 }),
    ]
}

fn arb_index() -> impl Strategy<Value = IndexSpec> {
    (
        0..index_pool().len(),
        prop::option::of(prop::sample::select(vec!["ix1", "ix2", "a_1"])),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(prop::sample::select(vec![60_i64, 3600])),
    )
        .prop_map(|(i, name, unique, hidden, ttl)| {
            let mut index = index_pool()[i].clone();
            index.name = name.map(str::to_owned);
            let plain = !index.keys.has_kind(&IndexKind::Hashed)
                && !index.keys.is_text()
                && !index.keys.is_wildcard()
                && !index.keys.has_kind(&IndexKind::TwoDSphere);
            index.unique = unique && plain;
            index.hidden = hidden;
            if index.keys.len() == 1 && plain {
                index.expire_after_seconds = ttl;
            }
            index
        })
}

fn arb_collection() -> impl Strategy<Value = CollectionSpec> {
    (
        prop::sample::select(vec!["a", "b", "c"]),
        prop::option::of(0..3_usize),
        prop::option::of(prop::sample::select(vec![
            ValidationLevel::Moderate,
            ValidationLevel::Off,
        ])),
        prop::option::of(Just(ValidationAction::Warn)),
        prop::collection::vec(arb_index(), 0..4),
        (
            prop::option::of(prop::sample::select(vec!["fr", "de"])),
            prop::option::of(any::<bool>()),
            prop::option::of((
                prop::sample::select(vec![1000_i64, 4096]),
                prop::option::of(0_i64..3),
            )),
        ),
    )
        .prop_map(
            |(name, validator, level, action, indexes, (collation, images, capped))| {
                let validators = [
                    bson::doc! { "$jsonSchema": { "bsonType": "object", "required": ["a"] } },
                    bson::doc! { "$jsonSchema": { "required": ["a", "b"], "bsonType": "object" } },
                    bson::doc! { "status": { "$in": ["A", "B"] } },
                ];
                CollectionSpec {
                    name: name.to_owned(),
                    validator: validator.map(|i| ValidatorSpec::from_document(&validators[i])),
                    validation_level: level,
                    validation_action: action,
                    indexes,
                    options: CollectionOptions {
                        collation: collation.map(Collation::new),
                        change_stream_pre_and_post_images: images,
                        capped: capped.map(|(size, max)| Capped { size, max }),
                        ..CollectionOptions::default()
                    },
                    ..CollectionSpec::default()
                }
            },
        )
}

/// A time-series collection: no validator (the server refuses one), its own options.
fn arb_timeseries() -> impl Strategy<Value = CollectionSpec> {
    (
        prop::sample::select(vec!["a", "b", "c"]),
        prop::option::of(Just("m")),
        prop::option::of(prop::sample::select(vec![
            Granularity::Seconds,
            Granularity::Minutes,
            Granularity::Hours,
        ])),
        prop::option::of(prop::sample::select(vec![3600_i64, 7_776_000])),
        prop::collection::vec(arb_index(), 0..3),
    )
        .prop_map(|(name, meta, granularity, ttl, indexes)| {
            let mut ts = TimeseriesOptions::new("t");
            ts.meta_field = meta.map(str::to_owned);
            ts.granularity = granularity;
            CollectionSpec {
                name: name.to_owned(),
                indexes: indexes.into_iter().map(|i| i.unique(false)).collect(),
                options: CollectionOptions {
                    timeseries: Some(ts),
                    expire_after_seconds: ttl,
                    ..CollectionOptions::default()
                },
                ..CollectionSpec::default()
            }
        })
}

/// A view (issue 15): a source and a pipeline whose numbers come in any of three types.
fn arb_view() -> impl Strategy<Value = CollectionSpec> {
    let limit = prop_oneof![
        Just(bson::Bson::Int32(5)),
        Just(bson::Bson::Int64(5)),
        Just(bson::Bson::Double(5.0)),
        Just(bson::Bson::Int32(7)),
    ];
    (
        prop::sample::select(vec!["a", "b", "c"]),
        prop::sample::select(vec!["orders", "users"]),
        prop::option::of(limit),
        any::<bool>(),
    )
        .prop_map(|(name, on, limit, sort)| {
            let mut pipeline = vec![bson::doc! { "$match": { "status": "PAID" } }];
            if sort {
                pipeline.push(bson::doc! { "$sort": { "a": 1, "b": -1 } });
            }
            if let Some(limit) = limit {
                pipeline.push(bson::doc! { "$limit": limit });
            }
            CollectionSpec::new(name).view(mongo_schema::spec::View::new(on, pipeline))
        })
}

fn arb_specs() -> impl Strategy<Value = Vec<CollectionSpec>> {
    prop::collection::vec(
        prop_oneof![3 => arb_collection(), 1 => arb_timeseries(), 1 => arb_view()],
        0..3,
    )
    .prop_map(|mut specs| {
        specs.sort_by(|a, b| a.name.cmp(&b.name));
        specs.dedup_by(|a, b| a.name == b.name);
        specs
    })
}

/// Live specs as the server would hold them: created through the model's own commands.
fn build_live(specs: &[CollectionSpec]) -> Vec<CollectionSpec> {
    let changes = diff(specs, &[]);
    let creation = plan(&changes, &PlanOptions::default());
    let mut model = Vec::new();
    if let Err((i, e)) = apply_plan(&mut model, &creation) {
        panic!(
            "valid specs must be creatable: step {}: {e}\n{creation}",
            i + 1
        );
    }
    model
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 20_000, ..ProptestConfig::with_cases(1000) })]

    #[test]
    fn applying_a_pruning_plan_yields_the_declared_collections(
        declared in arb_specs(),
        live_declared in arb_specs(),
    ) {
        prop_assume!(declared.iter().all(|c| c.check().is_ok()));
        prop_assume!(live_declared.iter().all(|c| c.check().is_ok()));
        let live = build_live(&live_declared);
        let changes = diff(&declared, &live);
        let pruning = plan(&changes, &PlanOptions { prune: true, ..PlanOptions::default() });
        let mut model = live.clone();
        let applied = apply_plan(&mut model, &pruning);
        prop_assert!(applied.is_ok(), "{:?}\nplan:\n{}", applied, pruning);
        let left: Vec<Change> = diff(&declared, &model)
            .into_iter()
            .filter(|c| !plan_cannot_fix(c))
            .collect();
        prop_assert!(left.is_empty(), "left: {:#?}\nplan:\n{}", left, pruning);
        // A second plan has nothing to do: apply converges.
        let again = plan(&diff(&declared, &model), &PlanOptions { prune: true, ..PlanOptions::default() });
        prop_assert!(again.steps.is_empty(), "second plan:\n{}", again);
    }

    #[test]
    fn a_spec_never_differs_from_itself(specs in arb_specs()) {
        prop_assert!(diff(&specs, &specs).is_empty());
        let canonical = normalize::declared_all(&specs);
        prop_assert_eq!(normalize::declared_all(&canonical), canonical);
        prop_assume!(specs.iter().all(|c| c.check().is_ok()));
        let live = build_live(&specs);
        let again: Vec<CollectionSpec> = live.iter().map(normalize::live).collect();
        prop_assert_eq!(again, live);
    }
}
