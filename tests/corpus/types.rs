//! The foreign and std types serde users store (issue 11 items 2 and 8), each at the extreme
//! values its crate writes: first and last dates, leap seconds, nanosecond fractions, every
//! offset chrono can read, zero-free integers at their bounds.

use std::cmp::Reverse;
use std::collections::BTreeSet;
use std::marker::PhantomData;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4};
use std::num::{NonZeroI32, NonZeroI64, NonZeroU8, NonZeroU64, Wrapping};
use std::ops::{Bound, Range, RangeInclusive};
use std::time::{Duration, SystemTime};

use chrono::{FixedOffset, TimeZone};
use mongo_schema::MongoSchema;
use proptest::prelude::*;
use proptest_derive::Arbitrary;
use serde::{Deserialize, Serialize};

use crate::values::*;

// ---- chrono at its extremes ----

/// Every instant chrono can hold, leap seconds included (chrono allows one only at second
/// 59), with a fraction of 0, 3, 6 or 9 digits.
pub fn chrono_instant() -> impl Strategy<Value = chrono::NaiveDateTime> {
    let min = chrono::NaiveDateTime::MIN.and_utc().timestamp();
    let max = chrono::NaiveDateTime::MAX.and_utc().timestamp();
    (
        prop_oneof![
            Just(min),
            Just(max),
            Just(-62_167_219_200),
            Just(253_402_300_800),
            min..=max
        ],
        prop_oneof![
            Just(0_u32),
            Just(999_999_999),
            (0_u32..1000).prop_map(|ms| ms * 1_000_000),
            (0_u32..1_000_000).prop_map(|us| us * 1000),
            0_u32..1_000_000_000,
        ],
        any::<bool>(),
    )
        .prop_map(move |(secs, nanos, leap)| {
            // A leap second: second 59 with nanos of 1e9 or more.
            let (secs, nanos) = if leap {
                (secs - secs.rem_euclid(60) + 59, nanos + 1_000_000_000)
            } else {
                (secs, nanos)
            };
            chrono::DateTime::from_timestamp(secs, nanos)
                .or_else(|| chrono::DateTime::from_timestamp(secs, nanos % 1_000_000_000))
                .or_else(|| chrono::DateTime::from_timestamp(max, 0))
                .expect("in range")
                .naive_utc()
        })
}

/// Offsets chrono writes and reads back: it rounds to minutes, and an offset of 23:59:30 or
/// more is written `+24:00`, which it cannot read (left out here, refused by the validator).
pub fn chrono_offset() -> impl Strategy<Value = FixedOffset> {
    prop_oneof![
        Just(0),
        Just(86_369),
        Just(-86_369),
        Just(19_800),
        Just(-20),
        -86_369_i32..=86_369,
    ]
    .prop_map(|s| FixedOffset::east_opt(s).expect("in range"))
}

/// An instant whose local time under any offset chrono can still hold: chrono's `Serialize`
/// panics ("Local time out of range") on the first and last day otherwise.
fn in_offset_range(n: chrono::NaiveDateTime) -> chrono::NaiveDateTime {
    let day = chrono::TimeDelta::days(1);
    n.clamp(
        chrono::NaiveDateTime::MIN + day,
        chrono::NaiveDateTime::MAX - day,
    )
}

/// chrono's own string forms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct ChronoForms {
    #[proptest(strategy = "chrono_instant().prop_map(|n| n.and_utc())")]
    pub utc: chrono::DateTime<chrono::Utc>,
    #[proptest(
        strategy = "(chrono_instant(), chrono_offset()).prop_map(|(n, o)| o.from_utc_datetime(&in_offset_range(n)))"
    )]
    pub offset: chrono::DateTime<FixedOffset>,
    #[proptest(strategy = "chrono_instant()")]
    pub naive: chrono::NaiveDateTime,
    #[proptest(strategy = "chrono_instant().prop_map(|n| n.date())")]
    pub date: chrono::NaiveDate,
    #[proptest(strategy = "chrono_instant().prop_map(|n| n.time())")]
    pub time: chrono::NaiveTime,
    #[proptest(strategy = "(0_u8..7).prop_map(|d| chrono::Weekday::try_from(d).expect(\"day\"))")]
    pub weekday: chrono::Weekday,
    #[proptest(
        strategy = "(1_u8..=12).prop_map(|m| chrono::Month::try_from(m).expect(\"month\"))"
    )]
    pub month: chrono::Month,
    #[proptest(strategy = "time_delta()")]
    pub delta: chrono::TimeDelta,
    #[proptest(strategy = "proptest::option::of(chrono_instant().prop_map(|n| n.date()))")]
    pub maybe_date: Option<chrono::NaiveDate>,
}

pub fn time_delta() -> impl Strategy<Value = chrono::TimeDelta> {
    prop_oneof![
        Just(chrono::TimeDelta::MAX),
        Just(chrono::TimeDelta::MIN),
        Just(chrono::TimeDelta::zero()),
        (-i64::MAX..=i64::MAX).prop_map(chrono::TimeDelta::milliseconds),
    ]
}

// ---- time at its extremes ----

pub fn time_date() -> impl Strategy<Value = time::Date> {
    prop_oneof![
        Just(time::Date::MIN),
        Just(time::Date::MAX),
        (time::Date::MIN.to_julian_day()..=time::Date::MAX.to_julian_day())
            .prop_map(|d| time::Date::from_julian_day(d).expect("in range")),
    ]
}

pub fn time_time() -> impl Strategy<Value = time::Time> {
    (0_u8..24, 0_u8..60, 0_u8..60, 0_u32..1_000_000_000)
        .prop_map(|(h, m, s, n)| time::Time::from_hms_nano(h, m, s, n).expect("in range"))
}

pub fn time_offset() -> impl Strategy<Value = time::UtcOffset> {
    (-93_599_i32..=93_599).prop_map(|s| time::UtcOffset::from_whole_seconds(s).expect("in range"))
}

/// `time`'s tuple forms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct TimeForms {
    #[proptest(
        strategy = "(time_date(), time_time(), time_offset()).prop_map(|(d, t, o)| d.with_time(t).assume_offset(o))"
    )]
    pub offset: time::OffsetDateTime,
    #[proptest(strategy = "(time_date(), time_time()).prop_map(|(d, t)| d.with_time(t))")]
    pub primitive: time::PrimitiveDateTime,
    #[proptest(strategy = "time_date()")]
    pub date: time::Date,
    #[proptest(strategy = "time_time()")]
    pub time: time::Time,
    #[proptest(strategy = "time_offset()")]
    pub utc_offset: time::UtcOffset,
    #[proptest(
        strategy = "(any::<i64>(), 0_i32..1_000_000_000).prop_map(|(s, n)| time::Duration::new(s, if s < 0 { -n } else { n }))"
    )]
    pub duration: time::Duration,
}

// ---- std ----

pub fn system_time() -> impl Strategy<Value = SystemTime> {
    (0_u64..=i64::MAX as u64, 0_u32..1_000_000_000)
        .prop_map(|(s, n)| SystemTime::UNIX_EPOCH + Duration::new(s / 4, n))
}

/// std's structures and wrappers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct StdForms {
    #[proptest(
        strategy = "(0_u64..=i64::MAX as u64, 0_u32..1_000_000_000).prop_map(|(s, n)| Duration::new(s, n))"
    )]
    pub duration: Duration,
    #[proptest(strategy = "system_time()")]
    pub system_time: SystemTime,
    pub range: Range<i32>,
    pub inclusive: RangeInclusive<u8>,
    #[proptest(
        strategy = "prop_oneof![Just(Bound::Unbounded), any::<i64>().prop_map(Bound::Included), any::<i64>().prop_map(Bound::Excluded)]"
    )]
    pub bound: Bound<i64>,
    pub result: Result<String, u16>,
    pub phantom: PhantomData<String>,
    #[proptest(
        strategy = "prop_oneof![Just(NonZeroU8::MIN), Just(NonZeroU8::MAX), (1_u8..).prop_map(|n| NonZeroU8::new(n).expect(\"non-zero\"))]"
    )]
    pub non_zero_u8: NonZeroU8,
    #[proptest(
        strategy = "prop_oneof![Just(NonZeroI32::MIN), Just(NonZeroI32::MAX), Just(NonZeroI32::new(-1).expect(\"non-zero\"))]"
    )]
    pub non_zero_i32: NonZeroI32,
    #[proptest(strategy = "(1_i64..).prop_map(|n| NonZeroI64::new(-n).expect(\"non-zero\"))")]
    pub non_zero_i64: NonZeroI64,
    #[proptest(
        strategy = "(1_u64..=i64::MAX as u64).prop_map(|n| NonZeroU64::new(n).expect(\"non-zero\"))"
    )]
    pub non_zero_u64: NonZeroU64,
    #[proptest(strategy = "any::<u16>().prop_map(Wrapping)")]
    pub wrapping: Wrapping<u16>,
    #[proptest(strategy = "any::<i8>().prop_map(Reverse)")]
    pub reverse: Reverse<i8>,
    #[proptest(strategy = "any::<[u8; 4]>().prop_map(|o| IpAddr::V4(Ipv4Addr::from(o)))")]
    pub ip: IpAddr,
    #[proptest(strategy = "any::<[u8; 16]>().prop_map(Ipv6Addr::from)")]
    pub ipv6: Ipv6Addr,
    #[proptest(
        strategy = "(any::<[u8; 16]>(), any::<u16>()).prop_map(|(o, p)| SocketAddr::from((Ipv6Addr::from(o), p)))"
    )]
    pub socket: SocketAddr,
    #[proptest(
        strategy = "(any::<[u8; 4]>(), any::<u16>()).prop_map(|(o, p)| SocketAddrV4::new(Ipv4Addr::from(o), p))"
    )]
    pub socket_v4: SocketAddrV4,
    pub boxed_str: Box<str>,
    pub boxed_slice: Box<[u8]>,
    #[proptest(
        strategy = "prop::collection::btree_set(any::<IpAddr>().prop_map(|_| IpAddr::V4(Ipv4Addr::LOCALHOST)), 0..2)"
    )]
    pub hosts: BTreeSet<IpAddr>,
    #[proptest(strategy = "any::<String>().prop_map(std::path::PathBuf::from)")]
    pub path: std::path::PathBuf,
}

/// A binary heap (no `PartialEq`, so apart).
#[derive(Debug, Clone, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct HeapForm {
    #[proptest(
        strategy = "prop::collection::vec(any::<i16>(), 0..4).prop_map(std::collections::BinaryHeap::from)"
    )]
    pub heap: std::collections::BinaryHeap<i16>,
}

/// serde_json's dynamic values and indexmap's ordered collections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct DynamicForms {
    #[proptest(strategy = "json_value()")]
    pub value: serde_json::Value,
    #[proptest(
        strategy = "json_value().prop_map(|v| match v { serde_json::Value::Object(m) => m, _ => serde_json::Map::new() })"
    )]
    pub map: serde_json::Map<String, serde_json::Value>,
    #[proptest(
        strategy = "prop::collection::vec((key(), any::<i32>()), 0..3).prop_map(|v| v.into_iter().collect())"
    )]
    pub ordered: indexmap::IndexMap<String, i32>,
    #[proptest(
        strategy = "prop::collection::vec(any::<String>(), 0..3).prop_map(|v| v.into_iter().collect())"
    )]
    pub ordered_set: indexmap::IndexSet<String>,
}

pub fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(serde_json::Value::from),
        (0_u64..=i64::MAX as u64).prop_map(serde_json::Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(serde_json::Value::from),
        any::<String>().prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(key(), inner, 0..3)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

crate::props::properties! {
    cases = 64;
    chrono_forms: ChronoForms,
    time_forms: TimeForms,
    std_forms: StdForms,
    heap_form: HeapForm,
    dynamic_forms: DynamicForms,
}

/// chrono writes an offset of 23:59:30 or more rounded up to `+24:00`, which it cannot read
/// back: the validator refuses it rather than admit a value no read survives.
#[test]
fn chrono_offset_rounded_to_24_hours_is_refused() {
    let at = FixedOffset::east_opt(86_399)
        .expect("in range")
        .from_utc_datetime(&chrono::NaiveDateTime::MIN);
    let doc = bson::serialize_to_raw_document_buf(&Wrap { value: at }).expect("writes");
    let text = doc.get_str("value").expect("a string").to_owned();
    assert!(text.ends_with("+24:00"), "{text}");
    assert!(
        bson::deserialize_from_slice::<Wrap<chrono::DateTime<FixedOffset>>>(doc.as_bytes())
            .is_err()
    );
    assert!(!crate::props::validator::<Wrap<chrono::DateTime<FixedOffset>>>().is_valid(&doc));
}

/// Found by the corpus: `time`'s `Weekday` and `Month` are written as numbers that `time`
/// reads only through `visit_u8`, which bson never calls (it hands over an i32): neither
/// reads back from BSON, so neither has a schema (a model needs `schema_as` and a helper).
#[test]
fn time_weekday_and_month_do_not_read_back_from_bson() {
    let raw = bson::serialize_to_vec(&Wrap {
        value: time::Weekday::Monday,
    })
    .expect("writes");
    assert!(bson::deserialize_from_slice::<Wrap<time::Weekday>>(&raw).is_err());
    let raw = bson::serialize_to_vec(&Wrap {
        value: time::Month::May,
    })
    .expect("writes");
    assert!(bson::deserialize_from_slice::<Wrap<time::Month>>(&raw).is_err());
}

pub fn decimal_value() -> impl Strategy<Value = rust_decimal::Decimal> {
    prop_oneof![
        Just(rust_decimal::Decimal::MAX),
        Just(rust_decimal::Decimal::MIN),
        Just(rust_decimal::Decimal::ZERO),
        Just(rust_decimal::Decimal::new(1, 28)),
        (any::<i64>(), 0_u32..=28).prop_map(|(m, s)| rust_decimal::Decimal::new(m, s)),
    ]
}

pub fn url_value() -> impl Strategy<Value = url::Url> {
    (
        prop_oneof![
            Just("https"),
            Just("mongodb+srv"),
            Just("mailto"),
            Just("file")
        ],
        "[a-z0-9.-]{1,12}",
        "(/[a-zA-Z0-9%._~-]{0,6}){0,3}",
        proptest::option::of("[a-z=&0-9]{0,8}"),
    )
        .prop_filter_map("parses", |(scheme, host, path, query)| {
            let mut text = format!("{scheme}://{host}{path}");
            if let Some(q) = query {
                text.push('?');
                text.push_str(&q);
            }
            url::Url::parse(&text).ok()
        })
}

/// rust_decimal and url, behind their features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
pub struct CrateForms {
    #[proptest(strategy = "decimal_value()")]
    pub amount: rust_decimal::Decimal,
    #[proptest(strategy = "proptest::option::of(decimal_value())")]
    pub discount: Option<rust_decimal::Decimal>,
    #[proptest(strategy = "url_value()")]
    pub link: url::Url,
}

crate::props::properties! {
    cases = 64;
    crate_forms: CrateForms,
}

#[test]
fn decimal_reads_numbers_too() {
    for value in [
        bson::Bson::Int32(-7),
        bson::Bson::Int64(1 << 40),
        bson::Bson::Double(0.25),
    ] {
        let doc = bson::doc! { "amount": value, "discount": null, "link": "https://x" };
        let raw = bson::RawDocumentBuf::try_from(&doc).expect("a document");
        assert!(bson::deserialize_from_slice::<CrateForms>(raw.as_bytes()).is_ok());
        assert!(
            crate::props::validator::<CrateForms>().is_valid(&raw),
            "{doc}"
        );
    }
}

/// What each of bson's serializers writes for one value, as relaxed Extended JSON.
fn both_paths<T: Serialize>(value: T) -> (String, String) {
    let w = Wrap { value };
    let raw = bson::serialize_to_raw_document_buf(&w).expect("raw path writes");
    let raw = bson::Document::try_from(raw.as_ref()).expect("a document");
    let doc = bson::serialize_to_document(&w).expect("document path writes");
    (raw.to_string(), doc.to_string())
}

/// The two serializers agree on every type but those whose serde support asks
/// `is_human_readable` (the document path is human readable, the raw path is not); i128 and
/// u128 are refused by both, and have no schema.
#[test]
fn serializer_paths_differ_only_for_human_readable_types() {
    let same = [
        both_paths(u64::MAX >> 1),
        both_paths('\u{1F600}'),
        both_paths((1_u8, "a", ())),
        both_paths(()),
        both_paths(Duration::new(1, 2)),
        both_paths(1..=3),
        both_paths(Bound::Excluded(2)),
        both_paths(bson::Uuid::from_bytes([1; 16])),
        both_paths(chrono::NaiveDate::MIN),
        both_paths(time::Date::MAX),
        both_paths(rust_decimal::Decimal::new(-12_300, 4)),
    ];
    for (raw, doc) in same {
        assert_eq!(raw, doc);
    }
    for (raw, doc) in [
        both_paths(uuid::Uuid::from_bytes([1; 16])),
        both_paths(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        both_paths(SocketAddr::from(([127, 0, 0, 1], 80))),
    ] {
        assert_ne!(raw, doc);
    }
    assert!(bson::serialize_to_vec(&Wrap { value: 1_i128 }).is_err());
    assert!(bson::serialize_to_document(&Wrap { value: 1_u128 }).is_err());
}

/// The document path's string forms of a uuid and an address are refused: the driver cannot
/// read them back, and the validator keeps them out instead of letting a `$set` break reads.
#[test]
fn document_path_strings_the_driver_cannot_read_are_refused() {
    fn refused<T: Serialize + serde::de::DeserializeOwned + MongoSchema>(value: T) {
        let doc = bson::serialize_to_document(&Wrap { value }).expect("writes");
        let raw = bson::RawDocumentBuf::try_from(&doc).expect("a document");
        assert!(doc.get_str("value").is_ok(), "{doc}");
        assert!(!crate::props::reads::<Wrap<T>>(&raw), "{doc}");
        assert!(
            !crate::props::validator::<Wrap<T>>().is_valid(&raw),
            "{doc}"
        );
    }
    refused(uuid::Uuid::from_bytes([7; 16]));
    refused(IpAddr::V4(Ipv4Addr::LOCALHOST));
    refused(SocketAddr::from(([10, 0, 0, 1], 27017)));
}
