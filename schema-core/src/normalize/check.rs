//! The "server would refuse" check of a whole declaration ([`CollectionSpec::check`]). It sits
//! above the model because one of its rules, two indexes of one identity, compares the
//! declared indexes in canonical form under the equivalence rules of `normalize`.

use bson::{Bson, Document};

use crate::spec::{CollectionSpec, MAX_INDEXES, SpecError};

impl CollectionSpec {
    /// Checks the combinations the server refuses, with the server's reason: every index
    /// ([`IndexSpec::check`](crate::spec::IndexSpec::check)), two text indexes, more than 64 indexes (`_id_` counted), two
    /// indexes with the same name, a validator on a time-series collection, and more.
    ///
    /// # Errors
    /// The first [`SpecError`] found.
    pub fn check(&self) -> Result<(), SpecError> {
        let ns = self.name.clone();
        if self.name.is_empty() || self.name.contains('\0') || self.name.starts_with('$') {
            return Err(SpecError::InvalidCollection {
                collection: ns,
                reason: "collection names must be non-empty, without '$' first or a null byte"
                    .into(),
            });
        }
        if let Some(view) = &self.options.view {
            check_view(self, view)?;
        }
        if self.options.timeseries.is_some() && self.validator.is_some() {
            return Err(SpecError::ValidatorOnTimeseries { collection: ns });
        }
        if self.validator.is_some() && self.name.starts_with("system.") {
            return Err(SpecError::InvalidCollection {
                collection: ns,
                reason: "Document validators not allowed on system collection".into(),
            });
        }
        // The server parses a validator as a query, and its `$jsonSchema` with the schema parser
        // (src/mongo/db/matcher/schema/json_schema_parser.cpp): `format`, `$ref`, `const` or
        // `type: "integer"` fail `create` and `collMod` with FailedToParse, so a declaration
        // using them can never be in sync with anything.
        if let Some(validator) = &self.validator
            && let Some(Bson::Document(schema)) = validator.to_document().get("$jsonSchema")
            && let Err(source) = crate::schema::JsonSchema::from_document(schema)
        {
            return Err(SpecError::InvalidValidator {
                collection: ns,
                source,
            });
        }
        if let Some(validator) = &self.validator
            && let Some(op) = forbidden_validator_operator(&validator.to_document())
        {
            return Err(SpecError::InvalidCollection {
                collection: ns,
                reason: format!("{op} is not allowed inside of a document validator"),
            });
        }
        for collation in self
            .options
            .collation
            .iter()
            .chain(self.indexes.iter().filter_map(|i| i.collation.as_ref()))
        {
            collation.check(&ns)?;
        }
        if self.options.timeseries.is_some() && self.options.capped.is_some() {
            return Err(SpecError::InvalidCollection {
                collection: ns,
                reason: "Time-series collections cannot be capped".into(),
            });
        }
        if self.options.clustered_index.is_some() && self.options.capped.is_some() {
            return Err(SpecError::InvalidCollection {
                collection: ns,
                reason: "Clustered collections cannot be capped".into(),
            });
        }
        if self.options.expire_after_seconds.is_some()
            && self.options.timeseries.is_none()
            && self.options.clustered_index.is_none()
        {
            return Err(SpecError::InvalidCollection {
                collection: ns,
                reason: "'expireAfterSeconds' is only supported on time-series and clustered collections"
                    .into(),
            });
        }
        if let Some(ts) = &self.options.timeseries {
            ts.check(&ns)?;
        }
        if let Some(capped) = &self.options.capped
            && capped.size <= 0
        {
            return Err(SpecError::InvalidCollection {
                collection: ns,
                reason: "a capped collection needs a positive 'size'".into(),
            });
        }
        let count = self.indexes.iter().filter(|i| !i.is_id()).count();
        if count + 1 > MAX_INDEXES {
            return Err(SpecError::TooManyIndexes {
                collection: ns,
                count: count + 1,
            });
        }
        let mut text: Option<String> = None;
        let mut names: Vec<String> = Vec::new();
        for index in &self.indexes {
            index.check(&ns)?;
            let name = index.effective_name();
            if names.contains(&name) {
                return Err(SpecError::DuplicateIndexName {
                    collection: ns,
                    index: name,
                });
            }
            if index.keys.is_text() {
                if let Some(first) = text {
                    return Err(SpecError::MultipleTextIndexes {
                        collection: ns,
                        first,
                        second: name,
                    });
                }
                text = Some(name.clone());
            }
            names.push(name);
        }
        let canonical = super::declared(self);
        for (i, a) in canonical.indexes.iter().enumerate() {
            if let Some(b) = canonical.indexes[i + 1..]
                .iter()
                .find(|b| super::equivalence::same_identity_exact(a, b))
            {
                return Err(SpecError::DuplicateIndex {
                    collection: ns,
                    first: a.effective_name(),
                    second: b.effective_name(),
                });
            }
        }
        if let Some(key) = &self.shard_key {
            key.check(&ns)?;
        }
        crate::spec::search::check_all(&ns, &self.search_indexes)?;
        Ok(())
    }
}

/// The first query operator the server refuses inside a validator (`$text`, `$where`, `$near`,
/// `$nearSphere`, `$geoNear`), searched outside `$jsonSchema`.
fn forbidden_validator_operator(doc: &Document) -> Option<String> {
    const FORBIDDEN: [&str; 5] = ["$text", "$where", "$near", "$nearSphere", "$geoNear"];
    fn walk(value: &Bson) -> Option<String> {
        match value {
            Bson::Document(d) => d.iter().find_map(|(k, v)| {
                if FORBIDDEN.contains(&k.as_str()) {
                    Some(k.clone())
                } else if k == "$jsonSchema" {
                    None
                } else {
                    walk(v)
                }
            }),
            Bson::Array(items) => items.iter().find_map(walk),
            _ => None,
        }
    }
    walk(&Bson::Document(doc.clone()))
}

/// What a view cannot have beside its definition. `db.createView` takes a source, a pipeline
/// and a collation only (<https://www.mongodb.com/docs/manual/reference/method/db.createView/>),
/// and a view has no indexes of its own: reads through it use the source's ("Views",
/// <https://www.mongodb.com/docs/manual/core/views/>).
pub(crate) fn check_view(spec: &CollectionSpec, view: &crate::spec::View) -> Result<(), SpecError> {
    let ns = spec.name.as_str();
    view.check(ns)?;
    let options = &spec.options;
    let refused = [
        ("validator", spec.validator.is_some()),
        ("validationLevel", spec.validation_level.is_some()),
        ("validationAction", spec.validation_action.is_some()),
        ("timeseries", options.timeseries.is_some()),
        ("expireAfterSeconds", options.expire_after_seconds.is_some()),
        ("capped", options.capped.is_some()),
        ("clusteredIndex", options.clustered_index.is_some()),
        (
            "changeStreamPreAndPostImages",
            options.change_stream_pre_and_post_images.is_some(),
        ),
        ("indexes", !spec.indexes.is_empty()),
        ("shardKey", spec.shard_key.is_some()),
    ];
    if let Some((option, _)) = refused.iter().find(|(_, set)| *set) {
        return Err(SpecError::InvalidCollection {
            collection: ns.to_owned(),
            reason: format!(
                "a view takes only viewOn, pipeline and collation; it cannot have {option}"
            ),
        });
    }
    Ok(())
}
