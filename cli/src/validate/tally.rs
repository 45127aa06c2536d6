//! The report of `validate`: counts across chunks and inputs, and the failing rules with
//! example ids, and its summary, JSON and GitHub renderings.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use mongo_schema::plural;

use super::check::{Done, Example};

/// A failing rule's count, example ids and first failure's summary.
pub(super) type RuleTally = (u64, Vec<String>, String);

/// Counts, and the failing rules with example ids.
pub struct Tally {
    pub(super) read: u64,
    pub(super) invalid: u64,
    /// Documents not fully checked: neither valid nor invalid.
    pub(super) open: u64,
    /// Per reason, how many documents it left not fully checked.
    pub(super) open_reasons: BTreeMap<String, u64>,
    pub(super) examples: usize,
    /// Per rule: count, example ids, the first failure's summary (in input order).
    pub(super) rules: HashMap<String, RuleTally>,
    /// The output was closed by its reader: nothing more is checked or written.
    pub(super) closed: bool,
}

impl Tally {
    pub(super) fn new(examples: usize) -> Tally {
        Tally {
            read: 0,
            invalid: 0,
            open: 0,
            open_reasons: BTreeMap::new(),
            examples,
            rules: HashMap::new(),
            closed: false,
        }
    }

    /// Documents found invalid (rejected, with the server's explanation).
    pub fn invalid(&self) -> u64 {
        self.invalid
    }

    /// Documents not fully checked: neither valid nor invalid.
    pub fn not_fully_checked(&self) -> u64 {
        self.open
    }

    /// Documents checked and found valid.
    pub(super) fn valid(&self) -> u64 {
        self.read - self.invalid - self.open
    }

    /// `N documents not fully checked (reason)`, one per reason.
    pub fn open_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.open_reasons.iter().map(|(reason, count)| {
            format!(
                "{} not fully checked ({reason})",
                plural::count(count, "document")
            )
        })
    }

    /// The failing rules, most frequent first.
    pub(super) fn ranked(&self) -> Vec<(&String, &RuleTally)> {
        let mut rules: Vec<_> = self.rules.iter().collect();
        rules.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
        rules
    }

    /// `{"documents", "valid", "invalid", "notFullyChecked", "notFullyCheckedReasons":
    /// [{"reason", "count"}], "rules": [{"rule", "count", "first", "examples"}]}`.
    pub fn write_json(&self, out: &mut impl Write) -> std::io::Result<()> {
        let rules: Vec<serde_json::Value> = self
            .ranked()
            .into_iter()
            .map(|(rule, (count, ids, first))| {
                // Examples are `_id`s as relaxed Extended JSON, or `#N` positions.
                let examples: Vec<serde_json::Value> = ids
                    .iter()
                    .map(|id| {
                        serde_json::from_str(id)
                            .unwrap_or_else(|_| serde_json::Value::String(id.clone()))
                    })
                    .collect();
                serde_json::json!({
                    "rule": rule, "count": count, "first": first, "examples": examples,
                })
            })
            .collect();
        let reasons: Vec<serde_json::Value> = self
            .open_reasons
            .iter()
            .map(|(reason, count)| serde_json::json!({ "reason": reason, "count": count }))
            .collect();
        let summary = serde_json::json!({
            "documents": self.read,
            "valid": self.valid(),
            "invalid": self.invalid,
            "notFullyChecked": self.open,
            "notFullyCheckedReasons": reasons,
            "rules": rules,
        });
        serde_json::to_writer_pretty(&mut *out, &summary)?;
        writeln!(out)
    }

    /// One `::error` per failing rule and per reason documents were not fully checked, and a
    /// `::notice` with the counts.
    pub fn write_github(&self, out: &mut impl Write) -> std::io::Result<()> {
        use crate::render::github::annotation;
        use mongo_schema::Severity;
        for (rule, (count, ids, first)) in self.ranked() {
            let examples = if ids.is_empty() {
                String::new()
            } else {
                format!(" (e.g. {})", ids.join(", "))
            };
            let message = format!(
                "{rule} rejects {}; first: {first}{examples}",
                plural::count(count, "document")
            );
            out.write_all(
                annotation(
                    Severity::Error,
                    None,
                    &format!("validate: {rule}"),
                    &message,
                )
                .as_bytes(),
            )?;
        }
        for line in self.open_lines() {
            out.write_all(
                annotation(Severity::Error, None, "validate: not fully checked", &line).as_bytes(),
            )?;
        }
        let mut counts = format!(
            "{}: {} valid, {} invalid",
            plural::count(self.read, "document"),
            self.valid(),
            self.invalid
        );
        if self.open > 0 {
            counts.push_str(&format!(", {} not fully checked", self.open));
        }
        out.write_all(annotation(Severity::Note, None, "validate", &counts).as_bytes())
    }

    /// Adds a chunk's results, in input order, and writes its JSON lines with their indexes.
    pub(super) fn merge(&mut self, done: &mut Done, out: &mut impl Write) -> std::io::Result<()> {
        let first = self.read;
        self.read += done.docs;
        self.invalid += done.invalid;
        for (reason, count) in done.open.drain() {
            self.open += count;
            *self.open_reasons.entry(reason).or_default() += count;
        }
        for (key, seen) in done.rules.drain() {
            // Chunks merge in input order: the first chunk to see a rule has its first failure.
            let (total, shown, _) = self
                .rules
                .entry(key)
                .or_insert_with(|| (0, Vec::new(), seen.first));
            *total += seen.count;
            let room = self.examples.saturating_sub(shown.len());
            shown.extend(seen.examples.into_iter().take(room).map(|e| match e {
                Example::Id(id) => id,
                Example::Index(k) => format!("#{}", first + k),
            }));
        }
        let mut start = 0;
        for (k, &end) in done.ends.iter().enumerate() {
            write!(out, "{{\"index\":{}", first + k as u64)?;
            out.write_all(&done.out[start..end])?;
            start = end;
        }
        Ok(())
    }

    pub fn write_summary(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            out,
            "documents: {}  valid: {}  invalid: {}",
            self.read,
            self.valid(),
            self.invalid
        )?;
        for line in self.open_lines() {
            writeln!(out, "{line}")?;
        }
        if self.rules.is_empty() {
            return Ok(());
        }
        writeln!(out, "\nfailing rules, most frequent first:")?;
        for (rule, (count, ids, first)) in self.ranked() {
            writeln!(out, "  {count:>8}  {rule}")?;
            writeln!(out, "            first: {first}")?;
            if !ids.is_empty() {
                writeln!(out, "            e.g. {}", ids.join(", "))?;
            }
        }
        Ok(())
    }
}
