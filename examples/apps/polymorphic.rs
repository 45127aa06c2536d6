//! Polymorphic: books and courses share one `catalog` collection, told apart by `type`; the
//! shared `title` is searchable across both. A Spring Data application writes the same shapes
//! with a `_class` type hint instead: serde's `tag` names either.

use bson::Document;
use bson::doc;
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json};

/// A course's level.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Level {
    /// For newcomers.
    Beginner,
    /// Some experience.
    Intermediate,
    /// Experts.
    Advanced,
}

/// One item of the catalog (`catalog`), discriminated by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
#[mongo(
    collection = "catalog",
    index(keys(title)),
    // Search by title across every variant.
    query(name = "by_title", eq(title))
)]
pub enum CatalogItem {
    /// `{_id, type: "BOOK", title, isbn, pages}`. The ISBN is unique among books only: the
    /// index is scoped to the variant (`partialFilterExpression: {type: "BOOK"}`).
    #[mongo(index(keys(isbn), unique))]
    Book {
        /// The item id.
        #[serde(rename = "_id")]
        id: i32,
        /// Shared with every item: the catalogue search reads it.
        #[mongo(max_length = 300)]
        title: String,
        /// ISBN-10 or ISBN-13, digits and hyphens.
        #[mongo(pattern = "^[0-9][0-9-]{8,15}[0-9Xx]$", max_length = 17)]
        isbn: String,
        /// Page count.
        #[mongo(minimum = 1)]
        pages: i32,
    },
    /// `{_id, type: "COURSE", title, durationHrs, level}`.
    Course {
        /// The item id.
        #[serde(rename = "_id")]
        id: i32,
        /// Shared with every item.
        #[mongo(max_length = 300)]
        title: String,
        /// Length in hours.
        #[serde(rename = "durationHrs")]
        #[mongo(minimum = 1)]
        duration_hrs: i32,
        /// Who it is for.
        level: Level,
    },
}

/// The same catalog as a Spring Data application writes it: the type hint is `_class`, holding
/// the Java class name (`catalog_spring`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(tag = "_class")]
#[mongo(
    collection = "catalog_spring",
    index(keys(title)),
    query(name = "by_title", eq(title))
)]
pub enum SpringCatalogItem {
    /// `{_id, _class: "com.example.catalog.Book", title, isbn, pages}`.
    #[serde(rename = "com.example.catalog.Book")]
    Book {
        /// The item id.
        #[serde(rename = "_id")]
        id: i32,
        /// Shared title.
        #[mongo(max_length = 300)]
        title: String,
        /// ISBN.
        #[mongo(max_length = 17)]
        isbn: String,
        /// Page count.
        #[mongo(minimum = 1)]
        pages: i32,
    },
    /// `{_id, _class: "com.example.catalog.Course", title, durationHrs, level}`.
    #[serde(rename = "com.example.catalog.Course")]
    Course {
        /// The item id.
        #[serde(rename = "_id")]
        id: i32,
        /// Shared title.
        #[mongo(max_length = 300)]
        title: String,
        /// Length in hours.
        #[serde(rename = "durationHrs")]
        #[mongo(minimum = 1)]
        duration_hrs: i32,
        /// Who it is for.
        level: Level,
    },
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "polymorphic",
    pattern: "polymorphic (catalog)",
    summary: "One collection, two shapes: an internally tagged enum (serde `tag = \"type\"`) \
              becomes a validator with one branch per variant, each pinning its `type`, so a \
              BOOK without its isbn, a COURSE without `durationHrs` or an unknown type is refused. The shared \
              `title` has one index serving the catalogue search across both; the books' unique \
              isbn index is scoped to BOOK by the derive. `catalog_spring` \
              is the same model with Spring Data's `_class` type hint as the discriminator.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![
        CatalogItem::collection_spec(),
        SpringCatalogItem::collection_spec(),
    ]
}

/// The seed's two items.
pub fn samples() -> [CatalogItem; 2] {
    [
        CatalogItem::Book {
            id: 1,
            title: "MongoDB in Action".into(),
            isbn: "978-1617291609".into(),
            pages: 320,
        },
        CatalogItem::Course {
            id: 2,
            title: "MongoDB Schema Design".into(),
            duration_hrs: 12,
            level: Level::Advanced,
        },
    ]
}

fn explain() -> String {
    let mut out = String::from("The seed's items, as serde writes them:\n");
    for item in samples() {
        let document = bson::serialize_to_document(&item).expect("a CatalogItem serializes");
        out.push_str(&json(&document));
        out.push('\n');
    }
    out.push_str(&format!(
        "\nSearch across both shapes: db.catalog.find({})\n",
        json(&doc! { "title": "MongoDB Schema Design" })
    ));
    out
}

/// Someone built `isbn` unique across the whole collection (sparse, since courses have none)
/// instead of scoped to books: `check` reports that the declared index replaces it.
fn drift() -> Vec<Document> {
    vec![
        doc! { "dropIndexes": "catalog", "index": "isbn_1" },
        doc! {
            "createIndexes": "catalog",
            "indexes": [{ "key": { "isbn": 1 }, "name": "isbn_1", "unique": true, "sparse": true }],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict;

    #[test]
    fn both_shapes_pass_and_mixed_shapes_do_not() {
        let spec = CatalogItem::collection_spec();
        for item in samples() {
            let document = bson::serialize_to_document(&item).unwrap();
            assert_eq!(verdict(&spec, &document), Ok(()));
        }
        let book_with_course_fields =
            doc! { "_id": 3, "type": "BOOK", "title": "x", "durationHrs": 3, "level": "ADVANCED" };
        assert!(verdict(&spec, &book_with_course_fields).is_err());
        let unknown = doc! { "_id": 4, "type": "VIDEO", "title": "x" };
        assert!(verdict(&spec, &unknown).is_err());
    }

    #[test]
    fn spring_documents_use_the_class_hint() {
        let spec = SpringCatalogItem::collection_spec();
        let document = doc! {
            "_id": 1, "_class": "com.example.catalog.Book", "title": "t", "isbn": "1", "pages": 3,
        };
        assert_eq!(verdict(&spec, &document), Ok(()));
        let as_type = doc! { "_id": 1, "type": "BOOK", "title": "t", "isbn": "1", "pages": 3 };
        assert!(verdict(&spec, &as_type).is_err());
    }
}
