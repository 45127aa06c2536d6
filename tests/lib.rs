//! Behaviour across crates; see the [[test]] files.
