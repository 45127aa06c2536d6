//! The `mongo-schema` command line, as a library so an application can link its own types.
