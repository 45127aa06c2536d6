//! The corpus: types re-typed from public applications' models (`corpus/apps.rs`), the serde
//! attribute matrix (`corpus/matrix.rs`) and the foreign and std types serde users store
//! (`corpus/types.rs`), each property-tested for soundness on both of bson's serializer paths
//! and tightness under mutation (the machinery of `fixtures/props.rs`, shared with
//! `soundness.rs`).

#[path = "fixtures/props.rs"]
mod props;
#[path = "fixtures/values.rs"]
mod values;

#[path = "corpus/mod.rs"]
mod corpus;
