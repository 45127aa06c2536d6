//! Property tests of the derive's contract over every fixture type: sound on both of bson's
//! serializer paths and tight under mutation (the machinery is `fixtures/props.rs`). Each
//! fixture is tested at the top level of a document (when it is one) and as a field of
//! `Wrap<T>`.

#[path = "fixtures/mod.rs"]
mod fixtures;
#[path = "fixtures/props.rs"]
mod props;

use fixtures::*;

/// Lists every fixture with the default number of cases: moderate, so the whole suite stays
/// within the CI budget (`PROPTEST_CASES=1000` for a deeper run).
macro_rules! fixture_properties {
    ($($name:ident: $ty:ty),* $(,)?) => {
        props::properties!(cases = 48; $($name: $ty),*);
    };
}

// Every fixture of `fixtures::with_fixtures!`: a new fixture is property-tested as soon as it
// is listed there.
with_fixtures!(fixture_properties);
