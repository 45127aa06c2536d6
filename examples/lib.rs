//! Runnable examples of the schema-design patterns: one small application per collection of
//! `PATTERNS.md`, each with its types, its collection declarations and the pattern's own writes.
//!
//! Each example's `main` links the `mongo-schema` command with the example's collections
//! ([`main`]), so `cargo run -p mongo-schema-examples --example bucket` explains the example and
//! `cargo run -p mongo-schema-examples --example bucket -- generate` (or `lint`, or
//! `check --catalog examples/live/bucket.json`) runs the command on its declarations.
//!
//! Each example passes its own list to the command line (`mongo_schema_cli::run` with the
//! example's collections) rather than `main_registered`: this one library declares all fourteen
//! examples, several on the same collection name, so the registry would mix them.

pub mod apps;
pub mod tour;

use std::ffi::OsString;
use std::process::ExitCode;

use bson::{Bson, Document};
use mongo_schema::ExtJsonMode;
use mongo_schema::spec::CollectionSpec;
use mongo_schema_cli::{Console, Outcome};

/// One runnable example.
#[derive(Clone, Copy)]
pub struct Example {
    /// The cargo example name (`cargo run --example <name>`).
    pub name: &'static str,
    /// The pattern it shows, as PATTERNS.md names it.
    pub pattern: &'static str,
    /// What it shows, in a few sentences.
    pub summary: &'static str,
    /// Its collection declarations.
    pub collections: fn() -> Vec<CollectionSpec>,
    /// The pattern's code beyond the schema, run on sample values and printed.
    pub explain: fn() -> String,
    /// Server commands that, run after creating the collections as declared, leave the drift
    /// that `examples/live/<name>.json` captures (what `check --catalog` then reports).
    pub drift: fn() -> Vec<Document>,
}

/// Every pattern example, in PATTERNS.md order.
pub const ALL: &[&Example] = &[
    &apps::embedding::EXAMPLE,
    &apps::extended_reference::EXAMPLE,
    &apps::subset::EXAMPLE,
    &apps::bucket::EXAMPLE,
    &apps::time_series::EXAMPLE,
    &apps::computed::EXAMPLE,
    &apps::outlier::EXAMPLE,
    &apps::polymorphic::EXAMPLE,
    &apps::schema_versioning::EXAMPLE,
    &apps::validated_orders::EXAMPLE,
    &apps::validated_users::EXAMPLE,
    &apps::text_search::EXAMPLE,
    &apps::sharding::EXAMPLE,
    &apps::unbounded_array::EXAMPLE,
];

/// An example binary's `main`: runs [`run`] on the process's arguments and terminal.
pub fn main(example: &Example) -> ExitCode {
    run(example, std::env::args_os(), &mut Console::std()).into()
}

/// With no argument besides the program name, prints the example's explanation; otherwise runs
/// the `mongo-schema` command with the example's collections linked in.
pub fn run<I, T>(example: &Example, args: I, console: &mut Console) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if args.len() <= 1 {
        console.out(&introduction(example));
        return Outcome::Clean;
    }
    let collections = (example.collections)();
    mongo_schema_cli::run(args, Some(&collections), console)
}

/// As [`main`], for an example whose versioned types the `migrate` command rewrites.
pub fn main_migrating(example: &Example, migrations: &[mongo_schema_cli::Migration]) -> ExitCode {
    run_migrating(
        example,
        migrations,
        std::env::args_os(),
        &mut Console::std(),
    )
    .into()
}

/// As [`run`], with `migrations` for the `migrate` command.
pub fn run_migrating<I, T>(
    example: &Example,
    migrations: &[mongo_schema_cli::Migration],
    args: I,
    console: &mut Console,
) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    if args.len() <= 1 {
        console.out(&introduction(example));
        return Outcome::Clean;
    }
    let collections = (example.collections)();
    mongo_schema_cli::run_with_migrations(args, Some(&collections), migrations, console)
}

/// What `cargo run --example <name>` prints: the pattern, the example's collections, its
/// pattern code on sample values, and the commands to try.
pub fn introduction(example: &Example) -> String {
    let name = example.name;
    let collections: Vec<String> = (example.collections)()
        .into_iter()
        .map(|c| c.name)
        .collect();
    format!(
        "{name}: {pattern}\n\n{summary}\n\nCollections: {collections}\n\n{explain}\n\
         Run the mongo-schema command on these collections:\n  \
         cargo run -p mongo-schema-examples --example {name} -- generate\n  \
         cargo run -p mongo-schema-examples --example {name} -- generate --format mongosh\n  \
         cargo run -p mongo-schema-examples --example {name} -- lint\n  \
         cargo run -p mongo-schema-examples --example {name} -- check --catalog examples/live/{name}.json\n",
        pattern = example.pattern,
        summary = wrap(example.summary, 96),
        collections = collections.join(", "),
        explain = (example.explain)(),
    )
}

/// Breaks `text` into lines of at most `width` characters, at spaces.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        if line > 0 && line + 1 + word.len() > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.len();
    }
    out
}

/// A document as relaxed Extended JSON, in its field order.
pub fn json(document: &Document) -> String {
    mongo_schema::extjson::to_string_pretty(&Bson::Document(document.clone()), ExtJsonMode::Relaxed)
}

/// A list of documents (a pipeline) as relaxed Extended JSON, in field order.
pub fn json_list(documents: &[Document]) -> String {
    let list = documents.iter().cloned().map(Bson::Document).collect();
    mongo_schema::extjson::to_string_pretty(&Bson::Array(list), ExtJsonMode::Relaxed)
}

/// Whether the collection's declared validator accepts `document`; when it does not, the
/// server-shaped explanation (`errInfo.details`) as JSON.
///
/// # Errors
/// The explanation, or why the validator or document could not be evaluated.
pub fn verdict(spec: &CollectionSpec, document: &Document) -> Result<(), String> {
    let Some(validator) = &spec.validator else {
        return Ok(());
    };
    let compiled = mongo_schema::eval::Validator::from_document(&validator.to_document())
        .map_err(|e| format!("{}: the validator does not parse: {e}", spec.name))?;
    let raw = bson::RawDocumentBuf::try_from(document).map_err(|e| e.to_string())?;
    let verdict = compiled.evaluate(&raw);
    match verdict.details() {
        None => Ok(()),
        Some(details) => Err(json(details)),
    }
}
