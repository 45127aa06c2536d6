//! Views of one report or plan: text for people, JSON for programs, GitHub annotations for CI,
//! mongosh scripts for operators. Renderers never read a raw server reply.

pub mod mongosh;
