//! One module per subcommand; this one dispatches and holds what several share: loading the
//! declared collections, loading the live catalog, writing output.

pub mod apply;
pub mod audit;
pub mod check;
pub mod explain;
pub mod generate;
pub mod infer;
pub mod lint;
pub mod migrate;
pub mod plan;
pub mod plan_indexes;
pub mod snapshot;
pub mod validate;

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use mongo_schema::manifest::Manifest;
use mongo_schema::spec::CollectionSpec;

use crate::Outcome;
use crate::args::{Command, DeclaredArgs};
use crate::console::Console;

/// Runs one parsed command.
///
/// # Errors
/// Anything that means the command could not do its job (exit 2).
pub fn run(
    command: &Command,
    linked: Option<&[CollectionSpec]>,
    migrations: &[migrate::Migration],
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    // Mask the connection string's secrets in everything written from here on.
    if let Some(uri) = connection_string(command) {
        console.protect_uri(uri);
    }
    match command {
        Command::Generate(args) => generate::run(args, linked, console),
        Command::Snapshot(args) => snapshot::run(args, console),
        Command::Lint(args) => lint::run(args, linked, console),
        Command::Explain(args) => explain::run(args, linked, console),
        Command::Audit(args) => audit::run(args, linked, console),
        Command::Check(args) => check::run(args, linked, console),
        Command::Plan(args) => plan::run(args, linked, console),
        Command::Apply(args) => apply::run(args, linked, console),
        Command::Infer(args) => infer::run(args, console),
        Command::Migrate(args) => migrate::run(args, migrations, console),
        // `validate` writes to the process's own stdout and stderr and gives its exit code.
        Command::Validate(args) => Ok(match validate::run(args)? {
            code if code == ExitCode::SUCCESS => Outcome::Clean,
            code if code == ExitCode::from(1) => Outcome::Findings,
            _ => Outcome::Failed,
        }),
    }
}

fn connection_string(command: &Command) -> Option<&str> {
    match command {
        Command::Snapshot(args) => args.connect.uri.as_deref(),
        Command::Audit(args) => args.connect.uri.as_deref(),
        Command::Check(args) => args.live.connect.uri.as_deref(),
        Command::Plan(args) => args.live.connect.uri.as_deref(),
        Command::Apply(args) => args.connect.uri.as_deref(),
        Command::Explain(args) => args.connect.uri.as_deref(),
        Command::Generate(_) | Command::Lint(_) | Command::Validate(_) => None,
        Command::Infer(_) => None,
        Command::Migrate(args) => args.connect.uri.as_deref(),
    }
}

/// The declared collections: from `--manifest` when given, else those linked into the binary,
/// sorted by name.
///
/// # Errors
/// Neither is available, or the manifest cannot be read (with the path of the offending value).
pub fn declared(
    args: &DeclaredArgs,
    linked: Option<&[CollectionSpec]>,
) -> anyhow::Result<Vec<CollectionSpec>> {
    let mut specs = match (&args.manifest, linked) {
        (Some(path), _) => read_manifest(path)?,
        // An application binary that links no declaration is almost always one whose library
        // crate was never linked (nothing in the binary names it, so the linker drops its
        // registrations): succeeding on nothing would hide that.
        (None, Some([])) => bail!(
            "no collections are registered in this binary: name the crates that hold your \
             #[mongo(collection = ...)] types in `mongo_schema_cli::main!(your_crate)`, so they \
             are linked, or pass --manifest FILE"
        ),
        (None, Some(linked)) => linked.to_vec(),
        (None, None) => bail!(
            "no declared collections: pass --manifest FILE (the JSON `mongo-schema generate` \
             prints), or link your collections into your own binary with mongo_schema_cli::main!"
        ),
    };
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(specs)
}

/// Reads a manifest file (`{"collections": [{name, options, indexes, shardKey}, ...]}`) and checks
/// each declaration as the server would.
///
/// # Errors
/// The file cannot be read, is not Extended JSON (line and column), an entry is malformed (its
/// path), or a declaration would be refused by the server.
pub fn read_manifest(path: &Path) -> anyhow::Result<Vec<CollectionSpec>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read manifest file {}", path.display()))?;
    let manifest = Manifest::from_json(&text)
        .with_context(|| format!("bad manifest file {}", path.display()))?;
    manifest
        .check()
        .with_context(|| format!("bad manifest file {}", path.display()))?;
    Ok(manifest.collections)
}

/// Writes `text` to `path` (creating its directory, as `infer --out` does: the docs' first
/// `snapshot --out schema/production.json` comes before any `schema/`), or to stdout when there
/// is none.
///
/// # Errors
/// The directory cannot be created or the file cannot be written.
pub fn write_output(path: Option<&Path>, text: &str, console: &mut Console) -> anyhow::Result<()> {
    match path {
        Some(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
        }
        None => {
            console.out(text);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_creates_the_files_directory() {
        let dir = std::env::temp_dir().join(format!("mongo-schema-out-{}", std::process::id()));
        let file = dir.join("schema/production.json");
        let mut console = Console::captured("");
        write_output(Some(&file), "{}", &mut console).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
