//! Benchmarks: corpora generators and schemas shared by the criterion benches.
//!
//! Two corpora, generated deterministically: orders (an embedded customer with an address and 1
//! to 8 line items) and sensor buckets (60 readings each). Each comes with a `$jsonSchema`
//! validator and the equivalent standard JSON Schema over relaxed Extended JSON (the
//! mongoexport form), both read from `schemas/` at run time.

use std::path::PathBuf;

use bson::{Bson, DateTime, Document, RawDocumentBuf, doc, oid::ObjectId};

/// A small deterministic generator (SplitMix64), so corpora are identical across runs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() as u64 - 1) as usize]
    }

    fn word(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b'a' + self.range(0, 25) as u8))
            .collect()
    }
}

fn object_id(rng: &mut Rng) -> ObjectId {
    let mut bytes = [0u8; 12];
    bytes[..8].copy_from_slice(&rng.next_u64().to_be_bytes());
    bytes[8..].copy_from_slice(&(rng.next_u64() as u32).to_be_bytes());
    ObjectId::from_bytes(bytes)
}

/// One order: customer with address, 1 to 8 line items, tags, optional notes.
pub fn order(rng: &mut Rng) -> Document {
    let n_items = rng.range(1, 8);
    let mut items = Vec::new();
    let mut total = 0.0;
    for _ in 0..n_items {
        let qty = rng.range(1, 20) as i32;
        let price = rng.range(100, 99_999) as f64 / 100.0;
        total += f64::from(qty) * price;
        let mut item = doc! {
            "sku": format!("{}-{:04}", rng.word(3).to_uppercase(), rng.range(0, 9999)),
            "qty": qty,
            "price": price,
        };
        if rng.range(0, 3) == 0 {
            item.insert("discount", rng.range(0, 50) as f64 / 100.0);
        }
        items.push(Bson::Document(item));
    }
    let mut d = doc! {
        "_id": object_id(rng),
        "orderNo": format!("ORD-{:08}", rng.range(0, 99_999_999)),
        "status": rng.pick(&["pending", "paid", "shipped", "delivered", "cancelled"]),
        "createdAt": DateTime::from_millis(1_600_000_000_000 + rng.range(0, 100_000_000_000) as i64),
        "customer": {
            "name": format!("{} {}", rng.word(6), rng.word(9)),
            "email": format!("{}@{}.com", rng.word(8), rng.word(6)),
            "vip": rng.range(0, 9) == 0,
            "address": {
                "street": format!("{} {} Street", rng.range(1, 999), rng.word(7)),
                "city": rng.pick(&["Lisbon", "Oslo", "Quito", "Osaka", "Lagos", "Perth"]),
                "zip": format!("{:05}", rng.range(0, 99_999)),
                "country": rng.pick(&["PT", "NO", "EC", "JP", "NG", "AU"]),
            },
        },
        "items": items,
        "total": (total * 100.0).round() / 100.0,
        "tags": ["web", rng.pick(&["promo", "gift", "repeat", "new"])],
    };
    if rng.range(0, 1) == 0 {
        d.insert("notes", Bson::Null);
    } else {
        d.insert("notes", format!("leave at the {}", rng.word(5)));
    }
    d
}

/// One sensor bucket: metadata, bounds and 60 readings.
pub fn bucket(rng: &mut Rng) -> Document {
    let start = 1_700_000_000_000 + rng.range(0, 10_000_000) as i64 * 60_000;
    let readings: Vec<Bson> = (0..60)
        .map(|i| {
            Bson::Document(doc! {
                "t": DateTime::from_millis(start + i * 1000),
                "v": rng.range(0, 40_000) as f64 / 200.0 - 50.0,
                "q": rng.range(0, 2) as i32,
            })
        })
        .collect();
    doc! {
        "_id": object_id(rng),
        "sensorId": format!("sensor-{}", rng.range(1, 5000)),
        "meta": {
            "site": rng.pick(&["north", "south", "east", "west"]),
            "kind": rng.pick(&["temperature", "humidity", "pressure"]),
        },
        "start": DateTime::from_millis(start),
        "end": DateTime::from_millis(start + 59_000),
        "count": 60,
        "readings": readings,
    }
}

/// A corpus: documents as raw BSON, as one `.bson` stream, and as JSON lines.
pub struct Corpus {
    /// Name (`orders`, `buckets`).
    pub name: &'static str,
    /// Each document as raw BSON.
    pub raw: Vec<RawDocumentBuf>,
    /// All documents concatenated, as mongodump writes a `.bson` file.
    pub bson_file: Vec<u8>,
    /// Each document as relaxed Extended JSON text, as mongoexport writes a line.
    pub json_lines: Vec<Vec<u8>>,
    /// Each document as an already-parsed `serde_json::Value`.
    pub json_values: Vec<serde_json::Value>,
    /// The `$jsonSchema` validator, as Extended JSON text.
    pub validator_json: String,
    /// The equivalent standard JSON Schema, as JSON text.
    pub json_schema: String,
}

impl Corpus {
    /// Bytes of BSON in the corpus.
    pub fn bson_bytes(&self) -> usize {
        self.bson_file.len()
    }
}

/// Where the schema files live.
pub fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

/// Builds a corpus of `n` documents from a generator and two schema files.
///
/// # Panics
/// When a schema file is missing or a document does not serialize (both are bugs here).
pub fn corpus(name: &'static str, n: usize, make: fn(&mut Rng) -> Document) -> Corpus {
    let mut rng = Rng::new(0x5EED ^ n as u64);
    let docs: Vec<Document> = (0..n).map(|_| make(&mut rng)).collect();
    let raw: Vec<RawDocumentBuf> = docs
        .iter()
        .map(|d| RawDocumentBuf::try_from(d).expect("generated documents serialize"))
        .collect();
    let bson_file = raw.iter().flat_map(|r| r.as_bytes().to_vec()).collect();
    let json_values: Vec<serde_json::Value> = docs
        .iter()
        .map(|d| Bson::Document(d.clone()).into_relaxed_extjson())
        .collect();
    let json_lines = json_values
        .iter()
        .map(|v| serde_json::to_vec(v).expect("JSON values serialize"))
        .collect();
    let read =
        |file: &str| std::fs::read_to_string(schema_dir().join(file)).expect("schema file exists");
    let base = if name == "orders" { "order" } else { "bucket" };
    Corpus {
        name,
        raw,
        bson_file,
        json_lines,
        json_values,
        validator_json: read(&format!("{base}.validator.json")),
        json_schema: read(&format!("{base}.jsonschema.json")),
    }
}

/// The order corpus.
pub fn orders(n: usize) -> Corpus {
    corpus("orders", n, order)
}

/// The sensor-bucket corpus.
pub fn buckets(n: usize) -> Corpus {
    corpus("buckets", n, bucket)
}

/// The floor: a plain recursive walk of every element with bson's raw iterator.
pub fn raw_walk(doc: &bson::RawDocument) -> usize {
    let mut n = 0;
    for item in doc {
        let Ok((key, value)) = item else { return n };
        n += key.len();
        n += walk_value(value);
    }
    n
}

fn walk_value(value: bson::RawBsonRef<'_>) -> usize {
    use bson::RawBsonRef as R;
    match value {
        R::Document(d) => raw_walk(d),
        R::Array(a) => {
            let mut n = 0;
            for v in a.into_iter().flatten() {
                n += walk_value(v);
            }
            n
        }
        R::String(s) => s.len(),
        R::Int32(v) => v as usize & 1,
        R::Double(v) => usize::from(v > 0.0),
        _ => 1,
    }
}
