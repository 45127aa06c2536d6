//! The local evaluator: compiles a `$jsonSchema` once and checks raw BSON documents with the server's verdicts and explanations.
