//! The validator option: `$jsonSchema` as IR beside the other query operators, as declared,
//! read from a manifest or a live catalog, and parsed with the server's rules.

use bson::{Bson, Document};

use crate::schema::JsonSchema;
use crate::schema::parse::{ParseError, TYPE_MISMATCH};

/// A collection validator: `$jsonSchema` as IR, plus any other query operators.
///
/// A validator that the IR cannot hold (a `$jsonSchema` nested in `$and`, or one the parser
/// refuses) keeps its whole text in [`ValidatorSpec::query`]; comparison works on documents either way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidatorSpec {
    /// The top-level `$jsonSchema`, parsed.
    pub json_schema: Option<JsonSchema>,
    /// Every other top-level field of the validator, verbatim (`{"status": {"$in": [...]}}`).
    pub query: Document,
}

impl ValidatorSpec {
    /// The validator `{$jsonSchema: schema}`.
    pub fn json_schema(schema: JsonSchema) -> ValidatorSpec {
        ValidatorSpec {
            json_schema: Some(schema),
            query: Document::new(),
        }
    }

    /// A validator made of query operators only.
    pub fn query(query: Document) -> ValidatorSpec {
        ValidatorSpec {
            json_schema: None,
            query,
        }
    }

    /// The validator as the `validator` option: `$jsonSchema` first, then the query fields.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        if let Some(schema) = &self.json_schema {
            d.insert("$jsonSchema", schema.to_document());
        }
        for (k, v) in &self.query {
            d.insert(k.clone(), v.clone());
        }
        d
    }

    /// Reads a `validator` document. The `$jsonSchema` stays in [`ValidatorSpec::query`] as read, so
    /// nothing is lost whatever the writer put there; `diff` compares validators as documents
    /// with the server's equivalences.
    pub fn from_document(doc: &Document) -> ValidatorSpec {
        ValidatorSpec::query(doc.clone())
    }

    /// Parses the validator with the server's rules: the `$jsonSchema` as IR (for the evaluator
    /// and lints), every other top-level entry in [`ValidatorSpec::query`].
    ///
    /// ```
    /// use mongo_schema::spec::ValidatorSpec;
    /// let v = ValidatorSpec::from_document(&bson::doc! { "$jsonSchema": { "required": ["a"] } });
    /// let parsed = v.parse()?;
    /// assert_eq!(parsed.json_schema.unwrap().required, Some(vec!["a".to_owned()]));
    /// # Ok::<(), mongo_schema::schema::parse::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// The first [`ParseError`], as the server reports it.
    pub fn parse(&self) -> Result<ValidatorSpec, ParseError> {
        ValidatorSpec::parse_document(&self.to_document())
    }

    /// Parses a collection's `validator` option as the server reads it: a query document.
    ///
    /// Its `$jsonSchema` entry, if any, is parsed as the server parses `$jsonSchema`; every
    /// other top-level entry lands in [`ValidatorSpec::query`], which the local evaluator does
    /// not evaluate (it reports them, never drops them silently). A document without
    /// `$jsonSchema` is a query and nothing else (`{bsonType: "object"}` there is an equality
    /// on a field named `bsonType`, as the server reads it), so it is not evaluated at all.
    ///
    /// ```
    /// use mongo_schema::spec::ValidatorSpec;
    /// let v = ValidatorSpec::parse_document(&bson::doc! {
    ///     "$jsonSchema": { "required": ["a"] },
    ///     "$expr": { "$gt": ["$a", 1] },
    /// })?;
    /// assert!(v.json_schema.is_some());
    /// assert_eq!(v.query.keys().collect::<Vec<_>>(), ["$expr"]);
    /// # Ok::<(), mongo_schema::schema::parse::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// The first [`ParseError`] of the `$jsonSchema`, as the server would report it.
    pub fn parse_document(validator: &Document) -> Result<ValidatorSpec, ParseError> {
        let Some(value) = validator.get("$jsonSchema") else {
            return Ok(ValidatorSpec::query(validator.clone()));
        };
        let Bson::Document(schema) = value else {
            return Err(ParseError::InvalidKeyword {
                path: "$jsonSchema".to_owned(),
                code: TYPE_MISMATCH,
                reason: "$jsonSchema must be an object".to_owned(),
            });
        };
        let mut rest = validator.clone();
        rest.remove("$jsonSchema");
        Ok(ValidatorSpec {
            json_schema: Some(JsonSchema::from_document(schema)?),
            query: rest,
        })
    }

    /// Parses a schema as a file holds one: a bare `$jsonSchema`, or `{"$jsonSchema": {...}}`
    /// with any query operators beside it given explicitly (read as
    /// [`ValidatorSpec::parse_document`] does).
    ///
    /// A document without `$jsonSchema` is a schema, so every key must be a schema keyword: a
    /// misspelt one (`propertes`) or a query operator (`$or`) is the server's "Unknown
    /// $jsonSchema keyword", never a validator that accepts everything.
    ///
    /// ```
    /// use mongo_schema::spec::ValidatorSpec;
    /// let err = ValidatorSpec::parse_schema(&bson::doc! {
    ///     "bsonType": "object", "required": ["a"], "propertes": { "a": {} },
    /// })
    /// .unwrap_err();
    /// assert_eq!(err.to_string(), "propertes: Unknown $jsonSchema keyword: propertes");
    /// ```
    ///
    /// # Errors
    /// The first [`ParseError`] of the schema, as the server would report it.
    pub fn parse_schema(document: &Document) -> Result<ValidatorSpec, ParseError> {
        if document.contains_key("$jsonSchema") {
            return ValidatorSpec::parse_document(document);
        }
        Ok(ValidatorSpec::json_schema(JsonSchema::from_document(
            document,
        )?))
    }
}
