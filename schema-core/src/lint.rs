//! Model lints: unbounded arrays, worst-case document size, low-cardinality index prefixes, hot shard keys.
