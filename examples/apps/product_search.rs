//! Search and vector search indexes: `products` with a vector index on its `embedding`, filtered
//! by `status` and `category`, and a dynamic full-text search index, declared on the type.

use bson::oid::ObjectId;
use bson::{Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema_cli::{Console, Outcome};
use serde::{Deserialize, Serialize};

use crate::tour::{Tour, URI};
use crate::{json, json_list, verdict};

/// The length of every embedding: the model's output size (all-MiniLM-L6-v2 writes 384).
pub const DIMENSIONS: usize = 384;

/// Where a product is in the catalog.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProductStatus {
    /// Being written, not for sale.
    Draft,
    /// For sale.
    Active,
    /// No longer sold.
    Retired,
}

/// A product (`products`): its text is searched with the `default` index, its embedding with
/// `embedding_index`, a similarity search narrowed to one status and category by the filters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "products",
    index(keys(sku), unique),
    search_index(name = "default", dynamic, analyzer = "lucene.english"),
    vector_index(
        name = "embedding_index",
        path = embedding,
        dimensions = 384,
        similarity = "cosine",
        filter(status, category),
    ),
)]
pub struct Product {
    /// Assigned by the application.
    #[serde(rename = "_id")]
    pub id: ObjectId,
    /// The stock-keeping unit, unique.
    #[mongo(max_length = 32)]
    pub sku: String,
    /// What the shop calls it.
    #[mongo(max_length = 200)]
    pub name: String,
    /// The shelf it is on (stored as `cat`).
    #[serde(rename = "cat")]
    pub category: String,
    /// Whether it is for sale.
    pub status: ProductStatus,
    /// The description's embedding: the derived validator pins its length to 384 (a `[f32; N]`
    /// would have its length checked against `dimensions` at compile time instead).
    pub embedding: Vec<f32>,
}

/// The example's declarations.
pub fn collections() -> Vec<CollectionSpec> {
    vec![Product::collection_spec()]
}

/// A product with an embedding of `length` numbers.
pub fn sample(length: usize) -> Document {
    let embedding: Vec<f64> = (0..length).map(|i| (i % 7) as f64 / 7.0).collect();
    doc! {
        "_id": ObjectId::from_bytes([7; 12]),
        "sku": "LAMP-1", "name": "Desk lamp", "cat": "lighting", "status": "active",
        "embedding": embedding,
    }
}

/// The vector index's definition with another similarity: what someone who rebuilt it by hand
/// left on the deployment.
pub fn hand_edit() -> Document {
    doc! {
        "updateSearchIndex": "products",
        "name": "embedding_index",
        "definition": { "fields": [
            { "type": "vector", "path": "embedding", "numDimensions": 384, "similarity": "euclidean" },
            { "type": "filter", "path": "status" },
            { "type": "filter", "path": "cat" },
        ] },
    }
}

/// The declared definition as the service may list it, with its defaults filled in
/// (`quantization: "none"`, the HNSW graph options) and the fields in another order.
pub fn defaults_edit() -> Document {
    doc! {
        "updateSearchIndex": "products",
        "name": "embedding_index",
        "definition": { "fields": [
            { "type": "filter", "path": "cat" },
            { "type": "filter", "path": "status" },
            { "type": "vector", "path": "embedding", "numDimensions": 384, "similarity": "cosine",
              "quantization": "none", "indexingMethod": "hnsw",
              "hnswOptions": { "maxEdges": 16, "numEdgeCandidates": 100 } },
        ] },
    }
}

/// The tour `cargo run -p mongo-schema-examples --example product_search` prints: the search
/// indexes' manifest entry and mongosh step, the validator's pinned embedding length, then
/// `apply --wait`, a hand edit, `plan` and `apply` against the deployment at `uri` (database
/// `shop`, on which `execute` runs a command), and `check` of a deployment without search at
/// `no_search_uri`.
pub fn tour(
    uri: &str,
    execute: &mut dyn FnMut(Document) -> Document,
    no_search_uri: &str,
    console: &mut Console,
) -> Outcome {
    let spec = Product::collection_spec();
    let mut tour = Tour::new(console, collections(), uri);
    tour.out(
        "product_search: search and vector search indexes declared on the type\n\n\
         struct Product (examples/apps/product_search.rs) declares `embedding_index`, a vector\n\
         index on `embedding` (384 dimensions, cosine) filtered by `status` and `category`\n\
         (stored as `cat`: paths are Rust fields, resolved through serde renames), and\n\
         `default`, a dynamic search index with the English analyzer. The service that builds\n\
         them is Atlas, or MongoDB Community 8.2+ with mongot.",
    );
    tour.heading("1. The search indexes in the manifest (`-- generate`, its `searchIndexes`):");
    let manifest = spec.to_manifest_document();
    let search: Vec<Document> = manifest
        .get_array("searchIndexes")
        .map(|list| {
            list.iter()
                .filter_map(|i| i.as_document().cloned())
                .collect()
        })
        .unwrap_or_default();
    tour.out(&json_list(&search));
    tour.heading("2. The mongosh script (`-- generate --format mongosh`):");
    tour.run(&["generate", "--format", "mongosh"], Outcome::Clean);
    tour.heading(
        "3. The validator pins the embedding's length to the index's dimensions (a Vec<f32>):",
    );
    let embedding = spec
        .validator
        .as_ref()
        .and_then(|v| v.json_schema.as_ref())
        .and_then(|s| s.properties.get("embedding"))
        .map(mongo_schema::schema::JsonSchema::to_document)
        .unwrap_or_default();
    tour.out(&json(&embedding));
    for length in [DIMENSIONS, 3] {
        let judged = verdict(&spec, &sample(length));
        let said = match &judged {
            Ok(()) => "valid",
            // The server's explanation names the keyword that failed (`errInfo.details`).
            Err(details) if details.contains("\"minItems\"") => "rejected (minItems)",
            Err(_) => "rejected, not by minItems",
        };
        tour.out(&format!(
            "a product with {length} numbers in its embedding: {said}"
        ));
        if said
            != if length == DIMENSIONS {
                "valid"
            } else {
                "rejected (minItems)"
            }
        {
            tour.wrong(format!(
                "the validator judged an embedding of {length} otherwise"
            ));
        }
    }
    tour.heading(
        "4. Against a deployment with search (here a fresh wire-protocol test server, database\n\
         //    shop, whose search service builds each index over a few listings):",
    );
    tour.run(&["check", "--uri", URI], Outcome::Findings);
    tour.run(&["apply", "--uri", URI, "--yes", "--wait"], Outcome::Clean);
    tour.run(&["check", "--uri", URI], Outcome::Clean);
    tour.heading(
        "Not drift: the definition as the service lists it, its defaults filled in and its\n\
         //    fields in another order (updateSearchIndex with them; the rebuild is reported, not drift):",
    );
    execute(defaults_edit());
    tour.run(&["check", "--uri", URI], Outcome::Clean);
    let edit = hand_edit();
    tour.heading(&format!(
        "Someone rebuilds the vector index with another similarity: db.runCommand({})",
        bson::Bson::Document(edit.clone()).into_relaxed_extjson()
    ));
    execute(edit);
    tour.run(&["check", "--uri", URI], Outcome::Findings);
    tour.run(&["plan", "--uri", URI], Outcome::Findings);
    tour.run(&["apply", "--uri", URI, "--yes", "--wait"], Outcome::Clean);
    tour.run(&["check", "--uri", URI], Outcome::Clean);
    tour.heading(
        "5. A deployment without search (a plain mongod): the collection and its B-tree\n\
         //    index are still checked; the search part could not be, so check exits 2:",
    );
    tour.switch_to(no_search_uri);
    tour.run(&["apply", "--uri", URI, "--yes"], Outcome::Failed);
    tour.run(&["check", "--uri", URI], Outcome::Failed);
    tour.finish()
}
