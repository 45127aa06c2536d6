//! IR -> BSON document and Extended JSON, in one fixed keyword order so output is deterministic.

use bson::{Bson, Document};

use super::{Additional, Dependency, Items, JsonSchema, TypeConstraint};

/// Which Extended JSON dialect to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExtJsonMode {
    /// Relaxed: numbers as JSON numbers where lossless, dates as ISO strings.
    #[default]
    Relaxed,
    /// Canonical: every value with its type (`{"$numberInt": "5"}`).
    Canonical,
}

/// Converts any BSON value to Extended JSON.
pub fn to_extjson(value: &Bson, mode: ExtJsonMode) -> serde_json::Value {
    match mode {
        ExtJsonMode::Relaxed => value.clone().into_relaxed_extjson(),
        ExtJsonMode::Canonical => value.clone().into_canonical_extjson(),
    }
}

fn strings(values: &[String]) -> Bson {
    Bson::Array(values.iter().cloned().map(Bson::String).collect())
}

fn schemas(values: &[JsonSchema]) -> Bson {
    Bson::Array(
        values
            .iter()
            .map(|s| Bson::Document(to_document(s)))
            .collect(),
    )
}

fn additional(value: &Additional) -> Bson {
    match value {
        Additional::Allowed(b) => Bson::Boolean(*b),
        Additional::Schema(s) => Bson::Document(to_document(s)),
    }
}

fn count(value: u64) -> Bson {
    // Counts are whole numbers; mongosh writes them as Int32, so prefer it when it fits.
    match i32::try_from(value) {
        Ok(v) => Bson::Int32(v),
        Err(_) => Bson::Int64(i64::try_from(value).unwrap_or(i64::MAX)),
    }
}

/// Renders one node. Keyword order: annotations, type, enum, object, array, number, string,
/// combinators, encryption, then unknown keywords in the order read.
pub(super) fn to_document(schema: &JsonSchema) -> Document {
    let mut d = Document::new();
    if let Some(title) = &schema.title {
        d.insert("title", title.clone());
    }
    if let Some(description) = &schema.description {
        d.insert("description", description.clone());
    }
    match &schema.types {
        None => {}
        Some(TypeConstraint::BsonType(types)) => {
            let names: Vec<Bson> = types.iter().map(|t| Bson::from(t.as_str())).collect();
            d.insert("bsonType", single_or_array(names));
        }
        Some(TypeConstraint::Type(types)) => {
            let names: Vec<Bson> = types.iter().map(|t| Bson::from(t.as_str())).collect();
            d.insert("type", single_or_array(names));
        }
    }
    if let Some(values) = &schema.enumeration {
        d.insert("enum", Bson::Array(values.clone()));
    }
    if let Some(required) = &schema.required {
        d.insert("required", strings(required));
    }
    if !schema.properties.is_empty() {
        let mut props = Document::new();
        for (name, s) in &schema.properties {
            props.insert(name.clone(), to_document(s));
        }
        d.insert("properties", props);
    }
    if !schema.pattern_properties.is_empty() {
        let mut props = Document::new();
        for (pattern, s) in &schema.pattern_properties {
            props.insert(pattern.clone(), to_document(s));
        }
        d.insert("patternProperties", props);
    }
    if let Some(a) = &schema.additional_properties {
        d.insert("additionalProperties", additional(a));
    }
    if let Some(n) = schema.min_properties {
        d.insert("minProperties", count(n));
    }
    if let Some(n) = schema.max_properties {
        d.insert("maxProperties", count(n));
    }
    if !schema.dependencies.is_empty()
        || schema.dependencies_title.is_some()
        || schema.dependencies_description.is_some()
    {
        let mut deps = Document::new();
        for (name, dep) in &schema.dependencies {
            let value = match dep {
                Dependency::Properties(names) => strings(names),
                Dependency::Schema(s) => Bson::Document(to_document(s)),
            };
            deps.insert(name.clone(), value);
        }
        if let Some(title) = &schema.dependencies_title {
            deps.insert("title", title.clone());
        }
        if let Some(description) = &schema.dependencies_description {
            deps.insert("description", description.clone());
        }
        d.insert("dependencies", deps);
    }
    match &schema.items {
        None => {}
        Some(Items::Single(s)) => {
            d.insert("items", to_document(s));
        }
        Some(Items::Positional(list)) => {
            d.insert("items", schemas(list));
        }
    }
    if let Some(a) = &schema.additional_items {
        d.insert("additionalItems", additional(a));
    }
    if let Some(n) = schema.min_items {
        d.insert("minItems", count(n));
    }
    if let Some(n) = schema.max_items {
        d.insert("maxItems", count(n));
    }
    if let Some(b) = schema.unique_items {
        d.insert("uniqueItems", b);
    }
    if let Some(n) = schema.minimum {
        d.insert("minimum", n.to_bson());
    }
    if let Some(b) = schema.exclusive_minimum {
        d.insert("exclusiveMinimum", b);
    }
    if let Some(n) = schema.maximum {
        d.insert("maximum", n.to_bson());
    }
    if let Some(b) = schema.exclusive_maximum {
        d.insert("exclusiveMaximum", b);
    }
    if let Some(n) = schema.multiple_of {
        d.insert("multipleOf", n.to_bson());
    }
    if let Some(n) = schema.min_length {
        d.insert("minLength", count(n));
    }
    if let Some(n) = schema.max_length {
        d.insert("maxLength", count(n));
    }
    if let Some(p) = &schema.pattern {
        d.insert("pattern", p.clone());
    }
    if let Some(list) = &schema.all_of {
        d.insert("allOf", schemas(list));
    }
    if let Some(list) = &schema.any_of {
        d.insert("anyOf", schemas(list));
    }
    if let Some(list) = &schema.one_of {
        d.insert("oneOf", schemas(list));
    }
    if let Some(s) = &schema.not {
        d.insert("not", to_document(s));
    }
    if let Some(e) = &schema.encrypt {
        d.insert("encrypt", e.clone());
    }
    if let Some(e) = &schema.encrypt_metadata {
        d.insert("encryptMetadata", e.clone());
    }
    for (k, v) in &schema.other {
        d.insert(k.clone(), v.clone());
    }
    d
}

fn single_or_array(mut names: Vec<Bson>) -> Bson {
    if names.len() == 1 {
        names.pop().expect("length checked")
    } else {
        Bson::Array(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{BsonType, Number};
    use bson::doc;

    #[test]
    fn single_type_renders_as_string_and_several_as_array() {
        let one = JsonSchema::bson_type(BsonType::String);
        assert_eq!(one.to_document(), doc! { "bsonType": "string" });
        let two = JsonSchema::bson_types([BsonType::Int, BsonType::Long]);
        assert_eq!(two.to_document(), doc! { "bsonType": ["int", "long"] });
    }

    #[test]
    fn keyword_order_is_fixed_whatever_the_field_order() {
        let mut s = JsonSchema::bson_type(BsonType::Object);
        s.properties
            .insert("n".into(), JsonSchema::bson_type(BsonType::Int));
        s.require("n");
        s.description = Some("an order".into());
        s.additional_properties = Some(Additional::Allowed(false));
        let keys: Vec<_> = s.to_document().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "description",
                "bsonType",
                "required",
                "properties",
                "additionalProperties"
            ]
        );
    }

    #[test]
    fn canonical_extjson_keeps_numeric_types() {
        let s = JsonSchema {
            minimum: Some(Number::Int64(0)),
            ..JsonSchema::default()
        };
        let json = s.to_extjson(ExtJsonMode::Canonical);
        assert_eq!(json["minimum"]["$numberLong"], "0");
        let relaxed = s.to_extjson(ExtJsonMode::Relaxed);
        assert_eq!(relaxed["minimum"], 0);
    }

    #[test]
    fn dependency_annotations_survive_parse_and_render() {
        // doc_validation_error_json_schema_test.cpp BasicPropertyDependency: a title string sits
        // among the dependencies; it is kept, and rendered after the entries.
        let read = doc! {
            "dependencies": {
                "a": ["b", "c"],
                "d": { "required": ["e"] },
                "title": "a needs b and c",
                "description": "and d needs e",
            }
        };
        let s = JsonSchema::from_document(&read).unwrap();
        assert_eq!(s.dependencies.len(), 2);
        assert_eq!(s.dependencies_title.as_deref(), Some("a needs b and c"));
        assert_eq!(s.dependencies_description.as_deref(), Some("and d needs e"));
        assert_eq!(s.to_document(), read);

        let only_title = doc! { "dependencies": { "title": "nothing yet" } };
        let s = JsonSchema::from_document(&only_title).unwrap();
        assert!(s.dependencies.is_empty());
        assert_eq!(s.to_document(), only_title);
    }
}
