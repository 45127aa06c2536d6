//! Compile errors of `#[derive(MongoSchema)]`: one mistake per file under `tests/ui/<kind>/`, each
//! with its reviewed `.stderr` (refresh with `TRYBUILD=overwrite`, then read the diff).

#[test]
fn derive_mistakes_are_reported_at_the_offending_token() {
    let t = trybuild::TestCases::new();
    t.compile_fail("*/*.rs");
}
