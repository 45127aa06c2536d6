//! A misspelled path below the first segment cannot be checked at compile time (the first is):
//! it is an error when the spec is built, naming the type, the path and the nearest names, and
//! the registry reports it instead of building a spec that would reach a database.

use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, SpecError};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, MongoSchema)]
#[mongo(collection = "orders", index(keys(customer.nmae)))]
struct Order {
    customer: Customer,
}

#[derive(Serialize, Deserialize, MongoSchema)]
struct Customer {
    #[serde(rename = "id")]
    customer_id: String,
    name: String,
}

#[test]
fn nested_misspelling_is_an_error_naming_type_path_and_nearest_field() {
    let error = Order::try_collection_spec().unwrap_err();
    let SpecError::Path { collection, source } = &error else {
        panic!("expected a path error, got {error}");
    };
    assert_eq!(collection, "orders");
    assert!(source.ty.ends_with("Customer"), "{}", source.ty);
    assert_eq!(source.segment, "nmae");
    assert_eq!(source.candidates, vec!["name"]);
    let message = error.to_string();
    assert!(message.contains("did you mean \"name\""), "{message}");
}

#[test]
fn registry_reports_the_error_instead_of_a_spec() {
    assert!(matches!(
        mongo_schema::registry::checked_collections(),
        Err(SpecError::Path { .. })
    ));
}

#[test]
#[should_panic(expected = "nmae")]
fn infallible_spec_panics_with_the_same_message() {
    let _ = Order::collection_spec();
}
