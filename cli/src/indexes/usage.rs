//! Prune with evidence: what `$indexStats` says of each index `--prune` would drop or hide, and
//! the rule that keeps one that may still be in use unless `--force`.
//!
//! `$indexStats` counts, per host, the user operations that used an index (`accesses.ops`) since
//! a moment (`accesses.since`: the server's start, the index's creation or its last `collMod`).
//! It cannot say *when* those operations happened, so an index is dropped only when every host
//! reports 0 operations over at least `--unused-for`. Hiding is the way to get there for an
//! index that shows use: a hidden index serves no query and its counters restart, so after
//! `--unused-for` it either shows 0 operations (drop it) or something complained (unhide it).

use std::collections::BTreeMap;
use std::time::Duration;

use bson::{Bson, DateTime, Document};
use mongo_schema::diff::{Aspect, Change, ChangeKind, Plan, Skipped, Step};
use mongodb::options::{ClientOptions, ServerAddress};
use mongodb::{Client, Database};

use super::{IndexPolicy, span, whole};

/// What one host reports of one index.
#[derive(Clone, Debug, PartialEq)]
pub struct HostUsage {
    /// `host:port` of the reporting `mongod`.
    pub host: String,
    /// Its shard, on a sharded cluster.
    pub shard: Option<String>,
    /// Operations that used the index since `since`.
    pub ops: u64,
    /// When counting started; `None` when the host did not say.
    pub since: Option<DateTime>,
}

/// `$indexStats` of one collection: each index's hosts, by index name.
pub type Usage = BTreeMap<String, Vec<HostUsage>>;

/// Reads `$indexStats` of a collection.
///
/// Source: the manual's `$indexStats` page: one document per index and host with `name`,
/// `host`, `accesses: {ops, since}` and, on a sharded cluster, `shard`; through `mongos` every
/// shard's primary answers. On a replica set only the member the command runs on answers
/// ("accesses reports index usage metrics only for the node where the query runs"), which is
/// why [`describe`] names the hosts that reported.
///
/// # Errors
/// The server refuses the stage (an old server, or a user without the `indexStats` action).
pub async fn read(db: &Database, collection: &str) -> anyhow::Result<Usage> {
    let documents = super::aggregate(db, collection, bson::doc! {"$indexStats": {}}).await?;
    Ok(from_documents(&documents))
}

/// [`read`]'s parsing: entries without a string `name` are skipped.
pub fn from_documents(documents: &[Document]) -> Usage {
    let mut usage = Usage::new();
    for entry in documents {
        let Ok(name) = entry.get_str("name") else {
            continue;
        };
        let accesses = entry.get_document("accesses").ok();
        let host = HostUsage {
            host: entry
                .get_str("host")
                .unwrap_or("an unnamed host")
                .to_owned(),
            shard: entry.get_str("shard").ok().map(str::to_owned),
            ops: whole(accesses.and_then(|a| a.get("ops"))).unwrap_or(0),
            since: match accesses.and_then(|a| a.get("since")) {
                Some(Bson::DateTime(since)) => Some(*since),
                _ => None,
            },
        };
        usage.entry(name.to_owned()).or_default().push(host);
    }
    usage
}

/// What the evidence says of dropping one index.
#[derive(Clone, Debug, PartialEq)]
pub enum Evidence {
    /// Every host reports 0 operations over at least `--unused-for`: safe to drop.
    Unused,
    /// Some host counts operations that used it (when, `$indexStats` cannot say).
    Used {
        /// Operations over all hosts.
        ops: u64,
    },
    /// 0 operations, but some host counts only since `since`, less than `--unused-for` ago.
    TooRecent {
        /// The latest `accesses.since` of the hosts.
        since: DateTime,
    },
    /// No evidence either way, and why.
    Unknown(String),
}

impl Evidence {
    /// Whether the index may be dropped without `--force`.
    pub fn allows_drop(&self) -> bool {
        matches!(self, Evidence::Unused)
    }
}

/// Judges one index's hosts at `now` against `unused_for`.
pub fn judge(hosts: &[HostUsage], now: DateTime, unused_for: Duration) -> Evidence {
    if hosts.is_empty() {
        return Evidence::Unknown("$indexStats reports it on no host".to_owned());
    }
    let ops = hosts.iter().map(|h| h.ops).fold(0u64, u64::saturating_add);
    if ops > 0 {
        return Evidence::Used { ops };
    }
    let mut latest: Option<DateTime> = None;
    for host in hosts {
        let Some(since) = host.since else {
            return Evidence::Unknown(format!("{} reports no accesses.since", host.host));
        };
        latest = Some(latest.map_or(since, |l| l.max(since)));
    }
    let since = latest.expect("hosts is not empty and each has a since");
    if age(since, now) < unused_for {
        Evidence::TooRecent { since }
    } else {
        Evidence::Unused
    }
}

/// How long ago `since` was at `now` (zero when `since` is in the future: a skewed clock).
fn age(since: DateTime, now: DateTime) -> Duration {
    let millis = now
        .timestamp_millis()
        .saturating_sub(since.timestamp_millis());
    Duration::from_millis(u64::try_from(millis).unwrap_or(0))
}

/// A day-rounded age: `61 days`, `less than a day`.
fn days(duration: Duration) -> String {
    match duration.as_secs() / 86_400 {
        0 => "less than a day".to_owned(),
        1 => "1 day".to_owned(),
        n => format!("{n} days"),
    }
}

fn shown(since: DateTime) -> String {
    since
        .try_to_rfc3339_string()
        .unwrap_or_else(|_| since.to_string())
}

/// Each host's counters in words: `0 ops on a:27017 since 2026-10-01T00:00:00Z (61 days)`.
pub fn describe(hosts: &[HostUsage], now: DateTime) -> String {
    if hosts.is_empty() {
        return "reported on no host".to_owned();
    }
    hosts
        .iter()
        .map(|h| {
            let place = match &h.shard {
                Some(shard) => format!("{} (shard {shard})", h.host),
                None => h.host.clone(),
            };
            let since = match h.since {
                Some(since) => format!(" since {} ({})", shown(since), days(age(since, now))),
                None => String::new(),
            };
            format!(
                "{} op{} on {place}{since}",
                h.ops,
                if h.ops == 1 { "" } else { "s" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where the usage of the collections a plan prunes comes from.
pub enum Source<'a> {
    /// A catalog file: it has no `$indexStats`, so drops are marked unproven, not refused
    /// (`apply` always reads the deployment).
    File,
    /// Read from the deployment: per collection, its usage or why it could not be read.
    Live(&'a BTreeMap<String, Result<Usage, String>>),
}

/// The (collection, index) pairs of a plan's pruning steps: drops and hides of indexes nothing
/// declares (not the drop half of a rebuild).
pub fn pruned(plan: &Plan, changes: &[Change]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = plan
        .steps
        .iter()
        .filter_map(|s| prune_target(s, changes))
        .collect();
    out.dedup();
    out
}

/// The index a step prunes: a `dropIndexes` or `collMod` hiding of an index that is an
/// [`ChangeKind::ExtraIndex`] change.
fn prune_target(step: &Step, changes: &[Change]) -> Option<(String, String)> {
    let command = &step.command;
    let name = match command.keys().next().map(String::as_str) {
        Some("dropIndexes") => command.get_str("index").ok()?,
        Some("collMod") => {
            let index = command.get_document("index").ok()?;
            if !index.get_bool("hidden").unwrap_or(false) {
                return None;
            }
            index.get_str("name").ok()?
        }
        _ => return None,
    };
    changes
        .iter()
        .any(|c| {
            c.kind == ChangeKind::ExtraIndex
                && c.collection == step.collection
                && c.aspect == Aspect::Index(name.to_owned())
        })
        .then(|| (step.collection.clone(), name.to_owned()))
}

/// Reads `$indexStats` of every collection the plan prunes, on every member the command can
/// reach, keeping a refusal as its reason.
///
/// On a replica set each member counts only its own operations, so with the client's
/// `members` options each member that `hello` lists (`hosts` and `passives`; arbiters hold no
/// data) is read over a direct connection of its own, and their entries are put together. A
/// member that cannot be read makes the evidence of that collection unknown (the index is
/// kept): an unread member may be the one serving the queries. Without `members`, or on a
/// standalone or a `mongos` (whose `$indexStats` already gathers every shard), the stage runs
/// once.
pub async fn read_pruned(
    db: &Database,
    members: Option<&ClientOptions>,
    plan: &Plan,
    changes: &[Change],
) -> BTreeMap<String, Result<Usage, String>> {
    let mut out = BTreeMap::new();
    let targets = pruned(plan, changes);
    if targets.is_empty() {
        return out;
    }
    let reached = match members {
        Some(options) => member_databases(db, options).await,
        None => Ok(Vec::new()),
    };
    for (collection, _) in targets {
        if out.contains_key(&collection) {
            continue;
        }
        let usage = match &reached {
            Err(why) => Err(why.clone()),
            Ok(each) if each.is_empty() => {
                read(db, &collection).await.map_err(|e| format!("{e:#}"))
            }
            Ok(each) => read_members(each, &collection).await,
        };
        out.insert(collection, usage);
    }
    out
}

/// Each data-bearing member of the replica set `db` belongs to, over a direct connection; empty
/// for a standalone, a `mongos` or a one-member set (the stage then runs once through `db`).
///
/// Source: the manual's `hello` page (`setName`, `hosts` for the electable members, `passives`
/// for priority-0 members, `arbiters` apart) and the driver's `directConnection` option.
async fn member_databases(
    db: &Database,
    options: &ClientOptions,
) -> Result<Vec<(String, Database)>, String> {
    let hello = db
        .run_command(bson::doc! {"hello": 1})
        .await
        .map_err(|e| format!("hello failed: {}", crate::deployment::explain(&e)))?;
    if hello.get_str("setName").is_err() {
        return Ok(Vec::new());
    }
    let mut hosts: Vec<String> = Vec::new();
    for list in ["hosts", "passives"] {
        if let Ok(listed) = hello.get_array(list) {
            hosts.extend(listed.iter().filter_map(|h| h.as_str().map(str::to_owned)));
        }
    }
    if hosts.len() < 2 {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for host in hosts {
        let address = ServerAddress::parse(&host)
            .map_err(|e| format!("member {host}: {}", crate::deployment::explain(&e)))?;
        let mut direct = options.clone();
        direct.hosts = vec![address];
        direct.direct_connection = Some(true);
        direct.repl_set_name = None;
        let client = Client::with_options(direct)
            .map_err(|e| format!("member {host}: {}", crate::deployment::explain(&e)))?;
        crate::deployment::track(&client);
        out.push((host, client.database(db.name())));
    }
    Ok(out)
}

/// `$indexStats` of `collection` on each member, put together (each entry names its host).
async fn read_members(members: &[(String, Database)], collection: &str) -> Result<Usage, String> {
    let mut usage = Usage::new();
    for (host, db) in members {
        let read = read(db, collection)
            .await
            .map_err(|e| format!("member {host} could not be read: {e:#}"))?;
        for (name, hosts) in read {
            let entry = usage.entry(name).or_default();
            for h in hosts {
                if !entry.iter().any(|e| e.host == h.host) {
                    entry.push(h);
                }
            }
        }
    }
    Ok(usage)
}

/// Puts the evidence beside each pruning step and, unless `--force`, turns each drop the
/// evidence does not allow into a skipped change (with the steps that need it), keeping the
/// index. Hides are never refused (a hidden index can be unhidden at once) but show the usage.
pub fn guard(
    plan: &mut Plan,
    changes: &[Change],
    source: &Source<'_>,
    policy: &IndexPolicy,
    now: DateTime,
) {
    let window = span(policy.unused_for);
    let mut refused: Vec<(usize, String)> = Vec::new();
    for (i, step) in plan.steps.iter_mut().enumerate() {
        let Some((collection, index)) = prune_target(step, changes) else {
            continue;
        };
        let is_drop = step
            .command
            .keys()
            .next()
            .is_some_and(|k| k == "dropIndexes");
        let (evidence, hosts) = match source {
            Source::File => {
                step.evidence = Some(bson::doc! {
                    "source": "catalog file",
                    "verdict": "unknown",
                    "reason": "a catalog file has no $indexStats",
                    "unusedFor": window.clone(),
                });
                let note = if is_drop {
                    format!(
                        "usage unknown: a catalog file has no $indexStats; apply reads it and keeps the index unless every host shows 0 ops for {window}"
                    )
                } else {
                    "usage unknown: a catalog file has no $indexStats".to_owned()
                };
                push_risk(step, &note);
                continue;
            }
            Source::Live(read) => match read.get(&collection) {
                Some(Ok(usage)) => {
                    let hosts = usage.get(&index).map(Vec::as_slice).unwrap_or(&[]);
                    (judge(hosts, now, policy.unused_for), Some(hosts))
                }
                Some(Err(why)) => (
                    Evidence::Unknown(format!("$indexStats could not be read: {why}")),
                    None,
                ),
                None => (
                    Evidence::Unknown("$indexStats was not read".to_owned()),
                    None,
                ),
            },
        };
        let described = hosts.map(|h| describe(h, now)).unwrap_or_default();
        let hosts = hosts.unwrap_or_default();
        let decision = match (is_drop, evidence.allows_drop(), policy.force) {
            (false, _, _) => "hide",
            (true, true, _) => "drop",
            (true, false, true) => "forced",
            (true, false, false) => "kept",
        };
        step.evidence = Some(evidence_document(&evidence, hosts, &window, decision, now));
        let evidence_text = if described.is_empty() {
            String::new()
        } else {
            format!("$indexStats: {described}")
        };
        if !is_drop || evidence.allows_drop() {
            if !evidence_text.is_empty() {
                push_risk(step, &evidence_text);
            }
            continue;
        }
        if policy.force {
            push_risk(
                step,
                &format!(
                    "forced past the usage evidence: {}",
                    reason(&evidence, &window, now)
                ),
            );
            if !evidence_text.is_empty() {
                push_risk(step, &evidence_text);
            }
            continue;
        }
        let mut why = format!("kept: {}", reason(&evidence, &window, now));
        if !evidence_text.is_empty() {
            why.push_str(&format!(" ({evidence_text})"));
        }
        refused.push((i, why));
    }
    if !refused.is_empty() {
        remove_steps(plan, refused);
    }
}

/// The evidence as the JSON plan gives it: `{source: "$indexStats", verdict: "unused" | "used" |
/// "tooRecent" | "unknown", decision: "drop" | "kept" | "forced" | "hide", unusedFor, reason,
/// ops?, since?, hosts: [{host, shard?, ops, since?}]}`.
fn evidence_document(
    evidence: &Evidence,
    hosts: &[HostUsage],
    window: &str,
    decision: &str,
    now: DateTime,
) -> bson::Document {
    let verdict = match evidence {
        Evidence::Unused => "unused",
        Evidence::Used { .. } => "used",
        Evidence::TooRecent { .. } => "tooRecent",
        Evidence::Unknown(_) => "unknown",
    };
    let mut d = bson::doc! {
        "source": "$indexStats",
        "verdict": verdict,
        "decision": decision,
        "unusedFor": window,
        "reason": reason(evidence, window, now),
    };
    match evidence {
        Evidence::Used { ops } => {
            d.insert("ops", i64::try_from(*ops).unwrap_or(i64::MAX));
        }
        Evidence::TooRecent { since } => {
            d.insert("since", *since);
        }
        Evidence::Unused | Evidence::Unknown(_) => {}
    }
    let hosts: Vec<bson::Bson> = hosts
        .iter()
        .map(|h| {
            let mut host = bson::doc! {
                "host": h.host.clone(),
                "ops": i64::try_from(h.ops).unwrap_or(i64::MAX),
            };
            if let Some(shard) = &h.shard {
                host.insert("shard", shard.clone());
            }
            if let Some(since) = h.since {
                host.insert("since", since);
            }
            bson::Bson::Document(host)
        })
        .collect();
    d.insert("hosts", hosts);
    d
}

/// The lines `apply --yes` prints for the drops the evidence kept (and the steps held back
/// with them): `kept: articles: index author_1: 1 operation used it, ...`.
pub fn kept_by_evidence(plan: &Plan) -> Vec<String> {
    plan.skipped
        .iter()
        .filter_map(|s| {
            let reason = s.reason.strip_prefix("kept: ").or_else(|| {
                s.reason
                    .contains("which the usage evidence keeps")
                    .then_some(s.reason.as_str())
            })?;
            Some(format!("kept: {}: {}: {reason}", s.collection, s.aspect))
        })
        .collect()
}

/// Why the evidence keeps an index, and the way out.
fn reason(evidence: &Evidence, window: &str, now: DateTime) -> String {
    match evidence {
        Evidence::Unused => "unused".to_owned(),
        Evidence::Used { ops } => format!(
            "{ops} operation{} used it, and $indexStats cannot say when, so it may be in use within --unused-for {window}; hide it first (--prune --hide: queries stop using it and its counters restart) and drop it once it shows 0 ops for {window}, or drop it anyway with --force",
            if *ops == 1 { "" } else { "s" }
        ),
        Evidence::TooRecent { since } => format!(
            "0 operations, but counted only since {} ({} ago: the counters restart when the server restarts or the index is created or modified), less than --unused-for {window}; plan again later, or drop it anyway with --force",
            shown(*since),
            days(age(*since, now))
        ),
        Evidence::Unknown(why) => format!("no usage evidence ({why}); drop it anyway with --force"),
    }
}

fn push_risk(step: &mut Step, text: &str) {
    step.risk = Some(match step.risk.take() {
        Some(risk) => format!("{risk}; {text}"),
        None => text.to_owned(),
    });
}

/// Removes the refused steps and every step that needs one of them (transitively), recording
/// each as skipped, and renumbers [`Step::depends_on`].
fn remove_steps(plan: &mut Plan, refused: Vec<(usize, String)>) {
    let mut removed: BTreeMap<usize, String> = refused.into_iter().collect();
    for j in 0..plan.steps.len() {
        if removed.contains_key(&j) {
            continue;
        }
        if let Some(&needed) = plan.steps[j]
            .depends_on
            .iter()
            .find(|d| removed.contains_key(d))
        {
            let why = format!(
                "not planned: it needs the drop of {} ({}: {}), which the usage evidence keeps",
                needed_name(&plan.steps[needed]),
                plan.steps[needed].collection,
                plan.steps[needed].summary
            );
            removed.insert(j, why);
        }
    }
    let mut kept = Vec::new();
    let mut new_position: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, step) in std::mem::take(&mut plan.steps).into_iter().enumerate() {
        match removed.get(&i) {
            Some(why) => plan.skipped.push(skipped(&step, why.clone())),
            None => {
                new_position.insert(i, kept.len());
                kept.push(step);
            }
        }
    }
    for step in &mut kept {
        step.depends_on = step
            .depends_on
            .iter()
            .filter_map(|d| new_position.get(d).copied())
            .collect();
    }
    plan.steps = kept;
}

fn needed_name(step: &Step) -> String {
    step.command
        .get_str("index")
        .map_or_else(|_| "an index".to_owned(), |n| format!("index {n}"))
}

/// A removed step as the change it would have made.
fn skipped(step: &Step, reason: String) -> Skipped {
    let command = &step.command;
    let (aspect, kind) = match command.keys().next().map(String::as_str) {
        Some("dropIndexes") => (
            Aspect::Index(command.get_str("index").unwrap_or_default().to_owned()),
            ChangeKind::ExtraIndex,
        ),
        Some("createIndexes") => (
            Aspect::Index(
                command
                    .get_array("indexes")
                    .ok()
                    .and_then(|a| a.first()?.as_document()?.get_str("name").ok())
                    .unwrap_or_default()
                    .to_owned(),
            ),
            ChangeKind::MissingIndex,
        ),
        _ => (
            command
                .get_document("index")
                .ok()
                .and_then(|i| i.get_str("name").ok())
                .map_or(Aspect::Collection, |n| Aspect::Index(n.to_owned())),
            ChangeKind::InPlace,
        ),
    };
    let mut skipped = Skipped::new(step.collection.clone(), aspect, kind, reason);
    skipped.evidence = step.evidence.clone();
    skipped
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000;

    fn host(ops: u64, since_days_ago: i64, now: DateTime) -> HostUsage {
        HostUsage {
            host: "a:27017".to_owned(),
            shard: None,
            ops,
            since: Some(DateTime::from_millis(
                now.timestamp_millis() - since_days_ago * DAY,
            )),
        }
    }

    #[test]
    fn an_index_unused_long_enough_on_every_host_may_go() {
        let now = DateTime::from_millis(100 * DAY);
        let hosts = [host(0, 30, now), host(0, 15, now)];
        assert_eq!(
            judge(&hosts, now, super::super::DEFAULT_UNUSED_FOR),
            Evidence::Unused
        );
    }

    #[test]
    fn one_operation_on_one_host_keeps_it() {
        let now = DateTime::from_millis(100 * DAY);
        let hosts = [host(0, 30, now), host(1, 30, now)];
        assert_eq!(
            judge(&hosts, now, super::super::DEFAULT_UNUSED_FOR),
            Evidence::Used { ops: 1 }
        );
    }

    #[test]
    fn counters_younger_than_the_window_keep_it() {
        let now = DateTime::from_millis(100 * DAY);
        let hosts = [host(0, 30, now), host(0, 3, now)];
        let Evidence::TooRecent { since } = judge(&hosts, now, super::super::DEFAULT_UNUSED_FOR)
        else {
            panic!("expected too recent");
        };
        assert_eq!(since.timestamp_millis(), 97 * DAY);
    }

    #[test]
    fn no_host_or_no_since_is_no_evidence() {
        let now = DateTime::from_millis(100 * DAY);
        assert!(matches!(
            judge(&[], now, Duration::from_secs(1)),
            Evidence::Unknown(_)
        ));
        let mut h = host(0, 30, now);
        h.since = None;
        assert!(matches!(
            judge(&[h], now, Duration::from_secs(1)),
            Evidence::Unknown(_)
        ));
    }

    #[test]
    fn a_clock_behind_the_server_is_not_a_negative_age() {
        let now = DateTime::from_millis(100 * DAY);
        let hosts = [host(0, -2, now)];
        assert!(matches!(
            judge(&hosts, now, Duration::from_secs(60)),
            Evidence::TooRecent { .. }
        ));
    }

    #[test]
    fn index_stats_documents_group_by_index() {
        let since = DateTime::from_millis(DAY);
        let docs = [
            bson::doc! {"name": "a_1", "key": {"a": 1}, "host": "h1:1", "accesses": {"ops": 3_i64, "since": since}, "shard": "s1"},
            bson::doc! {"name": "a_1", "key": {"a": 1}, "host": "h2:1", "accesses": {"ops": 0, "since": since}, "shard": "s2"},
            bson::doc! {"name": "b_1", "host": "h1:1", "accesses": {"ops": 0.0}},
            bson::doc! {"host": "nameless"},
        ];
        let usage = from_documents(&docs);
        assert_eq!(usage.len(), 2);
        assert_eq!(usage["a_1"].len(), 2);
        assert_eq!(usage["a_1"][0].ops, 3);
        assert_eq!(usage["a_1"][1].shard.as_deref(), Some("s2"));
        assert_eq!(usage["b_1"][0].since, None);
        let text = describe(&usage["a_1"], DateTime::from_millis(3 * DAY));
        assert_eq!(
            text,
            "3 ops on h1:1 (shard s1) since 1970-01-02T00:00:00Z (2 days), 0 ops on h2:1 (shard s2) since 1970-01-02T00:00:00Z (2 days)"
        );
    }

    fn step(collection: &str, command: Document, depends_on: Vec<usize>) -> Step {
        let mut step = Step::new(collection, command, "a step");
        step.depends_on = depends_on;
        step
    }

    #[test]
    fn a_kept_drop_holds_back_the_build_that_needs_its_name() {
        let extra = Change::new(
            "c",
            Aspect::Index("a_1".to_owned()),
            ChangeKind::ExtraIndex,
            "",
        );
        let mut plan = Plan {
            steps: vec![
                step(
                    "c",
                    bson::doc! {"createIndexes": "c", "indexes": [{"key": {"b": 1}, "name": "b_1"}]},
                    vec![],
                ),
                step("c", bson::doc! {"dropIndexes": "c", "index": "a_1"}, vec![]),
                step(
                    "c",
                    bson::doc! {"createIndexes": "c", "indexes": [{"key": {"z": 1}, "name": "a_1"}]},
                    vec![1],
                ),
                step(
                    "c",
                    bson::doc! {"collMod": "c", "index": {"name": "b_1", "hidden": false}},
                    vec![0],
                ),
            ],
            skipped: Vec::new(),
            proposals: Vec::new(),
        };
        let now = DateTime::from_millis(100 * DAY);
        let usage = BTreeMap::from([(
            "c".to_owned(),
            Ok(Usage::from([("a_1".to_owned(), vec![host(2, 30, now)])])),
        )]);
        guard(
            &mut plan,
            &[extra],
            &Source::Live(&usage),
            &IndexPolicy::default(),
            now,
        );
        let kinds: Vec<&str> = plan
            .steps
            .iter()
            .map(|s| s.command.keys().next().unwrap().as_str())
            .collect();
        assert_eq!(kinds, ["createIndexes", "collMod"]);
        assert_eq!(plan.steps[1].depends_on, vec![0], "renumbered");
        assert_eq!(plan.skipped.len(), 2);
        assert_eq!(plan.skipped[0].kind, ChangeKind::ExtraIndex);
        assert!(
            plan.skipped[0]
                .reason
                .starts_with("kept: 2 operations used it"),
            "{}",
            plan.skipped[0].reason
        );
        assert_eq!(plan.skipped[1].kind, ChangeKind::MissingIndex);
        assert!(
            plan.skipped[1]
                .reason
                .contains("needs the drop of index a_1"),
            "{}",
            plan.skipped[1].reason
        );
    }

    proptest::proptest! {
        /// Whatever the hosts say, a drop is allowed only when no host counts an operation and
        /// every host has counted for at least the window.
        #[test]
        fn a_drop_is_allowed_only_on_full_evidence(
            hosts in proptest::collection::vec((0u64..3, -5i64..40), 0..4),
            window_days in 1u64..30,
        ) {
            let now = DateTime::from_millis(1000 * DAY);
            let hosts: Vec<HostUsage> = hosts.iter().map(|(ops, ago)| host(*ops, *ago, now)).collect();
            let window = Duration::from_secs(window_days * 86_400);
            let allowed = judge(&hosts, now, window).allows_drop();
            let expected = !hosts.is_empty()
                && hosts.iter().all(|h| h.ops == 0)
                && hosts.iter().all(|h| age(h.since.unwrap(), now) >= window);
            proptest::prop_assert_eq!(allowed, expected);
        }
    }
}
