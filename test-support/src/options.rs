//! What a test chooses when it starts a server: the release it pretends to be and the quirks of
//! older or odder deployments.

use std::sync::Arc;

use bson::Document;

use crate::{SchemaEvaluator, ServerVersion};

/// How a [`TestServer`](crate::TestServer) behaves.
///
/// ```
/// use mongo_schema_test_support::{Quirks, ServerVersion, TestServerOptions};
/// let options = TestServerOptions {
///     version: ServerVersion::V6_0,
///     quirks: Quirks { ttl_as_double: true, ..Quirks::default() },
///     ..TestServerOptions::default()
/// };
/// # let _ = options;
/// ```
#[derive(Clone, Default)]
pub struct TestServerOptions {
    /// The release reported by `hello` (`maxWireVersion`) and `buildInfo`; version-dependent
    /// behaviours follow it. Default 7.0.
    pub version: ServerVersion,
    /// Stored-form quirks applied by `create` and `createIndexes`.
    pub quirks: Quirks,
    /// Decides `$jsonSchema`; see [`SchemaEvaluator`].
    pub schema_evaluator: Option<Arc<dyn SchemaEvaluator>>,
}

impl std::fmt::Debug for TestServerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServerOptions")
            .field("version", &self.version)
            .field("quirks", &self.quirks)
            .field("schema_evaluator", &self.schema_evaluator.is_some())
            .finish()
    }
}

/// How the stored (listed) form of what `create` and `createIndexes` write deviates from what a
/// current server stores. All off by default. Seeding raw entries
/// ([`TestServer::seed_collection`](crate::TestServer::seed_collection),
/// [`TestServer::seed_index`](crate::TestServer::seed_index)) mimics any other stored form.
#[derive(Debug, Clone, Default)]
pub struct Quirks {
    /// Index `expireAfterSeconds` is stored as a Double, as the legacy `mongo` shell sent it and
    /// the server kept it.
    pub ttl_as_double: bool,
    /// Index key-pattern numbers and text weights are stored as Doubles (legacy shell numbers).
    pub legacy_numeric_types: bool,
    /// Fields merged into the `options` of every collection `create` makes: options this crate does
    /// not know, as a newer server would list them.
    pub unknown_collection_options: Document,
    /// Indexes built by `createIndexes` stay in progress: `listIndexes` with
    /// `includeIndexBuildInfo: true` lists them as `{spec, indexBuildInfo: {buildUUID}}`.
    pub index_builds_in_progress: bool,
    /// List `system.buckets.<name>` beside each time-series collection, as servers before 8.2
    /// (without viewless time-series) do.
    pub list_buckets_collections: bool,
    /// Wildcard projections are listed nested (`{"author.name": 1}` as `{author: {name: true},
    /// _id: false}`), as some servers store them.
    pub nested_wildcard_projection: bool,
    /// List collections in reverse creation order: the server promises no order, and this
    /// catches a client that depends on one.
    pub reverse_collection_order: bool,
    /// `collMod` of an index's `hidden` is acknowledged (with `hidden_old`/`hidden_new`) but not
    /// stored, as SecantusDB 0.7.0b3 does: `listIndexes` keeps listing the old value.
    pub hidden_not_persisted: bool,
    /// `create` options acknowledged and then dropped from the stored options (a server that
    /// does not support them but does not refuse them either).
    pub dropped_collection_options: Vec<String>,
    /// Answer `hello` as a `mongos` router (`msg: "isdbgrid"`), so the driver sees a sharded
    /// cluster; pair with [`TestServer::seed_reply`](crate::TestServer::seed_reply) for
    /// `listShards` and seeded `config.collections` documents for shard keys.
    pub mongos: bool,
    /// Answer `hello` as the primary of a one-member replica set of this name (`setName`,
    /// `hosts`, `primary`, `me`), so that `createIndexes` accepts `commitQuorum`.
    pub replica_set: Option<String>,
    /// With [`Quirks::replica_set`]: every member's `host:port`, the primary first, as `hello`
    /// lists them in `hosts`. A server whose own address is not the first answers as a
    /// secondary (`isWritablePrimary: false`, `secondary: true`, `primary` the first). Empty:
    /// a one-member set of this server.
    pub replica_set_hosts: Vec<String>,
    /// A deployment without search (`mongot`): `createSearchIndexes`, `updateSearchIndex`,
    /// `dropSearchIndex` and `$listSearchIndexes` fail with SearchNotEnabled (31082).
    pub search_unsupported: bool,
}
