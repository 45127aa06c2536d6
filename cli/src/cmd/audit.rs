//! `audit`: for each declared validator, how many live documents it would reject (counted by the
//! server, with a time limit), a sample of them explained by the local evaluator, and optionally
//! counts per schema version. Read-only: `count` and `aggregate` without `$out`/`$merge`.

use anyhow::Context;
use bson::{Bson, Document, doc};
use mongo_schema::eval;
use mongo_schema::spec::CollectionSpec;
use mongodb::Database;

use crate::args::{AuditArgs, ReportFormat};
use crate::console::Console;
use crate::deployment::{self, block_on};
use crate::report::{CollectionAudit, Sample};
use crate::{Outcome, cmd, render};

/// Audits every declared collection that has a validator.
///
/// # Errors
/// No declarations, connection or authentication failure, a timeout, or a count the server
/// refuses (including one over `--max-time`).
pub fn run(
    args: &AuditArgs,
    linked: Option<&[CollectionSpec]>,
    console: &mut Console,
) -> anyhow::Result<Outcome> {
    let specs = cmd::declared(&args.declared, linked)?;
    let with_validator: Vec<&CollectionSpec> =
        specs.iter().filter(|s| s.validator.is_some()).collect();
    // One step per collection; indicatif draws nothing when stderr is not a terminal.
    let progress = if console.progress {
        indicatif::ProgressBar::new(with_validator.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "audit {bar:30} {pos}/{len} collections, ETA {eta}: {msg}",
        )
        .expect("the template is valid"),
    );
    let mut audits = Vec::new();
    let mut notes = Vec::new();
    let audited = block_on(args.connect.timeout, async {
        let deployment = deployment::connect(&args.connect).await?;
        for spec in &with_validator {
            progress.set_message(spec.name.clone());
            let audit = audit_one(&deployment.db, spec, args)
                .await
                .with_context(|| format!("auditing {}", spec.name))?;
            audits.push(audit);
            progress.inc(1);
        }
        anyhow::Ok(())
    });
    progress.finish_and_clear();
    audited?;
    for spec in &specs {
        if spec.validator.is_none() {
            notes.push(format!(
                "{}: no validator declared, nothing to audit",
                spec.name
            ));
        }
    }
    for note in &notes {
        console.err(&format!("note: {note}\n"));
    }
    let text = match args.output.format.unwrap_or(ReportFormat::Text) {
        ReportFormat::Text => render::human::audit(&audits, console.colour),
        ReportFormat::Json => render::json::audit(&audits),
        ReportFormat::Github => render::github::audit(&audits, args.declared.manifest.as_deref()),
    };
    console.out(&text);
    Ok(if audits.iter().any(|a| a.rejected > 0) {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

async fn audit_one(
    db: &Database,
    spec: &CollectionSpec,
    args: &AuditArgs,
) -> anyhow::Result<CollectionAudit> {
    let validator = spec
        .validator
        .as_ref()
        .map(|v| v.to_document())
        .unwrap_or_default();
    let max_time_ms = i64::try_from(args.max_time.as_millis()).unwrap_or(i64::MAX);
    let mut audit = CollectionAudit {
        collection: spec.name.clone(),
        exists: true,
        total: 0,
        rejected: 0,
        samples: Vec::new(),
        by_version: Vec::new(),
    };
    let listed = command(
        db,
        doc! {"listCollections": 1, "filter": {"name": &spec.name}, "nameOnly": true},
    )
    .await?;
    let first_batch = listed
        .get_document("cursor")
        .and_then(|c| c.get_array("firstBatch"))
        .map(Vec::len)
        .unwrap_or(0);
    if first_batch == 0 {
        audit.exists = false;
        return Ok(audit);
    }
    let rejects = doc! {"$nor": [validator.clone()]};
    audit.total = count(db, &spec.name, Document::new(), max_time_ms).await?;
    audit.rejected = count(db, &spec.name, rejects.clone(), max_time_ms).await?;
    if audit.rejected > 0 && args.sample > 0 {
        let local = eval::Validator::from_validator(&validator).ok();
        let pipeline = vec![
            doc! {"$match": rejects.clone()},
            doc! {"$limit": i64::try_from(args.sample).expect("--sample is at most 1000")},
        ];
        for found in aggregate(db, &spec.name, pipeline, max_time_ms).await? {
            let reasons = match &local {
                Some(v) => match bson::RawDocumentBuf::try_from(&found) {
                    Ok(raw) => v.evaluate(&raw).summaries().to_vec(),
                    Err(_) => Vec::new(),
                },
                None => Vec::new(),
            };
            audit.samples.push(Sample {
                id: found.get("_id").cloned().unwrap_or(Bson::Null),
                reasons,
            });
        }
    }
    if let Some(field) = &args.by_version {
        let group = doc! {"$group": {"_id": format!("${field}"), "n": {"$sum": 1}}};
        let sort = doc! {"$sort": {"_id": 1}};
        let all = aggregate(
            db,
            &spec.name,
            vec![group.clone(), sort.clone()],
            max_time_ms,
        )
        .await?;
        let bad = aggregate(
            db,
            &spec.name,
            vec![doc! {"$match": rejects}, group, sort],
            max_time_ms,
        )
        .await?;
        for row in all {
            let version = row.get("_id").cloned().unwrap_or(Bson::Null);
            let n = number(row.get("n"));
            let rejected = bad
                .iter()
                .find(|b| b.get("_id") == Some(&version))
                .map(|b| number(b.get("n")))
                .unwrap_or(0);
            audit.by_version.push((version, n, rejected));
        }
    }
    Ok(audit)
}

fn number(value: Option<&Bson>) -> i64 {
    match value {
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        // Counts are whole numbers; a server may still send them as doubles.
        Some(Bson::Double(n)) => *n as i64,
        _ => 0,
    }
}

async fn command(db: &Database, body: Document) -> anyhow::Result<Document> {
    let name = body.keys().next().cloned().unwrap_or_default();
    let limit = body.get("maxTimeMS").and_then(Bson::as_i64);
    db.run_command(body)
        .await
        .map_err(|e| failure(&e, limit))
        .with_context(|| format!("{name} failed"))
}

/// The driver error in one sentence; a scan stopped by its time limit says how to raise it.
fn failure(error: &mongodb::error::Error, limit_ms: Option<i64>) -> anyhow::Error {
    let explained = deployment::explain(error);
    match (error.kind.as_ref(), limit_ms) {
        // MaxTimeMSExpired: the server stopped the scan at maxTimeMS.
        (mongodb::error::ErrorKind::Command(c), Some(ms)) if c.code == 50 => anyhow::anyhow!(
            "{explained}: the scan took longer than --max-time ({}); raise it to audit a collection this large",
            deployment::show(std::time::Duration::from_millis(
                u64::try_from(ms).unwrap_or(0)
            ))
        ),
        _ => anyhow::anyhow!("{explained}"),
    }
}

pub(crate) async fn count(
    db: &Database,
    coll: &str,
    query: Document,
    max_time_ms: i64,
) -> anyhow::Result<i64> {
    let reply = command(
        db,
        doc! {"count": coll, "query": query, "maxTimeMS": max_time_ms},
    )
    .await?;
    Ok(number(reply.get("n")))
}

async fn aggregate(
    db: &Database,
    coll: &str,
    pipeline: Vec<Document>,
    max_time_ms: i64,
) -> anyhow::Result<Vec<Document>> {
    let mut cursor = db
        .run_cursor_command(doc! {
            "aggregate": coll, "pipeline": pipeline, "cursor": {}, "maxTimeMS": max_time_ms,
        })
        .await
        .map_err(|e| failure(&e, Some(max_time_ms)))
        .context("aggregate failed")?;
    let mut out = Vec::new();
    while cursor
        .advance()
        .await
        .map_err(|e| failure(&e, Some(max_time_ms)))
        .context("aggregate failed")?
    {
        out.push(Document::try_from(cursor.current()).context("unreadable document")?);
    }
    Ok(out)
}
