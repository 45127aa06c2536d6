//! The outlier pattern: embed children up to a limit (the typical case), and for the rare parent
//! with more, set a flag and keep the rest in overflow documents in another collection. Only
//! the outliers pay for the second read.
//!
//! [`OutlierSpec`] names the fields once; the validator bound ([`OutlierSpec::constrain`]) and
//! the write guard (`$slice`, `"comments.49": {$exists: false}`) read the same limit.

use bson::{Bson, Document, doc};

use super::{Find, InsertOne, PatternError, Update, property_mut};
use crate::schema::JsonSchema;

/// A parent collection with a bounded embedded array and its overflow collection.
///
/// The second seed's posts: `{_id, comments: [...up to 50], has_extra}` with overflow documents
/// `{post_id, comments: [...next batch]}`:
///
/// ```
/// use mongo_schema::patterns::outlier::OutlierSpec;
/// const POSTS: OutlierSpec =
///     OutlierSpec::new("posts", "comments", "has_extra", 50, "overflow", "post_id", "comments");
/// assert_eq!(POSTS.add("post_2", bson::doc! { "text": "hi" }).filter,
///            bson::doc! { "_id": "post_2", "comments.49": { "$exists": false } });
/// ```
///
/// The first seed's books: a handful of authors embedded, `hasMore: true` for anthologies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutlierSpec {
    /// The parent collection (`posts`, `books`).
    pub collection: &'static str,
    /// The stored name of the embedded array (`comments`, `authors`).
    pub embedded: &'static str,
    /// The stored name of the overflow flag (`has_extra`, `hasMore`).
    pub flag: &'static str,
    /// How many children the parent embeds at most.
    pub limit: u32,
    /// The overflow collection.
    pub overflow_collection: &'static str,
    /// The overflow documents' reference to the parent's `_id` (`post_id`).
    pub parent_field: &'static str,
    /// The overflow documents' array of children (`comments`).
    pub overflow_items: &'static str,
    /// How many children one overflow document holds at most (default: `limit`).
    pub overflow_limit: u32,
}

impl OutlierSpec {
    /// A parent embedding up to `limit` children, overflow documents holding as many.
    pub const fn new(
        collection: &'static str,
        embedded: &'static str,
        flag: &'static str,
        limit: u32,
        overflow_collection: &'static str,
        parent_field: &'static str,
        overflow_items: &'static str,
    ) -> OutlierSpec {
        OutlierSpec {
            collection,
            embedded,
            flag,
            limit,
            overflow_collection,
            parent_field,
            overflow_items,
            overflow_limit: limit,
        }
    }

    /// Sets how many children one overflow document holds.
    pub const fn overflow_limit(mut self, limit: u32) -> OutlierSpec {
        self.overflow_limit = limit;
        self
    }

    /// Bounds the parent's embedded array in its root schema (`maxItems: limit`).
    ///
    /// # Errors
    /// [`PatternError::MissingProperty`] when the schema has no such field.
    pub fn constrain(&self, mut schema: JsonSchema) -> Result<JsonSchema, PatternError> {
        property_mut(&mut schema, self.embedded)?.max_items = Some(u64::from(self.limit));
        Ok(schema)
    }

    /// Bounds an overflow document's array in its root schema (`maxItems: overflow_limit`).
    ///
    /// # Errors
    /// [`PatternError::MissingProperty`] when the schema has no such field.
    pub fn constrain_overflow(&self, mut schema: JsonSchema) -> Result<JsonSchema, PatternError> {
        property_mut(&mut schema, self.overflow_items)?.max_items =
            Some(u64::from(self.overflow_limit));
        Ok(schema)
    }

    /// The read of the parent: `{_id: id}`.
    pub fn parent(&self, id: impl Into<Bson>) -> Find {
        Find {
            collection: self.collection.to_owned(),
            filter: doc! { "_id": id.into() },
            sort: Document::new(),
        }
    }

    /// Whether a parent read from the server has overflow documents (its flag is `true`).
    pub fn has_overflow(&self, parent: &Document) -> bool {
        matches!(parent.get(self.flag), Some(Bson::Boolean(true)))
    }

    /// The read of a parent's overflow documents, in the order they were written
    /// (`{post_id: id}` sorted by `_id`); only needed when [`OutlierSpec::has_overflow`].
    pub fn overflow(&self, id: impl Into<Bson>) -> Find {
        Find {
            collection: self.overflow_collection.to_owned(),
            filter: doc! { self.parent_field: id.into() },
            sort: doc! { "_id": 1 },
        }
    }

    /// Every child: the embedded ones, then those of each overflow document in the order
    /// given. Overflow documents are ignored when the parent's flag is not set.
    pub fn merge(&self, parent: &Document, overflow: &[Document]) -> Vec<Bson> {
        let mut children = array(parent, self.embedded);
        if self.has_overflow(parent) {
            for document in overflow {
                children.extend(array(document, self.overflow_items));
            }
        }
        children
    }

    /// The first write of a new child: push it into the parent while the parent holds fewer than
    /// `limit` (the filter requires element `limit - 1` to be absent), with `$slice: limit` as a
    /// guard so the array can never pass the bound. When it matches no document the parent is
    /// full: write [`OutlierSpec::add_overflow`] instead.
    pub fn add(&self, parent_id: impl Into<Bson>, child: impl Into<Bson>) -> Update {
        let last = format!("{}.{}", self.embedded, self.limit.saturating_sub(1));
        let filter = doc! { "_id": parent_id.into(), last: { "$exists": false } };
        let update = doc! {
            "$push": { self.embedded: { "$each": [child.into()], "$slice": i64::from(self.limit) } },
        };
        Update::new(self.collection, filter, update)
    }

    /// The writes of a child that does not fit in its full parent, in order: set the parent's
    /// flag (`$set`), then push the child into the parent's last overflow document with room, or
    /// upsert a new one (`{post_id, comments: [child]}`). The flag goes first: a crash between
    /// the two leaves a flag with nothing behind it, which readers handle, never a child no
    /// reader finds.
    pub fn add_overflow(&self, parent_id: impl Into<Bson>, child: impl Into<Bson>) -> [Update; 2] {
        let id = parent_id.into();
        let flag = Update::new(
            self.collection,
            doc! { "_id": id.clone() },
            doc! { "$set": { self.flag: true } },
        );
        let last = format!(
            "{}.{}",
            self.overflow_items,
            self.overflow_limit.saturating_sub(1)
        );
        let overflow = Update::new(
            self.overflow_collection,
            doc! { self.parent_field: id, last: { "$exists": false } },
            doc! { "$push": { self.overflow_items: child.into() } },
        )
        .upsert(true);
        [flag, overflow]
    }

    /// The writes that move a parent's children past the limit to overflow documents (for a
    /// parent written before the limit, or by another program); `None` when it is within it.
    ///
    /// Inserts come first, then the trim: `$push` with an empty `$each` and `$slice: limit` keeps
    /// the first `limit` children, and `$set` raises the flag. The trim's filter pins the array
    /// length read (`$size`), so a child added meanwhile makes it match nothing rather than be
    /// cut off: read the parent again and retry. A crash between insert and trim leaves copies,
    /// never loses a child.
    pub fn spill(&self, parent: &Document) -> Option<Spill> {
        let children = array(parent, self.embedded);
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        if children.len() <= limit {
            return None;
        }
        let id = parent.get("_id").cloned().unwrap_or(Bson::Null);
        let per_document = usize::try_from(self.overflow_limit.max(1)).unwrap_or(usize::MAX);
        let inserts = children[limit..]
            .chunks(per_document)
            .map(|chunk| InsertOne {
                collection: self.overflow_collection.to_owned(),
                document: doc! { self.parent_field: id.clone(), self.overflow_items: chunk.to_vec() },
            })
            .collect();
        let size = i64::try_from(children.len()).unwrap_or(i64::MAX);
        let trim = Update::new(
            self.collection,
            doc! { "_id": id, self.embedded: { "$size": size } },
            doc! {
                "$push": { self.embedded: { "$each": [], "$slice": i64::from(self.limit) } },
                "$set": { self.flag: true },
            },
        );
        Some(Spill { inserts, trim })
    }
}

/// The writes moving an over-limit parent's extra children to overflow documents.
#[derive(Clone, Debug, PartialEq)]
pub struct Spill {
    /// New overflow documents, in order; insert them first.
    pub inserts: Vec<InsertOne>,
    /// Then trim the parent to the limit and set its flag.
    pub trim: Update,
}

fn array(document: &Document, field: &str) -> Vec<Bson> {
    match document.get(field) {
        Some(Bson::Array(items)) => items.clone(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{array_of, object};

    const POSTS: OutlierSpec = OutlierSpec::new(
        "posts",
        "comments",
        "has_extra",
        50,
        "overflow",
        "post_id",
        "comments",
    );

    const BOOKS: OutlierSpec = OutlierSpec::new(
        "books",
        "authors",
        "hasMore",
        5,
        "book_authors",
        "book_id",
        "authors",
    )
    .overflow_limit(100);

    // Manual, "Dot Notation" for arrays: `comments.49` names the 50th element, so
    // `{"comments.49": {$exists: false}}` matches a post holding fewer than 50 (or none).
    // The driver test `outlier_guards_select_only_posts_and_batches_with_room` runs it.
    #[test]
    fn embedded_add_is_guarded_by_the_limit_twice() {
        let write = POSTS.add("post_1", doc! { "by": "asha", "text": "nice" });
        assert_eq!(write.collection, "posts");
        assert_eq!(
            write.filter,
            doc! { "_id": "post_1", "comments.49": { "$exists": false } }
        );
        assert_eq!(
            write.update,
            doc! { "$push": { "comments": {
                "$each": [{ "by": "asha", "text": "nice" }],
                "$slice": 50_i64,
            } } }
        );
        assert!(!write.upsert);
    }

    #[test]
    fn overflow_add_sets_the_flag_then_upserts_the_batch() {
        let [flag, overflow] = POSTS.add_overflow("post_2", doc! { "text": "51st" });
        assert_eq!(flag.collection, "posts");
        assert_eq!(flag.filter, doc! { "_id": "post_2" });
        assert_eq!(flag.update, doc! { "$set": { "has_extra": true } });
        assert_eq!(overflow.collection, "overflow");
        assert_eq!(
            overflow.filter,
            doc! { "post_id": "post_2", "comments.49": { "$exists": false } }
        );
        assert_eq!(
            overflow.update,
            doc! { "$push": { "comments": { "text": "51st" } } }
        );
        assert!(overflow.upsert);
    }

    #[test]
    fn books_shape_uses_has_more_and_its_own_batch_size() {
        let [flag, overflow] = BOOKS.add_overflow(7, "A. Author");
        assert_eq!(flag.update, doc! { "$set": { "hasMore": true } });
        assert_eq!(
            overflow.filter,
            doc! { "book_id": 7, "authors.99": { "$exists": false } }
        );
        assert_eq!(
            BOOKS.add(7, "B").filter,
            doc! { "_id": 7, "authors.4": { "$exists": false } }
        );
    }

    #[test]
    fn reads_the_parent_then_overflow_only_when_flagged() {
        assert_eq!(POSTS.parent("post_2").filter, doc! { "_id": "post_2" });
        let find = POSTS.overflow("post_2");
        assert_eq!(find.collection, "overflow");
        assert_eq!(find.filter, doc! { "post_id": "post_2" });
        assert_eq!(find.sort, doc! { "_id": 1 });

        let flagged = doc! { "_id": "post_2", "comments": [1, 2], "has_extra": true };
        let overflow = [
            doc! { "post_id": "post_2", "comments": [3, 4] },
            doc! { "post_id": "post_2", "comments": [5] },
        ];
        assert!(POSTS.has_overflow(&flagged));
        let all: Vec<Bson> = (1..=5).map(Bson::Int32).collect();
        assert_eq!(POSTS.merge(&flagged, &overflow), all);

        let typical = doc! { "_id": "post_1", "comments": [1], "has_extra": false };
        assert!(!POSTS.has_overflow(&typical));
        assert_eq!(POSTS.merge(&typical, &overflow), vec![Bson::Int32(1)]);
        assert!(POSTS.merge(&doc! { "_id": 3 }, &[]).is_empty());
    }

    #[test]
    fn spill_moves_children_past_the_limit_in_batches_then_trims() {
        let small = OutlierSpec::new(
            "posts",
            "comments",
            "has_extra",
            2,
            "overflow",
            "post_id",
            "comments",
        );
        let parent = doc! { "_id": 9, "comments": [1, 2, 3, 4, 5] };
        let spill = small.spill(&parent).unwrap();
        assert_eq!(
            spill
                .inserts
                .iter()
                .map(|i| i.document.clone())
                .collect::<Vec<_>>(),
            vec![
                doc! { "post_id": 9, "comments": [3, 4] },
                doc! { "post_id": 9, "comments": [5] },
            ]
        );
        assert_eq!(spill.inserts[0].collection, "overflow");
        assert_eq!(
            spill.trim.filter,
            doc! { "_id": 9, "comments": { "$size": 5_i64 } }
        );
        assert_eq!(
            spill.trim.update,
            doc! {
                "$push": { "comments": { "$each": [], "$slice": 2_i64 } },
                "$set": { "has_extra": true },
            }
        );
        assert!(
            small
                .spill(&doc! { "_id": 9, "comments": [1, 2] })
                .is_none()
        );
    }

    #[test]
    fn constrain_bounds_both_arrays() {
        let mut post = object();
        post.properties
            .insert("comments".into(), array_of(object()));
        assert_eq!(
            POSTS.constrain(post.clone()).unwrap().properties["comments"].max_items,
            Some(50)
        );
        assert_eq!(
            BOOKS.constrain_overflow(post).unwrap_err(),
            PatternError::MissingProperty {
                path: "authors".into()
            }
        );
    }
}
