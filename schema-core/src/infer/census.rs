//! The census: what every path of a collection holds, counted over raw BSON documents in one
//! pass with bounded memory. The input of `infer`'s Rust generator and of its report.
//!
//! Every statistic is a commutative monoid (counts add, ranges widen, bounded sets unite and
//! overflow), so the census of two halves merged ([`Census::merge`]) equals the census of the
//! whole: a scan can be split across cores.

use std::collections::{BTreeMap, BTreeSet};

use bson::RawDocument;
use indexmap::IndexMap;
use serde::Serialize;

use crate::schema::BsonType;
use crate::value::raw::{self, Bad, Elem, Iter, ty};

/// How deep the census descends: the server's nesting limit for stored documents, the root
/// document being level 1 (as [`crate::eval::MAX_DEPTH`] counts).
pub const MAX_DEPTH: usize = crate::eval::MAX_DEPTH;

/// How many distinct field names one object path may have before its keys count as data (a map
/// from ids, dates or names to values) and stop being tracked one by one.
pub const MAX_FIELDS: usize = 64;

/// How many distinct string values a path keeps as enum candidates before it stops tracking them.
pub const MAX_DISTINCT: usize = 32;

/// Strings longer than this (in bytes) are not enum candidates: seeing one stops the tracking.
pub const MAX_DISTINCT_LEN: usize = 64;

/// How many distinct values a root-level string field may take and still be read as a
/// discriminator (one variant per value).
pub const MAX_VARIANTS: usize = 16;

/// The BSON type of a value's type byte, as the server spells it in `bsonType` (the schema IR's
/// one table of type names; `number` never occurs here).
fn kind_of(t: u8) -> Result<BsonType, Bad> {
    bson::spec::ElementType::from(t)
        .map(BsonType::of)
        .ok_or(Bad)
}

/// Names and strings must be UTF-8, as bson's reader requires.
fn utf8(bytes: &[u8]) -> Result<&str, Bad> {
    std::str::from_utf8(bytes).map_err(|_| Bad)
}

/// bson's error for a document the census's reader (the evaluator's, `value::raw`) found
/// malformed, with the place and reason the evaluator's structure check gives.
fn malformed(doc: &RawDocument) -> bson::error::Error {
    let reason = match raw::check_structure(doc.as_bytes()) {
        Err(m) => m.to_string(),
        Ok(()) => "malformed BSON".to_owned(),
    };
    let mut error = RawDocument::from_bytes(&[]).expect_err("an empty slice is no document");
    error.message = Some(reason);
    error
}

/// How many values of each BSON type a path held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeCounts([u64; BsonType::ALL.len()]);

impl TypeCounts {
    /// How many values of `kind`.
    pub fn get(&self, kind: BsonType) -> u64 {
        self.0[kind as usize]
    }

    /// The kinds seen at least once, with their counts.
    pub fn seen(&self) -> impl Iterator<Item = (BsonType, u64)> + '_ {
        BsonType::ALL
            .into_iter()
            .filter_map(|k| Some((k, self.get(k))).filter(|(_, n)| *n > 0))
    }

    /// Whether every value seen is one of `kinds`.
    pub fn only(&self, kinds: &[BsonType]) -> bool {
        self.seen().all(|(k, _)| kinds.contains(&k))
    }

    /// Counts `n` more values of `kind` (a census assembled from a server's statistics,
    /// [`super::census_stats`]).
    pub fn add(&mut self, kind: BsonType, n: u64) {
        self.0[kind as usize] += n;
    }

    fn merge(&mut self, other: &TypeCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}

impl Serialize for TypeCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.seen().map(|(k, n)| (k.as_str(), n)))
    }
}

/// The smallest and largest value seen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Range<T> {
    /// The smallest.
    pub min: T,
    /// The largest.
    pub max: T,
}

impl<T: PartialOrd + Copy> Range<T> {
    fn widen(range: &mut Option<Range<T>>, value: T) {
        match range {
            Some(r) => {
                if value < r.min {
                    r.min = value;
                }
                if value > r.max {
                    r.max = value;
                }
            }
            None => {
                *range = Some(Range {
                    min: value,
                    max: value,
                })
            }
        }
    }

    fn merge(range: &mut Option<Range<T>>, other: Option<Range<T>>) {
        if let Some(o) = other {
            Range::widen(range, o.min);
            Range::widen(range, o.max);
        }
    }
}

/// Array lengths: the range and a histogram of power-of-two buckets, enough for a p99 estimate
/// in fixed memory (bucket `i` counts lengths in `[2^(i-1), 2^i)`, bucket 0 the empty arrays, the last every longer one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lengths {
    /// Shortest and longest array.
    pub range: Option<Range<u64>>,
    buckets: [u64; Lengths::BUCKETS],
}

impl Lengths {
    /// How many buckets the histogram has.
    pub const BUCKETS: usize = 32;

    /// The bucket a length is counted in: 0 for the empty arrays, `i` for lengths in
    /// `[2^(i-1), 2^i)`, the last for every longer one.
    pub fn bucket_of(len: u64) -> usize {
        ((u64::BITS - len.leading_zeros()) as usize).min(Self::BUCKETS - 1)
    }

    /// Counts `n` arrays whose lengths fall in `bucket` and lie within `range` (a census
    /// assembled from a server's statistics, [`super::census_stats`]); a bucket past the last
    /// counts in the last.
    pub fn add_bucket(&mut self, bucket: usize, n: u64, range: Range<u64>) {
        Range::merge(&mut self.range, Some(range));
        self.buckets[bucket.min(Self::BUCKETS - 1)] += n;
    }

    fn add(&mut self, len: u64) {
        Range::widen(&mut self.range, len);
        self.buckets[Self::bucket_of(len)] += 1;
    }

    fn merge(&mut self, other: &Lengths) {
        Range::merge(&mut self.range, other.range);
        for (a, b) in self.buckets.iter_mut().zip(other.buckets) {
            *a += b;
        }
    }

    /// An upper bound of the 99th percentile length: the top of the bucket it falls in, never
    /// above the longest array seen. `None` when no array was seen.
    pub fn p99(&self) -> Option<u64> {
        let total: u64 = self.buckets.iter().sum();
        let range = self.range?;
        // The smallest bucket at which at least 99% of the arrays are counted.
        let target = total - total / 100;
        let mut seen = 0;
        for (i, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= target {
                let top = if i == 0 { 0 } else { (1u64 << i) - 1 };
                return Some(top.min(range.max));
            }
        }
        Some(range.max)
    }
}

/// Distinct values up to a bound: the enum candidates of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distinct {
    /// The values, or `None` once more than [`MAX_DISTINCT`] (or one longer than
    /// [`MAX_DISTINCT_LEN`]) were seen.
    pub values: Option<BTreeSet<String>>,
}

impl Default for Distinct {
    fn default() -> Self {
        Distinct {
            values: Some(BTreeSet::new()),
        }
    }
}

impl Distinct {
    fn add(&mut self, value: &str) {
        let Some(values) = &mut self.values else {
            return;
        };
        if value.len() > MAX_DISTINCT_LEN {
            self.values = None;
        } else if !values.contains(value) {
            values.insert(value.to_owned());
            if values.len() > MAX_DISTINCT {
                self.values = None;
            }
        }
    }

    fn merge(&mut self, other: &Distinct) {
        match (&mut self.values, &other.values) {
            (Some(mine), Some(theirs)) => {
                mine.extend(theirs.iter().cloned());
                if mine.len() > MAX_DISTINCT {
                    self.values = None;
                }
            }
            _ => self.values = None,
        }
    }
}

/// The fields of an object path: tracked by name, or, once the names look like data, as one map.
#[derive(Clone, Debug, PartialEq)]
pub enum Fields {
    /// Each field by name, in the order first seen.
    Named(IndexMap<String, Node>),
    /// More than [`MAX_FIELDS`] distinct names: every value under any key, together.
    Map {
        /// How many keys were seen in all (one per key per object).
        keys: u64,
        /// The values of every key.
        values: Box<Node>,
    },
}

impl Default for Fields {
    fn default() -> Self {
        Fields::Named(IndexMap::new())
    }
}

impl Fields {
    /// The node values under `key` are counted in.
    fn slot(&mut self, key: &str) -> &mut Node {
        if let Fields::Named(named) = self {
            if !named.contains_key(key) && named.len() >= MAX_FIELDS {
                self.fold_into_map();
            }
        }
        match self {
            // Look up by &str first: a key is allocated once per path, not once per value.
            Fields::Named(named) => {
                let index = match named.get_index_of(key) {
                    Some(index) => index,
                    None => named.insert_full(key.to_owned(), Node::default()).0,
                };
                named
                    .get_index_mut(index)
                    .expect("the index was just found or inserted")
                    .1
            }
            Fields::Map { keys, values } => {
                *keys += 1;
                values
            }
        }
    }

    /// [`Fields::slot`] for a name's bytes, trying the field at `hint` first (a byte comparison:
    /// a name equal to a stored one needs no UTF-8 check); `hint` becomes the next position.
    fn slot_hinted(&mut self, name: &[u8], hint: &mut usize) -> Result<&mut Node, Bad> {
        let index = match &*self {
            Fields::Named(named) => {
                let found = match named.get_index(*hint) {
                    Some((k, _)) if k.as_bytes() == name => Some(*hint),
                    _ => named.get_index_of(utf8(name)?),
                };
                // A new name goes last (unless it turns the names into a map).
                *hint = found.map_or(named.len(), |i| i) + 1;
                found
            }
            Fields::Map { .. } => None,
        };
        match (index, self) {
            (Some(index), Fields::Named(named)) => Ok(&mut named[index]),
            (_, fields) => Ok(fields.slot(utf8(name)?)),
        }
    }

    /// Folds every named field into one map node.
    fn fold_into_map(&mut self) {
        if let Fields::Named(named) = self {
            let mut values = Node::default();
            let mut keys = 0;
            for node in named.values() {
                keys += node.count;
                values.merge(node);
            }
            *self = Fields::Map {
                keys,
                values: Box::new(values),
            };
        }
    }

    fn merge(&mut self, other: &Fields) {
        match other {
            Fields::Named(theirs) => {
                for (key, node) in theirs {
                    match self {
                        Fields::Named(mine) if mine.contains_key(key) => {
                            mine.get_mut(key).expect("checked").merge(node);
                        }
                        _ => {
                            // Counted as `slot` counts one key: the value node merged whole.
                            let slot = self.slot(key);
                            slot.merge(node);
                            if let Fields::Map { keys, .. } = self {
                                // `slot` counted one key; the node holds `count` of them.
                                *keys += node.count - 1;
                            }
                        }
                    }
                }
            }
            Fields::Map { keys, values } => {
                self.fold_into_map();
                if let Fields::Map {
                    keys: mine,
                    values: mine_values,
                } = self
                {
                    *mine += keys;
                    mine_values.merge(values);
                }
            }
        }
    }
}

/// What one path held across the documents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    /// Values seen at this path (for array elements, elements seen).
    pub count: u64,
    /// Their BSON types.
    pub types: TypeCounts,
    /// String lengths, in characters.
    pub string_length: Option<Range<u64>>,
    /// Distinct strings (enum candidates).
    pub strings: Distinct,
    /// `int` values.
    pub int: Option<Range<i32>>,
    /// `long` values.
    pub long: Option<Range<i64>>,
    /// `double` values (NaN aside).
    pub double: Option<Range<f64>>,
    /// Dates, in milliseconds since the epoch.
    pub date: Option<Range<i64>>,
    /// Binary values by subtype.
    pub binary_subtypes: BTreeMap<u8, u64>,
    /// Binary values of subtype 4 (UUID) that are not 16 bytes long.
    pub bad_uuids: u64,
    /// Array lengths.
    pub lengths: Lengths,
    /// The elements of arrays at this path, all together.
    pub elements: Option<Box<Node>>,
    /// The fields of objects at this path.
    pub fields: Fields,
    /// Objects or arrays here that were not looked into: deeper than [`MAX_DEPTH`].
    pub too_deep: u64,
}

impl Node {
    /// Objects seen here: the documents that could have each field below.
    pub fn objects(&self) -> u64 {
        self.types.get(BsonType::Object)
    }

    /// Adds one value seen at this path, `depth` being the nesting level of the value's
    /// container (the root document is level 1). Returns whether a part was too deep.
    ///
    /// The value is read by the evaluator's reader (`value::raw`, which decodes only what is
    /// asked), checked as bson's reader checks it: UTF-8 names and strings, booleans 0 or 1.
    fn add(&mut self, t: u8, value: &[u8], depth: usize) -> Result<bool, Bad> {
        self.count += 1;
        let kind = kind_of(t)?;
        self.types.0[kind as usize] += 1;
        let mut deep = false;
        match t {
            ty::STRING => {
                let s = utf8(raw::str_bytes(value))?;
                Range::widen(&mut self.string_length, s.chars().count() as u64);
                self.strings.add(s);
            }
            ty::INT32 => Range::widen(&mut self.int, raw::i32_of(value)),
            ty::INT64 => Range::widen(&mut self.long, raw::i64_of(value)),
            ty::DOUBLE => {
                let d = raw::f64_of(value);
                if !d.is_nan() {
                    Range::widen(&mut self.double, d);
                }
            }
            ty::DATE => Range::widen(&mut self.date, raw::i64_of(value)),
            ty::BINARY => {
                // Length, subtype, bytes (`value_len` counted 5 + the length).
                let subtype = value[4];
                *self.binary_subtypes.entry(subtype).or_default() += 1;
                if subtype == 4 && value.len() - 5 != 16 {
                    self.bad_uuids += 1;
                }
            }
            ty::BOOL if value[0] > 1 => return Err(Bad),
            ty::CODE | ty::SYMBOL => {
                utf8(raw::str_bytes(value))?;
            }
            // Pattern and options, each NUL-terminated.
            ty::REGEX => {
                utf8(value)?;
            }
            ty::DOCUMENT | ty::ARRAY if depth + 1 > MAX_DEPTH => {
                self.too_deep += 1;
                deep = true;
            }
            ty::DOCUMENT => deep = self.add_fields(value, depth + 1)?,
            ty::ARRAY => deep = self.add_elements(value, depth + 1)?,
            _ => {}
        }
        Ok(deep)
    }

    fn add_fields(&mut self, doc: &[u8], depth: usize) -> Result<bool, Bad> {
        let mut deep = false;
        // Documents of a collection mostly list their fields in one order: the field after the
        // last one found is tried first, a byte comparison instead of a hash lookup.
        let mut hint = 0;
        let mut elements = Iter::new(doc)?;
        while let Some(e) = elements.next_elem()? {
            deep |= self
                .fields
                .slot_hinted(e.name, &mut hint)?
                .add(e.ty, e.value, depth)?;
        }
        Ok(deep)
    }

    fn add_elements(&mut self, array: &[u8], depth: usize) -> Result<bool, Bad> {
        let elements = self.elements.get_or_insert_with(Box::default);
        let mut deep = false;
        let mut len = 0;
        let mut values = Iter::new(array)?;
        while let Some(e) = values.next_elem()? {
            deep |= elements.add(e.ty, e.value, depth)?;
            len += 1;
        }
        self.lengths.add(len);
        Ok(deep)
    }

    /// Adds everything `other` counted to this node.
    pub fn merge(&mut self, other: &Node) {
        self.count += other.count;
        self.types.merge(&other.types);
        Range::merge(&mut self.string_length, other.string_length);
        self.strings.merge(&other.strings);
        Range::merge(&mut self.int, other.int);
        Range::merge(&mut self.long, other.long);
        Range::merge(&mut self.double, other.double);
        Range::merge(&mut self.date, other.date);
        for (subtype, n) in &other.binary_subtypes {
            *self.binary_subtypes.entry(*subtype).or_default() += n;
        }
        self.bad_uuids += other.bad_uuids;
        self.lengths.merge(&other.lengths);
        if let Some(theirs) = &other.elements {
            self.elements.get_or_insert_with(Box::default).merge(theirs);
        }
        self.fields.merge(&other.fields);
        self.too_deep += other.too_deep;
    }
}

/// Which root fields the documents with one value of a root string field have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Presence {
    /// Documents holding the value.
    pub documents: u64,
    /// How many of them have each root field (the discriminator itself included).
    pub fields: IndexMap<String, u64>,
}

/// Field presence per value of one root-level field, the evidence for a discriminator: kept
/// while every value seen there is a short string, at most [`MAX_VARIANTS`] of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// Per value, in the order first seen; `None` once the field cannot discriminate.
    pub values: Option<IndexMap<String, Presence>>,
}

impl Default for Partition {
    fn default() -> Self {
        Partition {
            values: Some(IndexMap::new()),
        }
    }
}

impl Partition {
    /// Counts one document whose field holds `value` and has the root fields `keys`.
    fn add(&mut self, value: &Elem<'_>, elements: &[Elem<'_>]) {
        let Some(values) = &mut self.values else {
            return;
        };
        let short = (value.ty == ty::STRING)
            .then(|| raw::str_bytes(value.value))
            .filter(|s| s.len() <= MAX_DISTINCT_LEN)
            .and_then(|s| std::str::from_utf8(s).ok());
        let Some(value) = short else {
            self.values = None;
            return;
        };
        let index = match values.get_index_of(value) {
            Some(index) => index,
            None => values.insert_full(value.to_owned(), Presence::default()).0,
        };
        if values.len() > MAX_VARIANTS {
            self.values = None;
            return;
        }
        let presence = &mut values[index];
        presence.documents += 1;
        let mut hint = 0;
        for e in elements {
            // As `Fields::slot_hinted`: the name after the previous one is tried first. The
            // root's names were read as UTF-8 by the field tree before.
            let found = match presence.fields.get_index(hint) {
                Some((k, _)) if k.as_bytes() == e.name => Some(hint),
                _ => match std::str::from_utf8(e.name) {
                    Ok(key) => presence.fields.get_index_of(key),
                    Err(_) => continue,
                },
            };
            hint = match found {
                Some(i) => {
                    presence.fields[i] += 1;
                    i + 1
                }
                None => {
                    let key = String::from_utf8_lossy(e.name).into_owned();
                    presence.fields.insert_full(key, 1).0 + 1
                }
            };
        }
    }

    fn merge(&mut self, other: &Partition) {
        let (Some(mine), Some(theirs)) = (&mut self.values, &other.values) else {
            self.values = None;
            return;
        };
        for (value, presence) in theirs {
            let entry = mine.entry(value.clone()).or_default();
            entry.documents += presence.documents;
            for (key, n) in &presence.fields {
                *entry.fields.entry(key.clone()).or_default() += n;
            }
        }
        if mine.len() > MAX_VARIANTS {
            self.values = None;
        }
    }
}

/// The largest value a schema-version field may hold: versions are small whole numbers.
pub const MAX_VERSION: i64 = 9999;

/// How many root fields with version-like names get a census per value (the first seen).
pub const MAX_VERSION_FIELDS: usize = 4;

/// Whether a root field's name reads as a schema version: `v`, `ver`, `version`, `rev`, or any
/// name ending in `version` once case, `_` and `-` are set aside (`schemaVersion`,
/// `schema_version`, `doc-version`). Only such fields get a census per value; whether one
/// really is a schema version the data decides (`infer::model`). Mongoose's `__v` is not one:
/// it counts a document's array rewrites for optimistic concurrency (its `versionKey` option).
pub fn is_version_name(key: &str) -> bool {
    version_name(key.as_bytes())
}

/// [`is_version_name`] on a name's bytes, first rejecting by its last letter (every accepted
/// name ends in `v`, `r`, `s` or `n`): it runs for every root field of every document.
fn version_name(key: &[u8]) -> bool {
    let last = key.iter().rev().find(|b| **b != b'_' && **b != b'-');
    if !last.is_some_and(|b| matches!(b.to_ascii_lowercase(), b'v' | b'r' | b's' | b'n')) {
        return false;
    }
    if key == b"__v" || key.len() > 40 {
        return false;
    }
    let mut folded = [0u8; 40];
    let mut n = 0;
    for b in key.iter().copied().filter(|b| *b != b'_' && *b != b'-') {
        folded[n] = b.to_ascii_lowercase();
        n += 1;
    }
    let folded = &folded[..n];
    matches!(folded, b"v" | b"ver" | b"vers" | b"rev" | b"revision") || folded.ends_with(b"version")
}

/// A census per value of one root field whose name reads as a schema version
/// ([`is_version_name`]): the evidence that the documents of each version have a shape of
/// their own. Kept while every value is a whole number (`int` or `long`) from 0 to
/// [`MAX_VERSION`], at most [`MAX_VARIANTS`] of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Versions {
    /// Per value, in the order first seen, the documents holding it, counted as the census
    /// root counts them; `None` once the field cannot be a version.
    pub values: Option<IndexMap<i64, Node>>,
    /// The documents without the field, counted the same way.
    pub absent: Node,
}

impl Versions {
    /// Starts tracking a field first seen after the documents `before` (which all lack it).
    fn starting_after(before: &Node) -> Versions {
        Versions {
            values: Some(IndexMap::new()),
            absent: before.clone(),
        }
    }

    /// Counts one document whose field holds `value`.
    fn add(&mut self, value: &Elem<'_>, doc: &RawDocument) -> Result<(), Bad> {
        let Some(values) = &mut self.values else {
            return Ok(());
        };
        let number = match value.ty {
            ty::INT32 => i64::from(raw::i32_of(value.value)),
            ty::INT64 => raw::i64_of(value.value),
            _ => -1,
        };
        if !(0..=MAX_VERSION).contains(&number)
            || (!values.contains_key(&number) && values.len() == MAX_VARIANTS)
        {
            self.stop();
            return Ok(());
        }
        add_root(values.entry(number).or_default(), doc)
    }

    fn stop(&mut self) {
        self.values = None;
        self.absent = Node::default();
    }

    /// Adds `other`'s counts; `other_root` is the root of `other`'s census, for when `other`
    /// never saw the field (all its documents lack it).
    fn merge(&mut self, other: Option<&Versions>, other_root: &Node) {
        let Some(values) = &mut self.values else {
            return;
        };
        let Some(other) = other else {
            self.absent.merge(other_root);
            return;
        };
        let Some(theirs) = &other.values else {
            self.stop();
            return;
        };
        for (value, node) in theirs {
            values.entry(*value).or_default().merge(node);
        }
        if values.len() > MAX_VARIANTS {
            self.stop();
            return;
        }
        self.absent.merge(&other.absent);
    }
}

/// One root element, read once per document.
type Element<'a> = Elem<'a>;

/// Counts one document into a census root node.
fn add_root(root: &mut Node, doc: &RawDocument) -> Result<(), Bad> {
    root.count += 1;
    root.types.0[BsonType::Object as usize] += 1;
    root.add_fields(doc.as_bytes(), 1).map(|_| ())
}

/// The census of a collection: one [`Node`] tree rooted at the documents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Census {
    /// Documents counted.
    pub documents: u64,
    /// Documents nesting deeper than [`MAX_DEPTH`] (the server refuses to store them).
    pub too_deep: u64,
    /// The size in bytes of the largest document.
    pub largest_document: u64,
    /// The documents themselves, as the root path.
    pub root: Node,
    /// Per root field, field presence per value (discriminator candidates); empty once the
    /// root's names look like data (more than [`MAX_FIELDS`]), as they then are for the root.
    pub partitions: IndexMap<String, Partition>,
    /// Per root field whose name reads as a schema version, a census per value (schema-version
    /// candidates); empty once the root's names look like data.
    pub versions: IndexMap<String, Versions>,
}

impl Census {
    /// An empty census.
    pub fn new() -> Census {
        Census::default()
    }

    /// Counts one document.
    ///
    /// ```
    /// use mongo_schema::BsonType;
    /// use mongo_schema::infer::census::Census;
    /// let mut census = Census::new();
    /// census.add(&bson::rawdoc! { "qty": 3, "tags": ["a", "b"] })?;
    /// let qty = census.field(&["qty"]).expect("seen");
    /// assert_eq!(qty.types.get(BsonType::Int), 1);
    /// # Ok::<(), bson::error::Error>(())
    /// ```
    ///
    /// # Errors
    /// The document's bytes are malformed; what was read before the fault stays counted.
    pub fn add(&mut self, doc: &RawDocument) -> Result<(), bson::error::Error> {
        self.documents += 1;
        self.largest_document = self.largest_document.max(doc.as_bytes().len() as u64);
        // The root's elements are read once, for the field tree, the partitions and the
        // versions alike (each used to walk the document again).
        let mut elements: Vec<Element<'_>> = Vec::with_capacity(16);
        let mut fault = false;
        match Iter::new(doc.as_bytes()) {
            Ok(mut iter) => loop {
                match iter.next_elem() {
                    Ok(Some(e)) => elements.push(e),
                    Ok(None) => break,
                    Err(Bad) => {
                        fault = true;
                        break;
                    }
                }
            },
            Err(Bad) => fault = true,
        }
        // Before the root counts it: a version field seen for the first time starts its
        // census of absent documents from the root as it was.
        self.count_versions(doc, &elements)
            .map_err(|Bad| malformed(doc))?;
        self.root.count += 1;
        self.root.types.0[BsonType::Object as usize] += 1;
        let mut deep = false;
        let mut hint = 0;
        for e in &elements {
            let added = self
                .root
                .fields
                .slot_hinted(e.name, &mut hint)
                .and_then(|node| node.add(e.ty, e.value, 1));
            match added {
                Ok(d) => deep |= d,
                Err(Bad) => {
                    fault = true;
                    break;
                }
            }
        }
        if deep {
            self.too_deep += 1;
        }
        if fault {
            return Err(malformed(doc));
        }
        self.partition(&elements);
        Ok(())
    }

    /// Counts the document under the value of each root field whose name reads as a schema
    /// version, or as lacking the fields it does not have.
    fn count_versions(&mut self, doc: &RawDocument, elements: &[Element<'_>]) -> Result<(), Bad> {
        if !matches!(self.root.fields, Fields::Named(_)) {
            self.versions.clear();
            return Ok(());
        }
        // Which tracked fields this document has.
        let mut seen = [false; MAX_VERSION_FIELDS];
        for e in elements {
            if !version_name(e.name) {
                continue;
            }
            let key = utf8(e.name)?;
            let index = match self.versions.get_index_of(key) {
                Some(index) => index,
                None if self.versions.len() == MAX_VERSION_FIELDS => continue,
                None => {
                    let fresh = Versions::starting_after(&self.root);
                    self.versions.insert_full(key.to_owned(), fresh).0
                }
            };
            seen[index] = true;
            self.versions[index].add(e, doc)?;
        }
        for (versions, seen) in self.versions.values_mut().zip(seen) {
            if versions.values.is_some() && !seen {
                add_root(&mut versions.absent, doc)?;
            }
        }
        Ok(())
    }

    /// Counts the document's root fields under the value of each of its root fields.
    fn partition(&mut self, elements: &[Element<'_>]) {
        if !matches!(self.root.fields, Fields::Named(_)) {
            self.partitions.clear();
            return;
        }
        let mut hint = 0;
        for e in elements {
            let found = match self.partitions.get_index(hint) {
                Some((k, _)) if k.as_bytes() == e.name => Some(hint),
                _ => match std::str::from_utf8(e.name) {
                    Ok(key) => self.partitions.get_index_of(key),
                    Err(_) => continue,
                },
            };
            let index = match found {
                Some(index) => index,
                None => {
                    let key = String::from_utf8_lossy(e.name).into_owned();
                    self.partitions.insert_full(key, Partition::default()).0
                }
            };
            hint = index + 1;
            self.partitions[index].add(e, elements);
        }
    }

    /// Adds everything `other` counted: `census(a ++ b) == census(a).merge(census(b))`.
    pub fn merge(&mut self, other: &Census) {
        self.documents += other.documents;
        self.too_deep += other.too_deep;
        self.largest_document = self.largest_document.max(other.largest_document);
        let mine: Vec<String> = self.versions.keys().cloned().collect();
        for key in &mine {
            self.versions[key.as_str()].merge(other.versions.get(key), &other.root);
        }
        for (key, theirs) in &other.versions {
            if !self.versions.contains_key(key) && self.versions.len() < MAX_VERSION_FIELDS {
                // Every document counted here lacks the field.
                let mut versions = Versions::starting_after(&self.root);
                versions.merge(Some(theirs), &other.root);
                self.versions.insert(key.clone(), versions);
            }
        }
        self.root.merge(&other.root);
        if !matches!(self.root.fields, Fields::Named(_)) {
            self.versions.clear();
        }
        if matches!(self.root.fields, Fields::Named(_)) {
            for (key, partition) in &other.partitions {
                self.partitions
                    .entry(key.clone())
                    .or_default()
                    .merge(partition);
            }
        } else {
            self.partitions.clear();
        }
    }

    /// The node of a path of field names, `"[]"` descending into array elements; `None` when
    /// nothing was seen there (or the keys there are counted as a map).
    pub fn field(&self, path: &[&str]) -> Option<&Node> {
        let mut node = &self.root;
        for segment in path {
            node = if *segment == "[]" {
                node.elements.as_deref()?
            } else {
                match &node.fields {
                    Fields::Named(named) => named.get(*segment)?,
                    Fields::Map { .. } => return None,
                }
            };
        }
        Some(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(doc: bson::Document) -> bson::RawDocumentBuf {
        bson::RawDocumentBuf::try_from(&doc).unwrap()
    }

    fn census(docs: &[bson::RawDocumentBuf]) -> Census {
        let mut c = Census::new();
        for d in docs {
            c.add(d).unwrap();
        }
        c
    }

    #[test]
    fn presence_counts_documents_that_have_the_field() {
        let c = census(&[
            bson::rawdoc! { "a": 1, "b": { "c": "x" } },
            bson::rawdoc! { "a": null },
            bson::rawdoc! { "b": { "c": "y", "d": 2_i64 } },
        ]);
        assert_eq!(c.documents, 3);
        let a = c.field(&["a"]).unwrap();
        assert_eq!((a.count, a.types.get(BsonType::Null)), (2, 1));
        let b = c.field(&["b"]).unwrap();
        assert_eq!(b.objects(), 2);
        assert_eq!(c.field(&["b", "c"]).unwrap().count, 2);
        assert_eq!(
            c.field(&["b", "d"]).unwrap().long,
            Some(Range { min: 2, max: 2 })
        );
    }

    #[test]
    fn numbers_are_kept_apart_by_type() {
        let c = census(&[
            bson::rawdoc! { "n": 5 },
            bson::rawdoc! { "n": -7 },
            bson::rawdoc! { "n": 1.5 },
            bson::rawdoc! { "n": 9_i64 },
        ]);
        let n = c.field(&["n"]).unwrap();
        assert_eq!(n.int, Some(Range { min: -7, max: 5 }));
        assert_eq!(n.long, Some(Range { min: 9, max: 9 }));
        assert_eq!(n.double, Some(Range { min: 1.5, max: 1.5 }));
    }

    #[test]
    fn array_lengths_and_elements() {
        let c = census(&[
            bson::rawdoc! { "xs": [1, 2, 3] },
            bson::rawdoc! { "xs": [] },
            bson::rawdoc! { "xs": [{ "k": "v" }] },
        ]);
        let xs = c.field(&["xs"]).unwrap();
        assert_eq!(xs.lengths.range, Some(Range { min: 0, max: 3 }));
        assert_eq!(xs.lengths.p99(), Some(3));
        let elements = c.field(&["xs", "[]"]).unwrap();
        assert_eq!((elements.count, elements.types.get(BsonType::Int)), (4, 3));
        assert_eq!(c.field(&["xs", "[]", "k"]).unwrap().count, 1);
    }

    #[test]
    fn p99_is_bounded_by_the_longest_array() {
        let mut lengths = Lengths::default();
        for _ in 0..99 {
            lengths.add(2);
        }
        lengths.add(1000);
        // 99 of 100 arrays have length 2: the bucket [2, 4) holds the 99th percentile.
        assert_eq!(lengths.p99(), Some(3));
        lengths.add(1000);
        assert_eq!(lengths.p99(), Some(1000));
    }

    #[test]
    fn distinct_strings_stop_past_the_bound() {
        let docs: Vec<_> = (0..=MAX_DISTINCT)
            .map(|i| bson::rawdoc! { "s": format!("v{i}") })
            .collect();
        let c = census(&docs[..MAX_DISTINCT]);
        assert_eq!(
            c.field(&["s"])
                .unwrap()
                .strings
                .values
                .as_ref()
                .unwrap()
                .len(),
            MAX_DISTINCT
        );
        let c = census(&docs);
        assert_eq!(c.field(&["s"]).unwrap().strings.values, None);
        let c = census(&[bson::rawdoc! { "s": "x".repeat(MAX_DISTINCT_LEN + 1) }]);
        assert_eq!(c.field(&["s"]).unwrap().strings.values, None);
    }

    #[test]
    fn many_keys_become_one_map() {
        let mut doc = bson::Document::new();
        for i in 0..10_000 {
            doc.insert(format!("k{i}"), i);
        }
        let c = census(&[raw(bson::doc! { "m": doc })]);
        let m = c.field(&["m"]).unwrap();
        match &m.fields {
            Fields::Map { keys, values } => {
                assert_eq!(*keys, 10_000);
                assert_eq!(values.int, Some(Range { min: 0, max: 9_999 }));
            }
            Fields::Named(_) => panic!("expected a map"),
        }
    }

    #[test]
    fn documents_deeper_than_the_limit_are_noted() {
        fn nest(levels: usize) -> bson::RawDocumentBuf {
            let mut doc = bson::doc! { "leaf": 1 };
            for _ in 1..levels {
                doc = bson::doc! { "a": doc };
            }
            raw(doc)
        }
        let c = census(&[nest(MAX_DEPTH)]);
        assert_eq!(c.too_deep, 0);
        let c = census(&[nest(MAX_DEPTH + 1)]);
        assert_eq!(c.too_deep, 1);
    }

    #[test]
    fn malformed_values_are_errors_and_what_came_before_stays_counted() {
        let good = bson::rawdoc! { "a": 1, "s": "x", "b": true };
        let at = |bytes: &[u8], needle: &[u8]| {
            bytes
                .windows(needle.len())
                .position(|w| w == needle)
                .unwrap()
        };
        // A string that is not UTF-8, then a boolean that is neither 0 nor 1.
        let mut bad_string = good.as_bytes().to_vec();
        let x = at(&bad_string, b"x\0");
        bad_string[x] = 0xff;
        let mut bad_bool = good.as_bytes().to_vec();
        let b = at(&bad_bool, b"b\0") + 2;
        bad_bool[b] = 2;
        for bytes in [bad_string, bad_bool] {
            let doc = RawDocument::from_bytes(&bytes).unwrap();
            let mut c = Census::new();
            let error = c.add(doc).unwrap_err();
            assert!(error.to_string().contains("at byte"), "{error}");
            assert_eq!(c.field(&["a"]).unwrap().count, 1);
        }
    }

    #[test]
    fn version_names() {
        for name in [
            "v",
            "version",
            "schemaVersion",
            "schema_version",
            "doc-version",
            "_rev",
        ] {
            assert!(is_version_name(name), "{name}");
        }
        for name in ["__v", "kind", "vendor", "versions_seen", "conversion_rate"] {
            assert!(!is_version_name(name), "{name}");
        }
    }

    #[test]
    fn a_version_field_counts_each_value_and_the_documents_without_it() {
        let c = census(&[
            bson::rawdoc! { "name": "a" },
            bson::rawdoc! { "v": 2, "first": "a" },
            bson::rawdoc! { "name": "b" },
            bson::rawdoc! { "v": 2_i64, "first": "b", "last": "c" },
        ]);
        let v = &c.versions["v"];
        let values = v.values.as_ref().unwrap();
        assert_eq!(values.keys().copied().collect::<Vec<_>>(), [2]);
        assert_eq!(values[&2].count, 2);
        assert_eq!(c_field(&values[&2], "last").count, 1);
        assert_eq!(v.absent.count, 2);
        assert_eq!(c_field(&v.absent, "name").count, 2);
        // A value that is not a small whole number rules the field out.
        let c = census(&[bson::rawdoc! { "v": 1 }, bson::rawdoc! { "v": "1.2.0" }]);
        assert_eq!(c.versions["v"].values, None);
        let c = census(&[bson::rawdoc! { "v": MAX_VERSION + 1 }]);
        assert_eq!(c.versions["v"].values, None);
    }

    fn c_field<'a>(node: &'a Node, key: &str) -> &'a Node {
        match &node.fields {
            Fields::Named(named) => &named[key],
            Fields::Map { .. } => panic!("a map"),
        }
    }

    #[test]
    fn merged_halves_equal_the_whole() {
        let docs: Vec<_> = (0..200)
            .map(|i| {
                let mut m = bson::Document::new();
                for k in 0..(i % 7) * 20 {
                    m.insert(format!("{k}"), i);
                }
                let mut d =
                    bson::doc! { "i": i, "s": format!("{}", i % 40), "m": m, "xs": [i, "x"] };
                // A version field first seen late, sometimes absent, later not a version.
                if i > 60 && i % 3 != 0 {
                    d.insert("schemaVersion", i % 4);
                }
                if i > 120 && i % 5 == 0 {
                    d.insert("v", i % 2);
                }
                if i == 190 {
                    d.insert("rev", "x");
                }
                raw(d)
            })
            .collect();
        let whole = census(&docs);
        for cut in [0, 1, 50, 150, 200] {
            let mut left = census(&docs[..cut]);
            left.merge(&census(&docs[cut..]));
            assert_eq!(left, whole, "cut at {cut}");
        }
    }
}
