//! Where `validate` located a break: the file, the byte offset or line, and how many
//! documents were read before it.

use mongo_schema::plural;

use super::check::Broken;
use super::source::Framing;

/// Counts before a chunk, per input: where errors are located.
pub(crate) struct Place<'a> {
    pub(crate) name: &'a str,
    pub(crate) framing: Framing,
    pub(crate) offset: u64,
    pub(crate) docs: u64,
    pub(crate) lines: u64,
}

impl Place<'_> {
    /// The message for a broken chunk: the file, the byte offset or line, and how many
    /// documents were read before.
    pub(crate) fn describe(&self, broken: Broken) -> anyhow::Error {
        let Place {
            name,
            offset,
            docs,
            lines,
            ..
        } = *self;
        let at = |p: usize| offset + p as u64;
        let read = plural::count(docs, "document");
        match broken {
            Broken::ShortLength { at: p, have } => anyhow::anyhow!(
                "{name}: truncated at byte {}: {} of a document length, after {read}",
                at(p),
                plural::count(have, "byte")
            ),
            Broken::Implausible { at: p, len } => anyhow::anyhow!(
                "{name}: byte {}: document length {len} is not plausible (5 bytes to 48 MiB), after {read}",
                at(p)
            ),
            Broken::Truncated { at: p, len, have } => anyhow::anyhow!(
                "{name}: truncated at byte {}: the document starting at byte {} needs {len} bytes, {have} remain; {read} read before",
                at(p + have),
                at(p)
            ),
            Broken::Malformed { at: p, line, error } => {
                let where_ = match self.framing {
                    Framing::Bson => format!("byte {}", at(p + error.offset)),
                    Framing::Lines | Framing::Array => self.unit(lines + line),
                };
                anyhow::anyhow!("{name}: {where_}: {}; {read} read before", error.reason)
            }
            Broken::Json { line, error } => {
                let at = if error.path.is_empty() {
                    String::new()
                } else {
                    format!(", at {}", error.path)
                };
                // An array's element was made one line here: its column means nothing to
                // the reader of the file, the field path does.
                let column = match self.framing {
                    Framing::Array => String::new(),
                    _ => format!(", column {}", error.column),
                };
                anyhow::anyhow!(
                    "{name}: {}{column}{at}: {}; {read} read before",
                    self.unit(lines + line),
                    error.message
                )
            }
            Broken::Unstorable { line } => anyhow::anyhow!(
                "{name}: {}: a field name holds a NUL character, which BSON cannot store; \
                 {read} read before",
                self.unit(lines + line)
            ),
            Broken::Io(error) => match self.framing {
                // The array splitter's own errors say where in the file.
                Framing::Array if error.kind() == std::io::ErrorKind::InvalidData => {
                    anyhow::anyhow!("{name}: {error}; {read} read before")
                }
                _ => {
                    anyhow::Error::new(error).context(format!("reading {name}; {read} read before"))
                }
            },
            Broken::Overlong { line, len } => anyhow::anyhow!(
                "{name}: {} has no end within {len} bytes; {read} read before",
                self.unit(lines + line)
            ),
        }
    }

    /// A JSON line's place: its line, or for an array its position (1-based).
    pub(crate) fn unit(&self, line: u64) -> String {
        match self.framing {
            Framing::Array => format!("document {line} of the array"),
            _ => format!("line {line}"),
        }
    }
}
