//! Text search: `articles` has a text index on `title` and `content`, a title match weighing ten
//! times a body match.

use bson::oid::ObjectId;
use bson::{Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::IndexSpec;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json};

/// An article (`articles`), searchable by title (weight 10) and content (weight 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "articles",
    index(
        keys(title = "text", content = "text"),
        weights(title = 10, content = 1)
    ),
    // The article page. ($text search itself is served by the text index; the coverage rule
    // does not model text operators.)
    query(name = "article", eq(id), project(title, content, author))
)]
pub struct Article {
    /// The article id.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The headline.
    #[mongo(max_length = 200)]
    pub title: String,
    /// The body.
    #[mongo(max_length = 100_000)]
    pub content: String,
    /// The author's name.
    #[mongo(max_length = 100)]
    pub author: String,
    /// A few tags.
    #[mongo(max_items = 20)]
    pub tags: Vec<String>,
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "text_search",
    pattern: "text search (articles)",
    summary: "A text index on title and content with weights title 10, content 1 (the seed's). \
              The server lists a text index in its own form ({_fts: \"text\", _ftsx: 1} with \
              weights); `check` compares it with the declaration without calling that drift, \
              and reports a change of weights, which needs a rebuild.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![Article::collection_spec()]
}

fn explain() -> String {
    let spec = Article::collection_spec();
    let index = spec
        .indexes
        .first()
        .map(IndexSpec::to_document)
        .unwrap_or_default();
    format!(
        "db.articles.createIndexes([{}])\n\nRanked search:\n\
         db.articles.find({}, {}).sort({})\n",
        json(&index),
        json(&doc! { "$text": { "$search": "schema design" } }),
        json(&doc! { "score": { "$meta": "textScore" } }),
        json(&doc! { "score": { "$meta": "textScore" } }),
    )
}

/// The live index weighs titles 5, not 10: weights cannot change in place.
fn drift() -> Vec<Document> {
    vec![
        doc! { "dropIndexes": "articles", "index": "title_text_content_text" },
        doc! {
            "createIndexes": "articles",
            "indexes": [{
                "key": { "title": "text", "content": "text" },
                "name": "title_text_content_text",
                "weights": { "title": 5, "content": 1 },
            }],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_the_seeds() {
        let spec = Article::collection_spec();
        assert_eq!(
            spec.indexes[0].to_document(),
            doc! {
                "key": { "title": "text", "content": "text" },
                "name": "title_text_content_text",
                "weights": { "title": 10, "content": 1 },
            }
        );
    }
}
