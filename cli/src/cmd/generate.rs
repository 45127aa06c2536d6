//! `generate`: the declared collections as the manifest (JSON) or as a runnable mongosh script.

use std::path::Path;

use anyhow::Context;
use mongo_schema::manifest::Manifest;
use mongo_schema::spec::CollectionSpec;

use crate::args::{GenerateArgs, ManifestFormat};
use crate::console::Console;
use crate::{Outcome, cmd, render};

/// Prints the manifest or the script to `--out` or stdout, or with `--check FILE` compares it
/// with a committed file (exit 1 and a diff when they differ).
///
/// # Errors
/// No declarations, a bad manifest, the output file cannot be written or the checked file
/// cannot be read.
pub fn run(
    args: &GenerateArgs,
    linked: Option<&[CollectionSpec]>,
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    let specs = cmd::declared(&args.declared, linked)?;
    let text = match args.output.format.unwrap_or(ManifestFormat::Json) {
        ManifestFormat::Json => Manifest::new(specs.clone()).to_json(),
        ManifestFormat::Mongosh => render::mongosh::creation_script(&specs),
    };
    if let Some(committed) = &args.check {
        return check(committed, &text, console);
    }
    cmd::write_output(args.out.as_deref(), &text, console)?;
    Ok(Outcome::Clean)
}

/// `--check FILE`: whether the committed file is what the declarations generate (as sqlx's
/// `prepare --check`), with a unified diff from the file to the generated text when not.
fn check(committed: &Path, generated: &str, console: &mut Console) -> anyhow::Result<Outcome> {
    let name = committed.display().to_string();
    let text = std::fs::read_to_string(committed).with_context(|| format!("cannot read {name}"))?;
    if text == generated {
        console.err(&format!("{name} is up to date\n"));
        return Ok(Outcome::Clean);
    }
    let diff = similar::TextDiff::from_lines(text.as_str(), generated);
    console.out(&diff.unified_diff().header(&name, "generated").to_string());
    console.err(&format!(
        "{name} is stale: regenerate it with `mongo-schema generate --out {name}` (and the same \
         --format and --manifest)\n"
    ));
    Ok(Outcome::Findings)
}
