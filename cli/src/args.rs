//! The command line, as clap types: one struct per subcommand, with the shared groups
//! (`ConnectArgs`, `LiveArgs`, `DeclaredArgs`, `OutputArgs`) flattened in.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// `--version`: ours and the linked regex engine's (patterns run on the server's PCRE2 release).
fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        format!(
            "{} (PCRE2 {})",
            env!("CARGO_PKG_VERSION"),
            mongo_schema::eval::pcre2_version()
        )
    })
}

/// `mongo-schema`: Rust types as the single source of truth for MongoDB collections.
#[derive(Debug, Parser)]
#[command(name = "mongo-schema", version = version(), about, long_about = None)]
#[command(
    after_help = "Exit codes: 0 in sync / nothing rejected, 1 drift found / documents \
                        rejected / lint errors, 2 could not check (connection, authentication, \
                        timeout, bad file)."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the manifest of the declared collections (JSON), or a mongosh script creating them.
    Generate(GenerateArgs),
    /// Write the live catalog (listCollections and listIndexes, verbatim) to a file.
    Snapshot(SnapshotArgs),
    /// Compare declared and live collections; exit 1 on drift. Never writes.
    Check(CheckArgs),
    /// Print the server commands that would make live match declared.
    Plan(PlanArgs),
    /// Run the plan against the deployment.
    Apply(ApplyArgs),
    /// Count live documents each declared validator would reject. Read-only.
    Audit(AuditArgs),
    /// Check exported documents (mongodump, mongoexport) against a `$jsonSchema`, offline;
    /// exit 1 when some are rejected.
    Validate(ValidateArgs),
    /// Report model problems: unbounded arrays, documents that can outgrow 16 MiB, weak indexes
    /// and shard keys.
    Lint(LintArgs),
    /// Run each declared query with `explain` on a deployment, with sampled values; exit 1 when
    /// one scans the collection or examines far more documents than it returns. Read-only.
    Explain(ExplainArgs),
    /// Propose Rust types for exported documents (mongodump, mongoexport), with the proof that
    /// their validator accepts every document; exit 1 when it does not.
    Infer(InferArgs),
    /// Rewrite the documents of versioned collections still on an older version, in batches,
    /// never over a concurrent change; exit 1 when some are left. Runs in the application's own
    /// binary (the conversion is its Rust code).
    Migrate(MigrateArgs),
}

/// How to reach the deployment.
#[derive(Clone, Debug, Args)]
pub struct ConnectArgs {
    /// Connection string; its password is never printed.
    #[arg(long, env = "MONGODB_URI", hide_env_values = true, value_name = "URI")]
    pub uri: Option<String>,
    /// Database name (default: the one in the URI).
    #[arg(long, value_name = "NAME")]
    pub db: Option<String>,
    /// How long to keep trying to reach the deployment and to finish each step: `30s`, `500ms`,
    /// `2m` (a bare number is seconds; at most 7 days). A refused connection or a host that does
    /// not resolve fails at once whatever this says; the wait is for servers that can still come
    /// up (a replica set electing a primary, a server starting) and for slow commands.
    #[arg(long, default_value = "30s", value_parser = parse_duration, value_name = "DURATION")]
    pub timeout: Duration,
}

/// Where live specs come from: a deployment, or a snapshot file.
#[derive(Clone, Debug, Args)]
pub struct LiveArgs {
    /// Read the live catalog from this file (what `snapshot` writes) instead of a server.
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// The deployment.
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// Where declared specs come from when the binary links none.
#[derive(Clone, Debug, Args)]
pub struct DeclaredArgs {
    /// The manifest (the JSON `generate` prints) declaring the collections.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
}

/// The output format, one enum per kind of output.
#[derive(Clone, Debug, Args)]
pub struct OutputArgs<F: ValueEnum + Clone + Send + Sync + 'static> {
    /// Output format.
    #[arg(long, value_enum)]
    pub format: Option<F>,
}

/// Formats of a drift report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Readable on a terminal (coloured only on a TTY).
    Text,
    /// One JSON document.
    Json,
    /// GitHub Actions workflow annotations.
    Github,
}

/// Formats of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlanFormat {
    /// Readable on a terminal.
    Text,
    /// One JSON document.
    Json,
    /// A runnable mongosh script.
    Mongosh,
}

/// Formats of the manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ManifestFormat {
    /// The manifest JSON (what `--manifest` reads).
    Json,
    /// A runnable mongosh script: createCollection, collMod, createIndexes.
    Mongosh,
}

/// `generate`.
#[derive(Clone, Debug, Args)]
pub struct GenerateArgs {
    /// Declared collections.
    #[command(flatten)]
    pub declared: DeclaredArgs,
    /// Output format (default json).
    #[command(flatten)]
    pub output: OutputArgs<ManifestFormat>,
    /// Write to this file instead of stdout.
    #[arg(long, value_name = "FILE", conflicts_with = "check")]
    pub out: Option<PathBuf>,
    /// Compare with this committed file instead of printing: exit 0 when it is what the
    /// declarations generate, 1 with a diff when it is stale, 2 when it cannot be read (for CI,
    /// so a stale `--manifest` file cannot pass).
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,
}

/// `snapshot`.
#[derive(Clone, Debug, Args)]
pub struct SnapshotArgs {
    /// The deployment.
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Write to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// How many listIndexes calls may run at once (1 to 256).
    #[arg(long, default_value_t = 16, value_parser = count::<1, 256>, value_name = "N")]
    pub concurrency: usize,
}

/// `check`.
#[derive(Clone, Debug, Args)]
pub struct CheckArgs {
    /// Declared collections.
    #[command(flatten)]
    pub declared: DeclaredArgs,
    /// Live collections.
    #[command(flatten)]
    pub live: LiveArgs,
    /// Output format (default text).
    #[command(flatten)]
    pub output: OutputArgs<ReportFormat>,
    /// How many listIndexes calls may run at once (1 to 256).
    #[arg(long, default_value_t = 16, value_parser = count::<1, 256>, value_name = "N")]
    pub concurrency: usize,
}

/// `plan`.
#[derive(Clone, Debug, Args)]
pub struct PlanArgs {
    /// Declared collections.
    #[command(flatten)]
    pub declared: DeclaredArgs,
    /// Live collections.
    #[command(flatten)]
    pub live: LiveArgs,
    /// Output format (default text).
    #[command(flatten)]
    pub output: OutputArgs<PlanFormat>,
    /// Also drop indexes the declarations do not own.
    #[arg(long)]
    pub prune: bool,
    /// With --prune, hide indexes the declarations do not own instead of dropping them, so that
    /// their absence can be watched before a later drop.
    #[arg(long, requires = "prune")]
    pub hide: bool,
    /// Index usage evidence and build options.
    #[command(flatten)]
    pub indexes: IndexArgs,
}

/// How `plan` and `apply` judge index drops (`$indexStats`) and run builds.
#[derive(Clone, Debug, Args)]
pub struct IndexArgs {
    /// With --prune, drop an index only when `$indexStats` shows no operation on any host for
    /// at least this long: `14d`, `36h`, `2w` (a unit is required; 1m to 365d). An index that
    /// shows use, or counts for less than this, is kept and the plan says why.
    #[arg(
        long,
        default_value = "14d",
        value_parser = parse_unused_for,
        value_name = "DURATION"
    )]
    pub unused_for: Duration,
    /// With --prune, drop indexes the usage evidence would keep.
    #[arg(long, requires = "prune")]
    pub force: bool,
    /// `commitQuorum` of each index build (replica sets and sharded clusters; 4.4+): a number
    /// of members (0 to 50), `majority`, `votingMembers` (the server's default), or a replica
    /// set tag name.
    #[arg(long, value_parser = parse_commit_quorum, value_name = "QUORUM")]
    pub commit_quorum: Option<bson::Bson>,
}

/// `apply`.
#[derive(Clone, Debug, Args)]
pub struct ApplyArgs {
    /// Declared collections.
    #[command(flatten)]
    pub declared: DeclaredArgs,
    /// The deployment.
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Also drop indexes the declarations do not own.
    #[arg(long)]
    pub prune: bool,
    /// With --prune, hide indexes the declarations do not own instead of dropping them, so that
    /// their absence can be watched before a later drop.
    #[arg(long, requires = "prune")]
    pub hide: bool,
    /// Run without asking (required when not on a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Set a validator that stored documents fail, under validationAction "error" (refused
    /// without it: declare "warn" first, or fix the documents until `audit` is clean).
    #[arg(long)]
    pub allow_tightening: bool,
    /// After the commands ran, wait until every search index they created or changed is
    /// queryable (`$listSearchIndexes` status READY), with a bar on a terminal; within
    /// `--timeout`, so raise it for a large collection.
    #[arg(long)]
    pub wait: bool,
    /// Index usage evidence and build options.
    #[command(flatten)]
    pub indexes: IndexArgs,
}

/// `audit`.
#[derive(Clone, Debug, Args)]
pub struct AuditArgs {
    /// Declared collections.
    #[command(flatten)]
    pub declared: DeclaredArgs,
    /// The deployment.
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Output format (default text).
    #[command(flatten)]
    pub output: OutputArgs<ReportFormat>,
    /// How many rejected documents to show per collection, with their explanation (0 to 1000).
    #[arg(long, default_value_t = 3, value_parser = count::<0, 1000>, value_name = "N")]
    pub sample: usize,
    /// Server-side time limit of each count, in the same units as --timeout.
    #[arg(long, default_value = "60s", value_parser = parse_duration, value_name = "DURATION")]
    pub max_time: Duration,
    /// Also count documents per value of this field (e.g. `schemaVersion`) during a migration.
    #[arg(long, value_name = "FIELD")]
    pub by_version: Option<String>,
}

/// `lint`.
#[derive(Clone, Debug, Args)]
pub struct LintArgs {
    /// Declared collections.
    #[command(flatten)]
    pub declared: DeclaredArgs,
    /// A stored array path that is unbounded on purpose (`liked_posts`); repeatable.
    #[arg(long, value_name = "PATH")]
    pub allow_unbounded: Vec<String>,
    /// Output format (default text).
    #[command(flatten)]
    pub output: OutputArgs<ReportFormat>,
}

/// Arguments of `mongo-schema explain`.
#[derive(Clone, Debug, Args)]
pub struct ExplainArgs {
    /// Declared collections (their queries are declared on the linked types).
    #[command(flatten)]
    pub declared: DeclaredArgs,
    /// The deployment.
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Output format (default text).
    #[command(flatten)]
    pub output: OutputArgs<ExplainFormat>,
    /// Server-side time limit (`maxTimeMS`) of each sample and each explain.
    #[arg(long, default_value = "10s", value_parser = parse_duration, value_name = "DURATION")]
    pub max_time: Duration,
    /// Values to explain with where a collection has no document to sample (an empty collection
    /// in CI): a JSON object of one document per collection, `{"orders": {"user_id": 7,
    /// "status": "PAID"}}` (Extended JSON for ObjectId, dates, ...). Only the fields a query
    /// filters on are read; a collection with documents is sampled as usual.
    #[arg(long, value_name = "FILE")]
    pub sample_values: Option<PathBuf>,
}

/// Formats of the explain report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    /// Readable on a terminal.
    Text,
    /// One JSON document.
    Json,
    /// GitHub Actions annotations: an error per query not served by an index, a notice per
    /// skipped query, then a summary notice.
    Github,
}

/// Arguments of `mongo-schema infer`.
#[derive(Clone, Debug, Args)]
pub struct InferArgs {
    /// Documents of one collection: `.bson` (mongodump), `.jsonl`/`.ndjson` (mongoexport, one
    /// Extended JSON document per line), `.json` (one document or an array), `-` for stdin.
    /// Without files, the collection (or every collection of the database) named by `--uri`.
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// What the inputs hold; `auto` (default) goes by the file name, and reads JSON lines on `-`.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto, value_name = "KIND")]
    pub input_format: InputFormat,
    /// Worker threads for files (default: every core; 1 to 1024).
    #[arg(long, value_parser = count::<1, 1024>, value_name = "N")]
    pub threads: Option<usize>,
    /// The collection's name (default: the first file's name without its extension); with
    /// `--uri`, the collection to read (default: every collection of the database).
    #[arg(long, value_name = "NAME")]
    pub collection: Option<String>,
    /// The deployment to read from when no file is given (read-only: `find` or `$sample`).
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Read N documents chosen by the server (`$sample`) instead of scanning every document
    /// (1 to 10,000,000: the sample is held in memory for the proof).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub sample: Option<u64>,
    /// Server-side time limit (`maxTimeMS`) of each scan of a live collection.
    #[arg(long, default_value = "10m", value_parser = parse_duration, value_name = "DURATION")]
    pub max_time: Duration,
    /// Count the census in the server's aggregation framework (only statistics travel), and
    /// the proof with a `$jsonSchema` query, instead of reading every document.
    #[arg(long, conflicts_with = "sample")]
    pub server_side: bool,
    /// Write strings with few distinct values as enums.
    #[arg(long)]
    pub enums: bool,
    /// `text` (default): the Rust source, then the proof; `json`: the census report;
    /// `github`: annotations for the lints and the rejected documents.
    #[arg(long, value_enum, default_value_t = InferFormat::Text)]
    pub format: InferFormat,
    /// Write the source to `DIR/<collection>.rs` instead of stdout.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Output formats of `infer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InferFormat {
    /// The Rust source, then the proof line.
    Text,
    /// The census per path, the notes, the proof and the source, as one JSON document.
    Json,
    /// GitHub Actions annotations: one per lint finding and per rejected document.
    Github,
}

/// Arguments of `mongo-schema validate`.
#[derive(Clone, Debug, Args)]
pub struct ValidateArgs {
    /// A JSON file holding a `$jsonSchema` object or a `{"$jsonSchema": ...}` validator
    /// (Extended JSON, canonical or relaxed).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "manifest",
        conflicts_with = "manifest"
    )]
    pub schema: Option<PathBuf>,
    /// A manifest (what `generate` prints) to take the validator from, with `--collection`.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The manifest's collection whose validator to use (may be left out when the manifest
    /// declares exactly one collection with a validator), or a view, whose documents are
    /// checked against the schema its type derives (the manifest's `documentSchema`).
    #[arg(long, value_name = "NAME", requires = "manifest")]
    pub collection: Option<String>,
    /// Documents to check: `.bson` (mongodump), `.jsonl`/`.ndjson` (mongoexport), `.json` (one
    /// document or an array), `-` for stdin (JSON lines unless --input-format says otherwise).
    /// Without any, stdin is read when it is not a terminal.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// What the inputs hold; `auto` (default) goes by the file name, and reads JSON lines on `-`.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto, value_name = "KIND")]
    pub input_format: InputFormat,
    /// `summary` (default): counts and the failing rules ranked; `json`: the same as one JSON
    /// document; `github`: the failing rules as workflow annotations; `jsonl`: one line per
    /// document.
    #[arg(long, value_enum, default_value_t = ValidateFormat::Summary)]
    pub format: ValidateFormat,
    /// Worker threads (default: every core; 1 to 1024).
    #[arg(long, value_parser = count::<1, 1024>, value_name = "N")]
    pub threads: Option<usize>,
    /// Example document ids listed per failing rule in the summary (0 to 1000).
    #[arg(long, default_value_t = 3, value_parser = count::<0, 1000>, value_name = "N")]
    pub examples: usize,
}

/// What an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// By the file name (`.bson`, `.jsonl`, `.ndjson`, `.json`); JSON lines on stdin.
    Auto,
    /// Concatenated BSON documents, as mongodump writes them.
    Bson,
    /// One Extended JSON document per line, as mongoexport writes them.
    Jsonl,
    /// One Extended JSON document, or an array of them (`mongoexport --jsonArray`).
    Json,
}

impl InputFormat {
    /// What the kind holds, for messages (`BSON documents`, `JSON lines`).
    pub fn noun(self) -> &'static str {
        match self {
            InputFormat::Bson => "BSON documents",
            InputFormat::Json => "a JSON document or array",
            InputFormat::Auto | InputFormat::Jsonl => "JSON lines",
        }
    }
}

/// Output formats of `validate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ValidateFormat {
    /// Counts and the failing rules ranked by count, with example ids.
    Summary,
    /// The summary as one JSON document.
    Json,
    /// The failing rules as GitHub Actions annotations, and a notice with the counts.
    Github,
    /// `{"index": N, "_id": ..., "valid": bool, "errors": [...]}` per document.
    Jsonl,
}

/// The longest duration any flag takes: past a week a limit stops meaning anything, and the
/// driver and the runtime add durations to clock readings, which a huge value would overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);

/// Parses a count between `MIN` and `MAX` (clap's value parser for `usize` flags).
///
/// # Errors
/// Not a whole number, or outside the range: a message naming the range.
pub fn count<const MIN: usize, const MAX: usize>(text: &str) -> Result<usize, String> {
    let out_of_range = || format!("{text:?} is not a whole number from {MIN} to {MAX}");
    let value: usize = text.trim().parse().map_err(|_| out_of_range())?;
    if (MIN..=MAX).contains(&value) {
        Ok(value)
    } else {
        Err(out_of_range())
    }
}

/// Parses `--commit-quorum`: a whole number of members from 0 to 50, `majority`,
/// `votingMembers`, or the name of a replica set tag (a `settings.getLastErrorModes` key).
///
/// Source: the manual's `createIndexes` page (`commitQuorum`: "votingMembers" (the default),
/// "majority", a number of data-bearing voting members, or a replica set tag name; 0 disables
/// the quorum vote) and the server's `CommitQuorumOptions::parse` (a number from 0 to 50 =
/// `ReplSetConfig::kMaxMembers`, or a non-empty string). Modes are case-sensitive, so
/// `Majority` would name a tag: it is refused here with the spelling the server knows.
///
/// # Errors
/// A message naming the accepted forms.
pub fn parse_commit_quorum(text: &str) -> Result<bson::Bson, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty commit quorum: expected a number of members (0 to 50), majority, votingMembers, or a replica set tag name".to_owned());
    }
    let numeric = text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+');
    if numeric {
        return match text.parse::<u32>() {
            Ok(n) if n <= 50 => Ok(bson::Bson::Int32(n as i32)),
            _ => Err(format!(
                "invalid commit quorum {text:?}: a number of members must be a whole number from 0 to 50 (a replica set has at most 50 members)"
            )),
        };
    }
    for mode in ["majority", "votingMembers"] {
        if text != mode && text.eq_ignore_ascii_case(mode) {
            return Err(format!(
                "invalid commit quorum {text:?}: modes are case-sensitive; did you mean {mode}? (any other word names a replica set tag)"
            ));
        }
    }
    if text.chars().any(char::is_control) {
        return Err(format!(
            "invalid commit quorum {text:?}: a tag name has no control characters"
        ));
    }
    Ok(bson::Bson::String(text.to_owned()))
}

/// Parses `30s`, `500ms`, `2m`, `1h` or a bare number of seconds, up to [`MAX_DURATION`].
///
/// # Errors
/// A message naming the accepted forms, or the limit.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("invalid duration {text:?}: expected e.g. 30s, 500ms, 2m"))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "invalid duration unit {other:?}: expected ms, s, m or h"
            ));
        }
    };
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!(
            "invalid duration {text:?}: must be greater than zero"
        ));
    }
    if seconds > MAX_DURATION.as_secs_f64() {
        return Err(format!("invalid duration {text:?}: at most 7 days (168h)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// The longest `--unused-for`: `$indexStats` counters restart with the server, so a year
/// covers every deployment that has been up long enough to judge.
pub const MAX_UNUSED_FOR: Duration = Duration::from_secs(365 * 24 * 3600);

/// Parses `--unused-for`: a number with a unit (`s`, `m`, `h`, `d`, `w`), from one minute to
/// [`MAX_UNUSED_FOR`]. Unlike the other durations a bare number is refused: `14` could be
/// seconds or days.
///
/// # Errors
/// A message naming the accepted forms, or the range.
pub fn parse_unused_for(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("invalid duration {text:?}: expected e.g. 14d, 36h, 2w"))?;
    let seconds = match unit.trim() {
        "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86_400.0,
        "w" => value * 7.0 * 86_400.0,
        "" => {
            return Err(format!(
                "invalid duration {text:?}: give a unit, e.g. {text}d for days"
            ));
        }
        other => {
            return Err(format!(
                "invalid duration unit {other:?}: expected s, m, h, d or w"
            ));
        }
    };
    if !seconds.is_finite() || seconds < 60.0 {
        return Err(format!("invalid duration {text:?}: at least 1m"));
    }
    if seconds > MAX_UNUSED_FOR.as_secs_f64() {
        return Err(format!("invalid duration {text:?}: at most 365d"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_for_takes_days_and_weeks_and_names_its_range() {
        assert_eq!(
            parse_unused_for("14d"),
            Ok(crate::indexes::DEFAULT_UNUSED_FOR)
        );
        assert_eq!(
            parse_unused_for("2w"),
            Ok(crate::indexes::DEFAULT_UNUSED_FOR)
        );
        assert_eq!(parse_unused_for("36h"), Ok(Duration::from_secs(36 * 3600)));
        assert_eq!(parse_unused_for("365d"), Ok(MAX_UNUSED_FOR));
        assert!(parse_unused_for("14").unwrap_err().contains("give a unit"));
        assert!(parse_unused_for("30s").unwrap_err().contains("at least 1m"));
        assert!(
            parse_unused_for("366d")
                .unwrap_err()
                .contains("at most 365d")
        );
        assert!(parse_unused_for("99999999999999999999999d").is_err());
        assert!(parse_unused_for("1e400d").is_err());
        assert!(parse_unused_for("3 fortnights").is_err());
        assert!(parse_unused_for("-1d").is_err());
        assert!(parse_unused_for("").is_err());
    }

    #[test]
    fn durations_accept_units_and_bare_seconds() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("3 weeks").is_err());
        assert!(parse_duration("999999999999999999999").is_err());
        assert!(parse_duration("99999999999999999999s").is_err());
        assert_eq!(parse_duration("168h"), Ok(MAX_DURATION));
    }

    #[test]
    fn counts_name_their_range() {
        assert_eq!(count::<1, 8>("8"), Ok(8));
        assert_eq!(
            count::<1, 8>("18446744073709551615"),
            Err("\"18446744073709551615\" is not a whole number from 1 to 8".to_owned())
        );
        assert!(count::<1, 8>("0").is_err());
        assert!(count::<1, 8>("-1").is_err());
    }

    #[test]
    fn version_names_the_servers_pcre2_release() {
        use clap::CommandFactory;
        let shown = Cli::command().render_version();
        assert!(shown.contains("(PCRE2 10.42 2022-12-11)"), "{shown}");
    }

    #[test]
    fn command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

/// `migrate`.
#[derive(Clone, Debug, Args)]
pub struct MigrateArgs {
    /// The deployment (`--timeout` bounds each batch's commands, not the whole run).
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Only this collection (default: every versioned collection linked into the binary).
    #[arg(long, value_name = "NAME")]
    pub collection: Option<String>,
    /// Documents read and rewritten per batch (1 to 100000).
    #[arg(long, default_value_t = 100, value_parser = count::<1, 100_000>, value_name = "N")]
    pub batch: usize,
    /// At most this many documents rewritten per second (1 to 1000000; default: no limit).
    #[arg(long, value_parser = count::<1, 1_000_000>, value_name = "DOCS_PER_SECOND")]
    pub rate: Option<usize>,
    /// Count and convert the outdated documents and show a few before/after pairs; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Go on past a document that cannot be converted or rewritten, and report them all at the
    /// end (default: stop at the first).
    #[arg(long)]
    pub keep_going: bool,
    /// Before/after pairs to show with --dry-run (0 to 100).
    #[arg(long, default_value_t = 3, value_parser = count::<0, 100>, value_name = "N")]
    pub samples: usize,
    /// Passes over the outdated documents: each pass retries those another writer changed
    /// between the read and the rewrite (1 to 100).
    #[arg(long, default_value_t = 5, value_parser = count::<1, 100>, value_name = "N")]
    pub passes: usize,
}
