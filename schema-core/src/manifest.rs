//! The manifest: every declared collection as createCollection/createIndexes JSON that other tools can read.
