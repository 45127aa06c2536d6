//! `create`, `collMod`, `drop`, `dropDatabase`: collections and their options, stored in the
//! form listCollections shows.

use bson::{Bson, Document, Uuid, doc};

use super::{Context, index, ok, same_unordered, unknown_field, wrong_type};
use crate::ServerVersion;
use crate::collation;
use crate::error::{CommandError, code};
use crate::matcher::{self, number};
use crate::state::{Collection, IndexEntry, State};

/// Options `create` accepts, in the order the server lists them (`CollectionOptions::toBSON`).
const CREATE_OPTIONS: &[&str] = &[
    "capped",
    "size",
    "max",
    "autoIndexId",
    "storageEngine",
    "indexOptionDefaults",
    "validator",
    "validationLevel",
    "validationAction",
    "viewOn",
    "pipeline",
    "collation",
    "changeStreamPreAndPostImages",
    "timeseries",
    "clusteredIndex",
    "expireAfterSeconds",
    "encryptedFields",
    "temp",
    "flags",
    "idIndex",
];

/// Source: the manual's `create` page and the server's `create_command.cpp` /
/// `create_collection.cpp`: options are validated and stored in canonical form; an existing
/// namespace with the same options is a no-op, with other options NamespaceExists (48)
/// "namespace <ns> already exists, but with different options: { uuid: ..., ... }" (the message
/// current servers send). Before 7.0 a mongod refused any existing namespace.
pub(crate) fn create(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let requested: Document = cx
        .arguments()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let built = build(state, cx.db, &name, &requested, "create")?;
    if let Some(existing) = state.collection(cx.db, &name) {
        let ns = format!("{}.{name}", cx.db);
        // Source: SERVER-60064 (7.0): mongod's create succeeds when the namespace exists with
        // identical options, as mongos has since 4.0; before, it always failed.
        let idempotent = state.version >= ServerVersion::V7_0 || state.quirks.mongos;
        if !idempotent {
            let message = match existing.kind() {
                "view" => format!("A view already exists. NS: {ns}"),
                "timeseries" => format!("A timeseries collection already exists. NS: {ns}"),
                _ => format!("Collection {ns} already exists."),
            };
            return Err(CommandError::new(code::NAMESPACE_EXISTS, message));
        }
        if existing.kind() == built.collection.kind()
            && same_unordered(&existing.options(), &built.collection.options())
        {
            return Ok(ok());
        }
        // The server prints the stored options with the collection's uuid first.
        let mut shown = Document::new();
        if let Some(uuid) = existing
            .entry
            .get_document("info")
            .ok()
            .and_then(|i| i.get("uuid"))
        {
            shown.insert("uuid", uuid.clone());
        }
        shown.extend(existing.options());
        return Err(CommandError::new(
            code::NAMESPACE_EXISTS,
            format!(
                "namespace {}.{name} already exists, but with different options: {shown}",
                cx.db
            ),
        ));
    }
    if let Some(buckets) = built.buckets {
        state.put_collection(cx.db, buckets);
    }
    state.put_collection(cx.db, built.collection);
    Ok(ok())
}

/// A collection made by `create` (or implicitly by `createIndexes` / `insert`), and the
/// `system.buckets` collection a time-series one lists beside it under the quirk.
pub(crate) struct Built {
    pub(crate) collection: Collection,
    buckets: Option<Collection>,
}

/// The collection `create` would make with these options.
pub(crate) fn build(
    state: &State,
    db: &str,
    name: &str,
    requested: &Document,
    command: &str,
) -> Result<Built, CommandError> {
    check_namespace(db, name)?;
    for key in requested.keys() {
        if !CREATE_OPTIONS.contains(&key.as_str()) {
            return Err(unknown_field(command, key));
        }
    }
    let mut options = Document::new();
    for key in CREATE_OPTIONS {
        if let Some(value) = requested.get(*key) {
            options.insert(*key, value.clone());
        }
    }

    if requested.contains_key("timeseries") {
        // Source: create_command.cpp: only these options go with `timeseries`
        // (timeseries::kAllowedCollectionCreationOptions); `capped: false` is tolerated.
        const WITH_TIMESERIES: &[&str] = &[
            "timeseries",
            "expireAfterSeconds",
            "storageEngine",
            "indexOptionDefaults",
            "collation",
            "temp",
        ];
        for (key, value) in requested {
            let uncapped = key == "capped" && matches!(value, Bson::Boolean(false));
            if !WITH_TIMESERIES.contains(&key.as_str()) && !uncapped {
                return Err(CommandError::new(
                    code::INVALID_OPTIONS,
                    format!("{db}.{name}: 'timeseries' is not allowed with '{key}'"),
                ));
            }
        }
    }
    if let Some(validator) = options.get("validator").cloned() {
        let Bson::Document(validator) = validator else {
            return Err(wrong_type(command, "validator", &validator, "object"));
        };
        check_validator(state, db, name, &validator)?;
        if validator.is_empty() {
            // CollectionOptions::toBSON leaves an empty validator out.
            options.remove("validator");
        }
    }
    if let Some(level) = options.get("validationLevel") {
        check_enum(
            command,
            "validationLevel",
            level,
            &["off", "strict", "moderate"],
        )?;
    }
    if let Some(action) = options.get("validationAction") {
        check_enum(
            command,
            "validationAction",
            action,
            validation_actions(state.version),
        )?;
    }

    let is_view = options.contains_key("viewOn") || options.contains_key("pipeline");
    if is_view {
        return build_view(options, name, command);
    }

    let mut timeseries = None;
    if let Some(value) = options.get("timeseries").cloned() {
        let Bson::Document(requested_ts) = value else {
            return Err(wrong_type(command, "timeseries", &value, "object"));
        };
        let ts = timeseries_options(&requested_ts, state.version, db, name, command)?;
        options.insert("timeseries", ts.clone());
        timeseries = Some(ts);
    }

    let is_capped = options
        .get("capped")
        .is_some_and(|c| matches!(c, Bson::Boolean(true)) || number(c).is_some_and(|n| n != 0.0));
    if !is_capped && (options.contains_key("size") || options.contains_key("max")) {
        // Source: create_command.cpp.
        return Err(CommandError::new(
            code::INVALID_OPTIONS,
            "the 'capped' field needs to be true when either the 'size' or 'max' fields are present",
        ));
    }
    if let Some(capped) = options.get("capped") {
        if matches!(capped, Bson::Boolean(true)) || number(capped).is_some_and(|n| n != 0.0) {
            let size = options.get("size").and_then(number);
            if size.is_none_or(|s| s <= 0.0) {
                // Source: create_collection.cpp, "the 'size' field is required when 'capped' is true".
                return Err(CommandError::new(
                    code::INVALID_OPTIONS,
                    "the 'size' field is required when 'capped' is true",
                ));
            }
            options.insert("capped", true);
            if state.version < ServerVersion::new(6, 2) {
                // Source: SERVER-FACTS: before 6.2 the server rounds a capped size up to a
                // multiple of 256.
                let rounded = (size.unwrap_or_default() / 256.0).ceil() * 256.0;
                let stored = if rounded <= f64::from(i32::MAX) {
                    Bson::Int32(rounded as i32)
                } else {
                    Bson::Int64(rounded as i64)
                };
                options.insert("size", stored);
            }
        } else {
            options.remove("capped");
        }
    }

    let mut clustered = None;
    if let Some(value) = options.get("clusteredIndex").cloned() {
        let spec = clustered_index(&value)?;
        options.insert("clusteredIndex", spec.clone());
        clustered = Some(spec);
    }

    if let Some(value) = options.get("expireAfterSeconds").cloned() {
        if timeseries.is_none() && clustered.is_none() {
            // Source: create_command.cpp: collection-level TTL needs a clustered or
            // time-series collection.
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified",
            ));
        }
        let seconds = number(&value).filter(|n| *n >= 0.0).ok_or_else(|| {
            CommandError::new(
                code::INVALID_OPTIONS,
                "'expireAfterSeconds' must be a non-negative number",
            )
        })?;
        // Source: SERVER-FACTS: the collection's expireAfterSeconds is listed as Int64.
        options.insert("expireAfterSeconds", Bson::Int64(seconds as i64));
    }

    let collation = match options.get("collation").cloned() {
        Some(Bson::Document(requested)) => collation::expand(&requested)?,
        Some(other) => return Err(wrong_type(command, "collation", &other, "object")),
        None => None,
    };
    match &collation {
        Some(full) => {
            options.insert("collation", full.clone());
        }
        None => {
            options.remove("collation");
        }
    }
    if let Some(images) = options.get("changeStreamPreAndPostImages") {
        match images {
            Bson::Document(d) if matches!(d.get("enabled"), Some(Bson::Boolean(_))) => {}
            other => {
                return Err(wrong_type(
                    command,
                    "changeStreamPreAndPostImages",
                    other,
                    "object",
                ));
            }
        }
    }
    options.remove("idIndex");
    options.extend(state.quirks.unknown_collection_options.clone());
    for dropped in &state.quirks.dropped_collection_options {
        options.remove(dropped);
    }

    let uuid = Bson::from(Uuid::new());
    let (entry, indexes) = if let Some(ts) = &timeseries {
        let mut indexes = Vec::new();
        if let (Ok(meta), Ok(time)) = (ts.get_str("metaField"), ts.get_str("timeField")) {
            // Source: the manual's "Time Series: Indexes": from 6.3 the server creates a compound
            // index on the metaField and timeField.
            if state.version >= ServerVersion::V6_3 {
                let key = doc! {meta: 1, time: 1};
                indexes.push(IndexEntry {
                    spec: doc! {"v": 2, "key": key.clone(), "name": index::default_name(&key)},
                    build: None,
                });
            }
        }
        (
            doc! {"name": name, "type": "timeseries", "options": options.clone(), "info": {"readOnly": false}},
            indexes,
        )
    } else {
        let mut id_index = doc! {"v": 2, "key": {"_id": 1}, "name": "_id_"};
        if let Some(full) = &collation {
            id_index.insert("collation", full.clone());
        }
        let mut entry = doc! {"name": name, "type": "collection", "options": options.clone(), "info": {"readOnly": false, "uuid": uuid}};
        let listed_id = match &clustered {
            Some(spec) => {
                let mut listed = spec.clone();
                listed.insert("clustered", true);
                listed
            }
            None => {
                entry.insert("idIndex", id_index.clone());
                id_index
            }
        };
        (
            entry,
            vec![IndexEntry {
                spec: listed_id,
                build: None,
            }],
        )
    };
    let buckets = match &timeseries {
        Some(ts) if state.quirks.list_buckets_collections => {
            // Source: create_collection.cpp `_createTimeseries`: the buckets collection carries a
            // structural `$jsonSchema` validator, `clusteredIndex: true` and the time-series options.
            let time = ts.get_str("timeField").unwrap_or("t");
            let bound = doc! {"bsonType": "object", "required": [time], "properties": {time: {"bsonType": "date"}}};
            let validator = doc! {"$jsonSchema": {
                "bsonType": "object",
                "required": ["_id", "control", "data"],
                "properties": {
                    "_id": {"bsonType": "objectId"},
                    "control": {
                        "bsonType": "object",
                        "required": ["version", "min", "max"],
                        "properties": {
                            "version": {"bsonType": "number"},
                            "min": bound.clone(),
                            "max": bound,
                            "closed": {"bsonType": "bool"},
                        },
                    },
                    "data": {"bsonType": "object"},
                    "meta": {},
                },
                "additionalProperties": false,
            }};
            let mut bucket_options =
                doc! {"validator": validator, "clusteredIndex": true, "timeseries": ts.clone()};
            if let Some(ttl) = options.get("expireAfterSeconds") {
                bucket_options.insert("expireAfterSeconds", ttl.clone());
            }
            Collection::from_entry(doc! {
                "name": format!("system.buckets.{name}"),
                "type": "collection",
                "options": bucket_options,
                "info": {"readOnly": false, "uuid": Bson::from(Uuid::new())},
            })
        }
        _ => None,
    };
    let mut collection = Collection::from_entry(entry).expect("the entry was built with a name");
    collection.indexes = indexes;
    Ok(Built {
        collection,
        buckets,
    })
}

fn build_view(options: Document, name: &str, command: &str) -> Result<Built, CommandError> {
    let view_on = match options.get("viewOn") {
        Some(Bson::String(on)) => on.clone(),
        Some(other) => return Err(wrong_type(command, "viewOn", other, "string")),
        None => {
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "'pipeline' requires 'viewOn' to also be specified",
            ));
        }
    };
    let pipeline = match options.get("pipeline") {
        Some(Bson::Array(p)) => p.clone(),
        Some(other) => return Err(wrong_type(command, "pipeline", other, "array")),
        None => Vec::new(),
    };
    let entry = doc! {
        "name": name,
        "type": "view",
        "options": {"viewOn": view_on, "pipeline": pipeline},
        "info": {"readOnly": true},
    };
    Ok(Built {
        collection: Collection::from_entry(entry).expect("the entry was built with a name"),
        buckets: None,
    })
}

/// Source: the manual's "Naming Restrictions": a collection name is non-empty, has no `$` and no
/// NUL; InvalidNamespace (73) otherwise.
fn check_namespace(db: &str, name: &str) -> Result<(), CommandError> {
    if name.is_empty() || name.contains('$') || name.contains('\0') || name.starts_with('.') {
        return Err(CommandError::new(
            code::INVALID_NAMESPACE,
            format!("Invalid collection name: {db}.{name}"),
        ));
    }
    Ok(())
}

/// `validationAction` values by release: `errorAndLog` arrived in 8.1.
fn validation_actions(version: ServerVersion) -> &'static [&'static str] {
    if version >= ServerVersion::V8_1 {
        &["error", "warn", "errorAndLog"]
    } else {
        &["error", "warn"]
    }
}

/// Source: IDL enum parsing: "Enumeration value 'x' for field 'create.validationLevel' is not a
/// valid value." (BadValue, 2).
fn check_enum(
    command: &str,
    field: &str,
    value: &Bson,
    allowed: &[&str],
) -> Result<(), CommandError> {
    match value {
        Bson::String(s) if allowed.contains(&s.as_str()) => Ok(()),
        Bson::String(s) => Err(CommandError::new(
            code::BAD_VALUE,
            format!("Enumeration value '{s}' for field '{command}.{field}' is not a valid value."),
        )),
        other => Err(wrong_type(command, field, other, "string")),
    }
}

/// Source: SERVER-FACTS (validators are refused in admin, local and config and on system.*
/// collections: InvalidOptions 72; `$text`, `$where`, `$near`, `$nearSphere`, `$geoNear` are
/// refused inside a validator: QueryFeatureNotAllowed 224), and the `$jsonSchema` parser (FailedToParse 9).
fn check_validator(
    state: &State,
    db: &str,
    name: &str,
    validator: &Document,
) -> Result<(), CommandError> {
    if validator.is_empty() {
        return Ok(());
    }
    if ["admin", "local", "config"].contains(&db) {
        return Err(CommandError::new(
            code::INVALID_OPTIONS,
            format!("Document validators are not allowed on collections in the {db} database"),
        ));
    }
    if name.starts_with("system.") {
        return Err(CommandError::new(
            code::INVALID_OPTIONS,
            format!("Document validators not allowed on system collection {db}.{name}"),
        ));
    }
    check_filter_features(state, validator)
}

fn check_filter_features(state: &State, filter: &Document) -> Result<(), CommandError> {
    for (key, value) in filter {
        if ["$text", "$where", "$near", "$nearSphere", "$geoNear"].contains(&key.as_str()) {
            return Err(CommandError::new(
                224,
                format!("{key} is not allowed in this context"),
            ));
        }
        if key == "$jsonSchema" {
            if let (Bson::Document(schema), Some(evaluator)) = (value, &state.evaluator) {
                evaluator
                    .check(schema)
                    .map_err(|m| CommandError::new(code::FAILED_TO_PARSE, m))?;
            }
            continue;
        }
        match value {
            Bson::Document(inner) => check_filter_features(state, inner)?,
            Bson::Array(items) => {
                for item in items {
                    if let Bson::Document(inner) = item {
                        check_filter_features(state, inner)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The default `bucketMaxSpanSeconds` of a granularity.
///
/// Source: the manual's "Time Series Granularity": 3600 for seconds, 86400 for minutes, 2592000
/// for hours.
fn default_max_span(granularity: &str) -> i32 {
    match granularity {
        "minutes" => 86_400,
        "hours" => 2_592_000,
        _ => 3_600,
    }
}

/// Source: the manual's `create` page (`timeseries` fields) and "Time Series Granularity":
/// `timeField` is required; `granularity` defaults to "seconds" and fills `bucketMaxSpanSeconds`;
/// from 6.3 custom bucketing sets `bucketMaxSpanSeconds` and `bucketRoundingSeconds` together and
/// equal, without `granularity`.
fn timeseries_options(
    requested: &Document,
    version: ServerVersion,
    db: &str,
    name: &str,
    command: &str,
) -> Result<Document, CommandError> {
    const FIELDS: &[&str] = &[
        "timeField",
        "metaField",
        "granularity",
        "bucketMaxSpanSeconds",
        "bucketRoundingSeconds",
    ];
    for key in requested.keys() {
        if !FIELDS.contains(&key.as_str()) {
            return Err(unknown_field(&format!("{command}.timeseries"), key));
        }
    }
    let time_field = match requested.get("timeField") {
        Some(Bson::String(t)) => t.clone(),
        Some(other) => {
            return Err(wrong_type(
                &format!("{command}.timeseries"),
                "timeField",
                other,
                "string",
            ));
        }
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                format!(
                    "BSON field '{command}.timeseries.timeField' is missing but a required field"
                ),
            ));
        }
    };
    // Source: create_command.cpp: both fields top-level, metaField neither `_id` nor the timeField.
    let top_level = |field: &str| {
        CommandError::new(
            code::INVALID_OPTIONS,
            format!("{db}.{name}: '{field}' must be a top-level field and not contain a '.'"),
        )
    };
    if time_field.contains('.') {
        return Err(top_level("timeField"));
    }
    let mut stored = doc! {"timeField": time_field.as_str()};
    match requested.get("metaField") {
        Some(Bson::String(meta)) if meta == "_id" => {
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "'metaField' cannot be \"_id\"",
            ));
        }
        Some(Bson::String(meta)) if *meta == time_field => {
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "'metaField' cannot be the same as 'timeField'",
            ));
        }
        Some(Bson::String(meta)) if meta.contains('.') => return Err(top_level("metaField")),
        Some(Bson::String(meta)) => {
            stored.insert("metaField", meta.as_str());
        }
        Some(other) => {
            return Err(wrong_type(
                &format!("{command}.timeseries"),
                "metaField",
                other,
                "string",
            ));
        }
        None => {}
    }
    let span = requested
        .get("bucketMaxSpanSeconds")
        .map(|v| number(v).unwrap_or(-1.0));
    let rounding = requested
        .get("bucketRoundingSeconds")
        .map(|v| number(v).unwrap_or(-1.0));
    for value in [span, rounding].into_iter().flatten() {
        if !(1.0..=31_536_000.0).contains(&value) {
            return Err(CommandError::new(
                code::INVALID_OPTIONS,
                "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' must be between 1 and 31536000",
            ));
        }
    }
    match requested.get("granularity") {
        Some(value) => {
            check_enum(
                &format!("{command}.timeseries"),
                "granularity",
                value,
                &["seconds", "minutes", "hours"],
            )?;
            let granularity = value.as_str().unwrap_or("seconds");
            let default = default_max_span(granularity);
            if span.is_some_and(|s| s != f64::from(default)) || rounding.is_some() {
                return Err(CommandError::new(
                    code::INVALID_OPTIONS,
                    format!(
                        "Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default of {default} for the provided granularity"
                    ),
                ));
            }
            stored.insert("granularity", granularity);
            stored.insert("bucketMaxSpanSeconds", default);
        }
        None if span.is_some() || rounding.is_some() => {
            if version < ServerVersion::V6_3 || span != rounding {
                return Err(CommandError::new(
                    code::INVALID_OPTIONS,
                    "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' fields must be present together and must be equal",
                ));
            }
            let seconds = span.unwrap_or(3_600.0) as i32;
            stored.insert("bucketRoundingSeconds", seconds);
            stored.insert("bucketMaxSpanSeconds", seconds);
        }
        None => {
            stored.insert("granularity", "seconds");
            stored.insert("bucketMaxSpanSeconds", 3_600);
        }
    }
    Ok(stored)
}

/// Source: the manual's "Clustered Collections": `clusteredIndex: {key: {_id: 1}, unique: true,
/// name?}`, listed as `{v: 2, key: {_id: 1}, name: "_id_", unique: true}`; the errors are
/// create_collection.cpp's `validateClusteredIndexSpec` (5979700 for unique, 5979701 for the key).
fn clustered_index(value: &Bson) -> Result<Document, CommandError> {
    let spec = match value {
        Bson::Boolean(true) => doc! {"key": {"_id": 1}, "unique": true},
        Bson::Document(d) => d.clone(),
        other => return Err(wrong_type("create", "clusteredIndex", other, "object")),
    };
    let key_ok = spec
        .get_document("key")
        .is_ok_and(|k| k.len() == 1 && k.get("_id").and_then(number) == Some(1.0));
    if !key_ok {
        return Err(CommandError::new(
            5_979_701,
            "The clusteredIndex option is only supported for key: {_id: 1}",
        ));
    }
    if !matches!(spec.get("unique"), Some(Bson::Boolean(true))) {
        return Err(CommandError::new(
            5_979_700,
            "The clusteredIndex option requires unique: true to be specified",
        ));
    }
    let name = spec.get_str("name").unwrap_or("_id_");
    Ok(doc! {"v": 2, "key": {"_id": 1}, "name": name, "unique": true})
}

/// Source: the manual's `collMod` page: validator, validationLevel, validationAction, index
/// (`expireAfterSeconds`, `hidden`, `prepareUnique`, `unique`) by name or keyPattern, collection
/// `expireAfterSeconds`, time-series granularity (upward only), changeStreamPreAndPostImages,
/// cappedSize/cappedMax; NamespaceNotFound (26) for a missing collection.
pub(crate) fn coll_mod(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let version = state.version;
    let quirks = state.quirks.clone();
    let arguments: Vec<(String, Bson)> = cx
        .arguments()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (key, value) in &arguments {
        if key == "validator" {
            let Bson::Document(validator) = value else {
                return Err(wrong_type("collMod", "validator", value, "object"));
            };
            check_validator(state, cx.db, &name, validator)?;
        }
    }
    let ns = format!("{}.{name}", cx.db);
    let Some(collection) = state.collection_mut(cx.db, &name) else {
        return Err(CommandError::new(
            code::NAMESPACE_NOT_FOUND,
            format!("ns does not exist: {ns}"),
        ));
    };
    // Work on a copy so a failing field leaves the collection untouched.
    let mut updated = collection.clone();
    let mut reply = Document::new();
    for (key, value) in &arguments {
        match key.as_str() {
            "validator" => {
                if updated.kind() == "timeseries" {
                    return Err(CommandError::new(
                        code::INVALID_OPTIONS,
                        "Time-series collections may not specify a validator",
                    ));
                }
                let empty = value.as_document().is_some_and(Document::is_empty);
                updated.set_option("validator", (!empty).then(|| value.clone()));
            }
            "validationLevel" => {
                check_enum("collMod", key, value, &["off", "strict", "moderate"])?;
                updated.set_option(key, Some(value.clone()));
            }
            "validationAction" => {
                check_enum("collMod", key, value, validation_actions(version))?;
                updated.set_option(key, Some(value.clone()));
            }
            "index" => {
                let Bson::Document(change) = value else {
                    return Err(wrong_type("collMod", "index", value, "object"));
                };
                reply.extend(index::coll_mod_index(&mut updated, change, &ns, &quirks)?);
            }
            "expireAfterSeconds" => {
                let options = updated.options();
                if !options.contains_key("timeseries") && !options.contains_key("clusteredIndex") {
                    return Err(CommandError::new(
                        code::INVALID_OPTIONS,
                        "'expireAfterSeconds' option is only supported on time-series and clustered collections",
                    ));
                }
                match value {
                    Bson::String(off) if off == "off" => updated.set_option(key, None),
                    other => {
                        let seconds = number(other).filter(|n| *n >= 0.0).ok_or_else(|| {
                            CommandError::new(
                                code::INVALID_OPTIONS,
                                "'expireAfterSeconds' must be a non-negative number or 'off'",
                            )
                        })?;
                        updated.set_option(key, Some(Bson::Int64(seconds as i64)));
                    }
                }
            }
            "timeseries" => {
                let Bson::Document(change) = value else {
                    return Err(wrong_type("collMod", "timeseries", value, "object"));
                };
                let mut ts = updated
                    .options()
                    .get_document("timeseries")
                    .cloned()
                    .map_err(|_| {
                        CommandError::new(
                            code::INVALID_OPTIONS,
                            "option only valid on a time-series collection: timeseries",
                        )
                    })?;
                if let Some(granularity) = change.get("granularity") {
                    check_enum(
                        "collMod.timeseries",
                        "granularity",
                        granularity,
                        &["seconds", "minutes", "hours"],
                    )?;
                    let rank =
                        |g: &str| ["seconds", "minutes", "hours"].iter().position(|x| *x == g);
                    let new = granularity.as_str().unwrap_or("seconds");
                    let old = ts.get_str("granularity").unwrap_or("seconds");
                    if rank(new) < rank(old) {
                        // Source: the manual's collMod page: granularity can only increase.
                        return Err(CommandError::new(
                            code::INVALID_OPTIONS,
                            "Invalid transition for timeseries.granularity. Can only transition from 'seconds' to 'minutes' or 'minutes' to 'hours'.",
                        ));
                    }
                    ts.insert("granularity", new);
                    ts.insert("bucketMaxSpanSeconds", default_max_span(new));
                }
                updated.set_option("timeseries", Some(Bson::Document(ts)));
            }
            "changeStreamPreAndPostImages" => updated.set_option(key, Some(value.clone())),
            "cappedSize" | "cappedMax" => {
                if !updated.options().contains_key("capped") {
                    return Err(CommandError::new(
                        code::INVALID_OPTIONS,
                        format!("{key} is only supported on capped collections"),
                    ));
                }
                let field = if key == "cappedSize" { "size" } else { "max" };
                updated.set_option(field, Some(value.clone()));
            }
            "viewOn" | "pipeline" if updated.kind() == "view" => {
                updated.set_option(key, Some(value.clone()));
            }
            "dryRun" | "collectionUUID" => {}
            other => return Err(unknown_field("collMod", other)),
        }
    }
    *collection = updated;
    let dry_run = cx.flag("dryRun");
    for (_, change) in arguments
        .iter()
        .filter(|(key, _)| key == "index" && !dry_run)
    {
        if let Bson::Document(change) = change {
            super::index_stats::reset(state, cx.db, &name, change);
        }
    }
    reply.insert("ok", 1.0);
    Ok(reply)
}

/// Source: the manual's `drop` page: `{ns, nIndexesWas, ok}`; from 7.0 dropping a missing
/// collection succeeds, before it failed with NamespaceNotFound (26) "ns not found".
pub(crate) fn drop(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let name = cx.collection_name()?;
    let Some(removed) = state.remove_collection(cx.db, &name) else {
        if state.version >= ServerVersion::V7_0 {
            return Ok(ok());
        }
        return Err(CommandError::new(code::NAMESPACE_NOT_FOUND, "ns not found"));
    };
    state.remove_collection(cx.db, &format!("system.buckets.{name}"));
    let ns = format!("{}.{name}", cx.db);
    state.cursors.retain(|_, cursor| cursor.ns != ns);
    Ok(doc! {"nIndexesWas": removed.indexes.len() as i32, "ns": ns, "ok": 1.0})
}

/// Source: the manual's `dropDatabase` page.
pub(crate) fn drop_database(state: &mut State, cx: &Context<'_>) -> Document {
    state.databases.remove(cx.db);
    ok()
}

/// Whether `doc` passes the collection's validator; `Err` carries the writeError's `errInfo`.
///
/// Source: the manual's "Schema Validation": level `off` skips validation; from 5.0 a rejection
/// explains itself in `errInfo: {failingDocumentId, details}`. Without a
/// [`SchemaEvaluator`](crate::SchemaEvaluator) a `$jsonSchema` validator is not applied.
pub(crate) fn validate(
    state: &State,
    collection: &Collection,
    doc: &Document,
) -> Result<(), Option<Document>> {
    let options = collection.options();
    let Ok(validator) = options.get_document("validator") else {
        return Ok(());
    };
    if options.get_str("validationLevel").ok() == Some("off")
        || options.get_str("validationAction").ok() == Some("warn")
    {
        return Ok(());
    }
    let evaluator = state.evaluator.as_deref();
    let uses_schema = validator.contains_key("$jsonSchema");
    if uses_schema && evaluator.is_none() {
        return Ok(());
    }
    if validator.len() == 1
        && let (Ok(schema), Some(evaluator)) = (validator.get_document("$jsonSchema"), evaluator)
    {
        return evaluator.evaluate(schema, doc).map_err(|details| {
            Some(doc! {
                "failingDocumentId": doc.get("_id").cloned().unwrap_or(Bson::Null),
                "details": details,
            })
        });
    }
    match matcher::matches(validator, doc, evaluator) {
        Ok(true) => Ok(()),
        _ => Err(Some(doc! {
            "failingDocumentId": doc.get("_id").cloned().unwrap_or(Bson::Null),
            "details": {"operatorName": "$and"},
        })),
    }
}
