//! The counterexample search: candidate documents built from both schemas, kept only when the
//! evaluator accepts them under the old schema and rejects them under the new one.
//!
//! Candidates are values the old schema accepts, biased toward what the new one may reject: for
//! each case of the old schema's `anyOf`/`oneOf`, a document with the old required properties
//! (and an ObjectId `_id` when allowed), the same with every declared property, each with one
//! property changed to another candidate (values at and beyond both schemas' bounds, the old
//! enum, one value per allowed type, nested objects and arrays built the same way), without
//! one optional property, with an extra property, and padded past the new property count.
//! Every choice is by position in the schemas, so the search is deterministic.

use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document, RawDocumentBuf, Regex, Timestamp};
use indexmap::IndexSet;

use super::contain::{
    ALL_TYPES, ValueCheck, disjunctions, flatten, members, old_elem, positional_len, types_of,
};
use crate::eval::Validator;
use crate::schema::{Additional, BsonType, JsonSchema, Number};

/// How deep candidate values nest below the top-level document.
const MAX_DEPTH: usize = 3;
/// Candidate values kept per position.
const VALUES: usize = 8;
/// Cases of `anyOf`/`oneOf` explored per node.
const CASES: usize = 16;
/// Documents tried at the top level.
const DOCUMENTS: usize = 4_000;

/// A document `old_v` accepts and `new_v` rejects, built from `old` and `new`; `None` when the
/// search finds none.
pub fn counterexample(
    old: &JsonSchema,
    new: &JsonSchema,
    old_v: &Validator,
    new_v: &Validator,
) -> Option<Document> {
    let mut tried = 0;
    for doc in objects(&[old], &[new], 0, true) {
        tried += 1;
        if tried > DOCUMENTS {
            break;
        }
        // The server adds `_id` before validating: a document without one is never stored.
        if !doc.contains_key("_id") {
            continue;
        }
        let Ok(raw) = RawDocumentBuf::try_from(&doc) else {
            continue;
        };
        if old_v.is_valid(&raw) && !new_v.is_valid(&raw) {
            return Some(doc);
        }
    }
    None
}

/// The conjunctions an old list of nodes stands for, one per choice of `anyOf`/`oneOf` branch
/// (at most [`CASES`]).
fn cases<'a>(old: &[&'a JsonSchema]) -> Vec<Vec<&'a JsonSchema>> {
    let mut start = Vec::new();
    for o in old {
        flatten(o, &mut start);
    }
    let mut out = Vec::new();
    let pending = disjunctions(&start);
    expand(start, pending, &mut out);
    out
}

fn expand<'a>(
    parts: Vec<&'a JsonSchema>,
    mut pending: Vec<&'a [JsonSchema]>,
    out: &mut Vec<Vec<&'a JsonSchema>>,
) {
    if out.len() >= CASES {
        return;
    }
    if pending.is_empty() {
        out.push(parts);
        return;
    }
    let branches = pending.remove(0);
    for b in branches {
        let mut p = parts.clone();
        let start = p.len();
        flatten(b, &mut p);
        let mut q = pending.clone();
        q.extend(disjunctions(&p[start..]));
        expand(p, q, out);
    }
}

/// The conjunction of `parts` as one schema (for the evaluator).
fn conjunction(parts: &[&JsonSchema]) -> JsonSchema {
    match parts {
        [] => JsonSchema::any(),
        [one] => (*one).clone(),
        _ => JsonSchema {
            all_of: Some(parts.iter().map(|p| (*p).clone()).collect()),
            ..JsonSchema::default()
        },
    }
}

fn push_unique(out: &mut Vec<Bson>, v: Bson) {
    if !out.contains(&v) {
        out.push(v);
    }
}

/// Candidate values for a position the old nodes `old` and new nodes `new` constrain: only
/// values the old side accepts, those the new side rejects first, at most [`VALUES`].
fn values(old: &[&JsonSchema], new: &[&JsonSchema], depth: usize) -> Vec<Bson> {
    let old_check = ValueCheck::new(&conjunction(old));
    let new_check = ValueCheck::new(&conjunction(new));
    let mut groups: Vec<Vec<Bson>> = Vec::new();
    for case in cases(old) {
        for g in raw_values(&case, new, depth) {
            let kept: Vec<Bson> = g
                .into_iter()
                .filter(|v| old_check.accepts(v) == Some(true))
                .collect();
            if !kept.is_empty() {
                groups.push(kept);
            }
        }
    }
    // Round-robin over the groups, so that no type crowds out the others.
    let mut mixed = Vec::new();
    let longest = groups.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for g in &groups {
            if let Some(v) = g.get(i) {
                push_unique(&mut mixed, v.clone());
            }
        }
    }
    let mut kept: Vec<(bool, Bson)> = mixed
        .into_iter()
        .map(|v| {
            let new_ok = new.is_empty() || new_check.accepts(&v) == Some(true);
            (new_ok, v)
        })
        .collect();
    // Stable: rejected-by-new first, otherwise in round-robin order.
    kept.sort_by_key(|(new_ok, _)| *new_ok);
    kept.into_iter().take(VALUES).map(|(_, v)| v).collect()
}

/// A sample of each type that has a single obvious value.
fn sample(t: BsonType) -> Option<Bson> {
    Some(match t {
        BsonType::Bool => Bson::Boolean(true),
        BsonType::Null => Bson::Null,
        BsonType::ObjectId => Bson::ObjectId(object_id()),
        BsonType::Date => Bson::DateTime(bson::DateTime::from_millis(0)),
        BsonType::Undefined => Bson::Undefined,
        BsonType::MinKey => Bson::MinKey,
        BsonType::MaxKey => Bson::MaxKey,
        BsonType::BinData => Bson::Binary(Binary {
            subtype: BinarySubtype::Generic,
            bytes: vec![1, 2, 3],
        }),
        BsonType::Regex => Bson::RegularExpression(Regex {
            pattern: "a".try_into().ok()?,
            options: "".try_into().ok()?,
        }),
        BsonType::Timestamp => Bson::Timestamp(Timestamp {
            time: 1,
            increment: 1,
        }),
        BsonType::JavaScript => Bson::JavaScriptCode("1".to_string()),
        BsonType::Symbol => Bson::Symbol("s".to_string()),
        BsonType::JavaScriptWithScope => {
            Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
                code: "1".to_string(),
                scope: Document::new(),
            })
        }
        _ => return None,
    })
}

/// A fixed ObjectId, so that the search is deterministic.
fn object_id() -> ObjectId {
    ObjectId::from_bytes([0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
}

/// The types to try for one case: its allowed types, or a representative list when unbounded.
fn types_to_try(parts: &[&JsonSchema], depth: usize) -> Vec<BsonType> {
    let allowed = parts.iter().fold(ALL_TYPES, |m, p| m & types_of(p));
    let mut list = if allowed == ALL_TYPES {
        vec![
            BsonType::Int,
            BsonType::String,
            BsonType::Object,
            BsonType::Array,
            BsonType::Double,
            BsonType::Null,
            BsonType::Bool,
            BsonType::Long,
            BsonType::Decimal,
            BsonType::ObjectId,
        ]
    } else {
        members(allowed)
    };
    if depth >= MAX_DEPTH {
        list.retain(|t| !matches!(t, BsonType::Object | BsonType::Array));
    }
    list
}

/// Raw candidates for one case, one group per type (and one for new enum members).
fn raw_values(parts: &[&JsonSchema], new: &[&JsonSchema], depth: usize) -> Vec<Vec<Bson>> {
    if let Some(e) = parts.iter().find_map(|p| p.enumeration.as_ref()) {
        return vec![e.clone()];
    }
    let mut groups = Vec::new();
    for t in types_to_try(parts, depth) {
        let mut out = Vec::new();
        match t {
            BsonType::Int | BsonType::Long | BsonType::Double | BsonType::Decimal => {
                for n in number_points(parts, new) {
                    if let Some(v) = number_as(t, n) {
                        push_unique(&mut out, v);
                    }
                }
            }
            BsonType::String => {
                for v in strings(parts, new) {
                    push_unique(&mut out, v);
                }
            }
            BsonType::Object => {
                for d in objects(parts, new, depth + 1, false)
                    .into_iter()
                    .take(VALUES * 4)
                {
                    push_unique(&mut out, Bson::Document(d));
                }
            }
            BsonType::Array => {
                for a in arrays(parts, new, depth) {
                    push_unique(&mut out, a);
                }
            }
            other => {
                if let Some(v) = sample(other) {
                    push_unique(&mut out, v);
                }
            }
        }
        groups.push(out);
    }
    // Members of a new enum are likely near what it accepts.
    let mut members = Vec::new();
    for n in new {
        for m in n.enumeration.iter().flatten() {
            push_unique(&mut members, m.clone());
        }
    }
    groups.push(members);
    groups
}

fn to_f64(n: Number) -> f64 {
    match n {
        Number::Int32(v) => f64::from(v),
        Number::Int64(v) => v as f64,
        Number::Double(v) => v,
        Number::Decimal128(v) => v.to_string().parse().unwrap_or(f64::NAN),
    }
}

/// Numbers at, just inside and just outside every bound of both sides, and multiples of the
/// old divisor near them.
fn number_points(parts: &[&JsonSchema], new: &[&JsonSchema]) -> Vec<f64> {
    let mut bounds = vec![0.0, 1.0];
    for s in parts.iter().chain(new) {
        bounds.extend(s.minimum.map(to_f64));
        bounds.extend(s.maximum.map(to_f64));
    }
    let divisors: Vec<f64> = parts
        .iter()
        .filter_map(|p| p.multiple_of.map(to_f64))
        .collect();
    let mut points = Vec::new();
    for &b in &bounds {
        for d in [0.0, -1.0, 1.0, -0.5, 0.5] {
            points.push(b + d);
        }
        for &m in &divisors {
            if m.is_finite() && m > 0.0 {
                points.push((b / m).floor() * m);
                points.push((b / m).ceil() * m);
                points.push(((b / m).floor() - 1.0) * m);
                points.push(((b / m).ceil() + 1.0) * m);
            }
        }
    }
    points.push(-1.0);
    points.push(f64::NAN);
    points
}

fn number_as(t: BsonType, x: f64) -> Option<Bson> {
    let whole = x.is_finite() && x.fract() == 0.0;
    match t {
        BsonType::Int if whole && x >= f64::from(i32::MIN) && x <= f64::from(i32::MAX) => {
            Some(Bson::Int32(x as i32))
        }
        // Beyond ±2^63 a double does not convert; the cast saturates at the ends.
        BsonType::Long if whole && x.abs() < 9.2e18 => Some(Bson::Int64(x as i64)),
        BsonType::Double => Some(Bson::Double(x)),
        BsonType::Decimal if x.is_finite() => format!("{x}").parse().ok().map(Bson::Decimal128),
        _ => None,
    }
}

fn strings(parts: &[&JsonSchema], new: &[&JsonSchema]) -> Vec<Bson> {
    let mut lengths = vec![1, 0, 3];
    for s in parts.iter().chain(new) {
        for m in [s.min_length, s.max_length].into_iter().flatten() {
            let m = usize::try_from(m).unwrap_or(usize::MAX).min(64);
            lengths.extend([m, m.saturating_sub(1), m + 1]);
        }
    }
    let mut out: Vec<Bson> = lengths
        .into_iter()
        .map(|n| Bson::String("a".repeat(n)))
        .collect();
    // A few shapes that common patterns accept.
    for s in ["A", "abc", "0", "ab-12", "a@b.c", "2026-01-15"] {
        out.push(Bson::String(s.to_string()));
    }
    out
}

fn arrays(parts: &[&JsonSchema], new: &[&JsonSchema], depth: usize) -> Vec<Bson> {
    let positions = parts
        .iter()
        .chain(new)
        .map(|s| positional_len(s))
        .max()
        .unwrap_or(0);
    // Candidates per position, up to one past every positional list.
    let mut per: Vec<Vec<Bson>> = Vec::new();
    for i in 0..=positions {
        let Some(old) = old_elem(parts, i) else {
            break;
        };
        let new_i: Vec<&JsonSchema> = new
            .iter()
            .filter_map(|n| old_elem(&[n], i))
            .flatten()
            .collect();
        per.push(values(&old, &new_i, depth + 1));
    }
    // Past the positional lists every position draws from the last list.
    let at = |i: usize, k: usize| -> Option<Bson> {
        let list = per.get(i.min(per.len().checked_sub(1)?))?;
        list.get(k % list.len().max(1)).cloned()
    };
    let mut lengths = vec![0usize, 1, 2, 3, positions, positions + 1];
    for s in parts.iter().chain(new) {
        for m in [s.min_items, s.max_items].into_iter().flatten() {
            let m = usize::try_from(m).unwrap_or(usize::MAX).min(16);
            lengths.extend([m, m.saturating_sub(1), m + 1]);
        }
    }
    let mut seen = IndexSet::new();
    lengths.retain(|&n| seen.insert(n));
    let mut out = Vec::new();
    for n in lengths {
        // Distinct choices per position, then the same first choice everywhere (duplicates).
        for same in [false, true] {
            let mut items = Vec::with_capacity(n);
            for i in 0..n {
                match at(i, if same { 0 } else { i }) {
                    Some(v) => items.push(v),
                    None => break,
                }
            }
            if items.len() == n {
                push_unique(&mut out, Bson::Array(items));
            }
        }
    }
    // One element changed to each other candidate of its position.
    for (i, list) in per.iter().enumerate() {
        for v in list.iter().skip(1) {
            let mut items: Vec<Bson> = (0..=i).filter_map(|j| at(j, 0)).collect();
            if items.len() == i + 1 {
                items[i] = v.clone();
                push_unique(&mut out, Bson::Array(items));
            }
        }
    }
    out
}

/// A property name a simple pattern matches: the pattern itself without its anchors, when the
/// rest is plain letters, digits and underscores (`^ab$` -> `ab`).
fn literal_name(pattern: &str) -> Option<String> {
    let core = pattern.strip_prefix('^').unwrap_or(pattern);
    let core = core.strip_suffix('$').unwrap_or(core);
    let plain = !core.is_empty() && core.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    plain.then(|| core.to_string())
}

/// Old constraints on property `name` (`None` when no old node lets it be present), ignoring
/// patterns: the evaluator filters the candidates anyway.
fn property<'a>(parts: &[&'a JsonSchema], name: &str) -> Option<Vec<&'a JsonSchema>> {
    let mut out = Vec::new();
    for p in parts {
        if let Some(s) = p.properties.get(name) {
            out.push(s);
        } else if p.pattern_properties.is_empty() {
            match &p.additional_properties {
                Some(Additional::Allowed(false)) => return None,
                Some(Additional::Schema(s)) => out.push(&**s),
                _ => {}
            }
        }
    }
    Some(out)
}

/// Candidate objects for the old nodes `old` (for every case of their disjunctions) with the
/// new nodes `new` as hints; at the top level each starts with `_id`.
fn objects(old: &[&JsonSchema], new: &[&JsonSchema], depth: usize, root: bool) -> Vec<Document> {
    let mut out = Vec::new();
    let new_parts = cases(new).into_iter().flatten().collect::<Vec<_>>();
    for case in cases(old) {
        for d in case_objects(&case, &new_parts, depth, root) {
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

fn case_objects(
    parts: &[&JsonSchema],
    new: &[&JsonSchema],
    depth: usize,
    root: bool,
) -> Vec<Document> {
    let mut names: IndexSet<String> = IndexSet::new();
    if root {
        names.insert("_id".to_string());
    }
    for s in parts.iter().chain(new) {
        names.extend(s.required.iter().flatten().cloned());
        names.extend(s.properties.keys().cloned());
        names.extend(s.dependencies.keys().cloned());
        names.extend(s.pattern_properties.keys().filter_map(|p| literal_name(p)));
    }
    let required: IndexSet<&String> = parts
        .iter()
        .flat_map(|p| p.required.iter().flatten())
        .collect();
    let mut fields: Vec<(String, Vec<Bson>)> = Vec::new();
    for name in &names {
        let Some(old) = property(parts, name) else {
            continue;
        };
        let new_n: Vec<&JsonSchema> = property(new, name).unwrap_or_default();
        let mut vs = values(&old, &new_n, depth);
        if root && name == "_id" {
            // The server adds an ObjectId `_id`: lead with one when it is allowed.
            let oid = Bson::ObjectId(object_id());
            let ok = ValueCheck::new(&conjunction(&old)).accepts(&oid) == Some(true);
            vs.retain(|v| v != &oid);
            if ok {
                vs.insert(0, oid);
            }
        }
        if !vs.is_empty() {
            fields.push((name.clone(), vs));
        }
    }
    let with = |doc: &Document, name: &str, v: &Bson| {
        let mut d = doc.clone();
        d.insert(name, v.clone());
        d
    };
    let mut minimal = Document::new();
    let mut full = Document::new();
    for (name, vs) in &fields {
        let keep = (root && name == "_id") || required.contains(name);
        if keep {
            minimal.insert(name, vs[0].clone());
        }
        let declared = keep || parts.iter().any(|p| p.properties.contains_key(name));
        if declared {
            full.insert(name, vs[0].clone());
        }
    }
    // Extra properties: to reach the old minProperties, then once and repeated past the
    // property counts of both sides.
    let mut extra_name = "extra".to_string();
    while names.contains(&extra_name) {
        extra_name.push('_');
    }
    let open = parts
        .iter()
        .all(|p| p.additional_properties != Some(Additional::Allowed(false)));
    let extras = if !open {
        Vec::new()
    } else {
        let extra_old: Vec<&JsonSchema> = parts
            .iter()
            .filter_map(|p| match &p.additional_properties {
                Some(Additional::Schema(s)) => Some(&**s),
                _ => None,
            })
            .collect();
        let extra_new: Vec<&JsonSchema> = new
            .iter()
            .filter_map(|p| match &p.additional_properties {
                Some(Additional::Schema(s)) => Some(&**s),
                _ => None,
            })
            .collect();
        if depth < MAX_DEPTH {
            values(&extra_old, &extra_new, depth)
        } else {
            vec![Bson::Int32(1)]
        }
    };
    let old_min = parts.iter().filter_map(|p| p.min_properties).max();
    if let (Some(m), Some(v)) = (old_min, extras.first()) {
        let m = usize::try_from(m).unwrap_or(usize::MAX).min(64);
        for base in [&mut minimal, &mut full] {
            let mut k = 0;
            while base.len() < m {
                base.insert(format!("{extra_name}_{k}"), v.clone());
                k += 1;
            }
        }
    }
    let mut out = vec![minimal.clone(), full.clone()];
    for (name, vs) in &fields {
        if root && name == "_id" {
            continue;
        }
        for v in vs.iter().skip(1) {
            out.push(with(&minimal, name, v));
            out.push(with(&full, name, v));
        }
        if !minimal.contains_key(name) {
            out.push(with(&minimal, name, &vs[0]));
            let mut less = full.clone();
            less.remove(name);
            out.push(less);
        }
    }
    if !extras.is_empty() {
        for v in extras.iter().take(3) {
            out.push(with(&minimal, &extra_name, v));
            out.push(with(&full, &extra_name, v));
        }
        let counts = parts
            .iter()
            .chain(new)
            .flat_map(|s| [s.min_properties, s.max_properties])
            .flatten();
        if let Some(v) = extras.first() {
            for m in counts {
                let m = usize::try_from(m).unwrap_or(usize::MAX).min(64);
                for base in [&minimal, &full] {
                    let mut d = base.clone();
                    let mut k = 0;
                    while d.len() < m + 1 {
                        d.insert(format!("{extra_name}{k}"), v.clone());
                        k += 1;
                    }
                    out.push(d.clone());
                    if m > 0 {
                        while d.len() > m {
                            let Some(last) = d.keys().last().cloned() else {
                                break;
                            };
                            d.remove(&last);
                        }
                        out.push(d);
                    }
                }
            }
        }
    }
    // Other `_id` values last: an ObjectId is what the server adds.
    if root && let Some((_, vs)) = fields.iter().find(|(name, _)| name == "_id") {
        for v in vs.iter().skip(1) {
            out.push(with(&minimal, "_id", v));
            out.push(with(&full, "_id", v));
        }
    }
    out
}
