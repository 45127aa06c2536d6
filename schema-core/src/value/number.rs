//! Numbers as the server compares them: int, long, double and decimal128 by value.
//!
//! Decimal128 values are decoded from their BID bits. Every comparison is exact: between two
//! decimals, a decimal and an int/long, and a decimal and a double. The server's
//! `compareDecimalToDouble` (`src/mongo/base/compare_numbers.h`) converts the decimal to a
//! double rounding toward negative infinity and, when that equals the double, calls the
//! decimal greater if the conversion was inexact: that is the exact order of the two values,
//! which [`cmp_dec_f64`] computes on integers (`0.1000000000000000055511151231257827` is below
//! the double `0.1`, whose exact value is `0.1000000000000000055511151231257827021181583404541015625`).
//! `multipleOf` converts both
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
        (Num::Dec(x), Num::Double(y)) => cmp_dec_f64(x, y),
        (Num::Double(x), Num::Dec(y)) => cmp_dec_f64(y, x).reverse(),
    }
}

/// The exact order of a decimal and a double (BSON order: NaN equals NaN and sorts first;
/// -0 equals 0), as the server's `compareDecimalToDouble` gives it.
pub(crate) fn cmp_dec_f64(x: Dec, d: f64) -> Ordering {
    let sign = |zero: bool, neg: bool| match (zero, neg) {
        (true, _) => 0i8,
        (false, true) => -1,
        (false, false) => 1,
    };
    match x {
        _ if d.is_nan() => {
            if x == Dec::NaN {
                Ordering::Equal
            } else {
                Ordering::Greater
            }
        }
        Dec::NaN => Ordering::Less,
        Dec::Inf(neg) if d.is_infinite() && (d < 0.0) == neg => Ordering::Equal,
        Dec::Inf(neg) => {
            if neg {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        Dec::Finite { .. } if d.is_infinite() => {
            if d > 0.0 {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        Dec::Finite { neg, coeff, exp } => {
            let (sx, sd) = (sign(coeff == 0, neg), sign(d == 0.0, d < 0.0));
            if sx != sd || sx == 0 {
                return sx.cmp(&sd);
            }
            let magnitude = cmp_magnitude_f64(coeff, exp, d.abs());
            if sx < 0 {
                magnitude.reverse()
            } else {
                magnitude
            }
        }
    }
}

/// Compares `coeff * 10^exp` (coeff > 0) with a positive finite double, exactly.
fn cmp_magnitude_f64(coeff: u128, exp: i32, d: f64) -> Ordering {
    // The decimal lies in [10^(top-1), 10^top). log10 of the double is off by far less than
    // one, so a gap of two decades decides without big numbers.
    let top = digits(coeff) + exp;
    let log = d.log10();
    if log < f64::from(top - 3) {
        return Ordering::Greater;
    }
    if log > f64::from(top + 1) {
        return Ordering::Less;
    }
    // d = m * 2^k exactly; compare coeff * 10^exp with m * 2^k on integers.
    let bits = d.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (m, k) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    let mut lhs = Big::from_u128(coeff);
    let mut rhs = Big::from_u128(u128::from(m));
    if exp >= 0 {
        lhs.mul_pow10(exp.unsigned_abs());
    } else {
        rhs.mul_pow10(exp.unsigned_abs());
    }
    if k >= 0 {
        rhs.shl(k.unsigned_abs());
    } else {
        lhs.shl(k.unsigned_abs());
    }
    lhs.cmp(&rhs)
}

/// A non-negative integer in base 2^32, least significant limb first: just enough arithmetic
/// for [`cmp_magnitude_f64`] (values up to about 2^2500 there).
#[derive(Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u128(v: u128) -> Big {
        let mut limbs: Vec<u32> = (0..4).map(|i| (v >> (32 * i)) as u32).collect();
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
        Big(limbs)
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        self.mul_small(10u32.pow(n));
    }

    fn shl(&mut self, bits: u32) {
        if self.0.is_empty() {
            return;
        }
        let (limbs, rest) = ((bits / 32) as usize, bits % 32);
        if rest > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let wide = (u64::from(*limb) << rest) | u64::from(carry);
                *limb = wide as u32;
                carry = (wide >> 32) as u32;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Big) -> Ordering {
        // Both are trimmed: no high zero limbs (shifts and products never leave one).
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Big) -> Option<Ordering> {
        Some(self.cmp(other))
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
        assert_eq!(
            cmp_num(Num::Dec(dec("0.1")), Num::Double(0.1)),
            Ordering::Less
        );
        // The double 0.1 is 0.1000000000000000055511151231257827021181583404541015625: its
        // 34-digit rounding is below it (issue 12 item 2; compare_numbers.h
        // compareDecimalToDouble rounds the decimal toward negative and flags it inexact).
        let rounded = dec("0.1000000000000000055511151231257827");
        assert_eq!(cmp_num(Num::Dec(rounded), Num::Double(0.1)), Ordering::Less);
        let above = dec("0.1000000000000000055511151231257828");
        assert_eq!(
            cmp_num(Num::Dec(above), Num::Double(0.1)),
            Ordering::Greater
        );
        assert_eq!(
            cmp_num(Num::Double(0.1), Num::Dec(rounded)),
            Ordering::Greater
        );
        assert_eq!(
            cmp_num(Num::Dec(dec("-0")), Num::Double(0.0)),
            Ordering::Equal
        );
        assert_eq!(
            cmp_num(Num::Dec(dec("1E+400")), Num::Double(f64::MAX)),
            Ordering::Greater
        );
        assert_eq!(
            cmp_num(Num::Dec(dec("1E+400")), Num::Double(f64::INFINITY)),
            Ordering::Less
        );
        assert_eq!(
            cmp_num(Num::Dec(dec("1E-400")), Num::Double(5e-324)),
            Ordering::Less
        );
        assert_eq!(
            cmp_num(Num::Dec(dec("-Infinity")), Num::Double(f64::NEG_INFINITY)),
            Ordering::Equal
        );
        assert_eq!(
            cmp_num(Num::Dec(dec("NaN")), Num::Double(f64::NAN)),
            Ordering::Equal
        );
        assert_eq!(
            cmp_num(Num::Dec(dec("NaN")), Num::Double(f64::NEG_INFINITY)),
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

    /// The exact value of a double and of a decimal, as rationals (an independent reference).
    fn rational_f64(d: f64) -> num_rational::BigRational {
        num_rational::BigRational::from_float(d).expect("finite")
    }

    fn rational_dec(neg: bool, coeff: u128, exp: i32) -> num_rational::BigRational {
        use num_bigint::BigInt;
        let c = BigInt::from(coeff) * if neg { -1 } else { 1 };
        let p = BigInt::from(10u8).pow(exp.unsigned_abs());
        if exp >= 0 {
            num_rational::BigRational::from_integer(c * p)
        } else {
            num_rational::BigRational::new(c, p)
        }
    }

    fn check_against_reference(
        neg: bool,
        coeff: u128,
        exp: i32,
        d: f64,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let want = rational_dec(neg, coeff, exp).cmp(&rational_f64(d));
        let got = cmp_dec_f64(Dec::Finite { neg, coeff, exp }, d);
        proptest::prop_assert_eq!(
            got,
            want,
            "{}{}e{} vs {:e}",
            if neg { "-" } else { "" },
            coeff,
            exp,
            d
        );
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn decimal_against_double_agrees_with_exact_rationals(
            bits in proptest::prelude::any::<u64>(),
            coeff in 0u128..=MAX_COEFF,
            exp in -420i32..=330,
            neg in proptest::prelude::any::<bool>(),
        ) {
            let d = f64::from_bits(bits);
            proptest::prop_assume!(d.is_finite());
            check_against_reference(neg, coeff, exp, d)?;
        }

        #[test]
        fn near_ties_agree_with_exact_rationals(
            bits in proptest::prelude::any::<u64>(),
            digits in 1usize..=34,
            nudge in -2i128..=2,
        ) {
            // The double's own decimal rounding at 1 to 34 digits, nudged by up to two units in
            // the last digit: the pairs where rounding the double first gets the order wrong.
            let d = f64::from_bits(bits);
            proptest::prop_assume!(d.is_finite() && d != 0.0);
            let Dec::Finite { neg, coeff, exp } = Dec::from_f64(d, digits) else {
                unreachable!("finite doubles round to finite decimals")
            };
            let coeff = u128::try_from(coeff as i128 + nudge).unwrap_or(0).min(MAX_COEFF);
            check_against_reference(neg, coeff, exp, d)?;
            // And doubles next to the value, both ways.
            check_against_reference(neg, coeff, exp, f64::from_bits(bits.wrapping_add(1)))?;
        }
    }

    #[test]
    fn exact_decimals_of_doubles_are_equal() {
        for d in [
            0.5,
            2.5,
            1e22,
            5e-324,
            f64::MAX,
            -0.375,
            9_007_199_254_740_993.0,
        ] {
            let exact = rational_f64(d);
            // A double with at most 34 significant digits is exactly a decimal128.
            let Dec::Finite { neg, coeff, exp } = Dec::from_f64(d, 34) else {
                unreachable!()
            };
            if rational_dec(neg, coeff, exp) == exact {
                assert_eq!(
                    cmp_dec_f64(Dec::Finite { neg, coeff, exp }, d),
                    Ordering::Equal,
                    "{d:e}"
                );
            }
        }
        assert_eq!(cmp_dec_f64(dec("0.5"), 0.5), Ordering::Equal);
        assert_eq!(cmp_dec_f64(dec("1E+22"), 1e22), Ordering::Equal);
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
