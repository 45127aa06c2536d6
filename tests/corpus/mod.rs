//! The corpus's modules; each lists its types for the property tests at its end.

pub mod apps;
pub mod matrix;
pub mod types;
