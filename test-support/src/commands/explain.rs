//! `explain`: canned replies registered by tests (keyed by the explained command's fields), or a
//! plain collection-scan plan.

use bson::{Bson, Document, doc};

use super::Context;
use crate::error::{CommandError, code};
use crate::matcher::{self, values_equal};
use crate::state::State;

/// Source: the manual's `explain` page and "Explain Results": `{explainVersion, queryPlanner:
/// {namespace, parsedQuery, winningPlan, rejectedPlans}, executionStats: {nReturned,
/// totalKeysExamined, totalDocsExamined, executionStages}, command, serverInfo, ok}`;
/// `executionStats` is absent for verbosity `queryPlanner`.
pub(crate) fn explain(state: &mut State, cx: &Context<'_>) -> Result<Document, CommandError> {
    let Some(Bson::Document(inner)) = cx.body.get("explain") else {
        return Err(CommandError::new(
            code::TYPE_MISMATCH,
            "explain command requires a nested object",
        ));
    };
    for (key, reply) in &state.explains {
        let hit = key
            .iter()
            .all(|(field, value)| inner.get(field).is_some_and(|v| values_equal(v, value)));
        if hit {
            let mut reply = reply.clone();
            reply.entry("ok".to_owned()).or_insert(Bson::Double(1.0));
            return Ok(reply);
        }
    }
    let collection = inner
        .values()
        .next()
        .and_then(Bson::as_str)
        .unwrap_or_default()
        .to_owned();
    let filter = inner
        .get_document("filter")
        .or_else(|_| inner.get_document("query"))
        .cloned()
        .or_else(|_| {
            inner
                .get_array("pipeline")
                .ok()
                .and_then(|p| p.first())
                .and_then(Bson::as_document)
                .and_then(|s| s.get_document("$match").ok())
                .cloned()
                .ok_or(())
        })
        .unwrap_or_default();
    let evaluator = state.evaluator.clone();
    matcher::check(&filter, evaluator.as_deref())?;
    let (examined, returned) = match state.collection(cx.db, &collection) {
        Some(c) => {
            let mut returned = 0;
            for doc in &c.documents {
                if matcher::matches(&filter, doc, evaluator.as_deref())? {
                    returned += 1;
                }
            }
            (c.documents.len() as i32, returned)
        }
        None => (0, 0),
    };
    let mut reply = doc! {
        "explainVersion": "1",
        "queryPlanner": {
            "namespace": format!("{}.{collection}", cx.db),
            "indexFilterSet": false,
            "parsedQuery": filter.clone(),
            "winningPlan": {"stage": "COLLSCAN", "filter": filter, "direction": "forward"},
            "rejectedPlans": [],
        },
    };
    let verbosity = cx.body.get_str("verbosity").unwrap_or("allPlansExecution");
    if verbosity != "queryPlanner" {
        reply.insert(
            "executionStats",
            doc! {
                "executionSuccess": true,
                "nReturned": returned,
                "executionTimeMillis": 0,
                "totalKeysExamined": 0,
                "totalDocsExamined": examined,
                "executionStages": {"stage": "COLLSCAN", "nReturned": returned, "docsExamined": examined},
            },
        );
    }
    reply.insert("command", inner.clone());
    reply.insert(
        "serverInfo",
        doc! {"host": "127.0.0.1", "port": i32::from(state.port), "version": state.version.to_string()},
    );
    reply.insert("ok", 1.0);
    Ok(reply)
}
