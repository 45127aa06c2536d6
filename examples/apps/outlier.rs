//! Outlier: design for the typical post (a few dozen comments, embedded) and let the rare viral
//! one overflow into another collection, flagged by `has_extra`. Books do the same with authors
//! and `hasMore` (anthologies have hundreds).

use bson::oid::ObjectId;
use bson::{Bson, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::access::{QueryRegistration, QuerySpec};
use mongo_schema::patterns::outlier::OutlierSpec;
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema::spec::{IndexKind, IndexSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json};

/// Posts embed up to 50 comments; the rest go to `overflow` in batches of 50.
pub const COMMENTS: OutlierSpec = OutlierSpec::new(
    "posts",
    "comments",
    "has_extra",
    50,
    "overflow",
    "post_id",
    "comments",
);

/// Books embed up to 5 authors; anthologies keep the rest in `book_authors`, 500 per document.
pub const AUTHORS: OutlierSpec = OutlierSpec::new(
    "books",
    "authors",
    "hasMore",
    5,
    "book_authors",
    "book_id",
    "authors",
)
.overflow_limit(500);

/// A comment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Comment {
    /// Who wrote it.
    #[mongo(max_length = 100)]
    pub by: String,
    /// The text.
    #[mongo(max_length = 2000)]
    pub text: String,
}

/// A post (`posts`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Post {
    /// The post id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The title.
    #[mongo(max_length = 200)]
    pub title: String,
    /// The first comments, bounded by [`COMMENTS`].
    pub comments: Vec<Comment>,
    /// More comments exist in `overflow`.
    pub has_extra: bool,
}

/// A batch of a viral post's further comments (`overflow`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Overflow {
    /// The batch id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The post.
    pub post_id: ObjectId,
    /// The batch, bounded by [`COMMENTS`].
    pub comments: Vec<Comment>,
}

/// A book (`books`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "camelCase")]
pub struct Book {
    /// The book id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The title.
    #[mongo(max_length = 300)]
    pub title: String,
    /// The first authors, bounded by [`AUTHORS`].
    pub authors: Vec<String>,
    /// More authors exist in `book_authors`.
    pub has_more: bool,
}

/// The further authors of an anthology (`book_authors`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct BookAuthors {
    /// The batch id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The book.
    pub book_id: ObjectId,
    /// The batch, bounded by [`AUTHORS`].
    pub authors: Vec<String>,
}

impl Collection for Post {
    fn collection_spec() -> CollectionSpec {
        let schema = COMMENTS
            .constrain(Self::root_schema())
            .expect("Post stores comments");
        CollectionSpec::new(COMMENTS.collection).json_schema(schema)
    }
}

impl Collection for Overflow {
    fn collection_spec() -> CollectionSpec {
        let schema = COMMENTS
            .constrain_overflow(Self::root_schema())
            .expect("Overflow stores comments");
        let by_post = IndexSpec::on::<Overflow>([("post_id", IndexKind::Ascending)])
            .expect("post_id is a field of Overflow");
        CollectionSpec::new(COMMENTS.overflow_collection)
            .json_schema(schema)
            .index(by_post)
    }
}

impl Collection for Book {
    fn collection_spec() -> CollectionSpec {
        let schema = AUTHORS
            .constrain(Self::root_schema())
            .expect("Book stores authors");
        CollectionSpec::new(AUTHORS.collection).json_schema(schema)
    }
}

impl Collection for BookAuthors {
    fn collection_spec() -> CollectionSpec {
        let schema = AUTHORS
            .constrain_overflow(Self::root_schema())
            .expect("BookAuthors stores authors");
        let by_book = IndexSpec::on::<BookAuthors>([("book_id", IndexKind::Ascending)])
            .expect("book_id is a field of BookAuthors");
        CollectionSpec::new(AUTHORS.overflow_collection)
            .json_schema(schema)
            .index(by_book)
    }
}

// Reading a post's or a book's overflow documents, when its flag is set.
mongo_schema::__private::inventory::submit! {
    QueryRegistration::new(COMMENTS.overflow_collection, || {
        QuerySpec::new("post_overflow").eq("post_id").resolve::<Overflow>().map(|q| vec![q])
    })
}
mongo_schema::__private::inventory::submit! {
    QueryRegistration::new(AUTHORS.overflow_collection, || {
        QuerySpec::new("book_overflow").eq("book_id").resolve::<BookAuthors>().map(|q| vec![q])
    })
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "outlier",
    pattern: "outlier (posts + overflow, books + book_authors)",
    summary: "A post embeds up to 50 comments (maxItems 50); past that, has_extra: true and \
              the rest go to `overflow` documents {post_id, comments: [...]}, 50 per document. \
              Reading a post is one fetch, plus the overflow only when the flag is set. Books \
              do the same with authors and hasMore.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![
        Post::collection_spec(),
        Overflow::collection_spec(),
        Book::collection_spec(),
        BookAuthors::collection_spec(),
    ]
}

fn explain() -> String {
    let post = ObjectId::from_bytes([0x77; 12]);
    let comment = doc! { "by": "asha", "text": "first!" };
    let add = COMMENTS.add(post, comment.clone());
    let [flag, overflow] = COMMENTS.add_overflow(post, comment);
    let find = COMMENTS.overflow(post);
    let merged = COMMENTS.merge(
        &doc! { "_id": post, "comments": [{ "by": "a", "text": "1" }], "has_extra": true },
        &[doc! { "post_id": post, "comments": [{ "by": "b", "text": "2" }] }],
    );
    format!(
        "Adding a comment (mongo_schema::patterns::outlier):\n\
         1. db.{}.updateOne({}, {})\n\
         2. only when 1 matched nothing (the post is full):\n   db.{}.updateOne({}, {})\n   \
         db.{}.updateOne({}, {}, {{upsert: true}})\n\n\
         Reading: db.posts.findOne({}); when has_extra is true, also db.{}.find({}).sort({})\n\
         and the comments are the embedded ones then each batch's: {}\n",
        add.collection,
        json(&add.filter),
        json(&add.update),
        flag.collection,
        json(&flag.filter),
        json(&flag.update),
        overflow.collection,
        json(&overflow.filter),
        json(&overflow.update),
        json(&doc! { "_id": post }),
        find.collection,
        json(&find.filter),
        json(&find.sort),
        json(&doc! { "comments": Bson::Array(merged) }),
    )
}

/// The overflow lookup index is missing: every viral post's read scans `overflow`.
fn drift() -> Vec<Document> {
    vec![doc! { "dropIndexes": "overflow", "index": "post_id_1" }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict;

    #[test]
    fn a_post_holds_fifty_comments_and_not_one_more() {
        let spec = Post::collection_spec();
        let comments = |n: usize| -> Vec<Bson> {
            (0..n)
                .map(|i| Bson::Document(doc! { "by": "u", "text": i.to_string() }))
                .collect()
        };
        let id = ObjectId::from_bytes([1; 12]);
        let full = doc! { "_id": id, "title": "t", "comments": comments(50), "has_extra": true };
        assert_eq!(verdict(&spec, &full), Ok(()));
        let over = doc! { "_id": id, "title": "t", "comments": comments(51), "has_extra": true };
        assert!(verdict(&spec, &over).is_err());
    }

    #[test]
    fn the_overflow_document_an_upsert_creates_passes_its_validator() {
        let id = ObjectId::from_bytes([2; 12]);
        let created = doc! {
            "_id": ObjectId::from_bytes([3; 12]),
            "post_id": id,
            "comments": [{ "by": "u", "text": "51st" }],
        };
        assert_eq!(verdict(&Overflow::collection_spec(), &created), Ok(()));
    }
}
