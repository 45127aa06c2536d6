//! `generate`: the declared collections as the manifest (JSON) or as a runnable mongosh script.

use bson::{Bson, Document};
use mongo_schema::collection::CollectionSpec;

use crate::args::{GenerateArgs, ManifestFormat};
use crate::console::Console;
use crate::extjson::{self, Mode};
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
        ManifestFormat::Json => manifest_json(&specs),
        ManifestFormat::Mongosh => render::mongosh::creation_script(&specs),
    };
    cmd::write_output(args.out.as_deref(), &text, console)?;
    Ok(Outcome::Clean)
}

/// The manifest: `{"collections": [...]}` in relaxed Extended JSON, collections sorted by name.
pub fn manifest_json(specs: &[CollectionSpec]) -> String {
    let collections: Vec<Bson> = specs
        .iter()
        .map(|s| Bson::Document(s.to_manifest_document()))
        .collect();
    let mut top = Document::new();
    top.insert("collections", collections);
    let mut text = extjson::to_string_pretty(&Bson::Document(top), Mode::Relaxed);
    text.push('\n');
    text
}
