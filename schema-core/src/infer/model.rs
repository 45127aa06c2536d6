//! From the census to the Rust types `infer` proposes: one [`Model`] that both the source
//! writer (`rust.rs`) and the validator prediction (`validator.rs`) read, so the two cannot
//! disagree about a field.

use std::collections::HashSet;

use super::census::{Census, Fields, Node};
use super::names;
use crate::schema::BsonType;

/// Integers a double field can hold exactly: an `int` or `long` beyond 2^53 would lose digits
/// when read as `f64`.
const F64_EXACT: i64 = 1 << 53;

/// A Rust type `infer` can write.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// `bool`.
    Bool,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `f64`.
    F64,
    /// `bson::Decimal128`.
    Decimal,
    /// `String`.
    String,
    /// `bson::oid::ObjectId`.
    ObjectId,
    /// `bson::DateTime`.
    DateTime,
    /// `bson::Uuid`.
    Uuid,
    /// `bson::Binary`.
    Binary,
    /// `bson::Timestamp`.
    Timestamp,
    /// `bson::Regex`.
    Regex,
    /// `bson::Document`.
    Document,
    /// `bson::Bson`: any value.
    Any,
    /// `Option<T>`.
    Option(Box<Ty>),
    /// `Vec<T>`.
    Vec(Box<Ty>),
    /// `HashMap<String, T>`.
    Map(Box<Ty>),
    /// The struct at this index of [`Model::structs`].
    Struct(usize),
    /// The enum at this index of [`Model::enums`].
    Enum(usize),
}

impl Ty {
    /// Whether serde reads this type from a missing field.
    pub fn is_option(&self) -> bool {
        matches!(self, Ty::Option(_))
    }
}

/// One field of a struct.
#[derive(Clone, Debug)]
pub struct Field {
    /// The Rust identifier (`r#type` for a keyword).
    pub ident: String,
    /// The stored name.
    pub name: String,
    /// The field's type, `Option` included (for nulls, or for a field sometimes missing).
    pub ty: Ty,
    /// Absent from some documents that have its parent, or named with a `.`:
    /// `#[serde(default, skip_serializing_if)]`.
    pub sometimes_missing: bool,
    /// What the generator saw and could not type better, for a comment.
    pub note: Option<String>,
}

impl Field {
    /// Whether the validator requires the field: as the derive decides, required exactly when
    /// always written and serde cannot read a missing field (`field_spec` in the derive).
    pub fn is_required(&self) -> bool {
        !self.sometimes_missing && !self.ty.is_option()
    }
}

/// How a struct's fields get their stored names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldNames {
    /// Each field is its stored name, or has a `rename`.
    AsIs,
    /// `#[serde(rename_all = "camelCase")]`, with a `rename` for the fields that do not fit.
    CamelCase,
}

/// A struct: the root documents or an embedded object path.
#[derive(Clone, Debug)]
pub struct Struct {
    /// The Rust name.
    pub name: String,
    /// The dotted path it stands for (`""` for the root).
    pub path: String,
    /// The fields, in the order first seen.
    pub fields: Vec<Field>,
    /// How the fields are renamed.
    pub names: FieldNames,
}

/// A unit-only enum for a low-cardinality string path.
#[derive(Clone, Debug)]
pub struct Enum {
    /// The Rust name.
    pub name: String,
    /// The dotted path.
    pub path: String,
    /// `(variant ident, stored string)`, in the stored strings' order.
    pub variants: Vec<(String, String)>,
    /// The `rename_all` rule that fits every variant, if one does.
    pub rename_all: Option<&'static str>,
}

/// What `infer` proposes for a collection.
#[derive(Clone, Debug)]
pub struct Model {
    /// The collection's name.
    pub collection: String,
    /// The structs; the root is the first.
    pub structs: Vec<Struct>,
    /// The enums.
    pub enums: Vec<Enum>,
    /// Compromises, one sentence each, with the path.
    pub notes: Vec<String>,
    /// The root's `#[mongo(...)]` keys after `collection = ...` (`index(...)`, options), for a
    /// collection read from a deployment.
    pub attributes: Vec<String>,
    /// A polymorphic collection: the root is an internally tagged enum with these variants
    /// (the root struct keeps every field, for index paths).
    pub tagged: Option<Tagged>,
    /// A collection of several schema versions: the root struct is the current one.
    pub versioning: Option<Versioning>,
    /// The lints on what the census saw ([`super::lints`]).
    pub findings: Vec<crate::Finding>,
}

/// A collection whose documents carry a schema version: `#[mongo(version(...))]` on the root,
/// which is the current version's struct; each older version has a struct of its own and a
/// conversion into the current one (what the derive's `Versioned::from_any_version` calls).
#[derive(Clone, Debug)]
pub struct Versioning {
    /// The version field's stored name.
    pub field: String,
    /// The current version: the largest value seen.
    pub current: i64,
    /// The older versions, newest first.
    pub previous: Vec<Previous>,
    /// The `From` impls: each older root into the current root, and the nested types that
    /// differ between them (filled by `convert::complete`).
    pub conversions: Vec<Conversion>,
}

/// One `From` impl of the generated source.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Conversion {
    /// Between two structs: each field of `to` from the fields of `from`.
    Struct {
        /// The older struct, in [`Model::structs`].
        from: usize,
        /// The newer struct.
        to: usize,
        /// `(field ident of to, Rust expression over old)`, in `to`'s field order.
        fields: Vec<(String, String)>,
        /// Stored names of `from`'s fields that `to` has not.
        dropped: Vec<String>,
        /// One sentence per value the conversion cannot fill.
        unconverted: Vec<String>,
    },
    /// Between two unit enums, the older's values all among the newer's.
    Enum {
        /// The older enum, in [`Model::enums`].
        from: usize,
        /// The newer enum.
        to: usize,
        /// `(older variant, newer variant)` of the same stored value.
        arms: Vec<(String, String)>,
    },
}

impl Conversion {
    /// The values this conversion cannot fill (none for an enum).
    pub fn unconverted(&self) -> &[String] {
        match self {
            Conversion::Struct { unconverted, .. } => unconverted,
            Conversion::Enum { .. } => &[],
        }
    }
}

/// One older version of a [`Versioning`].
#[derive(Clone, Debug)]
pub struct Previous {
    /// Its version number.
    pub value: i64,
    /// Its struct in [`Model::structs`].
    pub structure: usize,
    /// Whether its documents may lack the version field: the oldest version's may, as the
    /// derive declares it (documents written before versioning began).
    pub may_be_absent: bool,
}

/// An internally tagged root enum: one variant per value of the discriminator.
#[derive(Clone, Debug)]
pub struct Tagged {
    /// The discriminator's stored name (`#[serde(tag = ...)]`).
    pub tag: String,
    /// The `rename_all` rule that fits every variant's value, if one does.
    pub rename_all: Option<&'static str>,
    /// The variants, in the order their values were first seen.
    pub variants: Vec<Variant>,
}

/// One variant of a [`Tagged`] root: the documents whose discriminator holds `value`.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The Rust name.
    pub ident: String,
    /// The discriminator's value.
    pub value: String,
    /// The fields its documents have (the discriminator aside); none makes a unit variant.
    pub fields: Vec<Field>,
    /// How the fields are renamed.
    pub names: FieldNames,
}

impl Model {
    /// Whether any field is a map, so the source needs `HashMap`.
    pub fn uses_map(&self) -> bool {
        fn has_map(ty: &Ty) -> bool {
            match ty {
                Ty::Map(_) => true,
                Ty::Option(t) | Ty::Vec(t) => has_map(t),
                _ => false,
            }
        }
        self.structs
            .iter()
            .flat_map(|s| &s.fields)
            .any(|f| has_map(&f.ty))
    }
}

/// Settings of one inference.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// Low-cardinality strings become enums.
    pub enums: bool,
}

impl Options {
    /// With low-cardinality strings as enums, or not.
    #[must_use]
    pub fn with_enums(mut self, enums: bool) -> Options {
        self.enums = enums;
        self
    }
}

struct Builder<'a> {
    options: &'a Options,
    model: Model,
    /// While an older version is built: its notes' prefix, and nested types equal to one
    /// already built at the same path are shared.
    older: Option<String>,
    /// The discriminator of a polymorphic collection, left out of the root's fields.
    tag: Option<String>,
    /// The root fields' types before `Option` for sometimes missing, in field order.
    root_base: Vec<Ty>,
    /// Every type name taken, reserved names included.
    taken: HashSet<String>,
}

/// Builds the model of `collection` from its census.
pub fn build(census: &Census, collection: &str, options: &Options) -> Model {
    let mut b = Builder {
        options,
        model: Model {
            collection: collection.to_owned(),
            structs: Vec::new(),
            enums: Vec::new(),
            notes: Vec::new(),
            attributes: Vec::new(),
            tagged: None,
            versioning: None,
            findings: super::lints::lints(census, collection),
        },
        older: None,
        tag: discriminator(census),
        root_base: Vec::new(),
        taken: names::RESERVED_TYPES
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
    };
    if census.too_deep > 0 {
        b.model.notes.push(format!(
            "{} deeper than {} levels: the server refuses to store such documents, and the \
             parts below that depth are typed bson::Bson",
            crate::plural::count(census.too_deep, "document"),
            super::census::MAX_DEPTH
        ));
    }
    let root_name = b.type_name(&names::singular(&names::pascal(collection)), "", "Document");
    let versions = if b.tag.is_none() {
        version_field(census)
    } else {
        None
    };
    match versions {
        Some((field, groups)) => b.versioned(field, groups, root_name),
        None => {
            b.structure(&census.root, "", root_name);
            if let Some(tag) = b.tag.clone() {
                b.polymorph(census, &tag);
            }
        }
    }
    b.model
}

/// What a root field decides about the documents of each of its values: for each other root
/// field, whether it is in all of them, none, or some, and which types it held.
fn shape<'a>(node: &'a Node, skip: &str) -> Vec<(&'a str, u8, Vec<BsonType>)> {
    let Fields::Named(named) = &node.fields else {
        return Vec::new();
    };
    let mut shape: Vec<_> = named
        .iter()
        .filter(|(k, _)| k.as_str() != skip)
        .map(|(k, child)| {
            let presence = if child.count == node.count { 2 } else { 1 };
            let kinds = child
                .types
                .seen()
                .map(|(t, _)| t)
                .filter(|t| *t != BsonType::Null)
                .collect();
            (k.as_str(), presence, kinds)
        })
        .collect();
    shape.sort_by(|a, b| a.0.cmp(b.0));
    shape
}

/// The documents of each version, newest first.
type Groups = Vec<(i64, Node)>;

/// The root field that is a schema version, if one is, with the documents of each version,
/// newest first. A candidate has a name that reads as a version (`census::is_version_name`)
/// and small whole numbers for values; the data decides: at least two versions (documents
/// without the field count as the oldest, or as one older still when their shape differs),
/// each repeated (no more versions than half the documents), and at least one other field
/// whose presence or type the version decides. Of several, the one deciding most fields.
fn version_field(census: &Census) -> Option<(String, Groups)> {
    let mut best: Option<(usize, String, Groups)> = None;
    for (key, versions) in &census.versions {
        if key == "_id" || key.contains('.') || key.starts_with('$') {
            continue;
        }
        let Some(values) = &versions.values else {
            continue;
        };
        let mut groups: Groups = values.iter().map(|(v, n)| (*v, n.clone())).collect();
        groups.sort_by_key(|g| std::cmp::Reverse(g.0));
        let absent = &versions.absent;
        if absent.count > 0 {
            match groups.last_mut() {
                // The oldest stored version, written before the field was: merged with the
                // oldest numbered one when they look alike (and that one is not the current).
                Some((oldest, node))
                    if *oldest == 0
                        || (values.len() >= 2 && shape(absent, key) == shape(node, key)) =>
                {
                    node.merge(absent);
                }
                Some((oldest, _)) => {
                    let value = *oldest - 1;
                    groups.push((value, absent.clone()));
                }
                None => {}
            }
        }
        if groups.len() < 2 || groups.len() as u64 * 2 > census.documents {
            continue;
        }
        let mut fields: Vec<&str> = Vec::new();
        let shapes: Vec<_> = groups.iter().map(|(_, n)| shape(n, key)).collect();
        for s in &shapes {
            for (name, _, _) in s {
                if !fields.contains(name) {
                    fields.push(name);
                }
            }
        }
        let decided = fields
            .iter()
            .filter(|field| {
                let per_group: Vec<Option<&(&str, u8, Vec<BsonType>)>> = shapes
                    .iter()
                    .map(|s| s.iter().find(|(n, _, _)| n == *field))
                    .collect();
                let always = per_group.iter().filter(|p| p.is_some_and(|p| p.1 == 2));
                let never = per_group.iter().filter(|p| p.is_none()).count();
                let presence_decided = never > 0 && always.count() + never == per_group.len();
                let mut kinds = per_group.iter().flatten().map(|p| &p.2);
                let first = kinds.next();
                let retyped = kinds.any(|k| Some(k) != first);
                presence_decided || retyped
            })
            .count();
        if decided > 0 && best.as_ref().is_none_or(|(n, _, _)| decided > *n) {
            best = Some((decided, key.clone(), groups));
        }
    }
    best.map(|(_, key, groups)| (key, groups))
}

/// The root field whose values partition field presence, if one does: present in every
/// document as one of 2 to [`MAX_VARIANTS`](super::census::MAX_VARIANTS) short strings that
/// repeat (no more values than half the documents), and
/// deciding the presence of at least one other field (every document with a given value has it,
/// or none has; some values have it and some do not). Of several, the one deciding most fields.
fn discriminator(census: &Census) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for (key, partition) in &census.partitions {
        // Names a tag cannot carry well: `_id`, paths, operators.
        if key == "_id" || key.contains('.') || key.starts_with('$') {
            continue;
        }
        let Some(values) = &partition.values else {
            continue;
        };
        let documents: u64 = values.values().map(|p| p.documents).sum();
        // Values must repeat (at most one per two documents): in a small sample a name or an
        // id would otherwise "decide" every field its few documents happen to have.
        if values.len() < 2 || documents != census.documents || values.len() as u64 * 2 > documents
        {
            continue;
        }
        let mut fields: Vec<&str> = Vec::new();
        for presence in values.values() {
            for field in presence.fields.keys() {
                if field != key && !fields.contains(&field.as_str()) {
                    fields.push(field);
                }
            }
        }
        let decided = fields
            .iter()
            .filter(|field| {
                let counts = values
                    .values()
                    .map(|p| (p.fields.get(**field).copied().unwrap_or(0), p.documents));
                let (mut with, mut without) = (false, false);
                for (n, of) in counts {
                    if n == 0 {
                        without = true;
                    } else if n == of {
                        with = true;
                    } else {
                        return false;
                    }
                }
                with && without
            })
            .count();
        if decided > 0 && best.is_none_or(|(n, _)| decided > n) {
            best = Some((decided, key));
        }
    }
    best.map(|(_, key)| key.to_owned())
}

impl Builder<'_> {
    /// Makes the root an internally tagged enum on `tag`: per value, the root fields its
    /// documents have, each optional exactly when some of those documents lack it.
    fn polymorph(&mut self, census: &Census, tag: &str) {
        let Some(values) = census.partitions.get(tag).and_then(|p| p.values.as_ref()) else {
            return;
        };
        let stored: Vec<String> = values.keys().cloned().collect();
        let (idents, rename_all) = names::variants(&stored);
        let root = &self.model.structs[0];
        let mut variants = Vec::new();
        for ((ident, value), presence) in idents.into_iter().zip(values.values()) {
            let fields: Vec<Field> = root
                .fields
                .iter()
                .zip(&self.root_base)
                .filter_map(|(f, base)| {
                    let n = presence.fields.get(&f.name).copied().unwrap_or(0);
                    if n == 0 {
                        return None;
                    }
                    let sometimes_missing = n < presence.documents || f.name.contains('.');
                    let ty = if sometimes_missing && !base.is_option() {
                        Ty::Option(Box::new(base.clone()))
                    } else {
                        base.clone()
                    };
                    Some(Field {
                        ty,
                        sometimes_missing,
                        ..f.clone()
                    })
                })
                .collect();
            let names = if names::camel_case_fits(
                fields.iter().map(|f| (f.ident.as_str(), f.name.as_str())),
            ) && !fields.is_empty()
            {
                FieldNames::CamelCase
            } else {
                FieldNames::AsIs
            };
            variants.push(Variant {
                ident,
                value,
                fields,
                names,
            });
        }
        self.note(
            tag,
            format!(
                "the discriminator of {} kinds of documents, each with its own fields: the root \
                 is an internally tagged enum",
                variants.len()
            ),
        );
        self.model.tagged = Some(Tagged {
            tag: tag.to_owned(),
            rename_all,
            variants,
        });
    }

    /// One struct per version, the current (newest) first as the root, and the conversions
    /// from each older one.
    fn versioned(&mut self, field: String, groups: Groups, root_name: String) {
        let current = groups[0].0;
        self.structure(&groups[0].1, "", root_name.clone());
        let oldest = groups.last().map_or(current, |g| g.0);
        let mut previous = Vec::new();
        for (value, node) in &groups[1..] {
            self.older = Some(format!("version {value}, "));
            let name = self.type_name(&format!("{root_name}V{value}"), "", "Document");
            let structure = self.structure(node, "", name);
            previous.push(Previous {
                value: *value,
                structure,
                may_be_absent: *value == oldest,
            });
        }
        self.older = None;
        let versions: Vec<String> = groups.iter().map(|g| g.0.to_string()).collect();
        let text = format!(
            "the schema version (values {}): one struct per version, the newest ({current}) \
             the root; older documents are read through From",
            versions.join(", ")
        );
        self.note(&field, text);
        self.model.versioning = Some(Versioning {
            field,
            current,
            previous,
            conversions: Vec::new(),
        });
    }

    /// A free type name: `wanted`, else `parent` + `wanted`, else `wanted2`, `wanted3`...
    fn type_name(&mut self, wanted: &str, parent: &str, fallback: &str) -> String {
        let wanted = if wanted.is_empty() { fallback } else { wanted };
        let mut candidates = vec![wanted.to_owned()];
        if !parent.is_empty() && parent.len() + wanted.len() <= 40 {
            candidates.push(format!("{parent}{wanted}"));
        }
        let name = candidates
            .into_iter()
            .find(|c| !self.taken.contains(c))
            .unwrap_or_else(|| {
                (2..)
                    .map(|i| format!("{wanted}{i}"))
                    .find(|c| !self.taken.contains(c))
                    .expect("an unbounded range has a free name")
            });
        self.taken.insert(name.clone());
        name
    }

    fn note(&mut self, path: &str, text: String) {
        let path = if path.is_empty() { "(document)" } else { path };
        let note = format!("{path}: {text}");
        match &self.older {
            // An older version's note is kept when the newer ones did not make it already.
            Some(prefix) => {
                if !self.model.notes.iter().any(|n| n.ends_with(&note)) {
                    self.model.notes.push(format!("{prefix}{note}"));
                }
            }
            None => self.model.notes.push(note),
        }
    }

    /// While an older version is built: the struct just built at `index` (the last, its own
    /// nested types already shared) when one built before at the same path has the same
    /// fields; that one is used instead.
    fn share(&mut self, index: usize) -> usize {
        let root = self.model.structs[index].path.is_empty();
        if self.older.is_none() || index + 1 != self.model.structs.len() || root {
            return index;
        }
        let built = &self.model.structs[index];
        let same = |s: &Struct| {
            s.path == built.path
                && s.names == built.names
                && s.fields.len() == built.fields.len()
                && s.fields.iter().zip(&built.fields).all(|(a, b)| {
                    (&a.ident, &a.name, &a.ty, a.sometimes_missing)
                        == (&b.ident, &b.name, &b.ty, b.sometimes_missing)
                })
        };
        match self.model.structs[..index].iter().position(same) {
            Some(earlier) => {
                let dropped = self.model.structs.pop().expect("index is the last");
                self.taken.remove(&dropped.name);
                earlier
            }
            None => index,
        }
    }

    /// Adds the struct for the object path `node`, returning its index.
    fn structure(&mut self, node: &Node, path: &str, name: String) -> usize {
        let index = self.model.structs.len();
        self.model.structs.push(Struct {
            name: name.clone(),
            path: path.to_owned(),
            fields: Vec::new(),
            names: FieldNames::AsIs,
        });
        let Fields::Named(named) = &node.fields else {
            unreachable!("map paths are not structs")
        };
        let mut idents = HashSet::new();
        let mut fields = Vec::new();
        for (key, child) in named {
            if path.is_empty() && self.tag.as_deref() == Some(key.as_str()) {
                // Written as the enum's tag, never as a field: serde consumes it.
                continue;
            }
            let child_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            let (ty, note) = self.ty(child, &child_path, key, &name, true);
            let ident = names::field_ident(key, &mut idents);
            // The server reads a `properties` or `required` name as a path, split at dots
            // (json_schema_parser.cpp: `parseProperties`, `translateRequired`), so `required:
            // ["a.b"]` asks for `b` inside `a` and no document with a literal "a.b" key meets it.
            // Such a field is written as optional: never required, which the server can check.
            let dotted = key.contains('.');
            if dotted {
                self.note(
                    &child_path,
                    "the name holds '.', which validators read as a path: the field is optional \
                     so the validator does not require it"
                        .to_owned(),
                );
            }
            let sometimes_missing = child.count < node.objects() || dotted;
            if path.is_empty() {
                self.root_base.push(ty.clone());
            }
            let ty = if sometimes_missing && !ty.is_option() {
                Ty::Option(Box::new(ty))
            } else {
                ty
            };
            fields.push(Field {
                ident,
                name: key.clone(),
                ty,
                sometimes_missing,
                note,
            });
        }
        let names =
            if names::camel_case_fits(fields.iter().map(|f| (f.ident.as_str(), f.name.as_str()))) {
                FieldNames::CamelCase
            } else {
                FieldNames::AsIs
            };
        let s = &mut self.model.structs[index];
        s.fields = fields;
        s.names = names;
        self.share(index)
    }

    /// The type of the values at `node`, and a note when it is a compromise.
    /// `record`: whether a compromise here joins [`Model::notes`] (array elements are recorded
    /// once, by their array).
    fn ty(
        &mut self,
        node: &Node,
        path: &str,
        key: &str,
        parent: &str,
        record: bool,
    ) -> (Ty, Option<String>) {
        let nulls = node.types.get(BsonType::Null);
        let non_null: Vec<(BsonType, u64)> = node
            .types
            .seen()
            .filter(|(k, _)| *k != BsonType::Null)
            .collect();
        if non_null.is_empty() {
            let note = "only null seen: typed Option<bson::Bson>".to_owned();
            if record {
                self.note(path, note.clone());
            }
            return (Ty::Option(Box::new(Ty::Any)), Some(note));
        }
        let (base, note) = self.base(node, &non_null, path, key, parent);
        if let Some(n) = note.as_ref().filter(|_| record) {
            self.note(path, n.clone());
        }
        let ty = if nulls > 0 && base != Ty::Any {
            Ty::Option(Box::new(base))
        } else {
            base
        };
        (ty, note)
    }

    fn base(
        &mut self,
        node: &Node,
        kinds: &[(BsonType, u64)],
        path: &str,
        key: &str,
        parent: &str,
    ) -> (Ty, Option<String>) {
        let only = |allowed: &[BsonType]| kinds.iter().all(|(k, _)| allowed.contains(k));
        let seen = || {
            kinds
                .iter()
                .map(|(k, n)| format!("{} ({n})", k.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if node.too_deep > 0 {
            return (
                Ty::Any,
                Some(format!(
                    "not looked into: nests deeper than {} levels",
                    super::census::MAX_DEPTH
                )),
            );
        }
        if let [(kind, _)] = kinds {
            let simple = match kind {
                BsonType::Int => Some(Ty::I32),
                BsonType::Long => Some(Ty::I64),
                BsonType::Double => Some(Ty::F64),
                BsonType::Decimal => Some(Ty::Decimal),
                BsonType::Bool => Some(Ty::Bool),
                BsonType::ObjectId => Some(Ty::ObjectId),
                BsonType::Date => Some(Ty::DateTime),
                BsonType::Timestamp => Some(Ty::Timestamp),
                BsonType::Regex => Some(Ty::Regex),
                _ => None,
            };
            if let Some(ty) = simple {
                return (ty, None);
            }
            match kind {
                BsonType::String => return (self.string(node, path, key, parent), None),
                BsonType::BinData => {
                    let uuid = node.binary_subtypes.keys().eq([4].iter()) && node.bad_uuids == 0;
                    return (if uuid { Ty::Uuid } else { Ty::Binary }, None);
                }
                BsonType::Object => return self.object(node, path, key, parent),
                BsonType::Array => return self.array(node, path, key, parent),
                _ => {
                    return (
                        Ty::Any,
                        Some(format!("seen: {}; no Rust type of its own", seen())),
                    );
                }
            }
        }
        if only(&[BsonType::Int, BsonType::Long]) {
            return (Ty::I64, None);
        }
        if only(&[BsonType::Int, BsonType::Long, BsonType::Double]) {
            // f64 reads integers, but only those up to 2^53 come back unchanged.
            let exact = node
                .long
                .is_none_or(|r| r.min >= -F64_EXACT && r.max <= F64_EXACT);
            if exact {
                return (Ty::F64, None);
            }
            return (
                Ty::Any,
                Some(format!(
                    "seen: {}; some integers are beyond 2^53 and f64 would round them",
                    seen()
                )),
            );
        }
        (
            Ty::Any,
            Some(format!("seen: {}; no one Rust type reads them all", seen())),
        )
    }

    fn string(&mut self, node: &Node, path: &str, key: &str, parent: &str) -> Ty {
        if !self.options.enums {
            return Ty::String;
        }
        let Some(values) = &node.strings.values else {
            return Ty::String;
        };
        // Low cardinality: each value seen at least twice on average, and none empty.
        let fits = !values.is_empty()
            && node.types.get(BsonType::String) >= 2 * values.len() as u64
            && values.iter().all(|v| !v.is_empty());
        if !fits {
            return Ty::String;
        }
        let values: Vec<String> = values.iter().cloned().collect();
        let (variants, rename_all) = names::variants(&values);
        if self.older.is_some() {
            // An older version's enum with the variants of one built already: shared.
            let same = self
                .model
                .enums
                .iter()
                .position(|e| e.path == path && e.variants == variants);
            if let Some(index) = same {
                return Ty::Enum(index);
            }
        }
        let name = self.type_name(&names::pascal(key), parent, "Kind");
        self.model.enums.push(Enum {
            name,
            path: path.to_owned(),
            variants,
            rename_all,
        });
        Ty::Enum(self.model.enums.len() - 1)
    }

    fn object(&mut self, node: &Node, path: &str, key: &str, parent: &str) -> (Ty, Option<String>) {
        match &node.fields {
            Fields::Map { values, .. } => {
                let (ty, _) = self.ty(values, &format!("{path}.*"), key, parent, true);
                (
                    Ty::Map(Box::new(ty)),
                    Some(format!(
                        "more than {} distinct keys: a map",
                        super::census::MAX_FIELDS
                    )),
                )
            }
            Fields::Named(named) if named.is_empty() => (
                Ty::Document,
                Some("only empty objects seen: bson::Document".to_owned()),
            ),
            Fields::Named(named) if named.keys().all(|k| names::is_data_key(k)) => {
                let mut values = Node::default();
                named.values().for_each(|v| values.merge(v));
                let (ty, _) = self.ty(&values, &format!("{path}.*"), key, parent, true);
                (
                    Ty::Map(Box::new(ty)),
                    Some("keys look like ids, numbers or dates: a map".to_owned()),
                )
            }
            Fields::Named(_) => {
                let name = self.type_name(&names::pascal(key), parent, "Object");
                (Ty::Struct(self.structure(node, path, name)), None)
            }
        }
    }

    fn array(&mut self, node: &Node, path: &str, key: &str, parent: &str) -> (Ty, Option<String>) {
        match &node.elements {
            Some(elements) if elements.count > 0 => {
                let singular = names::singular(key);
                let (ty, note) = self.ty(elements, &format!("{path}.[]"), &singular, parent, false);
                (
                    Ty::Vec(Box::new(ty)),
                    note.map(|n| format!("elements: {n}")),
                )
            }
            _ => (
                Ty::Vec(Box::new(Ty::Any)),
                Some("only empty arrays seen: Vec<bson::Bson>".to_owned()),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(docs: &[bson::Document], enums: bool) -> Model {
        let mut census = Census::new();
        for d in docs {
            census
                .add(&bson::RawDocumentBuf::try_from(d).unwrap())
                .unwrap();
        }
        build(&census, "things", &Options::default().with_enums(enums))
    }

    fn field<'a>(m: &'a Model, name: &str) -> &'a Field {
        m.structs[0].fields.iter().find(|f| f.name == name).unwrap()
    }

    fn tag_of(docs: &[bson::Document]) -> Option<String> {
        model(docs, false).tagged.map(|t| t.tag)
    }

    #[test]
    fn a_discriminator_deciding_field_presence_makes_a_tagged_root() {
        let docs = [
            bson::doc! { "_id": 1, "kind": "book", "title": "a", "isbn": "1" },
            bson::doc! { "_id": 2, "kind": "course", "title": "b", "hours": 2.5 },
            bson::doc! { "_id": 3, "kind": "book", "title": "c", "isbn": "2", "note": "x" },
            bson::doc! { "_id": 4, "kind": "gone" },
            bson::doc! { "_id": 5, "kind": "course", "title": "d", "hours": 1.0 },
            bson::doc! { "_id": 6, "kind": "gone" },
        ];
        let m = model(&docs, false);
        let tagged = m.tagged.as_ref().expect("kind partitions isbn and hours");
        assert_eq!(tagged.tag, "kind");
        let shape: Vec<(&str, Vec<(&str, bool)>)> = tagged
            .variants
            .iter()
            .map(|v| {
                let fields = v
                    .fields
                    .iter()
                    .map(|f| (f.name.as_str(), f.is_required()))
                    .collect();
                (v.value.as_str(), fields)
            })
            .collect();
        assert_eq!(
            shape,
            [
                (
                    "book",
                    vec![
                        ("_id", true),
                        ("title", true),
                        ("isbn", true),
                        ("note", false)
                    ]
                ),
                (
                    "course",
                    vec![("_id", true), ("title", true), ("hours", true)]
                ),
                ("gone", vec![("_id", true)]),
            ]
        );
        // The tag is the enum's, never a field.
        assert!(m.structs[0].fields.iter().all(|f| f.name != "kind"));
    }

    #[test]
    fn no_discriminator_without_a_field_it_decides() {
        // `status` values do not decide `shipped` (some shipped orders lack it).
        let orders = [
            bson::doc! { "status": "new" },
            bson::doc! { "status": "shipped", "shipped": 1 },
            bson::doc! { "status": "shipped" },
        ];
        assert_eq!(tag_of(&orders), None);
        // A document without the field, or a value that is not a string, rules it out.
        let missing = [
            bson::doc! { "t": "a", "x": 1 },
            bson::doc! { "t": "b", "y": 1 },
            bson::doc! { "y": 2 },
        ];
        assert_eq!(tag_of(&missing), None);
        let number = [
            bson::doc! { "t": "a", "x": 1 },
            bson::doc! { "t": 2, "y": 1 },
        ];
        assert_eq!(tag_of(&number), None);
        // One value only is no polymorphism; values that do not repeat (names) are none either.
        assert_eq!(tag_of(&[bson::doc! { "t": "a", "x": 1 }]), None);
        let names = [
            bson::doc! { "name": "Ada", "tags": ["x"] },
            bson::doc! { "name": "Grace" },
        ];
        assert_eq!(tag_of(&names), None);
    }

    #[test]
    fn the_candidate_deciding_most_fields_wins() {
        let docs = [
            bson::doc! { "shape": "x", "kind": "a", "p": 1, "q": 1 },
            bson::doc! { "shape": "y", "kind": "a", "p": 1, "q": 1, "s": 1 },
            bson::doc! { "shape": "x", "kind": "b", "r": 1 },
            bson::doc! { "shape": "y", "kind": "b", "r": 1, "s": 1 },
        ];
        // `shape` decides `s` only; `kind` decides p, q and r.
        assert_eq!(tag_of(&docs).as_deref(), Some("kind"));
    }

    fn versions_of(docs: &[bson::Document]) -> Option<(String, i64, Vec<i64>)> {
        model(docs, false).versioning.map(|v| {
            let previous = v.previous.iter().map(|p| p.value).collect();
            (v.field, v.current, previous)
        })
    }

    #[test]
    fn a_version_field_deciding_the_shape_makes_one_struct_per_version() {
        let docs = [
            bson::doc! { "_id": 1, "name": "Ada L" },
            bson::doc! { "_id": 2, "schemaVersion": 2, "first": "Ada", "last": "L" },
            bson::doc! { "_id": 3, "name": "Bo" },
            bson::doc! { "_id": 4, "schemaVersion": 2, "first": "Bo", "last": "" },
            bson::doc! { "_id": 5, "schemaVersion": 3, "first": "Cy", "last": "", "age": 3 },
            bson::doc! { "_id": 6, "schemaVersion": 3, "first": "Di", "last": "", "age": 4 },
        ];
        // The documents without the field are a version older than the oldest numbered one.
        assert_eq!(
            versions_of(&docs),
            Some(("schemaVersion".to_owned(), 3, vec![2, 1]))
        );
        let m = model(&docs, false);
        let v = m.versioning.as_ref().unwrap();
        let names: Vec<&str> = [0, v.previous[0].structure, v.previous[1].structure]
            .iter()
            .map(|i| m.structs[*i].name.as_str())
            .collect();
        assert_eq!(names, ["Thing", "ThingV2", "ThingV1"]);
        assert!(v.previous[1].may_be_absent && !v.previous[0].may_be_absent);
    }

    #[test]
    fn no_version_without_a_version_name_a_decided_field_or_two_versions() {
        let shaped = |key: &str| {
            vec![
                bson::doc! { key: 1, "a": 1 },
                bson::doc! { key: 1, "a": 1 },
                bson::doc! { key: 2, "b": 1 },
                bson::doc! { key: 2, "b": 1 },
            ]
        };
        assert!(versions_of(&shaped("v")).is_some());
        assert!(versions_of(&shaped("schema_version")).is_some());
        // Numbers naming kinds are no versions; serde cannot tag by number either.
        assert_eq!(versions_of(&shaped("kind")), None);
        // Mongoose's revision counter.
        assert_eq!(versions_of(&shaped("__v")), None);
        // A version that decides nothing (a device's firmware version, say).
        let firmware: Vec<_> = (0..8)
            .map(|i| bson::doc! { "version": i % 3, "serial": i })
            .collect();
        assert_eq!(versions_of(&firmware), None);
        // One version only.
        let one = [
            bson::doc! { "version": 2, "a": 1 },
            bson::doc! { "version": 2, "a": 1 },
        ];
        assert_eq!(versions_of(&one), None);
        // String versions stay a tagged enum: the derive pins whole numbers only.
        let strings = [
            bson::doc! { "version": "v1", "a": 1 },
            bson::doc! { "version": "v1", "a": 1 },
            bson::doc! { "version": "v2", "b": 1 },
            bson::doc! { "version": "v2", "b": 1 },
        ];
        assert_eq!(versions_of(&strings), None);
        assert_eq!(tag_of(&strings).as_deref(), Some("version"));
    }

    #[test]
    fn a_version_changing_a_type_counts_as_deciding() {
        let docs = [
            bson::doc! { "v": 1, "price": "9.99" },
            bson::doc! { "v": 1, "price": "1.00" },
            bson::doc! { "v": 2, "price": 9.99 },
            bson::doc! { "v": 2, "price": 1.0 },
        ];
        let m = model(&docs, false);
        let v = m.versioning.as_ref().expect("price changes type");
        let price = |s: usize| {
            m.structs[s]
                .fields
                .iter()
                .find(|f| f.name == "price")
                .unwrap()
                .ty
                .clone()
        };
        assert_eq!(price(0), Ty::F64);
        assert_eq!(price(v.previous[0].structure), Ty::String);
    }

    #[test]
    fn uuids_are_subtype_4_of_16_bytes() {
        let bin = |subtype: u8, len: usize| bson::Binary {
            subtype: bson::spec::BinarySubtype::from(subtype),
            bytes: vec![0; len],
        };
        let m = model(
            &[bson::doc! { "u": bin(4, 16), "old": bin(3, 16), "short": bin(4, 3) }],
            false,
        );
        assert_eq!(field(&m, "u").ty, Ty::Uuid);
        assert_eq!(field(&m, "old").ty, Ty::Binary);
        assert_eq!(field(&m, "short").ty, Ty::Binary);
    }

    #[test]
    fn camel_case_is_used_when_every_field_fits() {
        let m = model(
            &[bson::doc! { "_id": 1, "createdAt": 1, "name": "x" }],
            false,
        );
        assert_eq!(m.structs[0].names, FieldNames::CamelCase);
        let m = model(&[bson::doc! { "createdAt": 1, "user_id": 1 }], false);
        assert_eq!(m.structs[0].names, FieldNames::AsIs);
        let m = model(&[bson::doc! { "name": "x" }], false);
        assert_eq!(m.structs[0].names, FieldNames::AsIs);
    }

    #[test]
    fn nulls_and_absences_make_options() {
        let m = model(
            &[
                bson::doc! { "a": 1, "b": null, "c": null },
                bson::doc! { "a": null, "b": 2 },
            ],
            false,
        );
        let a = field(&m, "a");
        assert_eq!(
            (a.ty.clone(), a.sometimes_missing),
            (Ty::Option(Box::new(Ty::I32)), false)
        );
        assert!(!a.is_required());
        assert!(field(&m, "c").sometimes_missing);
        assert_eq!(field(&m, "c").ty, Ty::Option(Box::new(Ty::Any)));
    }

    #[test]
    fn enums_only_when_asked_and_repeated() {
        let docs: Vec<_> = (0..6)
            .map(|i| bson::doc! { "s": (["a", "b"][i % 2]), "u": format!("{i}") })
            .collect();
        assert_eq!(field(&model(&docs, false), "s").ty, Ty::String);
        let m = model(&docs, true);
        assert_eq!(field(&m, "s").ty, Ty::Enum(0));
        assert_eq!(m.enums[0].rename_all, Some("lowercase"));
        // Six values seen once each are not low-cardinality.
        assert_eq!(field(&m, "u").ty, Ty::String);
    }

    #[test]
    fn dotted_names_are_never_required() {
        let m = model(&[bson::doc! { "a.b": 1, "c": 1 }], false);
        assert!(!field(&m, "a.b").is_required());
        assert!(field(&m, "c").is_required());
        assert!(
            m.notes
                .iter()
                .any(|n| n.starts_with("a.b: the name holds '.'"))
        );
    }

    #[test]
    fn data_keys_make_a_map_of_the_merged_values() {
        let m = model(
            &[bson::doc! { "by_day": { "2024-01-01": 1, "2024-01-02": 2_i64 } }],
            false,
        );
        assert_eq!(field(&m, "by_day").ty, Ty::Map(Box::new(Ty::I64)));
    }
}
