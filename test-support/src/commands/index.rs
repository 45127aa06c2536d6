//! `createIndexes`, `dropIndexes` and collMod's `index` changes: indexes stored in the form
//! listIndexes shows, with the server's conflict rules.

use std::collections::BTreeMap;

use bson::{Bson, Document, Uuid, doc};

use super::{Context, ensure_collection, same_unordered, wrong_type};
use crate::Quirks;
use crate::collation;
use crate::error::{CommandError, code};
use crate::matcher::{number, values_equal};
use crate::state::{Collection, IndexEntry, State};

/// Index options a spec may carry (the server's `index_key_validate.cpp` allowed fields).
const INDEX_FIELDS: &[&str] = &[
    "v",
    "key",
    "name",
    "ns",
    "unique",
    "sparse",
    "background",
    "expireAfterSeconds",
    "partialFilterExpression",
    "collation",
    "hidden",
    "weights",
    "default_language",
    "language_override",
    "textIndexVersion",
    "2dsphereIndexVersion",
    "bits",
    "min",
    "max",
    "bucketSize",
    "wildcardProjection",
    "storageEngine",
    "prepareUnique",
    "clustered",
    "coarsestIndexedLevel",
    "finestIndexedLevel",
    "dropDups",
];

/// The options that make two indexes on the same keys different indexes (SERVER-FACTS: index
/// identity is the key pattern plus these).
const IDENTITY: &[&str] = &[
    "collation",
    "partialFilterExpression",
    "unique",
    "sparse",
    "wildcardProjection",
];

/// Fields never compared: server bookkeeping.
const BOOKKEEPING: &[&str] = &[
    "v",
    "ns",
    "background",
    "textIndexVersion",
    "2dsphereIndexVersion",
];

/// The default index name: each key field joined to its value with `_`, fields joined with `_`.
///
/// Source: the manual's "Index Names": `{item: 1, quantity: -1}` is named `item_1_quantity_-1`;
/// `a_hashed`, `loc_2dsphere`, `title_text_body_text`.
pub(crate) fn default_name(key: &Document) -> String {
    key.iter()
        .map(|(field, value)| {
            let value = match value {
                Bson::String(s) => s.clone(),
                Bson::Int32(i) => i.to_string(),
                Bson::Int64(i) => i.to_string(),
                Bson::Double(d) if d.fract() == 0.0 && d.abs() < 1e15 => format!("{}", *d as i64),
                other => other.to_string(),
            };
            format!("{field}_{value}")
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// Source: the manual's `createIndexes` page and the server's `index_catalog_impl.cpp`
/// (`_doesSpecConflictWithExisting`): reply `{numIndexesBefore, numIndexesAfter,
/// createdCollectionAutomatically, ok}`, `note: "all indexes already exist"` when nothing is new;
/// same name with other keys is IndexKeySpecsConflict (86); same name and keys with other options,
/// or the same identity under another name, is IndexOptionsConflict (85).
pub(crate) fn create_indexes(
    state: &mut State,
    cx: &Context<'_>,
) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let requested = match cx.body.get("indexes") {
        Some(Bson::Array(items)) => items.clone(),
        Some(other) => return Err(wrong_type("createIndexes", "indexes", other, "array")),
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'createIndexes.indexes' is missing but a required field",
            ));
        }
    };
    if requested.is_empty() {
        return Err(CommandError::new(
            code::BAD_VALUE,
            "Must specify at least one index to create",
        ));
    }
    super::commit_quorum::check(state, cx.body.get("commitQuorum"))?;
    let quirks = state.quirks.clone();
    let in_progress = quirks.index_builds_in_progress;
    let existing_collation = state
        .collection(cx.db, &name)
        .and_then(|c| c.options().get_document("collation").ok().cloned());
    let mut specs = Vec::new();
    for item in &requested {
        let Bson::Document(spec) = item else {
            return Err(wrong_type("createIndexes", "indexes", item, "object"));
        };
        specs.push(normalize_spec(spec, existing_collation.as_ref(), &quirks)?);
    }
    let created = ensure_collection(state, cx.db, &name, "createIndexes")?;
    let target = state
        .collection_mut(cx.db, &name)
        .expect("ensure just made the collection");
    let before = target.indexes.len() as i32;
    let mut added: Vec<IndexEntry> = Vec::new();
    for spec in specs {
        let mut is_new = true;
        for existing in target.indexes.iter().chain(added.iter()) {
            if conflict(&spec, &existing.spec)?.is_none() {
                is_new = false;
                break;
            }
        }
        if !is_new {
            continue;
        }
        let build = in_progress.then(|| doc! {"buildUUID": Bson::from(Uuid::new())});
        added.push(IndexEntry { spec, build });
    }
    let nothing_new = added.is_empty();
    target.indexes.extend(added);
    let after = target.indexes.len() as i32;
    let mut reply = doc! {
        "numIndexesBefore": before,
        "numIndexesAfter": after,
        "createdCollectionAutomatically": created,
    };
    if nothing_new {
        reply.insert("note", "all indexes already exist");
    }
    reply.insert("ok", 1.0);
    Ok(reply)
}

/// `Ok(Some(()))` when `requested` may be created beside `existing`, `Ok(None)` when it is the
/// same index (a no-op), or the conflict error.
fn conflict(requested: &Document, existing: &Document) -> Result<Option<()>, CommandError> {
    let same_name = requested.get_str("name").ok() == existing.get_str("name").ok();
    let same_keys = same_key(requested, existing);
    let same_identity = same_keys && IDENTITY.iter().all(|f| same_option(requested, existing, f));
    let same_options = same_identity && same_other_options(requested, existing);
    // Source: index_catalog_impl.cpp `_doesSpecConflictWithExisting`: under the same name, a
    // different key pattern or identity option ("kDifferent") is 86; only non-identity option
    // differences ("kEquivalent") are 85.
    if same_name && !same_identity {
        return Err(CommandError::new(
            code::INDEX_KEY_SPECS_CONFLICT,
            format!(
                "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: {requested}, existing index: {existing}"
            ),
        ));
    }
    if same_name && same_options {
        return Ok(None);
    }
    if same_name {
        return Err(CommandError::new(
            code::INDEX_OPTIONS_CONFLICT,
            format!(
                "An equivalent index already exists with the same name but different options. Requested index: {requested}, existing index: {existing}"
            ),
        ));
    }
    if same_options {
        return Err(CommandError::new(
            code::INDEX_OPTIONS_CONFLICT,
            format!(
                "Index already exists with a different name: {}",
                existing.get_str("name").unwrap_or_default()
            ),
        ));
    }
    if same_identity {
        return Err(CommandError::new(
            code::INDEX_OPTIONS_CONFLICT,
            format!(
                "An equivalent index already exists with a different name and options. Requested index: {requested}, existing index: {existing}"
            ),
        ));
    }
    Ok(Some(()))
}

/// Key patterns are equal when fields match in order and values by value (`1` = `1.0`).
fn same_key(a: &Document, b: &Document) -> bool {
    match (a.get_document("key"), b.get_document("key")) {
        (Ok(x), Ok(y)) => values_equal(&Bson::Document(x.clone()), &Bson::Document(y.clone())),
        _ => false,
    }
}

/// An option compared by value; `unique`, `sparse` and `hidden` absent equal false.
fn same_option(a: &Document, b: &Document, field: &str) -> bool {
    let boolean = ["unique", "sparse", "hidden"].contains(&field);
    let get = |d: &Document| match d.get(field) {
        None if boolean => Some(Bson::Boolean(false)),
        Some(v) if boolean => Some(Bson::Boolean(truthy(v))),
        other => other.cloned(),
    };
    match (get(a), get(b)) {
        (None, None) => true,
        (Some(Bson::Document(x)), Some(Bson::Document(y))) => same_unordered(&x, &y),
        (Some(x), Some(y)) => values_equal(&x, &y),
        _ => false,
    }
}

fn same_other_options(a: &Document, b: &Document) -> bool {
    let fields: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    fields
        .into_iter()
        .filter(|f| !BOOKKEEPING.contains(&f.as_str()) && *f != "key" && *f != "name")
        .all(|f| same_option(a, b, f))
}

fn truthy(value: &Bson) -> bool {
    match value {
        Bson::Boolean(b) => *b,
        other => number(other).is_some_and(|n| n != 0.0),
    }
}

/// Validates a requested spec and turns it into its listed form: `v: 2` first, then `key`,
/// `name`, the other options as sent; text indexes as `{_fts: "text", _ftsx: 1}` with `weights`,
/// `default_language`, `language_override`, `textIndexVersion: 3`; 2dsphere with
/// `2dsphereIndexVersion: 3`; the collection's collation when none is given.
///
/// Source: the manual's "Text Indexes" (weights default 1, `default_language` english,
/// `language_override` language), "2dsphere Indexes" (version 3), "Collation and Index Use"
/// (an index inherits the collection's default collation), and `index_key_validate.cpp`
/// (unknown fields: InvalidIndexSpecificationOption 197; bad key values: CannotCreateIndex 67).
fn normalize_spec(
    spec: &Document,
    collection_collation: Option<&Document>,
    quirks: &Quirks,
) -> Result<Document, CommandError> {
    for field in spec.keys() {
        if !INDEX_FIELDS.contains(&field.as_str()) {
            return Err(CommandError::new(
                code::INVALID_INDEX_SPECIFICATION_OPTION,
                format!(
                    "The field '{field}' is not valid for an index specification. Specification: {spec}"
                ),
            ));
        }
    }
    let key = match spec.get("key") {
        Some(Bson::Document(key)) => key.clone(),
        Some(other) => return Err(wrong_type("createIndexes", "indexes.key", other, "object")),
        None => {
            return Err(CommandError::new(
                code::FAILED_TO_PARSE,
                format!("The 'key' field is a required property of an index specification: {spec}"),
            ));
        }
    };
    if key.is_empty() {
        return Err(CommandError::new(
            code::CANNOT_CREATE_INDEX,
            "Index keys cannot be empty.",
        ));
    }
    let mut text_fields = Vec::new();
    let mut listed_key = Document::new();
    let mut is_2dsphere = false;
    for (field, value) in &key {
        match value {
            Bson::String(kind) if kind == "text" => {
                if text_fields.is_empty() {
                    listed_key.insert("_fts", "text");
                    listed_key.insert("_ftsx", 1);
                }
                text_fields.push(field.clone());
            }
            Bson::String(kind)
                if ["hashed", "2d", "2dsphere", "wildcard"].contains(&kind.as_str()) =>
            {
                is_2dsphere |= kind == "2dsphere";
                listed_key.insert(field.clone(), value.clone());
            }
            Bson::String(kind) => {
                return Err(CommandError::new(
                    code::CANNOT_CREATE_INDEX,
                    format!("Unknown index plugin '{kind}'"),
                ));
            }
            other => match number(other) {
                Some(n) if n != 0.0 && n.is_finite() => {
                    let value = if quirks.legacy_numeric_types {
                        Bson::Double(n)
                    } else {
                        other.clone()
                    };
                    listed_key.insert(field.clone(), value);
                }
                _ => {
                    return Err(CommandError::new(
                        code::CANNOT_CREATE_INDEX,
                        format!(
                            "Values in the index key pattern can't be 0 or non-numeric, got {field}: {other}"
                        ),
                    ));
                }
            },
        }
    }
    let name = match spec.get("name") {
        Some(Bson::String(name)) if name == "*" => {
            return Err(CommandError::new(
                code::BAD_VALUE,
                "The index name '*' is not valid.",
            ));
        }
        Some(Bson::String(name)) => name.clone(),
        Some(other) => return Err(wrong_type("createIndexes", "indexes.name", other, "string")),
        None => default_name(&key),
    };
    if let Some(ttl) = spec.get("expireAfterSeconds") {
        if key.len() > 1 {
            return Err(CommandError::new(
                code::CANNOT_CREATE_INDEX,
                format!(
                    "TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: {spec}"
                ),
            ));
        }
        if number(ttl).is_none_or(|n| n < 0.0) {
            return Err(CommandError::new(
                code::CANNOT_CREATE_INDEX,
                format!(
                    "TTL index 'expireAfterSeconds' option must be a non-negative number. Index spec: {spec}"
                ),
            ));
        }
    }
    if (name == "_id_" || key.keys().eq(["_id"])) && spec.get("hidden").is_some_and(truthy) {
        return Err(CommandError::new(code::BAD_VALUE, "can't hide _id index"));
    }
    let mut listed = doc! {"v": 2, "key": listed_key, "name": name.as_str()};
    for (field, value) in spec {
        if [
            "v",
            "key",
            "name",
            "ns",
            "weights",
            "default_language",
            "language_override",
            "textIndexVersion",
        ]
        .contains(&field.as_str())
        {
            continue;
        }
        let value = match field.as_str() {
            "collation" => match value {
                Bson::Document(requested) => match collation::expand(requested)? {
                    Some(full) => Bson::Document(full),
                    None => continue,
                },
                other => {
                    return Err(wrong_type(
                        "createIndexes",
                        "indexes.collation",
                        other,
                        "object",
                    ));
                }
            },
            "expireAfterSeconds" if quirks.ttl_as_double || quirks.legacy_numeric_types => {
                Bson::Double(number(value).unwrap_or_default())
            }
            "wildcardProjection" if quirks.nested_wildcard_projection => match value {
                Bson::Document(projection) => Bson::Document(nest_projection(projection)),
                other => other.clone(),
            },
            _ => value.clone(),
        };
        listed.insert(field.clone(), value);
    }
    if let Some(inherited) = collection_collation
        && !spec.contains_key("collation")
    {
        listed.insert("collation", inherited.clone());
    }
    if !text_fields.is_empty() {
        let mut weights: BTreeMap<String, Bson> = text_fields
            .iter()
            .map(|f| (f.clone(), Bson::Int32(1)))
            .collect();
        if let Some(given) = spec.get("weights") {
            let Bson::Document(given) = given else {
                return Err(wrong_type(
                    "createIndexes",
                    "indexes.weights",
                    given,
                    "object",
                ));
            };
            for (field, weight) in given {
                let w = number(weight).filter(|w| *w >= 1.0 && *w < 100_000.0).ok_or_else(|| {
                    CommandError::new(code::CANNOT_CREATE_INDEX, format!("text index weight must be in the exclusive interval (0,99999] but found: {weight}"))
                })?;
                // The server truncates a fractional weight (2.7 becomes 2).
                weights.insert(field.clone(), Bson::Int32(w as i32));
            }
        }
        let weights: Document = weights
            .into_iter()
            .map(|(f, w)| {
                let w = if quirks.legacy_numeric_types {
                    Bson::Double(number(&w).unwrap_or(1.0))
                } else {
                    w
                };
                (f, w)
            })
            .collect();
        listed.insert("weights", weights);
        listed.insert(
            "default_language",
            spec.get("default_language")
                .cloned()
                .unwrap_or(Bson::from("english")),
        );
        listed.insert(
            "language_override",
            spec.get("language_override")
                .cloned()
                .unwrap_or(Bson::from("language")),
        );
        listed.insert("textIndexVersion", 3);
    }
    if is_2dsphere && !listed.contains_key("2dsphereIndexVersion") {
        listed.insert("2dsphereIndexVersion", 3);
    }
    Ok(listed)
}

/// A wildcard projection as some servers list it: dotted paths nested into sub-documents, values
/// as booleans, and `_id: false` when the projection does not mention `_id` (SERVER-FACTS:
/// `{"author.name": 1}` comes back as `{author: {name: true}, _id: false}`).
fn nest_projection(projection: &Document) -> Document {
    let mut nested = Document::new();
    for (path, value) in projection {
        let mut segments: Vec<&str> = path.split('.').collect();
        let leaf = segments.pop().unwrap_or_default();
        let mut target = &mut nested;
        for segment in segments {
            if !matches!(target.get(segment), Some(Bson::Document(_))) {
                target.insert(segment, Document::new());
            }
            target = target
                .get_document_mut(segment)
                .expect("the segment was just made a document");
        }
        target.insert(leaf, truthy(value));
    }
    if !projection
        .keys()
        .any(|k| k == "_id" || k.starts_with("_id."))
    {
        nested.insert("_id", false);
    }
    nested
}

/// Source: the manual's `dropIndexes` page: `index` is a name, a key pattern, an array of names or
/// `"*"`; the `_id_` index cannot be dropped (InvalidOptions 72); a missing index is IndexNotFound
/// (27); reply `{nIndexesWas, ok}`.
pub(crate) fn drop_indexes(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let ns = format!("{}.{name}", cx.db);
    let which = cx.body.get("index").cloned().ok_or_else(|| {
        CommandError::new(
            code::IDL_MISSING_FIELD,
            "BSON field 'dropIndexes.index' is missing but a required field",
        )
    })?;
    let Some(collection) = state.collection_mut(cx.db, &name) else {
        return Err(CommandError::new(
            code::NAMESPACE_NOT_FOUND,
            format!("ns not found {ns}"),
        ));
    };
    let was = collection.indexes.len() as i32;
    let is_id = |entry: &IndexEntry| {
        entry.name() == "_id_" || entry.spec.get_bool("clustered").unwrap_or(false)
    };
    let doomed: Vec<usize> = match &which {
        Bson::String(all) if all == "*" => {
            let keep: Vec<IndexEntry> = collection
                .indexes
                .iter()
                .filter(|e| is_id(e))
                .cloned()
                .collect();
            collection.indexes = keep;
            return Ok(
                doc! {"nIndexesWas": was, "msg": "non-_id indexes dropped for collection", "ok": 1.0},
            );
        }
        Bson::String(single) => vec![find_by_name(collection, single)?],
        Bson::Array(names) => {
            let mut found = Vec::new();
            for item in names {
                let Bson::String(n) = item else {
                    return Err(wrong_type("dropIndexes", "index", item, "string"));
                };
                found.push(find_by_name(collection, n)?);
            }
            found
        }
        Bson::Document(key) => {
            let matches: Vec<usize> = collection
                .indexes
                .iter()
                .enumerate()
                .filter(|(_, e)| {
                    e.spec.get_document("key").is_ok_and(|k| {
                        values_equal(&Bson::Document(k.clone()), &Bson::Document(key.clone()))
                    })
                })
                .map(|(i, _)| i)
                .collect();
            match matches.as_slice() {
                [] => {
                    return Err(CommandError::new(
                        code::INDEX_NOT_FOUND,
                        format!("can't find index with key: {key}"),
                    ));
                }
                [one] => vec![*one],
                _ => {
                    return Err(CommandError::new(
                        281,
                        format!("{key} matches more than one index"),
                    ));
                }
            }
        }
        other => return Err(wrong_type("dropIndexes", "index", other, "string")),
    };
    if doomed.iter().any(|&i| is_id(&collection.indexes[i])) {
        return Err(CommandError::new(
            code::INVALID_OPTIONS,
            "cannot drop _id index",
        ));
    }
    let mut position = 0;
    collection.indexes.retain(|_| {
        let keep = !doomed.contains(&position);
        position += 1;
        keep
    });
    Ok(doc! {"nIndexesWas": was, "ok": 1.0})
}

fn find_by_name(collection: &Collection, name: &str) -> Result<usize, CommandError> {
    collection
        .indexes
        .iter()
        .position(|e| e.name() == name)
        .ok_or_else(|| {
            CommandError::new(
                code::INDEX_NOT_FOUND,
                format!("index not found with name [{name}]"),
            )
        })
}

/// collMod's `index: {name | keyPattern, expireAfterSeconds?, hidden?, prepareUnique?, unique?}`;
/// returns the reply fields (`expireAfterSeconds_old/_new`, `hidden_old/_new`, ...).
///
/// Source: the manual's `collMod` page ("Change an index": TTL, hiding, converting to unique after
/// `prepareUnique`; IndexNotFound 27 when no index matches).
pub(crate) fn coll_mod_index(
    collection: &mut Collection,
    change: &Document,
    ns: &str,
    quirks: &Quirks,
) -> Result<Document, CommandError> {
    for field in change.keys() {
        if ![
            "name",
            "keyPattern",
            "expireAfterSeconds",
            "hidden",
            "prepareUnique",
            "unique",
            "forceNonUnique",
        ]
        .contains(&field.as_str())
        {
            return Err(super::unknown_field("collMod.index", field));
        }
    }
    let position = match (change.get("name"), change.get("keyPattern")) {
        (Some(_), Some(_)) => {
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "Cannot specify both key pattern and name.",
            ));
        }
        (Some(Bson::String(name)), None) => {
            collection.indexes.iter().position(|e| e.name() == name)
        }
        (None, Some(Bson::Document(key))) => collection.indexes.iter().position(|e| {
            e.spec.get_document("key").is_ok_and(|k| {
                values_equal(&Bson::Document(k.clone()), &Bson::Document(key.clone()))
            })
        }),
        (None, None) => {
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "Must specify either index name or key pattern.",
            ));
        }
        (Some(other), None) | (None, Some(other)) => {
            return Err(wrong_type("collMod", "index", other, "string"));
        }
    };
    let Some(position) = position else {
        let which = change
            .get("name")
            .or(change.get("keyPattern"))
            .cloned()
            .unwrap_or(Bson::Null);
        return Err(CommandError::new(
            code::INDEX_NOT_FOUND,
            format!("cannot find index {which} for ns {ns}"),
        ));
    };
    if !["expireAfterSeconds", "hidden", "prepareUnique", "unique"]
        .iter()
        .any(|f| change.contains_key(*f))
    {
        return Err(CommandError::new(
            code::INVALID_OPTIONS,
            "no expireAfterSeconds, hidden, prepareUnique or unique field",
        ));
    }
    let documents = collection.documents.clone();
    let entry = &mut collection.indexes[position];
    let is_id = entry.name() == "_id_";
    let mut reply = Document::new();
    if let Some(ttl) = change.get("expireAfterSeconds") {
        let seconds = number(ttl).filter(|n| *n >= 0.0).ok_or_else(|| {
            CommandError::new(
                code::INVALID_OPTIONS,
                "expireAfterSeconds must be a non-negative number",
            )
        })?;
        let single_field = entry.spec.get_document("key").is_ok_and(|k| k.len() == 1);
        if is_id || !single_field {
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "TTL indexes are single-field indexes, compound indexes do not support TTL",
            ));
        }
        if let Some(old) = entry.spec.get("expireAfterSeconds") {
            reply.insert("expireAfterSeconds_old", old.clone());
        }
        let stored = if quirks.ttl_as_double || quirks.legacy_numeric_types {
            Bson::Double(seconds)
        } else {
            ttl.clone()
        };
        reply.insert("expireAfterSeconds_new", stored.clone());
        entry.spec.insert("expireAfterSeconds", stored);
    }
    if let Some(hidden) = change.get("hidden") {
        let Bson::Boolean(hidden) = hidden else {
            return Err(wrong_type("collMod", "index.hidden", hidden, "bool"));
        };
        if is_id {
            return Err(CommandError::new(code::BAD_VALUE, "can't hide _id index"));
        }
        reply.insert("hidden_old", entry.spec.get_bool("hidden").unwrap_or(false));
        reply.insert("hidden_new", *hidden);
        if quirks.hidden_not_persisted {
            // Acknowledged, not stored.
        } else if *hidden {
            entry.spec.insert("hidden", true);
        } else {
            entry.spec.remove("hidden");
        }
    }
    if let Some(prepare) = change.get("prepareUnique") {
        let Bson::Boolean(prepare) = prepare else {
            return Err(wrong_type(
                "collMod",
                "index.prepareUnique",
                prepare,
                "bool",
            ));
        };
        reply.insert(
            "prepareUnique_old",
            entry.spec.get_bool("prepareUnique").unwrap_or(false),
        );
        reply.insert("prepareUnique_new", *prepare);
        if *prepare {
            entry.spec.insert("prepareUnique", true);
        } else {
            entry.spec.remove("prepareUnique");
        }
    }
    if let Some(unique) = change.get("unique") {
        if !matches!(unique, Bson::Boolean(true)) {
            return Err(CommandError::new(
                code::BAD_VALUE,
                "collMod can only set 'unique' to true",
            ));
        }
        if !entry.spec.get_bool("prepareUnique").unwrap_or(false) {
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "Cannot make index unique with 'unique: true' unless 'prepareUnique' is set to true first",
            ));
        }
        let key = entry.spec.get_document("key").cloned().unwrap_or_default();
        let mut seen: Vec<Vec<Bson>> = Vec::new();
        for doc in &documents {
            let tuple: Vec<Bson> = key
                .keys()
                .map(|f| {
                    crate::matcher::lookup(doc, f)
                        .first()
                        .map_or(Bson::Null, |v| (*v).clone())
                })
                .collect();
            if seen
                .iter()
                .any(|t| t.iter().zip(&tuple).all(|(a, b)| values_equal(a, b)))
            {
                // Source: the manual's collMod page: duplicates make the conversion fail with
                // CannotConvertIndexToUnique (359).
                return Err(CommandError::new(
                    359,
                    "Cannot convert the index to unique. Please resolve conflicting documents before running collMod again.",
                ));
            }
            seen.push(tuple);
        }
        entry.spec.remove("prepareUnique");
        entry.spec.insert("unique", true);
        reply.insert("unique_new", true);
    }
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(spec: Document) -> Document {
        normalize_spec(&spec, None, &Quirks::default()).unwrap()
    }

    #[test]
    fn default_names_print_whole_doubles_as_integers() {
        assert_eq!(default_name(&doc! {"a": 1.0, "b": -1}), "a_1_b_-1");
        assert_eq!(default_name(&doc! {"a": 1.5}), "a_1.5");
        assert_eq!(default_name(&doc! {"loc": "2dsphere"}), "loc_2dsphere");
    }

    #[test]
    fn text_keys_keep_prefix_and_suffix_fields_around_fts() {
        let spec = listed(doc! {"key": {"a": 1, "t": "text", "u": "text", "z": -1}, "name": "x"});
        assert_eq!(
            spec.get_document("key").unwrap(),
            &doc! {"a": 1, "_fts": "text", "_ftsx": 1, "z": -1}
        );
        assert_eq!(
            spec.get_document("weights").unwrap(),
            &doc! {"t": 1, "u": 1}
        );
    }

    #[test]
    fn listed_specs_put_v_key_name_first() {
        let spec = listed(doc! {"unique": true, "name": "e", "key": {"e": 1}});
        let keys: Vec<&String> = spec.keys().collect();
        assert_eq!(keys, ["v", "key", "name", "unique"]);
    }

    #[test]
    fn conflicts_follow_identity_then_options() {
        let base = listed(doc! {"key": {"a": 1}, "name": "a_1", "expireAfterSeconds": 10});
        let same = listed(doc! {"key": {"a": 1.0}, "name": "a_1", "expireAfterSeconds": 10.0});
        assert_eq!(conflict(&same, &base).unwrap(), None);
        let other_ttl = listed(doc! {"key": {"a": 1}, "name": "a_1", "expireAfterSeconds": 20});
        assert_eq!(
            conflict(&other_ttl, &base).unwrap_err().code,
            code::INDEX_OPTIONS_CONFLICT
        );
        let other_keys = listed(doc! {"key": {"b": 1}, "name": "a_1"});
        assert_eq!(
            conflict(&other_keys, &base).unwrap_err().code,
            code::INDEX_KEY_SPECS_CONFLICT
        );
        let renamed = listed(doc! {"key": {"a": 1}, "name": "other", "expireAfterSeconds": 10});
        assert_eq!(
            conflict(&renamed, &base).unwrap_err().code,
            code::INDEX_OPTIONS_CONFLICT
        );
        let sparse = listed(doc! {"key": {"a": 1}, "name": "sparse", "sparse": true});
        assert_eq!(conflict(&sparse, &base).unwrap(), Some(()));
    }

    #[test]
    fn wildcard_projections_nest_under_the_quirk() {
        let quirks = Quirks {
            nested_wildcard_projection: true,
            ..Quirks::default()
        };
        let spec = doc! {"key": {"$**": 1}, "name": "w", "wildcardProjection": {"author.name": 1, "author.age": 1, "tags": 1}};
        let listed = normalize_spec(&spec, None, &quirks).unwrap();
        assert_eq!(
            listed.get_document("wildcardProjection").unwrap(),
            &doc! {"author": {"name": true, "age": true}, "tags": true, "_id": false}
        );
    }

    #[test]
    fn unique_one_equals_unique_true() {
        let a = listed(doc! {"key": {"a": 1}, "name": "a", "unique": 1});
        let b = listed(doc! {"key": {"a": 1}, "name": "a", "unique": true});
        assert_eq!(conflict(&a, &b).unwrap(), None);
    }
}
