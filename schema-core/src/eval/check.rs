//! The fast path: does a raw value satisfy a compiled node? No allocation for ordinary schemas
//! (objects naming at most 256 properties); `uniqueItems` compares pairs in place.

use std::cmp::Ordering;

use super::compile::{
    ArrRules, Bound, Dep, EncryptOutcome, EnumSet, Extra, ItemsRule, Node, NumRules, ObjRules,
    StrRules, type_bit,
};
use crate::value::compare::equal;
use crate::value::number::{Num, cmp_num, is_multiple};
use crate::value::pattern::is_match;
use crate::value::raw::{Bad, Iter, f64_of, i32_of, i64_of, num_of, str_bytes, ty};

/// Which named properties a document has: a bitset on the stack for up to 256 names.
pub(crate) struct Seen {
    small: [u64; 4],
    large: Vec<u64>,
}

impl Seen {
    #[inline]
    pub(crate) fn new(n: usize) -> Seen {
        Seen {
            small: [0; 4],
            large: if n > 256 {
                vec![0; n.div_ceil(64)]
            } else {
                Vec::new()
            },
        }
    }
    /// Marks `i`, returning whether it was already marked.
    #[inline]
    pub(crate) fn insert(&mut self, i: usize) -> bool {
        let words = if self.large.is_empty() {
            &mut self.small[..]
        } else {
            &mut self.large[..]
        };
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let was = words[w] & b != 0;
        words[w] |= b;
        was
    }
    #[inline]
    pub(crate) fn contains(&self, i: usize) -> bool {
        let words = if self.large.is_empty() {
            &self.small[..]
        } else {
            &self.large[..]
        };
        words[i / 64] & (1u64 << (i % 64)) != 0
    }
}

/// Which slots of an object's names a document has.
pub(crate) trait Marks {
    /// Marks `i`, returning whether it was already marked.
    fn insert(&mut self, i: usize) -> bool;
    /// Whether `i` is marked.
    fn contains(&self, i: usize) -> bool;
    /// Whether every `required` slot is marked.
    fn has_required(&self, r: &ObjRules) -> bool;
}

impl Marks for Seen {
    #[inline]
    fn insert(&mut self, i: usize) -> bool {
        Seen::insert(self, i)
    }
    #[inline]
    fn contains(&self, i: usize) -> bool {
        Seen::contains(self, i)
    }
    #[inline]
    fn has_required(&self, r: &ObjRules) -> bool {
        r.required.iter().all(|&s| self.contains(s))
    }
}

/// The marks of an object naming at most 64 properties: one word, `required` as one mask.
struct Word(u64);

impl Marks for Word {
    #[inline]
    fn insert(&mut self, i: usize) -> bool {
        let b = 1u64 << i;
        let was = self.0 & b != 0;
        self.0 |= b;
        was
    }
    #[inline]
    fn contains(&self, i: usize) -> bool {
        self.0 & (1u64 << i) != 0
    }
    #[inline]
    fn has_required(&self, r: &ObjRules) -> bool {
        self.0 & r.required_mask == r.required_mask
    }
}

/// Code points in a UTF-8 string: bytes that are not continuation bytes (the server's count).
#[inline]
pub(crate) fn code_points(s: &[u8]) -> u64 {
    s.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64
}

/// A bound check with the server's NaN rule: NaN satisfies a bound only when both are NaN and
/// the bound is inclusive.
#[inline]
pub(crate) fn within(value: Num, bound: Num, exclusive: bool, is_min: bool) -> bool {
    if value.is_nan() || bound.is_nan() {
        return value.is_nan() && bound.is_nan() && !exclusive;
    }
    let ord = cmp_num(value, bound);
    match (is_min, exclusive) {
        (true, false) => ord != Ordering::Less,
        (true, true) => ord == Ordering::Greater,
        (false, false) => ord != Ordering::Greater,
        (false, true) => ord == Ordering::Less,
    }
}

/// [`within`] with fast paths for the common cases: int against int, double against a bound
/// that is exactly a double.
#[inline]
pub(crate) fn bound_ok(v: Num, b: &Bound, is_min: bool) -> bool {
    let ord = match (v, b.value, b.exact_f64) {
        (Num::Int(x), Num::Int(y), _) => x.cmp(&y),
        (Num::Double(x), _, Some(y)) if !x.is_nan() => x.partial_cmp(&y).expect("neither is NaN"),
        _ => return within(v, b.value, b.exclusive, is_min),
    };
    match (is_min, b.exclusive) {
        (true, false) => ord != Ordering::Less,
        (true, true) => ord == Ordering::Greater,
        (false, false) => ord != Ordering::Greater,
        (false, true) => ord == Ordering::Less,
    }
}

#[inline]
pub(crate) fn num_ok(r: &NumRules, v: Num) -> bool {
    if let Some(b) = &r.minimum
        && !bound_ok(v, b, true)
    {
        return false;
    }
    if let Some(b) = &r.maximum
        && !bound_ok(v, b, false)
    {
        return false;
    }
    if let Some(d) = r.multiple_of {
        // Whole numbers against a whole divisor: no decimal conversion needed.
        if let (
            Num::Int(x),
            crate::value::number::Dec::Finite {
                neg: _,
                coeff,
                exp: 0,
            },
        ) = (v, d)
            && coeff != 0
        {
            return u128::from(x.unsigned_abs()) % coeff == 0;
        }
        return is_multiple(v.to_dec15(), d);
    }
    true
}

#[inline]
pub(crate) fn str_ok(r: &StrRules, value: &[u8]) -> bool {
    let s = str_bytes(value);
    if r.min_length.is_some() || r.max_length.is_some() {
        // A UTF-8 string of b bytes has between b/4 and b code points: count only when the
        // bounds fall inside that span.
        let b = s.len() as u64;
        let sure =
            r.min_length.is_none_or(|m| m <= b.div_ceil(4)) && r.max_length.is_none_or(|m| m >= b);
        if sure {
            return match &r.pattern {
                Some(p) => is_match(p, s),
                None => true,
            };
        }
        let n = code_points(s);
        if r.min_length.is_some_and(|m| n < m) || r.max_length.is_some_and(|m| n > m) {
            return false;
        }
    }
    match &r.pattern {
        Some(p) => is_match(p, s),
        None => true,
    }
}

/// Whether the enum set holds a value equal to this one.
#[inline]
pub(crate) fn in_set(e: &EnumSet, t: u8, v: &[u8]) -> Result<bool, Bad> {
    match (&e.ints, t) {
        (Some(ints), ty::INT32) => Ok(ints.contains(&i64::from(i32_of(v)))),
        (Some(ints), ty::INT64) => Ok(ints.contains(&i64_of(v))),
        _ => in_enum(&e.members, t, v),
    }
}

/// Whether the numeric keywords hold for a number of type `t` with bytes `v`.
#[inline]
pub(crate) fn num_ok_raw(r: &NumRules, t: u8, v: &[u8]) -> bool {
    if let Some(range) = &r.range {
        match t {
            // An int converts to a double exactly, and so do the bounds: the comparison is exact.
            ty::INT32 => return range.holds(f64::from(i32_of(v))),
            ty::DOUBLE => {
                let x = f64_of(v);
                if !x.is_nan() {
                    return range.holds(x);
                }
            }
            _ => {}
        }
    }
    num_ok(r, num_of(t, v).expect("numeric type"))
}

/// Whether `enum` holds a value equal to this one.
#[inline]
pub(crate) fn in_enum(members: &[(u8, Box<[u8]>)], t: u8, v: &[u8]) -> Result<bool, Bad> {
    // Same-typed ints, strings, ObjectIds, booleans and dates are equal exactly when their
    // bytes are; other types (doubles, decimals, documents...) need the value comparison.
    let bytewise = matches!(
        t,
        ty::INT32 | ty::INT64 | ty::STRING | ty::OBJECT_ID | ty::BOOL | ty::DATE
    );
    for (mt, mv) in members {
        if bytewise && *mt == t {
            if mv.len() == v.len() && mv.iter().zip(v).all(|(a, b)| a == b) {
                return Ok(true);
            }
            continue;
        }
        if equal(*mt, mv, t, v)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// [`check`], with the type test (all that most leaves need) inlined into the caller's loop.
#[inline(always)]
fn check_inline(n: &Node, t: u8, v: &[u8]) -> Result<bool, Bad> {
    if n.only_types {
        return Ok(n.types.is_none_or(|mask| mask & type_bit(t) != 0));
    }
    if let Some(range) = &n.range_only {
        if n.types.is_some_and(|mask| mask & type_bit(t) == 0) {
            return Ok(false);
        }
        match t {
            ty::INT32 => return Ok(range.holds(f64::from(i32_of(v)))),
            ty::DOUBLE => {
                let x = f64_of(v);
                if !x.is_nan() {
                    return Ok(range.holds(x));
                }
            }
            _ => {}
        }
    }
    check(n, t, v)
}

/// Whether a value of type `t` with bytes `v` satisfies `n`.
pub(crate) fn check(n: &Node, t: u8, v: &[u8]) -> Result<bool, Bad> {
    if let Some(mask) = n.types
        && mask & type_bit(t) == 0
    {
        return Ok(false);
    }
    if n.only_types {
        return Ok(true);
    }
    if let Some(e) = n.encrypt
        && e.judge(t, v) != EncryptOutcome::Holds
    {
        return Ok(false);
    }
    if let Some(e) = &n.enumeration
        && !in_set(e, t, v)?
    {
        return Ok(false);
    }
    match t {
        ty::INT32 | ty::INT64 | ty::DOUBLE | ty::DECIMAL => {
            if let Some(r) = &n.num
                && !num_ok_raw(r, t, v)
            {
                return Ok(false);
            }
        }
        ty::STRING => {
            if let Some(r) = &n.string
                && !str_ok(r, v)
            {
                return Ok(false);
            }
        }
        ty::ARRAY => {
            if let Some(r) = &n.array
                && !array_ok(r, v)?
            {
                return Ok(false);
            }
        }
        ty::DOCUMENT => {
            if let Some(r) = &n.object
                && !object_ok(r, v)?
            {
                return Ok(false);
            }
        }
        _ => {}
    }
    if !n.combinators {
        return Ok(true);
    }
    for x in &n.all_of {
        if !check(x, t, v)? {
            return Ok(false);
        }
    }
    if !n.any_of.is_empty() {
        let mut any = false;
        for x in &n.any_of {
            if check(x, t, v)? {
                any = true;
                break;
            }
        }
        if !any {
            return Ok(false);
        }
    }
    if !n.one_of.is_empty() {
        let mut matched = 0;
        for x in &n.one_of {
            if check(x, t, v)? {
                matched += 1;
                if matched > 1 {
                    return Ok(false);
                }
            }
        }
        if matched != 1 {
            return Ok(false);
        }
    }
    if let Some(x) = &n.not
        && check(x, t, v)?
    {
        return Ok(false);
    }
    Ok(true)
}

fn array_ok(r: &ArrRules, v: &[u8]) -> Result<bool, Bad> {
    let mut it = Iter::new(v)?;
    let mut i = 0usize;
    while let Some(e) = it.next_elem()? {
        let ok = match &r.items {
            ItemsRule::None => true,
            ItemsRule::Single(x) => check_inline(x, e.ty, e.value)?,
            ItemsRule::Positional(list) => match list.get(i) {
                Some(x) => check_inline(x, e.ty, e.value)?,
                None => match &r.additional {
                    None => true,
                    Some(Extra::Forbidden) => false,
                    Some(Extra::Schema(x)) => check_inline(x, e.ty, e.value)?,
                },
            },
        };
        if !ok {
            return Ok(false);
        }
        i += 1;
    }
    let n = i as u64;
    if r.min_items.is_some_and(|m| n < m) || r.max_items.is_some_and(|m| n > m) {
        return Ok(false);
    }
    if r.unique && first_duplicate(v)?.is_some() {
        return Ok(false);
    }
    Ok(true)
}

/// Indexes `(i, j)` of the first pair of equal elements.
pub(crate) fn first_duplicate(v: &[u8]) -> Result<Option<(usize, usize)>, Bad> {
    let mut outer = Iter::new(v)?;
    let mut i = 0;
    while let Some(a) = outer.next_elem()? {
        let mut inner = outer.clone();
        let mut j = i + 1;
        while let Some(b) = inner.next_elem()? {
            if equal(a.ty, a.value, b.ty, b.value)? {
                return Ok(Some((i, j)));
            }
            j += 1;
        }
        i += 1;
    }
    Ok(None)
}

fn object_ok(r: &ObjRules, v: &[u8]) -> Result<bool, Bad> {
    if r.names.len() <= 64 {
        object_marked(r, v, Word(0))
    } else {
        object_marked(r, v, Seen::new(r.names.len()))
    }
}

#[inline(always)]
fn object_marked(r: &ObjRules, v: &[u8], mut seen: impl Marks) -> Result<bool, Bad> {
    let mut count = 0u64;
    let mut it = Iter::new(v)?;
    let mut hint = 0;
    while let Some((e, expected)) = it.next_expecting(r.lookup.expected(hint))? {
        count += 1;
        let slot = if expected {
            Some(hint)
        } else if r.names.is_empty() {
            None
        } else {
            r.lookup.find(e.name, e.head, hint)
        };
        if let Some(s) = slot {
            hint = s + 1;
        }
        let mut named = false;
        if let Some(s) = slot {
            let again = seen.insert(s);
            if let Some(x) = r.properties.get(s) {
                named = true;
                // The server reads a duplicated field's first occurrence only.
                if !again && !check_inline(x, e.ty, e.value)? {
                    return Ok(false);
                }
            }
        }
        if r.checks_every_field {
            let mut matched = false;
            for (p, x) in &r.patterns {
                if is_match(p, e.name) {
                    matched = true;
                    if !check_inline(x, e.ty, e.value)? {
                        return Ok(false);
                    }
                }
            }
            if !named && !matched {
                let ok = match &r.additional {
                    None => true,
                    Some(Extra::Forbidden) => false,
                    Some(Extra::Schema(x)) => check(x, e.ty, e.value)?,
                };
                if !ok {
                    return Ok(false);
                }
            }
        }
    }
    if r.min_properties.is_some_and(|m| count < m) || r.max_properties.is_some_and(|m| count > m) {
        return Ok(false);
    }
    if !seen.has_required(r) {
        return Ok(false);
    }
    for (trigger, dep) in &r.dependencies {
        if !seen.contains(*trigger) {
            continue;
        }
        match dep {
            Dep::Properties(list) => {
                if list.iter().any(|&s| !seen.contains(s)) {
                    return Ok(false);
                }
            }
            Dep::Schema(x) => {
                if !check(x, ty::DOCUMENT, v)? {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::compile::compile;
    use crate::schema::{JsonSchema, Number};

    fn rules(min: Option<(Number, bool)>, max: Option<(Number, bool)>) -> Node {
        let s = JsonSchema {
            minimum: min.map(|m| m.0),
            exclusive_minimum: min.map(|m| m.1),
            maximum: max.map(|m| m.0),
            exclusive_maximum: max.map(|m| m.1),
            ..JsonSchema::default()
        };
        compile(&s, "", false).expect("bounds compile")
    }

    /// The float range used for ints and doubles agrees with the exact comparison everywhere,
    /// bounds and NaN included.
    #[test]
    fn the_float_fast_path_agrees_with_exact_numeric_bounds() {
        let bounds = [
            Number::Int32(0),
            Number::Int32(-100),
            Number::Int64(1 << 40),
            Number::Double(0.5),
            Number::Double(-0.0),
            Number::Double(f64::INFINITY),
            Number::Double(f64::NAN),
            Number::Int64(i64::MAX),
        ];
        let ints = [i32::MIN, -101, -100, -99, -1, 0, 1, 2, 1000, i32::MAX];
        let doubles = [
            f64::NEG_INFINITY,
            -100.5,
            -100.0,
            -0.0,
            0.0,
            0.49,
            0.5,
            0.51,
            1e12,
            f64::INFINITY,
            f64::NAN,
        ];
        let mut fast = 0;
        for lo in bounds.iter().map(Some).chain([None]) {
            for hi in bounds.iter().map(Some).chain([None]) {
                for (lx, hx) in [(false, false), (true, false), (false, true), (true, true)] {
                    let n = rules(lo.map(|&b| (b, lx)), hi.map(|&b| (b, hx)));
                    let Some(r) = n.num.as_ref() else {
                        assert!(lo.is_none() && hi.is_none());
                        continue;
                    };
                    fast += usize::from(r.range.is_some());
                    for i in ints {
                        let v = i.to_le_bytes();
                        let exact = num_ok(r, Num::Int(i64::from(i)));
                        assert_eq!(num_ok_raw(r, ty::INT32, &v), exact, "{i} in {lo:?}..{hi:?}");
                    }
                    for d in doubles {
                        let v = d.to_le_bytes();
                        let exact = num_ok(r, Num::Double(d));
                        assert_eq!(
                            num_ok_raw(r, ty::DOUBLE, &v),
                            exact,
                            "{d} in {lo:?}..{hi:?}"
                        );
                    }
                }
            }
        }
        assert!(fast > 100, "the fast path was taken in {fast} cases");
    }

    /// The inlined bounds-only leaf agrees with the full check for every type and value.
    #[test]
    fn inlined_bounds_leaves_agree_with_the_full_check() {
        use crate::schema::{BsonType, TypeConstraint};
        let values: Vec<(u8, Vec<u8>)> = vec![
            (ty::INT32, 5i32.to_le_bytes().to_vec()),
            (ty::INT32, (-1i32).to_le_bytes().to_vec()),
            (ty::DOUBLE, 0.5f64.to_le_bytes().to_vec()),
            (ty::DOUBLE, f64::NAN.to_le_bytes().to_vec()),
            (ty::DOUBLE, 11.0f64.to_le_bytes().to_vec()),
            (ty::INT64, 7i64.to_le_bytes().to_vec()),
            (ty::STRING, b"\x02\0\0\0a\0".to_vec()),
            (ty::NULL, Vec::new()),
        ];
        let mut inlined = 0;
        for types in [
            None,
            Some(TypeConstraint::BsonType(vec![BsonType::Double])),
            Some(TypeConstraint::BsonType(vec![
                BsonType::Int,
                BsonType::Long,
            ])),
        ] {
            let s = JsonSchema {
                types,
                minimum: Some(Number::Int32(0)),
                maximum: Some(Number::Double(10.0)),
                exclusive_maximum: Some(true),
                ..JsonSchema::default()
            };
            let n = compile(&s, "", false).expect("compiles");
            inlined += usize::from(n.range_only.is_some());
            for (t, v) in &values {
                assert_eq!(
                    check_inline(&n, *t, v).unwrap(),
                    check(&n, *t, v).unwrap(),
                    "type {t} value {v:?} under {:?}",
                    s.types
                );
            }
        }
        assert_eq!(inlined, 3);
    }

    /// The length shortcut (byte length brackets the code-point count) never changes a verdict.
    #[test]
    fn string_lengths_count_code_points_at_every_bound() {
        let strings = [
            "",
            "a",
            "ab",
            "abcd",
            "é",
            "éé",
            "日本",
            "🎉",
            "a🎉b",
            "🎉🎉🎉🎉",
        ];
        for min in [None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(5)] {
            for max in [None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(16)] {
                let r = StrRules {
                    min_length: min,
                    max_length: max,
                    pattern: None,
                };
                for s in strings {
                    let n = s.chars().count() as u64;
                    let want = min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m);
                    let bytes = bson::serialize_to_vec(&bson::doc! { "s": s }).unwrap();
                    // The value starts after the type byte, "s" and its NUL.
                    let value = &bytes[4 + 3..bytes.len() - 1];
                    assert_eq!(str_ok(&r, value), want, "{s:?} in {min:?}..{max:?}");
                }
            }
        }
    }

    /// A `required` name holding a NUL byte is never taken for a shorter field name followed by
    /// value bytes that happen to match the rest.
    #[test]
    fn a_required_name_with_a_nul_byte_does_not_match_a_shorter_field() {
        let s = JsonSchema {
            required: Some(vec!["a\0b".to_string()]),
            ..JsonSchema::default()
        };
        let node = compile(&s, "", true).expect("compiles");
        // {a: "b"}: the bytes after the name "a" and its NUL are the string's length, so build
        // a field whose value starts with "b\0": a symbol-free case is an int32 0x0062.
        let doc = bson::serialize_to_vec(&bson::doc! { "a": 0x62_i32 }).unwrap();
        assert_eq!(&doc[5..9], b"a\0b\0");
        assert!(!check(&node, ty::DOCUMENT, &doc).unwrap());
        let with = bson::serialize_to_vec(&bson::doc! { "a": 0x62_i32, "x": 1 }).unwrap();
        assert!(!check(&node, ty::DOCUMENT, &with).unwrap());
    }

    /// Int enums answer by integer membership only when no member is a double or decimal.
    #[test]
    fn int_enum_sets_match_by_value_across_numeric_types() {
        use bson::Bson;
        let with = |values: Vec<Bson>| {
            let s = JsonSchema {
                enumeration: Some(values),
                ..JsonSchema::default()
            };
            compile(&s, "", false).expect("enum compiles")
        };
        let ints = with(vec![Bson::Int32(0), Bson::Int64(2), Bson::from("x")]);
        let e = ints.enumeration.as_ref().expect("enum");
        assert!(e.ints.is_some());
        assert!(in_set(e, ty::INT32, &2i32.to_le_bytes()).unwrap());
        assert!(in_set(e, ty::INT64, &0i64.to_le_bytes()).unwrap());
        assert!(!in_set(e, ty::INT32, &1i32.to_le_bytes()).unwrap());
        assert!(in_set(e, ty::DOUBLE, &2.0f64.to_le_bytes()).unwrap());
        let mixed = with(vec![Bson::Double(1.0)]);
        let e = mixed.enumeration.as_ref().expect("enum");
        assert!(e.ints.is_none());
        assert!(in_set(e, ty::INT32, &1i32.to_le_bytes()).unwrap());
    }
}
