//! The corpus on bson 2: the serde attribute matrix (`tests/corpus/matrix.rs`, the very file
//! the bson 3 corpus runs) and application shapes written with the bson 2 names their sources
//! use (`support/apps.rs`), each written by bson 2's two serializers, checked by the derived
//! validator (bson 3 inside) and read back by bson 2 (`support/props.rs`).

#[path = "support/props.rs"]
mod props;
#[path = "../../fixtures/props.rs"]
#[expect(
    unused_macros,
    unused_imports,
    reason = "its properties! writes with bson 3; support/props.rs has the bson 2 one"
)]
mod shared;
#[path = "../../fixtures/values.rs"]
mod values;

#[path = "support/apps.rs"]
mod apps;
#[path = "../../corpus/matrix.rs"]
mod matrix;
