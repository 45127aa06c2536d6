//! Value equality as `enum` and `uniqueItems` see it: the server's BSON comparison with field
//! order ignored in embedded documents (at every depth), arrays ordered, numbers by value across
//! int/long/double/decimal (NaN equals NaN, -0 equals 0), and strings equal to symbols.

use std::cmp::Ordering;

use super::number::cmp_num;
use super::raw::{Bad, Elem, Iter, num_of, str_bytes, ty};

/// How deep equality recurses before giving up (deeper than any storable document).
const MAX_DEPTH: usize = 200;

/// The comparison class of a type: values of different classes are never equal.
#[inline]
fn class(t: u8) -> u8 {
    match t {
        ty::INT32 | ty::INT64 | ty::DOUBLE | ty::DECIMAL => ty::DOUBLE,
        ty::SYMBOL => ty::STRING,
        other => other,
    }
}

/// Whether two element values are equal for `enum`/`uniqueItems`.
pub(crate) fn equal(at: u8, a: &[u8], bt: u8, b: &[u8]) -> Result<bool, Bad> {
    equal_at(at, a, bt, b, 0)
}

fn equal_at(at: u8, a: &[u8], bt: u8, b: &[u8], depth: usize) -> Result<bool, Bad> {
    if depth > MAX_DEPTH {
        return Err(Bad);
    }
    if class(at) != class(bt) {
        return Ok(false);
    }
    Ok(match at {
        ty::INT32 | ty::INT64 | ty::DOUBLE | ty::DECIMAL => {
            let (x, y) = (num_of(at, a), num_of(bt, b));
            match (x, y) {
                (Some(x), Some(y)) => cmp_num(x, y) == Ordering::Equal,
                _ => false,
            }
        }
        ty::STRING | ty::SYMBOL => str_bytes(a) == str_bytes(b),
        ty::DOCUMENT => documents_equal(a, b, depth)?,
        ty::ARRAY => {
            let (mut x, mut y) = (Iter::new(a)?, Iter::new(b)?);
            loop {
                match (x.next_elem()?, y.next_elem()?) {
                    (None, None) => break true,
                    (Some(p), Some(q)) => {
                        if !equal_at(p.ty, p.value, q.ty, q.value, depth + 1)? {
                            break false;
                        }
                    }
                    _ => break false,
                }
            }
        }
        // Every other type compares its bytes (binary subtype and data, regex pattern and
        // flags, ObjectId, dates, timestamps, code...).
        _ => a == b,
    })
}

fn count(doc: &[u8]) -> Result<usize, Bad> {
    let mut it = Iter::new(doc)?;
    let mut n = 0;
    while it.next_elem()?.is_some() {
        n += 1;
    }
    Ok(n)
}

fn find<'a>(doc: &'a [u8], name: &[u8]) -> Result<Option<Elem<'a>>, Bad> {
    let mut it = Iter::new(doc)?;
    while let Some(e) = it.next_elem()? {
        if e.name == name {
            return Ok(Some(e));
        }
    }
    Ok(None)
}

fn documents_equal(a: &[u8], b: &[u8], depth: usize) -> Result<bool, Bad> {
    if count(a)? != count(b)? {
        return Ok(false);
    }
    let mut it = Iter::new(a)?;
    while let Some(e) = it.next_elem()? {
        match find(b, e.name)? {
            Some(f) => {
                if !equal_at(e.ty, e.value, f.ty, f.value, depth + 1)? {
                    return Ok(false);
                }
            }
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// A BSON value as the bytes of a one-field document `{"": value}`.
pub(crate) fn to_raw_value(value: &bson::Bson) -> Vec<u8> {
    let mut d = bson::Document::new();
    d.insert("", value.clone());
    d.to_vec().expect("an in-memory document always serializes")
}

/// The single element of a `{"": value}` document made by [`to_raw_value`].
pub(crate) fn first_elem(wrapper: &[u8]) -> Result<Elem<'_>, Bad> {
    Iter::new(wrapper)?.next_elem()?.ok_or(Bad)
}

/// Equality of two values made by [`to_raw_value`].
pub(crate) fn raw_values_equal(a: &[u8], b: &[u8]) -> bool {
    match (first_elem(a), first_elem(b)) {
        (Ok(x), Ok(y)) => equal(x.ty, x.value, y.ty, y.value).unwrap_or(false),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{Bson, doc};

    fn eq(a: Bson, b: Bson) -> bool {
        raw_values_equal(&to_raw_value(&a), &to_raw_value(&b))
    }

    #[test]
    fn documents_ignore_field_order_at_every_depth_but_arrays_do_not() {
        assert!(eq(
            Bson::Document(doc! { "a": 1, "b": { "x": 1, "y": 2 } }),
            Bson::Document(doc! { "b": { "y": 2, "x": 1 }, "a": 1 })
        ));
        assert!(!eq(bson::bson!([1, 2]), bson::bson!([2, 1])));
        assert!(!eq(
            Bson::Document(doc! { "a": 1 }),
            Bson::Document(doc! { "a": 1, "b": 2 })
        ));
    }

    #[test]
    fn numbers_are_equal_by_value_across_types() {
        assert!(eq(Bson::Int32(5), Bson::Double(5.0)));
        assert!(eq(
            Bson::Int64(5),
            Bson::Decimal128("5.00".parse().unwrap())
        ));
        assert!(eq(Bson::Double(-0.0), Bson::Int32(0)));
        assert!(eq(Bson::Double(f64::NAN), Bson::Double(f64::NAN)));
        assert!(!eq(Bson::Int32(5), Bson::String("5".into())));
        assert!(!eq(Bson::Null, Bson::Undefined));
    }
}
