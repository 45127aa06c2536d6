//! The subset pattern: the parent embeds only the newest (or most relevant) few children, so the
//! common read is one fetch, while every child lives in its own collection referencing the
//! parent ("see all reviews").
//!
//! [`SubsetSpec::add`] returns the pair of writes: the insert into the children's collection
//! and the parent's `$push` with `$each`, `$sort` and `$slice`, which keeps the embedded array at
//! [`SubsetSpec::keep`], the same number [`SubsetSpec::constrain`] writes as `maxItems`.

use bson::oid::ObjectId;
use bson::{Bson, Document, doc};

use super::{Find, InsertOne, PatternError, Update, property_mut};
use crate::schema::JsonSchema;

/// A parent embedding its newest children, and the collection holding all of them.
///
/// The seed's product page: the 10 newest reviews in `products.reviews`, every review in
/// `reviews` with its `product_id`:
///
/// ```
/// use mongo_schema::patterns::subset::SubsetSpec;
/// const REVIEWS: SubsetSpec = SubsetSpec::new("products", "reviews", 10, "created_at", "reviews", "product_id");
/// let pair = REVIEWS.add(1, bson::doc! { "_id": 7, "stars": 5 });
/// assert_eq!(pair.insert.document, bson::doc! { "_id": 7, "product_id": 1, "stars": 5 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubsetSpec {
    /// The parent collection (`products`).
    pub collection: &'static str,
    /// The parent's embedded array of the newest children (`reviews`).
    pub embedded: &'static str,
    /// How many children the parent keeps.
    pub keep: u32,
    /// The children's field ordering them, newest = largest (`created_at`).
    pub order_by: &'static str,
    /// The collection holding every child (`reviews`).
    pub full_collection: &'static str,
    /// The children's reference to the parent's `_id` (`product_id`).
    pub parent_field: &'static str,
}

/// The two writes of a new child, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct SubsetWrite {
    /// First, the insert into the full collection (the source of truth).
    pub insert: InsertOne,
    /// Then, the parent's update keeping the newest `keep` children embedded.
    pub update: Update,
}

impl SubsetSpec {
    /// A parent keeping its `keep` newest children by `order_by`.
    pub const fn new(
        collection: &'static str,
        embedded: &'static str,
        keep: u32,
        order_by: &'static str,
        full_collection: &'static str,
        parent_field: &'static str,
    ) -> SubsetSpec {
        SubsetSpec {
            collection,
            embedded,
            keep,
            order_by,
            full_collection,
            parent_field,
        }
    }

    /// Bounds the parent's embedded array in its root schema (`maxItems: keep`).
    ///
    /// # Errors
    /// [`PatternError::MissingProperty`] when the schema has no such field.
    pub fn constrain(&self, mut schema: JsonSchema) -> Result<JsonSchema, PatternError> {
        property_mut(&mut schema, self.embedded)?.max_items = Some(u64::from(self.keep));
        Ok(schema)
    }

    /// The writes adding `child` to the parent `parent_id`: insert `{_id, product_id, ...child}`
    /// into the full collection, then `$push` the child (without the reference, which the parent
    /// makes redundant) with `$each: [child]`, `$sort: {order_by: -1}` and `$slice: keep`: sorted
    /// newest first, the first `keep` stay.
    ///
    /// A child without `_id` gets a new ObjectId here, so the embedded copy and the stored one
    /// share it (removing or editing a review can then find its embedded copy).
    pub fn add(&self, parent_id: impl Into<Bson>, mut child: Document) -> SubsetWrite {
        let parent_id = parent_id.into();
        let id = match child.remove("_id") {
            Some(id) => id,
            None => Bson::ObjectId(ObjectId::new()),
        };
        child.remove(self.parent_field);
        let mut stored = doc! { "_id": id.clone(), self.parent_field: parent_id.clone() };
        stored.extend(child.clone());
        let mut embedded = doc! { "_id": id };
        embedded.extend(child);
        let update = doc! {
            "$push": { self.embedded: {
                "$each": [embedded],
                "$sort": { self.order_by: -1 },
                "$slice": i64::from(self.keep),
            } },
        };
        SubsetWrite {
            insert: InsertOne {
                collection: self.full_collection.to_owned(),
                document: stored,
            },
            update: Update::new(self.collection, doc! { "_id": parent_id }, update),
        }
    }

    /// "See all": every child of the parent, newest first.
    pub fn all(&self, parent_id: impl Into<Bson>) -> Find {
        Find {
            collection: self.full_collection.to_owned(),
            filter: doc! { self.parent_field: parent_id.into() },
            sort: doc! { self.order_by: -1 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{array_of, object};

    const REVIEWS: SubsetSpec = SubsetSpec::new(
        "products",
        "reviews",
        10,
        "created_at",
        "reviews",
        "product_id",
    );

    // Manual, $push "Modifiers": whatever their order in the document, the server applies $each,
    // then $position, then $sort, then $slice; so sorted newest first, `$slice: 10` keeps the
    // ten newest.
    #[test]
    fn add_inserts_the_review_and_keeps_the_ten_newest_embedded() {
        let at = bson::DateTime::from_millis(1_000);
        let pair = REVIEWS.add(
            "p_1",
            doc! { "_id": "r_9", "stars": 4, "text": "good", "created_at": at },
        );
        assert_eq!(pair.insert.collection, "reviews");
        assert_eq!(
            pair.insert.document,
            doc! { "_id": "r_9", "product_id": "p_1", "stars": 4, "text": "good", "created_at": at }
        );
        assert_eq!(pair.update.collection, "products");
        assert_eq!(pair.update.filter, doc! { "_id": "p_1" });
        assert_eq!(
            pair.update.update,
            doc! { "$push": { "reviews": {
                "$each": [{ "_id": "r_9", "stars": 4, "text": "good", "created_at": at }],
                "$sort": { "created_at": -1 },
                "$slice": 10_i64,
            } } }
        );
        assert!(!pair.update.upsert);
    }

    #[test]
    fn a_review_without_id_gets_one_shared_by_both_copies() {
        let pair = REVIEWS.add("p_1", doc! { "stars": 5, "product_id": "ignored" });
        let stored = pair.insert.document.get("_id").cloned();
        assert!(matches!(stored, Some(Bson::ObjectId(_))));
        assert_eq!(pair.insert.document.get_str("product_id").unwrap(), "p_1");
        let embedded = pair
            .update
            .update
            .get_document("$push")
            .and_then(|p| p.get_document("reviews"))
            .and_then(|r| r.get_array("$each"))
            .unwrap();
        let embedded = embedded[0].as_document().unwrap();
        assert_eq!(embedded.get("_id").cloned(), stored);
        assert!(!embedded.contains_key("product_id"));
    }

    #[test]
    fn see_all_reads_the_full_collection_newest_first() {
        let find = REVIEWS.all("p_1");
        assert_eq!(find.collection, "reviews");
        assert_eq!(find.filter, doc! { "product_id": "p_1" });
        assert_eq!(find.sort, doc! { "created_at": -1 });
    }

    #[test]
    fn validator_bound_is_the_kept_count() {
        let mut product = object();
        product
            .properties
            .insert("reviews".into(), array_of(object()));
        let bounded = REVIEWS.constrain(product).unwrap();
        assert_eq!(bounded.properties["reviews"].max_items, Some(10));
        let slice = REVIEWS
            .add(1, doc! { "_id": 1 })
            .update
            .update
            .get_document("$push")
            .and_then(|p| p.get_document("reviews"))
            .and_then(|r| r.get_i64("$slice"))
            .unwrap();
        assert_eq!(
            u64::try_from(slice).ok(),
            bounded.properties["reviews"].max_items
        );
    }
}
