//! Every command the README and `docs/` show runs (issue 16 item 13): each shell line of a
//! `sh`/`console` block and each `run:` step of a `yaml` workflow is run by `sh`, page by page
//! in order, in a fresh directory, against a fresh wire-protocol test server.
//!
//! What the shell finds on its `PATH`:
//! - `mongo-schema`: the standalone binary (`cli/`);
//! - `cargo`: runs `cargo run -p mongo-schema-examples --example NAME -- ARGS` as the example's
//!   binary, and `cargo run --bin mongo-schema -- ARGS` (the application binary of the guide,
//!   `mongo_schema_cli::main!(myapp)`) as the `shop` example, which links seven collections the
//!   same way; every binary is built once, by one `cargo build`, before the first page runs.
//!   Any other cargo command fails;
//! - `mongodump`, `mongoexport`: stand-ins for MongoDB's database tools, which write what those
//!   tools write (`OUT/DB/COLLECTION.bson`; Extended JSON lines to `--out` or stdout) for the
//!   documents this test seeds into the server (`seed`).
//!
//! `$MONGODB_URI` and `$PROD_READONLY_URI` are the test server's URI, with the database `app`
//! and `shop` respectively. A command passes when it exits 0 or 1 (a result: in sync or drift,
//! valid or rejected); 2 (could not check), a panic or a missing command fails. Where a console
//! transcript shows output lines, each must appear in what the command printed, and `$ echo $?`
//! pins the exit code of the command before it. `<name>` stands for every pattern example.
//!
//! A command that cannot run here is marked on the line before its block, with the reason:
//! `<!-- docs-test: skip `cargo test`: the test suite that runs this test -->` skips the block's
//! commands that start with `cargo test`. Such exceptions are counted and kept few.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bson::{Bson, Document, doc, oid::ObjectId};
use mongo_schema::eval::Validator;
use mongo_schema_test_support::{BlockingTestServer, FnEvaluator, TestServerOptions};

/// The most commands the docs may mark as not runnable here.
const MAX_SKIPPED: usize = 3;

/// How long one documented command may take before the test gives up on it.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

/// The pages whose commands run, in order: the README, then `docs/` and `docs/patterns/`.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    for dir in ["docs", "docs/patterns"] {
        let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        docs.sort();
        pages.extend(docs);
    }
    pages
}

/// One thing a page asks of the shell.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    /// Run `command`; each of `output` must appear in what it prints.
    Run {
        line: usize,
        command: String,
        output: Vec<String>,
    },
    /// `echo $?` and the number printed below it (None until read, or when not a number): the
    /// exit code of the command before.
    ExitWas { line: usize, code: Option<i32> },
    /// A command marked as not runnable here, with the marker's reason.
    Skipped {
        line: usize,
        command: String,
        reason: String,
    },
}

/// A `<!-- docs-test: skip `PREFIX`: REASON -->` marker.
#[derive(Clone, Debug)]
struct Skip {
    line: usize,
    prefix: String,
    reason: String,
    used: bool,
}

fn skip_marker(line: &str, number: usize) -> Option<Result<Skip, String>> {
    let rest = line.trim().strip_prefix("<!-- docs-test:")?;
    let parsed = (|| {
        let rest = rest.strip_suffix("-->")?.trim().strip_prefix("skip `")?;
        let (prefix, reason) = rest.split_once("`:")?;
        let reason = reason.trim();
        (!prefix.is_empty() && !reason.is_empty()).then(|| Skip {
            line: number,
            prefix: prefix.to_owned(),
            reason: reason.to_owned(),
            used: false,
        })
    })();
    Some(parsed.ok_or_else(|| {
        format!("line {number}: expected <!-- docs-test: skip `COMMAND PREFIX`: reason -->")
    }))
}

/// A fenced block being read: its language, its numbered lines, the markers before it.
struct Block {
    lang: String,
    lines: Vec<(usize, String)>,
    skips: Vec<Skip>,
}

/// The steps of a page's shell and workflow blocks, in order, and the problems with its markers.
fn steps(text: &str) -> (Vec<Step>, Vec<String>) {
    let mut steps = Vec::new();
    let mut problems = Vec::new();
    let mut pending: Vec<Skip> = Vec::new();
    let mut block: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let trimmed = line.trim_start();
        if let Some(lang) = trimmed.strip_prefix("```") {
            match block.take() {
                Some(mut block) => {
                    steps.extend(block_steps(&block.lang, &block.lines, &mut block.skips));
                    problems.extend(block.skips.iter().filter(|s| !s.used).map(|s| {
                        format!("line {}: no command starts with `{}`", s.line, s.prefix)
                    }));
                }
                None => {
                    block = Some(Block {
                        lang: lang.trim().to_owned(),
                        lines: Vec::new(),
                        skips: std::mem::take(&mut pending),
                    });
                }
            }
            continue;
        }
        if let Some(block) = &mut block {
            block.lines.push((number, line.to_owned()));
            continue;
        }
        match skip_marker(line, number) {
            Some(Ok(skip)) => pending.push(skip),
            Some(Err(problem)) => problems.push(problem),
            None if trimmed.is_empty() => {}
            None => problems.extend(
                pending
                    .drain(..)
                    .map(|s| format!("line {}: a marker must come just before a block", s.line)),
            ),
        }
    }
    problems.extend(
        pending
            .iter()
            .map(|s| format!("line {}: a marker must come just before a block", s.line)),
    );
    (steps, problems)
}

/// The steps of one fenced block.
fn block_steps(lang: &str, lines: &[(usize, String)], skips: &mut [Skip]) -> Vec<Step> {
    let mut steps = Vec::new();
    // `env` goes before the command as run (`VAR=value command`); skips match the command.
    let mut push = |line: usize, command: &str, env: &str, steps: &mut Vec<Step>| {
        let shown = command.trim();
        let command = format!("{env}{shown}");
        match skips.iter_mut().find(|s| shown.starts_with(&s.prefix)) {
            Some(skip) => {
                skip.used = true;
                steps.push(Step::Skipped {
                    line,
                    command,
                    reason: skip.reason.clone(),
                });
            }
            None => steps.push(Step::Run {
                line,
                command,
                output: Vec::new(),
            }),
        }
    };
    match lang {
        "sh" | "bash" | "shell" | "console" => {
            let prompts = lines.iter().any(|(_, l)| l.starts_with("$ "));
            for (number, line) in lines {
                if prompts {
                    if let Some(command) = line.strip_prefix("$ ") {
                        if command.trim() == "echo $?" {
                            steps.push(Step::ExitWas {
                                line: *number,
                                code: None,
                            });
                        } else {
                            push(*number, command, "", &mut steps);
                        }
                        continue;
                    }
                    match steps.last_mut() {
                        Some(Step::ExitWas { code, .. }) if code.is_none() => {
                            *code = line.trim().parse().ok();
                        }
                        Some(Step::Run { output, .. }) if !line.trim().is_empty() => {
                            output.push(line.trim().to_owned());
                        }
                        _ => {}
                    }
                } else if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
                    push(*number, line, "", &mut steps);
                }
            }
        }
        "yaml" | "yml" => {
            // A workflow that names its own database (`MONGODB_URI: mongodb://host/app_ci`) runs
            // its steps against that database of the test server: a CI service container starts
            // empty, unlike the seeded `app`.
            let mut database: Option<String> = None;
            for (number, line) in lines {
                let step = line.trim_start().trim_start_matches("- ");
                if let Some(uri) = step.strip_prefix("MONGODB_URI: ") {
                    database = uri
                        .split_once("://")
                        .and_then(|(_, rest)| rest.split_once('/'))
                        .map(|(_, path)| path.split('?').next().unwrap_or_default().to_owned())
                        .filter(|db| !db.is_empty());
                }
                if let Some(command) = step.strip_prefix("run: ") {
                    let env = database.as_ref().map_or_else(String::new, |db| {
                        format!(
                            "MONGODB_URI=\"mongodb://$DOCS_TEST_ADDRESS/{db}?directConnection=true\" "
                        )
                    });
                    push(*number, command, &env, &mut steps);
                }
            }
        }
        _ => {}
    }
    steps
}

/// The test server's `host:port`, for a workflow's own `MONGODB_URI`.
fn server_address(server: &BlockingTestServer) -> String {
    let uri = server.uri_with_db("");
    let rest = uri.strip_prefix("mongodb://").unwrap_or(&uri);
    rest.split('/').next().unwrap_or_default().to_owned()
}

/// The pattern examples, for `<name>`: every `[[example]]` of `examples/Cargo.toml` but
/// `quickstart` (no collections), `shop` (its catalog is `examples/catalog/shop.json`) and the
/// catalog examples `order_views` and `product_search` (tours of a test server, no catalog file).
fn pattern_examples() -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("examples/Cargo.toml")).unwrap();
    let mut names = Vec::new();
    let mut in_example = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_example = line == "[[example]]";
        } else if in_example && let Some(name) = line.strip_prefix("name = ") {
            let name = name.trim_matches('"');
            if !["quickstart", "shop", "order_views", "product_search"].contains(&name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// The binaries the shell runs, built once.
struct Binaries {
    /// `mongo-schema`, the standalone command.
    cli: PathBuf,
    /// Each example's binary, by name.
    examples: BTreeMap<String, PathBuf>,
}

fn binaries() -> &'static Binaries {
    static BINARIES: OnceLock<Binaries> = OnceLock::new();
    BINARIES.get_or_init(|| {
        let mut cargo = Command::new(env!("CARGO"));
        // What cargo set for this test (`CARGO_PKG_NAME`, ...) is not in a user's shell, and
        // build scripts that watch those names (ring's) would rebuild everything above them,
        // here and again in the user's next `cargo run`.
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            let set_by_cargo = ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_EXE_"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
                || [
                    "CARGO_CRATE_NAME",
                    "CARGO_PRIMARY_PACKAGE",
                    "CARGO_TARGET_TMPDIR",
                ]
                .contains(&name.as_ref());
            if set_by_cargo {
                cargo.env_remove(name.as_ref());
            }
        }
        let output = cargo
            .current_dir(root())
            .args([
                "build",
                "--offline",
                "--message-format=json-render-diagnostics",
                "-p",
                "mongo-schema-examples",
                "--examples",
                "-p",
                "mongo-schema-cli",
                "--bin",
                "mongo-schema",
            ])
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "building the documented binaries failed"
        );
        let mut cli = None;
        let mut examples = BTreeMap::new();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(executable) = message["executable"].as_str() else {
                continue;
            };
            let name = message["target"]["name"].as_str().unwrap_or_default();
            let kinds = &message["target"]["kind"];
            if kinds
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "example"))
            {
                examples.insert(name.to_owned(), PathBuf::from(executable));
            } else if name == "mongo-schema" {
                cli = Some(PathBuf::from(executable));
            }
        }
        Binaries {
            cli: cli.expect("cargo built the mongo-schema binary"),
            examples,
        }
    })
}

/// Quotes a word for `sh`.
fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The `cargo` on the documented commands' `PATH`: `cargo run` of a built binary, nothing else.
fn cargo_shim(binaries: &Binaries) -> String {
    let mut targets = String::new();
    for (name, path) in &binaries.examples {
        let _ = writeln!(
            targets,
            "  mongo-schema-examples:example:{name}) exec {} \"$@\" ;;",
            quoted(&path.display().to_string())
        );
    }
    let shop = quoted(&binaries.examples["shop"].display().to_string());
    format!(
        r#"#!/bin/sh
# The docs test's cargo: `cargo run [-p PACKAGE] (--example NAME | --bin NAME) [-- ARGS]`
# runs the binary that `cargo build` made before the test; any other command fails.
if [ "$1" != run ]; then echo "docs test: only \`cargo run\` runs here, not \`cargo $*\`" >&2; exit 127; fi
shift
package=; target=
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -p|--package) package="$2"; shift ;;
    --example) target="example:$2"; shift ;;
    --bin) target="bin:$2"; shift ;;
    *) echo "docs test: \`cargo run\` with $1 is not one of the documented forms" >&2; exit 127 ;;
  esac
  shift
done
case "$package:$target" in
{targets}  :bin:mongo-schema) exec {shop} "$@" ;;
  *) echo "docs test: cargo run: no binary for package '$package', target '$target'" >&2; exit 127 ;;
esac
"#
    )
}

/// A stand-in for `mongodump` or `mongoexport`: copies what the test seeded, in the tool's layout.
fn tool_shim(tool: &str, fixtures: &Path) -> String {
    let fixtures = quoted(&fixtures.display().to_string());
    let write = match tool {
        "mongodump" => {
            r#"[ -n "$out" ] || out=dump
mkdir -p "$out/$db" && cp "$fixtures/$db.$collection.bson" "$out/$db/$collection.bson""#
        }
        _ => {
            r#"if [ -n "$out" ]; then cp "$fixtures/$db.$collection.jsonl" "$out"; else cat "$fixtures/$db.$collection.jsonl"; fi"#
        }
    };
    format!(
        r#"#!/bin/sh
# The docs test's stand-in for {tool}: the documents the test seeded, in the tool's layout.
fixtures={fixtures}
db=; collection=; out=
while [ $# -gt 0 ]; do
  case "$1" in
    --uri) shift ;;
    --db) db="$2"; shift ;;
    --collection) collection="$2"; shift ;;
    --out) out="$2"; shift ;;
    *) echo "docs test: {tool} stand-in does not take $1" >&2; exit 127 ;;
  esac
  shift
done
if [ ! -f "$fixtures/$db.$collection.bson" ]; then echo "docs test: nothing seeded as $db.$collection" >&2; exit 1; fi
{write}
"#
    )
}

/// The documents seeded into every page's server, by database and collection: shop orders
/// (one of them rejected by the `orders` validator: no items), an event for `explain` to sample
/// and users for an export.
fn seed() -> Vec<(&'static str, &'static str, Vec<Document>)> {
    let order = |n: u8, items: Vec<Document>| {
        doc! {
            "_id": ObjectId::from_bytes([0x65, 0x66, 0xf1, 0xa0, 0, 0, 0, 0, 0, 0, 0, n]),
            "customer": { "id": format!("c{n}"), "name": "Ada" },
            "items": items,
            "status": "PAID",
        }
    };
    let item = doc! {
        "sku": "A-1", "name": "pen", "price": Bson::Decimal128("2.50".parse().unwrap()), "qty": 2,
    };
    let orders = vec![
        order(1, vec![item.clone()]),
        order(2, vec![item.clone(), item]),
        order(3, vec![]),
    ];
    let events = vec![doc! {
        "_id": ObjectId::from_bytes([0x65, 0x66, 0xf1, 0xa1, 0, 0, 0, 0, 0, 0, 0, 1]),
        "user_id": "u1", "type": "login", "at": bson::DateTime::from_millis(1_700_000_000_000),
    }];
    let users = vec![doc! {
        "_id": ObjectId::from_bytes([0x65, 0x66, 0xf1, 0xa2, 0, 0, 0, 0, 0, 0, 0, 1]),
        "email": "ada@example.com", "name": "Ada",
    }];
    vec![
        ("app", "orders", orders.clone()),
        ("app", "events", events),
        ("shop", "orders", orders),
        ("shop", "users", users),
    ]
}

/// A fresh directory for one page: the shims, the fixtures, and the working directory (with
/// `examples/` and `bench/` of the repository, which the commands name).
struct Sandbox {
    dir: PathBuf,
}

impl Sandbox {
    fn new(page: usize) -> Self {
        let dir =
            std::env::temp_dir().join(format!("mongo-schema-docs-{}-{page}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["bin", "fixtures", "work"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        for shared in ["examples", "bench"] {
            std::os::unix::fs::symlink(root().join(shared), dir.join("work").join(shared)).unwrap();
        }
        let binaries = binaries();
        std::os::unix::fs::symlink(&binaries.cli, dir.join("bin/mongo-schema")).unwrap();
        let fixtures = dir.join("fixtures");
        let shims = [
            ("cargo", cargo_shim(binaries)),
            ("mongodump", tool_shim("mongodump", &fixtures)),
            ("mongoexport", tool_shim("mongoexport", &fixtures)),
        ];
        for (name, script) in shims {
            let path = dir.join("bin").join(name);
            std::fs::write(&path, script).unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
        }
        Self { dir }
    }

    /// Seeds `server` (with the local evaluator for `$jsonSchema` queries, which `audit`
    /// sends) and writes the stand-in tools' files.
    fn seed(&self, server: &BlockingTestServer) {
        server.set_schema_evaluator(Arc::new(FnEvaluator(
            |schema: &Document, document: &Document| {
                let validator = Validator::from_document(&doc! { "$jsonSchema": schema });
                let raw = bson::RawDocumentBuf::try_from(document);
                matches!((validator, raw), (Ok(v), Ok(raw)) if v.evaluate(&raw).is_valid())
            },
        )));
        for (db, collection, documents) in seed() {
            server.seed_collection(
                db,
                doc! { "name": collection, "type": "collection", "options": {} },
            );
            server.seed_documents(db, collection, documents.clone());
            let mut dump = Vec::new();
            let mut lines = String::new();
            for document in &documents {
                document.to_writer(&mut dump).unwrap();
                let json = Bson::Document(document.clone()).into_relaxed_extjson();
                lines.push_str(&json.to_string());
                lines.push('\n');
            }
            let fixtures = self.dir.join("fixtures");
            std::fs::write(fixtures.join(format!("{db}.{collection}.bson")), dump).unwrap();
            std::fs::write(fixtures.join(format!("{db}.{collection}.jsonl")), lines).unwrap();
        }
    }

    /// Runs one command line with `sh` in the working directory; its exit code (None: killed by
    /// a signal or the timeout) and what it printed.
    fn run(&self, command: &str, server: &BlockingTestServer) -> (Option<i32>, String) {
        let path = format!(
            "{}:{}",
            self.dir.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = self.dir.join("stdout");
        let err = self.dir.join("stderr");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(self.dir.join("work"))
            .env("PATH", path)
            .env("MONGODB_URI", server.uri_with_db("app"))
            .env("DOCS_TEST_ADDRESS", server_address(server))
            .env("PROD_READONLY_URI", server.uri_with_db("shop"))
            .env_remove("NO_COLOR")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .expect("sh runs");
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let printed = format!(
            "{}{}",
            std::fs::read_to_string(&out).unwrap_or_default(),
            std::fs::read_to_string(&err).unwrap_or_default()
        );
        (status.and_then(|s| s.code()), printed)
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What one page's commands did, and what went wrong.
#[derive(Default)]
struct PageRun {
    ran: usize,
    skipped: Vec<String>,
    wrong: Vec<String>,
    /// Each command, its exit code and what it printed (written to the file named by
    /// `MONGO_SCHEMA_DOCS_TRANSCRIPT` when set, for the issue's note).
    transcript: String,
}

/// Runs a page's steps in order, in one sandbox, against one server.
fn run_page(number: usize, name: &str, text: &str) -> PageRun {
    let mut run = PageRun::default();
    let (steps, problems) = steps(text);
    run.wrong
        .extend(problems.into_iter().map(|p| format!("{name}: {p}")));
    if steps.is_empty() {
        return run;
    }
    let sandbox = Sandbox::new(number);
    let server = BlockingTestServer::start(TestServerOptions::default());
    sandbox.seed(&server);
    let names = pattern_examples();
    let mut last: Vec<(String, Option<i32>)> = Vec::new();
    for step in steps {
        match step {
            Step::Skipped {
                line,
                command,
                reason,
            } => run
                .skipped
                .push(format!("{name}:{line}: `{command}`: {reason}")),
            Step::ExitWas { line, code } => {
                for (command, got) in &last {
                    if code.is_none() || *got != code {
                        run.wrong.push(format!(
                            "{name}:{line}: `{command}` exited {got:?}, the page says {code:?}"
                        ));
                    }
                }
            }
            Step::Run {
                line,
                command,
                output,
            } => {
                let commands: Vec<String> = if command.contains("<name>") {
                    names.iter().map(|n| command.replace("<name>", n)).collect()
                } else {
                    vec![command]
                };
                last.clear();
                for command in commands {
                    run.ran += 1;
                    let (code, printed) = sandbox.run(&command, &server);
                    let _ = write!(
                        run.transcript,
                        "## {name}:{line}\n$ {command}\n{printed}[exit {code:?}]\n\n"
                    );
                    if !matches!(code, Some(0 | 1)) {
                        run.wrong.push(format!(
                            "{name}:{line}: `{command}` exited {code:?}:\n{printed}"
                        ));
                    }
                    for expected in &output {
                        if !printed.lines().any(|l| l.trim() == expected) {
                            run.wrong.push(format!(
                                "{name}:{line}: `{command}` did not print the page's line \
                                 {expected:?}; it printed:\n{printed}"
                            ));
                        }
                    }
                    last.push((command, code));
                }
            }
        }
    }
    run
}

#[test]
fn every_documented_command_runs() {
    let names = pattern_examples();
    assert_eq!(names.len(), 14, "{names:?}");
    let mut ran = 0;
    let mut skipped = Vec::new();
    let mut wrong = Vec::new();
    let mut transcript = String::new();
    for (number, page) in pages().iter().enumerate() {
        let text = std::fs::read_to_string(page).unwrap();
        let name = page
            .strip_prefix(root())
            .unwrap_or(page)
            .display()
            .to_string();
        let run = run_page(number, &name, &text);
        ran += run.ran;
        skipped.extend(run.skipped);
        wrong.extend(run.wrong);
        transcript.push_str(&run.transcript);
    }
    if let Some(path) = std::env::var_os("MONGO_SCHEMA_DOCS_TRANSCRIPT") {
        std::fs::write(path, &transcript).unwrap();
    }
    eprintln!(
        "{ran} documented commands ran; skipped:\n{}",
        skipped.join("\n")
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    assert!(ran > 100, "only {ran} commands ran");
    assert!(
        skipped.len() <= MAX_SKIPPED,
        "{} commands are marked as not runnable (at most {MAX_SKIPPED}):\n{}",
        skipped.len(),
        skipped.join("\n")
    );
}

/// The runner fails what a user would see fail: a mistyped subcommand, a missing example, the
/// binary name the guide used before, a file that does not exist, a transcript that lies.
#[test]
fn a_wrong_command_fails_the_page() {
    let cases = [
        (
            "```sh\nmongo-schema validat --schema s.json\n```\n",
            "exited Some(2)",
        ),
        (
            "```sh\ncargo run -p mongo-schema-examples --example nope -- lint\n```\n",
            "exited Some(127)",
        ),
        (
            "```sh\ncargo run --bin schema -- lint\n```\n",
            "exited Some(127)",
        ),
        ("```sh\ncargo test --workspace\n```\n", "exited Some(127)"),
        (
            "```sh\ncargo run -p mongo-schema-examples --example quickstart -- lint\n```\n",
            "exited Some(2)",
        ),
        (
            "```console\n$ mongo-schema check --manifest m.json --catalog c.json\n```\n",
            "exited Some(2)",
        ),
        (
            "```console\n$ cargo run -p mongo-schema-examples --example validated_users -- lint\n$ echo $?\n1\n```\n",
            "the page says Some(1)",
        ),
        (
            "```console\n$ cargo run -p mongo-schema-examples --example bucket -- lint\nno such line\n```\n",
            "did not print the page's line \"no such line\"",
        ),
        (
            "<!-- docs-test: skip `cargo bench`: not in this block -->\n```sh\nmongo-schema --help\n```\n",
            "no command starts with `cargo bench`",
        ),
        (
            "<!-- docs-test: skip `mongo-schema`: -->\n```sh\nmongo-schema --help\n```\n",
            "expected <!-- docs-test: skip",
        ),
    ];
    for (page, expected) in cases {
        let run = run_page(100, "case.md", page);
        let wrong = run.wrong.join("\n");
        assert!(wrong.contains(expected), "{page}\n---\n{wrong}");
    }
    // The same shapes, right: they pass.
    let right = "<!-- docs-test: skip `cargo test`: the suite itself -->\n```console\n\
                 $ cargo run -p mongo-schema-examples --example validated_users -- check --catalog examples/live/validated_users.json\n\
                 check: 1 difference in 1 collection: 1 rebuild\n$ echo $?\n1\n$ cargo test\n```\n\
                 ```yaml\n      - run: mongo-schema check --manifest examples/catalog/manifest.json --catalog examples/catalog/shop.json || test $? -eq 1\n```\n";
    let run = run_page(101, "right.md", right);
    assert!(run.wrong.is_empty(), "{}", run.wrong.join("\n"));
    assert_eq!((run.ran, run.skipped.len()), (2, 1));
}

#[test]
fn steps_follow_the_shell_and_workflow_blocks() {
    let page = "```sh\n# a comment\nmongo-schema lint   # trailing\n\n```\n\
                ```console\n$ mongo-schema check\nline one\n  line two\n$ echo $?\n1\n```\n\
                ```yaml\nsteps:\n  - name: x\n    run: cargo run --bin mongo-schema -- lint\n  - run: cargo test\n```\n\
                ```rust\nfn main() {}\n```\n";
    let (steps, problems) = steps(page);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        steps,
        [
            Step::Run {
                line: 3,
                command: "mongo-schema lint   # trailing".into(),
                output: vec![]
            },
            Step::Run {
                line: 7,
                command: "mongo-schema check".into(),
                output: vec!["line one".into(), "line two".into()]
            },
            Step::ExitWas {
                line: 10,
                code: Some(1)
            },
            Step::Run {
                line: 16,
                command: "cargo run --bin mongo-schema -- lint".into(),
                output: vec![]
            },
            Step::Run {
                line: 17,
                command: "cargo test".into(),
                output: vec![]
            },
        ]
    );
}
