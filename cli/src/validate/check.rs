//! The parallel part of `validate`: a worker checks the documents of its framed chunk and
//! reduces the verdicts to counts, rules with a few examples, and rendered JSON lines.

use std::collections::HashMap;

use bson::{Bson, RawDocumentBuf};
use mongo_schema::eval::{MalformedBson, Validator, Verdict};
use mongo_schema::extjson::{self, ExtJsonError};

use super::MAX_DOC;
use super::framing::Framed;
use super::source::{Framing, Raw};
use crate::args::ValidateFormat;

/// Where and how a chunk stops being readable, relative to the chunk (the writer adds where the
/// chunk starts and how many documents and lines came before).
#[derive(Debug)]
pub(crate) enum Broken {
    /// Fewer than 4 bytes left for a document length.
    ShortLength { at: usize, have: usize },
    /// A document length outside 5 bytes to [`MAX_DOC`].
    Implausible { at: usize, len: i32 },
    /// The input ends inside the document starting at `at`.
    Truncated { at: usize, len: usize, have: usize },
    /// The document starting at `at` (on `line`, for JSON lines) is not valid BSON.
    Malformed {
        at: usize,
        line: u64,
        error: MalformedBson,
    },
    /// A line that is not an Extended JSON document (the error's line is always 1).
    Json { line: u64, error: ExtJsonError },
    /// A document BSON cannot hold (a NUL character in a field name).
    Unstorable { line: u64 },
    /// A line without an end within `len` bytes (the reader's limit).
    Overlong { line: u64, len: usize },
    /// Reading the input failed after the chunk's documents.
    Io(std::io::Error),
}

/// An example document of a failing rule: its `_id` as relaxed Extended JSON, or its position
/// in the chunk when it has none.
#[derive(Clone)]
pub(super) enum Example {
    Id(String),
    Index(u64),
}

/// One failing rule in a chunk: how often, a few example documents, and the first failure's
/// one-line summary (`items.0.qty: 0 is less than the minimum 1`).
#[derive(Default)]
pub(super) struct RuleSeen {
    pub(super) count: u64,
    pub(super) examples: Vec<Example>,
    pub(super) first: String,
}

/// What a worker makes of a chunk: compact results (counts, rules with a few examples, the
/// rendered JSON lines), never the verdicts themselves.
pub(super) struct Done {
    pub(super) seq: usize,
    pub(super) offset: u64,
    /// The chunk's buffer, back as a credit.
    pub(super) buffer: Vec<u8>,
    /// Input bytes framed in this chunk (for the progress line).
    pub(super) bytes: usize,
    /// Documents checked (before `broken`, if any).
    pub(super) docs: u64,
    /// Lines consumed (JSON lines).
    pub(super) lines: u64,
    pub(super) invalid: u64,
    /// Documents not fully checked, per reason ([`Verdict::skipped`], joined).
    pub(super) open: HashMap<String, u64>,
    pub(super) rules: HashMap<String, RuleSeen>,
    /// Scratch space for one document's rule keys.
    pub(super) keys: String,
    /// `--format jsonl`: each document's line after `{"index":N`; `ends` marks where each ends.
    pub(super) out: Vec<u8>,
    pub(super) ends: Vec<usize>,
    pub(super) broken: Option<Broken>,
}

/// What every worker needs, shared.
pub(super) struct Job<'a> {
    pub(super) validator: &'a Validator,
    pub(super) framing: Framing,
    pub(super) format: ValidateFormat,
    pub(super) examples: usize,
}

/// The worker's part after the cut: frames the documents, checks each one's structure, parses
/// JSON lines, evaluates, and reduces the verdicts to a [`Done`].
pub(super) fn check_framed(job: &Job<'_>, framed: Framed, raw: Raw) -> Done {
    let mut done = Done {
        seq: raw.seq,
        offset: framed.origin,
        buffer: Vec::new(),
        bytes: framed.joined.len() + framed.body.len(),
        docs: 0,
        lines: 0,
        invalid: 0,
        open: HashMap::new(),
        rules: HashMap::new(),
        keys: String::new(),
        out: Vec::new(),
        ends: Vec::new(),
        broken: None,
    };
    let body = &raw.bytes[framed.body.clone()];
    if done.check(job, &framed.joined, 0) {
        done.check(job, body, framed.head + framed.body.start);
    }
    if done.broken.is_none() {
        if let Some(len) = framed.overlong {
            done.broken = Some(Broken::Overlong {
                line: done.lines + 1,
                len,
            });
        } else if let Some(error) = raw.error {
            done.broken = Some(Broken::Io(error));
        }
    }
    done.buffer = raw.bytes;
    done
}

impl Done {
    /// Checks the documents or lines in `b`, which starts `base` bytes after the chunk's origin;
    /// `false` once the input is broken.
    pub(super) fn check(&mut self, job: &Job<'_>, b: &[u8], base: usize) -> bool {
        let mut lines = self.lines;
        let read = each_document(job.framing, b, base, &mut lines, |doc| {
            let verdict = job.validator.validate_bytes(doc)?;
            self.record(job, &verdict, doc);
            Ok(())
        });
        self.lines = lines;
        match read {
            Ok(()) => true,
            Err(broken) => {
                self.broken = Some(broken);
                false
            }
        }
    }
}

/// Calls `f` on each document framed in `b` (which starts `base` bytes after the chunk's
/// origin), counting JSON lines in `lines`; stops at the first break, or when `f` finds a
/// document malformed.
pub(crate) fn each_document(
    framing: Framing,
    b: &[u8],
    base: usize,
    lines: &mut u64,
    mut f: impl FnMut(&[u8]) -> Result<(), MalformedBson>,
) -> Result<(), Broken> {
    match framing {
        Framing::Bson => {
            let mut p = 0;
            while p < b.len() {
                let rest = b.len() - p;
                let at = base + p;
                let Some(len) = b.get(p..p + 4) else {
                    return Err(Broken::ShortLength { at, have: rest });
                };
                let n = i32::from_le_bytes(len.try_into().expect("a slice of 4 bytes"));
                if !(5..=MAX_DOC).contains(&n) {
                    return Err(Broken::Implausible { at, len: n });
                }
                let n = n as usize;
                if rest < n {
                    return Err(Broken::Truncated {
                        at,
                        len: n,
                        have: rest,
                    });
                }
                f(&b[p..p + n]).map_err(|error| Broken::Malformed { at, line: 0, error })?;
                p += n;
            }
        }
        Framing::Lines | Framing::Array => {
            let mut p = 0;
            while p < b.len() {
                let end = b[p..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |i| p + i);
                let line = &b[p..end];
                p = end + 1;
                *lines += 1;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let raw = json_line(line, *lines)?;
                f(raw.as_bytes()).map_err(|error| Broken::Malformed {
                    at: 0,
                    line: *lines,
                    error,
                })?;
            }
        }
    }
    Ok(())
}

/// One line of Extended JSON as BSON.
pub(super) fn json_line(line: &[u8], number: u64) -> Result<RawDocumentBuf, Broken> {
    let doc = extjson::parse_document_slice(line).map_err(|error| Broken::Json {
        line: number,
        error,
    })?;
    RawDocumentBuf::try_from(&doc).map_err(|_| Broken::Unstorable { line: number })
}

/// Ranks failures by rule: the keyword at a path with array positions folded together.
/// Appends the rule of a failure to `key`: the keyword at a path with array positions folded
/// together (`items.[].qty (minimum)`).
pub(super) fn push_rule_key(key: &mut String, path: &str, keyword: &str) {
    for (i, part) in path.split('.').enumerate() {
        if i > 0 {
            key.push('.');
        }
        key.push_str(if part.bytes().all(|b| b.is_ascii_digit()) {
            "[]"
        } else {
            part
        });
    }
    key.push_str(" (");
    key.push_str(keyword);
    key.push(')');
}

impl Done {
    pub(super) fn record(&mut self, job: &Job<'_>, verdict: &Verdict, doc: &[u8]) {
        let local = self.docs;
        self.docs += 1;
        let jsonl = job.format == ValidateFormat::Jsonl;
        let id = || {
            bson::RawDocument::from_bytes(doc)
                .ok()
                .and_then(|d| d.get("_id").ok().flatten())
                .and_then(|v| Bson::try_from(v).ok())
                .map(Bson::into_relaxed_extjson)
        };
        if verdict.is_valid() {
            if jsonl {
                self.out.extend_from_slice(b",\"_id\":");
                write_json(&mut self.out, &id().unwrap_or(serde_json::Value::Null));
                self.out.extend_from_slice(b",\"valid\":true}\n");
                self.ends.push(self.out.len());
            }
            return;
        }
        if !verdict.is_fully_checked() {
            // Neither valid nor invalid: counted apart, never ranked as a failing rule.
            let reason = verdict.skipped().join(", ");
            if jsonl {
                self.out.extend_from_slice(b",\"_id\":");
                write_json(&mut self.out, &id().unwrap_or(serde_json::Value::Null));
                self.out
                    .extend_from_slice(b",\"valid\":null,\"notFullyChecked\":");
                write_json(&mut self.out, &reason);
                self.out.extend_from_slice(b"}\n");
                self.ends.push(self.out.len());
            }
            *self.open.entry(reason).or_default() += 1;
            return;
        }
        self.invalid += 1;
        if jsonl {
            self.render(id(), verdict);
            return;
        }
        // This document's rules, each once, in `keys` (reused, so steady state allocates only
        // for a rule the chunk has not seen).
        let mut keys = std::mem::take(&mut self.keys);
        let failures = verdict.failures();
        let mut spans: Vec<(std::ops::Range<usize>, usize)> = Vec::with_capacity(failures.len());
        keys.clear();
        for (i, f) in failures.iter().enumerate() {
            let start = keys.len();
            push_rule_key(&mut keys, &f.path, f.keyword);
            if spans.iter().any(|(r, _)| keys[r.clone()] == keys[start..]) {
                keys.truncate(start);
            } else {
                spans.push((start..keys.len(), i));
            }
        }
        // The id is rendered only while a rule still wants examples.
        let mut shown: Option<Example> = None;
        for (span, i) in spans {
            let key = &keys[span];
            let seen = match self.rules.get_mut(key) {
                Some(entry) => entry,
                None => self
                    .rules
                    .entry(key.to_string())
                    .or_insert_with(|| RuleSeen {
                        first: failures[i].to_string(),
                        ..RuleSeen::default()
                    }),
            };
            seen.count += 1;
            if seen.examples.len() < job.examples {
                let example = shown.get_or_insert_with(|| match id() {
                    Some(v) => Example::Id(v.to_string()),
                    None => Example::Index(local),
                });
                seen.examples.push(example.clone());
            }
        }
        self.keys = keys;
    }

    /// `,"_id":...,"valid":false,"errors":[...],"summaries":[...]}` and a newline.
    pub(super) fn render(&mut self, id: Option<serde_json::Value>, verdict: &Verdict) {
        let out = &mut self.out;
        out.extend_from_slice(b",\"_id\":");
        write_json(out, &id.unwrap_or(serde_json::Value::Null));
        out.extend_from_slice(b",\"valid\":false");
        if let Some(d) = verdict.details() {
            let errors = d
                .get_array("schemaRulesNotSatisfied")
                .map(|a| Bson::Array(a.clone()))
                .unwrap_or_else(|_| Bson::Array(vec![Bson::Document(d.clone())]));
            out.extend_from_slice(b",\"errors\":");
            write_json(out, &errors.into_relaxed_extjson());
            out.extend_from_slice(b",\"summaries\":");
            write_json(out, &verdict.summaries());
        }
        out.extend_from_slice(b"}\n");
        self.ends.push(out.len());
    }
}

pub(super) fn write_json(out: &mut Vec<u8>, value: &impl serde::Serialize) {
    serde_json::to_writer(out, value).expect("JSON values and strings serialize to memory");
}
