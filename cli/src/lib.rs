//! The `mongo-schema` command line, as a library so an application can link its own types.
//!
//! The standalone binary reads declared collections from a manifest (`--manifest FILE`). An
//! application links its declarations into its own binary instead, with a few lines in `src/bin/`:
//!
//! ```no_run
//! use mongo_schema::spec::CollectionSpec;
//!
//! fn main() -> std::process::ExitCode {
//!     let collections: Vec<CollectionSpec> = Vec::new(); // the application's declarations
//!     mongo_schema_cli::main_with(collections)
//! }
//! ```
//!
//! Exit codes: 0 in sync / nothing rejected, 1 drift found / documents rejected / lint errors,
//! 2 could not check (connection, authentication, timeout, bad file).

pub mod args;
pub mod catalog;
pub mod cmd;
pub mod console;
pub mod converge;
pub mod deployment;
pub mod hash_seeds;
pub mod indexes;
pub mod json_array;
pub mod redact;
pub mod render;
pub mod report;
pub mod search_wait;
mod validate;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use mongo_schema::spec::CollectionSpec;

use crate::args::Cli;
pub use crate::cmd::migrate::Migration;
pub use crate::console::Console;

/// How a command ended; each maps to one exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0: in sync, nothing rejected, nothing to report.
    Clean,
    /// Exit 1: drift found, documents rejected, lint errors.
    Findings,
    /// Exit 2: could not check (connection, authentication, timeout, bad file or arguments).
    Failed,
}

impl Outcome {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Outcome::Clean => 0,
            Outcome::Findings => 1,
            Outcome::Failed => 2,
        }
    }
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> Self {
        ExitCode::from(outcome.code())
    }
}

/// The standalone binary: declared collections come from `--manifest FILE`.
pub fn main() -> ExitCode {
    hash_seeds::install();
    run(std::env::args_os(), None, &mut Console::std()).into()
}

/// An application's own binary: `collections` are its declarations (`--manifest` still overrides).
pub fn main_with(collections: Vec<CollectionSpec>) -> ExitCode {
    run(std::env::args_os(), Some(&collections), &mut Console::std()).into()
}

/// An application's own binary whose versioned types `migrate` can rewrite: [`main_registered`]
/// plus `migrations` (what `main!(my_app; migrate(User))` passes).
pub fn main_registered_with(migrations: &[Migration]) -> ExitCode {
    hash_seeds::install();
    match mongo_schema::registry::checked_collections() {
        Ok(collections) => run_with_migrations(
            std::env::args_os(),
            Some(&collections),
            migrations,
            &mut Console::std(),
        )
        .into(),
        Err(error) => {
            Console::std().err(&format!("error: the declared collections: {error}\n"));
            Outcome::Failed.into()
        }
    }
}

/// An application's own binary, declarations gathered from every `#[mongo(collection = ...)]`
/// type linked into it (`mongo_schema::registry`).
///
/// Types declared in a library crate are linked only when the binary names that crate: use
/// [`main!`], which does, rather than calling this from a binary that names nothing. With no
/// registered collection, every command that needs declarations exits 2 and says how to fix it.
pub fn main_registered() -> ExitCode {
    hash_seeds::install();
    // A declaration whose path names no field is reported, never turned into a spec.
    match mongo_schema::registry::checked_collections() {
        Ok(collections) => main_with(collections),
        Err(error) => {
            Console::std().err(&format!("error: the declared collections: {error}\n"));
            Outcome::Failed.into()
        }
    }
}

/// The `main` of an application's own `mongo-schema` binary: links the named crates, then runs
/// [`main_registered`].
///
/// ```text
/// // src/bin/mongo-schema.rs
/// mongo_schema_cli::main!(my_app);
/// ```
///
/// `my_app` is the library crate (or crates, comma-separated) whose `#[mongo(collection = ...)]`
/// types the binary manages. Naming them matters: `inventory` registrations live in the library's
/// object code, and rustc links a dependency into a binary only when the binary mentions it
/// (`extern crate NAME as _` links a crate without naming anything in it, as the Rust reference
/// describes for underscore imports). Without it the binary sees no collection at all. Types
/// declared in the binary itself need no name: `mongo_schema_cli::main!()`.
///
/// Versioned types the `migrate` command may rewrite follow the crates:
/// `mongo_schema_cli::main!(my_app; migrate(my_app::User))`. Here with the types in the binary:
///
/// ```no_run
/// use mongo_schema::MongoSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, MongoSchema)]
/// #[mongo(collection = "users", version(field = "v", current = 2, previous(UserV1 = 1)))]
/// struct User {
///     #[serde(rename = "_id")]
///     id: String,
///     name: String,
///     v: i32,
/// }
///
/// #[derive(Serialize, Deserialize, MongoSchema)]
/// struct UserV1 {
///     #[serde(rename = "_id")]
///     id: String,
///     name: String,
/// }
///
/// impl From<UserV1> for User {
///     fn from(old: UserV1) -> User {
///         User { id: old.id, name: old.name, v: 2 }
///     }
/// }
///
/// mongo_schema_cli::main!(; migrate(User));
/// ```
#[macro_export]
macro_rules! main {
    ($($krate:ident),* $(,)? ; migrate($($ty:path),+ $(,)?)) => {
        $(extern crate $krate as _;)*

        fn main() -> ::std::process::ExitCode {
            $crate::main_registered_with(&[$($crate::Migration::of::<$ty>()),+])
        }
    };
    ($($krate:ident),* $(,)?) => {
        $(extern crate $krate as _;)*

        fn main() -> ::std::process::ExitCode {
            $crate::main_registered()
        }
    };
}

/// Parses `args` (the first is the program name), runs the command against `console`, and reports
/// any error on its stderr.
///
/// `linked` are the declarations linked into the binary, if any.
pub fn run<I, T>(args: I, linked: Option<&[CollectionSpec]>, console: &mut Console) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_with_migrations(args, linked, &[], console)
}

/// As [`run`], with the versioned types `migrate` may rewrite.
pub fn run_with_migrations<I, T>(
    args: I,
    linked: Option<&[CollectionSpec]>,
    migrations: &[Migration],
    console: &mut Console,
) -> Outcome
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let github = asks_for_github(&args);
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) => {
            let text = error.render().to_string();
            if error.use_stderr() {
                console.err(&text);
                if github {
                    let first = text.lines().next().unwrap_or("invalid arguments");
                    annotate_failure(&args, first.trim_start_matches("error: "), console);
                }
                return Outcome::Failed;
            }
            // --help and --version
            console.out(&text);
            return Outcome::Clean;
        }
    };
    match cmd::run(&cli.command, linked, migrations, console) {
        Ok(outcome) => outcome,
        Err(error) => {
            console.err(&format!("error: {error:#}\n"));
            if github {
                annotate_failure(&args, &format!("{error:#}"), console);
            }
            Outcome::Failed
        }
    }
}

/// Whether the command line asks for `--format github`, read from the raw arguments so that
/// a command line clap refuses is annotated too.
fn asks_for_github(args: &[OsString]) -> bool {
    args.iter()
        .zip(args.iter().skip(1))
        .any(|(flag, value)| flag == "--format" && value == "github")
        || args.iter().any(|a| a == "--format=github")
}

/// An exit 2 as an `::error` annotation, so a run that could not check is visible on the pull
/// request like a finding (a connection refused, a bad manifest).
fn annotate_failure(args: &[OsString], message: &str, console: &mut Console) {
    let command = args
        .iter()
        .skip(1)
        .find(|a| !a.to_string_lossy().starts_with('-'))
        .map_or_else(String::new, |a| format!(" {}", a.to_string_lossy()));
    console.out(&render::github::annotation(
        mongo_schema::Severity::Error,
        None,
        &format!("mongo-schema{command} could not run"),
        message,
    ));
}
