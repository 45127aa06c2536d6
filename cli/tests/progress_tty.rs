//! The progress bars as a user sees them: the binary on a pseudo-terminal draws a bar with
//! done/total, rate and ETA on stderr and clears it at the end; the same run with stderr piped
//! draws nothing (issue 16 item 8).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const BIN: &str = env!("CARGO_BIN_EXE_mongo-schema");

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("progress-tty-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A schema and `docs` documents as JSON lines, every tenth one invalid.
fn inputs(d: &Path, docs: usize) -> (PathBuf, PathBuf) {
    let schema = d.join("schema.json");
    std::fs::write(
        &schema,
        r#"{"bsonType": "object", "required": ["n"], "properties": {"n": {"bsonType": "int", "minimum": 1}}}"#,
    )
    .unwrap();
    let input = d.join("docs.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    for i in 0..docs {
        let n = if i % 10 == 0 { 0 } else { 1 + i % 50 };
        writeln!(
            file,
            "{{\"_id\": {i}, \"n\": {n}, \"name\": \"a name long enough to weigh something {i:08}\"}}"
        )
        .unwrap();
    }
    file.flush().unwrap();
    (schema, input)
}

/// Runs the binary with `args` on a pseudo-terminal (stdin, stdout and stderr all on it), and
/// returns everything it wrote and its exit code.
fn on_a_terminal(args: &[&str]) -> (String, u32) {
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pseudo-terminal");
    let mut command = CommandBuilder::new(BIN);
    command.args(args);
    command.env("TERM", "xterm-256color");
    command.env_remove("NO_COLOR");
    let mut child = pty.slave.spawn_command(command).expect("spawn on the pty");
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    // Read until the child closes its side (EIO on Linux once it exits).
    let reading = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
        out
    });
    let status = child.wait().unwrap();
    drop(pty.master);
    let out = reading.join().unwrap();
    (
        String::from_utf8_lossy(&out).into_owned(),
        status.exit_code(),
    )
}

/// Where the bar was last drawn, and whether the line was erased after it (indicatif clears a
/// finished bar with ESC [2K, "erase the whole line", on the bar's line).
fn last_draw_then_cleared(out: &str) -> bool {
    let Some(last) = out.rfind("ETA") else {
        return false;
    };
    out[last..].contains("\x1b[2K")
}

#[cfg(unix)]
#[test]
fn validate_draws_a_bar_on_a_terminal_and_clears_it() {
    let d = dir("validate");
    // About 4.7 MB: several of the pipeline's 1 MiB chunks, each a chance to draw (the bar
    // draws at most 5 times a second, and the first update at once).
    let (schema, input) = inputs(&d, 60_000);
    let size = std::fs::metadata(&input).unwrap().len();
    let schema = schema.to_str().unwrap();
    let input = input.to_str().unwrap();
    let (out, code) = on_a_terminal(&["validate", "--threads", "1", "--schema", schema, input]);
    if let Ok(path) = std::env::var("PROGRESS_TTY_DUMP") {
        std::fs::write(path, &out).unwrap();
    }
    assert_eq!(code, 1, "invalid documents exit 1: {out:?}");
    // The bar: bytes done of the total, a rate, an ETA, and the counts so far.
    assert!(out.contains("ETA"), "no bar drawn on a terminal: {out:?}");
    assert!(out.contains("/s"), "no rate: {out:?}");
    assert!(out.contains(" docs, "), "no document count: {out:?}");
    // `{total_bytes}` is indicatif's HumanBytes of the file size.
    let total = indicatif::HumanBytes(size).to_string();
    assert!(out.contains(&total), "no total {total:?} in {out:?}");
    assert!(
        last_draw_then_cleared(&out),
        "the bar is not cleared at the end: {:?}",
        &out[out.rfind("ETA").unwrap_or(0)..]
    );
    // What stays on screen after the clear is the result, with the final counts.
    let after = &out[out.rfind("\x1b[2K").unwrap()..];
    assert!(
        after.contains("documents: 60000") && after.contains("invalid: 6000"),
        "{after:?}"
    );

    // The same run with stderr piped: no bar, no escape sequence, the same result.
    let piped = Command::new(BIN)
        .args(["validate", "--threads", "1", "--schema", schema, input])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(
        !stderr.contains("ETA"),
        "a bar drawn into a pipe: {stderr:?}"
    );
    assert!(
        !stderr.contains('\x1b'),
        "escape sequences in a pipe: {stderr:?}"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[cfg(unix)]
#[test]
fn infer_draws_the_same_bar_and_clears_it_before_the_source() {
    let d = dir("infer");
    let (_, input) = inputs(&d, 60_000);
    let input = input.to_str().unwrap();
    let (out, code) = on_a_terminal(&["infer", input, "--collection", "docs"]);
    assert_eq!(code, 0, "{out:?}");
    assert!(out.contains("ETA"), "no bar drawn on a terminal: {out:?}");
    assert!(
        last_draw_then_cleared(&out),
        "the bar is not cleared at the end: {:?}",
        &out[out.rfind("ETA").unwrap_or(0)..]
    );
    // The generated source comes after the clear, untouched by the bar.
    let after = &out[out.rfind("\x1b[2K").unwrap()..];
    assert!(after.contains("pub struct"), "{after:?}");
    assert!(!after.contains("ETA"), "{after:?}");
    std::fs::remove_dir_all(&d).ok();
}
