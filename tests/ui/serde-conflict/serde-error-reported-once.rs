// A mistake in a serde attribute is serde's to report; the MongoSchema derive adds nothing.
use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
#[serde(rename_al = "camelCase")]
struct Person {
    first_name: String,
}

fn main() {}
