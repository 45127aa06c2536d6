//! The pattern helpers' documents through the official `mongodb` driver, against the
//! wire-protocol test server. That server answers insert, find and aggregate but not update, so
//! these tests run every read the helpers build, and every write's filter as a `find` (which
//! documents would the update touch); the update documents themselves are pinned by the unit
//! tests in `schema-core/src/patterns/`.

use bson::{Bson, DateTime, Document, doc};
use mongo_schema::patterns::Find;
use mongo_schema_examples::apps::{bucket, computed, outlier, subset};
use mongo_schema_test_support::{TestServer, TestServerOptions};
use mongodb::{Client, Database};

async fn database() -> (TestServer, Database) {
    let server = TestServer::start(TestServerOptions::default()).await;
    let client = Client::with_uri_str(server.uri()).await.unwrap();
    let db = client.database("app");
    (server, db)
}

async fn insert(db: &Database, collection: &str, documents: Vec<Document>) {
    db.collection::<Document>(collection)
        .insert_many(documents)
        .await
        .unwrap();
}

/// Runs a helper's read and returns the documents in server order.
async fn find(db: &Database, read: &Find) -> Vec<Document> {
    let mut cursor = db
        .collection::<Document>(&read.collection)
        .find(read.filter.clone())
        .sort(read.sort.clone())
        .await
        .unwrap();
    let mut out = Vec::new();
    while cursor.advance().await.unwrap() {
        out.push(cursor.deserialize_current().unwrap());
    }
    out
}

/// The `_id`s a write's filter selects in `collection`.
async fn selected(db: &Database, collection: &str, filter: &Document) -> Vec<Bson> {
    let read = Find {
        collection: collection.to_owned(),
        filter: filter.clone(),
        sort: doc! { "_id": 1 },
    };
    find(db, &read)
        .await
        .into_iter()
        .filter_map(|d| d.get("_id").cloned())
        .collect()
}

fn comments(n: i32) -> Vec<Bson> {
    (0..n)
        .map(|i| Bson::Document(doc! { "by": "u", "text": i.to_string() }))
        .collect()
}

#[tokio::test]
async fn outlier_reads_the_post_then_its_overflow_in_order() {
    let (_server, db) = database().await;
    let spec = outlier::COMMENTS;
    insert(
        &db,
        spec.collection,
        vec![
            doc! { "_id": 1, "title": "typical", "comments": comments(2), "has_extra": false },
            doc! { "_id": 2, "title": "viral", "comments": comments(50), "has_extra": true },
        ],
    )
    .await;
    insert(
        &db,
        spec.overflow_collection,
        vec![
            doc! { "_id": 10, "post_id": 2, "comments": comments(50) },
            doc! { "_id": 11, "post_id": 2, "comments": comments(3) },
            doc! { "_id": 12, "post_id": 99, "comments": comments(1) },
        ],
    )
    .await;

    let viral = find(&db, &spec.parent(2)).await.remove(0);
    assert!(spec.has_overflow(&viral));
    let overflow = find(&db, &spec.overflow(2)).await;
    assert_eq!(
        overflow
            .iter()
            .map(|d| d.get_i32("_id").unwrap())
            .collect::<Vec<_>>(),
        [10, 11]
    );
    assert_eq!(spec.merge(&viral, &overflow).len(), 103);

    let typical = find(&db, &spec.parent(1)).await.remove(0);
    assert!(!spec.has_overflow(&typical));
    assert_eq!(spec.merge(&typical, &[]).len(), 2);
}

#[tokio::test]
async fn outlier_guards_select_only_posts_and_batches_with_room() {
    let (_server, db) = database().await;
    let spec = outlier::COMMENTS;
    insert(
        &db,
        spec.collection,
        vec![
            doc! { "_id": 1, "comments": comments(49), "has_extra": false },
            doc! { "_id": 2, "comments": comments(50), "has_extra": false },
            doc! { "_id": 3, "has_extra": false },
        ],
    )
    .await;
    for (id, expected) in [
        (1, vec![Bson::Int32(1)]),
        (2, vec![]),
        (3, vec![Bson::Int32(3)]),
    ] {
        let write = spec.add(id, doc! { "by": "u", "text": "new" });
        assert_eq!(
            selected(&db, spec.collection, &write.filter).await,
            expected,
            "post {id}"
        );
    }
    insert(
        &db,
        spec.overflow_collection,
        vec![
            doc! { "_id": 20, "post_id": 2, "comments": comments(50) },
            doc! { "_id": 21, "post_id": 2, "comments": comments(7) },
        ],
    )
    .await;
    let [_, overflow] = spec.add_overflow(2, doc! { "by": "u", "text": "51st" });
    assert_eq!(
        selected(&db, spec.overflow_collection, &overflow.filter).await,
        [Bson::Int32(21)]
    );

    // The spill's trim only matches while the array is as long as when it was read.
    let over = doc! { "_id": 4, "comments": comments(53), "has_extra": false };
    insert(&db, spec.collection, vec![over.clone()]).await;
    let spill = spec.spill(&over).unwrap();
    assert_eq!(spill.inserts.len(), 1);
    assert_eq!(
        selected(&db, spec.collection, &spill.trim.filter).await,
        [Bson::Int32(4)]
    );
    let grown = doc! { "_id": 4, "comments": comments(52) };
    let stale = spec.spill(&grown).unwrap();
    assert!(
        selected(&db, spec.collection, &stale.trim.filter)
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn subset_see_all_reads_every_review_newest_first() {
    let (_server, db) = database().await;
    let spec = subset::NEWEST_REVIEWS;
    let product = bson::oid::ObjectId::from_bytes([1; 12]);
    let other = bson::oid::ObjectId::from_bytes([2; 12]);
    let mut inserts = Vec::new();
    for i in 0..12_i64 {
        let review = doc! {
            "_id": i32::try_from(i).unwrap(),
            "author": "u",
            "stars": 4,
            "text": "t",
            "created_at": DateTime::from_millis(i * 1000),
        };
        inserts.push(spec.add(product, review).insert.document);
    }
    inserts.push(
        spec.add(
            other,
            doc! { "_id": 100, "created_at": DateTime::from_millis(0) },
        )
        .insert
        .document,
    );
    insert(&db, spec.full_collection, inserts).await;
    let all = find(&db, &spec.all(product)).await;
    let ids: Vec<i32> = all.iter().map(|d| d.get_i32("_id").unwrap()).collect();
    assert_eq!(ids, (0..12).rev().collect::<Vec<_>>());
}

#[tokio::test]
async fn computed_recompute_matches_what_the_increments_kept() {
    let (_server, db) = database().await;
    let spec = computed::RATINGS;
    let product = bson::oid::ObjectId::from_bytes([1; 12]);
    let stars = [5, 4, 4, 1];
    let mut kept = (0_i64, 0_i64);
    let mut reviews = Vec::new();
    for (i, s) in stars.iter().enumerate() {
        let review = doc! { "_id": i32::try_from(i).unwrap(), "product_id": product, "stars": s };
        // What the $inc beside each insert adds.
        let inc = spec.on_insert(&review).unwrap().update;
        let inc = inc.get_document("$inc").unwrap();
        kept.0 += i64::from(inc.get_i32("review_count").unwrap());
        kept.1 += i64::from(inc.get_i32("rating_sum").unwrap());
        reviews.push(review);
    }
    reviews.push(doc! { "_id": 99, "product_id": "another", "stars": 3 });
    insert(&db, spec.source, reviews).await;

    let mut cursor = db
        .collection::<Document>(spec.source)
        .aggregate(spec.recompute(product))
        .await
        .unwrap();
    assert!(cursor.advance().await.unwrap());
    let group = cursor.deserialize_current().unwrap();
    let number = |k: &str| {
        group
            .get(k)
            .and_then(|v| v.as_i64().or(v.as_i32().map(i64::from)))
    };
    assert_eq!(number("review_count"), Some(kept.0));
    assert_eq!(number("rating_sum"), Some(kept.1));
    assert!(!cursor.advance().await.unwrap());
}

#[tokio::test]
async fn bucket_upsert_filter_selects_the_open_bucket_and_range_reads_windows() {
    let (_server, db) = database().await;
    let spec = bucket::HOURLY;
    let hour = |h: i64| DateTime::from_millis(1_767_225_600_000 + h * 3_600_000);
    insert(
        &db,
        spec.collection,
        vec![
            doc! { "_id": 1, "sensor_id": "s1", "date": hour(0), "nMeasurements": 60 },
            doc! { "_id": 2, "sensor_id": "s1", "date": hour(0), "nMeasurements": 12 },
            doc! { "_id": 3, "sensor_id": "s1", "date": hour(1), "nMeasurements": 59 },
            doc! { "_id": 4, "sensor_id": "s2", "date": hour(0), "nMeasurements": 1 },
        ],
    )
    .await;
    let write = spec.add("s1", hour(0), 23.7).unwrap();
    assert_eq!(
        selected(&db, spec.collection, &write.filter).await,
        [Bson::Int32(2)]
    );
    // A full window with no open bucket selects nothing: the upsert starts a new one.
    let full = spec.add("s1", hour(2), 1.0).unwrap();
    assert!(
        selected(&db, spec.collection, &full.filter)
            .await
            .is_empty()
    );

    let windows = find(&db, &spec.range("s1", hour(0), hour(2))).await;
    let dates: Vec<DateTime> = windows
        .iter()
        .map(|d| *d.get_datetime("date").unwrap())
        .collect();
    assert_eq!(dates, [hour(0), hour(0), hour(1)]);
}
