//! Declared vs live canonical specs -> `Vec<Change>` -> `Plan` of server commands.
//!
//! [`diff`] normalizes both sides ([`crate::normalize`]), matches collections by name and
//! indexes by identity (key pattern, collation, partial filter, unique, sparse, wildcard
//! projection; never by name alone), and classifies every difference by what it would take to
//! fix ([`ChangeKind`]). [`plan()`] turns the changes into ordered server commands.

mod apply;
mod compare;
mod judge;
mod plan;
mod search;
mod view;

use std::fmt;

use bson::{Bson, Document};

use crate::normalize;
use crate::spec::CollectionSpec;

pub use apply::{ApplyError, apply_command, apply_plan};
pub use judge::{ValidatorChange, classify_validator};
pub use plan::{Plan, PlanOptions, Proposal, Skipped, Step, plan};

/// What a difference would take to fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ChangeKind {
    /// The two sides differ only in form (field order, numeric types): nothing to do.
    Cosmetic,
    /// Fixable on the live collection with `collMod`.
    InPlace,
    /// Needs a new index or collection in place of the old one (create new, then drop old).
    Rebuild,
    /// Declared, absent from the server.
    MissingCollection,
    /// On the server, not declared.
    ExtraCollection,
    /// A declared index the server lacks.
    MissingIndex,
    /// An index on the server that nothing declares.
    ExtraIndex,
    /// An index the server is still building: neither missing nor extra.
    IndexBuildInProgress,
    /// An option the model does not manage differs: reported, never acted on.
    Unmanaged,
}

impl ChangeKind {
    /// The kind in kebab case, as reports print it: `in-place`, `missing-index`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Cosmetic => "cosmetic",
            ChangeKind::InPlace => "in-place",
            ChangeKind::Rebuild => "rebuild",
            ChangeKind::MissingCollection => "missing-collection",
            ChangeKind::ExtraCollection => "extra-collection",
            ChangeKind::MissingIndex => "missing-index",
            ChangeKind::ExtraIndex => "extra-index",
            ChangeKind::IndexBuildInProgress => "index-build-in-progress",
            ChangeKind::Unmanaged => "unmanaged",
        }
    }

    /// Whether changes of this kind are drift (a `check` exits 1): everything but cosmetic
    /// differences, builds in progress and unmanaged options. [`Change::is_drift`] refines the
    /// last: a declared option the server does not have is drift.
    pub fn is_drift(self) -> bool {
        !matches!(
            self,
            ChangeKind::Cosmetic | ChangeKind::IndexBuildInProgress | ChangeKind::Unmanaged
        )
    }
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of a collection a change is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Aspect {
    /// The collection as a whole (missing or extra).
    Collection,
    /// `validator`.
    Validator,
    /// `validationLevel`.
    ValidationLevel,
    /// `validationAction`.
    ValidationAction,
    /// A `create` option, by its wire name (`timeseries`, `collation`, `storageEngine`...).
    Option(String),
    /// An index, by name (the declared name when declared, else the live one).
    Index(String),
    /// An index option the model does not know (`storageEngine`), by index and option name.
    IndexOption {
        /// The index name.
        index: String,
        /// The option's wire name.
        option: String,
    },
    /// The shard key.
    ShardKey,
    /// A view's definition: `viewOn` and `pipeline`.
    View,
    /// A search or vector search index, by name.
    SearchIndex(String),
}

impl fmt::Display for Aspect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Aspect::Collection => f.write_str("collection"),
            Aspect::Validator => f.write_str("validator"),
            Aspect::ValidationLevel => f.write_str("validationLevel"),
            Aspect::ValidationAction => f.write_str("validationAction"),
            Aspect::Option(name) => write!(f, "option {name}"),
            Aspect::Index(name) => write!(f, "index {name}"),
            Aspect::IndexOption { index, option } => write!(f, "index {index} option {option}"),
            Aspect::ShardKey => f.write_str("shardKey"),
            Aspect::View => f.write_str("view"),
            Aspect::SearchIndex(name) => write!(f, "search index {name}"),
        }
    }
}

/// One difference between a declared and a live collection.
///
/// `declared` and `live` hold the two values in wire form: for a collection its manifest entry,
/// for an index its `createIndexes` entry, for an option its value. `fields` names what differs
/// inside an index (`expireAfterSeconds`, `name`, ...).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Change {
    /// The collection.
    pub collection: String,
    /// What fixing it takes.
    pub kind: ChangeKind,
    /// What it is about.
    pub aspect: Aspect,
    /// The declared value, when declared.
    pub declared: Option<Bson>,
    /// The live value, when present on the server.
    pub live: Option<Bson>,
    /// The fields that differ, for index and option changes.
    pub fields: Vec<String>,
    /// Why it is classified so, in one line.
    pub reason: String,
}

impl Change {
    /// A change of `kind` to `aspect` of `collection`, with neither value and no field named
    /// (set the public fields for the rest).
    pub fn new(
        collection: impl Into<String>,
        aspect: Aspect,
        kind: ChangeKind,
        reason: impl Into<String>,
    ) -> Change {
        Change {
            collection: collection.into(),
            kind,
            aspect,
            declared: None,
            live: None,
            fields: Vec::new(),
            reason: reason.into(),
        }
    }

    /// Whether this change is drift (a `check` exits 1). As [`ChangeKind::is_drift`], except
    /// that an unmanaged option counts when the declaration sets it: the server does not hold
    /// what was declared. Options only the server has (fields a newer server lists, settings made
    /// by hand), a shard key that could not be read and search indexes that were not read are
    /// reported without failing a check.
    pub fn is_drift(&self) -> bool {
        match self.kind {
            ChangeKind::Unmanaged => {
                self.declared.is_some()
                    && !matches!(self.aspect, Aspect::ShardKey | Aspect::SearchIndex(_))
            }
            kind => kind.is_drift(),
        }
    }

    /// The change as a document, for JSON reports: `{collection, kind, aspect, fields, reason,
    /// declared, live}` (the last two only when present).
    pub fn to_document(&self) -> Document {
        let mut d = bson::doc! {
            "collection": self.collection.clone(),
            "kind": self.kind.as_str(),
            "aspect": self.aspect.to_string(),
            "fields": self.fields.clone(),
            "reason": self.reason.clone(),
        };
        if let Some(v) = &self.declared {
            d.insert("declared", v.clone());
        }
        if let Some(v) = &self.live {
            d.insert("live", v.clone());
        }
        d
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}: {}",
            self.collection, self.aspect, self.kind, self.reason
        )
    }
}

/// Compares declared collections with live ones and lists every difference, sorted by
/// collection, then aspect.
///
/// Both sides are normalized first ([`normalize::declared`] and [`normalize::live`], both
/// idempotent), so `diff(&specs, &specs)` is empty. Collections match by name, indexes by
/// identity; see [`ChangeKind`] for the classification.
///
/// ```
/// use bson::doc;
/// use mongo_schema::spec::CollectionSpec;
/// use mongo_schema::diff::{ChangeKind, diff};
/// use mongo_schema::spec::{IndexKind::*, IndexSpec};
/// use mongo_schema::normalize::live_collection;
///
/// let declared = [CollectionSpec::new("orders")
///     .index(IndexSpec::new([("user_id", Ascending)]).expire_after_seconds(3600))];
/// let live = [live_collection(
///     &doc! { "name": "orders", "type": "collection", "options": {} },
///     &[doc! { "v": 2, "key": { "user_id": 1 }, "name": "user_id_1", "expireAfterSeconds": 60.0 }],
/// )?.unwrap()];
/// let changes = diff(&declared, &live);
/// assert_eq!(changes.len(), 1);
/// assert_eq!(changes[0].kind, ChangeKind::InPlace);
/// assert_eq!(changes[0].fields, ["expireAfterSeconds"]);
/// assert!(diff(&declared, &declared).is_empty());
/// # Ok::<(), mongo_schema::normalize::NormalizeError>(())
/// ```
pub fn diff(declared: &[CollectionSpec], live: &[CollectionSpec]) -> Vec<Change> {
    let declared = normalize::declared_all(declared);
    let mut live: Vec<CollectionSpec> = live.iter().map(normalize::live).collect();
    live.sort_by(|a, b| a.name.cmp(&b.name));
    let mut changes = Vec::new();
    let mut d = declared.iter().peekable();
    let mut l = live.iter().peekable();
    loop {
        match (d.peek(), l.peek()) {
            (None, None) => break,
            (Some(dc), Some(lc)) if dc.name == lc.name => {
                compare::collection(dc, lc, &mut changes);
                d.next();
                l.next();
            }
            (Some(dc), lc) if lc.is_none_or(|lc| dc.name < lc.name) => {
                changes.push(Change {
                    collection: dc.name.clone(),
                    kind: ChangeKind::MissingCollection,
                    aspect: Aspect::Collection,
                    declared: Some(Bson::Document(compare::manifest_entry(dc))),
                    live: None,
                    fields: Vec::new(),
                    reason: "declared, not on the server".into(),
                });
                d.next();
            }
            (_, lc) => {
                let lc = lc.expect("a declared collection without a live one is handled above");
                changes.push(Change {
                    collection: lc.name.clone(),
                    kind: ChangeKind::ExtraCollection,
                    aspect: Aspect::Collection,
                    declared: None,
                    live: Some(Bson::Document(compare::manifest_entry(lc))),
                    fields: Vec::new(),
                    reason: "on the server, not declared".into(),
                });
                l.next();
            }
        }
    }
    changes.sort_by(|a, b| {
        (&a.collection, &a.aspect, a.kind).cmp(&(&b.collection, &b.aspect, b.kind))
    });
    changes
}

/// Whether any change is drift ([`Change::is_drift`]): what `check` turns into exit 1.
pub fn has_drift(changes: &[Change]) -> bool {
    changes.iter().any(Change::is_drift)
}
