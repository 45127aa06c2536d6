//! Every fixture of `tests/fixtures/mod.rs` (the list of `with_fixtures!`, the same the bson 3
//! soundness suite runs) written by bson 2's two serializers, checked by the derived validator
//! and read back by bson 2 (`support/props.rs`): bson 2 writes serde's shapes (numbers,
//! options, sequences, maps, every enum representation, flatten) as bson 3 does, so one
//! validator serves applications on either. The fixtures' bson types are bson 3's; bson 2's
//! serializer writes them by the same magic names as its own (`$oid`, `$date`, ...).

#[path = "../../fixtures/mod.rs"]
mod fixtures;
#[path = "support/props.rs"]
mod props;
#[path = "../../fixtures/props.rs"]
#[expect(
    unused_macros,
    unused_imports,
    reason = "its properties! writes with bson 3; support/props.rs has the bson 2 one"
)]
mod shared;

use fixtures::*;

macro_rules! fixture_properties {
    ($($name:ident: $ty:ty),* $(,)?) => {
        props::properties!(cases = 24; $($name: $ty),*);
    };
}

with_fixtures!(fixture_properties);
