//! Dotted names in `properties`, `required` and `dependencies`: paths on the server, rewritten
//! here into nested object keywords before compiling.
//!
//! The server's `json_schema_parser.cpp` parses each `properties` entry with the name as the
//! *path* of its match expressions (`_parse(expCtx, property.fieldNameStringData(), ...)` in
//! `parseProperties`) and turns each `required` name into an `ExistsMatchExpression` on that
//! path (`translateRequired`); a path is a `FieldRef`, split at dots. So
//! `required: ["a.b"]` asks for a field `b` inside the embedded document `a` (a literal key
//! `"a.b"` does not satisfy it), and `properties: {"a.b": S}` applies `S` to that field.
//! `dependencies` names, triggers and listed ones, are paths too (`makeDependencyExistsClause`).
//! `additionalProperties` still compares the literal names (`parseAllowedProperties` collects
//! the field names of `properties` as written), so a field named `a` is not allowed by
//! `"a.b"`.
//!
//! Through embedded documents the rewrite is exact. Where a path crosses an array the server
//! traverses its elements with any-element semantics per sub-expression, which this evaluator
//! does not model: the strict rewrite fails such documents and the lenient one passes them,
//! so a document the strict form accepts is valid, one the lenient form rejects is rejected,
//! and anything between is reported as not fully checked.

use crate::schema::{BsonType, JsonSchema, TypeConstraint};

/// How a rewrite reads an array met part-way along a dotted path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// As a failure: acceptance is then certain.
    Strict,
    /// As a pass: rejection is then certain.
    Lenient,
}

/// The dotted `properties` and `required` names at any depth, in schema order.
pub(crate) fn dotted_names(s: &JsonSchema) -> Vec<String> {
    let mut names = Vec::new();
    collect(s, &mut names);
    names
}

fn collect(s: &JsonSchema, out: &mut Vec<String>) {
    use crate::schema::Dependency;
    let listed = s.dependencies.values().filter_map(|d| match d {
        Dependency::Properties(names) => Some(names),
        Dependency::Schema(_) => None,
    });
    let own = s
        .properties
        .keys()
        .chain(s.required.iter().flatten())
        .chain(s.dependencies.keys())
        .chain(listed.flatten())
        .filter(|n| n.contains('.'));
    for name in own {
        if !out.contains(name) {
            out.push(name.clone());
        }
    }
    for child in children(s) {
        collect(child, out);
    }
}

fn children(s: &JsonSchema) -> Vec<&JsonSchema> {
    use crate::schema::{Additional, Dependency, Items};
    let mut out: Vec<&JsonSchema> = s.properties.values().collect();
    out.extend(s.pattern_properties.values());
    if let Some(Additional::Schema(a)) = &s.additional_properties {
        out.push(a);
    }
    if let Some(Additional::Schema(a)) = &s.additional_items {
        out.push(a);
    }
    match &s.items {
        Some(Items::Single(i)) => out.push(i),
        Some(Items::Positional(list)) => out.extend(list),
        None => {}
    }
    for d in s.dependencies.values() {
        if let Dependency::Schema(d) = d {
            out.push(d);
        }
    }
    for list in [&s.all_of, &s.any_of, &s.one_of].into_iter().flatten() {
        out.extend(list);
    }
    if let Some(n) = &s.not {
        out.push(n);
    }
    out
}

/// The schema with every dotted name rewritten as nested object keywords (see the module docs).
pub(crate) fn rewrite(s: &JsonSchema, side: Side) -> JsonSchema {
    use crate::schema::{Additional, Dependency, Items};
    let mut out = s.clone();
    let sub = |x: &JsonSchema| rewrite(x, side);
    for v in out.properties.values_mut() {
        *v = sub(v);
    }
    for v in out.pattern_properties.values_mut() {
        *v = sub(v);
    }
    for a in [&mut out.additional_properties, &mut out.additional_items]
        .into_iter()
        .flatten()
    {
        if let Additional::Schema(x) = a {
            **x = sub(x);
        }
    }
    match &mut out.items {
        Some(Items::Single(i)) => **i = sub(i),
        Some(Items::Positional(list)) => list.iter_mut().for_each(|x| *x = sub(x)),
        None => {}
    }
    for d in out.dependencies.values_mut() {
        if let Dependency::Schema(x) = d {
            **x = sub(x);
        }
    }
    for list in [&mut out.all_of, &mut out.any_of, &mut out.one_of]
        .into_iter()
        .flatten()
    {
        list.iter_mut().for_each(|x| *x = sub(x));
    }
    if let Some(n) = &mut out.not {
        **n = sub(n);
    }

    let mut extra = Vec::new();
    for (name, schema) in &mut out.properties {
        if name.contains('.') {
            // The literal name stays for additionalProperties, constraining nothing itself.
            let leaf = std::mem::take(schema);
            extra.push(path_property(&parts(name), leaf, side));
        }
    }
    if let Some(required) = out.required.take() {
        let (dotted, plain): (Vec<String>, Vec<String>) =
            required.into_iter().partition(|n| n.contains('.'));
        extra.extend(dotted.iter().map(|n| path_required(&parts(n), side)));
        out.required = (!plain.is_empty()).then_some(plain);
    }
    let dotted_dependencies: Vec<String> = out
        .dependencies
        .iter()
        .filter(|(trigger, d)| {
            trigger.contains('.')
                || matches!(d, Dependency::Properties(list) if list.iter().any(|n| n.contains('.')))
        })
        .map(|(trigger, _)| trigger.clone())
        .collect();
    for trigger in dotted_dependencies {
        if let Some(d) = out.dependencies.shift_remove(&trigger) {
            extra.push(path_dependency(&trigger, d, side));
        }
    }
    if !extra.is_empty() {
        out.all_of.get_or_insert_with(Vec::new).extend(extra);
    }
    out
}

/// `dependencies: {trigger: d}` with a dotted trigger or dotted listed names: the server's
/// `makeDependencyExistsClause` is an `ExistsMatchExpression` on each name as a path, inside
/// `InternalSchemaCondMatchExpression(if exists, then d, else true)`. Here: not an object, or
/// the trigger path is absent, or `d` holds. The trigger is negated, so it is read the other
/// way round: a strict rewrite must be sure the path is absent.
fn path_dependency(trigger: &str, d: crate::schema::Dependency, side: Side) -> JsonSchema {
    use crate::schema::Dependency;
    let opposite = match side {
        Side::Strict => Side::Lenient,
        Side::Lenient => Side::Strict,
    };
    let not_object = JsonSchema {
        not: Some(Box::new(JsonSchema {
            types: types(vec![BsonType::Object]),
            ..JsonSchema::default()
        })),
        ..JsonSchema::default()
    };
    let absent = JsonSchema {
        not: Some(Box::new(path_required(&parts(trigger), opposite))),
        ..JsonSchema::default()
    };
    let then = match d {
        Dependency::Schema(x) => *x,
        Dependency::Properties(names) => JsonSchema {
            all_of: Some(
                names
                    .iter()
                    .map(|n| path_required(&parts(n), side))
                    .collect(),
            ),
            ..JsonSchema::default()
        },
    };
    JsonSchema {
        any_of: Some(vec![not_object, absent, then]),
        ..JsonSchema::default()
    }
}

fn parts(name: &str) -> Vec<&str> {
    name.split('.').collect()
}

fn object_with_property(name: &str, value: JsonSchema) -> JsonSchema {
    let mut s = JsonSchema::default();
    s.properties.insert(name.to_string(), value);
    s
}

fn types(list: Vec<BsonType>) -> Option<TypeConstraint> {
    Some(TypeConstraint::BsonType(list))
}

/// `properties: {"a.b.c": leaf}` as seen from the object holding `a`.
fn path_property(parts: &[&str], leaf: JsonSchema, side: Side) -> JsonSchema {
    match parts {
        [] | [_] => object_with_property(parts.first().copied().unwrap_or(""), leaf),
        [first, rest @ ..] => {
            let inner = path_property(rest, leaf, side);
            // A missing path or one through a scalar does not exist: the property passes. An
            // array is where the server's traversal starts and ours stops.
            let array = JsonSchema {
                types: types(vec![BsonType::Array]),
                ..JsonSchema::default()
            };
            let mut step = JsonSchema::default();
            match side {
                Side::Strict => {
                    step.not = Some(Box::new(array));
                    step.all_of = Some(vec![inner]);
                }
                Side::Lenient => step.any_of = Some(vec![array, inner]),
            }
            object_with_property(first, step)
        }
    }
}

/// `required: ["a.b.c"]` as seen from the object holding `a`.
fn path_required(parts: &[&str], side: Side) -> JsonSchema {
    let mut s = JsonSchema::default();
    let first = parts.first().copied().unwrap_or("");
    s.required = Some(vec![first.to_string()]);
    if let [_, rest @ ..] = parts
        && !rest.is_empty()
    {
        // The path exists only through embedded documents (or, on the server, array elements).
        let mut step = path_required(rest, side);
        step.types = types(match side {
            Side::Strict => vec![BsonType::Object],
            Side::Lenient => vec![BsonType::Object, BsonType::Array],
        });
        s.properties.insert(first.to_string(), step);
    }
    s
}
