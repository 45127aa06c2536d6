//! Subset: a product embeds its 10 newest reviews for the product page; every review lives in the
//! `reviews` collection, referencing the product, for "see all reviews".

use bson::oid::ObjectId;
use bson::{DateTime, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::access::{QueryRegistration, QuerySpec};
use mongo_schema::patterns::subset::SubsetSpec;
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema::spec::{IndexKind, IndexSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json, json_list};

/// The pattern's one number: the product keeps its 10 newest reviews. The validator's
/// `maxItems` and the write's `$slice` both read it.
pub const NEWEST_REVIEWS: SubsetSpec = SubsetSpec::new(
    "products",
    "reviews",
    10,
    "created_at",
    "reviews",
    "product_id",
);

/// A review as the product page shows it (the embedded copy: no `product_id`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct ReviewCopy {
    /// The review's `_id` in `reviews`.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Who wrote it.
    #[mongo(max_length = 100)]
    pub author: String,
    /// One to five stars.
    #[mongo(minimum = 1, maximum = 5)]
    pub stars: i32,
    /// The text.
    #[mongo(max_length = 2000)]
    pub text: String,
    /// When it was written.
    pub created_at: DateTime,
}

/// A product with its newest reviews embedded (`products`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Product {
    /// The product id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// Its name.
    #[mongo(max_length = 200)]
    pub name: String,
    /// The newest reviews, newest first; bounded by [`NEWEST_REVIEWS`].
    pub reviews: Vec<ReviewCopy>,
}

/// Every review (`reviews`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Review {
    /// The review id (shared with its embedded copy).
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The product reviewed.
    pub product_id: ObjectId,
    /// Who wrote it.
    #[mongo(max_length = 100)]
    pub author: String,
    /// One to five stars.
    #[mongo(minimum = 1, maximum = 5)]
    pub stars: i32,
    /// The text.
    #[mongo(max_length = 2000)]
    pub text: String,
    /// When it was written.
    pub created_at: DateTime,
}

impl Collection for Product {
    fn collection_spec() -> CollectionSpec {
        let schema = NEWEST_REVIEWS
            .constrain(Self::root_schema())
            .expect("Product stores `reviews`");
        CollectionSpec::new(NEWEST_REVIEWS.collection).json_schema(schema)
    }
}

impl Collection for Review {
    fn collection_spec() -> CollectionSpec {
        // "See all reviews", newest first.
        let see_all = IndexSpec::on::<Review>([
            ("product_id", IndexKind::Ascending),
            ("created_at", IndexKind::Descending),
        ])
        .expect("product_id and created_at are fields of Review");
        CollectionSpec::new(NEWEST_REVIEWS.full_collection)
            .json_schema(Self::root_schema())
            .index(see_all)
    }
}

// The product page (one fetch: the product with its newest reviews) and "see all reviews",
// newest first.
mongo_schema::__private::inventory::submit! {
    QueryRegistration::new(NEWEST_REVIEWS.collection, || {
        QuerySpec::new("product_page").eq("id").project(["name", "reviews"]).resolve::<Product>().map(|q| vec![q])
    })
}
mongo_schema::__private::inventory::submit! {
    QueryRegistration::new(NEWEST_REVIEWS.full_collection, || {
        QuerySpec::new("all_reviews")
            .eq("product_id")
            .sort_desc("created_at")
            .project(["author", "stars", "text", "created_at"])
            .resolve::<Review>()
            .map(|q| vec![q])
    })
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "subset",
    pattern: "subset (products + reviews)",
    summary: "The product page needs the newest reviews, the \"see all\" page needs every one. \
              The product embeds its 10 newest (the validator says maxItems: 10) and each new \
              review is two writes: insert into `reviews`, then $push into the product with \
              $each, $sort and $slice: 10, the same number.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![Product::collection_spec(), Review::collection_spec()]
}

fn explain() -> String {
    let product = ObjectId::from_bytes([0x11; 12]);
    let review = doc! {
        "_id": ObjectId::from_bytes([0x22; 12]),
        "author": "Asha",
        "stars": 5,
        "text": "Great keyboard",
        "created_at": DateTime::from_millis(1_768_471_200_000),
    };
    let pair = NEWEST_REVIEWS.add(product, review);
    let all = NEWEST_REVIEWS.all(product);
    format!(
        "A new review is two writes (mongo_schema::patterns::subset):\n\
         1. db.{}.insertOne({})\n2. db.{}.updateOne({}, {})\n\n\
         \"See all reviews\": db.{}.find({}).sort({})\n",
        pair.insert.collection,
        json(&pair.insert.document),
        pair.update.collection,
        json(&pair.update.filter),
        json(&pair.update.update),
        all.collection,
        json(&all.filter),
        json(&all.sort),
    ) + &format!(
        "The same product page without the subset would need: db.reviews.aggregate({})\n",
        json_list(&[
            doc! { "$match": { "product_id": product } },
            doc! { "$sort": { "created_at": -1 } },
            doc! { "$limit": 10 },
        ])
    )
}

/// The products collection was created by a release that only warned on invalid documents.
fn drift() -> Vec<Document> {
    vec![doc! { "collMod": "products", "validationAction": "warn" }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validator_bound_is_the_slice() {
        let spec = Product::collection_spec();
        let validator = spec.validator.unwrap().to_document();
        let reviews = validator
            .get_document("$jsonSchema")
            .and_then(|s| s.get_document("properties"))
            .and_then(|p| p.get_document("reviews"))
            .unwrap();
        assert_eq!(reviews.get("maxItems"), Some(&bson::Bson::Int32(10)));
        let pair = NEWEST_REVIEWS.add(1, doc! { "_id": 1 });
        let slice = pair
            .update
            .update
            .get_document("$push")
            .and_then(|p| p.get_document("reviews"))
            .and_then(|r| r.get_i64("$slice"))
            .unwrap();
        assert_eq!(slice, 10);
    }

    #[test]
    fn the_inserted_review_and_the_embedded_copy_pass_their_validators() {
        let product = ObjectId::from_bytes([1; 12]);
        let review = doc! {
            "_id": ObjectId::from_bytes([2; 12]),
            "author": "Asha",
            "stars": 4,
            "text": "ok",
            "created_at": DateTime::from_millis(0),
        };
        let pair = NEWEST_REVIEWS.add(product, review);
        assert_eq!(
            crate::verdict(&Review::collection_spec(), &pair.insert.document),
            Ok(())
        );
        let copy = pair
            .update
            .update
            .get_document("$push")
            .and_then(|p| p.get_document("reviews"))
            .and_then(|r| r.get_array("$each"))
            .unwrap()[0]
            .as_document()
            .unwrap()
            .clone();
        let product_doc = doc! { "_id": product, "name": "Keyboard", "reviews": [copy] };
        assert_eq!(
            crate::verdict(&Product::collection_spec(), &product_doc),
            Ok(())
        );
    }
}
