//! `cargo bench -p mongo-schema-bench --bench validate`: thread scaling of `mongo-schema
//! validate` through its library entry point (`cmd::validate::run_to`), summary format.
//!
//! Writes two `.bson` corpora of generated orders to a temporary directory (all valid, and all
//! invalid: an unknown status and a line item with quantity 0, so every document is explained),
//! reads each once to warm the page cache, then alternates runs with 1 and 2 workers (each worker
//! reads its own chunks of the file; the in-order writer is this thread in both) and prints
//! docs/s, MB/s and the 2-vs-1 ratio of the best runs. Goal (issue 3): at least 1.8x. Each row
//! also gives the best run's CPU time (every thread, from `/proc/self/stat`, 10 ms ticks) and
//! CPU/wall, the cores it actually got: on a shared machine a 2-worker run near 1.0 had only one.
//!
//! Knobs (environment): `VALIDATE_BENCH_MB` (size of the valid corpus, default 192),
//! `VALIDATE_BENCH_INVALID_MB` (the invalid one, default an eighth of that, so runs of both last
//! about as long), `VALIDATE_BENCH_RUNS` (runs per thread count, default 9; 0 only writes the
//! files), `VALIDATE_BENCH_DIR` (write the corpora there and keep them, e.g. to measure memory
//! with `/usr/bin/time -v target/release/mongo-schema validate ...`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use bson::{Bson, RawDocumentBuf};
use mongo_schema_bench::{Rng, order, schema_dir};
use mongo_schema_cli::args::{InputFormat, ValidateArgs, ValidateFormat};
use mongo_schema_cli::cmd::validate::run_to;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Writes generated orders to `path` until it holds `bytes`; returns the document count.
fn write_corpus(path: &Path, bytes: usize, invalid: bool) -> u64 {
    let file = std::fs::File::create(path).expect("the corpus file can be created");
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut rng = Rng::new(0xC0FFEE);
    let (mut written, mut docs) = (0, 0);
    while written < bytes {
        let mut d = order(&mut rng);
        if invalid {
            d.insert("status", "lost");
            if let Ok(items) = d.get_array_mut("items")
                && let Some(Bson::Document(item)) = items.first_mut()
            {
                item.insert("qty", 0);
            }
        }
        let raw = RawDocumentBuf::try_from(&d).expect("generated orders serialize");
        out.write_all(raw.as_bytes())
            .expect("the corpus is written");
        written += raw.as_bytes().len();
        docs += 1;
    }
    out.flush().expect("the corpus is written");
    docs
}

/// CPU time of this process so far (user + system, every thread), from `/proc/self/stat`
/// (Linux; zero elsewhere), in clock ticks of 10 ms.
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of proc(5), counted from the state (field 3) here.
    [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum()
}

/// A run's wall time and CPU time (seconds).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Took {
    wall: f64,
    cpu: f64,
}

/// One run of `validate` over `input` with `threads` workers.
fn run(input: &Path, threads: usize, expected: ExitCode) -> Took {
    let args = ValidateArgs {
        schema: Some(schema_dir().join("order.validator.json")),
        manifest: None,
        collection: None,
        inputs: vec![input.to_path_buf()],
        input_format: InputFormat::Auto,
        format: ValidateFormat::Summary,
        threads: Some(threads),
        examples: 3,
    };
    let mut out = Vec::new();
    let cpu = cpu_ticks();
    let started = Instant::now();
    let code = run_to(&args, &mut out).expect("the corpus validates");
    let wall = started.elapsed().as_secs_f64();
    let cpu = (cpu_ticks() - cpu) as f64 / 100.0;
    assert_eq!(code, expected, "{}", String::from_utf8_lossy(&out));
    Took { wall, cpu }
}

fn main() {
    // As the `mongo-schema` binary does first (per-thread seeds for bson's hash maps), unless
    // VALIDATE_BENCH_SHARED_SEEDS is set to measure the default, shared seed counter.
    if std::env::var_os("VALIDATE_BENCH_SHARED_SEEDS").is_none() {
        assert!(
            mongo_schema_cli::hash_seeds::install(),
            "nothing may build a bson document before this"
        );
    }
    let mb = env_usize("VALIDATE_BENCH_MB", 192);
    let invalid_mb = env_usize("VALIDATE_BENCH_INVALID_MB", mb / 8);
    let runs = env_usize("VALIDATE_BENCH_RUNS", 9);
    let (dir, keep) = match std::env::var("VALIDATE_BENCH_DIR") {
        Ok(d) => (PathBuf::from(d), true),
        Err(_) => (
            std::env::temp_dir().join(format!("validate-bench-{}", std::process::id())),
            false,
        ),
    };
    std::fs::create_dir_all(&dir).expect("the corpus directory can be created");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "validate thread scaling, orders, summary format; load average before: {}",
        load.trim()
    );
    println!(
        "| corpus | docs | MB | threads | best s | median s | docs/s | MB/s | CPU s | cores used | 2 vs 1 |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, bytes, invalid, code) in [
        ("all valid", mb << 20, false, ExitCode::SUCCESS),
        ("all invalid", invalid_mb << 20, true, ExitCode::from(1)),
    ] {
        let file = dir.join(if invalid {
            "orders-invalid.bson"
        } else {
            "orders-valid.bson"
        });
        let docs = write_corpus(&file, bytes, invalid);
        let size = std::fs::metadata(&file).expect("the corpus exists").len();
        if runs == 0 {
            println!("wrote {} ({docs} documents, {size} bytes)", file.display());
            continue;
        }
        run(&file, 2, code); // warm the page cache
        let mut times: [Vec<Took>; 2] = [Vec::new(), Vec::new()];
        for _ in 0..runs {
            for (slot, threads) in [(0, 1), (1, 2)] {
                times[slot].push(run(&file, threads, code));
            }
        }
        let mut best = [0.0; 2];
        for (slot, threads) in [(0, 1), (1, 2)] {
            let t = &mut times[slot];
            t.sort_by(|a, b| a.wall.total_cmp(&b.wall));
            best[slot] = t[0].wall;
            let median = t[t.len() / 2].wall;
            let ratio = if threads == 2 {
                format!("{:.2}x", best[0] / best[1])
            } else {
                String::new()
            };
            println!(
                "| {name} | {docs} | {:.0} | {threads} | {:.3} | {median:.3} | {:.0} | {:.0} | {:.2} | {:.2} | {ratio} |",
                size as f64 / 1e6,
                best[slot],
                docs as f64 / best[slot],
                size as f64 / 1e6 / best[slot],
                t[0].cpu,
                t[0].cpu / t[0].wall,
            );
        }
        if !keep {
            std::fs::remove_file(&file).expect("the corpus is removed");
        }
    }
    if !keep {
        let _ = std::fs::remove_dir(&dir);
    }
}
