//! Computed: values that are expensive to compute and read often (a product's review count and
//! average rating, a user's total spent) are stored, and kept current by an `$inc` in the same
//! write that changes what they summarise.

use bson::oid::ObjectId;
use bson::{Decimal128, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::patterns::combine;
use mongo_schema::patterns::computed::ComputedSpec;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json, json_list};

/// A product's rating summary, kept from `reviews`.
pub const RATINGS: ComputedSpec = ComputedSpec::new("products", "reviews", "product_id")
    .value("stars")
    .count("review_count")
    .sum("rating_sum")
    .average("average_rating");

/// A user's spending, kept from `orders` (through the order's `customer.id`).
pub const SPENDING: ComputedSpec = ComputedSpec::new("users", "orders", "customer.id")
    .value("total")
    .count("order_count")
    .sum("total_spent");

/// A product with its rating summary (`products`); "top rated" sorts on the stored average.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "products",
    index(keys(average_rating = -1)),
    // "Top rated": the stored average makes it an index walk, not an aggregation.
    query(
        name = "top_rated",
        sort(average_rating = -1),
        project(name, average_rating),
        limit = 10
    )
)]
pub struct Product {
    /// The product id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Its name.
    #[mongo(max_length = 200)]
    pub name: String,
    /// How many reviews (`$inc` 1 per review).
    #[mongo(minimum = 0)]
    pub review_count: i64,
    /// Sum of the stars (`$inc` by the review's stars).
    #[mongo(minimum = 0)]
    pub rating_sum: i64,
    /// Stored so that "top rated" can use an index; null before the first review.
    #[mongo(minimum = 1, maximum = 5)]
    pub average_rating: Option<f64>,
}

/// A review (`reviews`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "reviews")]
pub struct Review {
    /// The review id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The product reviewed (indexed: the recompute's `$match`).
    #[mongo(index)]
    pub product_id: ObjectId,
    /// One to five stars.
    #[mongo(minimum = 1, maximum = 5)]
    pub stars: i32,
}

/// The buyer as an order copies it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Buyer {
    /// The user's `_id`.
    pub id: ObjectId,
    /// The user's name at order time.
    #[mongo(max_length = 100)]
    pub name: String,
}

/// An order, reduced to what the computed fields read (`orders`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "orders")]
pub struct Order {
    /// The order id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Who bought.
    pub customer: Buyer,
    /// What they paid.
    #[mongo(minimum = 0)]
    pub total: Decimal128,
}

/// A user with their spending (`users`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "users")]
pub struct User {
    /// The user id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Name.
    #[mongo(max_length = 100)]
    pub name: String,
    /// How many orders (`$inc` 1 per order).
    #[mongo(minimum = 0)]
    pub order_count: i64,
    /// Total of the orders (`$inc` by the order's total).
    pub total_spent: Decimal128,
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "computed",
    pattern: "computed (products, users)",
    summary: "A product stores review_count, rating_sum and average_rating; a user stores \
              order_count and total_spent. Each is kept by the write that changes its source: a \
              new review is an insert into `reviews` and an $inc on the product. An average has \
              no update operator: read it as rating_sum / review_count, or store it with a \
              pipeline update (done here, so that \"top rated\" can use the {average_rating: -1} \
              index).",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![
        Product::collection_spec(),
        Review::collection_spec(),
        Order::collection_spec(),
        User::collection_spec(),
    ]
}

fn explain() -> String {
    let product = ObjectId::from_bytes([0x11; 12]);
    let review =
        doc! { "_id": ObjectId::from_bytes([0x33; 12]), "product_id": product, "stars": 4 };
    let counter = RATINGS
        .on_insert(&review)
        .expect("the review has product_id and stars");
    let stored = RATINGS
        .record_pipeline(4)
        .expect("4 is a number")
        .expect("RATINGS stores an average");
    // The products here store the average, so a removal goes through the pipeline form too
    // (`RATINGS.unrecord(4)` is the operator form, for parents that keep only count and sum).
    let undo = RATINGS
        .unrecord_pipeline(4)
        .expect("4 is a number")
        .expect("RATINGS stores an average");
    let total: Decimal128 = "129.49".parse().expect("a decimal literal");
    let order = doc! {
        "_id": ObjectId::from_bytes([0x44; 12]),
        "customer": { "id": ObjectId::from_bytes([0x55; 12]), "name": "Asha" },
        "total": total,
    };
    let spent = SPENDING
        .on_insert(&order)
        .expect("the order has customer.id and total");
    let with_other_changes = combine([
        spent.update.clone(),
        doc! { "$set": { "last_order_id": ObjectId::from_bytes([0x44; 12]) } },
    ])
    .expect("the paths do not overlap");
    format!(
        "A new review (mongo_schema::patterns::computed):\n\
         db.reviews.insertOne({})\ndb.{}.updateOne({}, {})\n\
         or, storing the average too (a pipeline update):\n\
         db.products.updateOne({}, {})\n\
         A deleted review: db.products.updateOne({}, {})\n\n\
         A new order: db.orders.insertOne(...) then db.{}.updateOne({}, {})\n\
         One write can carry other changes too (patterns::combine): {}\n\n\
         Repairing drift from the source: db.reviews.aggregate({})\n",
        json(&review),
        counter.collection,
        json(&counter.filter),
        json(&counter.update),
        json(&counter.filter),
        json_list(&stored),
        json(&counter.filter),
        json_list(&undo),
        spent.collection,
        json(&spent.filter),
        json(&spent.update),
        json(&with_other_changes),
        json_list(&RATINGS.recompute(product)),
    )
}

/// The "top rated" index was never built.
fn drift() -> Vec<Document> {
    vec![doc! { "dropIndexes": "products", "index": "average_rating_-1" }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict;

    #[test]
    fn a_product_before_and_after_its_first_review_passes() {
        let spec = Product::collection_spec();
        let id = ObjectId::from_bytes([1; 12]);
        let fresh = doc! { "_id": id, "name": "Keyboard", "review_count": 0_i64, "rating_sum": 0_i64, "average_rating": null };
        assert_eq!(verdict(&spec, &fresh), Ok(()));
        let reviewed = doc! { "_id": id, "name": "Keyboard", "review_count": 1_i64, "rating_sum": 4_i64, "average_rating": 4.0 };
        assert_eq!(verdict(&spec, &reviewed), Ok(()));
    }

    #[test]
    fn the_order_write_increments_the_buyer() {
        let buyer = ObjectId::from_bytes([5; 12]);
        let order = doc! { "_id": 1, "customer": { "id": buyer, "name": "A" }, "total": 10.5 };
        let write = SPENDING.on_insert(&order).unwrap();
        assert_eq!(write.filter, doc! { "_id": buyer });
        assert_eq!(
            write.update,
            doc! { "$inc": { "order_count": 1, "total_spent": 10.5 } }
        );
    }
}
