//! `snapshot`: the live catalog, verbatim, as canonical Extended JSON (what `--catalog` reads).

use anyhow::Context;
use mongo_schema::plural::count;

use crate::args::SnapshotArgs;
use crate::catalog;
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::{Outcome, cmd};

/// Reads every collection and index of the database and writes them to `--out` or stdout.
/// Sends only listCollections and listIndexes.
///
/// # Errors
/// Connection, authentication, timeout, or the output file cannot be written.
pub fn run(args: &SnapshotArgs, console: &mut Console) -> anyhow::Result<Outcome> {
    let catalog = block_on(args.connect.timeout, async {
        let deployment = deployment::connect(&args.connect).await?;
        catalog::read_live(&deployment.db, None, args.concurrency)
            .await
            .with_context(|| format!("cannot read the catalog of {}", deployment.shown_uri))
    })?;
    let text = catalog.to_extjson();
    let indexes: usize = catalog.indexes.values().map(Vec::len).sum();
    cmd::write_output(args.out.as_deref(), &text, console)?;
    if let Some(path) = &args.out {
        console.err(&format!(
            "wrote {} and {} to {}\n",
            count(catalog.collections.len(), "collection"),
            count(indexes, "index"),
            path.display()
        ));
    }
    Ok(Outcome::Clean)
}
