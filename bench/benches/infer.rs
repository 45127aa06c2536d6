//! `cargo bench -p mongo-schema-bench --bench infer`: the throughput of `infer`'s census (and of
//! the whole command over a `.bson` file, both passes, one worker) against a plain walk of bson's
//! raw iterator, on the order and sensor-bucket corpora (issue 13: "at least 300 MB/s a core end
//! to end").
//!
//! Criterion measures each method; then a summary pass prints docs/s, MB/s of BSON and each
//! method's time over the raw walk's, as a markdown table.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use mongo_schema::infer::{self, Census, Options, Proof};
use mongo_schema_bench::{Corpus, buckets, orders, raw_walk};
use mongo_schema_cli::{Console, Outcome};

/// The corpus, and its `.bson` file for the end-to-end pass.
struct Input {
    corpus: Corpus,
    file: PathBuf,
}

fn census(c: &Corpus) -> Census {
    let mut census = Census::new();
    for d in &c.raw {
        census.add(d).expect("generated documents are well formed");
    }
    census
}

/// The census, the inference and the proof over every document, in memory.
fn census_and_proof(c: &Corpus) -> usize {
    let census = census(c);
    let inference = infer::infer(&census, c.name, &Options::default()).expect("a valid name");
    let mut proof = Proof::new(&inference.validator).expect("inferred validators compile");
    for d in &c.raw {
        proof.check(d);
    }
    assert!(proof.is_complete(), "{}: {:?}", c.name, proof.exceptions);
    proof.accepted as usize
}

/// `mongo-schema infer FILE --threads 1`: reading, framing, both passes, the source and the
/// report.
fn command(input: &Input) -> usize {
    let mut console = Console::captured("");
    let argv = [
        "mongo-schema",
        "infer",
        input.file.to_str().expect("a UTF-8 temporary path"),
        "--threads",
        "1",
    ];
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    assert_eq!(outcome, Outcome::Clean, "{}", console.stderr_text());
    console.stdout_text().len()
}

type Pass = fn(&Input) -> usize;

const PASSES: [(&str, Pass); 4] = [
    ("bson RawDocument iterator walk (floor)", |i| {
        i.corpus.raw.iter().map(|d| raw_walk(d)).sum()
    }),
    ("census (Census::add)", |i| {
        census(&i.corpus).documents as usize
    }),
    ("census + infer + proof, in memory", |i| {
        census_and_proof(&i.corpus)
    }),
    ("mongo-schema infer FILE.bson --threads 1", command),
];

fn bench_input(cr: &mut Criterion, input: &Input) {
    let mut group = cr.benchmark_group(format!("infer/{}", input.corpus.name));
    group.throughput(Throughput::Bytes(input.corpus.bson_bytes() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_millis(500));
    for (name, pass) in PASSES {
        group.bench_function(name, |b| b.iter(|| black_box(pass(input))));
    }
    group.finish();
}

/// Best of several timed passes, in seconds per corpus pass.
fn best_time(input: &Input, pass: Pass) -> f64 {
    let mut best = f64::MAX;
    let deadline = Instant::now() + Duration::from_millis(1500);
    let mut runs = 0;
    while runs < 3 || (Instant::now() < deadline && runs < 50) {
        let t = Instant::now();
        black_box(pass(input));
        best = best.min(t.elapsed().as_secs_f64());
        runs += 1;
    }
    best
}

fn summary(inputs: &[Input]) {
    println!("\n## Summary (best of repeated passes; x = the method's time / the raw walk's)\n");
    println!("| corpus | method | docs/s | MB/s of BSON | x the raw walk |");
    println!("|---|---|---:|---:|---:|");
    for input in inputs {
        let c = &input.corpus;
        let mb = c.bson_bytes() as f64 / 1e6;
        let docs = c.raw.len() as f64;
        let floor = best_time(input, PASSES[0].1);
        for (name, pass) in PASSES {
            let t = if name == PASSES[0].0 {
                floor
            } else {
                best_time(input, pass)
            };
            println!(
                "| {} ({} docs, {:.0} B/doc) | {name} | {:.0} | {:.1} | {:.2} |",
                c.name,
                c.raw.len(),
                c.bson_bytes() as f64 / docs,
                docs / t,
                mb / t,
                t / floor
            );
        }
    }
}

fn main() {
    let dir = std::env::temp_dir().join(format!("infer-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let inputs: Vec<Input> = [orders(10_000), buckets(2_000)]
        .into_iter()
        .map(|corpus| {
            let file = dir.join(format!("{}.bson", corpus.name));
            std::fs::write(&file, &corpus.bson_file).expect("the corpus file is written");
            Input { corpus, file }
        })
        .collect();
    // `INFER_BENCH=summary` prints only the summary table; `--profile-time N` skips it.
    let summary_only = std::env::var("INFER_BENCH").is_ok_and(|v| v == "summary");
    let profiling = std::env::args().any(|a| a == "--profile-time");
    if !summary_only {
        let mut cr = Criterion::default().configure_from_args();
        for input in &inputs {
            bench_input(&mut cr, input);
        }
        cr.final_summary();
    }
    if !profiling {
        summary(&inputs);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
