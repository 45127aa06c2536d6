//! Runnable examples of the schema-design patterns.
