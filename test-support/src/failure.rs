//! Failure injection: make the k-th command (or the k-th command named X) fail, drop the
//! connection, or stall.

use std::time::Duration;

use crate::RecordedCommand;

/// What an injected failure does to the command it hits.
#[derive(Debug, Clone, PartialEq)]
pub enum FailAction {
    /// Reply `{ok: 0, code, errmsg, codeName}`.
    Error {
        /// The server error code, e.g. 11601 (Interrupted).
        code: i32,
        /// The `errmsg`.
        message: String,
    },
    /// Close the connection without replying (the driver sees a network error).
    CloseConnection,
    /// Sleep this long, then answer normally. A command carrying a shorter `maxTimeMS` instead
    /// fails with MaxTimeMSExpired (50) once that time has passed, as the server would.
    Stall(Duration),
    /// Send this document as the reply (e.g. an error with `errorLabels`, or a write concern
    /// error), verbatim.
    Reply(bson::Document),
}

/// A failure to inject with [`TestServer::inject`](crate::TestServer::inject).
///
/// Counting starts when the failure is injected and skips the driver's monitoring commands
/// (`hello`, `isMaster`, `endSessions`) unless the failure names one of them.
///
/// ```
/// use mongo_schema_test_support::Failure;
/// // The second listIndexes fails with Interrupted (11601).
/// let failure = Failure::on("listIndexes").nth(2).error(11601, "operation was interrupted");
/// # let _ = failure;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub(crate) target: Target,
    pub(crate) matching: bson::Document,
    pub(crate) nth: u64,
    pub(crate) times: u64,
    pub(crate) action: FailAction,
}

impl Failure {
    /// Fails the first command named `command` (an error with code 8, UnknownError, until an
    /// action is chosen).
    #[must_use]
    pub fn on(command: &str) -> Self {
        Self {
            target: Target::Named(command.to_owned()),
            ..Self::any_command()
        }
    }

    /// Fails the first command of any name (monitoring commands excepted).
    #[must_use]
    pub fn any_command() -> Self {
        Self {
            target: Target::Any,
            matching: bson::Document::new(),
            nth: 1,
            times: 1,
            action: FailAction::Error {
                code: 8,
                message: "injected failure".to_owned(),
            },
        }
    }

    /// Fails the first write command (see [`RecordedCommand::is_write`]): with
    /// [`nth`](Self::nth), the k-th write, whatever it is.
    #[must_use]
    pub fn any_write() -> Self {
        Self {
            target: Target::AnyWrite,
            ..Self::any_command()
        }
    }

    /// Only counts commands whose body has each field of `fields` with an equal value, e.g.
    /// `doc! {"listIndexes": "orders"}` to pick one collection among concurrent `listIndexes`.
    #[must_use]
    pub fn matching(mut self, fields: bson::Document) -> Self {
        self.matching = fields;
        self
    }

    /// Hits the `n`-th matching command (1-based) instead of the first.
    #[must_use]
    pub fn nth(mut self, n: u64) -> Self {
        self.nth = n.max(1);
        self
    }

    /// Hits `n` consecutive matching commands from the `nth` on (default 1).
    #[must_use]
    pub fn times(mut self, n: u64) -> Self {
        self.times = n;
        self
    }

    /// Hits every matching command from the `nth` on.
    #[must_use]
    pub fn always(self) -> Self {
        self.times(u64::MAX)
    }

    /// Replies with this error code and message.
    #[must_use]
    pub fn error(mut self, code: i32, message: &str) -> Self {
        self.action = FailAction::Error {
            code,
            message: message.to_owned(),
        };
        self
    }

    /// Closes the connection instead of replying.
    #[must_use]
    pub fn close_connection(mut self) -> Self {
        self.action = FailAction::CloseConnection;
        self
    }

    /// Sleeps `duration` before answering normally (see [`FailAction::Stall`] for `maxTimeMS`).
    #[must_use]
    pub fn stall(mut self, duration: Duration) -> Self {
        self.action = FailAction::Stall(duration);
        self
    }

    /// Replies with `reply` verbatim.
    #[must_use]
    pub fn reply(mut self, reply: bson::Document) -> Self {
        self.action = FailAction::Reply(reply);
        self
    }
}

/// Which commands a failure counts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Target {
    Named(String),
    Any,
    AnyWrite,
}

/// An injected failure with its count of matching commands seen.
#[derive(Debug)]
pub(crate) struct Armed {
    failure: Failure,
    seen: u64,
}

impl Armed {
    pub(crate) fn new(failure: Failure) -> Self {
        Self { failure, seen: 0 }
    }

    /// Counts the command if it matches; returns the action when this one is hit.
    pub(crate) fn observe(&mut self, command: &RecordedCommand) -> Option<FailAction> {
        let applies = match &self.failure.target {
            Target::Named(name) => *name == command.name,
            Target::Any => !command.is_monitoring(),
            Target::AnyWrite => command.is_write(),
        };
        let fields_match = self.failure.matching.iter().all(|(field, value)| {
            command
                .body
                .get(field)
                .is_some_and(|v| crate::matcher::values_equal(v, value))
        });
        if !applies || !fields_match {
            return None;
        }
        self.seen += 1;
        let first = self.failure.nth;
        let hit = self.seen >= first && self.seen - first < self.failure.times;
        hit.then(|| self.failure.action.clone())
    }

    /// Whether this failure can still fire.
    pub(crate) fn is_spent(&self) -> bool {
        self.seen >= self.failure.nth && self.seen - self.failure.nth + 1 >= self.failure.times
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn command(body: bson::Document) -> RecordedCommand {
        RecordedCommand {
            name: body.keys().next().unwrap().clone(),
            db: "d".into(),
            body,
            connection_id: 1,
        }
    }

    #[test]
    fn nth_counts_only_matching_commands() {
        let mut armed = Armed::new(Failure::on("find").nth(2));
        assert_eq!(armed.observe(&command(doc! {"insert": "c"})), None);
        assert_eq!(armed.observe(&command(doc! {"find": "c"})), None);
        assert!(armed.observe(&command(doc! {"find": "c"})).is_some());
        assert!(armed.is_spent());
        assert_eq!(armed.observe(&command(doc! {"find": "c"})), None);
    }

    #[test]
    fn any_command_skips_monitoring() {
        let mut armed = Armed::new(Failure::any_command().close_connection());
        assert_eq!(armed.observe(&command(doc! {"hello": 1})), None);
        assert_eq!(
            armed.observe(&command(doc! {"ping": 1})),
            Some(FailAction::CloseConnection)
        );
    }

    #[test]
    fn matching_picks_commands_by_their_fields() {
        let mut armed = Armed::new(Failure::on("listIndexes").matching(doc! {"listIndexes": "b"}));
        assert_eq!(armed.observe(&command(doc! {"listIndexes": "a"})), None);
        assert!(armed.observe(&command(doc! {"listIndexes": "b"})).is_some());
    }

    #[test]
    fn any_write_counts_writes_only() {
        let mut armed = Armed::new(Failure::any_write().nth(2));
        assert_eq!(armed.observe(&command(doc! {"listIndexes": "a"})), None);
        assert_eq!(armed.observe(&command(doc! {"create": "a"})), None);
        assert_eq!(armed.observe(&command(doc! {"find": "a"})), None);
        assert!(
            armed
                .observe(&command(doc! {"createIndexes": "a"}))
                .is_some()
        );
    }

    #[test]
    fn always_keeps_firing() {
        let mut armed = Armed::new(Failure::on("ping").always());
        for _ in 0..5 {
            assert!(armed.observe(&command(doc! {"ping": 1})).is_some());
        }
        assert!(!armed.is_spent());
    }
}
