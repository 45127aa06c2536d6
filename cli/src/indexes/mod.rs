//! The index half of `plan` and `apply` that needs the live deployment beyond its catalog:
//! usage evidence before a drop ([`usage`], `$indexStats`), the size of each build and its
//! commit quorum ([`cost`], `$collStats`), and a build's progress while it runs ([`progress`],
//! `currentOp`).

pub mod cost;
pub mod progress;
pub mod usage;

use std::time::Duration;

use anyhow::Context;
use bson::{Bson, Document};
use mongodb::Database;

use crate::deployment;

/// How `plan` and `apply` treat index drops and builds, beyond [`mongo_schema::diff::PlanOptions`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct IndexPolicy {
    /// An index dropped by `--prune` must have served no operation, on every host
    /// `$indexStats` reports, for at least this long (`--unused-for`).
    pub unused_for: Duration,
    /// Drop what the usage evidence would keep (`--force`).
    pub force: bool,
    /// `commitQuorum` of every `createIndexes` (`--commit-quorum`), checked by
    /// [`crate::args::parse_commit_quorum`].
    pub commit_quorum: Option<Bson>,
}

/// The default `--unused-for`: two weeks, so that weekly jobs show up in the counters.
pub const DEFAULT_UNUSED_FOR: Duration = Duration::from_secs(14 * 24 * 3600);

impl Default for IndexPolicy {
    fn default() -> IndexPolicy {
        IndexPolicy {
            unused_for: DEFAULT_UNUSED_FOR,
            force: false,
            commit_quorum: None,
        }
    }
}

impl IndexPolicy {
    /// The policy of a command line's `--unused-for`, `--force` and `--commit-quorum`.
    #[must_use]
    pub fn new(unused_for: Duration, force: bool, commit_quorum: Option<Bson>) -> IndexPolicy {
        IndexPolicy {
            unused_for,
            force,
            commit_quorum,
        }
    }
}

/// Runs a one-stage aggregation on a collection and returns every document of its cursor.
async fn aggregate(
    db: &Database,
    collection: &str,
    stage: Document,
) -> anyhow::Result<Vec<Document>> {
    let name = stage.keys().next().cloned().unwrap_or_default();
    let failed = || format!("{name} on {collection} failed");
    let mut cursor = db
        .run_cursor_command(bson::doc! {"aggregate": collection, "pipeline": [stage], "cursor": {}})
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .with_context(failed)?;
    let mut out = Vec::new();
    while cursor
        .advance()
        .await
        .map_err(|e| anyhow::anyhow!("{}", deployment::explain(&e)))
        .with_context(failed)?
    {
        out.push(
            Document::try_from(cursor.current()).with_context(|| {
                format!("{name} on {collection} returned an unreadable document")
            })?,
        );
    }
    Ok(out)
}

/// A whole non-negative number from a reply field (Int32, Int64 or Double).
fn whole(value: Option<&Bson>) -> Option<u64> {
    match value? {
        Bson::Int32(n) => u64::try_from(*n).ok(),
        Bson::Int64(n) => u64::try_from(*n).ok(),
        // Some servers send counts and sizes as doubles.
        Bson::Double(n) if n.is_finite() && *n >= 0.0 => Some(*n as u64),
        _ => None,
    }
}

/// A byte count for people: `812 B`, `1.2 KiB`, `3.4 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A duration for people, in its largest whole unit: `14d`, `36h`, `90m`, `45s`.
pub fn span(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs >= 86_400 && secs % 86_400 == 0 {
        format!("{}d", secs / 86_400)
    } else if secs >= 3600 && secs % 3600 == 0 {
        format!("{}h", secs / 3600)
    } else if secs >= 60 && secs % 60 == 0 {
        format!("{}m", secs / 60)
    } else {
        format!("{secs}s")
    }
}

impl crate::args::IndexArgs {
    /// The policy these flags ask for.
    pub fn policy(&self) -> IndexPolicy {
        IndexPolicy::new(self.unused_for, self.force, self.commit_quorum.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(5 * 1024 * 1024 * 1024), "5.0 GiB");
        assert_eq!(bytes(u64::MAX), "16384.0 PiB");
    }

    #[test]
    fn spans_use_the_largest_whole_unit() {
        assert_eq!(span(DEFAULT_UNUSED_FOR), "14d");
        assert_eq!(span(Duration::from_secs(36 * 3600)), "36h");
        assert_eq!(span(Duration::from_secs(90 * 60)), "90m");
        assert_eq!(span(Duration::from_secs(61)), "61s");
    }

    #[test]
    fn whole_numbers_come_in_three_types() {
        assert_eq!(whole(Some(&Bson::Int32(3))), Some(3));
        assert_eq!(whole(Some(&Bson::Int64(4))), Some(4));
        assert_eq!(whole(Some(&Bson::Double(5.0))), Some(5));
        assert_eq!(whole(Some(&Bson::Int32(-1))), None);
        assert_eq!(whole(Some(&Bson::Double(f64::NAN))), None);
        assert_eq!(whole(Some(&Bson::String("7".into()))), None);
        assert_eq!(whole(None), None);
    }
}
