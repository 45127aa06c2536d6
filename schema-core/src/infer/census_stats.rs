//! A [`Census`] computed by the server (`infer --server-side`): the aggregation pipelines that
//! count what every path holds, depth by depth, and the assembly of their results into the same
//! tree [`Census::add`] builds from documents. Only statistics travel: one group per path and
//! type (and per array-length bucket or binary length), at most [`MAX_DISTINCT`] + 2 strings
//! per path, one `_id` per path for the order.
//!
//! [`ServerCensus`] is a state machine: [`ServerCensus::next_request`] says what to run on the
//! server, [`ServerCensus::answer`] takes the reply, [`ServerCensus::finish`] builds the census.
//! The stages and operators used, with their manual pages, are listed in docs/server-facts.md.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use bson::{Bson, Document, doc};
use indexmap::IndexMap;

use super::census::{
    Census, Distinct, Fields, Lengths, MAX_DEPTH, MAX_DISTINCT, MAX_DISTINCT_LEN, MAX_FIELDS,
    MAX_VARIANTS, Node, Partition, Presence, Range,
};
use crate::schema::BsonType;

/// A server reply the assembly cannot read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    /// A row of a pipeline's result lacks a field or holds a value of another type.
    #[error("the server's {stage} statistics are malformed: {what} in {row}")]
    Malformed {
        /// Which pipeline.
        stage: &'static str,
        /// What is wrong.
        what: String,
        /// The row, as relaxed Extended JSON.
        row: String,
    },
    /// The server orders binary values otherwise than MongoDB (by length, then subtype, then
    /// bytes), which the census needs to count their subtypes.
    #[error(
        "path {path}: the server orders binary values otherwise than MongoDB (by length, then \
         subtype, then bytes), so it cannot count their subtypes: run infer without --server-side"
    )]
    BinaryOrder {
        /// The first path holding binaries, dotted.
        path: String,
    },
    /// Binary values of one length and several subtypes at one path that the subtype pass did
    /// not count (the server left its group out).
    #[error(
        "path {path}: binary values of {len} bytes with subtypes {low} to {high}, and the server \
         did not count them per subtype"
    )]
    MixedBinarySubtypes {
        /// The dotted path.
        path: String,
        /// The length in bytes.
        len: u64,
        /// The lowest subtype.
        low: u8,
        /// The highest subtype.
        high: u8,
    },
}

/// What to run on the server next.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Request {
    /// An `aggregate` of the collection with this pipeline; answer with every result document.
    Aggregate(Vec<Document>),
    /// The documents with these `_id`s, in natural order (`find` with `{_id: {$in: ids}}`,
    /// projection `{_id: 1}` and `hint: {$natural: 1}`); answer with them.
    NaturalOrder(Vec<Bson>),
}

/// One step of a path: a field name, the elements of an array, or the values of a map (an
/// object whose keys are data). Pipelines spell them as the name, 0 and 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Segment {
    Field(String),
    Element,
    Value,
}

impl Segment {
    fn to_bson(&self) -> Bson {
        match self {
            Segment::Field(name) => Bson::String(name.clone()),
            Segment::Element => Bson::Int32(0),
            Segment::Value => Bson::Int32(1),
        }
    }

    fn from_bson(value: &Bson) -> Option<Segment> {
        match value {
            Bson::String(name) => Some(Segment::Field(name.clone())),
            Bson::Int32(0) => Some(Segment::Element),
            Bson::Int32(1) => Some(Segment::Value),
            _ => None,
        }
    }
}

type Path = Vec<Segment>;

/// Where a value was in scan order: its document's place in natural order, then its positions
/// inside the document.
type Rank = (usize, Vec<i64>);

/// The children of each path, in scan order of their first values.
type Children = HashMap<Path, Vec<(Segment, Rank)>>;

/// The dotted spelling of a path, as the census report spells it.
fn dotted(path: &[Segment]) -> String {
    let parts: Vec<&str> = path
        .iter()
        .map(|s| match s {
            Segment::Field(name) => name.as_str(),
            Segment::Element => "[]",
            Segment::Value => "*",
        })
        .collect();
    parts.join(".")
}

fn path_bson(path: &[Segment]) -> Bson {
    Bson::Array(path.iter().map(Segment::to_bson).collect())
}

/// Where a value was: its document's `_id` and the positions (field or element indexes) from
/// the root down to it. The first of a path in scan order orders the census's fields.
#[derive(Clone, Debug)]
struct First {
    id: Bson,
    at: Vec<i64>,
}

/// One path's statistics before the tree is built.
#[derive(Debug, Default)]
struct Flat {
    node: Node,
    firsts: Vec<First>,
    /// The longest string, in bytes.
    max_bytes: u64,
    /// Binary lengths holding several subtypes (the lowest and highest), with how many
    /// values: counted per subtype by the subtype pass.
    mixed: Vec<Mixed>,
}

/// Binary values of one length at one path whose subtypes differ.
#[derive(Clone, Copy, Debug)]
struct Mixed {
    len: u64,
    low: u8,
    high: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Totals,
    Keys(usize),
    Stats(usize),
    BinaryOrder(usize),
    Subtypes(usize),
    Distinct(usize),
    Partitions,
    Order,
    Done,
}

/// The census of a collection computed by the server, one pipeline at a time.
///
/// ```
/// use mongo_schema::infer::census_stats::{Request, ServerCensus};
/// let mut server = ServerCensus::new();
/// // An empty collection: the totals pipeline returns no row, and nothing else is asked.
/// assert!(matches!(server.next_request(), Some(Request::Aggregate(_))));
/// server.answer(Vec::new())?;
/// assert_eq!(server.next_request(), None);
/// assert_eq!(server.finish()?.documents, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ServerCensus {
    stage: Stage,
    documents: u64,
    largest_document: u64,
    /// Paths whose objects' keys are data (more than [`MAX_FIELDS`] distinct names).
    maps: BTreeSet<Path>,
    flats: BTreeMap<Path, Flat>,
    /// Per root field: (value, root field) -> (documents, first).
    presence: IndexMap<String, Vec<(String, String, u64, First)>>,
    /// Documents in natural order, by `_id` (canonical Extended JSON).
    order: HashMap<String, usize>,
    /// Whether the server orders binaries as MongoDB does; `None` until asked.
    binary_order: Option<bool>,
}

impl Default for ServerCensus {
    fn default() -> Self {
        ServerCensus::new()
    }
}

fn id_key(id: &Bson) -> String {
    id.clone().into_canonical_extjson().to_string()
}

fn malformed(stage: &'static str, what: impl Into<String>, row: &Document) -> StatsError {
    StatsError::Malformed {
        stage,
        what: what.into(),
        row: Bson::Document(row.clone())
            .into_relaxed_extjson()
            .to_string(),
    }
}

/// A count the server returned (`$sum` gives int or long).
fn count(value: Option<&Bson>) -> Option<u64> {
    match value? {
        Bson::Int32(n) => u64::try_from(*n).ok(),
        Bson::Int64(n) => u64::try_from(*n).ok(),
        Bson::Double(d) if *d >= 0.0 && d.fract() == 0.0 => Some(*d as u64),
        _ => None,
    }
}

fn first_of(value: Option<&Bson>, field: &str) -> Option<First> {
    let Some(Bson::Document(d)) = value else {
        return None;
    };
    let at = match d.get(field)? {
        Bson::Array(items) => items
            .iter()
            .map(|i| match i {
                Bson::Int64(n) => Some(*n),
                Bson::Int32(n) => Some(i64::from(*n)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
        Bson::Int64(n) => vec![*n],
        Bson::Int32(n) => vec![i64::from(*n)],
        _ => return None,
    };
    Some(First {
        id: d.get("id")?.clone(),
        at,
    })
}

impl ServerCensus {
    /// A census not yet asked of the server.
    pub fn new() -> ServerCensus {
        ServerCensus {
            stage: Stage::Totals,
            documents: 0,
            largest_document: 0,
            maps: BTreeSet::new(),
            flats: BTreeMap::new(),
            presence: IndexMap::new(),
            order: HashMap::new(),
            binary_order: None,
        }
    }

    /// The values at depth `depth` (the root document is depth 0) as rows `{id, p, o, v}`:
    /// the document's `_id`, the path (map keys already generalized), the positions, the value.
    /// Each level unwinds `$objectToArray` of objects and the elements of arrays.
    fn explode(&self, depth: usize) -> Vec<Document> {
        let maps = Bson::Array(self.maps.iter().map(|p| path_bson(p)).collect());
        let mut stages = vec![doc! {
            "$replaceWith": {"id": "$_id", "p": {"$literal": []}, "o": {"$literal": []}, "v": "$$ROOT"}
        }];
        for _ in 0..depth {
            stages.extend(Self::children());
            stages.push(doc! {"$replaceWith": {
                "id": "$id",
                "p": {"$concatArrays": ["$p", [{"$cond": [
                    {"$and": [
                        {"$in": ["$p", {"$literal": maps.clone()}]},
                        {"$eq": [{"$type": "$kids.k"}, "string"]},
                    ]},
                    1,
                    "$kids.k",
                ]}]]},
                "o": {"$concatArrays": ["$o", ["$i"]]},
                "v": "$kids.v",
            }});
        }
        stages
    }

    /// The stages that turn each row into one row per child of its value (`kids: {k, v}`,
    /// `k` the field name or 0 for an element, `i` its position).
    fn children() -> [Document; 2] {
        [
            doc! {"$set": {"kids": {"$switch": {
                "branches": [
                    {"case": {"$eq": [{"$type": "$v"}, "object"]}, "then": {"$objectToArray": "$v"}},
                    {"case": {"$isArray": "$v"}, "then": {"$map": {"input": "$v", "in": {"k": 0, "v": "$$this"}}}},
                ],
                "default": [],
            }}}},
            doc! {"$unwind": {"path": "$kids", "includeArrayIndex": "i"}},
        ]
    }

    /// `{$set: {t, len}}`: the value's type and, for an array, its length.
    fn typed() -> Document {
        doc! {"$set": {
            "t": {"$type": "$v"},
            "len": {"$cond": [{"$isArray": "$v"}, {"$size": "$v"}, null]},
        }}
    }

    /// The bucket of `$len` as [`Lengths::bucket_of`] counts it: `len < 2^i` gives `i`.
    fn bucket() -> Bson {
        let branches: Vec<Bson> = (0..Lengths::BUCKETS - 1)
            .map(|i| {
                let top = 1_i64 << i;
                bson::bson!({"case": {"$lt": ["$len", top]}, "then": i as i32})
            })
            .collect();
        bson::bson!({"$switch": {"branches": branches, "default": (Lengths::BUCKETS - 1) as i32}})
    }

    fn totals() -> Vec<Document> {
        vec![doc! {"$group": {
            "_id": null,
            "n": {"$sum": 1},
            "largest": {"$max": {"$bsonSize": "$$ROOT"}},
        }}]
    }

    /// The parents at depth `depth - 1` whose objects have more than [`MAX_FIELDS`] names.
    fn keys(&self, depth: usize) -> Vec<Document> {
        let mut stages = self.explode(depth - 1);
        stages.extend(Self::children());
        stages.push(doc! {"$group": {"_id": {"p": "$p", "k": "$kids.k"}}});
        stages.push(doc! {"$group": {
            "_id": "$_id.p",
            "n": {"$sum": {"$cond": [{"$eq": [{"$type": "$_id.k"}, "string"]}, 1, 0]}},
        }});
        stages.push(doc! {"$match": {"n": {"$gt": MAX_FIELDS as i64}}});
        stages
    }

    /// Per path, type and (arrays) length bucket or (binaries) length: the counts and ranges.
    fn stats(&self, depth: usize) -> Vec<Document> {
        let mut stages = self.explode(depth);
        stages.push(Self::typed());
        let is = |t: &str| bson::bson!({"$eq": ["$t", t]});
        stages.push(doc! {"$group": {
            "_id": {
                "p": "$p",
                "t": "$t",
                "x": {"$switch": {"branches": [
                    {"case": {"$isArray": "$v"}, "then": Self::bucket()},
                    {"case": is("binData"), "then": {"$binarySize": "$v"}},
                ], "default": null}},
            },
            "n": {"$sum": 1},
            "first": {"$first": {"id": "$id", "o": "$o"}},
            // Ranges of numbers, dates and binaries; NaN left out (it sorts below -Infinity).
            "min": {"$min": Self::ranged()},
            "max": {"$max": Self::ranged()},
            "lmin": {"$min": Self::length()},
            "lmax": {"$max": Self::length()},
            "bytes": {"$max": {"$cond": [is("string"), {"$strLenBytes": "$v"}, null]}},
        }});
        stages
    }

    fn ranged() -> Bson {
        bson::bson!({"$switch": {"branches": [
            {"case": {"$in": ["$t", ["int", "long", "date", "binData"]]}, "then": "$v"},
            {"case": {"$and": [{"$eq": ["$t", "double"]}, {"$gte": ["$v", f64::NEG_INFINITY]}]}, "then": "$v"},
        ], "default": null}})
    }

    fn length() -> Bson {
        bson::bson!({"$switch": {"branches": [
            {"case": {"$eq": ["$t", "string"]}, "then": {"$strLenCP": "$v"}},
            {"case": {"$eq": ["$t", "array"]}, "then": "$len"},
        ], "default": null}})
    }

    /// The mixed binary groups of paths at `depth`.
    fn mixed_at(&self, depth: usize) -> impl Iterator<Item = (&Path, &Mixed)> {
        self.flats
            .iter()
            .filter(move |(p, _)| p.len() == depth)
            .flat_map(|(p, f)| f.mixed.iter().map(move |m| (p, m)))
    }

    /// Per path and binary length: for each subtype `s` that a mixed group spans, how many
    /// binaries sort at or above the smallest binary of that length and subtype `s` (zero
    /// bytes). The server orders binaries by length, then subtype, then bytes, so those counts
    /// differ by the number of values of each subtype.
    fn subtypes(&self, depth: usize) -> Vec<Document> {
        let mut lengths = BTreeSet::new();
        let mut subtypes = BTreeSet::new();
        for (_, mixed) in self.mixed_at(depth) {
            lengths.insert(mixed.len);
            subtypes.extend(mixed.low..=mixed.high);
        }
        let is_binary = bson::bson!({"$eq": ["$t", "binData"]});
        let mut group = doc! {"_id": {
            "p": "$p",
            "x": {"$cond": [is_binary.clone(), {"$binarySize": "$v"}, null]},
        }};
        for subtype in subtypes {
            let branches: Vec<Bson> = lengths
                .iter()
                .map(|len| {
                    let floor = Bson::Binary(bson::Binary {
                        subtype: subtype.into(),
                        bytes: vec![0; *len as usize],
                    });
                    bson::bson!({
                        "case": {"$eq": [{"$binarySize": "$v"}, *len as i64]},
                        "then": {"$literal": floor},
                    })
                })
                .collect();
            let floor = bson::bson!({"$switch": {"branches": branches, "default": null}});
            // `$cond` evaluates one branch only: `$binarySize` sees binaries alone.
            group.insert(
                format!("s{subtype}"),
                doc! {"$sum": {"$cond": [
                    is_binary.clone(),
                    {"$cond": [{"$gte": ["$v", floor]}, 1, 0]},
                    0,
                ]}},
            );
        }
        let mut stages = self.explode(depth);
        stages.push(Self::typed());
        stages.push(doc! {"$group": group});
        stages
    }

    fn add_subtypes(&mut self, row: &Document) -> Result<(), StatsError> {
        let bad = |what: &str| malformed("subtypes", what, row);
        let key = row.get_document("_id").map_err(|_| bad("no _id"))?;
        let path = Self::path_of(key.get("p")).ok_or_else(|| bad("no path p"))?;
        let Some(len) = count(key.get("x")) else {
            return Ok(());
        };
        let Some(flat) = self.flats.get_mut(&path) else {
            return Ok(());
        };
        let Some(at) = flat.mixed.iter().position(|m| m.len == len) else {
            return Ok(());
        };
        let mixed = flat.mixed.remove(at);
        let at_least = |s: u8| count(row.get(format!("s{s}")));
        for subtype in mixed.low..=mixed.high {
            let here = at_least(subtype).ok_or_else(|| bad("no count per subtype"))?;
            let above = if subtype == mixed.high {
                0
            } else {
                at_least(subtype + 1).ok_or_else(|| bad("no count per subtype"))?
            };
            let n = here.saturating_sub(above);
            if n > 0 {
                *flat.node.binary_subtypes.entry(subtype).or_default() += n;
                if subtype == 4 && len != 16 {
                    flat.node.bad_uuids += n;
                }
            }
        }
        Ok(())
    }

    /// Per path: how many distinct strings, and up to [`MAX_DISTINCT`] + 2 of them (one slot
    /// for the null of the non-strings' group).
    fn distinct(&self, depth: usize) -> Vec<Document> {
        let mut stages = self.explode(depth);
        stages.push(Self::typed());
        stages.push(doc! {"$group": {"_id": {
            "p": "$p",
            "s": {"$cond": [{"$eq": ["$t", "string"]}, "$v", null]},
        }}});
        stages.push(doc! {"$group": {
            "_id": "$_id.p",
            "n": {"$sum": {"$cond": [{"$eq": [{"$type": "$_id.s"}, "string"]}, 1, 0]}},
            "values": {"$firstN": {"input": "$_id.s", "n": (MAX_DISTINCT + 2) as i32}},
        }});
        stages
    }

    /// The root fields that may discriminate (only short strings, at most [`MAX_VARIANTS`]
    /// values), in no particular order.
    fn candidates(&self) -> Vec<String> {
        if self.maps.contains(&Vec::new()) {
            return Vec::new();
        }
        self.flats
            .iter()
            .filter_map(|(path, flat)| match path.as_slice() {
                [Segment::Field(name)]
                    if flat.node.types.only(&[BsonType::String])
                        && flat.max_bytes <= MAX_DISTINCT_LEN as u64
                        && flat
                            .node
                            .strings
                            .values
                            .as_ref()
                            .is_some_and(|v| v.len() <= MAX_VARIANTS) =>
                {
                    Some(name.clone())
                }
                _ => None,
            })
            .collect()
    }

    /// Per candidate root field, value and root field: documents, and the first one.
    fn partitions(candidates: &[String]) -> Vec<Document> {
        vec![
            doc! {"$replaceWith": {
                "id": "$_id",
                "keys": {"$map": {"input": {"$objectToArray": "$$ROOT"}, "in": "$$this.k"}},
                "kv": {"$objectToArray": "$$ROOT"},
            }},
            doc! {"$unwind": "$kv"},
            doc! {"$match": {"kv.k": {"$in": candidates}}},
            doc! {"$unwind": {"path": "$keys", "includeArrayIndex": "i"}},
            doc! {"$group": {
                "_id": {"f": "$kv.k", "v": "$kv.v", "k": "$keys"},
                "n": {"$sum": 1},
                "first": {"$first": {"id": "$id", "o": "$i"}},
            }},
        ]
    }

    /// The next thing to ask the server, or `None` once [`ServerCensus::finish`] can build
    /// the census.
    pub fn next_request(&mut self) -> Option<Request> {
        loop {
            return Some(match self.stage {
                Stage::Totals => Request::Aggregate(Self::totals()),
                // Nothing to look into below the last depth that held objects or arrays.
                Stage::Keys(depth)
                    if depth > 1 && !self.holds_at(depth - 1, &[BsonType::Object]) =>
                {
                    self.stage = Stage::Stats(depth);
                    continue;
                }
                Stage::Stats(depth)
                    if depth > 1
                        && !self.holds_at(depth - 1, &[BsonType::Object, BsonType::Array]) =>
                {
                    self.stage = Stage::Order;
                    continue;
                }
                Stage::Keys(depth) => Request::Aggregate(self.keys(depth)),
                Stage::Stats(depth) => Request::Aggregate(self.stats(depth)),
                Stage::BinaryOrder(_) => Request::Aggregate(Self::binary_order_probe()),
                Stage::Subtypes(depth) => Request::Aggregate(self.subtypes(depth)),
                Stage::Distinct(depth) => {
                    let strings = self.flats.iter().any(|(p, f)| {
                        p.len() == depth
                            && f.node.types.get(BsonType::String) > 0
                            && f.max_bytes <= MAX_DISTINCT_LEN as u64
                    });
                    if !strings {
                        self.stage = self.after_distinct(depth);
                        continue;
                    }
                    Request::Aggregate(self.distinct(depth))
                }
                Stage::Partitions => {
                    let candidates = self.candidates();
                    if candidates.is_empty() {
                        self.stage = Stage::Keys(2);
                        continue;
                    }
                    Request::Aggregate(Self::partitions(&candidates))
                }
                Stage::Order => Request::NaturalOrder(self.first_ids()),
                Stage::Done => return None,
            });
        }
    }

    /// After the statistics of a depth: the subtype pass when binaries of one length mixed
    /// subtypes there (and the server orders binaries as MongoDB does), then the strings.
    fn after_stats(&self, depth: usize) -> Stage {
        if self.binary_order == Some(true) && self.mixed_at(depth).next().is_some() {
            Stage::Subtypes(depth)
        } else {
            Stage::Distinct(depth)
        }
    }

    /// One row telling whether binaries sort by length first (a 1-byte binary of subtype 4
    /// below a 2-byte one of subtype 0) and then by subtype before bytes (subtype 0 with byte
    /// 0xff below subtype 4 with byte 0), as the manual's comparison order says.
    fn binary_order_probe() -> Vec<Document> {
        let bin = |subtype: u8, bytes: &[u8]| {
            Bson::Binary(bson::Binary {
                subtype: subtype.into(),
                bytes: bytes.to_vec(),
            })
        };
        vec![
            doc! {"$limit": 1},
            doc! {"$replaceWith": {
                "lengthFirst": {"$lt": [{"$literal": bin(4, &[0xff])}, {"$literal": bin(0, &[0, 0])}]},
                "subtypeThenBytes": {"$lt": [{"$literal": bin(0, &[0xff])}, {"$literal": bin(4, &[0])}]},
            }},
        ]
    }

    /// Whether a path at `depth` held a value of one of `kinds`.
    fn holds_at(&self, depth: usize, kinds: &[BsonType]) -> bool {
        self.flats
            .iter()
            .any(|(p, f)| p.len() == depth && kinds.iter().any(|k| f.node.types.get(*k) > 0))
    }

    fn after_distinct(&self, depth: usize) -> Stage {
        if depth == 1 {
            Stage::Partitions
        } else if depth >= MAX_DEPTH {
            Stage::Order
        } else {
            Stage::Keys(depth + 1)
        }
    }

    fn first_ids(&self) -> Vec<Bson> {
        let mut seen = BTreeMap::new();
        let firsts = self.flats.values().flat_map(|f| &f.firsts).chain(
            self.presence
                .values()
                .flatten()
                .map(|(_, _, _, first)| first),
        );
        for first in firsts {
            seen.entry(id_key(&first.id))
                .or_insert_with(|| first.id.clone());
        }
        seen.into_values().collect()
    }

    /// Takes the server's answer to the last [`ServerCensus::next_request`].
    ///
    /// # Errors
    /// [`StatsError`] when a row cannot be read.
    pub fn answer(&mut self, rows: Vec<Document>) -> Result<(), StatsError> {
        self.stage = match self.stage {
            Stage::Totals => {
                let Some(row) = rows.first() else {
                    self.stage = Stage::Done;
                    return Ok(());
                };
                self.documents =
                    count(row.get("n")).ok_or_else(|| malformed("totals", "no count n", row))?;
                self.largest_document = count(row.get("largest")).unwrap_or(0);
                if self.documents == 0 {
                    Stage::Done
                } else {
                    Stage::Keys(1)
                }
            }
            Stage::Keys(depth) => {
                for row in &rows {
                    let path = Self::path_of(row.get("_id"))
                        .ok_or_else(|| malformed("keys", "no path _id", row))?;
                    self.maps.insert(path);
                }
                Stage::Stats(depth)
            }
            Stage::Stats(depth) => {
                for row in &rows {
                    self.add_stats(row)?;
                }
                let binaries = self
                    .flats
                    .iter()
                    .any(|(p, f)| p.len() == depth && f.node.types.get(BsonType::BinData) > 0);
                if rows.is_empty() {
                    Stage::Order
                } else if binaries && self.binary_order.is_none() {
                    Stage::BinaryOrder(depth)
                } else {
                    self.after_stats(depth)
                }
            }
            Stage::BinaryOrder(depth) => {
                let holds = |field: &str| rows.first().and_then(|r| r.get_bool(field).ok());
                self.binary_order = Some(
                    holds("lengthFirst") == Some(true) && holds("subtypeThenBytes") == Some(true),
                );
                self.after_stats(depth)
            }
            Stage::Subtypes(depth) => {
                for row in &rows {
                    self.add_subtypes(row)?;
                }
                Stage::Distinct(depth)
            }
            Stage::Distinct(depth) => {
                for row in &rows {
                    self.add_distinct(row)?;
                }
                self.after_distinct(depth)
            }
            Stage::Partitions => {
                for row in &rows {
                    self.add_presence(row)?;
                }
                Stage::Keys(2)
            }
            Stage::Order => {
                for (ordinal, row) in rows.iter().enumerate() {
                    let id = row
                        .get("_id")
                        .ok_or_else(|| malformed("order", "no _id", row))?;
                    self.order.entry(id_key(id)).or_insert(ordinal);
                }
                Stage::Done
            }
            Stage::Done => Stage::Done,
        };
        Ok(())
    }

    fn path_of(value: Option<&Bson>) -> Option<Path> {
        match value? {
            Bson::Array(items) => items.iter().map(Segment::from_bson).collect(),
            _ => None,
        }
    }

    fn add_stats(&mut self, row: &Document) -> Result<(), StatsError> {
        let bad = |what: &str| malformed("stats", what, row);
        let key = row.get_document("_id").map_err(|_| bad("no _id"))?;
        let path = Self::path_of(key.get("p")).ok_or_else(|| bad("no path p"))?;
        let kind = key
            .get_str("t")
            .ok()
            .and_then(BsonType::from_alias)
            .ok_or_else(|| bad("no type t"))?;
        let n = count(row.get("n")).ok_or_else(|| bad("no count n"))?;
        let first = first_of(row.get("first"), "o").ok_or_else(|| bad("no first"))?;
        let flat = self.flats.entry(path).or_default();
        flat.firsts.push(first);
        let node = &mut flat.node;
        node.count += n;
        node.types.add(kind, n);
        let (min, max) = (row.get("min"), row.get("max"));
        let lengths = match (count(row.get("lmin")), count(row.get("lmax"))) {
            (Some(min), Some(max)) => Some(Range { min, max }),
            _ => None,
        };
        match (kind, min, max) {
            (BsonType::String, ..) => {
                widen(&mut node.string_length, lengths);
                flat.max_bytes = flat.max_bytes.max(count(row.get("bytes")).unwrap_or(0));
            }
            (BsonType::Int, Some(Bson::Int32(min)), Some(Bson::Int32(max))) => {
                widen(
                    &mut node.int,
                    Some(Range {
                        min: *min,
                        max: *max,
                    }),
                );
            }
            (BsonType::Long, Some(Bson::Int64(min)), Some(Bson::Int64(max))) => {
                widen(
                    &mut node.long,
                    Some(Range {
                        min: *min,
                        max: *max,
                    }),
                );
            }
            (BsonType::Double, Some(Bson::Double(min)), Some(Bson::Double(max))) => {
                widen(
                    &mut node.double,
                    Some(Range {
                        min: *min,
                        max: *max,
                    }),
                );
            }
            (BsonType::Date, Some(Bson::DateTime(min)), Some(Bson::DateTime(max))) => {
                let range = Range {
                    min: min.timestamp_millis(),
                    max: max.timestamp_millis(),
                };
                widen(&mut node.date, Some(range));
            }
            (BsonType::BinData, Some(Bson::Binary(min)), Some(Bson::Binary(max))) => {
                let len = min.bytes.len() as u64;
                let (low, high) = (u8::from(min.subtype), u8::from(max.subtype));
                if low == high {
                    *node.binary_subtypes.entry(low).or_default() += n;
                    if low == 4 && len != 16 {
                        node.bad_uuids += n;
                    }
                } else {
                    flat.mixed.push(Mixed { len, low, high });
                }
            }
            (BsonType::Array, ..) => {
                let bucket = count(key.get("x")).ok_or_else(|| bad("no length bucket x"))?;
                let range = lengths.ok_or_else(|| bad("no array lengths"))?;
                node.lengths.add_bucket(bucket as usize, n, range);
            }
            _ => {}
        }
        Ok(())
    }

    fn add_distinct(&mut self, row: &Document) -> Result<(), StatsError> {
        let bad = |what: &str| malformed("distinct", what, row);
        let path = Self::path_of(row.get("_id")).ok_or_else(|| bad("no path _id"))?;
        let n = count(row.get("n")).ok_or_else(|| bad("no count n"))?;
        let Some(flat) = self.flats.get_mut(&path) else {
            return Ok(());
        };
        if flat.node.types.get(BsonType::String) == 0 {
            return Ok(());
        }
        // As `Distinct::add`: one string longer than the bound, or more distinct strings than
        // the bound, and the path keeps none.
        flat.node.strings = if flat.max_bytes > MAX_DISTINCT_LEN as u64 || n > MAX_DISTINCT as u64 {
            Distinct { values: None }
        } else {
            let Ok(values) = row.get_array("values") else {
                return Err(bad("no values"));
            };
            Distinct {
                values: Some(
                    values
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect(),
                ),
            }
        };
        Ok(())
    }

    fn add_presence(&mut self, row: &Document) -> Result<(), StatsError> {
        let bad = |what: &str| malformed("partitions", what, row);
        let key = row.get_document("_id").map_err(|_| bad("no _id"))?;
        let (Ok(field), Ok(value), Ok(root)) =
            (key.get_str("f"), key.get_str("v"), key.get_str("k"))
        else {
            return Err(bad("no field f, string value v or root field k"));
        };
        let n = count(row.get("n")).ok_or_else(|| bad("no count n"))?;
        let first = first_of(row.get("first"), "o").ok_or_else(|| bad("no first"))?;
        self.presence.entry(field.to_owned()).or_default().push((
            value.to_owned(),
            root.to_owned(),
            n,
            first,
        ));
        Ok(())
    }

    /// Where a value first was, in scan order: its document's place in natural order, then its
    /// positions inside the document.
    fn rank(&self, first: &First) -> Rank {
        let ordinal = self
            .order
            .get(&id_key(&first.id))
            .copied()
            .unwrap_or(usize::MAX);
        (ordinal, first.at.clone())
    }

    fn earliest(&self, firsts: &[First]) -> Rank {
        firsts
            .iter()
            .map(|f| self.rank(f))
            .min()
            .unwrap_or((usize::MAX, Vec::new()))
    }

    /// The census, once [`ServerCensus::next_request`] returned `None`.
    ///
    /// # Errors
    /// [`StatsError::MixedBinarySubtypes`] when binaries of one length at one path have several
    /// subtypes and the subtype pass did not count them; [`StatsError::BinaryOrder`] when the
    /// collection holds binaries and the server does not order them as MongoDB does.
    pub fn finish(mut self) -> Result<Census, StatsError> {
        if self.binary_order == Some(false) {
            let first = self
                .flats
                .iter()
                .find(|(_, f)| f.node.types.get(BsonType::BinData) > 0);
            if let Some((path, _)) = first {
                return Err(StatsError::BinaryOrder { path: dotted(path) });
            }
        }
        for (path, flat) in &self.flats {
            if let Some(mixed) = flat.mixed.first() {
                return Err(StatsError::MixedBinarySubtypes {
                    path: dotted(path),
                    len: mixed.len,
                    low: mixed.low,
                    high: mixed.high,
                });
            }
        }
        if self.documents == 0 {
            return Ok(Census::new());
        }
        // The children of each path, in scan order of their first values.
        let mut children: Children = HashMap::new();
        for (path, flat) in &self.flats {
            if let Some((last, parent)) = path.split_last() {
                children
                    .entry(parent.to_vec())
                    .or_default()
                    .push((last.clone(), self.earliest(&flat.firsts)));
            }
        }
        for list in children.values_mut() {
            list.sort_by(|a, b| a.1.cmp(&b.1));
        }
        let mut root = Node {
            count: self.documents,
            ..Node::default()
        };
        root.types.add(BsonType::Object, self.documents);
        let flats = std::mem::take(&mut self.flats);
        let mut flats: HashMap<Path, Flat> = flats.into_iter().collect();
        self.fill(&mut root, &mut Vec::new(), &children, &mut flats);
        let partitions = self.assemble_partitions(&root);
        Ok(Census {
            documents: self.documents,
            too_deep: 0,
            largest_document: self.largest_document,
            root,
            partitions,
            // Counted by the caller: a census per version value, behind a `$match` each
            // (`infer --server-side`).
            versions: indexmap::IndexMap::new(),
        })
    }

    /// Builds the children of `node` at `path` from the flat statistics.
    fn fill(
        &self,
        node: &mut Node,
        path: &mut Path,
        children: &Children,
        flats: &mut HashMap<Path, Flat>,
    ) {
        let mut take = |segment: &Segment, path: &mut Path| -> Node {
            path.push(segment.clone());
            let mut child = flats
                .remove(path.as_slice())
                .map(|f| f.node)
                .unwrap_or_default();
            self.fill(&mut child, path, children, flats);
            path.pop();
            child
        };
        if node.types.get(BsonType::Array) > 0 {
            node.elements = Some(Box::new(take(&Segment::Element, path)));
        }
        if self.maps.contains(path.as_slice()) {
            let values = take(&Segment::Value, path);
            node.fields = Fields::Map {
                keys: values.count,
                values: Box::new(values),
            };
        } else if let Some(list) = children.get(path.as_slice()) {
            let mut named = IndexMap::new();
            for (segment, _) in list {
                if let Segment::Field(name) = segment {
                    named.insert(name.clone(), take(segment, path));
                }
            }
            node.fields = Fields::Named(named);
        }
    }

    fn assemble_partitions(&self, root: &Node) -> IndexMap<String, Partition> {
        let Fields::Named(named) = &root.fields else {
            return IndexMap::new();
        };
        let mut partitions = IndexMap::new();
        for field in named.keys() {
            let Some(rows) = self.presence.get(field) else {
                partitions.insert(field.clone(), Partition { values: None });
                continue;
            };
            // Values in the order of their first document; fields in scan order within them.
            let mut values: Vec<(&str, Rank, Presence)> = Vec::new();
            let mut per_value: BTreeMap<&str, Vec<(&str, u64, Rank)>> = BTreeMap::new();
            for (value, key, n, first) in rows {
                per_value
                    .entry(value)
                    .or_default()
                    .push((key, *n, self.rank(first)));
            }
            for (value, mut keys) in per_value {
                keys.sort_by(|a, b| a.2.cmp(&b.2));
                let own = keys.iter().find(|(k, ..)| k == field);
                let documents = own.map_or(0, |(_, n, _)| *n);
                let first = own.map_or((usize::MAX, Vec::new()), |(.., r)| (r.0, Vec::new()));
                let fields = keys.iter().map(|(k, n, _)| ((*k).to_owned(), *n)).collect();
                values.push((value, first, Presence { documents, fields }));
            }
            values.sort_by(|a, b| a.1.cmp(&b.1));
            let values = values
                .into_iter()
                .map(|(v, _, presence)| (v.to_owned(), presence))
                .collect();
            partitions.insert(
                field.clone(),
                Partition {
                    values: Some(values),
                },
            );
        }
        partitions
    }
}

fn widen<T: PartialOrd + Copy>(range: &mut Option<Range<T>>, other: Option<Range<T>>) {
    let Some(o) = other else { return };
    *range = Some(match *range {
        None => o,
        Some(r) => Range {
            min: if o.min < r.min { o.min } else { r.min },
            max: if o.max > r.max { o.max } else { r.max },
        },
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_thresholds_match_the_local_histogram() {
        // The pipeline's `$switch` puts `len` in the first bucket `i` with `len < 2^i`.
        let switch = ServerCensus::bucket();
        let branches = switch
            .as_document()
            .unwrap()
            .get_document("$switch")
            .unwrap();
        let tops: Vec<i64> = branches
            .get_array("branches")
            .unwrap()
            .iter()
            .map(|b| {
                let case = b.as_document().unwrap().get_document("case").unwrap();
                case.get_array("$lt").unwrap()[1].as_i64().unwrap()
            })
            .collect();
        for len in [
            0_u64,
            1,
            2,
            3,
            4,
            7,
            8,
            1000,
            1 << 29,
            (1 << 30) + 5,
            u64::from(u32::MAX),
        ] {
            let by_pipeline = tops
                .iter()
                .position(|top| (len as i64) < *top)
                .unwrap_or(Lengths::BUCKETS - 1);
            assert_eq!(by_pipeline, Lengths::bucket_of(len), "length {len}");
        }
    }

    #[test]
    fn segments_round_trip_and_paths_read_dotted() {
        let path = vec![Segment::Field("a".into()), Segment::Element, Segment::Value];
        let bson = path_bson(&path);
        assert_eq!(ServerCensus::path_of(Some(&bson)), Some(path.clone()));
        assert_eq!(dotted(&path), "a.[].*");
        assert_eq!(ServerCensus::path_of(Some(&bson::bson!([2]))), None);
    }

    #[test]
    fn a_malformed_row_is_an_error_naming_it() {
        let mut server = ServerCensus::new();
        assert!(server.next_request().is_some());
        let error = server.answer(vec![doc! {"_id": null}]).unwrap_err();
        assert!(error.to_string().contains("totals"), "{error}");
    }

    /// Drives a census through a collection of one document whose path `b` held binaries of
    /// 16 bytes with subtypes 0 to 4, answering the subtype pass with `subtypes` (`None`: the
    /// server sorts binaries otherwise, and no subtype pass is asked).
    fn mixed_binaries(subtypes: Option<Vec<Document>>) -> Result<Census, StatsError> {
        let bin = |s: u8| {
            Bson::Binary(bson::Binary {
                subtype: s.into(),
                bytes: vec![0; 16],
            })
        };
        let mut server = ServerCensus::new();
        let mut answers = vec![
            vec![doc! {"n": 1, "largest": 10}],
            Vec::new(), // keys at depth 1
            vec![doc! {
                "_id": {"p": ["b"], "t": "binData", "x": 16},
                "n": 3, "first": {"id": 1, "o": [0_i64]}, "min": bin(0), "max": bin(4),
            }],
            vec![doc! {"lengthFirst": true, "subtypeThenBytes": subtypes.is_some()}],
        ];
        answers.extend(subtypes);
        // Depth 1 held no object or array: nothing is asked of depth 2.
        answers.push(vec![doc! {"_id": 1}]);
        let mut answers = answers.into_iter();
        while let Some(request) = server.next_request() {
            if let Request::Aggregate(pipeline) = &request {
                if format!("{pipeline:?}").contains("\"s3\"") {
                    // The subtype pass probes every subtype the mixed group spans.
                    assert!(format!("{pipeline:?}").contains("\"s4\""));
                }
            }
            server.answer(answers.next().expect("a request too many"))?;
        }
        assert_eq!(answers.next(), None, "every answer was asked for");
        server.finish()
    }

    #[test]
    fn mixed_binary_subtypes_are_counted_from_the_servers_order() {
        // 3 values: subtypes 0, 0 and 4 (at or above subtype s: 3, 1, 1, 1, 1).
        let row = doc! {"_id": {"p": ["b"], "x": 16}, "s0": 3, "s1": 1, "s2": 1, "s3": 1, "s4": 1};
        let census = mixed_binaries(Some(vec![row])).unwrap();
        let b = census.field(&["b"]).unwrap();
        assert_eq!(b.binary_subtypes, BTreeMap::from([(0, 2), (4, 1)]));
        assert_eq!(b.bad_uuids, 0);
        let error = mixed_binaries(Some(Vec::new())).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("path b: binary values of 16 bytes"),
            "{error}"
        );
        // A server that sorts bytes before subtypes: no subtype pass, and a refusal saying why.
        let error = mixed_binaries(None).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("path b: the server orders binary values otherwise"),
            "{error}"
        );
    }
}
