//! Server replies (`listCollections`, `listIndexes`) -> live [`CollectionSpec`]s, and both live and
//! declared specs -> one canonical form, so that `diff` sees only real differences.
//!
//! `live.rs` reads server replies ([`live_collection`]); `canonical.rs` gives the canonical
//! forms ([`declared`], [`live`], [`create_form`]); `equivalence.rs` says when two values,
//! validators, filters, collations or indexes mean the same to the server; `check.rs` is
//! [`CollectionSpec::check`], which needs both of the last two.
//!
//! Every rule here is a server behaviour from `SERVER-FACTS.md` ("What listCollections and
//! listIndexes return"); each has a test named after it.
//!
//! # Canonical form
//! - `validationLevel`/`validationAction` absent are filled with the defaults (strict, error).
//! - Indexes: `_id_`, the clustered index and the time-series default index are removed (they
//!   are the server's); every index gets its name (explicit or default, computed from the
//!   declared key pattern); text indexes take their listed form (`_fts`/`_ftsx`, every text
//!   field in `weights`, `default_language: english`, `language_override: language`); 2d
//!   indexes get `bits: 26, min: -180, max: 180`; wildcard projections become a sorted map of
//!   dotted paths to booleans without the implicit `_id: false`; ignored fields (`v`, `ns`,
//!   `background`, `textIndexVersion`, `2dsphereIndexVersion`) are dropped; indexes are sorted
//!   by name.
//! - Index collations are resolved: a declared index without one inherits the collection's, as
//!   the server does, and "simple" is written out as `{locale: "simple"}` so that the form is
//!   idempotent. A collation's `version` is dropped (never compared).
//! - Time-series: `granularity` defaults to seconds unless custom bucketing is set;
//!   `bucketMaxSpanSeconds` is filled from the granularity; `bucketRoundingSeconds` equal to the
//!   granularity's own rounding is dropped.
//! - Capped: `size` rounded up to a multiple of 256 (servers before 6.2 store it so; a
//!   difference below 256 bytes is never one to act on); `max` <= 0 or 2147483647 means no
//!   limit.
//! - Validators and partial filters stay as written: [`validators_equal`] and
//!   [`filters_equal`] compare them with the server's equivalences, so that an order-only
//!   difference can be reported as cosmetic. (The IR is one call away, [`Validator::parse`],
//!   for the evaluator and lints; it is not the comparison form because rendering it back
//!   would hide what the server actually holds.) Numbers compare by value; NaN equals nothing,
//!   so a validator holding NaN is always reported as different.
//!
//! # Collations: a decision
//! The server expands every collation it lists to all ICU fields, with defaults that depend on
//! the locale and the ICU version, which we cannot reproduce. [`collation_matches`] therefore
//! compares `locale` and only the fields the declaration gives: a declared `{locale: "fr"}`
//! matches a listed `{locale: "fr", strength: 3, ...}`, a declared `{locale: "fr", strength:
//! 2}` does not.
//!
//! [`Validator::parse`]: crate::spec::ValidatorSpec::parse
//! [`CollectionSpec`]: crate::spec::CollectionSpec
//! [`CollectionSpec::check`]: crate::spec::CollectionSpec::check

mod canonical;
mod check;
mod equivalence;
mod live;
mod search;

pub use canonical::{create_form, declared, declared_all, live};
pub use equivalence::{
    canonical_validator, collation_matches, collations_match, documents_identical, filters_equal,
    identical, validators_equal, values_equal,
};
pub(crate) use equivalence::{optional_filters_equal, same_identity};
pub use live::{NormalizeError, live_collection, live_search_indexes};
pub use search::{canonical_definition, search_definitions_equal};

#[cfg(test)]
mod tests {
    use bson::Bson;

    use super::canonical::{canonical_collation, flat_projection};
    use super::*;
    use crate::spec::IndexKind::*;
    use crate::spec::{Capped, ClusteredIndex, Granularity, TimeseriesOptions};
    use crate::spec::{Collation, CollectionSpec, IndexSpec};
    use bson::{Decimal128, doc};

    // SERVER-FACTS: "Compare numbers by value everywhere (Int32 = Int64 = Double = Decimal128
    // when equal; -0 = 0; NaN equals nothing)".
    #[test]
    fn numbers_compare_by_value_across_types() {
        let five_dec: Decimal128 = "5".parse().unwrap();
        for five in [
            Bson::Int32(5),
            Bson::Int64(5),
            Bson::Double(5.0),
            Bson::Decimal128(five_dec),
        ] {
            assert!(values_equal(&Bson::Int32(5), &five), "{five:?}");
        }
        assert!(!values_equal(&Bson::Int32(5), &Bson::Double(5.5)));
        assert!(values_equal(&Bson::Double(-0.0), &Bson::Int32(0)));
        assert!(!values_equal(
            &Bson::Double(f64::NAN),
            &Bson::Double(f64::NAN)
        ));
    }

    // SERVER-FACTS: "Inside a validator, keyword order, properties order, and the order of
    // required, enum, type arrays and allOf/anyOf/oneOf branches carry no meaning".
    #[test]
    fn validator_keyword_and_set_order_carries_no_meaning() {
        let a = doc! { "$jsonSchema": {
            "bsonType": "object",
            "required": ["a", "b"],
            "properties": {
                "a": { "bsonType": ["int", "long"], "minimum": 0 },
                "b": { "enum": ["x", "y"], "anyOf": [{ "maxLength": 1 }, { "minLength": 3 }] },
            },
        } };
        let b = doc! { "$jsonSchema": {
            "properties": {
                "b": { "anyOf": [{ "minLength": 3.0 }, { "maxLength": 1_i64 }], "enum": ["y", "x"] },
                "a": { "minimum": 0.0, "bsonType": ["long", "int"] },
            },
            "required": ["b", "a"],
            "bsonType": ["object"],
        } };
        assert!(validators_equal(&a, &b));
        let c = doc! { "$jsonSchema": { "bsonType": "object", "required": ["a"] } };
        assert!(!validators_equal(&a, &c));
    }

    #[test]
    fn positional_items_keep_their_order() {
        let a =
            doc! { "$jsonSchema": { "items": [{ "bsonType": "int" }, { "bsonType": "string" }] } };
        let b =
            doc! { "$jsonSchema": { "items": [{ "bsonType": "string" }, { "bsonType": "int" }] } };
        assert!(!validators_equal(&a, &b));
    }

    // SERVER-FACTS: "literal embedded documents used as values ($eq, enum members) keep field
    // order in query operators", while $jsonSchema `enum` compares documents ignoring order.
    #[test]
    fn literal_documents_keep_field_order_in_query_operators_only() {
        let a = doc! { "loc": { "$eq": { "x": 1, "y": 2 } } };
        let b = doc! { "loc": { "$eq": { "y": 2, "x": 1 } } };
        assert!(!validators_equal(&a, &b));
        let a = doc! { "$jsonSchema": { "enum": [{ "x": 1, "y": 2 }] } };
        let b = doc! { "$jsonSchema": { "enum": [{ "y": 2, "x": 1 }] } };
        assert!(validators_equal(&a, &b));
        assert!(validators_equal(
            &doc! { "d": { "$exists": 0 } },
            &doc! { "d": { "$exists": false } },
        ));
        // Top-level fields of a query are an implicit $and: their order is meaningless.
        let a = doc! { "a": { "$gt": 1 }, "b": { "$in": [1, 2] } };
        let b = doc! { "b": { "$in": [2, 1] }, "a": { "$gt": 1.0 } };
        assert!(validators_equal(&a, &b));
    }

    // SERVER-FACTS: "Wildcard projections may come back nested ... compare as a flat map of
    // dotted paths".
    #[test]
    fn wildcard_projection_nested_equals_dotted() {
        let nested = flat_projection(&doc! { "author": { "name": true }, "_id": false });
        let dotted = flat_projection(&doc! { "author.name": 1 });
        assert_eq!(nested, dotted);
        assert_ne!(dotted, flat_projection(&doc! { "author.email": 1 }));
    }

    // SERVER-FACTS: collations are listed expanded with a server-only `version`.
    #[test]
    fn declared_collation_fields_only_are_compared() {
        let live = Collation::from_document(&doc! {
            "locale": "fr_CA", "caseLevel": false, "caseFirst": "off", "strength": 3,
            "numericOrdering": false, "alternate": "non-ignorable", "maxVariable": "punct",
            "normalization": false, "backwards": true, "version": "57.1",
        })
        .unwrap();
        assert!(collation_matches(&Collation::new("fr_CA"), &live));
        assert!(!collation_matches(&Collation::new("fr"), &live));
        assert!(!collation_matches(
            &Collation::new("fr_CA").strength(2),
            &live
        ));
        let mut with_version = Collation::new("fr_CA");
        with_version.version = Some("1.0".into());
        assert!(collation_matches(&canonical_collation(with_version), &live));
    }

    // SERVER-FACTS: "Text indexes are listed as key: {_fts: "text", _ftsx: 1} (non-text prefix
    // and suffix fields kept in place)".
    #[test]
    fn text_index_takes_the_listed_form_with_prefix_fields_in_place() {
        let spec = CollectionSpec::new("a").index(
            IndexSpec::new([
                ("shop", Ascending),
                ("title", Text),
                ("body", Text),
                ("at", Descending),
            ])
            .weight("title", 10),
        );
        let index = &declared(&spec).indexes[0];
        assert_eq!(
            index.keys.to_document(),
            doc! { "shop": 1, "_fts": "text", "_ftsx": 1, "at": -1 }
        );
        assert_eq!(
            index.name.as_deref(),
            Some("shop_1_title_text_body_text_at_-1")
        );
        assert_eq!(index.weights.get("body"), Some(&1));
        assert_eq!(index.default_language.as_deref(), Some("english"));
        assert_eq!(index.language_override.as_deref(), Some("language"));
        let back = create_form(index, None);
        assert_eq!(
            back.keys.to_document(),
            doc! { "shop": 1, "title": "text", "body": "text", "at": -1 }
        );
    }

    // SERVER-FACTS: time-series defaults: "granularity: seconds" and bucketMaxSpanSeconds
    // 3600 / 86400 / 2592000.
    #[test]
    fn timeseries_defaults_are_filled() {
        let spec = CollectionSpec::new("t").timeseries(TimeseriesOptions::new("ts"));
        let ts = declared(&spec).options.timeseries.unwrap();
        assert_eq!(ts.granularity, Some(Granularity::Seconds));
        assert_eq!(ts.bucket_max_span_seconds, Some(3_600));
        let spec = CollectionSpec::new("t")
            .timeseries(TimeseriesOptions::new("ts").granularity(Granularity::Hours));
        let ts = declared(&spec).options.timeseries.unwrap();
        assert_eq!(ts.bucket_max_span_seconds, Some(2_592_000));
        let custom =
            CollectionSpec::new("t").timeseries(TimeseriesOptions::new("ts").bucketing(600, 600));
        let ts = declared(&custom).options.timeseries.unwrap();
        assert_eq!(ts.granularity, None);
    }

    // SERVER-FACTS: "Capped size may be rounded up to a multiple of 256 (before 6.2); max <= 0
    // is stored as 2147483647".
    #[test]
    fn capped_size_rounds_to_256_and_nonpositive_max_means_none() {
        let spec = CollectionSpec::new("c").capped(Capped::size(1000).max(0));
        let capped = declared(&spec).options.capped.unwrap();
        assert_eq!(capped, Capped::size(1024));
        let live = CollectionSpec::new("c").capped(Capped::size(1024).max(2_147_483_647));
        assert_eq!(self::live(&live).options.capped.unwrap(), capped);
    }

    #[test]
    fn declared_normalization_is_idempotent() {
        let spec = CollectionSpec::new("a")
            .collation(Collation::new("fr"))
            .index(IndexSpec::new([("t", Text)]))
            .index(IndexSpec::new([("p", TwoD)]))
            .index(IndexSpec::new([("n", Ascending)]).collation(Collation::new("simple")))
            .index(
                IndexSpec::new([("$**", Wildcard)]).wildcard_projection(doc! { "a": { "b": 1 } }),
            );
        let once = declared(&spec);
        assert_eq!(declared(&once), once);
        assert_eq!(live(&once), once);
    }

    // SERVER-FACTS: "Index builds in progress are listed wrapped as {spec, indexBuildInfo}".
    #[test]
    fn in_progress_builds_are_unwrapped() {
        let live = live_collection(
            &doc! { "name": "c", "type": "collection", "options": {} },
            &[doc! { "spec": { "v": 2, "key": { "a": 1 }, "name": "a_1" }, "indexBuildInfo": { "opid": 7 } }],
        )
        .unwrap()
        .unwrap();
        assert!(live.indexes[0].build_in_progress);
        assert_eq!(live.indexes[0].name.as_deref(), Some("a_1"));
    }

    // The server's src/mongo/db/local_catalog/clustered_collection_util.cpp:
    // makeCanonicalClusteredInfoForLegacyFormat() reads `clusteredIndex: true` as
    // `{key: {_id: 1}, unique: true, name: "_id_"}`.
    #[test]
    fn the_legacy_clustered_form_equals_the_id_clustered_index() {
        let legacy = live_collection(
            &doc! { "name": "c", "type": "collection", "options": { "clusteredIndex": true } },
            &[],
        )
        .unwrap()
        .unwrap();
        let declared = declared(&CollectionSpec::new("c").clustered_index(ClusteredIndex::new()));
        assert_eq!(legacy, declared);
        let listed = live_collection(
            &doc! { "name": "c", "type": "collection", "options": {
            "clusteredIndex": { "v": 2, "key": { "_id": 1 }, "name": "_id_", "unique": true } } },
            &[],
        )
        .unwrap()
        .unwrap();
        assert_eq!(legacy, listed);
        assert!(crate::diff::diff(&[declared], &[legacy]).is_empty());
    }

    // The server's src/mongo/db/commands/list_indexes.cpp: with includeBuildUUIDs an index
    // still building is `{spec: <index spec>, buildUUID: <uuid>}`; a ready one is the bare spec.
    #[test]
    fn builds_listed_with_their_build_uuid_are_in_progress() {
        let uuid = Bson::Binary(bson::Binary {
            subtype: bson::spec::BinarySubtype::Uuid,
            bytes: vec![7; 16],
        });
        let live = live_collection(
            &doc! { "name": "c", "type": "collection", "options": {} },
            &[
                doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
                doc! { "spec": { "v": 2, "key": { "b": 1 }, "name": "b_1" }, "buildUUID": uuid },
                doc! { "spec": { "v": 2, "key": { "c": 1 }, "name": "c_1" } },
            ],
        )
        .unwrap()
        .unwrap();
        let names: Vec<(&str, bool)> = live
            .indexes
            .iter()
            .map(|i| (i.name.as_deref().unwrap(), i.build_in_progress))
            .collect();
        assert_eq!(names, [("b_1", true), ("c_1", false)]);
    }

    #[test]
    fn views_are_read_and_system_collections_skipped() {
        let view = doc! {
            "name": "v", "type": "view",
            "options": { "viewOn": "c", "pipeline": [{ "$match": { "a": 1 } }] },
            "info": { "readOnly": true },
        };
        let live = live_collection(&view, &[]).unwrap().unwrap();
        let definition = live.options.view.as_ref().unwrap();
        assert_eq!(definition.view_on, "c");
        assert_eq!(definition.pipeline, [doc! { "$match": { "a": 1 } }]);
        assert_eq!(live.validation_level, None);
        assert!(live.options.other.is_empty());
        let system = doc! { "name": "system.buckets.t", "type": "collection", "options": {} };
        assert!(live_collection(&system, &[]).unwrap().is_none());
    }

    // SERVER-FACTS: "Unknown fields are reported as unmanaged, never dropped silently".
    #[test]
    fn unknown_entry_fields_are_kept_and_known_noise_is_dropped() {
        let live = live_collection(
            &doc! {
                "name": "c", "type": "collection",
                "options": { "storageEngine": { "wiredTiger": {} } },
                "info": { "readOnly": false, "uuid": Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Uuid, bytes: vec![0; 16] }), "shiny": 1 },
                "idIndex": { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
            },
            &[doc! { "v": 1, "key": { "a": 1 }, "name": "a_1", "ns": "db.c", "background": true, "textIndexVersion": 3, "2dsphereIndexVersion": 3, "newOption": true }],
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            live.options.other,
            doc! { "storageEngine": { "wiredTiger": {} }, "info.shiny": 1 }
        );
        assert_eq!(live.indexes[0].other, doc! { "newOption": true });
    }

    #[test]
    fn bad_entries_name_collection_and_index() {
        let err = live_collection(
            &doc! { "name": "c", "options": {} },
            &[doc! { "key": "a", "name": "a_1" }],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "c: index \"a_1\": key: expected a document, found \"a\""
        );
        let err =
            live_collection(&doc! { "name": "c", "options": { "validator": 5 } }, &[]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("c: listCollections entry: options.validator"),
            "{err}"
        );
    }
}
