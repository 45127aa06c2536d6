//! Tests only: see tests/bson2.rs.
