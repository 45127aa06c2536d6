//! `hello` / `isMaster`, `buildInfo`, `connectionStatus`: what the driver asks at connect.

use bson::{Bson, DateTime, Document, doc};

use super::Context;
use crate::state::State;

/// The reply of a standalone, writable `mongod`.
///
/// Source: the manual's `hello` page (fields `isWritablePrimary`, `maxBsonObjectSize` 16 MiB,
/// `maxMessageSizeBytes` 48 000 000, `maxWriteBatchSize` 100 000, `localTime`,
/// `logicalSessionTimeoutMinutes` 30, `connectionId`, `minWireVersion`, `maxWireVersion`,
/// `readOnly`); the legacy `isMaster` name answers `ismaster` instead of `isWritablePrimary`.
/// `helloOk: true` is echoed when the client offers it, which moves the driver onto `hello`. No
/// `topologyVersion` is sent, so the driver polls rather than streams heartbeats.
pub(crate) fn hello(state: &State, cx: &Context<'_>) -> Document {
    let mut reply = Document::new();
    let me = format!("127.0.0.1:{}", state.port);
    let hosts = &state.quirks.replica_set_hosts;
    let primary = hosts.first().cloned().unwrap_or_else(|| me.clone());
    let writable = state.quirks.replica_set.is_none() || primary == me;
    if cx.name == "hello" {
        reply.insert("isWritablePrimary", writable);
    } else {
        reply.insert("ismaster", writable);
    }
    if cx.flag("helloOk") {
        reply.insert("helloOk", true);
    }
    if state.quirks.mongos {
        // Source: the manual's `hello` page: a mongos answers `msg: "isdbgrid"`.
        reply.insert("msg", "isdbgrid");
    }
    if let Some(set) = &state.quirks.replica_set {
        // Source: the manual's `hello` page: a replica set member adds `setName`, `hosts`,
        // `primary`, `me` and `secondary`.
        let hosts: Vec<Bson> = if hosts.is_empty() {
            vec![Bson::String(me.clone())]
        } else {
            hosts.iter().cloned().map(Bson::String).collect()
        };
        reply.extend(doc! {"setName": set.clone(), "setVersion": 1, "hosts": hosts, "primary": primary, "me": me, "secondary": !writable});
    }
    reply.extend(doc! {
        "maxBsonObjectSize": 16_777_216,
        "maxMessageSizeBytes": crate::wire::MAX_MESSAGE_SIZE,
        "maxWriteBatchSize": 100_000,
        "localTime": DateTime::now(),
        "logicalSessionTimeoutMinutes": 30,
        "connectionId": Bson::Int32(i32::try_from(cx.connection_id).unwrap_or(i32::MAX)),
        "minWireVersion": 0,
        "maxWireVersion": state.version.max_wire_version(),
        "readOnly": false,
        "ok": 1.0,
    });
    reply
}

/// Source: the manual's `buildInfo` page (`version`, `versionArray`, `gitVersion`, `bits`,
/// `maxBsonObjectSize`, `storageEngines`).
pub(crate) fn build_info(state: &State) -> Document {
    let version = state.version;
    doc! {
        "version": version.to_string(),
        "gitVersion": "0000000000000000000000000000000000000000",
        "modules": [],
        "allocator": "system",
        "javascriptEngine": "none",
        "sysInfo": "deprecated",
        "versionArray": [version.major as i32, version.minor as i32, 0, 0],
        "bits": 64,
        "debug": false,
        "maxBsonObjectSize": 16_777_216,
        "storageEngines": ["devnull", "wiredTiger"],
        "ok": 1.0,
    }
}

/// Source: the manual's `connectionStatus` page; no authentication means no users.
pub(crate) fn connection_status() -> Document {
    doc! {
        "authInfo": {"authenticatedUsers": [], "authenticatedUserRoles": []},
        "ok": 1.0,
    }
}
