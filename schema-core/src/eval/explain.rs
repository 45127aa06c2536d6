//! The slow path for rejected documents: which rules failed, in the shape of the server's
//! `errInfo.details` (5.0+, `doc_validation_error.cpp`), plus a one-line summary per failure.
//!
//! Each failing keyword becomes an entry with `operatorName`, and where the server gives them
//! `specifiedAs`, `reason`, `consideredValue`, `consideredType`, `propertiesNotSatisfied`,
//! `missingProperties`, `schemasNotSatisfied`, `itemIndex`, `details`. When a value's type is
//! wrong, the type rule is the only entry for it (restriction keywords are not reported).

use bson::{Bson, Document, doc};

use super::check::{check, code_points, first_duplicate, in_enum, within};
use super::compile::{Dep, EncryptOutcome, Extra, ItemsRule, Node, type_bit};
use crate::schema::{Additional, Dependency, Items, JsonSchema, TypeConstraint};
use crate::value::number::is_multiple;
use crate::value::pattern::is_match;
use crate::value::raw::{Bad, Iter, num_of, str_bytes, ty};

/// One failed rule: where, which keyword, and a sentence saying what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Failure {
    /// Dotted path of the value (`items.2.qty`), `(document)` for the document itself.
    pub path: String,
    /// The keyword that failed (`minimum`, `required`, `bsonType`...).
    pub keyword: &'static str,
    /// What is wrong, in one line (`0 is less than the minimum 1`).
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Collects details and summaries while walking a rejected document.
pub(crate) struct Explainer {
    pub failures: Vec<Failure>,
}

/// Converts a raw value to an owned BSON value for `consideredValue`.
pub(crate) fn to_bson(t: u8, v: &[u8]) -> Result<Bson, Bad> {
    let mut buf = Vec::with_capacity(v.len() + 7);
    let len = i32::try_from(v.len() + 7).map_err(|_| Bad)?;
    buf.extend_from_slice(&len.to_le_bytes());
    buf.push(t);
    buf.push(0);
    buf.extend_from_slice(v);
    buf.push(0);
    let raw = bson::RawDocument::from_bytes(&buf).map_err(|_| Bad)?;
    let d = Document::try_from(raw).map_err(|_| Bad)?;
    d.get("").cloned().ok_or(Bad)
}

fn type_alias(t: u8) -> &'static str {
    match bson::spec::ElementType::from(t) {
        Some(e) => crate::schema::BsonType::of(e).as_str(),
        None => "unknown",
    }
}

fn show(value: &Bson) -> String {
    let text = value.clone().into_relaxed_extjson().to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn join(path: &str, part: &str) -> String {
    if path.is_empty() {
        part.to_string()
    } else {
        format!("{path}.{part}")
    }
}

fn at(path: &str) -> &str {
    if path.is_empty() { "(document)" } else { path }
}

fn specified(key: &str, value: Bson) -> Document {
    let mut d = Document::new();
    d.insert(key, value);
    d
}

/// `specifiedAs`: the keyword as written in the validator, or as the IR renders it.
fn kw(src: &Document, key: &str, fallback: Bson) -> Document {
    specified(key, src.get(key).cloned().unwrap_or(fallback))
}

static EMPTY: std::sync::LazyLock<Document> = std::sync::LazyLock::new(Document::new);

/// The source of a subschema: `src[key]`.
fn child<'a>(src: &'a Document, key: &str) -> &'a Document {
    src.get_document(key).unwrap_or(&EMPTY)
}

/// The source of a subschema in a list: `src[key][i]`.
fn child_at<'a>(src: &'a Document, key: &str, i: usize) -> &'a Document {
    match src.get_array(key).ok().and_then(|a| a.get(i)) {
        Some(Bson::Document(d)) => d,
        _ => &EMPTY,
    }
}

/// The source of a named subschema: `src[key][name]`.
fn child_in<'a>(src: &'a Document, key: &str, name: &str) -> &'a Document {
    child(src, key).get_document(name).unwrap_or(&EMPTY)
}

/// The server's `errInfo.details` for a document the root schema rejects, and the failures.
pub(crate) fn explain_root(
    s: &JsonSchema,
    src: &Document,
    n: &Node,
    bytes: &[u8],
) -> Result<(Document, Vec<Failure>), Bad> {
    // A root type that excludes objects parses to an always-false expression on the server,
    // reported whole (doc_validation_error_json_schema_test NoTopLevelObjectTypeRejectsAllDocuments).
    if n.types
        .is_some_and(|mask| mask & type_bit(ty::DOCUMENT) == 0)
    {
        let failure = Failure {
            path: at("").to_string(),
            keyword: "$jsonSchema",
            message: "the root type excludes object, so every document is rejected".to_string(),
        };
        let details = doc! {
            "operatorName": "$jsonSchema",
            "specifiedAs": { "$jsonSchema": src.clone() },
            "reason": "expression always evaluates to false",
        };
        return Ok((details, vec![failure]));
    }
    let mut explainer = Explainer {
        failures: Vec::new(),
    };
    let rules = explainer.rules(s, src, n, ty::DOCUMENT, bytes, "")?;
    // The root schema's title and description sit beside the operator name (5.1+).
    let mut details = doc! { "operatorName": "$jsonSchema" };
    annotate(&mut details, s);
    details.insert("schemaRulesNotSatisfied", rules);
    Ok((details, explainer.failures))
}

impl Explainer {
    fn fail(&mut self, keyword: &'static str, path: &str, message: String) {
        self.failures.push(Failure {
            path: at(path).to_string(),
            keyword,
            message,
        });
    }

    /// The rules of `s`/`n` that the value `(t, v)` at `path` does not satisfy.
    pub(crate) fn rules(
        &mut self,
        s: &JsonSchema,
        src: &Document,
        n: &Node,
        t: u8,
        v: &[u8],
        path: &str,
    ) -> Result<Vec<Document>, Bad> {
        let mut out = Vec::new();
        // A wrong type is the only error reported for a value.
        if let Some(mask) = n.types
            && mask & type_bit(t) == 0
        {
            let (name, spec) = match &s.types {
                Some(TypeConstraint::Type(ts)) => (
                    "type",
                    names(ts.iter().map(|x| x.as_str().to_string()).collect()),
                ),
                Some(TypeConstraint::BsonType(ts)) => (
                    "bsonType",
                    names(ts.iter().map(|x| x.as_str().to_string()).collect()),
                ),
                None => ("bsonType", Bson::Null),
            };
            let expected = match &spec {
                Bson::Array(a) => a
                    .iter()
                    .map(|x| x.as_str().unwrap_or_default().to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
                other => other.as_str().unwrap_or_default().to_string(),
            };
            self.fail(
                name,
                path,
                format!("expected type {expected}, found {}", type_alias(t)),
            );
            out.push(doc! {
                "operatorName": name,
                "specifiedAs": kw(src, name, spec),
                "reason": "type did not match",
                "consideredValue": to_bson(t, v)?,
                "consideredType": type_alias(t),
            });
            return Ok(out);
        }
        match n.encrypt.map(|e| e.judge(t, v)) {
            None | Some(EncryptOutcome::Holds) => {}
            Some(EncryptOutcome::NotEncrypted) => {
                self.fail(
                    "encrypt",
                    path,
                    "value is not encrypted (binData subtype 6)".to_string(),
                );
                out.push(doc! { "operatorName": "encrypt", "reason": "value was not encrypted" });
            }
            Some(EncryptOutcome::WrongType) => {
                self.fail("encrypt", path, encrypted_type_summary(s, v));
                out.push(
                    doc! { "operatorName": "encrypt", "reason": "encrypted value has wrong type" },
                );
            }
        }
        match t {
            ty::INT32 | ty::INT64 | ty::DOUBLE | ty::DECIMAL => {
                if let Some(r) = &n.num {
                    let x = num_of(t, v).expect("numeric type");
                    if let Some(d) = r.multiple_of
                        && !is_multiple(x.to_dec15(), d)
                    {
                        let m = s.multiple_of.map(|m| m.to_bson()).unwrap_or(Bson::Null);
                        let value = to_bson(t, v)?;
                        self.fail(
                            "multipleOf",
                            path,
                            format!("{} is not a multiple of {}", show(&value), show(&m)),
                        );
                        out.push(doc! {
                            "operatorName": "multipleOf",
                            "specifiedAs": kw(src, "multipleOf", m),
                            "reason": "considered value is not a multiple of the specified value",
                            "consideredValue": value,
                        });
                    }
                    for (is_min, bound) in [(false, r.maximum), (true, r.minimum)] {
                        let Some(b) = bound else { continue };
                        let excl = b.exclusive;
                        if within(x, b.value, excl, is_min) {
                            continue;
                        }
                        let (key, ex_kw, ir) = if is_min {
                            ("minimum", "exclusiveMinimum", s.minimum)
                        } else {
                            ("maximum", "exclusiveMaximum", s.maximum)
                        };
                        let bound_bson = ir.map(|m| m.to_bson()).unwrap_or(Bson::Null);
                        let value = to_bson(t, v)?;
                        let relation = match (is_min, excl) {
                            (true, false) => "less than the minimum",
                            (true, true) => "not greater than the exclusive minimum",
                            (false, false) => "greater than the maximum",
                            (false, true) => "not less than the exclusive maximum",
                        };
                        self.fail(
                            key,
                            path,
                            format!("{} is {relation} {}", show(&value), show(&bound_bson)),
                        );
                        let mut spec = kw(src, key, bound_bson);
                        if excl {
                            spec.insert(ex_kw, true);
                        }
                        out.push(doc! {
                            "operatorName": key,
                            "specifiedAs": spec,
                            "reason": "comparison failed",
                            "consideredValue": value,
                        });
                    }
                }
            }
            ty::STRING => {
                if let Some(r) = &n.string {
                    let text = str_bytes(v);
                    if let Some(p) = &r.pattern
                        && !is_match(p, text)
                    {
                        let value = to_bson(t, v)?;
                        let pat = s.pattern.clone().unwrap_or_default();
                        self.fail(
                            "pattern",
                            path,
                            format!(
                                "{} does not match the pattern {}",
                                show(&value),
                                show(&Bson::String(pat.clone()))
                            ),
                        );
                        out.push(doc! {
                            "operatorName": "pattern",
                            "specifiedAs": kw(src, "pattern", Bson::String(pat)),
                            "reason": "regular expression did not match",
                            "consideredValue": value,
                        });
                    }
                    let len = code_points(text);
                    for (key, limit, too) in [
                        ("maxLength", r.max_length, true),
                        ("minLength", r.min_length, false),
                    ] {
                        let Some(m) = limit else { continue };
                        if (too && len > m) || (!too && len < m) {
                            let value = to_bson(t, v)?;
                            let word = if too { "longer" } else { "shorter" };
                            let which = if too { "maximum" } else { "minimum" };
                            self.fail(
                                key,
                                path,
                                format!(
                                    "{} is {word} than the {which} length {m} ({})",
                                    show(&value),
                                    counted(len, "character", "characters")
                                ),
                            );
                            out.push(doc! {
                                "operatorName": key,
                                "specifiedAs": kw(src, key, count_bson(m)),
                                "reason": "specified string length was not satisfied",
                                "consideredValue": value,
                            });
                        }
                    }
                }
            }
            ty::ARRAY => {
                if let Some(r) = &n.array {
                    self.array_rules(s, src, r, v, path, &mut out)?;
                }
            }
            ty::DOCUMENT => {
                if let Some(r) = &n.object {
                    self.object_rules(s, src, r, v, path, &mut out)?;
                }
            }
            _ => {}
        }
        // Logical keywords, then enum, as the server orders them.
        if let Some(list) = &s.all_of {
            let mut failed = Vec::new();
            for (i, (x, xn)) in list.iter().zip(&n.all_of).enumerate() {
                if !check(xn, t, v)? {
                    let details = self.rules(x, child_at(src, "allOf", i), xn, t, v, path)?;
                    failed.push(indexed(i, x, details));
                }
            }
            if !failed.is_empty() {
                out.push(doc! { "operatorName": "allOf", "schemasNotSatisfied": failed });
            }
        }
        if let Some(list) = &s.any_of {
            let mut any = false;
            for xn in &n.any_of {
                if check(xn, t, v)? {
                    any = true;
                    break;
                }
            }
            if !any {
                let mut sub = Explainer {
                    failures: Vec::new(),
                };
                let mut failed = Vec::new();
                for (i, (x, xn)) in list.iter().zip(&n.any_of).enumerate() {
                    let details = sub.rules(x, child_at(src, "anyOf", i), xn, t, v, path)?;
                    failed.push(indexed(i, x, details));
                }
                self.fail(
                    "anyOf",
                    path,
                    format!("matches none of the {} anyOf schemas", list.len()),
                );
                out.push(doc! { "operatorName": "anyOf", "schemasNotSatisfied": failed });
            }
        }
        if let Some(list) = &s.one_of {
            let mut matching = Vec::new();
            for (i, xn) in n.one_of.iter().enumerate() {
                if check(xn, t, v)? {
                    matching.push(i as i32);
                }
            }
            if matching.is_empty() {
                let mut sub = Explainer {
                    failures: Vec::new(),
                };
                let mut failed = Vec::new();
                for (i, (x, xn)) in list.iter().zip(&n.one_of).enumerate() {
                    let details = sub.rules(x, child_at(src, "oneOf", i), xn, t, v, path)?;
                    failed.push(indexed(i, x, details));
                }
                self.fail(
                    "oneOf",
                    path,
                    format!("matches none of the {} oneOf schemas", list.len()),
                );
                out.push(doc! { "operatorName": "oneOf", "schemasNotSatisfied": failed });
            } else if matching.len() > 1 {
                self.fail(
                    "oneOf",
                    path,
                    format!("matches oneOf schemas {matching:?}, but exactly one must match"),
                );
                out.push(doc! {
                    "operatorName": "oneOf",
                    "reason": "more than one subschema matched",
                    "matchingSchemaIndexes": matching,
                });
            }
        }
        if let Some(xn) = &n.not
            && check(xn, t, v)?
        {
            self.fail("not", path, "matches the schema given in not".to_string());
            out.push(doc! { "operatorName": "not", "reason": "child expression matched" });
        }
        if let (Some(values), Some(e)) = (&s.enumeration, &n.enumeration)
            && !in_enum(&e.members, t, v)?
        {
            let value = to_bson(t, v)?;
            self.fail(
                "enum",
                path,
                format!(
                    "{} is not one of the allowed values {}",
                    show(&value),
                    show(&Bson::Array(values.clone()))
                ),
            );
            out.push(doc! {
                "operatorName": "enum",
                "specifiedAs": kw(src, "enum", Bson::Array(values.clone())),
                "reason": "value was not found in enum",
                "consideredValue": value,
            });
        }
        Ok(out)
    }

    fn array_rules(
        &mut self,
        s: &JsonSchema,
        src: &Document,
        r: &super::compile::ArrRules,
        v: &[u8],
        path: &str,
        out: &mut Vec<Document>,
    ) -> Result<(), Bad> {
        let mut len = 0u64;
        {
            let mut it = Iter::new(v)?;
            while it.next_elem()?.is_some() {
                len += 1;
            }
        }
        for (key, limit, too) in [
            ("minItems", r.min_items, false),
            ("maxItems", r.max_items, true),
        ] {
            let Some(m) = limit else { continue };
            if (too && len > m) || (!too && len < m) {
                let word = if too { "more" } else { "fewer" };
                let which = if too { "maximum" } else { "minimum" };
                self.fail(
                    key,
                    path,
                    format!(
                        "array has {}, {word} than the {which} {m}",
                        counted(len, "item", "items")
                    ),
                );
                out.push(doc! {
                    "operatorName": key,
                    "specifiedAs": kw(src, key, count_bson(m)),
                    "reason": "array did not match specified length",
                    "consideredValue": to_bson(ty::ARRAY, v)?,
                    "numberOfItems": count_bson(len),
                });
            }
        }
        if r.unique
            && let Some((i, j)) = first_duplicate(v)?
        {
            let dup = nth(v, j)?;
            self.fail("uniqueItems", path, format!("items {i} and {j} are equal"));
            out.push(doc! {
                "operatorName": "uniqueItems",
                "specifiedAs": kw(src, "uniqueItems", Bson::Boolean(true)),
                "reason": "found a duplicate item",
                "consideredValue": to_bson(ty::ARRAY, v)?,
                "duplicatedValue": dup,
            });
        }
        match (&r.items, &s.items) {
            (ItemsRule::Single(xn), Some(Items::Single(x))) => {
                let mut it = Iter::new(v)?;
                let mut i = 0usize;
                while let Some(e) = it.next_elem()? {
                    if !check(xn, e.ty, e.value)? {
                        let details = self.rules(
                            x,
                            child(src, "items"),
                            xn,
                            e.ty,
                            e.value,
                            &join(path, &i.to_string()),
                        )?;
                        let mut entry = doc! { "operatorName": "items" };
                        annotate(&mut entry, x);
                        entry.insert("reason", "At least one item did not match the sub-schema");
                        entry.insert("itemIndex", i as i32);
                        entry.insert("details", details);
                        out.push(entry);
                        break;
                    }
                    i += 1;
                }
            }
            (ItemsRule::Positional(list_n), Some(Items::Positional(list))) => {
                let mut it = Iter::new(v)?;
                let mut i = 0usize;
                let mut failed = Vec::new();
                let mut extra_failed: Option<Document> = None;
                let mut extras = Vec::new();
                while let Some(e) = it.next_elem()? {
                    let ipath = join(path, &i.to_string());
                    match (list_n.get(i), list.get(i)) {
                        (Some(xn), Some(x)) => {
                            if !check(xn, e.ty, e.value)? {
                                let details = self.rules(
                                    x,
                                    child_at(src, "items", i),
                                    xn,
                                    e.ty,
                                    e.value,
                                    &ipath,
                                )?;
                                failed.push(doc! { "itemIndex": i as i32, "details": details });
                            }
                        }
                        _ => match (&r.additional, &s.additional_items) {
                            (Some(Extra::Forbidden), _) => {
                                self.fail(
                                    "additionalItems",
                                    &ipath,
                                    "additional item not allowed (additionalItems: false)"
                                        .to_string(),
                                );
                                extras.push(to_bson(e.ty, e.value)?);
                            }
                            (Some(Extra::Schema(xn)), Some(Additional::Schema(x)))
                                if extra_failed.is_none() && !check(xn, e.ty, e.value)? =>
                            {
                                let details = self.rules(
                                    x,
                                    child(src, "additionalItems"),
                                    xn,
                                    e.ty,
                                    e.value,
                                    &ipath,
                                )?;
                                let mut entry = doc! { "operatorName": "additionalItems" };
                                annotate(&mut entry, x);
                                entry.insert(
                                    "reason",
                                    "At least one additional item did not match the sub-schema",
                                );
                                entry.insert("itemIndex", i as i32);
                                entry.insert("details", details);
                                extra_failed = Some(entry);
                            }
                            _ => {}
                        },
                    }
                    i += 1;
                }
                if !failed.is_empty() {
                    out.push(doc! { "operatorName": "items", "details": failed });
                }
                if !extras.is_empty() {
                    out.push(doc! {
                        "operatorName": "additionalItems",
                        "specifiedAs": kw(src, "additionalItems", Bson::Boolean(false)),
                        "reason": "found additional items",
                        "additionalItems": extras,
                    });
                }
                if let Some(e) = extra_failed {
                    out.push(e);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn object_rules(
        &mut self,
        s: &JsonSchema,
        src: &Document,
        r: &super::compile::ObjRules,
        v: &[u8],
        path: &str,
        out: &mut Vec<Document>,
    ) -> Result<(), Bad> {
        let mut seen = super::check::Seen::new(r.names.len());
        let mut count = 0u64;
        let mut props_failed = Vec::new();
        let mut not_allowed = Vec::new();
        let mut additional_failed: Option<Document> = None;
        let mut pattern_failed = Vec::new();
        let patterns: Vec<(&String, &JsonSchema)> = s.pattern_properties.iter().collect();
        let mut it = Iter::new(v)?;
        while let Some(e) = it.next_elem()? {
            count += 1;
            let name = String::from_utf8_lossy(e.name).into_owned();
            let fpath = join(path, &name);
            let mut named = false;
            if let Some(slot) = r.lookup.find(e.name, e.head, 0) {
                let again = seen.insert(slot);
                if let (Some(xn), Some((pname, x))) =
                    (r.properties.get(slot), s.properties.get_index(slot))
                {
                    named = true;
                    if !again && !check(xn, e.ty, e.value)? {
                        let xsrc = child_in(src, "properties", pname);
                        let details = self.rules(x, xsrc, xn, e.ty, e.value, &fpath)?;
                        let mut entry = doc! { "propertyName": name.clone() };
                        annotate(&mut entry, x);
                        entry.insert("details", details);
                        props_failed.push(entry);
                    }
                }
            }
            let mut matched = false;
            for (k, (p, xn)) in r.patterns.iter().enumerate() {
                if is_match(p, e.name) {
                    matched = true;
                    if !check(xn, e.ty, e.value)? {
                        let (pat, x) = patterns[k];
                        let xsrc = child_in(src, "patternProperties", pat);
                        let details = self.rules(x, xsrc, xn, e.ty, e.value, &fpath)?;
                        let mut entry = doc! { "propertyName": name.clone() };
                        annotate(&mut entry, x);
                        entry.insert("regexMatched", pat.clone());
                        entry.insert("details", details);
                        pattern_failed.push(entry);
                    }
                }
            }
            if !named && !matched {
                match (&r.additional, &s.additional_properties) {
                    (Some(Extra::Forbidden), _) => {
                        self.fail(
                            "additionalProperties",
                            &fpath,
                            "property is not allowed (additionalProperties: false)".to_string(),
                        );
                        not_allowed.push(Bson::String(name));
                    }
                    (Some(Extra::Schema(xn)), Some(Additional::Schema(x)))
                        if additional_failed.is_none() && !check(xn, e.ty, e.value)? =>
                    {
                        let xsrc = child(src, "additionalProperties");
                        let details = self.rules(x, xsrc, xn, e.ty, e.value, &fpath)?;
                        let mut entry = doc! { "operatorName": "additionalProperties" };
                        annotate(&mut entry, x);
                        entry.insert(
                            "reason",
                            "at least one additional property did not match the subschema",
                        );
                        entry.insert("failingProperty", name);
                        entry.insert("details", details);
                        additional_failed = Some(entry);
                    }
                    _ => {}
                }
            }
        }
        if !props_failed.is_empty() {
            out.push(doc! { "operatorName": "properties", "propertiesNotSatisfied": props_failed });
        }
        if !not_allowed.is_empty() {
            out.push(doc! {
                "operatorName": "additionalProperties",
                "specifiedAs": kw(src, "additionalProperties", Bson::Boolean(false)),
                "additionalProperties": not_allowed,
            });
        }
        // The server reports the first additional property that fails the schema.
        if let Some(entry) = additional_failed {
            out.push(entry);
        }
        if !pattern_failed.is_empty() {
            out.push(doc! { "operatorName": "patternProperties", "details": pattern_failed });
        }
        // The server lists missing required properties sorted by name.
        let mut missing: Vec<&str> = r
            .required
            .iter()
            .filter(|&&slot| !seen.contains(slot))
            .map(|&slot| r.names[slot].as_str())
            .collect();
        missing.sort_unstable();
        if !missing.is_empty() {
            for m in &missing {
                self.fail(
                    "required",
                    &join(path, m),
                    "required property is missing".to_string(),
                );
            }
            out.push(doc! {
                "operatorName": "required",
                "specifiedAs": kw(src, "required", Bson::from(s.required.clone().unwrap_or_default())),
                "missingProperties": missing,
            });
        }
        for (key, limit, too) in [
            ("minProperties", r.min_properties, false),
            ("maxProperties", r.max_properties, true),
        ] {
            let Some(m) = limit else { continue };
            if (too && count > m) || (!too && count < m) {
                let word = if too { "more" } else { "fewer" };
                let which = if too { "maximum" } else { "minimum" };
                self.fail(
                    key,
                    path,
                    format!(
                        "object has {}, {word} than the {which} {m}",
                        counted(count, "property", "properties")
                    ),
                );
                out.push(doc! {
                    "operatorName": key,
                    "specifiedAs": kw(src, key, count_bson(m)),
                    "reason": "specified number of properties was not satisfied",
                    "numberOfProperties": count as i32,
                });
            }
        }
        let mut failing_deps = Vec::new();
        for ((trigger, dep), (name, ir)) in r.dependencies.iter().zip(&s.dependencies) {
            if !seen.contains(*trigger) {
                continue;
            }
            match (dep, ir) {
                (Dep::Properties(list), _) => {
                    let missing: Vec<&str> = list
                        .iter()
                        .filter(|&&slot| !seen.contains(slot))
                        .map(|&slot| r.names[slot].as_str())
                        .collect();
                    if !missing.is_empty() {
                        for m in &missing {
                            self.fail(
                                "dependencies",
                                &join(path, m),
                                format!("required because {name} is present"),
                            );
                        }
                        failing_deps.push(doc! { "conditionalProperty": name.clone(), "missingProperties": missing });
                    }
                }
                (Dep::Schema(xn), Dependency::Schema(x)) => {
                    if !check(xn, ty::DOCUMENT, v)? {
                        let xsrc = child_in(src, "dependencies", name);
                        let details = self.rules(x, xsrc, xn, ty::DOCUMENT, v, path)?;
                        failing_deps
                            .push(doc! { "conditionalProperty": name.clone(), "details": details });
                    }
                }
                (Dep::Schema(_), Dependency::Properties(_)) => {}
            }
        }
        if !failing_deps.is_empty() {
            // Strings named `title`/`description` among the entries annotate the rule.
            let mut entry = doc! { "operatorName": "dependencies" };
            if let Some(t) = &s.dependencies_title {
                entry.insert("title", t.clone());
            }
            if let Some(d) = &s.dependencies_description {
                entry.insert("description", d.clone());
            }
            entry.insert("failingDependencies", failing_deps);
            out.push(entry);
        }
        Ok(())
    }
}

/// The server copies a subschema's `title` and `description` into its error entry (5.1+).
fn annotate(entry: &mut Document, s: &JsonSchema) {
    if let Some(t) = &s.title {
        entry.insert("title", t.clone());
    }
    if let Some(d) = &s.description {
        entry.insert("description", d.clone());
    }
}

/// An entry of `schemasNotSatisfied`: the subschema's index, title and description, details.
fn indexed(i: usize, s: &JsonSchema, details: Vec<Document>) -> Document {
    let mut entry = doc! { "index": count_bson(i as u64) };
    annotate(&mut entry, s);
    entry.insert("details", details);
    entry
}

/// `1 item`, `3 items`.
fn counted(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The summary for an encrypted value whose FLE blob header does not name a type that
/// `encrypt.bsonType` allows (`v`: binData length, subtype, payload).
fn encrypted_type_summary(s: &JsonSchema, v: &[u8]) -> String {
    let allowed: Vec<&str> = match s.encrypt.as_ref().and_then(|e| e.get("bsonType")) {
        Some(Bson::String(name)) => vec![name.as_str()],
        Some(Bson::Array(list)) => list.iter().filter_map(Bson::as_str).collect(),
        _ => Vec::new(),
    };
    let expected = if allowed.is_empty() {
        "no type (encrypt.bsonType is empty)".to_string()
    } else {
        allowed.join(" or ")
    };
    match v.get(5..).unwrap_or_default() {
        [1 | 2, header @ ..] if header.len() >= 17 => format!(
            "encrypted value has original type {}, expected {expected}",
            type_alias(header[16])
        ),
        [blob_subtype, rest @ ..] if rest.len() >= 17 => format!(
            "encrypted value has FLE blob subtype {blob_subtype}, whose original type is not checked (only 1 and 2 are), expected {expected}"
        ),
        _ => format!(
            "encrypted value is shorter than the 18-byte FLE blob header, expected original type {expected}"
        ),
    }
}

fn names(list: Vec<String>) -> Bson {
    if list.len() == 1 {
        Bson::String(list.into_iter().next().expect("one name"))
    } else {
        Bson::Array(list.into_iter().map(Bson::String).collect())
    }
}

fn count_bson(n: u64) -> Bson {
    match i32::try_from(n) {
        Ok(v) => Bson::Int32(v),
        Err(_) => Bson::Int64(i64::try_from(n).unwrap_or(i64::MAX)),
    }
}

fn nth(v: &[u8], j: usize) -> Result<Bson, Bad> {
    let mut it = Iter::new(v)?;
    let mut i = 0;
    while let Some(e) = it.next_elem()? {
        if i == j {
            return to_bson(e.ty, e.value);
        }
        i += 1;
    }
    Err(Bad)
}
