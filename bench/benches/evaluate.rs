//! `cargo bench -p mongo-schema-bench`: our evaluator against the `jsonschema` crate and a plain
//! walk of bson's raw iterator, on the order and sensor-bucket corpora.
//!
//! Criterion measures each method; then a summary pass prints docs/s, MB/s of BSON and the ratios
//! the README quotes (our throughput over each other method's), as a markdown table.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bson::{Bson, Document};
use criterion::{Criterion, Throughput};
use mongo_schema::eval::Validator;
use mongo_schema_bench::{Corpus, buckets, orders, raw_walk};

/// The methods compared, each a pass over the whole corpus returning how many documents passed.
struct Methods {
    ours: Validator,
    theirs: jsonschema::Validator,
}

impl Methods {
    fn new(c: &Corpus) -> Methods {
        // Both schemas are parsed from text at run time, as `validate --schema` does.
        let ext: serde_json::Value = serde_json::from_str(&c.validator_json).expect("JSON");
        let validator = match Bson::try_from(ext).expect("Extended JSON") {
            Bson::Document(d) => d,
            other => panic!("validator is not a document: {other}"),
        };
        let ours = Validator::from_document(&validator).expect("the server accepts the schema");
        let schema: serde_json::Value = serde_json::from_str(&c.json_schema).expect("JSON");
        let theirs = jsonschema::validator_for(&schema).expect("valid JSON Schema");
        Methods { ours, theirs }
    }

    fn ours(&self, c: &Corpus) -> usize {
        c.raw.iter().filter(|d| self.ours.is_valid(d)).count()
    }

    fn ours_checked(&self, c: &Corpus) -> usize {
        c.raw
            .iter()
            .filter(|d| {
                self.ours
                    .validate_bytes(d.as_bytes())
                    .is_ok_and(|v| v.is_valid())
            })
            .count()
    }

    fn theirs_values(&self, c: &Corpus) -> usize {
        c.json_values
            .iter()
            .filter(|v| self.theirs.is_valid(v))
            .count()
    }

    fn theirs_json_lines(&self, c: &Corpus) -> usize {
        c.json_lines
            .iter()
            .filter(|line| {
                let v: serde_json::Value = serde_json::from_slice(line).expect("JSON");
                self.theirs.is_valid(&v)
            })
            .count()
    }

    fn theirs_decoded_bson(&self, c: &Corpus) -> usize {
        let mut ok = 0;
        let mut rest = &c.bson_file[..];
        while rest.len() >= 4 {
            let len = i32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            let doc: Document = bson::deserialize_from_slice(&rest[..len]).expect("BSON");
            let v = Bson::Document(doc).into_relaxed_extjson();
            if self.theirs.is_valid(&v) {
                ok += 1;
            }
            rest = &rest[len..];
        }
        ok
    }

    fn raw_walk(c: &Corpus) -> usize {
        c.raw.iter().map(|d| raw_walk(d)).sum()
    }
}

type Pass = fn(&Methods, &Corpus) -> usize;

const PASSES: [(&str, Pass); 6] = [
    ("ours: is_valid on raw BSON", |m, c| m.ours(c)),
    (
        "ours: validate_bytes (structure check + evaluate)",
        |m, c| m.ours_checked(c),
    ),
    ("bson RawDocument iterator walk (floor)", |_, c| {
        Methods::raw_walk(c)
    }),
    ("jsonschema on parsed serde_json values", |m, c| {
        m.theirs_values(c)
    }),
    ("jsonschema: parse JSON lines + validate", |m, c| {
        m.theirs_json_lines(c)
    }),
    ("jsonschema: decode .bson + to JSON + validate", |m, c| {
        m.theirs_decoded_bson(c)
    }),
];

fn bench_corpus(cr: &mut Criterion, c: &Corpus, m: &Methods) {
    let mut group = cr.benchmark_group(c.name);
    group.throughput(Throughput::Elements(c.raw.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_millis(500));
    for (name, pass) in PASSES {
        group.bench_function(name, |b| b.iter(|| black_box(pass(m, c))));
    }
    group.finish();
}

/// Best of several timed passes, in seconds per corpus pass.
fn best_time(m: &Methods, c: &Corpus, pass: Pass) -> f64 {
    let mut best = f64::MAX;
    let deadline = Instant::now() + Duration::from_millis(1500);
    let mut runs = 0;
    while runs < 3 || (Instant::now() < deadline && runs < 50) {
        let t = Instant::now();
        black_box(pass(m, c));
        best = best.min(t.elapsed().as_secs_f64());
        runs += 1;
    }
    best
}

fn summary(corpora: &[(Corpus, Methods)]) {
    println!(
        "\n## Summary (best of repeated passes; ratio = our is_valid throughput / method's)\n"
    );
    println!("| corpus | method | docs/s | MB/s of BSON | ours is x times faster |");
    println!("|---|---|---:|---:|---:|");
    for (c, m) in corpora {
        let mb = c.bson_bytes() as f64 / 1e6;
        let docs = c.raw.len() as f64;
        let ours = best_time(m, c, PASSES[0].1);
        for (name, pass) in PASSES {
            let t = if name == PASSES[0].0 {
                ours
            } else {
                best_time(m, c, pass)
            };
            println!(
                "| {} ({} docs, {:.0} B/doc) | {name} | {:.0} | {:.1} | {:.2} |",
                c.name,
                c.raw.len(),
                c.bson_bytes() as f64 / docs,
                docs / t,
                mb / t,
                t / ours
            );
        }
    }
}

fn main() {
    let corpora: Vec<(Corpus, Methods)> = [orders(10_000), buckets(2_000)]
        .into_iter()
        .map(|c| {
            let m = Methods::new(&c);
            // Every generated document is valid under both schemas: each pass does the full work.
            assert_eq!(
                m.ours(&c),
                c.raw.len(),
                "{}: ours rejects a document",
                c.name
            );
            assert_eq!(
                m.theirs_values(&c),
                c.raw.len(),
                "{}: jsonschema rejects",
                c.name
            );
            (c, m)
        })
        .collect();
    // `EVAL_BENCH=summary` prints only the summary table (quick ratio checks while tuning);
    // `--profile-time N` (criterion's profiling mode) skips it so a profiler sees one method.
    let summary_only = std::env::var("EVAL_BENCH").is_ok_and(|v| v == "summary");
    let profiling = std::env::args().any(|a| a == "--profile-time");
    if !summary_only {
        let mut cr = Criterion::default().configure_from_args();
        for (c, m) in &corpora {
            bench_corpus(&mut cr, c, m);
        }
        cr.final_summary();
    }
    if !profiling {
        summary(&corpora);
    }
}
