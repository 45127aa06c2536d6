//! Where a command's words go: reports to stdout, diagnostics to stderr, answers from stdin.
//! Every line passes through the redactor, so no secret the command was given can be printed.

use std::io::{self, BufRead, IsTerminal, Write};

use crate::redact;

enum Sink {
    Stdout,
    Stderr,
    Buffer(Vec<u8>),
}

impl Sink {
    fn write(&mut self, text: &str) {
        // A closed pipe (`mongo-schema check | head`) is not worth a panic or an error of its own.
        let _ = match self {
            Sink::Stdout => io::stdout().lock().write_all(text.as_bytes()),
            Sink::Stderr => io::stderr().lock().write_all(text.as_bytes()),
            Sink::Buffer(buffer) => {
                buffer.extend_from_slice(text.as_bytes());
                Ok(())
            }
        };
    }
}

/// The terminal (or, in tests, buffers) a command talks to.
pub struct Console {
    out: Sink,
    err: Sink,
    input: Box<dyn BufRead>,
    /// Reports may use ANSI colours: stdout is a terminal and `NO_COLOR` is unset (or
    /// `CLICOLOR_FORCE` is set), as `anstream` decides it for clap too.
    pub colour: bool,
    /// Someone can answer a question: stdin and stdout are terminals.
    pub interactive: bool,
    /// Progress may be drawn on stderr: stderr is a terminal.
    pub progress: bool,
    secrets: Vec<String>,
}

impl Console {
    /// The process's own stdout, stderr and stdin.
    pub fn std() -> Self {
        let out_tty = io::stdout().is_terminal();
        Console {
            out: Sink::Stdout,
            err: Sink::Stderr,
            input: Box::new(io::BufReader::new(io::stdin())),
            colour: anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never,
            interactive: out_tty && io::stdin().is_terminal(),
            progress: io::stderr().is_terminal(),
            secrets: Vec::new(),
        }
    }

    /// Buffers for tests: nothing is a terminal, answers are read from `input`.
    pub fn captured(input: &str) -> Self {
        Console {
            out: Sink::Buffer(Vec::new()),
            err: Sink::Buffer(Vec::new()),
            input: Box::new(io::Cursor::new(input.as_bytes().to_vec())),
            colour: false,
            interactive: false,
            progress: false,
            secrets: Vec::new(),
        }
    }

    /// Registers the secrets of a connection string, so they are masked in all later output.
    pub fn protect_uri(&mut self, uri: &str) {
        self.secrets.extend(redact::secrets_of(uri));
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        self.secrets.dedup();
    }

    /// Writes report text to stdout.
    pub fn out(&mut self, text: &str) {
        let clean = redact::scrub(text, &self.secrets);
        self.out.write(&clean);
    }

    /// Writes a diagnostic to stderr.
    pub fn err(&mut self, text: &str) {
        let clean = redact::scrub(text, &self.secrets);
        self.err.write(&clean);
    }

    /// Asks a yes/no question on stderr and reads the answer; anything but `y`/`yes` is no.
    pub fn confirm(&mut self, question: &str) -> bool {
        self.err(&format!("{question} [y/N] "));
        let mut answer = String::new();
        if self.input.read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    }

    /// What was written to stdout, for a captured console (empty otherwise).
    pub fn stdout_text(&self) -> String {
        match &self.out {
            Sink::Buffer(b) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        }
    }

    /// What was written to stderr, for a captured console (empty otherwise).
    pub fn stderr_text(&self) -> String {
        match &self.err {
            Sink::Buffer(b) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        }
    }
}
