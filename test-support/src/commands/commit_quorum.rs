//! `createIndexes`' `commitQuorum`: parsed as the server parses it, refused on a standalone.

use bson::Bson;

use crate::error::{CommandError, code};
use crate::state::State;

/// The most members a replica set can have (`repl::ReplSetConfig::kMaxMembers`).
const MAX_MEMBERS: i64 = 50;

/// Checks `commitQuorum` when the command has one.
///
/// Sources: `src/mongo/db/index_builds/commit_quorum_options.cpp` (`CommitQuorumOptions::parse`:
/// a number from 0 to 50, or a non-empty string: "majority", "votingMembers" or a replica set
/// tag; anything else is FailedToParse "commitQuorum has to be a number or a string"), and
/// `jstests/noPassthrough/commit_quorum_standalones.js` (a standalone refuses any commitQuorum
/// with BadValue). Whether the members can satisfy the quorum (a tag no member carries) is not
/// modelled: this server is a one-member set.
pub(crate) fn check(state: &State, value: Option<&Bson>) -> Result<(), CommandError> {
    let Some(value) = value else {
        return Ok(());
    };
    match value {
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            // `safeNumberLong`: the integer part; NaN becomes 0.
            let n = crate::matcher::number(value).unwrap_or(0.0);
            let n = if n.is_nan() { 0 } else { n as i64 };
            if !(0..=MAX_MEMBERS).contains(&n) {
                return Err(CommandError::new(
                    code::FAILED_TO_PARSE,
                    format!(
                        "commitQuorum has to be a non-negative number and not greater than {MAX_MEMBERS}"
                    ),
                ));
            }
        }
        Bson::String(mode) if mode.is_empty() => {
            return Err(CommandError::new(
                code::FAILED_TO_PARSE,
                "commitQuorum can't be an empty string",
            ));
        }
        Bson::String(_) => {}
        _ => {
            return Err(CommandError::new(
                code::FAILED_TO_PARSE,
                "commitQuorum has to be a number or a string",
            ));
        }
    }
    if state.quirks.replica_set.is_none() {
        return Err(CommandError::new(
            code::BAD_VALUE,
            "Standalones can't specify commitQuorum",
        ));
    }
    Ok(())
}
