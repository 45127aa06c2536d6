//! The containment proof: whether every value one `$jsonSchema` accepts, another accepts too,
//! decided over the IR with sound, deliberately incomplete rules.
//!
//! The old schema is read as a conjunction of nodes (`allOf` flattened into it) and split into
//! cases at each `anyOf`/`oneOf` (a `oneOf` is over-approximated by the `anyOf` of its branches,
//! and an old `not` is dropped: a larger old set only makes the proof harder, never wrong). In
//! each case every keyword of the new schema must follow from some old node:
//! - `bsonType`/`type`: the set of types the old nodes all allow (`number` = int, long, double,
//!   decimal; the top level is always an object) must be inside the new set;
//! - `minimum`/`maximum` with exclusivity, compared exactly across number types by the
//!   evaluator's comparison; `int`/`long`-only values carry their type's range; `multipleOf`:
//!   the old divisor is an exact decimal multiple of the new one (or the values are integers
//!   and the new divisor divides 1);
//! - string, array and object counts; `uniqueItems`; `required` (new within old);
//! - `pattern`, `patternProperties` names and `encrypt`: only identical strings and documents
//!   are known to mean the same (a property name is matched against a pattern with the
//!   evaluator);
//! - `properties`, `items` (one schema or positional, with `additionalItems`) and
//!   `additionalProperties`, recursively, an absent schema meaning anything;
//! - `enum` in the old schema: decided exactly, by evaluating each member under both schemas;
//!   a new `enum` without an old one is not proven;
//! - `dependencies`: identical, or implied by old `required` or old dependencies;
//! - new `allOf`: every member; new `anyOf`: some branch contains the case; new `oneOf` and
//!   `not`: only an identical old subtree (or, for `not`, a branch of disjoint types);
//! - `title` and `description` are ignored; keywords the IR does not model are not proven.
//!
//! A type is left out of a case when the old nodes contradict themselves on it (more required
//! names than `maxProperties`, `minLength` above `maxLength`, ...). At the top level `_id` counts
//! as required: the server adds it before validating, so every stored document has one (and a
//! schema that forbids `_id` accepts no stored document).

use std::cmp::Ordering;

use bson::{Bson, Document, RawDocumentBuf};

use crate::eval::Validator;
use crate::schema::{Additional, BsonType, Dependency, Items, JsonSchema};
use crate::value::number::{Dec, Num, cmp_num, is_multiple};

/// Why containment was not shown.
pub type Reason = String;

/// How many subset questions one proof may ask before giving up.
const BUDGET: usize = 20_000;
/// How deep the proof follows nested schemas.
const MAX_DEPTH: usize = 24;

/// Whether every document `old` accepts, `new` accepts too.
///
/// # Errors
/// The first thing the rules could not show, in words (`property "age" is newly required`).
pub fn contains(old: &JsonSchema, new: &JsonSchema) -> Result<(), Reason> {
    Prover { asked: 0 }.subset(&[old], new, true, 0)
}

/// A copy of the schema without `title` and `description` anywhere: they never change a verdict.
pub fn without_annotations(s: &JsonSchema) -> JsonSchema {
    let sub = |x: &JsonSchema| without_annotations(x);
    let list = |v: &Option<Vec<JsonSchema>>| v.as_ref().map(|v| v.iter().map(sub).collect());
    let extra = |a: &Option<Additional>| match a {
        Some(Additional::Schema(x)) => Some(Additional::Schema(Box::new(sub(x)))),
        other => other.clone(),
    };
    JsonSchema {
        title: None,
        description: None,
        dependencies_title: None,
        dependencies_description: None,
        items: match &s.items {
            Some(Items::Single(x)) => Some(Items::Single(Box::new(sub(x)))),
            Some(Items::Positional(v)) => Some(Items::Positional(v.iter().map(sub).collect())),
            None => None,
        },
        additional_items: extra(&s.additional_items),
        properties: s
            .properties
            .iter()
            .map(|(k, v)| (k.clone(), sub(v)))
            .collect(),
        pattern_properties: s
            .pattern_properties
            .iter()
            .map(|(k, v)| (k.clone(), sub(v)))
            .collect(),
        additional_properties: extra(&s.additional_properties),
        dependencies: s
            .dependencies
            .iter()
            .map(|(k, d)| {
                let d = match d {
                    Dependency::Schema(x) => Dependency::Schema(Box::new(sub(x))),
                    other => other.clone(),
                };
                (k.clone(), d)
            })
            .collect(),
        all_of: list(&s.all_of),
        any_of: list(&s.any_of),
        one_of: list(&s.one_of),
        not: s.not.as_ref().map(|x| Box::new(sub(x))),
        ..s.clone()
    }
}

/// A set of concrete BSON types, one bit per [`BsonType::ALL`] position (never `Number`).
pub(crate) type Types = u32;

/// Every concrete type.
pub(crate) const ALL_TYPES: Types = (1 << 21) - 1;

pub(crate) fn bit(t: BsonType) -> Types {
    match t {
        BsonType::Number => {
            bit(BsonType::Int)
                | bit(BsonType::Long)
                | bit(BsonType::Double)
                | bit(BsonType::Decimal)
        }
        _ => {
            let i = BsonType::ALL
                .iter()
                .position(|&x| x == t)
                .expect("every alias is listed");
            1 << i
        }
    }
}

pub(crate) fn numeric() -> Types {
    bit(BsonType::Number)
}

/// The types a node allows by its own `bsonType`/`type`.
pub(crate) fn types_of(s: &JsonSchema) -> Types {
    match s.allowed_types() {
        None => ALL_TYPES,
        Some(ts) => ts.into_iter().fold(0, |m, t| m | bit(t)),
    }
}

/// The concrete types in a set, in [`BsonType::ALL`] order.
pub(crate) fn members(types: Types) -> Vec<BsonType> {
    BsonType::ALL
        .into_iter()
        .filter(|&t| t != BsonType::Number && types & bit(t) != 0)
        .collect()
}

/// Appends `node` and, recursively, its `allOf` members: the conjunction it stands for.
pub(crate) fn flatten<'a>(node: &'a JsonSchema, out: &mut Vec<&'a JsonSchema>) {
    out.push(node);
    for m in node.all_of.iter().flatten() {
        flatten(m, out);
    }
}

/// The disjunctions (`anyOf`, and `oneOf` read as `anyOf`) of a list of nodes.
pub(crate) fn disjunctions<'a>(nodes: &[&'a JsonSchema]) -> Vec<&'a [JsonSchema]> {
    let mut out = Vec::new();
    for n in nodes {
        if let Some(v) = &n.any_of {
            out.push(v.as_slice());
        }
        if let Some(v) = &n.one_of {
            out.push(v.as_slice());
        }
    }
    out
}

/// A compiled check of values at a position below the top level: the schema under a required
/// property `v` of a wrapping document.
pub(crate) struct ValueCheck(Option<Validator>);

impl ValueCheck {
    pub(crate) fn new(s: &JsonSchema) -> ValueCheck {
        let mut w = JsonSchema {
            required: Some(vec!["v".to_string()]),
            ..JsonSchema::default()
        };
        w.properties.insert("v".to_string(), s.clone());
        ValueCheck(Validator::new(&w).ok())
    }

    /// Whether the schema accepts `value`; `None` when it cannot tell (a schema that does not
    /// compile, a value that does not serialize).
    pub(crate) fn accepts(&self, value: &Bson) -> Option<bool> {
        let v = self.0.as_ref()?;
        let mut d = Document::new();
        d.insert("v", value.clone());
        let raw = RawDocumentBuf::try_from(&d).ok()?;
        Some(v.is_valid(&raw))
    }
}

/// Whether `s` accepts `value`, by the evaluator; `None` when it cannot tell. At the top level
/// a value is a document.
pub(crate) fn accepts(s: &JsonSchema, value: &Bson, root: bool) -> Option<bool> {
    if !root {
        return ValueCheck::new(s).accepts(value);
    }
    let Bson::Document(d) = value else {
        // The top level is a document: anything else is never stored.
        return Some(false);
    };
    let v = Validator::new(s).ok()?;
    let raw = RawDocumentBuf::try_from(d).ok()?;
    Some(v.is_valid(&raw))
}

/// Whether a property name matches a `patternProperties` pattern, by the evaluator's PCRE2.
pub(crate) fn name_matches(pattern: &str, name: &str) -> Option<bool> {
    let s = JsonSchema {
        pattern: Some(pattern.to_string()),
        ..JsonSchema::default()
    };
    accepts(&s, &Bson::String(name.to_string()), false)
}

/// What the old nodes say about one property.
enum OldProp<'a> {
    /// The property cannot be present.
    Absent,
    /// When present, its value matches all of these.
    Present(Vec<&'a JsonSchema>),
}

/// The most properties an old object can have: its `maxProperties`.
///
/// Not the names a closed node lists: BSON allows a name twice in one document, and each
/// occurrence counts toward `maxProperties` while only the first is checked.
fn max_count(parts: &[&JsonSchema]) -> Option<u64> {
    parts.iter().filter_map(|p| p.max_properties).min()
}

/// [`old_prop`], and absent when the required names (with `_id` at the top level) already
/// fill the property count.
fn old_prop_at<'a>(parts: &[&'a JsonSchema], name: &str, root: bool) -> OldProp<'a> {
    let required = required_names(parts, root);
    if !required.contains(&name) && max_count(parts).is_some_and(|m| required.len() as u64 >= m) {
        return OldProp::Absent;
    }
    old_prop(parts, name)
}

/// The old constraints on property `name`. Patterns the evaluator cannot match are ignored,
/// which only loses old constraints (sound).
fn old_prop<'a>(parts: &[&'a JsonSchema], name: &str) -> OldProp<'a> {
    let mut out = Vec::new();
    for p in parts {
        let mut named = false;
        let mut unsure = false;
        if let Some(s) = p.properties.get(name) {
            out.push(s);
            named = true;
        }
        for (pat, s) in &p.pattern_properties {
            match name_matches(pat, name) {
                Some(true) => {
                    out.push(s);
                    named = true;
                }
                Some(false) => {}
                None => unsure = true,
            }
        }
        if !named && !unsure {
            match &p.additional_properties {
                Some(Additional::Allowed(false)) => return OldProp::Absent,
                Some(Additional::Schema(s)) => out.push(s),
                _ => {}
            }
        }
    }
    OldProp::Present(out)
}

/// The names every old value has. At the top level that includes `_id`: the server adds it
/// before validating, so every stored document has one.
fn required_names<'a>(parts: &[&'a JsonSchema], root: bool) -> Vec<&'a str> {
    let mut names: Vec<&str> = Vec::new();
    if root {
        names.push("_id");
    }
    for name in parts.iter().flat_map(|p| p.required.iter().flatten()) {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    names
}

/// The types no value of the old conjunction can have, by contradictory counts: such parts of
/// the old side accept nothing and need no proof.
fn impossible(parts: &[&JsonSchema], root: bool) -> Types {
    let max = |f: fn(&JsonSchema) -> Option<u64>| parts.iter().filter_map(|p| f(p)).min();
    let min = |f: fn(&JsonSchema) -> Option<u64>| parts.iter().filter_map(|p| f(p)).max();
    let mut out = 0;
    let required = required_names(parts, root);
    let max_properties = max_count(parts);
    let objects = max_properties.is_some_and(|m| {
        (required.len() as u64) > m || min(|p| p.min_properties).is_some_and(|n| n > m)
    }) || required
        .iter()
        .any(|name| matches!(old_prop(parts, name), OldProp::Absent));
    if objects {
        out |= bit(BsonType::Object);
    }
    if let (Some(lo), Some(hi)) = (min(|p| p.min_length), max(|p| p.max_length))
        && lo > hi
    {
        out |= bit(BsonType::String);
    }
    if let (Some(lo), Some(hi)) = (min(|p| p.min_items), max(|p| p.max_items))
        && lo > hi
    {
        out |= bit(BsonType::Array);
    }
    out
}

/// What a new schema says about element `i` of an array.
enum NewElem<'a> {
    Any,
    Forbidden,
    Schema(&'a JsonSchema),
}

fn new_elem(new: &JsonSchema, i: usize) -> NewElem<'_> {
    match &new.items {
        None => NewElem::Any,
        Some(Items::Single(s)) => NewElem::Schema(s),
        Some(Items::Positional(list)) => match list.get(i) {
            Some(s) => NewElem::Schema(s),
            None => match &new.additional_items {
                Some(Additional::Allowed(false)) => NewElem::Forbidden,
                Some(Additional::Schema(s)) => NewElem::Schema(s),
                _ => NewElem::Any,
            },
        },
    }
}

/// The constraints of `parts` on array element `i`, `None` when no element can be there (the
/// containment proof and the counterexample search both read elements this way).
pub(super) fn old_elem<'a>(parts: &[&'a JsonSchema], i: usize) -> Option<Vec<&'a JsonSchema>> {
    let mut out = Vec::new();
    for p in parts {
        match &p.items {
            None => {}
            Some(Items::Single(s)) => out.push(&**s),
            Some(Items::Positional(list)) => match list.get(i) {
                Some(s) => out.push(s),
                None => match &p.additional_items {
                    Some(Additional::Allowed(false)) => return None,
                    Some(Additional::Schema(s)) => out.push(&**s),
                    _ => {}
                },
            },
        }
    }
    Some(out)
}

pub(super) fn positional_len(s: &JsonSchema) -> usize {
    match &s.items {
        Some(Items::Positional(list)) => list.len(),
        _ => 0,
    }
}

/// A lower (or upper) bound known for the old values: the number and whether it is exclusive.
type Bound = (Num, bool);

/// Whether old values bounded by `old` satisfy the new bound `new` on the same side.
fn bound_implies(old: Bound, new: Bound, is_min: bool) -> bool {
    let ord = cmp_num(old.0, new.0);
    let tighter = if is_min {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    ord == tighter || (ord == Ordering::Equal && (old.1 || !new.1))
}

struct Prover {
    asked: usize,
}

impl Prover {
    /// Whether every value matching all of `old` matches `new`.
    fn subset(
        &mut self,
        old: &[&JsonSchema],
        new: &JsonSchema,
        root: bool,
        depth: usize,
    ) -> Result<(), Reason> {
        self.asked += 1;
        if self.asked > BUDGET {
            return Err("the proof grew too large".to_string());
        }
        if depth > MAX_DEPTH {
            return Err("the schemas nest too deeply to compare".to_string());
        }
        let mut parts = Vec::new();
        for o in old {
            flatten(o, &mut parts);
        }
        let pending = disjunctions(&parts);
        self.cases(parts, pending, new, root, depth)
    }

    /// Splits the old conjunction at its first pending disjunction, one case per branch.
    fn cases<'a>(
        &mut self,
        parts: Vec<&'a JsonSchema>,
        mut pending: Vec<&'a [JsonSchema]>,
        new: &JsonSchema,
        root: bool,
        depth: usize,
    ) -> Result<(), Reason> {
        if pending.is_empty() {
            return self.leaf(&parts, new, root, depth);
        }
        // Equal disjunctions on both sides hold without splitting.
        if let Some(any) = &new.any_of
            && parts.iter().any(|p| p.any_of.as_ref() == Some(any))
        {
            let rest = JsonSchema {
                any_of: None,
                ..new.clone()
            };
            return self.cases(parts, pending, &rest, root, depth);
        }
        let branches = pending.remove(0);
        for b in branches {
            self.asked += 1;
            if self.asked > BUDGET {
                return Err("the proof grew too large".to_string());
            }
            let mut p = parts.clone();
            let start = p.len();
            flatten(b, &mut p);
            let mut q = pending.clone();
            q.extend(disjunctions(&p[start..]));
            self.cases(p, q, new, root, depth)?;
        }
        Ok(())
    }

    /// One case: the old side is a plain conjunction (its disjunctions already chosen).
    fn leaf(
        &mut self,
        parts: &[&JsonSchema],
        new: &JsonSchema,
        root: bool,
        depth: usize,
    ) -> Result<(), Reason> {
        if new.is_any() {
            return Ok(());
        }
        let plain = without_annotations(new);
        if parts.iter().any(|p| without_annotations(p) == plain) {
            return Ok(());
        }
        let mut types = parts.iter().fold(ALL_TYPES, |m, p| m & types_of(p));
        if root {
            types &= bit(BsonType::Object);
        }
        types &= !impossible(parts, root);
        if types == 0 {
            // The old side accepts nothing here.
            return Ok(());
        }
        if let Some(members) = parts
            .iter()
            .filter_map(|p| p.enumeration.as_ref())
            .min_by_key(|e| e.len())
        {
            return enum_subset(parts, members, new, root);
        }
        let new_types = types_of(new);
        if types & !new_types != 0 {
            let names: Vec<&str> = members(types & !new_types)
                .into_iter()
                .map(BsonType::as_str)
                .collect();
            return Err(format!(
                "values of type {} are accepted today and not by the new bsonType",
                names.join(", ")
            ));
        }
        if new.enumeration.is_some() {
            return Err("the new enum lists values the old schema does not bound".to_string());
        }
        if !new.other.is_empty() && !parts.iter().any(|p| p.other == new.other) {
            return Err("the new schema holds keywords the proof does not model".to_string());
        }
        if let Some(e) = &new.encrypt
            && !parts.iter().any(|p| p.encrypt.as_ref() == Some(e))
        {
            return Err("a new or changed encrypt".to_string());
        }
        // String, number and array keywords do not apply at the top level (always a document).
        if !root && types & numeric() != 0 {
            numbers(parts, new, types)?;
        }
        if !root && types & bit(BsonType::String) != 0 {
            strings(parts, new)?;
        }
        if !root && types & bit(BsonType::Array) != 0 {
            self.arrays(parts, new, depth)?;
        }
        if types & bit(BsonType::Object) != 0 {
            self.objects(parts, new, root, depth)?;
        }
        self.combinators(parts, new, types, root, depth)
    }

    fn combinators(
        &mut self,
        parts: &[&JsonSchema],
        new: &JsonSchema,
        types: Types,
        root: bool,
        depth: usize,
    ) -> Result<(), Reason> {
        for m in new.all_of.iter().flatten() {
            self.leaf(parts, m, root, depth)?;
        }
        if let Some(branches) = &new.any_of
            && !parts.iter().any(|p| p.any_of.as_ref() == Some(branches))
        {
            let mut first = None;
            let mut proven = false;
            for b in branches {
                match self.leaf(parts, b, root, depth) {
                    Ok(()) => {
                        proven = true;
                        break;
                    }
                    Err(e) => {
                        first.get_or_insert(e);
                    }
                }
            }
            if !proven {
                return Err(format!(
                    "no branch of the new anyOf accepts everything the old schema does ({})",
                    first.unwrap_or_default()
                ));
            }
        }
        if let Some(branches) = &new.one_of {
            let plain: Vec<JsonSchema> = branches.iter().map(without_annotations).collect();
            let same = parts.iter().any(|p| {
                p.one_of
                    .as_ref()
                    .is_some_and(|o| o.iter().map(without_annotations).eq(plain.iter().cloned()))
            });
            if !same {
                return Err(
                    "a new or changed oneOf (only an identical oneOf is proven)".to_string()
                );
            }
        }
        if let Some(not) = &new.not {
            let plain = without_annotations(not);
            let same = parts.iter().any(|p| {
                p.not
                    .as_ref()
                    .is_some_and(|o| without_annotations(o) == plain)
            });
            // A `not` whose own types the old values never have always holds.
            let disjoint = types & types_of(not) == 0;
            if !same && !disjoint {
                return Err("a new or changed not (only an identical not is proven)".to_string());
            }
        }
        Ok(())
    }

    fn arrays(
        &mut self,
        parts: &[&JsonSchema],
        new: &JsonSchema,
        depth: usize,
    ) -> Result<(), Reason> {
        let mut old_min = 0;
        let mut old_max = u64::MAX;
        for p in parts {
            old_min = old_min.max(p.min_items.unwrap_or(0));
            old_max = old_max.min(p.max_items.unwrap_or(u64::MAX));
            if let Some(Items::Positional(list)) = &p.items
                && p.additional_items == Some(Additional::Allowed(false))
            {
                old_max = old_max.min(list.len() as u64);
            }
        }
        if let Some(m) = new.min_items
            && old_min < m
        {
            return Err(format!(
                "arrays of {} are accepted today, the new minItems is {m}",
                crate::plural::count(old_min, "item")
            ));
        }
        if let Some(m) = new.max_items
            && old_max > m
        {
            return Err(format!(
                "arrays longer than the new maxItems {m} are accepted today"
            ));
        }
        if new.unique_items == Some(true)
            && old_max > 1
            && !parts.iter().any(|p| p.unique_items == Some(true))
        {
            return Err(
                "arrays with duplicates are accepted today, the new schema has uniqueItems"
                    .to_string(),
            );
        }
        if new.items.is_none() {
            return Ok(());
        }
        // Positions past every positional list behave alike: check one of them.
        let last = parts
            .iter()
            .map(|p| positional_len(p))
            .chain([positional_len(new)])
            .max()
            .unwrap_or(0);
        for i in 0..=last {
            if i as u64 >= old_max {
                break;
            }
            let Some(old) = old_elem(parts, i) else {
                break;
            };
            match new_elem(new, i) {
                NewElem::Any => {}
                NewElem::Forbidden => {
                    return Err(format!(
                        "arrays with an item at position {i} are accepted today and the new additionalItems is false"
                    ));
                }
                NewElem::Schema(s) => self
                    .subset(&old, s, false, depth + 1)
                    .map_err(|e| format!("items.{i}: {e}"))?,
            }
        }
        Ok(())
    }

    fn objects(
        &mut self,
        parts: &[&JsonSchema],
        new: &JsonSchema,
        root: bool,
        depth: usize,
    ) -> Result<(), Reason> {
        let old_required = required_names(parts, root);
        for name in new.required.iter().flatten() {
            if !old_required.contains(&name.as_str()) {
                return Err(format!("property {name:?} is newly required"));
            }
        }
        if let Some(m) = new.min_properties {
            let old_min = parts
                .iter()
                .filter_map(|p| p.min_properties)
                .max()
                .unwrap_or(0)
                .max(old_required.len() as u64);
            if old_min < m {
                return Err(format!(
                    "objects with {old_min} properties are accepted today, the new minProperties is {m}"
                ));
            }
        }
        if let Some(m) = new.max_properties {
            let old_max = max_count(parts).unwrap_or(u64::MAX);
            if old_max > m {
                return Err(format!(
                    "objects with more than the new maxProperties {m} are accepted today"
                ));
            }
        }
        for (name, s) in &new.properties {
            if let OldProp::Present(old) = old_prop_at(parts, name, root) {
                self.subset(&old, s, false, depth + 1)
                    .map_err(|e| format!("{name}: {e}"))?;
            }
        }
        for (pattern, s) in &new.pattern_properties {
            self.pattern_property(parts, pattern, s, root, depth)?;
        }
        match &new.additional_properties {
            None | Some(Additional::Allowed(true)) => {}
            Some(Additional::Allowed(false)) => self.additional(parts, new, None, root, depth)?,
            // A schema that accepts anything is `true`.
            Some(Additional::Schema(s)) if self.subset(&[], s, false, depth + 1).is_ok() => {}
            Some(Additional::Schema(s)) => self.additional(parts, new, Some(s), root, depth)?,
        }
        for (name, dep) in &new.dependencies {
            self.dependency(parts, name, dep, root, depth)?;
        }
        Ok(())
    }

    /// New `patternProperties` entry `pattern: s`: every old value under a matching name fits `s`.
    fn pattern_property(
        &mut self,
        parts: &[&JsonSchema],
        pattern: &str,
        s: &JsonSchema,
        root: bool,
        depth: usize,
    ) -> Result<(), Reason> {
        if s.is_any() {
            return Ok(());
        }
        // The same pattern in an old node constrains every name it matches.
        let same: Vec<&JsonSchema> = parts
            .iter()
            .filter_map(|p| p.pattern_properties.get(pattern))
            .collect();
        if !same.is_empty() && self.subset(&same, s, false, depth + 1).is_ok() {
            return Ok(());
        }
        // A closed old node lists every name a document may have.
        for p in parts {
            if p.additional_properties != Some(Additional::Allowed(false)) {
                continue;
            }
            let mut ok = true;
            // Names matching another pattern may match this one too.
            for qs in p.pattern_properties.values() {
                if self.subset(&[qs], s, false, depth + 1).is_err() {
                    ok = false;
                }
            }
            for name in p.properties.keys() {
                match name_matches(pattern, name) {
                    Some(false) => {}
                    _ => {
                        if let OldProp::Present(old) = old_prop_at(parts, name, root)
                            && self.subset(&old, s, false, depth + 1).is_err()
                        {
                            ok = false;
                        }
                    }
                }
            }
            if ok {
                return Ok(());
            }
        }
        Err(format!(
            "new patternProperties {pattern:?}: names it matches may hold other values today"
        ))
    }

    /// New `additionalProperties`: `None` for false, else its schema.
    fn additional(
        &mut self,
        parts: &[&JsonSchema],
        new: &JsonSchema,
        target: Option<&JsonSchema>,
        root: bool,
        depth: usize,
    ) -> Result<(), Reason> {
        // Whether `name` is an additional property for the new schema: `None` when unsure.
        let is_additional = |name: &str| -> Option<bool> {
            if new.properties.contains_key(name) {
                return Some(false);
            }
            let mut unsure = false;
            for p in new.pattern_properties.keys() {
                match name_matches(p, name) {
                    Some(true) => return Some(false),
                    Some(false) => {}
                    None => unsure = true,
                }
            }
            if unsure { None } else { Some(true) }
        };
        let fits = |this: &mut Prover, old: OldProp<'_>| -> bool {
            match (old, target) {
                (OldProp::Absent, _) => true,
                (OldProp::Present(_), None) => false,
                (OldProp::Present(old), Some(s)) => this.subset(&old, s, false, depth + 1).is_ok(),
            }
        };
        let what = match target {
            None => "false",
            Some(_) => "a schema",
        };
        // Names listed by any old node.
        let mut listed: Vec<&String> = parts.iter().flat_map(|p| p.properties.keys()).collect();
        listed.dedup();
        for name in listed {
            if is_additional(name) != Some(false) && !fits(self, old_prop_at(parts, name, root)) {
                return Err(format!(
                    "property {name:?} is accepted today and the new additionalProperties is {what}"
                ));
            }
        }
        // Names no old node lists: some old node must bound them, by patterns and its own
        // additionalProperties.
        for p in parts {
            let fresh = match &p.additional_properties {
                Some(Additional::Allowed(false)) => OldProp::Absent,
                Some(Additional::Schema(s)) => OldProp::Present(vec![s]),
                _ => continue,
            };
            let mut ok = fits(self, fresh);
            for (q, qs) in &p.pattern_properties {
                let known = new.pattern_properties.contains_key(q);
                if !known && !fits(self, OldProp::Present(vec![qs])) {
                    ok = false;
                }
            }
            if ok {
                return Ok(());
            }
        }
        Err(format!(
            "other properties are accepted today and the new additionalProperties is {what}"
        ))
    }

    fn dependency(
        &mut self,
        parts: &[&JsonSchema],
        name: &str,
        dep: &Dependency,
        root: bool,
        depth: usize,
    ) -> Result<(), Reason> {
        if matches!(old_prop_at(parts, name, root), OldProp::Absent) {
            return Ok(());
        }
        let old_deps: Vec<&Dependency> = parts
            .iter()
            .filter_map(|p| p.dependencies.get(name))
            .collect();
        if old_deps.contains(&dep) {
            return Ok(());
        }
        match dep {
            Dependency::Properties(list) => {
                for l in list {
                    let required = parts
                        .iter()
                        .any(|p| p.required.iter().flatten().any(|r| r == l));
                    let implied = old_deps
                        .iter()
                        .any(|d| matches!(d, Dependency::Properties(o) if o.contains(l)));
                    if !required && !implied {
                        return Err(format!("dependency {name:?} -> {l:?} is new"));
                    }
                }
                Ok(())
            }
            Dependency::Schema(s) => {
                let mut with: Vec<&JsonSchema> = parts.to_vec();
                for d in old_deps {
                    if let Dependency::Schema(o) = d {
                        with.push(o);
                    }
                }
                self.subset(&with, s, root, depth + 1)
                    .map_err(|e| format!("dependency {name:?}: {e}"))
            }
        }
    }
}

/// The old values are enum members: decide exactly by evaluating each under both sides.
fn enum_subset(
    parts: &[&JsonSchema],
    members: &[Bson],
    new: &JsonSchema,
    root: bool,
) -> Result<(), Reason> {
    for m in members {
        let mut old_ok = true;
        for p in parts {
            match accepts(p, m, root) {
                Some(true) => {}
                Some(false) => {
                    old_ok = false;
                    break;
                }
                None => return Err(format!("cannot evaluate the enum member {m}")),
            }
        }
        if old_ok && accepts(new, m, root) != Some(true) {
            return Err(format!("{m} is accepted today and not by the new schema"));
        }
    }
    Ok(())
}

fn numbers(parts: &[&JsonSchema], new: &JsonSchema, types: Types) -> Result<(), Reason> {
    let numbers = types & numeric();
    let mut lows: Vec<Bound> = Vec::new();
    let mut highs: Vec<Bound> = Vec::new();
    let mut divisors: Vec<Dec> = Vec::new();
    for p in parts {
        if let Some(m) = p.minimum {
            lows.push((m.to_num(), p.exclusive_minimum.unwrap_or(false)));
        }
        if let Some(m) = p.maximum {
            highs.push((m.to_num(), p.exclusive_maximum.unwrap_or(false)));
        }
        if let Some(m) = p.multiple_of {
            divisors.push(m.to_num().to_dec15());
        }
    }
    // Integers carry their type's range and are multiples of 1.
    let int = bit(BsonType::Int);
    let long = bit(BsonType::Long);
    if numbers & !int == 0 {
        lows.push((Num::Int(i64::from(i32::MIN)), false));
        highs.push((Num::Int(i64::from(i32::MAX)), false));
    } else if numbers & !(int | long) == 0 {
        lows.push((Num::Int(i64::MIN), false));
        highs.push((Num::Int(i64::MAX), false));
    }
    if numbers & !(int | long) == 0 {
        divisors.push(Dec::from_i64(1));
    }
    // NaN as a bound satisfies only NaN: the rules below assume an order.
    lows.retain(|b| !b.0.is_nan());
    highs.retain(|b| !b.0.is_nan());
    if let Some(m) = new.minimum {
        let b = (m.to_num(), new.exclusive_minimum.unwrap_or(false));
        if b.0.is_nan() || !lows.iter().any(|&l| bound_implies(l, b, true)) {
            return Err(format!(
                "numbers below the new minimum {m} are accepted today"
            ));
        }
    }
    if let Some(m) = new.maximum {
        let b = (m.to_num(), new.exclusive_maximum.unwrap_or(false));
        if b.0.is_nan() || !highs.iter().any(|&h| bound_implies(h, b, false)) {
            return Err(format!(
                "numbers above the new maximum {m} are accepted today"
            ));
        }
    }
    if let Some(m) = new.multiple_of {
        let d = m.to_num().to_dec15();
        if !divisors.iter().any(|&o| is_multiple(o, d)) {
            return Err(format!(
                "numbers that are not multiples of {m} are accepted today"
            ));
        }
    }
    Ok(())
}

fn strings(parts: &[&JsonSchema], new: &JsonSchema) -> Result<(), Reason> {
    if let Some(m) = new.min_length {
        let old = parts.iter().filter_map(|p| p.min_length).max().unwrap_or(0);
        if old < m {
            return Err(format!(
                "strings of {old} characters are accepted today, the new minLength is {m}"
            ));
        }
    }
    if let Some(m) = new.max_length {
        let old = parts
            .iter()
            .filter_map(|p| p.max_length)
            .min()
            .unwrap_or(u64::MAX);
        if old > m {
            return Err(format!(
                "strings longer than the new maxLength {m} are accepted today"
            ));
        }
    }
    if let Some(p) = &new.pattern
        && !parts.iter().any(|o| o.pattern.as_ref() == Some(p))
    {
        return Err(format!(
            "a new or changed pattern {p:?} (only an identical pattern is proven)"
        ));
    }
    Ok(())
}
