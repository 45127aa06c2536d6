//! Numbers as the server compares them: int, long, double and decimal128 by value.
//!
//! Decimal128 values are decoded from their BID bits. Comparisons between two decimals, or a
//! decimal and an int/long, are exact. A double meets a decimal after rounding the double to 34
//! significant digits, as the server does (`compareDecimalToDouble`). `multipleOf` converts both
//! sides to decimal the way the server's `$_internalSchemaFmod` does: doubles rounded to 15
//! significant digits, integers exactly, then tests that the remainder is zero exactly.

use std::cmp::Ordering;

/// A decoded decimal128.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Dec {
    /// Any NaN (quiet or signalling).
    NaN,
    /// An infinity; `true` when negative.
    Inf(bool),
    /// `(-1)^neg * coeff * 10^exp`, with `coeff < 10^34`.
    Finite { neg: bool, coeff: u128, exp: i32 },
}

const MAX_COEFF: u128 = 9_999_999_999_999_999_999_999_999_999_999_999;

impl Dec {
    /// Decodes the 16 little-endian bytes of a BSON decimal128.
    pub(crate) fn from_bytes(bytes: [u8; 16]) -> Dec {
        let bits = u128::from_le_bytes(bytes);
        let neg = bits >> 127 == 1;
        let combination = (bits >> 122) & 0x1f;
        if combination == 0x1f {
            return Dec::NaN;
        }
        if combination == 0x1e {
            return Dec::Inf(neg);
        }
        let (exp_bits, coeff) = if (bits >> 125) & 0b11 == 0b11 {
            // The implicit 100 prefix makes the coefficient exceed 10^34: non-canonical, read as 0.
            (((bits >> 111) & 0x3fff) as i32, 0)
        } else {
            (((bits >> 113) & 0x3fff) as i32, bits & ((1u128 << 113) - 1))
        };
        let coeff = if coeff > MAX_COEFF { 0 } else { coeff };
        Dec::Finite {
            neg,
            coeff,
            exp: exp_bits - 6176,
        }
    }

    /// The exact value of an integer.
    pub(crate) fn from_i64(v: i64) -> Dec {
        Dec::Finite {
            neg: v < 0,
            coeff: u128::from(v.unsigned_abs()),
            exp: 0,
        }
    }

    /// A double rounded to `digits` significant decimal digits (1 to 34).
    pub(crate) fn from_f64(v: f64, digits: usize) -> Dec {
        if v.is_nan() {
            return Dec::NaN;
        }
        if v.is_infinite() {
            return Dec::Inf(v < 0.0);
        }
        if v == 0.0 {
            return Dec::Finite {
                neg: v.is_sign_negative(),
                coeff: 0,
                exp: 0,
            };
        }
        // Rust's `{:.Ne}` formatting is exact and correctly rounded.
        let text = format!("{:.*e}", digits - 1, v.abs());
        let (mantissa, exponent) = text
            .split_once('e')
            .expect("`{:e}` always writes an exponent");
        let mut coeff: u128 = 0;
        for b in mantissa.bytes().filter(u8::is_ascii_digit) {
            coeff = coeff * 10 + u128::from(b - b'0');
        }
        let exponent: i32 = exponent.parse().expect("`{:e}` writes a decimal exponent");
        Dec::Finite {
            neg: v < 0.0,
            coeff,
            exp: exponent - (digits as i32 - 1),
        }
    }

    fn is_zero(self) -> bool {
        matches!(self, Dec::Finite { coeff: 0, .. })
    }

    /// Whether the value is a whole number that fits in i64, and which.
    pub(crate) fn to_i64_exact(self) -> Option<i64> {
        let Dec::Finite { neg, coeff, exp } = self else {
            return None;
        };
        if coeff == 0 {
            return Some(0);
        }
        let mut c = coeff;
        let mut e = exp;
        while e < 0 {
            if c % 10 != 0 {
                return None;
            }
            c /= 10;
            e += 1;
        }
        while e > 0 {
            c = c.checked_mul(10)?;
            e -= 1;
        }
        if neg {
            let v = i128::try_from(c).ok()?;
            i64::try_from(-v).ok()
        } else {
            i64::try_from(c).ok()
        }
    }
}

fn digits(mut c: u128) -> i32 {
    let mut n = 0;
    while c > 0 {
        c /= 10;
        n += 1;
    }
    n
}

/// Compares two non-negative finite decimals by magnitude.
fn cmp_magnitude(ca: u128, ea: i32, cb: u128, eb: i32) -> Ordering {
    match (ca == 0, cb == 0) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let (da, db) = (digits(ca), digits(cb));
    let adj = (da + ea).cmp(&(db + eb));
    if adj != Ordering::Equal {
        return adj;
    }
    // Same magnitude: scale both coefficients to the same digit count (at most 34 digits each).
    let (mut a, mut b) = (ca, cb);
    if da < db {
        a *= 10u128.pow((db - da) as u32);
    } else {
        b *= 10u128.pow((da - db) as u32);
    }
    a.cmp(&b)
}

/// BSON order between decimals: NaN equals NaN and sorts below every other number.
pub(crate) fn cmp_dec(a: Dec, b: Dec) -> Ordering {
    match (a, b) {
        (Dec::NaN, Dec::NaN) => Ordering::Equal,
        (Dec::NaN, _) => Ordering::Less,
        (_, Dec::NaN) => Ordering::Greater,
        (Dec::Inf(x), Dec::Inf(y)) => y.cmp(&x),
        (Dec::Inf(neg), _) => {
            if neg {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (_, Dec::Inf(neg)) => {
            if neg {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (
            Dec::Finite {
                neg: na,
                coeff: ca,
                exp: ea,
            },
            Dec::Finite {
                neg: nb,
                coeff: cb,
                exp: eb,
            },
        ) => {
            let na = na && ca != 0;
            let nb = nb && cb != 0;
            match (na, nb) {
                (false, true) => Ordering::Greater,
                (true, false) => Ordering::Less,
                (false, false) => cmp_magnitude(ca, ea, cb, eb),
                (true, true) => cmp_magnitude(cb, eb, ca, ea),
            }
        }
    }
}

/// A BSON number, read from a document or a schema.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    /// Int32 or Int64.
    Int(i64),
    /// Double.
    Double(f64),
    /// Decimal128.
    Dec(Dec),
}

impl Num {
    /// Converts a schema bound.
    pub(crate) fn from_ir(n: crate::schema::Number) -> Num {
        use crate::schema::Number;
        match n {
            Number::Int32(v) => Num::Int(i64::from(v)),
            Number::Int64(v) => Num::Int(v),
            Number::Double(v) => Num::Double(v),
            Number::Decimal128(v) => Num::Dec(Dec::from_bytes(v.bytes())),
        }
    }

    /// Whether the value is a NaN.
    pub(crate) fn is_nan(self) -> bool {
        match self {
            Num::Int(_) => false,
            Num::Double(v) => v.is_nan(),
            Num::Dec(d) => d == Dec::NaN,
        }
    }

    /// The value as the server's `numberDecimal()` gives it (doubles to 15 digits).
    pub(crate) fn to_dec15(self) -> Dec {
        match self {
            Num::Int(v) => Dec::from_i64(v),
            Num::Double(v) => Dec::from_f64(v, 15),
            Num::Dec(d) => d,
        }
    }
}

fn cmp_i64_f64(l: i64, d: f64) -> Ordering {
    if d.is_nan() {
        return Ordering::Greater;
    }
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if d >= TWO_63 {
        return Ordering::Less;
    }
    if d < -TWO_63 {
        return Ordering::Greater;
    }
    let t = d.trunc();
    // In range, so the cast is exact.
    let ti = t as i64;
    match l.cmp(&ti) {
        Ordering::Equal => {
            if d > t {
                Ordering::Less
            } else if d < t {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        other => other,
    }
}

/// BSON order between any two numbers (NaN equals NaN and sorts first; -0 equals 0).
pub(crate) fn cmp_num(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Int(x), Num::Double(y)) => cmp_i64_f64(x, y),
        (Num::Double(x), Num::Int(y)) => cmp_i64_f64(y, x).reverse(),
        (Num::Double(x), Num::Double(y)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => x.partial_cmp(&y).expect("neither is NaN"),
        },
        (Num::Dec(x), Num::Dec(y)) => cmp_dec(x, y),
        (Num::Dec(x), Num::Int(y)) => cmp_dec(x, Dec::from_i64(y)),
        (Num::Int(x), Num::Dec(y)) => cmp_dec(Dec::from_i64(x), y),
        (Num::Dec(x), Num::Double(y)) => cmp_dec(x, Dec::from_f64(y, 34)),
        (Num::Double(x), Num::Dec(y)) => cmp_dec(Dec::from_f64(x, 34), y),
    }
}

fn mul_mod(mut a: u128, mut b: u128, m: u128) -> u128 {
    // Double-and-add keeps every intermediate below 2m < 2^114.
    a %= m;
    let mut r = 0u128;
    while b > 0 {
        if b & 1 == 1 {
            r = (r + a) % m;
        }
        a = (a * 2) % m;
        b >>= 1;
    }
    r
}

fn pow10_mod(mut k: u32, m: u128) -> u128 {
    let mut base = 10 % m;
    let mut r = 1 % m;
    while k > 0 {
        if k & 1 == 1 {
            r = mul_mod(r, base, m);
        }
        base = mul_mod(base, base, m);
        k >>= 1;
    }
    r
}

/// Whether `value` is a whole multiple of the positive `divisor` (decimal remainder is zero).
pub(crate) fn is_multiple(value: Dec, divisor: Dec) -> bool {
    match (value, divisor) {
        (Dec::NaN | Dec::Inf(_), _) | (_, Dec::NaN) => false,
        // x mod inf = x
        (v, Dec::Inf(_)) => v.is_zero(),
        (
            Dec::Finite {
                coeff: cx, exp: ex, ..
            },
            Dec::Finite {
                coeff: cy, exp: ey, ..
            },
        ) => {
            if cy == 0 {
                return false;
            }
            if cx == 0 {
                return true;
            }
            if ex >= ey {
                // cx * 10^(ex-ey) mod cy
                let k = (ex - ey) as u32;
                mul_mod(cx, pow10_mod(k, cy), cy) == 0
            } else {
                // cx mod (cy * 10^(ey-ex)); the divisor is larger than cx once it overflows.
                let k = (ey - ex) as u32;
                match 10u128.checked_pow(k).and_then(|p| p.checked_mul(cy)) {
                    Some(y) => cx % y == 0,
                    None => false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Dec {
        let d: bson::Decimal128 = s.parse().unwrap();
        Dec::from_bytes(d.bytes())
    }

    #[test]
    fn decimals_compare_by_value_across_exponents() {
        assert_eq!(cmp_dec(dec("1.0"), dec("1")), Ordering::Equal);
        assert_eq!(cmp_dec(dec("-0"), dec("0")), Ordering::Equal);
        assert_eq!(cmp_dec(dec("1.01"), dec("1.1")), Ordering::Less);
        assert_eq!(cmp_dec(dec("-5"), dec("-4.99")), Ordering::Less);
        assert_eq!(cmp_dec(dec("NaN"), dec("-Infinity")), Ordering::Less);
        assert_eq!(cmp_dec(dec("1E+10"), dec("9999999999")), Ordering::Greater);
    }

    #[test]
    fn numbers_compare_across_types() {
        assert_eq!(cmp_num(Num::Int(5), Num::Double(5.0)), Ordering::Equal);
        assert_eq!(cmp_num(Num::Int(5), Num::Double(5.5)), Ordering::Less);
        assert_eq!(
            cmp_num(Num::Int(i64::MAX), Num::Double(9.3e18)),
            Ordering::Less
        );
        assert_eq!(cmp_num(Num::Dec(dec("5")), Num::Int(5)), Ordering::Equal);
        assert_eq!(
            cmp_num(Num::Dec(dec("2.5")), Num::Double(2.5)),
            Ordering::Equal
        );
        // 0.1 as a double is 0.1000000000000000055511151231257827 at 34 digits.
        assert_eq!(
            cmp_num(Num::Dec(dec("0.1")), Num::Double(0.1)),
            Ordering::Less
        );
        assert_eq!(
            cmp_num(Num::Double(f64::NAN), Num::Double(f64::NAN)),
            Ordering::Equal
        );
        assert_eq!(
            cmp_num(Num::Double(f64::NAN), Num::Int(i64::MIN)),
            Ordering::Less
        );
    }

    #[test]
    fn multiple_of_uses_decimal_arithmetic() {
        assert!(is_multiple(
            Num::Double(0.3).to_dec15(),
            Num::Double(0.1).to_dec15()
        ));
        assert!(is_multiple(Dec::from_i64(10), Dec::from_i64(5)));
        assert!(!is_multiple(Dec::from_i64(7), Dec::from_i64(5)));
        assert!(is_multiple(dec("1E+40"), dec("7E+3")) == (pow10_mod(37, 7) == 0));
        assert!(!is_multiple(dec("5"), dec("1E+50")));
        assert!(is_multiple(dec("2.50"), dec("0.5")));
    }

    #[test]
    fn decimal_whole_numbers_convert_exactly() {
        assert_eq!(dec("5.0").to_i64_exact(), Some(5));
        assert_eq!(dec("5.5").to_i64_exact(), None);
        assert_eq!(dec("-3E+2").to_i64_exact(), Some(-300));
    }
}
