//! Benchmarks: corpora generators shared by the criterion benches.
