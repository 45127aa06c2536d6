//! Tests of the access-pattern rules, each naming the manual page it encodes.

use bson::{Bson, Document};

use super::coverage::*;
use super::explain::*;
use super::findings::*;
use super::multikey::*;
use super::query::*;
use crate::finding::Severity;
use crate::schema::JsonSchema;
use crate::schema::{BsonType, Items};
use crate::spec::CollectionSpec;
use crate::spec::IndexKind::*;
use crate::spec::IndexSpec;
use bson::doc;

fn none() -> MultikeyPaths {
    MultikeyPaths::none()
}

fn served_by(indexes: &[IndexSpec], query: &QuerySpec) -> Vec<String> {
    coverage(indexes, query, &none())
        .serving
        .into_iter()
        .map(|u| u.index)
        .collect()
}

fn best(indexes: &[IndexSpec], query: &QuerySpec, multikey: &MultikeyPaths) -> IndexUse {
    coverage(indexes, query, multikey)
        .best()
        .cloned()
        .expect("an index serves the query")
}

// Manual, "The ESR (Equality, Sort, Range) Guideline": equality, then sort, then range.
#[test]
fn esr_index_serves_without_sorting_in_memory() {
    let index = IndexSpec::new([
        ("status", Ascending),
        ("created_at", Descending),
        ("total", Ascending),
    ]);
    let query = QuerySpec::new("q")
        .eq("status")
        .sort_desc("created_at")
        .range("total");
    let found = coverage(&[index], &query, &none());
    let best = found.best().unwrap();
    assert!(best.follows_esr && !best.in_memory_sort && !best.reverse_scan);
    assert_eq!(best.equality_prefix, 1);
    assert_eq!(found.suggested, None);
}

// "The ESR (Equality, Sort, Range) Guideline": a range before the sort breaks the sort.
#[test]
fn range_before_sort_sorts_in_memory_and_suggests_esr() {
    let index = IndexSpec::new([
        ("status", Ascending),
        ("total", Ascending),
        ("created_at", Descending),
    ]);
    let query = QuerySpec::new("q")
        .eq("status")
        .sort_desc("created_at")
        .range("total");
    let found = coverage(&[index], &query, &none());
    let best = found.best().unwrap();
    assert!(best.in_memory_sort && !best.follows_esr && best.range_bounded);
    assert!(found.needs_in_memory_sort());
    assert_eq!(
        found.suggested.unwrap().keys.to_document(),
        doc! { "status": 1, "created_at": -1, "total": 1 }
    );
}

// "The ESR (Equality, Sort, Range) Guideline": equality fields in any order.
#[test]
fn equality_fields_serve_in_any_order() {
    let index = IndexSpec::new([("b", Ascending), ("a", Descending)]);
    let query = QuerySpec::new("q").eq("a").eq("b");
    let best = best(&[index], &query, &none());
    assert_eq!(best.equality_prefix, 2);
    assert!(best.follows_esr);
}

// "Compound Indexes", prefixes: extra trailing fields still serve; a non-prefix does not.
#[test]
fn prefix_serves_and_non_prefix_does_not() {
    let trailing = IndexSpec::new([("a", Ascending), ("b", Ascending), ("z", Ascending)]);
    let query = QuerySpec::new("q").eq("a");
    assert_eq!(served_by(&[trailing], &query), ["a_1_b_1_z_1"]);
    assert!(
        best(
            &[IndexSpec::new([("a", Ascending), ("z", Ascending)])],
            &query,
            &none()
        )
        .follows_esr
    );
    let non_prefix = IndexSpec::new([("b", Ascending), ("a", Ascending)]);
    let found = coverage(&[non_prefix], &query, &none());
    assert!(!found.is_served());
    assert_eq!(found.suggested.unwrap().keys.to_document(), doc! { "a": 1 });
}

// "Use Indexes to Sort Query Results": a single-field index gives either direction.
#[test]
fn descending_sort_scans_an_ascending_index_backwards() {
    let index = IndexSpec::new([("created_at", Ascending)]);
    let query = QuerySpec::new("latest").sort_desc("created_at");
    let best = best(std::slice::from_ref(&index), &query, &none());
    assert!(best.reverse_scan && !best.in_memory_sort);
    let ascending = QuerySpec::new("oldest").sort_asc("created_at");
    assert!(!super::tests::best(&[index], &ascending, &none()).reverse_scan);
}

// "Use Indexes to Sort Query Results": a compound index gives the sort with every direction
// as declared or every direction reversed, never a mix.
#[test]
fn reversed_compound_index_serves_only_the_fully_reversed_sort() {
    let index = IndexSpec::new([("a", Ascending), ("b", Descending)]);
    let reversed = QuerySpec::new("q").sort_desc("a").sort_asc("b");
    assert!(best(std::slice::from_ref(&index), &reversed, &none()).reverse_scan);
    let mixed = QuerySpec::new("q").sort_asc("a").sort_asc("b");
    let found = coverage(&[index], &mixed, &none());
    assert!(!found.is_served() && found.needs_in_memory_sort());
    assert_eq!(
        found.suggested.unwrap().keys.to_document(),
        doc! { "a": 1, "b": 1 }
    );
}

// "Use Indexes to Sort Query Results", Sort and Non-prefix Subset of an Index: the sort may
// skip leading fields the query fixes by equality, and no others.
#[test]
fn sort_after_equality_prefix_and_not_after_a_gap() {
    let index = IndexSpec::new([("a", Ascending), ("b", Ascending), ("c", Ascending)]);
    let fixed = QuerySpec::new("q").eq("a").sort_desc("b");
    assert!(!best(std::slice::from_ref(&index), &fixed, &none()).in_memory_sort);
    let skipping_equality = QuerySpec::new("q").eq("a").eq("b").sort_asc("c");
    assert!(!best(std::slice::from_ref(&index), &skipping_equality, &none()).in_memory_sort);
    let gap = QuerySpec::new("q").eq("a").sort_asc("c");
    assert!(best(&[index], &gap, &none()).in_memory_sort);
}

#[test]
fn sort_on_an_equality_field_needs_no_sort() {
    let query = QuerySpec::new("q").eq("a").sort_desc("a");
    assert!(!best(&[IndexSpec::new([("a", Ascending)])], &query, &none()).in_memory_sort);
}

// "Multikey Indexes", Sorting: a sort on an array field is a blocking sort.
#[test]
fn sort_on_multikey_path_is_blocking() {
    let index = IndexSpec::new([("user", Ascending), ("tags", Ascending)]);
    let query = QuerySpec::new("q").eq("user").sort_asc("tags");
    assert!(!best(std::slice::from_ref(&index), &query, &none()).in_memory_sort);
    let arrays = MultikeyPaths::new(["tags"]);
    let found = coverage(&[index], &query, &arrays);
    assert!(found.needs_in_memory_sort());
    assert_eq!(
        found.suggested, None,
        "the ESR index exists: no index avoids this sort"
    );
}

// "Multikey Indexes", Covered Queries: an array field cannot be covered; "Covered Queries".
#[test]
fn multikey_path_cannot_cover() {
    let index = IndexSpec::new([("items.sku", Ascending), ("status", Ascending)]);
    let query = QuerySpec::new("q")
        .eq("items.sku")
        .project(["status"])
        .without_id();
    assert!(best(std::slice::from_ref(&index), &query, &none()).covered);
    let arrays = MultikeyPaths::new(["items"]);
    assert!(arrays.is_multikey("items.sku") && !arrays.is_multikey("itemsx"));
    assert!(!best(&[index], &query, &arrays).covered);
}

// "Covered Queries": `_id` must be excluded unless it is a key; every field must be a key.
#[test]
fn covering_needs_every_field_and_id_handled() {
    let index = IndexSpec::new([("user_id", Ascending), ("total", Ascending)]);
    let covered = QuerySpec::new("q")
        .eq("user_id")
        .project(["total"])
        .without_id();
    assert!(best(std::slice::from_ref(&index), &covered, &none()).covered);
    let with_id = QuerySpec::new("q").eq("user_id").project(["total"]);
    assert!(!best(std::slice::from_ref(&index), &with_id, &none()).covered);
    let outside = QuerySpec::new("q")
        .eq("user_id")
        .project(["status"])
        .without_id();
    assert!(!best(std::slice::from_ref(&index), &outside, &none()).covered);
    let no_projection = QuerySpec::new("q").eq("user_id");
    assert!(!best(std::slice::from_ref(&index), &no_projection, &none()).covered);
    let all_but_id = QuerySpec::new("q").eq("user_id").without_id();
    assert_eq!(
        all_but_id.projection.as_ref().unwrap().to_document(),
        doc! { "_id": 0 }
    );
    assert!(!best(std::slice::from_ref(&index), &all_but_id, &none()).covered);
    let null = covered.clone().filter(doc! { "total": null });
    assert!(!best(std::slice::from_ref(&index), &null, &none()).covered);
    let not_null = covered.filter(doc! { "total": 5 });
    assert!(best(&[index], &not_null, &none()).covered);
    let id_key = IndexSpec::new([("user_id", Ascending), ("_id", Ascending)]);
    assert!(
        !best(&[id_key], &with_id, &none()).covered,
        "total is not a key"
    );
    let id_and_total = IndexSpec::new([
        ("user_id", Ascending),
        ("total", Ascending),
        ("_id", Ascending),
    ]);
    assert!(best(&[id_and_total], &with_id, &none()).covered);
}

#[test]
fn multikey_paths_come_from_schema_arrays() {
    let mut item = crate::generate::object();
    item.properties
        .insert("sku".into(), JsonSchema::bson_type(BsonType::String));
    let mut items = JsonSchema::bson_type(BsonType::Array);
    items.items = Some(Items::Single(Box::new(item)));
    let mut root = crate::generate::object();
    root.properties.insert("items".into(), items);
    root.properties
        .insert("name".into(), JsonSchema::bson_type(BsonType::String));
    let multikey = MultikeyPaths::from_schema(&root);
    assert_eq!(multikey.iter().collect::<Vec<_>>(), ["items"]);
    assert!(multikey.is_multikey("items.sku"));
    assert!(!multikey.is_multikey("name"));
}

// Manual, "Partial Indexes", Query Coverage: the query must imply the filter. Polymorphic
// collections declare the discriminator as the query's condition.
#[test]
fn discriminator_condition_implies_partial_filter() {
    let books = IndexSpec::new([("title", Ascending)])
        .name("books_by_title")
        .partial_filter_expression(doc! { "type": "BOOK" });
    let book = QuerySpec::new("book_by_title")
        .eq("title")
        .filter(doc! { "type": "BOOK" });
    assert_eq!(
        served_by(std::slice::from_ref(&books), &book),
        ["books_by_title"]
    );
    let eq_operator = book.clone().filter(doc! { "type": { "$eq": "BOOK" } });
    assert_eq!(
        served_by(std::slice::from_ref(&books), &eq_operator),
        ["books_by_title"]
    );
    let course = book.clone().filter(doc! { "type": "COURSE" });
    let found = coverage(std::slice::from_ref(&books), &course, &none());
    assert!(!found.is_served());
    assert_eq!(found.partial_not_implied, ["books_by_title"]);
    // The discriminator may instead lead the key pattern: it is an equality of the query.
    let typed = IndexSpec::new([("type", Ascending), ("title", Ascending)]);
    assert!(best(std::slice::from_ref(&typed), &book, &none()).follows_esr);
    assert_eq!(
        coverage(&[], &book, &none())
            .suggested
            .unwrap()
            .keys
            .to_document(),
        doc! { "title": 1, "type": 1 }
    );
    let no_condition = QuerySpec::new("any_by_title").eq("title");
    assert!(!coverage(&[books], &no_condition, &none()).is_served());
}

// "Partial Indexes": `$exists: true` is implied by an equality or range on the field.
#[test]
fn exists_true_is_implied_by_a_declared_field() {
    let email = IndexSpec::new([("email", Ascending)])
        .partial_filter_expression(doc! { "email": { "$exists": true } });
    assert!(
        coverage(
            std::slice::from_ref(&email),
            &QuerySpec::new("q").eq("email"),
            &none()
        )
        .is_served()
    );
    let other = IndexSpec::new([("name", Ascending)])
        .partial_filter_expression(doc! { "email": { "$exists": true } });
    assert!(
        !coverage(
            std::slice::from_ref(&other),
            &QuerySpec::new("q").eq("name"),
            &none()
        )
        .is_served()
    );
    let with_condition = QuerySpec::new("q")
        .eq("name")
        .filter(doc! { "email": { "$exists": true } });
    assert!(coverage(&[other], &with_condition, &none()).is_served());
    let null = QuerySpec::new("q").filter(doc! { "email": null });
    assert!(!coverage(&[email], &null, &none()).is_served());
}

// "Partial Indexes": `{age: {$gt: 21}}` implies `{age: {$gte: 18}}`; `{age: {$gte: 10}}` does not.
#[test]
fn range_conditions_imply_looser_ranges_of_the_same_type() {
    let adults = IndexSpec::new([("name", Ascending)])
        .partial_filter_expression(doc! { "age": { "$gte": 18 } });
    let with = |filter: Document| {
        coverage(
            std::slice::from_ref(&adults),
            &QuerySpec::new("q").eq("name").filter(filter),
            &none(),
        )
        .is_served()
    };
    assert!(with(doc! { "age": { "$gt": 21 } }));
    assert!(with(doc! { "age": { "$gte": 18.0 } }));
    assert!(with(doc! { "age": 30_i64 }));
    assert!(with(
        doc! { "$and": [ { "age": { "$gte": 20, "$lt": 65 } } ] }
    ));
    assert!(!with(doc! { "age": { "$gte": 10 } }));
    assert!(!with(doc! { "age": { "$lt": 30 } }));
    assert!(!with(doc! { "age": "30" }));
    let strict = IndexSpec::new([("name", Ascending)])
        .partial_filter_expression(doc! { "age": { "$gt": 18 } });
    let strictly = |filter: Document| {
        let q = QuerySpec::new("q").eq("name").filter(filter);
        coverage(std::slice::from_ref(&strict), &q, &none()).is_served()
    };
    assert!(!strictly(doc! { "age": { "$gte": 18 } }));
    assert!(!strictly(doc! { "age": 18 }));
    assert!(strictly(doc! { "age": { "$gte": 19 } }));
    assert!(strictly(doc! { "age": { "$gt": 18 } }));
    let below = IndexSpec::new([("name", Ascending)])
        .partial_filter_expression(doc! { "age": { "$lt": 18 } });
    let q = QuerySpec::new("q")
        .eq("name")
        .filter(doc! { "age": { "$lte": 17 } });
    assert!(coverage(&[below], &q, &none()).is_served());
}

// "Partial Indexes": operators we cannot reason about are never taken as implied.
#[test]
fn unprovable_partial_filters_are_not_usable() {
    let index = IndexSpec::new([("name", Ascending)])
        .partial_filter_expression(doc! { "status": { "$in": ["A", "B"] } });
    let q = QuerySpec::new("q")
        .eq("name")
        .filter(doc! { "status": "A" });
    assert!(!coverage(&[index], &q, &none()).is_served());
    let typed = IndexSpec::new([("name", Ascending)])
        .partial_filter_expression(doc! { "status": { "$type": "string" } });
    assert!(!coverage(&[typed], &q, &none()).is_served());
    let either = IndexSpec::new([("name", Ascending)])
        .partial_filter_expression(doc! { "$or": [ { "status": "A" }, { "status": "B" } ] });
    assert!(coverage(&[either], &q, &none()).is_served());
}

// Manual, "Hashed Indexes": equality only; no range, no sort.
#[test]
fn hashed_index_serves_equality_only() {
    let hashed = IndexSpec::new([("user_id", Hashed)]);
    assert!(
        coverage(
            std::slice::from_ref(&hashed),
            &QuerySpec::new("q").eq("user_id"),
            &none()
        )
        .is_served()
    );
    assert!(
        !coverage(
            std::slice::from_ref(&hashed),
            &QuerySpec::new("q").range("user_id"),
            &none()
        )
        .is_served()
    );
    assert!(!coverage(&[hashed], &QuerySpec::new("q").sort_asc("user_id"), &none()).is_served());
}

// Manual, "Text Indexes": only `$text` uses them. Geospatial indexes: only geo operators.
#[test]
fn text_and_geo_indexes_serve_no_declared_query() {
    let text = IndexSpec::new([("title", Text)]);
    let geo = IndexSpec::new([("category", Ascending), ("loc", TwoDSphere)]);
    let q = QuerySpec::new("q").eq("title").eq("category");
    assert!(!coverage(&[text, geo], &q, &none()).is_served());
    let plain = IndexSpec::new([("title", Ascending)]);
    assert!(coverage(&[plain], &q, &none()).is_served());
}

// Manual, "Sparse Indexes": not used where it would miss documents (a sort over everything).
#[test]
fn sparse_index_gives_no_sort_over_the_whole_collection() {
    let sparse = IndexSpec::new([("score", Descending)]).sparse(true);
    let all = QuerySpec::new("top").sort_desc("score");
    assert!(!coverage(std::slice::from_ref(&sparse), &all, &none()).is_served());
    let some = QuerySpec::new("q").range("score").sort_desc("score");
    assert!(coverage(&[sparse], &some, &none()).is_served());
}

// Manual, "Hidden Indexes": the planner does not consider them.
#[test]
fn hidden_index_serves_nothing() {
    let q = QuerySpec::new("q").eq("a");
    let index = IndexSpec::new([("a", Ascending)]);
    assert!(coverage(std::slice::from_ref(&index), &q, &none()).is_served());
    assert!(!coverage(&[index.hidden(true)], &q, &none()).is_served());
}

// Manual, "Wildcard Indexes": one field under the wildcard path, within the projection.
#[test]
fn wildcard_index_serves_fields_under_its_path() {
    let attrs = IndexSpec::new([("attrs.$**", Wildcard)]);
    assert!(
        coverage(
            std::slice::from_ref(&attrs),
            &QuerySpec::new("q").eq("attrs.color"),
            &none()
        )
        .is_served()
    );
    assert!(!coverage(&[attrs], &QuerySpec::new("q").eq("name"), &none()).is_served());
    let all_but_secret =
        IndexSpec::new([("$**", Wildcard)]).wildcard_projection(doc! { "secret": 0 });
    assert!(
        coverage(
            std::slice::from_ref(&all_but_secret),
            &QuerySpec::new("q").eq("name"),
            &none()
        )
        .is_served()
    );
    assert!(
        !coverage(
            &[all_but_secret],
            &QuerySpec::new("q").eq("secret.x"),
            &none()
        )
        .is_served()
    );
    let only_a = IndexSpec::new([("$**", Wildcard)]).wildcard_projection(doc! { "a": 1 });
    assert!(!coverage(&[only_a], &QuerySpec::new("q").eq("b"), &none()).is_served());
}

#[test]
fn queries_on_id_are_served_by_the_id_index() {
    let spec = CollectionSpec::new("c");
    assert!(lint(&spec, &[QuerySpec::new("by_id").eq("_id")]).is_empty());
}

#[test]
fn no_serving_index_is_an_error_with_the_suggested_index() {
    let spec = CollectionSpec::new("orders").index(IndexSpec::new([("status", Ascending)]));
    let findings = lint(
        &spec,
        &[QuerySpec::new("by_user")
            .eq("user_id")
            .sort_desc("created_at")],
    );
    assert!(has_errors(&findings));
    assert_eq!(findings[0].severity, Severity::Error);
    let FindingKind::NoServingIndex { suggested } = &findings[0].kind else {
        panic!("{findings:?}");
    };
    assert_eq!(
        suggested.as_ref().unwrap().keys.to_document(),
        doc! { "user_id": 1, "created_at": -1 }
    );
    assert_eq!(
        findings[0].to_string(),
        "error: orders: query \"by_user\": no index serves it, the server scans the collection; add the index { \"user_id\": 1, \"created_at\": -1 } (ESR order)"
    );
}

#[test]
fn in_memory_sort_is_a_warning_and_unbounded_query_too() {
    let spec = CollectionSpec::new("c").index(IndexSpec::new([("a", Ascending)]));
    let findings = lint(
        &spec,
        &[
            QuerySpec::new("sorted").eq("a").sort_asc("b"),
            QuerySpec::new("everything"),
        ],
    );
    let severities: Vec<(Severity, &FindingKind)> =
        findings.iter().map(|f| (f.severity, &f.kind)).collect();
    assert!(matches!(
        severities[..],
        [
            (Severity::Warning, FindingKind::InMemorySort { .. }),
            (Severity::Warning, FindingKind::UnboundedQuery)
        ]
    ));
    assert!(!has_errors(&findings));
}

#[test]
fn unusable_partial_index_is_reported_beside_the_error() {
    let spec = CollectionSpec::new("catalog").index(
        IndexSpec::new([("title", Ascending)]).partial_filter_expression(doc! { "type": "BOOK" }),
    );
    let findings = lint(
        &spec,
        &[QuerySpec::new("course_by_title")
            .eq("title")
            .filter(doc! { "type": "COURSE" })],
    );
    let kinds: Vec<&FindingKind> = findings.iter().map(|f| &f.kind).collect();
    assert!(matches!(kinds[0], FindingKind::NoServingIndex { .. }));
    assert!(
        matches!(kinds[1], FindingKind::PartialFilterNotImplied { index, .. } if index == "title_1")
    );
    assert_eq!(findings[1].severity, Severity::Warning);
}

#[test]
fn index_no_query_uses_is_unused_unless_it_does_other_work() {
    let spec = CollectionSpec::new("c")
        .index(IndexSpec::new([("a", Ascending)]))
        .index(IndexSpec::new([("b", Ascending)]))
        .index(IndexSpec::new([("email", Ascending)]).unique(true))
        .index(IndexSpec::new([("at", Ascending)]).expire_after_seconds(60));
    let findings = lint(&spec, &[QuerySpec::new("q").eq("a")]);
    let unused: Vec<&FindingKind> = findings.iter().map(|f| &f.kind).collect();
    assert_eq!(
        unused,
        [&FindingKind::UnusedIndex {
            index: "b_1".into()
        }]
    );
    assert_eq!(findings[0].severity, Severity::Note);
    assert!(
        lint(&spec, &[]).is_empty(),
        "no declared query, no unused index"
    );
}

#[test]
fn prefix_index_is_redundant_with_same_or_reversed_directions() {
    let long = IndexSpec::new([("a", Ascending), ("b", Descending)]);
    assert!(is_redundant(&IndexSpec::new([("a", Ascending)]), &long));
    assert!(is_redundant(&IndexSpec::new([("a", Descending)]), &long));
    let mixed = IndexSpec::new([("a", Ascending), ("b", Ascending), ("c", Ascending)]);
    assert!(!is_redundant(
        &IndexSpec::new([("a", Ascending), ("b", Descending)]),
        &mixed
    ));
    assert!(!is_redundant(&long, &long));
    assert!(!is_redundant(&IndexSpec::new([("b", Descending)]), &long));
}

// Unique, partial, sparse, collation, TTL, hashed, text and wildcard indexes differ from a
// longer index in what they hold or do: never redundant by prefix alone.
#[test]
fn indexes_with_options_are_not_redundant_by_prefix() {
    let long = IndexSpec::new([("a", Ascending), ("b", Ascending)]);
    let a = || IndexSpec::new([("a", Ascending)]);
    for short in [
        a().unique(true),
        a().sparse(true),
        a().partial_filter_expression(doc! { "a": { "$exists": true } }),
        a().expire_after_seconds(60),
        a().collation(crate::spec::Collation::new("fr")),
        IndexSpec::new([("a", Hashed)]),
        IndexSpec::new([("a", Text)]),
    ] {
        assert!(!is_redundant(&short, &long), "{short:?}");
    }
    assert!(!is_redundant(&a(), &long.clone().sparse(true)));
    let wildcard = IndexSpec::new([("a.$**", Wildcard)]);
    assert!(!is_redundant(
        &wildcard,
        &IndexSpec::new([("a.$**", Wildcard), ("b", Ascending)])
    ));
    let spec = CollectionSpec::new("c").index(a()).index(long);
    let findings = lint(&spec, &[QuerySpec::new("q").eq("a").eq("b")]);
    assert!(findings.iter().any(|f| f.severity == Severity::Warning
        && matches!(&f.kind, FindingKind::RedundantIndex { index, covered_by } if index == "a_1" && covered_by == "a_1_b_1")));
}

#[test]
fn manifest_form_round_trips_and_names_bad_fields() {
    let query = QuerySpec::new("q")
        .eq("a")
        .sort_desc("b")
        .sort_asc("c")
        .range("d")
        .project(["a", "b"])
        .without_id()
        .filter(doc! { "type": "BOOK" })
        .limit(5)
        .frequency("3/min");
    assert_eq!(QuerySpec::from_document(&query.to_document()), Ok(query));
    let err = |d: Document| QuerySpec::from_document(&d).unwrap_err().path;
    assert_eq!(err(doc! { "equality": ["a"] }), "name");
    assert_eq!(
        err(doc! { "name": "q", "equality": ["a", 1] }),
        "equality[1]"
    );
    assert_eq!(err(doc! { "name": "q", "sort": { "a": 2 } }), "sort.a");
    assert_eq!(
        err(doc! { "name": "q", "projection": { "a": 0 } }),
        "projection.a"
    );
    let read = QuerySpec::from_document(&doc! { "name": "q", "sort": { "a": -1.0 } }).unwrap();
    assert_eq!(read.sort, [("a".to_owned(), Direction::Descending)]);
}

#[test]
fn sampled_values_reach_into_arrays_and_report_missing_fields() {
    let sample = doc! { "items": [ { "qty": 1 }, { "sku": "A1" } ], "tags": ["x", "y"] };
    assert_eq!(sampled_value(&sample, "items.sku"), Some(Bson::from("A1")));
    assert_eq!(sampled_value(&sample, "tags"), Some(Bson::from("x")));
    assert_eq!(sampled_value(&sample, "items.price"), None);
    let query = QuerySpec::new("q").eq("items.price");
    assert_eq!(
        sampled_filter(&query, &sample),
        Err(ExplainError::MissingSampleValue {
            query: "q".into(),
            path: "items.price".into()
        })
    );
}

#[test]
fn explain_command_carries_projection_limit_and_condition() {
    let query = QuerySpec::new("q")
        .eq("title")
        .filter(doc! { "type": "BOOK" })
        .project(["title"])
        .without_id()
        .limit(20);
    let command = explain_command("catalog", &query, &doc! { "title": "Dune" }, 100).unwrap();
    assert_eq!(
        command,
        doc! {
            "explain": {
                "find": "catalog",
                "filter": { "title": "Dune", "type": "BOOK" },
                "projection": { "title": 1, "_id": 0 },
                "limit": 20_i64,
            },
            "verbosity": "executionStats",
            "maxTimeMS": 100_i64,
        }
    );
    assert_eq!(
        sample_command("catalog", &query, 100),
        doc! {
            "aggregate": "catalog",
            "pipeline": [
                { "$match": { "type": "BOOK", "title": { "$exists": true } } },
                { "$sample": { "size": 1 } },
            ],
            "cursor": {},
            "maxTimeMS": 100_i64,
        }
    );
}

// "Explain Results": Sort Stage, Covered Queries, and the EXPRESS/IDHACK index stages.
#[test]
fn explain_summary_reads_sort_covering_and_express_stages() {
    let sorted = doc! {
        "queryPlanner": { "winningPlan": {
            "stage": "SORT", "inputStage": { "stage": "FETCH", "inputStage": {
                "stage": "IXSCAN", "indexName": "status_1" } } } },
        "executionStats": { "nReturned": 5, "totalKeysExamined": 5, "totalDocsExamined": 5 },
    };
    let s = ExplainSummary::from_reply(&sorted).unwrap();
    assert!(s.in_memory_sort && !s.covered);
    assert_eq!(s.index(), Some("status_1"));
    let covered = doc! {
        "queryPlanner": { "winningPlan": {
            "stage": "PROJECTION_COVERED", "inputStage": {
                "stage": "IXSCAN", "keyPattern": { "a": 1, "b": -1 } } } },
        "executionStats": { "nReturned": 5, "totalKeysExamined": 5, "totalDocsExamined": 0 },
    };
    let s = ExplainSummary::from_reply(&covered).unwrap();
    assert!(s.covered && !s.in_memory_sort);
    assert_eq!(s.indexes, ["a_1_b_-1"]);
    let express = doc! { "queryPlanner": { "winningPlan": { "stage": "EXPRESS_IXSCAN", "indexName": "_id_" } } };
    let s = ExplainSummary::from_reply(&express).unwrap();
    assert_eq!((s.access, s.n_returned), (PlanAccess::IndexScan, None));
    assert!(!s.is_over_examined(), "no executionStats, no verdict");
}

#[test]
fn explain_summary_flags_documents_examined_far_above_returned() {
    let reply = |docs: i32, returned: i32| {
        doc! {
            "queryPlanner": { "winningPlan": { "stage": "COLLSCAN" } },
            "executionStats": { "nReturned": returned, "totalKeysExamined": 0, "totalDocsExamined": docs },
        }
    };
    let summary = |d, r| ExplainSummary::from_reply(&reply(d, r)).unwrap();
    assert!(!summary(10, 3).is_over_examined());
    assert!(!summary(10, 1).is_over_examined());
    assert!(summary(11, 1).is_over_examined());
    assert!(summary(11, 0).is_over_examined());
    assert!(summary(5000, 20).is_over_examined());
    assert_eq!(summary(50, 5).examined_ratio(), Some(10.0));
    assert_eq!(
        summary(5000, 20).to_document(),
        doc! {
            "access": "collectionScan", "indexes": [], "inMemorySort": false,
            "covered": false, "stages": ["COLLSCAN"], "keysExamined": 0,
            "docsExamined": 5000, "nReturned": 20, "overExamined": true,
        }
    );
}

// "Explain Results": an aggregate whose pipeline was not pushed down wraps the query part in
// `stages[0].$cursor`; a later `$sort` stage sorts in memory.
#[test]
fn explain_summary_reads_an_aggregate_cursor_stage() {
    let reply = doc! {
        "stages": [
            { "$cursor": {
                "queryPlanner": { "winningPlan": { "stage": "FETCH", "inputStage": {
                    "stage": "IXSCAN", "indexName": "status_1" } } },
                "executionStats": { "nReturned": 8, "totalKeysExamined": 8, "totalDocsExamined": 8 },
            } },
            { "$sort": { "sortKey": { "total": -1 } } },
        ],
        "ok": 1.0,
    };
    let s = ExplainSummary::from_reply(&reply).unwrap();
    assert_eq!(
        (s.access, s.index()),
        (PlanAccess::IndexScan, Some("status_1"))
    );
    assert!(s.in_memory_sort);
    assert_eq!(s.n_returned, Some(8));
}

#[test]
fn explain_errors_are_reported() {
    let failed = doc! { "ok": 0.0, "errmsg": "operation exceeded time limit", "code": 50 };
    assert_eq!(
        ExplainSummary::from_reply(&failed),
        Err(ExplainError::CommandFailed {
            code: 50,
            message: "operation exceeded time limit".into()
        })
    );
    assert!(matches!(
        ExplainSummary::from_reply(&doc! { "ok": 1.0 }),
        Err(ExplainError::NotAnExplainReply { .. })
    ));
}

// A $search or $vectorSearch query runs on mongot, not through the planner ($vectorSearch,
// "Run Vector Search Queries"): no B-tree index serves it, none is suggested, explain has no
// find to run, and the indexes it does not use are not called unused for it.
#[test]
fn search_queries_are_not_judged_as_b_tree_queries() {
    use crate::spec::{SearchIndexSpec, VectorField};
    let spec = CollectionSpec::new("products")
        .index(IndexSpec::new([("embedding", Ascending)]))
        .search_index(SearchIndexSpec::vector(
            "embeddings",
            VectorField::new("embedding", 3, "cosine"),
            ["status"],
        ));
    let similar = QuerySpec::new("similar").vector_search("embeddings", "embedding", ["status"]);
    let found = coverage(&spec.indexes, &similar, &none());
    assert!(!found.is_served() && found.suggested.is_none());
    let findings = lint(&spec, std::slice::from_ref(&similar));
    let codes: Vec<&str> = findings.iter().map(|f| f.kind.code()).collect();
    assert_eq!(codes, ["search-query"]);
    assert_eq!(findings[0].severity, Severity::Note);
    assert!(
        findings[0]
            .message()
            .contains("runs $vectorSearch on the search index \"embeddings\""),
        "{}",
        findings[0]
    );
    assert_eq!(
        find_command("products", &similar, &doc! {}),
        Err(ExplainError::SearchQuery {
            query: "similar".into(),
            stage: "$vectorSearch",
            index: "embeddings".into(),
        })
    );
    // Beside a B-tree query, the index the search query does not use is unused as before.
    let with_btree = [similar, QuerySpec::new("by_status").eq("status")];
    let codes: Vec<String> = lint(&spec, &with_btree)
        .iter()
        .map(|f| f.kind.code().to_owned())
        .collect();
    assert_eq!(codes, ["search-query", "no-serving-index", "unused-index"]);
}

#[test]
fn a_search_query_reads_back_from_the_manifest() {
    let query = QuerySpec::new("find_text")
        .search("text", ["title", "author.name"])
        .limit(10);
    let doc = query.to_document();
    assert_eq!(
        doc,
        doc! { "name": "find_text", "limit": 10_i64,
        "$search": { "index": "text", "path": ["title", "author.name"] } }
    );
    assert_eq!(QuerySpec::from_document(&doc).unwrap(), query);
    assert!(!query.is_unbounded());
}
