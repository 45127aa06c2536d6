//! `mongo-schema`: parse arguments, run, turn the outcome into an exit code.

fn main() {}
