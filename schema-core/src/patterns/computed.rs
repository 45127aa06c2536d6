//! The computed pattern: store what is expensive to compute and read often (a review count, an
//! average rating, a customer's total spent) and keep it current in the same write that changes
//! the data it summarises, with `$inc`.
//!
//! An average has no update operator. Either keep `sum` and `count` and divide when reading
//! ([`ComputedSpec::average_expression`]; combine the `$inc` with other operators through
//! [`super::combine`]), or store it with a pipeline update ([`ComputedSpec::record_pipeline`],
//! [`ComputedSpec::unrecord_pipeline`]) when it must be indexed or sorted on, at the price of a
//! pipeline-form write.

use bson::{Bson, Document, doc};

use super::{PatternError, Update, negate, number};

/// A parent collection's computed fields and the child collection they summarise.
///
/// ```
/// use mongo_schema::patterns::computed::ComputedSpec;
/// const RATINGS: ComputedSpec = ComputedSpec::new("products", "reviews", "product_id")
///     .value("stars")
///     .count("review_count")
///     .sum("rating_sum")
///     .average("average_rating");
/// assert_eq!(RATINGS.record(5).unwrap(), bson::doc! { "$inc": { "review_count": 1, "rating_sum": 5 } });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputedSpec {
    /// The collection holding the computed fields (`products`, `users`).
    pub collection: &'static str,
    /// The collection of the summarised children (`reviews`, `orders`).
    pub source: &'static str,
    /// The children's dotted path to the parent's `_id` (`product_id`, `customer.id`).
    pub parent_field: &'static str,
    /// The children's dotted path to the summed number (`stars`, `total`); `None` to count only.
    pub value: Option<&'static str>,
    /// The parent's counter (`review_count`).
    pub count: Option<&'static str>,
    /// The parent's running sum (`rating_sum`, `total_spent`).
    pub sum: Option<&'static str>,
    /// The parent's stored average (`average_rating`); needs `count` and `sum`.
    pub average: Option<&'static str>,
}

impl ComputedSpec {
    /// A parent in `collection` summarising the children of `source` that reference it through
    /// `parent_field`, with no computed field yet.
    pub const fn new(
        collection: &'static str,
        source: &'static str,
        parent_field: &'static str,
    ) -> ComputedSpec {
        ComputedSpec {
            collection,
            source,
            parent_field,
            value: None,
            count: None,
            sum: None,
            average: None,
        }
    }

    /// Names the children's summed field.
    pub const fn value(mut self, path: &'static str) -> ComputedSpec {
        self.value = Some(path);
        self
    }

    /// Keeps a counter at this path.
    pub const fn count(mut self, path: &'static str) -> ComputedSpec {
        self.count = Some(path);
        self
    }

    /// Keeps a running sum at this path.
    pub const fn sum(mut self, path: &'static str) -> ComputedSpec {
        self.sum = Some(path);
        self
    }

    /// Stores the average at this path (see [`ComputedSpec::record_pipeline`]).
    pub const fn average(mut self, path: &'static str) -> ComputedSpec {
        self.average = Some(path);
        self
    }

    /// The `$inc` for one more child of value `value`: `{$inc: {count: 1, sum: value}}`.
    ///
    /// # Errors
    /// [`PatternError::NotANumber`] when a sum is kept and `value` is not a number.
    pub fn record(&self, value: impl Into<Bson>) -> Result<Document, PatternError> {
        self.increment(Bson::Int32(1), value.into())
    }

    /// The `$inc` for one child fewer: `{$inc: {count: -1, sum: -value}}`, each number keeping
    /// its BSON type.
    ///
    /// # Errors
    /// [`PatternError::NotANumber`] when a sum is kept and `value` is not a number.
    pub fn unrecord(&self, value: impl Into<Bson>) -> Result<Document, PatternError> {
        let value = value.into();
        let value = match self.sum {
            Some(_) => negate("the removed value", &value)?,
            None => value,
        };
        self.increment(Bson::Int32(-1), value)
    }

    fn increment(&self, one: Bson, value: Bson) -> Result<Document, PatternError> {
        let mut inc = Document::new();
        if let Some(count) = self.count {
            inc.insert(count, one);
        }
        if let Some(sum) = self.sum {
            inc.insert(sum, number("the summed value", value)?);
        }
        Ok(doc! { "$inc": inc })
    }

    /// The parent's update beside the insert of `child` into the source collection: the parent
    /// is found through the child's reference, the value read from the child.
    ///
    /// # Errors
    /// [`PatternError::MissingValue`] when the child lacks the reference or the summed field;
    /// [`PatternError::NotANumber`] when the summed field is not a number.
    pub fn on_insert(&self, child: &Document) -> Result<Update, PatternError> {
        let parent = path(child, self.parent_field)?;
        let value = match self.value {
            Some(field) => path(child, field)?,
            None => Bson::Int32(0),
        };
        Ok(Update::new(
            self.collection,
            doc! { "_id": parent },
            self.record(value)?,
        ))
    }

    /// The average as an aggregation expression over the stored sum and count, `null` while
    /// the count is zero; `None` unless both are kept.
    pub fn average_expression(&self) -> Option<Bson> {
        let (count, sum) = (self.count?, self.sum?);
        Some(Bson::Document(doc! {
            "$cond": [
                { "$gt": [format!("${count}"), 0] },
                { "$divide": [format!("${sum}"), format!("${count}")] },
                Bson::Null,
            ],
        }))
    }

    /// The pipeline update for one more child of value `value` that also stores the average:
    /// one `$set` stage adding to the count and sum (absent counts as 0), a second dividing.
    /// `None` unless count, sum and average are all kept.
    ///
    /// # Errors
    /// [`PatternError::NotANumber`] when `value` is not a number.
    pub fn record_pipeline(
        &self,
        value: impl Into<Bson>,
    ) -> Result<Option<Vec<Document>>, PatternError> {
        let value = number("the summed value", value.into())?;
        Ok(self.pipeline(Bson::Int32(1), value, false))
    }

    /// The pipeline update for one child fewer that also stores the average: the count and sum
    /// go down, and the average becomes `null` when no child is left (no division by zero).
    /// `None` unless count, sum and average are all kept.
    ///
    /// # Errors
    /// [`PatternError::NotANumber`] when `value` is not a number.
    pub fn unrecord_pipeline(
        &self,
        value: impl Into<Bson>,
    ) -> Result<Option<Vec<Document>>, PatternError> {
        let value = negate("the removed value", &value.into())?;
        Ok(self.pipeline(Bson::Int32(-1), value, true))
    }

    fn pipeline(&self, one: Bson, value: Bson, may_empty: bool) -> Option<Vec<Document>> {
        let (count, sum, average) = (self.count?, self.sum?, self.average?);
        let add = |path: &str, delta: Bson| {
            doc! { "$add": [{ "$ifNull": [format!("${path}"), 0] }, delta] }
        };
        let divide = doc! { "$divide": [format!("${sum}"), format!("${count}")] };
        let average_value = if may_empty {
            Bson::Document(doc! {
                "$cond": [{ "$gt": [format!("${count}"), 0] }, divide, Bson::Null],
            })
        } else {
            Bson::Document(divide)
        };
        Some(vec![
            doc! { "$set": { count: add(count, one), sum: add(sum, value) } },
            doc! { "$set": { average: average_value } },
        ])
    }

    /// The aggregation recomputing one parent's values from the source collection (to repair
    /// drift or to backfill): `$match` its children, `$group` counting and summing.
    pub fn recompute(&self, parent_id: impl Into<Bson>) -> Vec<Document> {
        let mut group = doc! { "_id": format!("${}", self.parent_field) };
        if let Some(count) = self.count {
            group.insert(count, doc! { "$sum": 1 });
        }
        if let (Some(sum), Some(value)) = (self.sum, self.value) {
            group.insert(sum, doc! { "$sum": format!("${value}") });
        }
        vec![
            doc! { "$match": { self.parent_field: parent_id.into() } },
            doc! { "$group": group },
        ]
    }
}

/// The value at a dotted path of embedded documents.
fn path(document: &Document, dotted: &str) -> Result<Bson, PatternError> {
    let missing = || PatternError::MissingValue {
        field: dotted.to_owned(),
    };
    let mut segments = dotted.split('.');
    let first = segments.next().ok_or_else(missing)?;
    let mut value = document.get(first).ok_or_else(missing)?;
    for segment in segments {
        value = value
            .as_document()
            .and_then(|d| d.get(segment))
            .ok_or_else(missing)?;
    }
    Ok(value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::combine;
    use crate::patterns::subset::SubsetSpec;

    const RATINGS: ComputedSpec = ComputedSpec::new("products", "reviews", "product_id")
        .value("stars")
        .count("review_count")
        .sum("rating_sum")
        .average("average_rating");

    const SPENT: ComputedSpec = ComputedSpec::new("users", "orders", "customer.id")
        .value("total")
        .count("order_count")
        .sum("total_spent");

    #[test]
    fn record_and_unrecord_are_inverse_incs() {
        assert_eq!(
            RATINGS.record(4).unwrap(),
            doc! { "$inc": { "review_count": 1, "rating_sum": 4 } }
        );
        assert_eq!(
            RATINGS.unrecord(4).unwrap(),
            doc! { "$inc": { "review_count": -1, "rating_sum": -4 } }
        );
        let total: bson::Decimal128 = "129.49".parse().unwrap();
        let undo = SPENT.unrecord(total).unwrap();
        assert_eq!(
            undo.get_document("$inc")
                .unwrap()
                .get("total_spent")
                .map(ToString::to_string),
            Some("-129.49".to_owned())
        );
        assert!(matches!(
            RATINGS.record("4"),
            Err(PatternError::NotANumber { .. })
        ));
    }

    #[test]
    fn count_only_needs_no_number() {
        let likes = ComputedSpec::new("posts", "likes", "post_id").count("like_count");
        assert_eq!(
            likes.record(Bson::Null).unwrap(),
            doc! { "$inc": { "like_count": 1 } }
        );
        let write = likes
            .on_insert(&doc! { "post_id": 3, "user_id": 9 })
            .unwrap();
        assert_eq!(write.filter, doc! { "_id": 3 });
        assert_eq!(write.update, doc! { "$inc": { "like_count": 1 } });
    }

    #[test]
    fn total_spent_follows_the_order_through_its_extended_reference() {
        let order =
            doc! { "_id": "o_981", "customer": { "id": "u_1", "name": "Asha" }, "total": 129.49 };
        let write = SPENT.on_insert(&order).unwrap();
        assert_eq!(write.collection, "users");
        assert_eq!(write.filter, doc! { "_id": "u_1" });
        assert_eq!(
            write.update,
            doc! { "$inc": { "order_count": 1, "total_spent": 129.49 } }
        );
        assert_eq!(
            SPENT.on_insert(&doc! { "customer": { "name": "x" }, "total": 1 }),
            Err(PatternError::MissingValue {
                field: "customer.id".into()
            })
        );
    }

    #[test]
    fn the_counter_rides_in_the_same_write_as_the_subset_push() {
        const SUBSET: SubsetSpec = SubsetSpec::new(
            "products",
            "reviews",
            10,
            "created_at",
            "reviews",
            "product_id",
        );
        let pair = SUBSET.add("p_1", doc! { "_id": "r_1", "stars": 5 });
        let one_write = combine([pair.update.update.clone(), RATINGS.record(5).unwrap()]).unwrap();
        assert_eq!(
            one_write,
            doc! {
                "$push": { "reviews": {
                    "$each": [{ "_id": "r_1", "stars": 5 }],
                    "$sort": { "created_at": -1 },
                    "$slice": 10_i64,
                } },
                "$inc": { "review_count": 1, "rating_sum": 5 },
            }
        );
    }

    #[test]
    fn average_is_read_as_sum_over_count_or_stored_by_a_pipeline() {
        assert_eq!(
            RATINGS.average_expression(),
            Some(Bson::Document(doc! { "$cond": [
                { "$gt": ["$review_count", 0] },
                { "$divide": ["$rating_sum", "$review_count"] },
                Bson::Null,
            ] }))
        );
        assert_eq!(
            RATINGS.record_pipeline(5).unwrap(),
            Some(vec![
                doc! { "$set": {
                    "review_count": { "$add": [{ "$ifNull": ["$review_count", 0] }, 1] },
                    "rating_sum": { "$add": [{ "$ifNull": ["$rating_sum", 0] }, 5] },
                } },
                doc! { "$set": { "average_rating": { "$divide": ["$rating_sum", "$review_count"] } } },
            ])
        );
        assert_eq!(SPENT.record_pipeline(1).unwrap(), None);
        assert_eq!(
            RATINGS.unrecord_pipeline(5).unwrap(),
            Some(vec![
                doc! { "$set": {
                    "review_count": { "$add": [{ "$ifNull": ["$review_count", 0] }, -1] },
                    "rating_sum": { "$add": [{ "$ifNull": ["$rating_sum", 0] }, -5] },
                } },
                doc! { "$set": { "average_rating": { "$cond": [
                    { "$gt": ["$review_count", 0] },
                    { "$divide": ["$rating_sum", "$review_count"] },
                    Bson::Null,
                ] } } },
            ])
        );
        assert!(matches!(
            RATINGS.unrecord_pipeline("5"),
            Err(PatternError::NotANumber { .. })
        ));
    }

    #[test]
    fn recompute_groups_the_children() {
        assert_eq!(
            RATINGS.recompute("p_1"),
            vec![
                doc! { "$match": { "product_id": "p_1" } },
                doc! { "$group": {
                    "_id": "$product_id",
                    "review_count": { "$sum": 1 },
                    "rating_sum": { "$sum": "$stars" },
                } },
            ]
        );
    }
}
