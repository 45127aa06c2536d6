//! The validator the generated types derive, built without compiling them: each field's schema
//! comes from the `MongoSchema` impl of the Rust type written for it, and each struct from the
//! runtime builder the derive's expansion calls (`derive_support::Object`), so the prediction
//! is the derive's by construction. The tests compile the source and compare.

use crate::generate::derive_support::{Object, any_of, internal, string_enum};
use crate::generate::{MongoSchema, SchemaGenerator, array_of, map_of, nullable, root_schema};
use crate::schema::JsonSchema;
use crate::version::{Version, versioned};

use super::model::{Field, Model, Ty};

/// The `$jsonSchema` of the model's root type, as `<Root as MongoSchema>::root_schema()` builds
/// it (what `#[mongo(collection)]` puts in the collection's validator).
pub fn root(model: &Model) -> JsonSchema {
    if let Some(v) = &model.versioning {
        // The derive's `ValidatorSource::Versioned`: each version's `root_schema()` (a fresh
        // generator each), current first, pinned by `version::versioned`.
        let one =
            |index: usize| root_schema(structure(model, index, &mut SchemaGenerator::default()));
        let mut versions = vec![Version {
            value: v.current,
            may_be_absent: false,
            schema: one(0),
        }];
        versions.extend(v.previous.iter().map(|p| Version {
            value: p.value,
            may_be_absent: p.may_be_absent,
            schema: one(p.structure),
        }));
        return root_schema(versioned(&v.field, &versions));
    }
    let mut g = SchemaGenerator::default();
    let schema = match &model.tagged {
        // The derive's `enumeration` for `#[serde(tag)]`: one `internal` branch per variant,
        // its content the variant's fields as a struct body (none for a unit variant).
        Some(tagged) => any_of(
            tagged
                .variants
                .iter()
                .map(|v| {
                    let content = (!v.fields.is_empty()).then(|| object(model, &v.fields, &mut g));
                    internal(&tagged.tag, &[v.value.as_str()], content)
                })
                .collect(),
        ),
        None => structure(model, 0, &mut g),
    };
    root_schema(schema)
}

/// A struct body, as `derive_support::object_of` builds it from the derive's field table: no
/// `deny_unknown_fields`, one property per field, required as [`super::model::Field::is_required`]
/// says. No doc comments are written, so no description is added.
fn structure(model: &Model, index: usize, g: &mut SchemaGenerator) -> JsonSchema {
    object(model, &model.structs[index].fields, g)
}

fn object(model: &Model, fields: &[Field], g: &mut SchemaGenerator) -> JsonSchema {
    let mut o = Object::new(false);
    for f in fields {
        let schema = ty(model, &f.ty, g);
        o.prop(&f.name, f.is_required(), schema);
    }
    o.finish()
}

fn ty(model: &Model, t: &Ty, g: &mut SchemaGenerator) -> JsonSchema {
    match t {
        Ty::Bool => bool::json_schema(g),
        Ty::I32 => i32::json_schema(g),
        Ty::I64 => i64::json_schema(g),
        Ty::F64 => f64::json_schema(g),
        Ty::Decimal => bson::Decimal128::json_schema(g),
        Ty::String => String::json_schema(g),
        Ty::ObjectId => bson::oid::ObjectId::json_schema(g),
        Ty::DateTime => bson::DateTime::json_schema(g),
        Ty::Uuid => bson::Uuid::json_schema(g),
        Ty::Binary => bson::Binary::json_schema(g),
        Ty::Timestamp => bson::Timestamp::json_schema(g),
        Ty::Regex => bson::Regex::json_schema(g),
        Ty::Document => bson::Document::json_schema(g),
        Ty::Any => bson::Bson::json_schema(g),
        // The generic impls, spelled out: `Option<T>` is `nullable(T)`, `Vec<T>` is
        // `array_of(T)`, `HashMap<String, T>` is `map_of(String::key_pattern(), T)`.
        Ty::Option(inner) => nullable(ty(model, inner, g)),
        Ty::Vec(inner) => array_of(ty(model, inner, g)),
        Ty::Map(inner) => map_of(None, ty(model, inner, g)),
        Ty::Struct(i) => structure(model, *i, g),
        // A unit-only externally tagged enum: the derive's `enumeration` makes one
        // `string_enum` branch of the variants' names, in declaration order.
        Ty::Enum(i) => any_of(vec![string_enum(
            model.enums[*i].variants.iter().map(|(_, v)| v.as_str()),
        )]),
    }
}
