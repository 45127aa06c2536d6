//! `Vec<Change>` -> `Plan`: the ordered server commands that make the live collections match
//! the declared ones.
//!
//! Order: create missing collections (with their indexes), `collMod` the collection settings,
//! build missing indexes, `collMod` index options, and only then, with `prune`, drop extra
//! indexes and replace indexes one at a time (each drop followed by its build), then build what
//! needed a name an extra index held. Each step lists the earlier steps it needs
//! ([`Step::depends_on`]), so that a failed step holds back only what depends on it. A new index
//! under a new name is built before the old one is dropped (a missing plus an extra index); an
//! index the server cannot hold beside the old one (same name, same identity under another
//! name, a second text index) replaces it by dropping first, only with `prune`, marked risky.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use bson::{Bson, Document};

use super::{Aspect, Change, ChangeKind, ValidatorChange, classify_validator};
use crate::evolve::Classification;

/// How to plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanOptions {
    /// Drop what nothing declares (indexes only; collections are never dropped) and the old
    /// index of a rebuild. Without it the plan never drops anything.
    pub prune: bool,
    /// With `prune`, hide extra indexes (`collMod` `hidden: true`) instead of dropping them, so
    /// that their absence can be observed before a later drop.
    pub hide_before_drop: bool,
    /// Estimated document counts by collection, shown beside index builds.
    pub estimated_documents: BTreeMap<String, u64>,
    /// An index build on a collection with at least this many documents (or an unknown count)
    /// is marked expensive.
    pub expensive_above: u64,
}

impl Default for PlanOptions {
    fn default() -> PlanOptions {
        PlanOptions {
            prune: false,
            hide_before_drop: false,
            estimated_documents: BTreeMap::new(),
            expensive_above: 100_000,
        }
    }
}

/// One server command of a plan.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Step {
    /// The collection it acts on.
    pub collection: String,
    /// The command, to run against the collection's database.
    pub command: Document,
    /// What it does, in one line.
    pub summary: String,
    /// Whether it may take long (an index build on a large or unknown collection).
    pub expensive: bool,
    /// The estimated document count of the collection, when given.
    pub estimated_documents: Option<u64>,
    /// Why it may hurt, and what to do first, when it may.
    pub risk: Option<String>,
    /// Positions in [`Plan::steps`] of the earlier steps this one needs: when one of them fails,
    /// this one must not run. A step needs the `create` of its collection and every earlier
    /// step on the same collection that names the same index or the same key pattern (a
    /// rebuild's drop and build, `prepareUnique` and `unique`, a replacement's build and the
    /// old index's drop). Steps on other collections, on the collection's options or on other
    /// indexes are independent.
    pub depends_on: Vec<usize>,
    /// For a step that sets or removes a validator: relaxing, tightening or not proven.
    pub validator: Option<ValidatorChange>,
    /// What was measured on the deployment to decide the step, as a document for the JSON
    /// plan (an index drop's `$indexStats` usage per host, for example).
    pub evidence: Option<Document>,
}

/// A change the plan does not act on, and why.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Skipped {
    /// The collection.
    pub collection: String,
    /// What the change is about.
    pub aspect: Aspect,
    /// The change's kind.
    pub kind: ChangeKind,
    /// Why nothing is planned, and what a person could do.
    pub reason: String,
    /// What was measured on the deployment to decide, as a document for the JSON plan.
    pub evidence: Option<Document>,
}

/// A change the declaration could make next, found on the deployment (not a step: the
/// declaration, not the plan, decides it). Today: a versioned collection with no stored
/// document left at an older version, whose validator can drop the older branches.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Proposal {
    /// The collection.
    pub collection: String,
    /// What to change in the declaration, and what follows.
    pub summary: String,
    /// The validator the proposed declaration derives, classified against the declared one,
    /// with the stored documents it rejects.
    pub validator: Option<ValidatorChange>,
    /// The `collMod` the plan will hold once the declaration changes.
    pub command: Option<Document>,
}

impl Proposal {
    /// A proposal with only its summary.
    pub fn new(collection: impl Into<String>, summary: impl Into<String>) -> Proposal {
        Proposal {
            collection: collection.into(),
            summary: summary.into(),
            validator: None,
            command: None,
        }
    }
}

impl Step {
    /// A step running `command` on `collection`: not expensive, no estimate, no risk, no
    /// dependency, no validator change (set the public fields for the rest).
    pub fn new(
        collection: impl Into<String>,
        command: Document,
        summary: impl Into<String>,
    ) -> Step {
        Step {
            collection: collection.into(),
            command,
            summary: summary.into(),
            expensive: false,
            estimated_documents: None,
            risk: None,
            depends_on: Vec::new(),
            validator: None,
            evidence: None,
        }
    }
}

impl Skipped {
    /// A change left alone, and why.
    pub fn new(
        collection: impl Into<String>,
        aspect: Aspect,
        kind: ChangeKind,
        reason: impl Into<String>,
    ) -> Skipped {
        Skipped {
            collection: collection.into(),
            aspect,
            kind,
            reason: reason.into(),
            evidence: None,
        }
    }
}

/// Ordered server commands, plus the changes left alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// The commands, in the order to run them.
    pub steps: Vec<Step>,
    /// Drift the plan does not fix.
    pub skipped: Vec<Skipped>,
    /// Changes the declaration could make next, found on the deployment.
    pub proposals: Vec<Proposal>,
}

impl Plan {
    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The plan as a document, for JSON output: `{steps: [{collection, command, summary,
    /// expensive, estimatedDocuments?, risk?, validator?, evidence?}], skipped: [{collection,
    /// aspect, kind, reason, evidence?}], proposals: [{collection, summary, validator?,
    /// command?}]}` (`validator` as [`ValidatorChange::to_document`]).
    pub fn to_document(&self) -> Document {
        let steps: Vec<Bson> = self
            .steps
            .iter()
            .map(|s| {
                let mut d = bson::doc! {
                    "collection": s.collection.clone(),
                    "command": s.command.clone(),
                    "summary": s.summary.clone(),
                    "expensive": s.expensive,
                };
                if let Some(n) = s.estimated_documents {
                    d.insert("estimatedDocuments", i64::try_from(n).unwrap_or(i64::MAX));
                }
                if let Some(r) = &s.risk {
                    d.insert("risk", r.clone());
                }
                if let Some(v) = &s.validator {
                    d.insert("validator", v.to_document());
                }
                if let Some(e) = &s.evidence {
                    d.insert("evidence", e.clone());
                }
                Bson::Document(d)
            })
            .collect();
        let skipped: Vec<Bson> = self
            .skipped
            .iter()
            .map(|s| {
                let mut d = bson::doc! {
                    "collection": s.collection.clone(),
                    "aspect": s.aspect.to_string(),
                    "kind": s.kind.as_str(),
                    "reason": s.reason.clone(),
                };
                if let Some(e) = &s.evidence {
                    d.insert("evidence", e.clone());
                }
                Bson::Document(d)
            })
            .collect();
        let proposals: Vec<Bson> = self
            .proposals
            .iter()
            .map(|p| {
                let mut d = bson::doc! {
                    "collection": p.collection.clone(),
                    "summary": p.summary.clone(),
                };
                if let Some(v) = &p.validator {
                    d.insert("validator", v.to_document());
                }
                if let Some(c) = &p.command {
                    d.insert("command", c.clone());
                }
                Bson::Document(d)
            })
            .collect();
        bson::doc! { "steps": steps, "skipped": skipped, "proposals": proposals }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps.iter().enumerate() {
            write!(f, "{}. {}: {}", i + 1, step.collection, step.summary)?;
            if step.expensive {
                match step.estimated_documents {
                    Some(n) => write!(f, " [expensive: ~{}]", crate::plural::count(n, "document"))?,
                    None => write!(f, " [expensive: unknown size]")?,
                }
            }
            if let Some(v) = &step.validator {
                write!(f, " [{}]", v.classification)?;
            }
            if let Some(risk) = &step.risk {
                write!(f, " [risky: {risk}]")?;
            }
            writeln!(f)?;
        }
        for s in &self.skipped {
            writeln!(f, "skipped: {}: {}: {}", s.collection, s.aspect, s.reason)?;
        }
        for p in &self.proposals {
            write!(f, "next: {}: {}", p.collection, p.summary)?;
            if let Some(v) = &p.validator {
                write!(f, " [{}]", v.classification)?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Phases, in the order their steps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    CreateCollections,
    CollMod,
    CreateIndexes,
    IndexCollMod,
    Drop,
    Replace,
    Reuse,
}

struct Builder<'a> {
    options: &'a PlanOptions,
    steps: Vec<(Phase, usize, Step)>,
    skipped: Vec<Skipped>,
    /// Index names, by collection, that the plan drops: a build under one waits for the drops.
    dropped: BTreeSet<(String, String)>,
    /// Index names, by collection, that stay on the server: a build under one cannot run.
    kept: BTreeSet<(String, String)>,
    /// Collections whose live text index the plan drops: a new text index waits for it.
    text_dropped: BTreeSet<String>,
    /// Collections whose live text index stays: a second one cannot be built.
    text_kept: BTreeSet<String>,
    /// Rebuilds (the old index's drop, the new one's build), emitted in pairs at the end.
    rebuilds: Vec<Rebuild>,
    /// Key patterns of the live indexes, by collection and name: a drop names only the index.
    live_keys: BTreeMap<(String, String), Document>,
}

/// An index the server cannot hold beside its replacement: dropped, then built again.
struct Rebuild {
    collection: String,
    old_name: String,
    new_name: String,
    drop: Step,
    build: Step,
}

impl Builder<'_> {
    fn push(&mut self, phase: Phase, step: Step) {
        let seq = self.steps.len();
        self.steps.push((phase, seq, step));
    }

    fn skip(&mut self, change: &Change, reason: impl Into<String>) {
        self.skipped.push(Skipped {
            collection: change.collection.clone(),
            aspect: change.aspect.clone(),
            kind: change.kind,
            reason: reason.into(),
            evidence: None,
        });
    }

    fn step(&self, collection: &str, command: Document, summary: String) -> Step {
        Step {
            collection: collection.to_owned(),
            command,
            summary,
            expensive: false,
            estimated_documents: None,
            risk: None,
            depends_on: Vec::new(),
            validator: None,
            evidence: None,
        }
    }

    /// A build on an existing collection: expensive unless known to be small.
    fn build(&self, collection: &str, index: &Document) -> Step {
        let name = index.get_str("name").unwrap_or("?").to_owned();
        let count = self.options.estimated_documents.get(collection).copied();
        let mut step = self.step(
            collection,
            bson::doc! { "createIndexes": collection, "indexes": [index.clone()] },
            format!("build index {name}"),
        );
        step.estimated_documents = count;
        step.expensive = count.is_none_or(|n| n >= self.options.expensive_above);
        step
    }

    fn drop_index(&self, collection: &str, name: &str) -> Step {
        self.step(
            collection,
            bson::doc! { "dropIndexes": collection, "index": name },
            format!("drop index {name}"),
        )
    }
}

/// Orders the commands that fix `changes` ([`PlanOptions`] says how far to go).
///
/// ```
/// use mongo_schema::spec::CollectionSpec;
/// use mongo_schema::diff::{PlanOptions, diff, plan};
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// let declared = [CollectionSpec::new("orders").index(IndexSpec::new([("user_id", Ascending)]))];
/// let plan = plan(&diff(&declared, &[]), &PlanOptions::default());
/// let names: Vec<&str> = plan.steps.iter().map(|s| s.command.keys().next().unwrap().as_str()).collect();
/// assert_eq!(names, ["create", "createIndexes"]);
/// ```
pub fn plan(changes: &[Change], options: &PlanOptions) -> Plan {
    let mut b = Builder {
        options,
        steps: Vec::new(),
        skipped: Vec::new(),
        dropped: BTreeSet::new(),
        kept: BTreeSet::new(),
        text_dropped: BTreeSet::new(),
        text_kept: BTreeSet::new(),
        rebuilds: Vec::new(),
        live_keys: BTreeMap::new(),
    };
    // Which live index names this plan frees and which it leaves in place.
    for c in changes {
        // Search indexes have names of their own, apart from the collection's indexes.
        if matches!(c.aspect, Aspect::SearchIndex(_)) {
            continue;
        }
        let Some(live_doc) = c.live.as_ref().and_then(Bson::as_document) else {
            continue;
        };
        let Ok(live_name) = live_doc.get_str("name") else {
            continue;
        };
        let key = (c.collection.clone(), live_name.to_owned());
        if let Ok(keys) = live_doc.get_document("key") {
            b.live_keys.insert(key.clone(), keys.clone());
        }
        let freed = match c.kind {
            ChangeKind::ExtraIndex => options.prune && !options.hide_before_drop,
            ChangeKind::Rebuild if matches!(c.aspect, Aspect::Index(_)) => options.prune,
            ChangeKind::IndexBuildInProgress => false,
            _ => continue,
        };
        let text = is_text(live_doc);
        if freed {
            b.dropped.insert(key);
            if text {
                b.text_dropped.insert(c.collection.clone());
            }
        } else {
            b.kept.insert(key);
            if text {
                b.text_kept.insert(c.collection.clone());
            }
        }
    }
    for change in changes {
        plan_change(&mut b, change);
    }
    push_rebuilds(&mut b);
    b.steps.sort_by_key(|(phase, seq, _)| (*phase, *seq));
    let mut steps: Vec<Step> = b.steps.into_iter().map(|(_, _, s)| s).collect();
    link_dependencies(&mut steps, &b.live_keys);
    Plan {
        steps,
        skipped: b.skipped,
        proposals: Vec::new(),
    }
}

/// Emits the rebuilds one at a time, each drop followed at once by its build, so that at most
/// one index is missing at any moment. A build waits only while its name is still held by the
/// old index of a rebuild not yet dropped (two indexes trading names).
fn push_rebuilds(b: &mut Builder<'_>) {
    let rebuilds = std::mem::take(&mut b.rebuilds);
    let mut held: BTreeSet<(String, String)> = rebuilds
        .iter()
        .map(|r| (r.collection.clone(), r.old_name.clone()))
        .collect();
    let mut waiting: Vec<Rebuild> = Vec::new();
    for rebuild in rebuilds {
        held.remove(&(rebuild.collection.clone(), rebuild.old_name.clone()));
        b.push(Phase::Replace, rebuild.drop.clone());
        waiting.push(rebuild);
        let (ready, still): (Vec<Rebuild>, Vec<Rebuild>) = waiting
            .into_iter()
            .partition(|r| !held.contains(&(r.collection.clone(), r.new_name.clone())));
        waiting = still;
        for r in ready {
            b.push(Phase::Replace, r.build);
        }
    }
    for r in waiting {
        b.push(Phase::Replace, r.build);
    }
}

/// What a step touches: its collection, whether it creates the collection, and the index names
/// and key patterns it names.
fn touches(
    step: &Step,
    live_keys: &BTreeMap<(String, String), Document>,
) -> (bool, Vec<String>, Vec<Document>) {
    let command = &step.command;
    let mut names = Vec::new();
    let mut keys = Vec::new();
    let add = |index: &Document, names: &mut Vec<String>, keys: &mut Vec<Document>| {
        if let Ok(name) = index.get_str("name") {
            names.push(name.to_owned());
        }
        if let Ok(key) = index.get_document("key") {
            keys.push(key.clone());
        }
    };
    match command.keys().next().map(String::as_str) {
        Some("create") => return (true, names, keys),
        Some("createIndexes") => {
            for index in command.get_array("indexes").into_iter().flatten() {
                if let Some(index) = index.as_document() {
                    add(index, &mut names, &mut keys);
                }
            }
        }
        Some("dropIndexes") => {
            if let Ok(name) = command.get_str("index") {
                if let Some(key) = live_keys.get(&(step.collection.clone(), name.to_owned())) {
                    keys.push(key.clone());
                }
                names.push(name.to_owned());
            }
        }
        Some("collMod") => {
            if let Ok(index) = command.get_document("index") {
                if let Ok(name) = index.get_str("name")
                    && let Some(key) = live_keys.get(&(step.collection.clone(), name.to_owned()))
                {
                    keys.push(key.clone());
                }
                add(index, &mut names, &mut keys);
            }
        }
        _ => {}
    }
    (false, names, keys)
}

/// Fills [`Step::depends_on`] (see there for the rule).
fn link_dependencies(steps: &mut [Step], live_keys: &BTreeMap<(String, String), Document>) {
    let touched: Vec<(bool, Vec<String>, Vec<Document>)> =
        steps.iter().map(|s| touches(s, live_keys)).collect();
    for j in 0..steps.len() {
        let mut needs = Vec::new();
        for i in 0..j {
            if steps[i].collection != steps[j].collection {
                continue;
            }
            let (created, names_i, keys_i) = &touched[i];
            let (_, names_j, keys_j) = &touched[j];
            let same_index = names_i.iter().any(|n| names_j.contains(n))
                || keys_i.iter().any(|k| {
                    keys_j.iter().any(|l| {
                        crate::normalize::identical(
                            &Bson::Document(k.clone()),
                            &Bson::Document(l.clone()),
                        )
                    })
                });
            if *created || same_index {
                needs.push(i);
            }
        }
        steps[j].depends_on = needs;
    }
}

fn plan_change(b: &mut Builder<'_>, c: &Change) {
    let coll = c.collection.as_str();
    let declared_doc = match &c.declared {
        Some(Bson::Document(d)) => Some(d),
        _ => None,
    };
    let live_doc = match &c.live {
        Some(Bson::Document(d)) => Some(d),
        _ => None,
    };
    match (c.kind, &c.aspect) {
        (ChangeKind::Cosmetic, _) => b.skip(c, "cosmetic: nothing to do"),
        (ChangeKind::IndexBuildInProgress, _) => b.skip(
            c,
            "the server is building this index; check again when it is done",
        ),
        (ChangeKind::Unmanaged, _) => b.skip(c, c.reason.clone()),
        (ChangeKind::ExtraCollection, _) => b.skip(
            c,
            "mongo-schema never drops a collection; drop it by hand if it is unused",
        ),
        (ChangeKind::MissingCollection, _) => {
            let Some(entry) = declared_doc else { return };
            let mut command = bson::doc! { "create": coll };
            if let Ok(options) = entry.get_document("options") {
                for (k, v) in options {
                    command.insert(k.clone(), v.clone());
                }
            }
            let summary = match command.get_str("viewOn") {
                Ok(on) => format!("create view {coll} on {on}"),
                Err(_) => format!("create collection {coll}"),
            };
            let step = b.step(coll, command, summary);
            b.push(Phase::CreateCollections, step);
            if let Ok(indexes) = entry.get_array("indexes")
                && !indexes.is_empty()
            {
                let names: Vec<&str> = indexes
                    .iter()
                    .filter_map(|i| i.as_document()?.get_str("name").ok())
                    .collect();
                let step = b.step(
                    coll,
                    bson::doc! { "createIndexes": coll, "indexes": indexes.clone() },
                    format!("build indexes {} on the new collection", names.join(", ")),
                );
                b.push(Phase::CreateCollections, step);
            }
            if let Ok(search) = entry.get_array("searchIndexes")
                && !search.is_empty()
            {
                let step = b.step(
                    coll,
                    bson::doc! { "createSearchIndexes": coll, "indexes": search.clone() },
                    format!(
                        "create {} search indexes on the new collection",
                        search.len()
                    ),
                );
                b.push(Phase::CreateCollections, step);
            }
            if entry.contains_key("shardKey") {
                b.skip(
                    c,
                    "shard the new collection with sh.shardCollection through mongos; mongo-schema does not plan it",
                );
            }
        }
        (ChangeKind::InPlace, Aspect::Validator) => {
            let validator = declared_doc.cloned().unwrap_or_default();
            let change = ValidatorChange::new(classify_validator(declared_doc, live_doc));
            let mut step = b.step(
                coll,
                bson::doc! { "collMod": coll, "validator": validator },
                if declared_doc.is_some() {
                    "set the validator".to_owned()
                } else {
                    "remove the validator".to_owned()
                },
            );
            step.risk = validator_risk(&change);
            step.validator = Some(change);
            b.push(Phase::CollMod, step);
        }
        (ChangeKind::InPlace, Aspect::ValidationLevel | Aspect::ValidationAction) => {
            let key = if c.aspect == Aspect::ValidationLevel {
                "validationLevel"
            } else {
                "validationAction"
            };
            let value = c.declared.clone().unwrap_or(Bson::Null);
            let tighter = matches!(
                (value.as_str(), c.live.as_ref().and_then(Bson::as_str)),
                (Some("strict"), Some("off" | "moderate"))
                    | (Some("moderate"), Some("off"))
                    | (Some("error" | "errorAndLog"), Some("warn"))
            );
            let mut step = b.step(
                coll,
                bson::doc! { "collMod": coll, key: value.clone() },
                format!("set {key} to {value}"),
            );
            if tighter {
                step.risk = Some(format!(
                    "stricter {key}: writes that passed may now be rejected; run `mongo-schema audit` first"
                ));
            }
            b.push(Phase::CollMod, step);
        }
        (ChangeKind::InPlace, Aspect::Option(name)) => {
            let command = match name.as_str() {
                "expireAfterSeconds" => {
                    let value = c.declared.clone().unwrap_or_else(|| Bson::from("off"));
                    bson::doc! { "collMod": coll, "expireAfterSeconds": value }
                }
                "timeseries" => {
                    let mut ts = Document::new();
                    if let Some(d) = declared_doc {
                        for key in [
                            "granularity",
                            "bucketMaxSpanSeconds",
                            "bucketRoundingSeconds",
                        ] {
                            if let Some(v) = d.get(key) {
                                ts.insert(key, v.clone());
                            }
                        }
                        // With a granularity the server derives the span itself.
                        if ts.contains_key("granularity") {
                            ts.remove("bucketMaxSpanSeconds");
                            ts.remove("bucketRoundingSeconds");
                        }
                    }
                    bson::doc! { "collMod": coll, "timeseries": ts }
                }
                "capped" => {
                    let mut command = bson::doc! { "collMod": coll };
                    if let Some(d) = declared_doc {
                        if c.fields.iter().any(|f| f == "size")
                            && let Some(size) = d.get("size")
                        {
                            command.insert("cappedSize", size.clone());
                        }
                        // `cappedMax` 0 or less lifts the limit.
                        if c.fields.iter().any(|f| f == "max") {
                            let max = d.get("max").cloned().unwrap_or(Bson::Int64(0));
                            command.insert("cappedMax", max);
                        }
                    }
                    command
                }
                "changeStreamPreAndPostImages" => bson::doc! {
                    "collMod": coll,
                    "changeStreamPreAndPostImages": c.declared.clone().unwrap_or(Bson::Null),
                },
                _ => {
                    b.skip(c, "no collMod known for this option");
                    return;
                }
            };
            let step = b.step(coll, command, format!("change option {name}"));
            b.push(Phase::CollMod, step);
        }
        (ChangeKind::MissingIndex, Aspect::Index(_)) => {
            if let Some(index) = declared_doc {
                let name = index.get_str("name").unwrap_or_default().to_owned();
                let key = (coll.to_owned(), name.clone());
                let text = is_text(index);
                if b.kept.contains(&key) {
                    b.skip(
                        c,
                        format!("the live index {name} holds the name and stays (plan with prune to replace it)"),
                    );
                } else if text && b.text_kept.contains(coll) {
                    b.skip(
                        c,
                        "the live text index stays and a collection holds one (plan with prune to replace it)",
                    );
                } else {
                    // After the drops when a live index frees the name (IndexKeySpecsConflict 86)
                    // or the collection's one text index.
                    let phase =
                        if b.dropped.contains(&key) || (text && b.text_dropped.contains(coll)) {
                            Phase::Reuse
                        } else {
                            Phase::CreateIndexes
                        };
                    let step = b.build(coll, index);
                    b.push(phase, step);
                }
            }
        }
        (ChangeKind::ExtraIndex, Aspect::Index(name)) => {
            if !b.options.prune {
                b.skip(
                    c,
                    "not declared; kept (plan with prune to drop it, or hide it first)",
                );
            } else if b.options.hide_before_drop && is_hidden(c) {
                // Hiding twice changes nothing: a second `apply` must be a no-op.
                b.skip(
                    c,
                    "already hidden; drop it with prune alone once nothing misses it",
                );
            } else if b.options.hide_before_drop {
                let step = b.step(
                    coll,
                    bson::doc! { "collMod": coll, "index": { "name": name.clone(), "hidden": true } },
                    format!("hide index {name} (drop it later once nothing misses it)"),
                );
                b.push(Phase::Drop, step);
            } else {
                let mut step = b.drop_index(coll, name);
                step.risk = Some(
                    "queries that use this index will scan instead; consider hiding it first"
                        .into(),
                );
                b.push(Phase::Drop, step);
            }
        }
        (ChangeKind::InPlace, Aspect::Index(_)) => {
            let (Some(d), Some(l)) = (declared_doc, live_doc) else {
                return;
            };
            let live_name = l.get_str("name").unwrap_or_default().to_owned();
            for field in &c.fields {
                match field.as_str() {
                    "expireAfterSeconds" => {
                        let value = d.get("expireAfterSeconds").cloned().unwrap_or(Bson::Null);
                        let step = b.step(
                            coll,
                            bson::doc! { "collMod": coll, "index": { "name": live_name.clone(), "expireAfterSeconds": value.clone() } },
                            format!("set expireAfterSeconds of index {live_name} to {value}"),
                        );
                        b.push(Phase::IndexCollMod, step);
                    }
                    "hidden" => {
                        let hidden = d.get_bool("hidden").unwrap_or(false);
                        let step = b.step(
                            coll,
                            bson::doc! { "collMod": coll, "index": { "name": live_name.clone(), "hidden": hidden } },
                            format!(
                                "{} index {live_name}",
                                if hidden { "hide" } else { "unhide" }
                            ),
                        );
                        b.push(Phase::IndexCollMod, step);
                    }
                    "unique" => {
                        let prepare = b.step(
                            coll,
                            bson::doc! { "collMod": coll, "index": { "name": live_name.clone(), "prepareUnique": true } },
                            format!("make index {live_name} refuse new duplicates (prepareUnique)"),
                        );
                        b.push(Phase::IndexCollMod, prepare);
                        let mut convert = b.step(
                            coll,
                            bson::doc! { "collMod": coll, "index": { "name": live_name.clone(), "unique": true } },
                            format!("convert index {live_name} to unique"),
                        );
                        convert.expensive = true;
                        convert.estimated_documents =
                            b.options.estimated_documents.get(coll).copied();
                        convert.risk = Some(
                            "fails if duplicates exist: list them first with collMod and dryRun: true (6.0+)"
                                .into(),
                        );
                        b.push(Phase::IndexCollMod, convert);
                    }
                    _ => {}
                }
            }
        }
        (_, Aspect::SearchIndex(_)) => match super::search::steps(c, b.options.prune) {
            Ok(steps) => {
                for s in steps {
                    let phase = match (s.drop, c.kind) {
                        (true, _) => Phase::Drop,
                        (false, ChangeKind::Rebuild) => Phase::Replace,
                        (false, _) => Phase::CreateIndexes,
                    };
                    let step = b.step(coll, s.command, s.summary);
                    b.push(phase, step);
                }
            }
            Err(reason) => b.skip(c, reason),
        },
        (ChangeKind::InPlace, Aspect::View) => match super::view::coll_mod(coll, declared_doc) {
            Some(command) => {
                let step = b.step(coll, command, format!("change view {coll}"));
                b.push(Phase::CollMod, step);
            }
            None => b.skip(c, "the declared view definition cannot be read"),
        },
        (ChangeKind::Rebuild, Aspect::Index(_)) => plan_index_rebuild(b, c, declared_doc, live_doc),
        (ChangeKind::Rebuild, _) => b.skip(
            c,
            format!(
                "{}; mongo-schema does not copy data between collections",
                c.reason
            ),
        ),
        (_, _) => b.skip(c, "nothing to plan"),
    }
}

/// The risk of a validator step that may reject what the live validator accepts: stored
/// documents fail it on their next write (`validationLevel: "strict"`), so audit first and keep
/// `validationAction: "warn"` until the audit is clean.
fn validator_risk(change: &ValidatorChange) -> Option<String> {
    let what = match &change.classification {
        Classification::Relaxing => return None,
        Classification::Tightening { .. } => "tightening validator",
        _ => "validator not proven relaxing",
    };
    Some(format!(
        "{what}: stored documents may fail it on their next update; run `mongo-schema audit` first, \
         and declare validationAction \"warn\" until it is clean"
    ))
}

/// Whether an index entry (`createIndexes` form) is a text index.
fn is_text(index: &Document) -> bool {
    index
        .get_document("key")
        .is_ok_and(|k| k.values().any(|v| v.as_str() == Some("text")))
}

fn plan_index_rebuild(
    b: &mut Builder<'_>,
    c: &Change,
    declared: Option<&Document>,
    live: Option<&Document>,
) {
    let (Some(d), Some(l)) = (declared, live) else {
        return;
    };
    let coll = c.collection.as_str();
    let new_name = d.get_str("name").unwrap_or_default().to_owned();
    let old_name = l.get_str("name").unwrap_or_default().to_owned();
    if !b.options.prune {
        b.skip(
            c,
            format!(
                "{}; replacing index {old_name} drops it, so plan with prune",
                c.reason
            ),
        );
        return;
    }
    // A rebuild pairs indexes the server cannot hold side by side: one name (IndexKeySpecsConflict
    // 86), one identity under two names (IndexOptionsConflict 85), or two text indexes. A new
    // index under a new name and identity would be a missing index plus an extra one instead,
    // built before the old is dropped.
    if b.kept.contains(&(coll.to_owned(), new_name.clone()))
        || (is_text(d) && !is_text(l) && b.text_kept.contains(coll))
    {
        b.skip(
            c,
            format!(
                "{}; the live index {new_name} holds the name and stays",
                c.reason
            ),
        );
        return;
    }
    let mut step = b.drop_index(coll, &old_name);
    let text = is_text(d) && is_text(l);
    let mut risk = if text {
        format!(
            "a collection holds one text index, so {old_name} is dropped before {new_name} is built: text search fails meanwhile"
        )
    } else if old_name == new_name {
        format!(
            "{old_name} is dropped and built again (the server cannot hold both versions under one name): queries that use it scan meanwhile; declaring the new version under a new name avoids that"
        )
    } else {
        format!(
            "the server cannot hold both, so {old_name} is dropped before {new_name} is built: queries that use it scan meanwhile"
        )
    };
    // A unique index dropped to be built again leaves the collection without the constraint
    // until the build ends: a duplicate written meanwhile makes the build fail.
    if l.get_bool("unique").unwrap_or(false) {
        risk.push_str(if d.get_bool("unique").unwrap_or(false) {
            "; the unique constraint lapses from the drop until the build ends: duplicates written meanwhile make the build fail"
        } else {
            "; the unique constraint ends with the drop"
        });
    }
    step.risk = Some(risk);
    let build = b.build(coll, d);
    b.rebuilds.push(Rebuild {
        collection: coll.to_owned(),
        old_name,
        new_name,
        drop: step,
        build,
    });
}

/// Whether the live side of an extra-index change is an index the server lists as hidden.
fn is_hidden(change: &Change) -> bool {
    matches!(&change.live, Some(Bson::Document(live)) if live.get_bool("hidden").ok() == Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::diff;
    use crate::normalize::live;
    use crate::spec::CollectionSpec;
    use crate::spec::{IndexKind::*, IndexSpec};

    fn declared() -> Vec<CollectionSpec> {
        vec![CollectionSpec::new("c").index(IndexSpec::new([("new", Ascending)]))]
    }

    fn live_specs() -> Vec<CollectionSpec> {
        vec![live(
            &CollectionSpec::new("c").index(IndexSpec::new([("old", Ascending)])),
        )]
    }

    fn verbs(plan: &Plan) -> Vec<&str> {
        plan.steps
            .iter()
            .map(|s| s.command.keys().next().map_or("", String::as_str))
            .collect()
    }

    #[test]
    fn nothing_is_dropped_without_prune() {
        let changes = diff(&declared(), &live_specs());
        let plan = plan(&changes, &PlanOptions::default());
        assert_eq!(verbs(&plan), ["createIndexes"]);
        assert_eq!(plan.skipped.len(), 1);
    }

    #[test]
    fn creates_come_before_drops() {
        let changes = diff(&declared(), &live_specs());
        let options = PlanOptions {
            prune: true,
            ..PlanOptions::default()
        };
        assert_eq!(
            verbs(&plan(&changes, &options)),
            ["createIndexes", "dropIndexes"]
        );
        let hide = PlanOptions {
            prune: true,
            hide_before_drop: true,
            ..PlanOptions::default()
        };
        assert_eq!(verbs(&plan(&changes, &hide)), ["createIndexes", "collMod"]);
    }

    #[test]
    fn an_index_already_hidden_is_not_hidden_again() {
        let hidden = vec![live(
            &CollectionSpec::new("c").index(IndexSpec::new([("old", Ascending)]).hidden(true)),
        )];
        let changes = diff(&declared(), &hidden);
        let hide = PlanOptions {
            prune: true,
            hide_before_drop: true,
            ..PlanOptions::default()
        };
        let plan = plan(&changes, &hide);
        assert_eq!(verbs(&plan), ["createIndexes"]);
        assert!(
            plan.skipped
                .iter()
                .any(|s| s.reason.contains("already hidden"))
        );
    }

    #[test]
    fn builds_are_expensive_from_the_threshold_or_when_the_size_is_unknown() {
        let changes = diff(&declared(), &live_specs());
        let unknown = plan(&changes, &PlanOptions::default());
        assert!(unknown.steps[0].expensive);
        let small = PlanOptions {
            estimated_documents: [("c".to_owned(), 10)].into(),
            ..PlanOptions::default()
        };
        let step = &plan(&changes, &small).steps[0];
        assert!(!step.expensive);
        assert_eq!(step.estimated_documents, Some(10));
        let large = PlanOptions {
            estimated_documents: [("c".to_owned(), 100_000)].into(),
            ..PlanOptions::default()
        };
        assert!(plan(&changes, &large).steps[0].expensive);
    }

    fn prune() -> PlanOptions {
        PlanOptions {
            prune: true,
            ..PlanOptions::default()
        }
    }

    fn summaries(plan: &Plan) -> Vec<&str> {
        plan.steps.iter().map(|s| s.summary.as_str()).collect()
    }

    // SERVER-FACTS "Rebuild (create new, then drop old; never drop first)": two indexes the
    // server cannot hold beside their new versions (same name: IndexKeySpecsConflict 86) are
    // replaced one at a time, so at most one is missing at any moment.
    #[test]
    fn rebuilds_under_the_same_name_drop_and_build_one_at_a_time() {
        let declared = vec![
            CollectionSpec::new("c")
                .index(
                    IndexSpec::new([("a", Ascending), ("x", Ascending)])
                        .name("one")
                        .unique(true),
                )
                .index(IndexSpec::new([("b", Ascending), ("x", Ascending)]).name("two")),
        ];
        let live = vec![live(
            &CollectionSpec::new("c")
                .index(IndexSpec::new([("a", Ascending)]).name("one").unique(true))
                .index(IndexSpec::new([("b", Ascending)]).name("two")),
        )];
        let plan = plan(&diff(&declared, &live), &prune());
        assert_eq!(
            summaries(&plan),
            [
                "drop index one",
                "build index one",
                "drop index two",
                "build index two"
            ]
        );
        // The unique constraint of `one` lapses between its drop and build, and the plan says so.
        assert!(
            plan.steps[0]
                .risk
                .as_deref()
                .unwrap()
                .contains("unique constraint lapses")
        );
        assert!(!plan.steps[2].risk.as_deref().unwrap().contains("unique"));
        // Each build needs its drop; the second pair does not need the first.
        assert_eq!(plan.steps[1].depends_on, [0]);
        assert!(plan.steps[2].depends_on.is_empty());
        assert_eq!(plan.steps[3].depends_on, [2]);
    }

    #[test]
    fn indexes_trading_names_wait_for_both_drops() {
        let declared = vec![
            CollectionSpec::new("c")
                .index(IndexSpec::new([("a", Ascending)]).name("x"))
                .index(IndexSpec::new([("b", Ascending)]).name("y")),
        ];
        let live = vec![live(
            &CollectionSpec::new("c")
                .index(IndexSpec::new([("a", Ascending)]).name("y"))
                .index(IndexSpec::new([("b", Ascending)]).name("x")),
        )];
        let changes = diff(&declared, &live);
        let plan = plan(&changes, &prune());
        let mut model = live.clone();
        crate::diff::apply_plan(&mut model, &plan).unwrap();
        assert!(!crate::diff::has_drift(&diff(&declared, &model)), "{plan}");
    }

    // A new index that can stand beside the old one (another name and key) is built before the
    // old one is dropped, and the drop needs the build when both have one key pattern.
    #[test]
    fn a_replacement_under_a_new_name_is_built_before_the_old_one_drops() {
        let declared = vec![
            CollectionSpec::new("c").index(
                IndexSpec::new([("a", Ascending)])
                    .name("a_sparse")
                    .sparse(true),
            ),
        ];
        let live = vec![live(
            &CollectionSpec::new("c").index(IndexSpec::new([("a", Ascending)])),
        )];
        let plan = plan(&diff(&declared, &live), &prune());
        assert_eq!(summaries(&plan), ["build index a_sparse", "drop index a_1"]);
        assert_eq!(plan.steps[1].depends_on, [0]);
    }

    #[test]
    fn index_steps_need_the_create_of_their_collection_only() {
        let declared = vec![
            CollectionSpec::new("new").index(IndexSpec::new([("a", Ascending)])),
            CollectionSpec::new("old").index(IndexSpec::new([("b", Ascending)])),
        ];
        let live = vec![live(&CollectionSpec::new("old"))];
        let plan = plan(&diff(&declared, &live), &PlanOptions::default());
        assert_eq!(verbs(&plan), ["create", "createIndexes", "createIndexes"]);
        assert_eq!(plan.steps[1].depends_on, [0]);
        assert!(plan.steps[2].depends_on.is_empty());
    }

    #[test]
    fn collections_are_never_dropped() {
        let changes = diff(&[], &live_specs());
        let options = PlanOptions {
            prune: true,
            ..PlanOptions::default()
        };
        let plan = plan(&changes, &options);
        assert!(plan.steps.is_empty());
        assert_eq!(plan.skipped[0].kind, ChangeKind::ExtraCollection);
    }

    #[test]
    fn a_relaxing_validator_is_not_risky_and_a_tightening_one_shows_its_witness() {
        let strict = CollectionSpec::new("c").validator(crate::spec::ValidatorSpec::from_document(
            &bson::doc! { "$jsonSchema": { "required": ["a", "b"] } },
        ));
        let loose = CollectionSpec::new("c").validator(crate::spec::ValidatorSpec::from_document(
            &bson::doc! { "$jsonSchema": { "required": ["a"] } },
        ));
        let loosen = plan(
            &diff(std::slice::from_ref(&loose), std::slice::from_ref(&strict)),
            &PlanOptions::default(),
        );
        assert_eq!(loosen.steps[0].risk, None);
        assert!(
            loosen.steps[0]
                .validator
                .as_ref()
                .unwrap()
                .classification
                .is_relaxing()
        );
        let tighten = plan(&diff(&[strict], &[loose]), &PlanOptions::default());
        assert!(tighten.steps[0].risk.as_deref().unwrap().contains("audit"));
        // The witness lacks `b`, which the declared validator now requires.
        let witness = tighten.steps[0].validator.as_ref().unwrap();
        assert!(
            !witness
                .classification
                .counterexample()
                .unwrap()
                .contains_key("b")
        );
    }
}
