//! One declared collection against its live namesake: options, validator, indexes, shard key.

use bson::{Bson, Document};

use super::{Aspect, Change, ChangeKind};
use crate::normalize::{
    self, collations_match, create_form, optional_filters_equal, same_identity, values_equal,
};
use crate::spec::IndexSpec;
use crate::spec::{CollectionSpec, ValidationAction, ValidationLevel};

/// The manifest entry of a canonical spec in the form `create`/`createIndexes` take: defaults
/// the server fills are left out again, indexes are in their `createIndexes` form.
pub(super) fn manifest_entry(spec: &CollectionSpec) -> Document {
    create_spec(spec).to_manifest_document()
}

/// A canonical spec back in the form a `create` command takes.
pub(super) fn create_spec(spec: &CollectionSpec) -> CollectionSpec {
    let mut out = spec.clone();
    if out.validation_level == Some(ValidationLevel::DEFAULT) {
        out.validation_level = None;
    }
    if out.validation_action == Some(ValidationAction::DEFAULT) {
        out.validation_action = None;
    }
    if let Some(ts) = &mut out.options.timeseries
        && let Some(g) = &ts.granularity
        && ts.bucket_max_span_seconds == g.default_bucket_max_span_seconds()
    {
        ts.bucket_max_span_seconds = None;
    }
    if let Some(clustered) = &mut out.options.clustered_index
        && clustered.name.as_deref() == Some("_id_")
    {
        clustered.name = None;
    }
    let collation = out.options.collation.clone();
    out.indexes = out
        .indexes
        .iter()
        .map(|i| create_form(i, collation.as_ref()))
        .collect();
    out
}

fn change(
    spec: &CollectionSpec,
    kind: ChangeKind,
    aspect: Aspect,
    declared: Option<Bson>,
    live: Option<Bson>,
    reason: impl Into<String>,
) -> Change {
    Change {
        collection: spec.name.clone(),
        kind,
        aspect,
        declared,
        live,
        fields: Vec::new(),
        reason: reason.into(),
    }
}

/// Compares two canonical specs of one collection.
pub(super) fn collection(d: &CollectionSpec, l: &CollectionSpec, out: &mut Vec<Change>) {
    // A view in place of a collection (or the reverse) is one change: nothing else compares.
    if d.is_view() != l.is_view() {
        super::view::compare(d, l, out);
        return;
    }
    validator(d, l, out);
    if d.validation_level != l.validation_level {
        out.push(change(
            d,
            ChangeKind::InPlace,
            Aspect::ValidationLevel,
            d.validation_level.as_ref().map(|v| Bson::from(v.as_str())),
            l.validation_level.as_ref().map(|v| Bson::from(v.as_str())),
            "collMod changes validationLevel",
        ));
    }
    if d.validation_action != l.validation_action {
        out.push(change(
            d,
            ChangeKind::InPlace,
            Aspect::ValidationAction,
            d.validation_action.as_ref().map(|v| Bson::from(v.as_str())),
            l.validation_action.as_ref().map(|v| Bson::from(v.as_str())),
            "collMod changes validationAction",
        ));
    }
    options(d, l, out);
    super::view::compare(d, l, out);
    indexes(d, l, out);
    super::search::compare(d, l, out);
    shard_key(d, l, out);
}

fn validator(d: &CollectionSpec, l: &CollectionSpec, out: &mut Vec<Change>) {
    let dv = d.validator.as_ref().map(|v| v.to_document());
    let lv = l.validator.as_ref().map(|v| v.to_document());
    // An empty validator is no validator: `collMod` with `validator: {}` removes it.
    let dv = dv.filter(|v| !v.is_empty());
    let lv = lv.filter(|v| !v.is_empty());
    let (kind, reason) = match (&dv, &lv) {
        (None, None) => return,
        (Some(a), Some(b)) if normalize::documents_identical(a, b) => return,
        (Some(a), Some(b)) if normalize::validators_equal(a, b) => (
            ChangeKind::Cosmetic,
            "same validator; only key order or numeric types differ".to_owned(),
        ),
        (Some(a), Some(b)) => (
            ChangeKind::InPlace,
            format!(
                "collMod replaces the validator ({})",
                super::classify_validator(Some(a), Some(b))
                    .as_str()
                    .replace('-', " ")
            ),
        ),
        (Some(_), None) => (
            ChangeKind::InPlace,
            "collMod adds the validator (tightening)".to_owned(),
        ),
        (None, Some(_)) => (
            ChangeKind::InPlace,
            "declared without a validator; collMod would remove the live one".to_owned(),
        ),
    };
    out.push(change(
        d,
        kind,
        Aspect::Validator,
        dv.map(Bson::Document),
        lv.map(Bson::Document),
        reason,
    ));
}

fn options(d: &CollectionSpec, l: &CollectionSpec, out: &mut Vec<Change>) {
    let (dopt, lopt) = (&d.options, &l.options);
    let opt = |name: &str| Aspect::Option(name.to_owned());

    match (&dopt.timeseries, &lopt.timeseries) {
        (None, None) => {}
        (Some(a), Some(b)) if a == b => {}
        (Some(a), Some(b)) => {
            let same_fields = a.time_field == b.time_field && a.meta_field == b.meta_field;
            let up = |x: Option<i64>, y: Option<i64>| x.unwrap_or(0) >= y.unwrap_or(0);
            let rank_up = match (&a.granularity, &b.granularity) {
                (Some(x), Some(y)) => matches!((x.rank(), y.rank()), (Some(p), Some(q)) if p >= q),
                (None, _) => true,
                (Some(_), None) => false,
            };
            let in_place = same_fields
                && a.other == b.other
                && rank_up
                && up(a.bucket_max_span_seconds, b.bucket_max_span_seconds)
                && up(a.bucket_rounding_seconds, b.bucket_rounding_seconds);
            let (kind, reason) = if in_place {
                (
                    ChangeKind::InPlace,
                    "collMod raises the time-series granularity or bucket span",
                )
            } else {
                (
                    ChangeKind::Rebuild,
                    "time and meta fields cannot change and granularity only increases: needs a new collection",
                )
            };
            out.push(change(
                d,
                kind,
                opt("timeseries"),
                Some(Bson::Document(a.to_document())),
                Some(Bson::Document(b.to_document())),
                reason,
            ));
        }
        (a, b) => out.push(change(
            d,
            ChangeKind::Rebuild,
            opt("timeseries"),
            a.as_ref().map(|t| Bson::Document(t.to_document())),
            b.as_ref().map(|t| Bson::Document(t.to_document())),
            "a collection's type cannot change: needs a new collection",
        )),
    }

    if dopt.expire_after_seconds != lopt.expire_after_seconds {
        out.push(change(
            d,
            ChangeKind::InPlace,
            opt("expireAfterSeconds"),
            dopt.expire_after_seconds.map(Bson::Int64),
            lopt.expire_after_seconds.map(Bson::Int64),
            "collMod changes the collection's expireAfterSeconds",
        ));
    }

    match (&dopt.capped, &lopt.capped) {
        (a, b) if a == b => {}
        (Some(a), Some(b)) => {
            let mut c = change(
                d,
                ChangeKind::InPlace,
                opt("capped"),
                Some(capped_doc(a)),
                Some(capped_doc(b)),
                "collMod changes cappedSize/cappedMax (6.0+)",
            );
            if a.size != b.size {
                c.fields.push("size".into());
            }
            if a.max != b.max {
                c.fields.push("max".into());
            }
            out.push(c);
        }
        (a, b) => out.push(change(
            d,
            ChangeKind::Rebuild,
            opt("capped"),
            a.as_ref().map(capped_doc),
            b.as_ref().map(capped_doc),
            "a collection cannot become capped or uncapped in place: needs a new collection",
        )),
    }

    if dopt.clustered_index != lopt.clustered_index {
        out.push(change(
            d,
            ChangeKind::Rebuild,
            opt("clusteredIndex"),
            dopt.clustered_index.as_ref().map(|c| c.to_bson()),
            lopt.clustered_index.as_ref().map(|c| c.to_bson()),
            "clustering cannot change: needs a new collection",
        ));
    }

    if !collations_match(dopt.collation.as_ref(), lopt.collation.as_ref()) {
        out.push(change(
            d,
            ChangeKind::Rebuild,
            opt("collation"),
            dopt.collation
                .as_ref()
                .map(|c| Bson::Document(c.to_document())),
            lopt.collation
                .as_ref()
                .map(|c| Bson::Document(c.to_document())),
            "a collection's collation cannot change: needs a new collection",
        ));
    }

    if dopt.change_stream_pre_and_post_images != lopt.change_stream_pre_and_post_images {
        let doc =
            |v: Option<bool>| Some(Bson::Document(bson::doc! { "enabled": v.unwrap_or(false) }));
        out.push(change(
            d,
            ChangeKind::InPlace,
            opt("changeStreamPreAndPostImages"),
            doc(dopt.change_stream_pre_and_post_images),
            doc(lopt.change_stream_pre_and_post_images),
            "collMod changes changeStreamPreAndPostImages",
        ));
    }

    unmanaged(d, &dopt.other, &lopt.other, |k| opt(k), out);
}

/// Options the model does not know: every key whose values differ is reported, never acted on.
fn unmanaged(
    spec: &CollectionSpec,
    declared: &Document,
    live: &Document,
    aspect: impl Fn(&str) -> Aspect,
    out: &mut Vec<Change>,
) {
    let mut keys: Vec<&String> = declared.keys().chain(live.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let (a, b) = (declared.get(key), live.get(key));
        let same = match (a, b) {
            (Some(x), Some(y)) => values_equal(x, y),
            _ => false,
        };
        if !same {
            out.push(change(
                spec,
                ChangeKind::Unmanaged,
                aspect(key),
                a.cloned(),
                b.cloned(),
                "an option mongo-schema does not manage; change it by hand if needed",
            ));
        }
    }
}

fn capped_doc(c: &crate::spec::Capped) -> Bson {
    let mut d = bson::doc! { "size": c.size };
    if let Some(max) = c.max {
        d.insert("max", max);
    }
    Bson::Document(d)
}

/// The identity parts in which two indexes differ.
fn identity_differences(d: &IndexSpec, l: &IndexSpec) -> Vec<String> {
    let mut fields = Vec::new();
    if d.keys != l.keys {
        fields.push("key".to_owned());
    }
    if !collations_match(d.collation.as_ref(), l.collation.as_ref()) {
        fields.push("collation".to_owned());
    }
    if !optional_filters_equal(
        d.partial_filter_expression.as_ref(),
        l.partial_filter_expression.as_ref(),
    ) {
        fields.push("partialFilterExpression".to_owned());
    }
    if d.unique != l.unique {
        fields.push("unique".to_owned());
    }
    if d.sparse != l.sparse {
        fields.push("sparse".to_owned());
    }
    if !optional_filters_equal(
        d.wildcard_projection.as_ref(),
        l.wildcard_projection.as_ref(),
    ) {
        fields.push("wildcardProjection".to_owned());
    }
    fields
}

fn indexes(d: &CollectionSpec, l: &CollectionSpec, out: &mut Vec<Change>) {
    let lcoll = l.options.collation.as_ref();
    // A declared index is shown as `createIndexes` would need it on the live collection: the
    // server gives an index without a collation the live collection's, which may differ.
    let show_d = |i: &IndexSpec| Some(Bson::Document(create_form(i, lcoll).to_document()));
    let show_l = |i: &IndexSpec| Some(Bson::Document(create_form(i, lcoll).to_document()));
    let mut live_used = vec![false; l.indexes.len()];
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut unmatched: Vec<usize> = Vec::new();

    // 1. Identity, preferring a live index of the same name when several match.
    for (i, di) in d.indexes.iter().enumerate() {
        let candidates: Vec<usize> = (0..l.indexes.len())
            .filter(|&j| !live_used[j] && same_identity(di, &l.indexes[j], false))
            .collect();
        let pick = candidates
            .iter()
            .copied()
            .find(|&j| l.indexes[j].name == di.name)
            .or(candidates.first().copied());
        match pick {
            Some(j) => {
                live_used[j] = true;
                pairs.push((i, j));
            }
            None => unmatched.push(i),
        }
    }
    // 2. A unique declared index over a live non-unique one: prepareUnique, then unique (6.0+).
    let mut still = Vec::new();
    for i in unmatched {
        let di = &d.indexes[i];
        let pick = di
            .unique
            .then(|| {
                (0..l.indexes.len()).find(|&j| {
                    !live_used[j] && !l.indexes[j].unique && same_identity(di, &l.indexes[j], true)
                })
            })
            .flatten();
        match pick {
            Some(j) => {
                live_used[j] = true;
                pairs.push((i, j));
            }
            None => still.push(i),
        }
    }
    // 3. Same name, different identity: the declared index replaces the live one. A collection
    //    holds one text index, so a declared text index replaces the live one whatever its name.
    for i in still {
        let di = &d.indexes[i];
        let same_name = (0..l.indexes.len())
            .find(|&j| !live_used[j] && l.indexes[j].name == di.name)
            .or_else(|| {
                di.keys
                    .is_text()
                    .then(|| {
                        (0..l.indexes.len()).find(|&j| !live_used[j] && l.indexes[j].keys.is_text())
                    })
                    .flatten()
            });
        match same_name {
            Some(j) if !l.indexes[j].build_in_progress => {
                live_used[j] = true;
                let li = &l.indexes[j];
                let mut fields = identity_differences(di, li);
                if di.name != li.name {
                    fields.push("name".to_owned());
                }
                out.push(Change {
                    collection: d.name.clone(),
                    kind: ChangeKind::Rebuild,
                    aspect: Aspect::Index(di.effective_name()),
                    declared: show_d(di),
                    live: show_l(li),
                    reason: format!(
                        "different {}: the declared index replaces the live one",
                        fields.join(", ")
                    ),
                    fields,
                });
            }
            _ => out.push(Change {
                collection: d.name.clone(),
                kind: ChangeKind::MissingIndex,
                aspect: Aspect::Index(di.effective_name()),
                declared: show_d(di),
                live: None,
                fields: Vec::new(),
                reason: "declared, not on the server".into(),
            }),
        }
    }
    for (j, li) in l.indexes.iter().enumerate() {
        if live_used[j] {
            continue;
        }
        let (kind, reason) = if li.build_in_progress {
            (
                ChangeKind::IndexBuildInProgress,
                "the server is building it",
            )
        } else {
            (ChangeKind::ExtraIndex, "on the server, not declared")
        };
        out.push(Change {
            collection: d.name.clone(),
            kind,
            aspect: Aspect::Index(li.effective_name()),
            declared: None,
            live: show_l(li),
            fields: Vec::new(),
            reason: reason.into(),
        });
    }
    for (i, j) in pairs {
        let (di, li) = (&d.indexes[i], &l.indexes[j]);
        let aspect = Aspect::Index(di.effective_name());
        if li.build_in_progress {
            out.push(Change {
                collection: d.name.clone(),
                kind: ChangeKind::IndexBuildInProgress,
                aspect,
                declared: show_d(di),
                live: show_l(li),
                fields: Vec::new(),
                reason: "the server is building it".into(),
            });
            continue;
        }
        let mut rebuild = Vec::new();
        let mut in_place = Vec::new();
        if di.name != li.name {
            rebuild.push("name");
        }
        if di.weights != li.weights {
            rebuild.push("weights");
        }
        if di.default_language != li.default_language {
            rebuild.push("default_language");
        }
        if di.language_override != li.language_override {
            rebuild.push("language_override");
        }
        if di.bits != li.bits || di.min != li.min || di.max != li.max {
            rebuild.push("bits/min/max");
        }
        match (di.expire_after_seconds, li.expire_after_seconds) {
            (a, b) if a == b => {}
            (Some(_), _) => in_place.push("expireAfterSeconds"),
            (None, _) => rebuild.push("expireAfterSeconds"),
        }
        if di.hidden != li.hidden {
            in_place.push("hidden");
        }
        if di.unique && !li.unique {
            in_place.push("unique");
        }
        let (kind, reason) = if !rebuild.is_empty() {
            (
                ChangeKind::Rebuild,
                format!(
                    "{} cannot change in place: the index must be built again",
                    rebuild.join(", ")
                ),
            )
        } else if !in_place.is_empty() {
            (
                ChangeKind::InPlace,
                format!("collMod changes {}", in_place.join(", ")),
            )
        } else {
            (ChangeKind::Cosmetic, String::new())
        };
        if kind != ChangeKind::Cosmetic {
            out.push(Change {
                collection: d.name.clone(),
                kind,
                aspect: aspect.clone(),
                declared: show_d(di),
                live: show_l(li),
                fields: rebuild
                    .iter()
                    .chain(in_place.iter())
                    .map(|f| (*f).to_owned())
                    .collect(),
                reason,
            });
        }
        let index_name = di.effective_name();
        unmanaged(
            d,
            &di.other,
            &li.other,
            |k| Aspect::IndexOption {
                index: index_name.clone(),
                option: k.to_owned(),
            },
            out,
        );
    }
}

fn shard_key(d: &CollectionSpec, l: &CollectionSpec, out: &mut Vec<Change>) {
    let show = |k: &crate::spec::ShardKey| Some(Bson::Document(k.to_document()));
    match (&d.shard_key, &l.shard_key) {
        (None, None) => {}
        (Some(a), Some(b)) if a == b => {}
        (Some(a), Some(b)) => out.push(change(
            d,
            ChangeKind::Rebuild,
            Aspect::ShardKey,
            show(a),
            show(b),
            "a different shard key needs reshardCollection (5.0+); mongo-schema does not plan it",
        )),
        (Some(a), None) => out.push(change(
            d,
            ChangeKind::Unmanaged,
            Aspect::ShardKey,
            show(a),
            None,
            "the live shard key is unknown (not sharded, or not read through mongos); shard with sh.shardCollection",
        )),
        (None, Some(b)) => out.push(change(
            d,
            ChangeKind::Unmanaged,
            Aspect::ShardKey,
            None,
            show(b),
            "sharded on the server, no shard key declared",
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::diff::{Aspect, ChangeKind, diff, has_drift};
    use crate::spec::{CollectionSpec, ShardKey};
    use crate::spec::{IndexKind::*, IndexSpec};

    // SERVER-FACTS: "Match declared and live indexes by identity, then compare name and the
    // other options."
    #[test]
    fn indexes_match_by_identity_not_by_name() {
        let declared =
            [CollectionSpec::new("c").index(IndexSpec::new([("a", Ascending)]).name("x"))];
        let live = [CollectionSpec::new("c").index(IndexSpec::new([("a", Ascending)]).name("y"))];
        let changes = diff(&declared, &live);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ChangeKind::Rebuild);
        assert_eq!(changes[0].fields, ["name"]);
    }

    #[test]
    fn same_name_with_other_keys_is_a_rebuild_naming_the_key() {
        let declared =
            [CollectionSpec::new("c").index(IndexSpec::new([("a", Ascending)]).name("x"))];
        let live = [CollectionSpec::new("c").index(IndexSpec::new([("a", Descending)]).name("x"))];
        let changes = diff(&declared, &live);
        assert_eq!(changes[0].kind, ChangeKind::Rebuild);
        assert_eq!(changes[0].fields, ["key"]);
    }

    #[test]
    fn other_keys_under_other_names_are_missing_and_extra() {
        let declared = [CollectionSpec::new("c").index(IndexSpec::new([("a", Ascending)]))];
        let live = [CollectionSpec::new("c").index(IndexSpec::new([("b", Ascending)]))];
        let kinds: Vec<ChangeKind> = diff(&declared, &live).iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ChangeKind::MissingIndex, ChangeKind::ExtraIndex]);
    }

    #[test]
    fn an_unread_shard_key_and_live_only_options_are_reported_without_drift() {
        let declared = [CollectionSpec::new("c").shard_key(ShardKey::hashed("u"))];
        let live = [CollectionSpec::new("c").option("storageEngine", bson::doc! {})];
        let changes = diff(&declared, &live);
        assert_eq!(changes.len(), 2);
        assert!(changes.iter().all(|c| c.kind == ChangeKind::Unmanaged));
        assert!(!has_drift(&changes));
        let declared_option =
            [CollectionSpec::new("c").option("storageEngine", bson::doc! { "x": 1 })];
        let changes = diff(&declared_option, &live);
        assert_eq!(changes[0].aspect, Aspect::Option("storageEngine".into()));
        assert!(has_drift(&changes));
    }

    #[test]
    fn granularity_only_rises_in_place() {
        use crate::spec::{Granularity, TimeseriesOptions};
        let ts =
            |g| CollectionSpec::new("t").timeseries(TimeseriesOptions::new("at").granularity(g));
        let up = diff(&[ts(Granularity::Hours)], &[ts(Granularity::Minutes)]);
        assert_eq!(up[0].kind, ChangeKind::InPlace);
        let down = diff(&[ts(Granularity::Seconds)], &[ts(Granularity::Minutes)]);
        assert_eq!(down[0].kind, ChangeKind::Rebuild);
    }
}
