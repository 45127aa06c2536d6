//! `mongo-schema validate` as a process: memory on a large `.json` array, a closed stdout, and
//! BSON on stdin (what needs the real binary, its stdin and stdout).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_mongo-schema");

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("validate-process-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn schema(d: &Path) -> PathBuf {
    let p = d.join("schema.json");
    std::fs::write(
        &p,
        r#"{"bsonType": "object", "required": ["n"], "properties": {"n": {"bsonType": "int", "minimum": 1}}}"#,
    )
    .unwrap();
    p
}

/// The peak resident set of a running process (`VmHWM`), in KiB.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Issue 16 item 2: a `.json` array streams through the pipeline. Read whole, a 239 MB array
/// took 10.9 GB; here a ~120 MB one must stay under 100 MB of peak RSS (the pipeline keeps at
/// most 16 MiB of input in flight). The peak is the kernel's high-water mark, read while the
/// process runs: it only grows, so the last reading before the exit is a lower bound of the peak,
/// and reading the whole file would pass the bound long before the end.
#[cfg(target_os = "linux")]
#[test]
fn a_large_json_array_is_checked_in_flat_memory() {
    let d = dir("rss");
    let input = d.join("big.json");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
    let docs = 800_000;
    writeln!(file, "[").unwrap();
    for i in 0..docs {
        let sep = if i + 1 < docs { "," } else { "" };
        // Pretty-printed over lines, as `mongoexport --jsonArray --pretty` writes it.
        writeln!(
            file,
            "  {{\n    \"_id\": {i},\n    \"n\": {},\n    \"name\": \"a name long enough to weigh something {i:08}\",\n    \"tags\": [\"x\", \"y\", \"z\"]\n  }}{sep}",
            i % 50
        )
        .unwrap();
    }
    writeln!(file, "]").unwrap();
    file.flush().unwrap();
    drop(file);
    let size = std::fs::metadata(&input).unwrap().len();
    assert!(size > 100_000_000, "{size}");

    let mut child = Command::new(BIN)
        .args(["validate", "--threads", "2", "--schema"])
        .arg(schema(&d))
        .arg(&input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = peak_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{out}{err}");
    // Every 50th document has n = 0, below the minimum.
    assert!(
        out.starts_with(&format!(
            "documents: {docs}  valid: {}  invalid: {}",
            docs - docs / 50,
            docs / 50
        )),
        "{out}"
    );
    assert!(peak > 0, "no reading of the peak");
    assert!(
        peak < 100 * 1024,
        "peak RSS {peak} KiB for a {size}-byte array"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// Issue 16 item 9: `validate ... | head -1` ends quietly, as the other commands do.
#[test]
fn a_closed_stdout_ends_the_run_without_an_error() {
    let d = dir("pipe");
    let input = d.join("in.jsonl");
    let mut text = String::new();
    for i in 0..200_000 {
        text.push_str(&format!("{{\"_id\": {i}, \"n\": {}}}\n", i % 3));
    }
    std::fs::write(&input, text).unwrap();
    let mut child = Command::new(BIN)
        .args(["validate", "--format", "jsonl", "--schema"])
        .arg(schema(&d))
        .arg(&input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the pipe is closed after one line.
    let output = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(first.starts_with("{\"index\":0,"), "{first}");
    assert!(
        !err.contains("Broken pipe") && !err.contains("error"),
        "{err}"
    );
    assert_ne!(output.status.code(), Some(2), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Issue 16 item 9: BSON comes on stdin with `-` and `--input-format bson`.
#[test]
fn bson_on_stdin() {
    let d = dir("stdin");
    let mut bytes = Vec::new();
    for n in [1, 0, 2] {
        let doc = bson::doc! {"_id": n, "n": n};
        bytes.extend_from_slice(bson::RawDocumentBuf::try_from(&doc).unwrap().as_bytes());
    }
    let mut child = Command::new(BIN)
        .args(["validate", "--input-format", "bson", "--schema"])
        .arg(schema(&d))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.starts_with("documents: 3  valid: 2  invalid: 1"),
        "{out}"
    );
    // Piped stderr: no progress bar, no note about reading stdin (that is for a terminal).
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Runs `command` under `script`, whose pseudo-terminal is the child's stdin, stdout and
/// stderr: what the terminal showed, and the exit code. `None` without `script`.
fn on_a_terminal(command: &str) -> Option<(String, Option<i32>)> {
    let script = Path::new("/usr/bin/script");
    if !script.exists() {
        println!("skipped: /usr/bin/script not found");
        return None;
    }
    let output = Command::new(script)
        .args(["-qec", command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Some((
        String::from_utf8_lossy(&output.stdout).into_owned(),
        output.status.code(),
    ))
}

/// Issue 16 items 8 and 9 on a terminal: a progress bar with done/total, rate and ETA, cleared
/// at the end; and with no INPUT, an error naming `-` instead of a silent wait on stdin.
#[cfg(unix)]
#[test]
fn on_a_terminal_a_bar_is_drawn_and_cleared_and_no_input_is_an_error() {
    let d = dir("tty");
    let input = d.join("in.jsonl");
    let mut text = String::new();
    for i in 0..40_000 {
        text.push_str(&format!("{{\"_id\": {i}, \"n\": {}}}\n", i % 3));
    }
    std::fs::write(&input, text).unwrap();
    let schema = schema(&d);
    let out = d.join("out.txt");
    let command = format!(
        "{BIN} validate --threads 1 --schema {} {} > {}",
        schema.display(),
        input.display(),
        out.display()
    );
    let Some((shown, code)) = on_a_terminal(&command) else {
        return;
    };
    assert_eq!(code, Some(1), "{shown:?}");
    assert!(
        shown.contains(" ETA ") && shown.contains("docs, "),
        "{shown:?}"
    );
    assert!(shown.contains("/") && shown.contains("iB"), "{shown:?}");
    // Cleared: the last thing drawn erases the line.
    assert!(
        shown.trim_end_matches(['\r', '\n']).ends_with("\u{1b}[2K"),
        "{shown:?}"
    );
    let report = std::fs::read_to_string(&out).unwrap();
    assert!(report.starts_with("documents: 40000"), "{report}");

    let (shown, code) = on_a_terminal(&format!("{BIN} validate --schema {}", schema.display()))
        .expect("script was found above");
    assert_eq!(code, Some(2), "{shown}");
    assert!(
        shown.contains("no input: give the files to check, or `-` to read JSON lines from stdin"),
        "{shown}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}
