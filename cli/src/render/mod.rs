//! Views of one report or plan: text for people (`human`), JSON for programs (`json`), workflow
//! annotations for CI (`github`), runnable scripts for operators (`mongosh`). Renderers never read
//! a raw server reply.

pub mod github;
pub mod human;
pub mod json;
pub mod mongosh;

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; never fails a run.
    Note,
    /// Should be fixed; does not fail a run.
    Warning,
    /// Fails the run (exit 1).
    Error,
}

impl Severity {
    /// The name GitHub gives the level of an annotation: `notice`, `warning`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "notice",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding of `lint` (or any report made of independent findings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The collection it is about.
    pub collection: String,
    /// How much it matters.
    pub severity: Severity,
    /// A stable identifier of the rule (`unbounded-array`).
    pub kind: String,
    /// The dotted field path (`""` for the document).
    pub path: String,
    /// One sentence for people.
    pub message: String,
}
