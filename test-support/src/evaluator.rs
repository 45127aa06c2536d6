//! The `$jsonSchema` hook: the test server parses queries itself but leaves `$jsonSchema` to the
//! evaluator a test plugs in (normally mongo-schema's own), so it never grows a second one.

use bson::Document;

/// Decides `$jsonSchema` for the test server: in `count`/`aggregate`/`find` filters (audit's
/// `$match`), in `listCollections` filters, and when `insert` meets a collection validator.
///
/// Without an evaluator a filter using `$jsonSchema` fails with BadValue (2) and inserts skip
/// validation, so seeding documents never depends on one.
pub trait SchemaEvaluator: Send + Sync {
    /// Checks a schema when `create`, `collMod` or a query receives it; `Err(message)` makes the
    /// command fail with FailedToParse (9), as the server does for a schema it cannot parse.
    ///
    /// # Errors
    /// The message the server would put in `errmsg`.
    fn check(&self, schema: &Document) -> Result<(), String> {
        let _ = schema;
        Ok(())
    }

    /// Whether `document` satisfies `schema`; `Err(details)` carries what the server puts in
    /// `errInfo.details` when it rejects a write (`{operatorName: "$jsonSchema",
    /// schemaRulesNotSatisfied: [...]}` from 5.0).
    ///
    /// # Errors
    /// The rejection's `errInfo.details` document.
    fn evaluate(&self, schema: &Document, document: &Document) -> Result<(), Document>;
}

/// A [`SchemaEvaluator`] from a closure returning whether the document matches; rejections carry
/// `details: {operatorName: "$jsonSchema"}` only.
///
/// ```
/// use mongo_schema_test_support::FnEvaluator;
/// let has_name = FnEvaluator(|_schema: &bson::Document, doc: &bson::Document| doc.contains_key("name"));
/// # let _ = has_name;
/// ```
pub struct FnEvaluator<F>(pub F);

impl<F> SchemaEvaluator for FnEvaluator<F>
where
    F: Fn(&Document, &Document) -> bool + Send + Sync,
{
    fn evaluate(&self, schema: &Document, document: &Document) -> Result<(), Document> {
        if (self.0)(schema, document) {
            Ok(())
        } else {
            Err(bson::doc! {"operatorName": "$jsonSchema"})
        }
    }
}
