//! One shape for every report made of independent findings: the model lints ([`crate::lint`]),
//! the declared queries against their indexes ([`crate::access`]) and the CLI's `lint` command,
//! which prints both. A rule's typed detail stays with the rule (an access finding keeps the
//! index it suggests); what every renderer reads is a [`Finding`].

use std::fmt;

/// How much a finding matters. Ordered: `Note < Warning < Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; never fails a run (an index no declared query uses, a query not covered).
    Note,
    /// Costs at run time or is likely a design problem (an in-memory sort, an unbounded array).
    Warning,
    /// Fails the run: a collection scan, a write the server refuses, a document over 16 MiB.
    Error,
}

impl Severity {
    /// `note`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// The level GitHub gives an annotation of this severity: `notice`, `warning` or `error`
    /// (the workflow commands `::notice`, `::warning`, `::error`).
    pub fn annotation_level(self) -> &'static str {
        match self {
            Severity::Note => "notice",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding about one collection.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The collection it is about.
    pub collection: String,
    /// How much it matters.
    pub severity: Severity,
    /// The rule's stable kebab-case name (`unbounded-array`, `no-serving-index`).
    pub rule: &'static str,
    /// What it is about inside the collection: a stored dotted path, an index or a declared
    /// query's name; `""` for the whole collection.
    pub path: String,
    /// What is wrong and what to do, for people.
    pub message: String,
}

impl Finding {
    /// A finding of `rule` about `path` in `collection`.
    pub fn new(
        collection: impl Into<String>,
        severity: Severity,
        rule: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            collection: collection.into(),
            severity,
            rule,
            path: path.into(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_order_and_name_themselves() {
        assert!(Severity::Note < Severity::Warning && Severity::Warning < Severity::Error);
        let names: Vec<_> = [Severity::Note, Severity::Warning, Severity::Error]
            .iter()
            .map(|s| (s.to_string(), s.annotation_level()))
            .collect();
        assert_eq!(
            names,
            [
                ("note".to_owned(), "notice"),
                ("warning".to_owned(), "warning"),
                ("error".to_owned(), "error")
            ]
        );
    }
}
