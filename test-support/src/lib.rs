//! Test support: a wire-protocol MongoDB test server.
