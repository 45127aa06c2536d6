//! `IndexSpec`: index keys and options (unique, partial, TTL, text weights, collation, ...).
