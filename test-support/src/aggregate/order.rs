//! The server's total order of BSON values ("Comparison/Sort Order" in the manual), which
//! aggregation's comparison operators, `$min`/`$max` and group keys follow: type brackets first,
//! then the value within its bracket.

use std::cmp::Ordering;

use bson::{Bson, Document};

/// A value's bracket in the manual's order: MinKey, Null, Numbers, Symbol/String, Object, Array,
/// BinData, ObjectId, Boolean, Date, Timestamp, Regular Expression, MaxKey. Types the manual
/// does not place (code, DBPointer) sort just below MaxKey.
fn bracket(value: &Bson) -> u8 {
    match value {
        Bson::MinKey => 0,
        Bson::Null | Bson::Undefined => 1,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => 2,
        Bson::Symbol(_) | Bson::String(_) => 3,
        Bson::Document(_) => 4,
        Bson::Array(_) => 5,
        Bson::Binary(_) => 6,
        Bson::ObjectId(_) => 7,
        Bson::Boolean(_) => 8,
        Bson::DateTime(_) => 9,
        Bson::Timestamp(_) => 10,
        Bson::RegularExpression(_) => 11,
        Bson::DbPointer(_) | Bson::JavaScriptCode(_) | Bson::JavaScriptCodeWithScope(_) => 12,
        Bson::MaxKey => 13,
    }
}

/// A number as an exact-enough pair for ordering: integers compare as i128, doubles as f64,
/// NaN below every other number (the manual: "MongoDB treats NaN as less than any other
/// numeric value"; equal to itself).
fn compare_numbers(a: &Bson, b: &Bson) -> Ordering {
    let int = |v: &Bson| match v {
        Bson::Int32(n) => Some(i128::from(*n)),
        Bson::Int64(n) => Some(i128::from(*n)),
        _ => None,
    };
    let float = |v: &Bson| match v {
        Bson::Int32(n) => f64::from(*n),
        Bson::Int64(n) => *n as f64,
        Bson::Double(d) => *d,
        Bson::Decimal128(d) => d.to_string().parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    };
    if let (Some(x), Some(y)) = (int(a), int(b)) {
        return x.cmp(&y);
    }
    let (x, y) = (float(a), float(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

fn compare_documents(a: &Document, b: &Document) -> Ordering {
    // Field by field: the value's type bracket, then the field name, then the value.
    for ((ka, va), (kb, vb)) in a.iter().zip(b.iter()) {
        let order = bracket(va)
            .cmp(&bracket(vb))
            .then_with(|| ka.cmp(kb))
            .then_with(|| compare(va, vb));
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// The server's order of two values.
pub(crate) fn compare(a: &Bson, b: &Bson) -> Ordering {
    let order = bracket(a).cmp(&bracket(b));
    if order != Ordering::Equal {
        return order;
    }
    match (a, b) {
        (Bson::String(x), Bson::String(y)) | (Bson::Symbol(x), Bson::Symbol(y)) => x.cmp(y),
        (Bson::String(x), Bson::Symbol(y)) | (Bson::Symbol(x), Bson::String(y)) => x.cmp(y),
        (Bson::Document(x), Bson::Document(y)) => compare_documents(x, y),
        (Bson::Array(x), Bson::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                let order = compare(p, q);
                if order != Ordering::Equal {
                    return order;
                }
            }
            x.len().cmp(&y.len())
        }
        // The manual: BinData by length, then subtype, then bytes.
        (Bson::Binary(x), Bson::Binary(y)) => x
            .bytes
            .len()
            .cmp(&y.bytes.len())
            .then_with(|| u8::from(x.subtype).cmp(&u8::from(y.subtype)))
            .then_with(|| x.bytes.cmp(&y.bytes)),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => x.bytes().cmp(&y.bytes()),
        (Bson::Boolean(x), Bson::Boolean(y)) => x.cmp(y),
        (Bson::DateTime(x), Bson::DateTime(y)) => x.cmp(y),
        (Bson::Timestamp(x), Bson::Timestamp(y)) => {
            (x.time, x.increment).cmp(&(y.time, y.increment))
        }
        (Bson::RegularExpression(x), Bson::RegularExpression(y)) => x
            .pattern
            .cmp(&y.pattern)
            .then_with(|| x.options.cmp(&y.options)),
        (Bson::JavaScriptCode(x), Bson::JavaScriptCode(y)) => x.cmp(y),
        _ if bracket(a) == 2 => compare_numbers(a, b),
        _ => Ordering::Equal,
    }
}

/// A key equal for values the server groups together (numbers by value across types, 1 and
/// 1.0 alike), for hashing `$group` keys.
pub(crate) fn group_key(value: &Bson, out: &mut Vec<u8>) {
    out.push(bracket(value));
    match value {
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            let exact = match value {
                Bson::Int32(n) => Some(i64::from(*n)),
                Bson::Int64(n) => Some(*n),
                Bson::Double(d) if d.fract() == 0.0 && d.abs() < 9.0e15 => Some(*d as i64),
                _ => None,
            };
            match exact {
                Some(n) => out.extend(format!("i{n};").bytes()),
                None => out.extend(format!("f{:?};", compare_key_float(value)).bytes()),
            }
        }
        Bson::Document(d) => {
            for (k, v) in d {
                out.extend(k.bytes());
                out.push(0);
                group_key(v, out);
            }
            out.push(0xff);
        }
        Bson::Array(items) => {
            for v in items {
                group_key(v, out);
            }
            out.push(0xff);
        }
        Bson::Null | Bson::Undefined => {}
        other => {
            out.extend(format!("{other:?}").bytes());
            out.push(0);
        }
    }
}

fn compare_key_float(value: &Bson) -> f64 {
    match value {
        Bson::Double(d) if d.is_nan() => f64::NAN,
        Bson::Double(d) => *d,
        Bson::Decimal128(d) => d.to_string().parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::spec::BinarySubtype;

    #[test]
    fn numbers_compare_across_types_and_nan_is_lowest() {
        assert_eq!(
            compare(&Bson::Int32(2), &Bson::Double(1.5)),
            Ordering::Greater
        );
        assert_eq!(compare(&Bson::Int64(3), &Bson::Int32(3)), Ordering::Equal);
        assert_eq!(
            compare(&Bson::Double(f64::NAN), &Bson::Double(f64::NEG_INFINITY)),
            Ordering::Less
        );
        assert_eq!(compare(&Bson::Null, &Bson::Int32(0)), Ordering::Less);
        assert_eq!(
            compare(&Bson::String("a".into()), &Bson::Int32(9)),
            Ordering::Greater
        );
    }

    #[test]
    fn binaries_compare_by_length_then_subtype() {
        let bin = |subtype, bytes: &[u8]| {
            Bson::Binary(bson::Binary {
                subtype,
                bytes: bytes.to_vec(),
            })
        };
        let short = bin(BinarySubtype::Uuid, &[9]);
        let long = bin(BinarySubtype::Generic, &[0, 0]);
        assert_eq!(compare(&short, &long), Ordering::Less);
        let generic = bin(BinarySubtype::Generic, &[9]);
        assert_eq!(compare(&generic, &short), Ordering::Less);
    }

    #[test]
    fn arrays_compare_element_by_element() {
        let a = Bson::Array(vec![Bson::Int32(1), Bson::Int32(5)]);
        let b = Bson::Array(vec![Bson::Int32(2)]);
        assert_eq!(compare(&a, &b), Ordering::Less);
        let c = Bson::Array(vec![Bson::Int32(1)]);
        assert_eq!(compare(&c, &a), Ordering::Less);
    }

    #[test]
    fn group_keys_equal_numbers_by_value() {
        let key = |v: &Bson| {
            let mut out = Vec::new();
            group_key(v, &mut out);
            out
        };
        assert_eq!(key(&Bson::Int32(1)), key(&Bson::Double(1.0)));
        assert_ne!(key(&Bson::Int32(1)), key(&Bson::String("1".into())));
        assert_eq!(key(&Bson::Null), key(&Bson::Undefined));
    }
}
