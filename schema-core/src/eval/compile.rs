//! IR -> compiled form: one [`Node`] per schema node, with type bitmasks, decoded bounds,
//! precompiled patterns, enum members as raw BSON, and property names in a slot table (hashed
//! when an object names many properties), so evaluation never rebuilds anything per document.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::schema::{Additional, BsonType, Dependency, Items, JsonSchema, parse::ParseError};
use crate::value::compare::to_raw_value;
use crate::value::number::{Dec, Num};
use crate::value::pattern::{self, Pattern};
use crate::value::raw::{head_word, ty};

/// The type bit of every element type byte (MinKey and MaxKey get bits 20 and 21).
const TYPE_BITS: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut t = 1;
    while t < 20 {
        table[t] = 1 << t;
        t += 1;
    }
    table[ty::MIN_KEY as usize] = 1 << 20;
    table[ty::MAX_KEY as usize] = 1 << 21;
    table
};

/// The type bit of an element type byte.
#[inline]
pub(crate) fn type_bit(t: u8) -> u32 {
    TYPE_BITS[t as usize]
}

fn alias_bits(t: BsonType) -> u32 {
    use BsonType as B;
    match t {
        B::Number => {
            type_bit(ty::INT32) | type_bit(ty::INT64) | type_bit(ty::DOUBLE) | type_bit(ty::DECIMAL)
        }
        B::Double => type_bit(ty::DOUBLE),
        B::String => type_bit(ty::STRING),
        B::Object => type_bit(ty::DOCUMENT),
        B::Array => type_bit(ty::ARRAY),
        B::BinData => type_bit(ty::BINARY),
        B::Undefined => type_bit(ty::UNDEFINED),
        B::ObjectId => type_bit(ty::OBJECT_ID),
        B::Bool => type_bit(ty::BOOL),
        B::Date => type_bit(ty::DATE),
        B::Null => type_bit(ty::NULL),
        B::Regex => type_bit(ty::REGEX),
        B::DbPointer => type_bit(ty::DB_POINTER),
        B::JavaScript => type_bit(ty::CODE),
        B::Symbol => type_bit(ty::SYMBOL),
        B::JavaScriptWithScope => type_bit(ty::CODE_WITH_SCOPE),
        B::Int => type_bit(ty::INT32),
        B::Timestamp => type_bit(ty::TIMESTAMP),
        B::Long => type_bit(ty::INT64),
        B::Decimal => type_bit(ty::DECIMAL),
        B::MinKey => type_bit(ty::MIN_KEY),
        B::MaxKey => type_bit(ty::MAX_KEY),
    }
}

/// `encrypt`: what an encrypted value must be.
///
/// The server turns `encrypt` into `$_internalSchemaBinDataSubType: 6` and, when `encrypt` has a
/// `bsonType`, `$_internalSchemaBinDataEncryptedType` with that type set (`json_schema_parser.cpp`
/// `translateEncryptionKeywords`). The second reads the FLE blob header in the binData payload
/// (`expression_type.h`, `FleBlobHeader`): one byte of blob subtype, the 16-byte key UUID, then
/// the original value's BSON type byte at offset 17. Only blob subtypes 1 (deterministic) and
/// 2 (random) are matched against the type set; a payload shorter than the 18-byte header or
/// with any other blob subtype does not match. (A blob subtype the server's `EncryptedBinDataType`
/// enum does not know makes the server fail the write with BadValue rather than report a
/// validation error; here it is a rejection too, reported as the wrong type.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encrypt {
    /// `encrypt` without `bsonType`: binData subtype 6 is enough.
    Any,
    /// `encrypt.bsonType`: the original types allowed, as type bits (`number` sets four).
    Types(u32),
}

/// How a value fares against [`Encrypt`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EncryptOutcome {
    /// The value satisfies `encrypt`.
    Holds,
    /// Not binData subtype 6: errInfo reason "value was not encrypted".
    NotEncrypted,
    /// Encrypted, but the blob header does not name an allowed original type: errInfo reason
    /// "encrypted value has wrong type".
    WrongType,
}

/// FLE blob header length: blob subtype, key UUID, original BSON type.
const FLE_BLOB_HEADER: usize = 18;

impl Encrypt {
    /// Judges a value of element type `t` with value bytes `v` (for binData: length, subtype,
    /// payload).
    #[inline]
    pub(crate) fn judge(self, t: u8, v: &[u8]) -> EncryptOutcome {
        if t != ty::BINARY || v.get(4) != Some(&6) {
            return EncryptOutcome::NotEncrypted;
        }
        let Encrypt::Types(mask) = self else {
            return EncryptOutcome::Holds;
        };
        let blob = v.get(5..).unwrap_or_default();
        let holds = blob.len() >= FLE_BLOB_HEADER
            && matches!(blob[0], 1 | 2)
            && type_bit(blob[FLE_BLOB_HEADER - 1]) & mask != 0;
        if holds {
            EncryptOutcome::Holds
        } else {
            EncryptOutcome::WrongType
        }
    }
}

/// Why a schema could not be compiled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// The schema is one the server rejects (an IR built by hand can hold anything).
    #[error(transparent)]
    Rejected(#[from] ParseError),
}

/// `enum` members as raw BSON values, decoded once.
#[derive(Debug)]
pub(crate) struct EnumSet {
    /// Each member as its element type and value bytes.
    pub members: Vec<(u8, Box<[u8]>)>,
    /// The numeric members when every one is an int or a long: an int or long value is in the
    /// set exactly when it is one of these (no double or decimal member can equal it then).
    pub ints: Option<Vec<i64>>,
}

impl EnumSet {
    fn new(values: &[bson::Bson]) -> EnumSet {
        let members: Vec<(u8, Box<[u8]>)> = values
            .iter()
            .map(|v| {
                let wrapper = to_raw_value(v);
                let e = crate::value::compare::first_elem(&wrapper)
                    .expect("a serialized value reads back");
                (e.ty, e.value.into())
            })
            .collect();
        let mut ints = Some(Vec::new());
        for v in values {
            match v {
                bson::Bson::Int32(i) => ints.iter_mut().for_each(|s| s.push(i64::from(*i))),
                bson::Bson::Int64(i) => ints.iter_mut().for_each(|s| s.push(*i)),
                bson::Bson::Double(_) | bson::Bson::Decimal128(_) => ints = None,
                _ => {}
            }
        }
        EnumSet { members, ints }
    }
}

/// Number keywords.
#[derive(Debug)]
pub(crate) struct NumRules {
    pub minimum: Option<Bound>,
    pub maximum: Option<Bound>,
    pub multiple_of: Option<Dec>,
    /// The bounds as doubles when both convert exactly and there is no `multipleOf`: then an int
    /// or a non-NaN double is checked with two float comparisons, exactly.
    pub range: Option<Range>,
}

/// `minimum`/`maximum` as exact doubles (infinite when absent, inclusive).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    pub lo: f64,
    pub lo_exclusive: bool,
    pub hi: f64,
    pub hi_exclusive: bool,
}

impl Range {
    fn new(minimum: Option<Bound>, maximum: Option<Bound>) -> Option<Range> {
        let side = |b: Option<Bound>, inf: f64| match b {
            None => Some((inf, false)),
            Some(b) => b.exact_f64.map(|x| (x, b.exclusive)),
        };
        let (lo, lo_exclusive) = side(minimum, f64::NEG_INFINITY)?;
        let (hi, hi_exclusive) = side(maximum, f64::INFINITY)?;
        Some(Range {
            lo,
            lo_exclusive,
            hi,
            hi_exclusive,
        })
    }

    /// Whether `x` (not NaN) is within the range.
    #[inline]
    pub(crate) fn holds(&self, x: f64) -> bool {
        (x > self.lo || (!self.lo_exclusive && x == self.lo))
            && (x < self.hi || (!self.hi_exclusive && x == self.hi))
    }
}

/// A `minimum` or `maximum`, with the bound as an exact `f64` when it has one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bound {
    pub value: Num,
    pub exclusive: bool,
    /// The bound as a double when the conversion is exact (ints below 2^53, doubles).
    pub exact_f64: Option<f64>,
}

impl Bound {
    fn new(value: Num, exclusive: bool) -> Bound {
        let exact_f64 = match value {
            Num::Int(i) if i.unsigned_abs() <= 1 << 53 => Some(i as f64),
            Num::Double(d) if !d.is_nan() => Some(d),
            _ => None,
        };
        Bound {
            value,
            exclusive,
            exact_f64,
        }
    }
}

/// String keywords.
#[derive(Debug)]
pub(crate) struct StrRules {
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
}

/// `additionalItems` / `additionalProperties` when they constrain anything.
#[derive(Debug)]
pub(crate) enum Extra {
    Forbidden,
    Schema(Box<Node>),
}

/// `items`.
#[derive(Debug)]
pub(crate) enum ItemsRule {
    None,
    Single(Box<Node>),
    Positional(Vec<Node>),
}

/// Array keywords.
#[derive(Debug)]
pub(crate) struct ArrRules {
    pub items: ItemsRule,
    /// Only set beside positional `items`, as the server ignores it otherwise.
    pub additional: Option<Extra>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique: bool,
}

/// A fast non-cryptographic hasher for property names (FxHash's mixing step).
#[derive(Default, Clone, Copy)]
pub(crate) struct NameHasher(u64);

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(a)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
        self.0 = h;
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// One property name for the linear lookup: length and [`head_word`] first.
#[derive(Debug)]
pub(crate) struct Key {
    len: usize,
    head: u64,
    /// Shorter than eight bytes and free of NUL (a `required` string may hold one, a field name
    /// cannot): a masked word comparison then finds exactly this name.
    predictable: bool,
    name: Box<[u8]>,
}

impl Key {
    fn new(name: &[u8]) -> Key {
        Key {
            len: name.len(),
            head: head_word(name),
            predictable: name.len() < 8 && !name.contains(&0),
            name: name.into(),
        }
    }

    /// Whether this is `name`, whose head word is `head`.
    #[inline]
    fn is(&self, name: &[u8], head: u64) -> bool {
        self.head == head
            && self.len == name.len()
            && (self.len <= 8 || self.name[8..] == name[8..])
    }
}

/// Property name -> slot. Few names are compared directly; many are hashed.
#[derive(Debug)]
pub(crate) enum Lookup {
    Linear(Vec<Key>),
    Hashed(HashMap<Box<[u8]>, u32, BuildHasherDefault<NameHasher>>),
}

/// Objects naming more properties than this use a hash map.
const LINEAR_MAX: usize = 12;

impl Lookup {
    /// The name expected at `hint` as `(length, head word)`, for [`crate::value::raw::Iter::next_expecting`].
    #[inline]
    pub(crate) fn expected(&self, hint: usize) -> Option<(usize, u64)> {
        match self {
            Lookup::Linear(keys) => keys
                .get(hint)
                .filter(|k| k.predictable)
                .map(|k| (k.len, k.head)),
            Lookup::Hashed(_) => None,
        }
    }

    /// The slot of `name`, whose [`head_word`] is `head`; `hint` is tried first (documents
    /// usually list fields in the schema's order, so the slot after the previous field's is the
    /// likely one).
    #[inline]
    pub(crate) fn find(&self, name: &[u8], head: u64, hint: usize) -> Option<usize> {
        match self {
            Lookup::Linear(keys) => {
                if let Some(k) = keys.get(hint)
                    && k.is(name, head)
                {
                    return Some(hint);
                }
                keys.iter().position(|k| k.is(name, head))
            }
            Lookup::Hashed(map) => map.get(name).map(|&i| i as usize),
        }
    }
}

/// A dependency, by slot.
#[derive(Debug)]
pub(crate) enum Dep {
    Properties(Vec<usize>),
    Schema(Box<Node>),
}

/// Object keywords.
#[derive(Debug)]
pub(crate) struct ObjRules {
    /// Every name the rules mention, by slot: `properties` first (in order), then names only in
    /// `required` or `dependencies`.
    pub names: Vec<String>,
    pub lookup: Lookup,
    /// Schema of each slot from `properties` (slots `0..properties.len()`).
    pub properties: Vec<Node>,
    pub required: Vec<usize>,
    /// `required` as a bit mask of slots, when there are at most 64 names.
    pub required_mask: u64,
    pub patterns: Vec<(Pattern, Node)>,
    pub additional: Option<Extra>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub dependencies: Vec<(usize, Dep)>,
    /// Whether any keyword needs each field's name checked (patterns or additional).
    pub checks_every_field: bool,
}

/// One compiled schema node.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// Allowed type bits; `None` when `type`/`bsonType` is absent.
    pub types: Option<u32>,
    /// `encrypt`, when present.
    pub encrypt: Option<Encrypt>,
    pub enumeration: Option<Box<EnumSet>>,
    pub num: Option<Box<NumRules>>,
    pub string: Option<Box<StrRules>>,
    pub array: Option<Box<ArrRules>>,
    pub object: Option<Box<ObjRules>>,
    pub all_of: Vec<Node>,
    pub any_of: Vec<Node>,
    pub one_of: Vec<Node>,
    pub not: Option<Box<Node>>,
    /// Nothing but `type`/`bsonType` (or nothing at all): the fast path stops after the type.
    pub only_types: bool,
    /// The bounds when they are the only rule beside the type (`{bsonType: "double", minimum:
    /// 0}`): the object and array loops then check ints and doubles without a call.
    pub range_only: Option<Range>,
    /// Whether any of `allOf`, `anyOf`, `oneOf`, `not` is present.
    pub combinators: bool,
}

fn pattern_at(p: &str, path: &str) -> Result<Pattern, CompileError> {
    crate::schema::parse::check_pattern(p, path)?;
    pattern::compile(p).map_err(|reason| {
        CompileError::Rejected(ParseError::InvalidPattern {
            path: path.to_string(),
            pattern: p.to_string(),
            reason,
        })
    })
}

fn join(path: &str, part: &str) -> String {
    if path.is_empty() {
        part.to_string()
    } else {
        format!("{path}.{part}")
    }
}

fn extra(a: &Additional, path: &str) -> Result<Option<Extra>, CompileError> {
    Ok(match a {
        Additional::Allowed(true) => None,
        Additional::Allowed(false) => Some(Extra::Forbidden),
        Additional::Schema(s) => Some(Extra::Schema(Box::new(compile(s, path, false)?))),
    })
}

/// Compiles one node. `root` marks the top-level document's context (carried through
/// `allOf`/`anyOf`/`oneOf`/`not`/schema dependencies): there the server never compiles string,
/// number or array keywords, since a stored document is always an object.
pub(crate) fn compile(s: &JsonSchema, path: &str, root: bool) -> Result<Node, CompileError> {
    let mut n = Node {
        types: s
            .allowed_types()
            .map(|ts| ts.into_iter().fold(0, |m, t| m | alias_bits(t))),
        ..Node::default()
    };
    if let Some(e) = &s.encrypt {
        let types = crate::schema::parse::encrypt_types(e, &join(path, "encrypt"))?;
        n.encrypt = Some(match types {
            None => Encrypt::Any,
            Some(ts) => Encrypt::Types(ts.into_iter().fold(0, |m, t| m | alias_bits(t))),
        });
    }
    if let Some(values) = &s.enumeration {
        n.enumeration = Some(Box::new(EnumSet::new(values)));
    }
    if !root {
        if s.minimum.is_some() || s.maximum.is_some() || s.multiple_of.is_some() {
            let minimum = s
                .minimum
                .map(|m| Bound::new(m.to_num(), s.exclusive_minimum.unwrap_or(false)));
            let maximum = s
                .maximum
                .map(|m| Bound::new(m.to_num(), s.exclusive_maximum.unwrap_or(false)));
            let multiple_of = s.multiple_of.map(|m| m.to_num().to_dec15());
            n.num = Some(Box::new(NumRules {
                minimum,
                maximum,
                multiple_of,
                range: match multiple_of {
                    None => Range::new(minimum, maximum),
                    Some(_) => None,
                },
            }));
        }
        if s.min_length.is_some() || s.max_length.is_some() || s.pattern.is_some() {
            n.string = Some(Box::new(StrRules {
                min_length: s.min_length,
                max_length: s.max_length,
                pattern: match &s.pattern {
                    Some(p) => Some(pattern_at(p, &join(path, "pattern"))?),
                    None => None,
                },
            }));
        }
        let positional = matches!(s.items, Some(Items::Positional(_)));
        if s.items.is_some()
            || (positional && s.additional_items.is_some())
            || s.min_items.is_some()
            || s.max_items.is_some()
            || s.unique_items == Some(true)
        {
            let ipath = join(path, "items");
            let items = match &s.items {
                None => ItemsRule::None,
                Some(Items::Single(x)) => ItemsRule::Single(Box::new(compile(x, &ipath, false)?)),
                Some(Items::Positional(list)) => ItemsRule::Positional(
                    list.iter()
                        .enumerate()
                        .map(|(i, x)| compile(x, &join(&ipath, &i.to_string()), false))
                        .collect::<Result<_, _>>()?,
                ),
            };
            let additional = match (&s.additional_items, positional) {
                (Some(a), true) => extra(a, &join(path, "additionalItems"))?,
                _ => None,
            };
            n.array = Some(Box::new(ArrRules {
                items,
                additional,
                min_items: s.min_items,
                max_items: s.max_items,
                unique: s.unique_items == Some(true),
            }));
        }
    }
    if has_object_rules(s) {
        n.object = Some(Box::new(compile_object(s, path, root)?));
    }
    let list = |v: &Option<Vec<JsonSchema>>, kw: &str| -> Result<Vec<Node>, CompileError> {
        match v {
            None => Ok(Vec::new()),
            Some(v) => v
                .iter()
                .enumerate()
                .map(|(i, x)| compile(x, &join(&join(path, kw), &i.to_string()), root))
                .collect(),
        }
    };
    n.all_of = list(&s.all_of, "allOf")?;
    n.any_of = list(&s.any_of, "anyOf")?;
    n.one_of = list(&s.one_of, "oneOf")?;
    if let Some(x) = &s.not {
        n.not = Some(Box::new(compile(x, &join(path, "not"), root)?));
    }
    n.combinators =
        !n.all_of.is_empty() || !n.any_of.is_empty() || !n.one_of.is_empty() || n.not.is_some();
    // Nothing but the type, or nothing but the type and numeric bounds.
    let only_type_and_numbers = n.encrypt.is_none()
        && n.enumeration.is_none()
        && n.string.is_none()
        && n.array.is_none()
        && n.object.is_none()
        && !n.combinators;
    n.only_types = only_type_and_numbers && n.num.is_none();
    if only_type_and_numbers && let Some(r) = &n.num {
        n.range_only = r.range;
    }
    Ok(n)
}

fn has_object_rules(s: &JsonSchema) -> bool {
    !s.properties.is_empty()
        || !s.pattern_properties.is_empty()
        || matches!(
            s.additional_properties,
            Some(Additional::Allowed(false) | Additional::Schema(_))
        )
        || s.required.is_some()
        || s.min_properties.is_some()
        || s.max_properties.is_some()
        || !s.dependencies.is_empty()
}

fn slot(names: &mut Vec<String>, name: &str) -> usize {
    match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    }
}

fn compile_object(s: &JsonSchema, path: &str, root: bool) -> Result<ObjRules, CompileError> {
    let mut names: Vec<String> = s.properties.keys().cloned().collect();
    let ppath = join(path, "properties");
    let properties = s
        .properties
        .iter()
        .map(|(name, x)| compile(x, &join(&ppath, name), false))
        .collect::<Result<Vec<_>, _>>()?;
    let required: Vec<usize> = s
        .required
        .iter()
        .flatten()
        .map(|r| slot(&mut names, r))
        .collect();
    let dpath = join(path, "dependencies");
    let mut dependencies = Vec::with_capacity(s.dependencies.len());
    for (name, dep) in &s.dependencies {
        let trigger = slot(&mut names, name);
        let d = match dep {
            Dependency::Properties(list) => {
                Dep::Properties(list.iter().map(|p| slot(&mut names, p)).collect())
            }
            Dependency::Schema(x) => Dep::Schema(Box::new(compile(x, &join(&dpath, name), root)?)),
        };
        dependencies.push((trigger, d));
    }
    let patpath = join(path, "patternProperties");
    let patterns = s
        .pattern_properties
        .iter()
        .map(|(p, x)| {
            let sub = join(&patpath, p);
            crate::schema::parse::check_name_pattern(p, &sub)?;
            let compiled = pattern::compile_name(p).map_err(|reason| {
                CompileError::Rejected(crate::schema::parse::invalid_name_pattern(&sub, &reason))
            })?;
            Ok((compiled, compile(x, &sub, false)?))
        })
        .collect::<Result<Vec<_>, CompileError>>()?;
    let additional = match &s.additional_properties {
        Some(a) => extra(a, &join(path, "additionalProperties"))?,
        None => None,
    };
    let lookup = if names.len() <= LINEAR_MAX {
        Lookup::Linear(names.iter().map(|n| Key::new(n.as_bytes())).collect())
    } else {
        Lookup::Hashed(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_bytes().into(), i as u32))
                .collect(),
        )
    };
    let required_mask = if names.len() <= 64 {
        required.iter().fold(0u64, |m, &s| m | (1u64 << s))
    } else {
        0
    };
    Ok(ObjRules {
        required_mask,
        checks_every_field: !patterns.is_empty() || additional.is_some(),
        names,
        lookup,
        properties,
        required,
        patterns,
        additional,
        min_properties: s.min_properties,
        max_properties: s.max_properties,
        dependencies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_exactly_at_every_length() {
        let names = [
            "",
            "a",
            "ab",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefgh\u{0}",
            "createdAt_long_name",
            "createdAt_long_namf",
        ];
        for a in names {
            let k = Key::new(a.as_bytes());
            for b in names {
                let is = k.is(b.as_bytes(), head_word(b.as_bytes()));
                assert_eq!(is, a == b, "{a:?} vs {b:?}");
            }
            let mut c = a.as_bytes().to_vec();
            if let Some(last) = c.last_mut() {
                *last ^= 1;
                assert!(!k.is(&c, head_word(&c)));
            }
        }
    }

    #[test]
    fn lookup_finds_names_with_or_without_the_hint() {
        let keys = ["x", "y", "zed"]
            .iter()
            .map(|n| Key::new(n.as_bytes()))
            .collect();
        let l = Lookup::Linear(keys);
        let zed = head_word(b"zed");
        assert_eq!(l.find(b"zed", zed, 2), Some(2));
        assert_eq!(l.find(b"zed", zed, 0), Some(2));
        assert_eq!(l.find(b"x", head_word(b"x"), 7), Some(0));
        assert_eq!(l.find(b"w", head_word(b"w"), 1), None);
    }
}
