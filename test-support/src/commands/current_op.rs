//! `currentOp`, and index builds that take time so that it can see them: with a build delay set
//! ([`TestServer::set_index_build_delay`](crate::TestServer::set_index_build_delay)) a
//! `createIndexes` is held for that long, listed by `currentOp` with its progress meanwhile,
//! then run.

use std::time::{Duration, Instant};

use bson::{Bson, DateTime, Document, doc};

use super::Context;
use crate::builds::Build;
use crate::error::{CommandError, code};
use crate::state::State;

/// Starts holding a `createIndexes` on an existing collection when a build delay is set;
/// returns how long to hold it and the operation id to end with [`end`].
pub(crate) fn begin(state: &mut State, body: &Document) -> Option<(Duration, i64)> {
    let delay = state.builds.delay?;
    let Some(Bson::String(collection)) = body.get("createIndexes") else {
        return None;
    };
    let Some(Bson::String(db)) = body.get("$db") else {
        return None;
    };
    let total = state.collection(db, collection)?.documents.len() as i64;
    let opid = state.builds.next_opid;
    state.builds.next_opid += 1;
    let mut command = body.clone();
    for generic in ["lsid", "$clusterTime", "$readPreference"] {
        command.remove(generic);
    }
    state.builds.running.push(Build {
        opid,
        ns: format!("{db}.{collection}"),
        command,
        started: Instant::now(),
        delay,
        total,
    });
    Some((delay, opid))
}

/// The build is over (the command runs next).
pub(crate) fn end(state: &mut State, opid: i64) {
    state.builds.running.retain(|b| b.opid != opid);
}

/// `currentOp`: the in-progress operations matching the filter (the command's other fields).
///
/// Source: the manual's `currentOp` page: it runs against the admin database (Unauthorized 13
/// otherwise, "currentOp may only be run against the admin database."), `$all` and `$ownOps`
/// are flags, every other field is a query on the output documents, and the reply is
/// `{inprog: [...], ok: 1}`. An index build is listed as `op: "command"` with the
/// `createIndexes` command, `msg: "Index Build: scanning collection ..."` and `progress: {done,
/// total}` ("the number of work items completed" of "the total number of work items"), as the
/// manual's "Active Indexing Operations" example filters them. Only index builds are listed:
/// this server runs every other command at once.
pub(crate) fn current_op(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    if cx.db != "admin" {
        return Err(CommandError::new(
            code::UNAUTHORIZED,
            "currentOp may only be run against the admin database.",
        ));
    }
    let mut filter = Document::new();
    for (key, value) in cx.arguments() {
        if key != "$all" && key != "$ownOps" {
            filter.insert(key.clone(), value.clone());
        }
    }
    crate::matcher::check(&filter, None)?;
    let host = format!("127.0.0.1:{}", state.port);
    let mut inprog = Vec::new();
    for build in &state.builds.running {
        let done = build.done();
        let percent = if build.total == 0 {
            100
        } else {
            done * 100 / build.total
        };
        let elapsed = build.started.elapsed();
        let op = doc! {
            "type": "op",
            "host": host.clone(),
            "desc": "IndexBuildsCoordinatorMongod-0",
            "active": true,
            "currentOpTime": DateTime::now().try_to_rfc3339_string().unwrap_or_default(),
            "opid": Bson::Int32(i32::try_from(build.opid).unwrap_or(i32::MAX)),
            "secs_running": elapsed.as_secs() as i64,
            "microsecs_running": elapsed.as_micros() as i64,
            "op": "command",
            "ns": build.ns.clone(),
            "command": build.command.clone(),
            "msg": format!(
                "Index Build: scanning collection Index Build: scanning collection: {done}/{} {percent}%",
                build.total
            ),
            "progress": {"done": done, "total": build.total},
            "numYields": 0,
            "waitingForLock": false,
        };
        if crate::matcher::matches(&filter, &op, None)? {
            inprog.push(Bson::Document(op));
        }
    }
    Ok(doc! {"inprog": inprog, "ok": 1.0})
}
