//! A `.json` input (one document, or an array of them) as a stream of JSON lines, one per
//! element, so `validate` checks it through the same bounded pipeline as `.jsonl` instead of
//! parsing the whole file into memory first (a 239 MB array took 10.9 GB).
//!
//! Only the array's own structure is read here (brackets, commas, strings, nesting); each
//! element is parsed by the JSON lines path, which names the document and field of an error.

use std::io::{self, Read};

/// Where the splitter is in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the first non-blank byte.
    Start,
    /// Inside `[`, before an element or `]`.
    BeforeElement { first: bool },
    /// Inside an element.
    Element,
    /// After an element of the array, before `,` or `]`.
    AfterElement,
    /// After the array (or the single document): only blanks may follow.
    End,
}

/// Reads a JSON array (or one JSON value) and yields its elements one per line.
pub struct ArrayLines<R> {
    inner: R,
    input: Vec<u8>,
    pos: usize,
    len: usize,
    /// Bytes of the input consumed before `input[pos]` (for error positions).
    offset: u64,
    state: State,
    /// Inside an element: nesting depth, whether in a string, whether after a backslash.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The input is one value, not an array.
    single: bool,
    done: bool,
    /// Bytes made but not yet handed out: `output[emitted..]`.
    output: Vec<u8>,
    emitted: usize,
    /// An error found after bytes still to be handed out: reported on the next read.
    error: Option<io::Error>,
}

impl<R: Read> ArrayLines<R> {
    /// A splitter over `inner`.
    pub fn new(inner: R) -> ArrayLines<R> {
        ArrayLines {
            inner,
            input: vec![0; 64 << 10],
            pos: 0,
            len: 0,
            offset: 0,
            state: State::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            single: false,
            done: false,
            output: Vec::new(),
            emitted: 0,
            error: None,
        }
    }

    fn invalid(&self, what: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("byte {}: {what}", self.offset + self.pos as u64),
        )
    }

    /// Reads one input byte, appending what it becomes to `out`.
    fn step(&mut self, b: u8, out: &mut Vec<u8>) -> io::Result<()> {
        if self.state == State::Element {
            return self.element(b, out);
        }
        let blank = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        match self.state {
            // A UTF-8 byte order mark is allowed before the value.
            State::Start if blank || matches!(b, 0xEF | 0xBB | 0xBF) => {}
            State::Start if b == b'[' => self.state = State::BeforeElement { first: true },
            State::Start => {
                self.single = true;
                self.begin(b, out)?;
            }
            State::BeforeElement { .. } if blank => {}
            State::BeforeElement { first: true } if b == b']' => self.state = State::End,
            State::BeforeElement { .. } if b == b']' || b == b',' => {
                return Err(self.invalid(
                    "expected a document after `[` or `,` (a trailing comma is not JSON)",
                ));
            }
            State::BeforeElement { .. } => self.begin(b, out)?,
            State::AfterElement if blank => {}
            State::AfterElement if b == b',' => {
                self.state = State::BeforeElement { first: false };
            }
            State::AfterElement if b == b']' => self.state = State::End,
            State::AfterElement => {
                return Err(self.invalid("expected `,` or `]` after a document"));
            }
            State::End if blank => {}
            State::End => {
                return Err(self.invalid(if self.single {
                    "text after the document (a .json file holds one document or one array)"
                } else {
                    "text after the array's closing `]`"
                }));
            }
            State::Element => unreachable!("handled above"),
        }
        Ok(())
    }

    fn begin(&mut self, b: u8, out: &mut Vec<u8>) -> io::Result<()> {
        self.state = State::Element;
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        self.element(b, out)
    }

    /// Copies one byte of an element, turning line breaks between tokens into spaces so that
    /// the element is one line, and ends the line when the element is complete.
    fn element(&mut self, b: u8, out: &mut Vec<u8>) -> io::Result<()> {
        if self.in_string {
            match b {
                _ if self.escaped => self.escaped = false,
                b'\\' => self.escaped = true,
                b'"' => self.in_string = false,
                // A raw line break inside a string is not JSON, and the line reader would see
                // half a string: say it here.
                b'\n' | b'\r' => return Err(self.invalid("a line break inside a string")),
                _ => {}
            }
            out.push(b);
            if !self.in_string && self.depth == 0 {
                self.end_element(out);
            }
            return Ok(());
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 0 => {
                self.depth -= 1;
                out.push(b);
                if self.depth == 0 {
                    self.end_element(out);
                }
                return Ok(());
            }
            // A scalar element (a number, `true`, ...) ends at the next delimiter.
            b'}' | b']' | b',' | b' ' | b'\t' | b'\n' | b'\r' if self.depth == 0 => {
                self.end_element(out);
                return self.step(b, out);
            }
            b'\n' | b'\r' => {
                out.push(b' ');
                return Ok(());
            }
            _ => {}
        }
        out.push(b);
        Ok(())
    }

    fn end_element(&mut self, out: &mut Vec<u8>) {
        out.push(b'\n');
        self.state = if self.single {
            State::End
        } else {
            State::AfterElement
        };
    }
}

impl<R: Read> Read for ArrayLines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut out = std::mem::take(&mut self.output);
        if out.len() == self.emitted
            && let Some(e) = self.error.take()
        {
            return Err(e);
        }
        while out.len() - self.emitted < buf.len() && !self.done && self.error.is_none() {
            if self.pos == self.len {
                self.offset += self.len as u64;
                self.pos = 0;
                self.len = loop {
                    match self.inner.read(&mut self.input) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        other => break other?,
                    }
                };
                if self.len == 0 {
                    self.done = true;
                    let unfinished = match self.state {
                        State::Start => Some("empty input; expected a document or an array"),
                        State::BeforeElement { .. } | State::AfterElement => {
                            Some("the array has no closing `]`")
                        }
                        State::Element if self.in_string || self.depth > 0 => {
                            Some("the input ends inside a document")
                        }
                        State::Element => {
                            self.end_element(&mut out);
                            None
                        }
                        State::End => None,
                    };
                    if let Some(what) = unfinished {
                        self.error = Some(self.invalid(what));
                    }
                    break;
                }
            }
            while self.pos < self.len && out.len() - self.emitted < buf.len() {
                let b = self.input[self.pos];
                if let Err(e) = self.step(b, &mut out) {
                    // The documents before the error are still handed out first.
                    self.error = Some(e);
                    self.done = true;
                    break;
                }
                self.pos += 1;
            }
        }
        if out.len() == self.emitted
            && let Some(e) = self.error.take()
        {
            self.output = out;
            return Err(e);
        }
        let n = (out.len() - self.emitted).min(buf.len());
        buf[..n].copy_from_slice(&out[self.emitted..self.emitted + n]);
        self.emitted += n;
        if self.emitted == out.len() {
            out.clear();
            self.emitted = 0;
        }
        self.output = out;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &str) -> io::Result<String> {
        let mut text = String::new();
        let mut reader = ArrayLines::new(input.as_bytes());
        // Tiny reads cross every edge.
        let mut buf = [0u8; 3];
        loop {
            let n = reader.read(&mut buf)?;
            if n == 0 {
                return Ok(text);
            }
            text.push_str(std::str::from_utf8(&buf[..n]).unwrap());
        }
    }

    #[test]
    fn elements_become_lines() {
        let input = "[\n  {\"a\": [1,\n 2], \"s\": \"x,]}\\\"\"},\n  {}\n, 5, \"t\" ,true]\n";
        assert_eq!(
            lines(input).unwrap(),
            "{\"a\": [1,  2], \"s\": \"x,]}\\\"\"}\n{}\n5\n\"t\"\ntrue\n"
        );
        assert_eq!(lines("  {\"a\":\n 1}\n").unwrap(), "{\"a\":  1}\n");
        assert_eq!(lines("[]").unwrap(), "");
    }

    #[test]
    fn broken_arrays_say_where() {
        let err = |input: &str| lines(input).unwrap_err().to_string();
        assert_eq!(
            err("[{}, ]"),
            "byte 5: expected a document after `[` or `,` (a trailing comma is not JSON)"
        );
        assert_eq!(
            err("[{} {}]"),
            "byte 4: expected `,` or `]` after a document"
        );
        assert_eq!(err("[{}"), "byte 3: the array has no closing `]`");
        assert_eq!(
            err("[{\"a\": 1"),
            "byte 8: the input ends inside a document"
        );
        assert_eq!(err("[{}] x"), "byte 5: text after the array's closing `]`");
        assert_eq!(
            err("{} {}"),
            "byte 3: text after the document (a .json file holds one document or one array)"
        );
        assert_eq!(
            err(""),
            "byte 0: empty input; expected a document or an array"
        );
    }
}
