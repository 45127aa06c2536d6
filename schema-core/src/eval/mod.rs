//! The local evaluator: compiles a `$jsonSchema` once and checks raw BSON documents with the
//! server's verdicts and explanations.
//!
//! ```
//! use mongo_schema::eval::Validator;
//!
//! let validator = Validator::from_document(&bson::doc! {
//!     "$jsonSchema": {
//!         "bsonType": "object",
//!         "required": ["items"],
//!         "properties": {
//!             "items": {
//!                 "bsonType": "array",
//!                 "items": { "properties": { "qty": { "bsonType": "int", "minimum": 1 } } },
//!             },
//!         },
//!     },
//! })?;
//! let good = bson::rawdoc! { "items": [{ "qty": 2 }] };
//! assert!(validator.is_valid(&good));
//!
//! let bad = bson::rawdoc! { "items": [{ "qty": 2 }, { "qty": 0 }] };
//! let verdict = validator.evaluate(&bad);
//! assert!(!verdict.is_valid());
//! assert_eq!(verdict.summaries(), ["items.1.qty: 0 is less than the minimum 1"]);
//! let details = verdict.details().expect("rejected documents have details");
//! assert_eq!(details.get_str("operatorName")?, "$jsonSchema");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! How it works: [`Validator::new`] compiles the IR into a tree of nodes (type bitmasks, decoded
//! bounds, PCRE2 patterns compiled once (the server's 10.42, no JIT), enum members as raw BSON, property names in a
//! slot table that is hashed for objects naming more than a dozen properties). [`Validator::is_valid`]
//! walks the document's bytes with a small bounds-checked reader of its own, touching each
//! element once and allocating nothing for ordinary schemas. Only a rejected document takes the
//! slow path ([`Validator::evaluate`]), which rebuilds the server's `errInfo.details`.
//!
//! Semantics follow the server (see `shared/SERVER-FACTS.md`): keywords that do not apply to a
//! value's type pass, nothing traverses arrays implicitly, the top level is an object (a root
//! `type` without `object` never matches), `_id` counts like any field, `enum`/`uniqueItems`
//! compare documents ignoring field order at every depth (arrays ordered) and numbers by value
//! across int/long/double/decimal, a missing field is not null, lengths count code points,
//! `patternProperties` applies to names listed in `properties` too, and `items: []` with
//! `additionalItems: false` forbids every element. A field that appears twice is checked against
//! `properties` at its first occurrence, as the server reads it. A dotted name in `properties`,
//! `required` or `dependencies` is a path through embedded documents, as the server's parser
//! makes it (see `paths.rs`); where such a path crosses an array the verdict is left open.
//!
//! Verdicts: valid, rejected (with `errInfo.details`), or not fully checked: the schema passed
//! but validator entries beside `$jsonSchema` were not evaluated, or a dotted path crossed an
//! array. [`Verdict::is_valid`] is true only for the first.
//!
//! Patterns (`pattern`, `patternProperties` names) run on PCRE2 10.42, the engine the server
//! uses since 6.1, compiled with the options the server uses: `PCRE2_UTF` and no flags for
//! `pattern`, no options at all for `patternProperties` names (bytes, not code points):
//! unanchored and case-sensitive; `$` also matches before a final newline; `.` does not match
//! `\n`; `\d`, `\w`, `\s` and POSIX classes are ASCII-only (no `PCRE2_UCP`); inline flags
//! (`(?i)`, `(?s)`, `(?m)`, `(?x)`), lookaround, backreferences, atomic groups, possessive and
//! lazy quantifiers and `\p{..}` properties all work. Every pattern PCRE2 accepts is supported;
//! one it rejects (or one holding a NUL byte) is a [`ParseError`] with its path. A subject that is
//! not valid UTF-8 never matches. Anchored patterns made of classes and counted quantifiers
//! (`^[A-Z]{3}-[0-9]{4}$`) also get a backtracking-free matcher for ASCII subjects, used only
//! where it provably gives PCRE2's answer.
//!
//! Limits: nesting deeper than [`MAX_DEPTH`] (100, the server's limit for stored documents) is
//! malformed for [`Validator::validate_bytes`].
//!
//! `encrypt` requires binData subtype 6; `encrypt.bsonType` also requires the payload's FLE blob
//! header to be a client-side (FLE1) one, blob subtype 1 or 2, whose original-type byte (offset
//! 17, after the blob subtype and the 16-byte key id) is one of the named types (`number` counts
//! int, long, double and decimal). A shorter payload or another blob subtype is rejected ("encrypted
//! value has wrong type"), as on the server; where the server does not know the blob subtype at
//! all it fails the write with an error instead, which refuses the document just the same.
//!
//! Numbers: int/long/double comparisons are exact; decimal128 is decoded from its bits and
//! compared exactly with ints, longs, other decimals and doubles (the server's
//! `compareDecimalToDouble` gives the exact order; no side is rounded first); `multipleOf`
//! computes the decimal remainder
//! exactly after converting doubles to 15 significant digits (as the server's `numberDecimal()`).

mod check;
mod compile;
mod explain;
mod paths;

use bson::{Document, RawDocument};

pub use crate::value::raw::{MAX_DEPTH, MalformedBson};

/// Checks that `bytes` is exactly one well-formed BSON document (lengths, terminators, known
/// element types, UTF-8, booleans, nesting at most [`MAX_DEPTH`]), as [`Validator::validate_bytes`]
/// does before evaluating.
///
/// # Errors
/// [`MalformedBson`] with the byte offset where the input stops being BSON.
pub fn check_bson(bytes: &[u8]) -> Result<(), MalformedBson> {
    crate::value::raw::check_structure(bytes)
}
pub use compile::CompileError;
pub use explain::Failure;

use crate::schema::JsonSchema;
use crate::schema::parse::ParseError;
use crate::spec::ValidatorSpec;
use crate::value::raw;

/// The version of the PCRE2 library patterns run on, as it reports itself (`10.42 2022-12-11`,
/// the release the server vendors in `src/third_party/pcre2`).
pub fn pcre2_version() -> String {
    mongo_schema_pcre2::version()
}

/// A compiled `$jsonSchema`, ready to check any number of documents (cheap to share across
/// threads: it is `Send + Sync`).
#[derive(Debug)]
pub struct Validator {
    schema: JsonSchema,
    /// The schema as written, for `specifiedAs` in explanations.
    source: Document,
    root: compile::Node,
    not_evaluated: Document,
    /// The keys of `not_evaluated`, named in every verdict they leave open.
    skipped: Vec<String>,
    /// For a schema with dotted names (paths on the server): `root` is compiled from the
    /// strict rewrite and this from the lenient one (see `paths`).
    lenient: Option<Lenient>,
}

/// The lenient rewrite of a schema with dotted names: what it rejects, the server rejects.
#[derive(Debug)]
struct Lenient {
    schema: JsonSchema,
    source: Document,
    root: compile::Node,
    /// `dotted name a.b across an array`, for the verdicts it leaves open.
    open: String,
}

/// The outcome of checking one document: valid, rejected with the server's explanation, or
/// not fully checked (the schema passed but validator entries beside it were not evaluated).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Verdict {
    details: Option<Document>,
    summaries: Vec<String>,
    failures: Vec<Failure>,
    skipped: Vec<String>,
}

impl Verdict {
    /// Whether the document satisfies the whole validator: false when it is rejected, and
    /// false when it is [not fully checked](Verdict::is_fully_checked), since then nobody here
    /// knows.
    pub fn is_valid(&self) -> bool {
        self.details.is_none() && self.skipped.is_empty()
    }

    /// Whether the document is rejected: the evaluated part fails, so the server rejects it
    /// whatever the entries that were not evaluated say (they are ANDed with `$jsonSchema`).
    pub fn is_rejected(&self) -> bool {
        self.details.is_some()
    }

    /// False when the document passed everything evaluated locally but the validator has
    /// entries that were not evaluated (`$expr`, `$or`, field conditions): its outcome on the
    /// server is unknown here. [`Verdict::skipped`] names them.
    pub fn is_fully_checked(&self) -> bool {
        self.skipped.is_empty()
    }

    /// The validator entries that left this verdict open (empty when it is decided).
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    /// For a rejected document, the server's `errInfo.details`:
    /// `{operatorName: "$jsonSchema", schemaRulesNotSatisfied: [...]}`.
    pub fn details(&self) -> Option<&Document> {
        self.details.as_ref()
    }

    /// One line per failure, `path: what is wrong` (`items.2.qty: 0 is less than the minimum 1`);
    /// empty for a valid document.
    pub fn summaries(&self) -> &[String] {
        &self.summaries
    }

    /// The failures behind [`Verdict::summaries`], with the keyword of each (to rank rules).
    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    fn valid() -> Verdict {
        Verdict {
            details: None,
            summaries: Vec::new(),
            failures: Vec::new(),
            skipped: Vec::new(),
        }
    }

    fn not_fully_checked(skipped: &[String]) -> Verdict {
        let message = not_fully_checked_message(skipped);
        Verdict {
            details: None,
            // A failure too, so that reports ranking rules by keyword show the open verdicts.
            failures: vec![Failure {
                path: "(document)".to_string(),
                keyword: "notFullyChecked",
                message: message.clone(),
            }],
            summaries: vec![message],
            skipped: skipped.to_vec(),
        }
    }
}

/// `not fully checked: $expr, status not evaluated locally`.
fn not_fully_checked_message(skipped: &[String]) -> String {
    format!(
        "not fully checked: {} not evaluated locally",
        skipped.join(", ")
    )
}

impl Validator {
    /// Compiles a schema.
    ///
    /// # Errors
    /// [`CompileError::Rejected`] when the IR holds something the server rejects (a pattern PCRE2
    /// cannot compile, with its path).
    pub fn new(schema: &JsonSchema) -> Result<Validator, CompileError> {
        let dotted = paths::dotted_names(schema);
        let (root, lenient) = if dotted.is_empty() {
            (compile::compile(schema, "", true)?, None)
        } else {
            let strict = paths::rewrite(schema, paths::Side::Strict);
            let lenient = paths::rewrite(schema, paths::Side::Lenient);
            let open = format!(
                "dotted name{} {} across an array",
                if dotted.len() == 1 { "" } else { "s" },
                dotted.join(", ")
            );
            (
                compile::compile(&strict, "", true)?,
                Some(Lenient {
                    root: compile::compile(&lenient, "", true)?,
                    source: lenient.to_document(),
                    schema: lenient,
                    open,
                }),
            )
        };
        Ok(Validator {
            root,
            source: schema.to_document(),
            schema: schema.clone(),
            not_evaluated: Document::new(),
            skipped: Vec::new(),
            lenient,
        })
    }

    /// Parses and compiles a schema: a bare `$jsonSchema`, or `{"$jsonSchema": {...}}` with any
    /// query operators beside it given explicitly (see [`ValidatorSpec::parse_schema`]).
    ///
    /// A key that is not a schema keyword, a misspelt one included, is the server's "Unknown
    /// $jsonSchema keyword". Query operators beside `$jsonSchema` are kept in
    /// [`Validator::not_evaluated`], and every document the schema accepts then gets a verdict
    /// that is [not fully checked](Verdict::is_fully_checked), never a valid one.
    ///
    /// ```
    /// use mongo_schema::eval::Validator;
    /// let typo = bson::doc! { "required": ["a"], "propertes": { "a": {} } };
    /// assert!(Validator::from_document(&typo).is_err());
    ///
    /// let v = Validator::from_document(&bson::doc! {
    ///     "$jsonSchema": { "required": ["a"] },
    ///     "$expr": { "$gt": ["$a", 1] },
    /// })?;
    /// let verdict = v.evaluate(&bson::rawdoc! { "a": 0 });
    /// assert!(!verdict.is_valid() && !verdict.is_rejected() && !verdict.is_fully_checked());
    /// assert_eq!(verdict.summaries(), ["not fully checked: $expr not evaluated locally"]);
    /// assert!(v.evaluate(&bson::rawdoc! {}).is_rejected());
    /// # Ok::<(), mongo_schema::schema::parse::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// The [`ParseError`] the server would give for the schema.
    pub fn from_document(validator: &Document) -> Result<Validator, ParseError> {
        Validator::from_parsed(validator, ValidatorSpec::parse_schema(validator)?)
    }

    /// Parses and compiles a collection's `validator` option as the server stores it: a query
    /// document whose `$jsonSchema` entry is evaluated and whose other entries (or all of it,
    /// without `$jsonSchema`) are [not evaluated](Validator::not_evaluated).
    ///
    /// # Errors
    /// The [`ParseError`] the server would give for the `$jsonSchema`.
    pub fn from_validator(validator: &Document) -> Result<Validator, ParseError> {
        Validator::from_parsed(validator, ValidatorSpec::parse_document(validator)?)
    }

    fn from_parsed(validator: &Document, parsed: ValidatorSpec) -> Result<Validator, ParseError> {
        let schema = parsed.json_schema.unwrap_or_default();
        let mut v = Validator::new(&schema).map_err(|e| match e {
            CompileError::Rejected(p) => p,
        })?;
        v.skipped = parsed.query.keys().cloned().collect();
        v.not_evaluated = parsed.query;
        if let Ok(source) = validator.get_document("$jsonSchema") {
            v.source = source.clone();
        } else if v.not_evaluated.is_empty() {
            v.source = validator.clone();
        }
        Ok(v)
    }

    /// The schema this validator checks.
    pub fn schema(&self) -> &JsonSchema {
        &self.schema
    }

    /// Validator entries beside `$jsonSchema` that are not evaluated locally (`$expr`, `$or`,
    /// field equalities...). Empty when the whole validator is evaluated.
    pub fn not_evaluated(&self) -> &Document {
        &self.not_evaluated
    }

    /// Whether every entry of the validator is evaluated locally (nothing in
    /// [`Validator::not_evaluated`]). Each verdict is then decided, except where a dotted name
    /// of the schema crosses an array in the document (see [`Verdict::is_fully_checked`]).
    pub fn is_fully_evaluated(&self) -> bool {
        self.skipped.is_empty()
    }

    /// Whether the document satisfies the validator: the fast path, no allocation for ordinary
    /// schemas. A document whose bytes are malformed inside is not valid, and neither is any
    /// document for a validator that is not [fully evaluated](Validator::is_fully_evaluated)
    /// ([`Validator::evaluate`] tells a rejection from an open verdict).
    pub fn is_valid(&self, doc: &RawDocument) -> bool {
        self.is_valid_bytes(doc.as_bytes())
    }

    /// [`Validator::is_valid`] over bytes that hold exactly one document; malformed bytes are
    /// not valid (use [`Validator::validate_bytes`] to learn where they break).
    pub fn is_valid_bytes(&self, bytes: &[u8]) -> bool {
        self.skipped.is_empty()
            && check::check(&self.root, raw::ty::DOCUMENT, bytes).unwrap_or(false)
    }

    /// Checks a document and explains a rejection in the server's `errInfo.details` shape.
    pub fn evaluate(&self, doc: &RawDocument) -> Verdict {
        match self.explain(doc.as_bytes()) {
            Ok(v) => v,
            Err(e) => Verdict {
                details: Some(bson::doc! {
                    "operatorName": "$jsonSchema",
                    "reason": "malformed BSON",
                    "offset": e.offset as i64,
                    "detail": e.reason.clone(),
                }),
                summaries: vec![e.to_string()],
                failures: vec![Failure {
                    path: "(document)".to_string(),
                    keyword: "malformed",
                    message: e.to_string(),
                }],
                skipped: Vec::new(),
            },
        }
    }

    /// Checks bytes that may be malformed: each must be exactly one document.
    ///
    /// # Errors
    /// [`MalformedBson`] with the byte offset where the input stops being BSON: lengths that
    /// lie, truncation, unknown types, invalid UTF-8, nesting deeper than [`MAX_DEPTH`].
    pub fn validate_bytes(&self, bytes: &[u8]) -> Result<Verdict, MalformedBson> {
        raw::check_structure(bytes)?;
        if self.is_valid_bytes(bytes) {
            return Ok(Verdict::valid());
        }
        self.explain(bytes)
    }

    fn explain(&self, bytes: &[u8]) -> Result<Verdict, MalformedBson> {
        let malformed = || {
            raw::check_structure(bytes).err().unwrap_or(MalformedBson {
                offset: 0,
                reason: "malformed BSON".to_string(),
            })
        };
        match check::check(&self.root, raw::ty::DOCUMENT, bytes) {
            Ok(true) if self.skipped.is_empty() => return Ok(Verdict::valid()),
            Ok(true) => return Ok(Verdict::not_fully_checked(&self.skipped)),
            Ok(false) => {}
            Err(raw::Bad) => return Err(malformed()),
        }
        let (schema, source, root) = match &self.lenient {
            None => (&self.schema, &self.source, &self.root),
            Some(l) => match check::check(&l.root, raw::ty::DOCUMENT, bytes) {
                // Strict fails, lenient passes: a dotted path crossed an array.
                Ok(true) => {
                    return Ok(Verdict::not_fully_checked(std::slice::from_ref(&l.open)));
                }
                Ok(false) => (&l.schema, &l.source, &l.root),
                Err(raw::Bad) => return Err(malformed()),
            },
        };
        let (details, failures) =
            explain::explain_root(schema, source, root, bytes).map_err(|_| malformed())?;
        Ok(Verdict {
            details: Some(details),
            summaries: failures.iter().map(ToString::to_string).collect(),
            failures,
            skipped: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, rawdoc};

    fn v(schema: Document) -> Validator {
        Validator::from_document(&schema).unwrap()
    }

    #[test]
    fn keywords_that_do_not_apply_to_a_type_pass() {
        let val = v(doc! { "properties": { "a": { "minimum": 5, "minLength": 3 } } });
        assert!(val.is_valid(&rawdoc! { "a": "long enough" }));
        assert!(val.is_valid(&rawdoc! { "a": 7 }));
        assert!(!val.is_valid(&rawdoc! { "a": 4 }));
        assert!(!val.is_valid(&rawdoc! { "a": "ab" }));
    }

    #[test]
    fn root_type_without_object_never_matches() {
        let val = v(doc! { "bsonType": "string" });
        assert!(!val.is_valid(&rawdoc! {}));
    }

    #[test]
    fn missing_is_not_null() {
        let val = v(doc! { "properties": { "a": { "enum": [null] } }, "required": ["a"] });
        assert!(!val.is_valid(&rawdoc! {}));
        assert!(val.is_valid(&rawdoc! { "a": null }));
        assert!(!val.is_valid(&rawdoc! { "a": bson::RawBson::Undefined }));
    }

    #[test]
    fn explains_in_the_servers_shape() {
        let val = v(doc! {
            "required": ["name", "gpa"],
            "properties": { "gpa": { "bsonType": "double" } },
        });
        let verdict = val.evaluate(&rawdoc! { "gpa": 3 });
        assert_eq!(
            verdict.details().unwrap(),
            &doc! {
                "operatorName": "$jsonSchema",
                "schemaRulesNotSatisfied": [
                    { "operatorName": "properties", "propertiesNotSatisfied": [
                        { "propertyName": "gpa", "details": [ {
                            "operatorName": "bsonType",
                            "specifiedAs": { "bsonType": "double" },
                            "reason": "type did not match",
                            "consideredValue": 3,
                            "consideredType": "int",
                        } ] }
                    ] },
                    { "operatorName": "required", "specifiedAs": { "required": ["name", "gpa"] },
                      "missingProperties": ["name"] },
                ],
            }
        );
    }

    #[test]
    fn a_misspelt_keyword_is_rejected_never_read_as_a_query() {
        // json_schema_parser.cpp: any key that is not a keyword is "Unknown $jsonSchema
        // keyword" (FailedToParse, 9), at the top level too (issue 12 item 1).
        let e = Validator::from_document(&doc! {
            "bsonType": "object", "required": ["a"], "propertes": { "a": {} },
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "propertes: Unknown $jsonSchema keyword: propertes"
        );
        assert_eq!(e.code(), 9);
        let e = Validator::from_document(&doc! { "$or": [{ "a": 1 }] }).unwrap_err();
        assert_eq!(e.path(), "$or");
    }

    #[test]
    fn what_is_not_evaluated_leaves_the_verdict_open_never_valid() {
        let val = v(doc! { "$jsonSchema": { "required": ["a"] }, "status": "open" });
        assert!(!val.is_fully_evaluated());
        let passes_schema = rawdoc! { "a": 1 };
        assert!(!val.is_valid(&passes_schema));
        let verdict = val.evaluate(&passes_schema);
        assert!(!verdict.is_valid());
        assert!(!verdict.is_rejected());
        assert!(!verdict.is_fully_checked());
        assert_eq!(verdict.skipped(), ["status"]);
        assert_eq!(
            verdict.summaries(),
            ["not fully checked: status not evaluated locally"]
        );
        assert_eq!(verdict.failures()[0].keyword, "notFullyChecked");
        let checked = val.validate_bytes(passes_schema.as_bytes()).unwrap();
        assert_eq!(checked, verdict);
        // The $jsonSchema is ANDed with the rest: failing it decides the verdict.
        let fails_schema = val.evaluate(&rawdoc! {});
        assert!(fails_schema.is_rejected() && fails_schema.is_fully_checked());
    }

    #[test]
    fn a_stored_validator_without_json_schema_is_a_query_not_evaluated() {
        // The server reads a validator option as a query: {bsonType: "object"} there is an
        // equality on a field named bsonType (manual: specify-query-expression-rules).
        let val = Validator::from_validator(&doc! { "bsonType": "object" }).unwrap();
        assert_eq!(val.not_evaluated(), &doc! { "bsonType": "object" });
        let verdict = val.evaluate(&rawdoc! { "bsonType": "object" });
        assert!(!verdict.is_valid() && !verdict.is_fully_checked());
        let val =
            Validator::from_validator(&doc! { "$jsonSchema": { "required": ["a"] } }).unwrap();
        assert!(val.is_fully_evaluated());
        assert!(val.is_valid(&rawdoc! { "a": 1 }));
    }

    #[test]
    fn malformed_bytes_report_their_offset() {
        let val = v(doc! {});
        let e = val.validate_bytes(&[5, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 0);
    }
}
