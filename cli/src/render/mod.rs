//! Views of one report or plan: text for people (`human`), JSON for programs (`json`), workflow
//! annotations for CI (`github`), runnable scripts for operators (`mongosh`). Renderers never read
//! a raw server reply.

pub mod github;
pub mod human;
pub mod json;
pub mod mongosh;
