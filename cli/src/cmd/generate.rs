//! `generate`: the declared collections as the manifest (JSON) or as a runnable mongosh script.

use mongo_schema::collection::CollectionSpec;
use mongo_schema::manifest::Manifest;

use crate::args::{GenerateArgs, ManifestFormat};
use crate::console::Console;
use crate::{Outcome, cmd, render};

/// Prints the manifest or the script to `--out` or stdout.
///
/// # Errors
/// No declarations, a bad manifest, or the output file cannot be written.
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
    cmd::write_output(args.out.as_deref(), &text, console)?;
    Ok(Outcome::Clean)
}
