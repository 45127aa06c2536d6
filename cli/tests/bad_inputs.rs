//! The bad inputs a new user meets, through the real binary (issue 16): every one ends with a
//! clear message on stderr and exit 2, never a panic, never a password, never a silent wait.
//!
//! The corpus is built, not listed: every option of every command that takes a number, a
//! duration or a quorum (read from the command's own `--help`, so a new flag is covered the day
//! it lands) gets each malformed value; every command that connects gets each mistyped
//! connection string with a password in it; `validate` and `infer` get each corrupt input of
//! each format; the file-reading flags get missing, empty, binary and pasted files.
//!
//! `BAD_INPUTS_TRANSCRIPT=FILE` writes what each case printed, for the issue's note.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_mongo-schema");
const PASSWORD: &str = "s3cretPW";

/// One bad input: the arguments and the standard input. Every one must exit 2.
struct Case {
    args: Vec<String>,
    stdin: Vec<u8>,
    /// Text stderr (or stdout, for `--format github`) must hold.
    says: Option<&'static str>,
}

impl Case {
    fn new(args: impl IntoIterator<Item = impl Into<String>>) -> Case {
        Case {
            args: args.into_iter().map(Into::into).collect(),
            stdin: Vec::new(),
            says: None,
        }
    }

    fn says(mut self, text: &'static str) -> Case {
        self.says = Some(text);
        self
    }

    fn stdin(mut self, bytes: &[u8]) -> Case {
        self.stdin = bytes.to_vec();
        self
    }
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("bad-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &Path, name: &str, bytes: &[u8]) -> String {
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_owned()
}

/// The subcommands, from the top-level `--help`.
fn commands() -> Vec<String> {
    let help = Command::new(BIN).arg("--help").output().unwrap();
    let text = String::from_utf8(help.stdout).unwrap();
    let commands: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect();
    assert!(commands.len() >= 10, "{text}");
    commands
}

/// The options of `command` that take a value, with their value names (`--timeout <DURATION>`).
fn options(command: &str) -> Vec<(String, String)> {
    let help = Command::new(BIN)
        .args([command, "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8(help.stdout).unwrap();
    let mut found = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix("--") else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let (Some(flag), Some(value)) = (parts.next(), parts.next()) else {
            continue;
        };
        if let Some(value) = value.strip_prefix('<').and_then(|v| v.strip_suffix('>')) {
            found.push((format!("--{flag}"), value.to_owned()));
        }
    }
    found
}

/// Malformed values for each kind of value.
fn bad_values(value_name: &str) -> &'static [&'static str] {
    match value_name {
        "N" | "DOCS_PER_SECOND" => &[
            "-1",
            "18446744073709551615",
            "99999999999999999999999",
            "1.5",
            "ten",
            "",
            "0x10",
        ],
        "DURATION" => &[
            "999999999999999999999",
            "99999999999999999999s",
            "-5s",
            "5 parsecs",
            "1e3",
            "",
            "18446744073709551615ms",
        ],
        "QUORUM" => &["-1", "51", "Majority", "", "99999999999999999999"],
        _ => &[],
    }
}

/// Connection strings mistyped in the ways users mistype them, each with a password.
fn bad_uris() -> Vec<String> {
    [
        "mongodb:/user:{pw}@localhost:27017",
        "mongodb//user:{pw}@localhost:27017",
        "user:{pw}@localhost:27017",
        "mongdb://user:{pw}@localhost",
        "mongodb+srv//user:{pw}@cluster0.example.net",
        "mongodb://user:{pw}@",
        "mongodb://user:{pw}@localhost:99999",
        "mongodb://user:{pw}@local host",
        "http://user:{pw}@localhost:27017",
        "mongodb://user:{pw}@127.0.0.1:1/?replicaSet=",
    ]
    .iter()
    .map(|u| u.replace("{pw}", PASSWORD))
    .collect()
}

fn corpus(d: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let manifest = write(d, "manifest.json", br#"{"collections": []}"#);
    let schema = write(
        d,
        "schema.json",
        br#"{"bsonType": "object", "properties": {"n": {"bsonType": "int"}}}"#,
    );
    let good = write(d, "good.jsonl", b"{\"n\": 1}\n");

    // Every numeric, duration and quorum option of every command, each malformed value.
    for command in commands() {
        for (flag, value_name) in options(&command) {
            for bad in bad_values(&value_name) {
                let mut args = vec![command.clone(), format!("{flag}={bad}")];
                match command.as_str() {
                    "validate" => args.extend(["--schema".into(), schema.clone(), good.clone()]),
                    "infer" => args.push(good.clone()),
                    _ => {}
                }
                cases.push(Case::new(args).says("invalid value"));
            }
        }
    }

    // Every command that connects, each mistyped connection string (passwords masked).
    for command in [
        "check", "plan", "apply", "audit", "explain", "snapshot", "infer",
    ] {
        for uri in bad_uris() {
            let mut args = vec![command.to_owned(), "--uri".into(), uri];
            match command {
                "snapshot" => args.extend(["--out".into(), d.join("s.json").display().to_string()]),
                "infer" => args.extend(["--collection".into(), "orders".into()]),
                _ => args.extend(["--manifest".into(), manifest.clone()]),
            }
            args.extend(["--timeout".into(), "2s".into()]);
            cases.push(Case::new(args));
        }
    }
    // A closed port fails at once, in every output format; github gets an ::error annotation.
    for format in ["text", "json", "github"] {
        let case = Case::new([
            "check",
            "--manifest",
            &manifest,
            "--uri",
            "mongodb://127.0.0.1:1/",
            "--timeout",
            "60s",
            "--format",
            format,
        ]);
        cases.push(if format == "github" {
            case.says("::error")
        } else {
            case.says("connection refused")
        });
    }

    // Corrupt inputs for validate and infer, in each format.
    let mut bson_doc = Vec::new();
    bson::doc! {"n": 1, "s": "text"}
        .to_writer(&mut bson_doc)
        .unwrap();
    let mut truncated = bson_doc.clone();
    truncated.truncate(bson_doc.len() - 3);
    let mut too_long = bson_doc.clone();
    too_long[0] = 0xff;
    too_long[1] = 0xff;
    let mut bad_type = bson_doc.clone();
    bad_type[4] = 0x77;
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("truncated.bson", truncated),
        ("too-long.bson", too_long),
        ("bad-type.bson", bad_type),
        ("zero-length.bson", vec![0, 0, 0, 0]),
        (
            "random.bson",
            (0..200u32).map(|i| (i * 37 % 251) as u8).collect(),
        ),
        ("garbage.jsonl", b"{\"n\": 1}\n{\"n\": \n".to_vec()),
        (
            "bad-date.jsonl",
            b"{\"n\": 1}\n{\"at\": {\"$date\": \"garbage\"}}\n".to_vec(),
        ),
        (
            "bad-long.jsonl",
            b"{\"n\": {\"$numberLong\": \"x\"}}\n".to_vec(),
        ),
        (
            "bad-oid.jsonl",
            b"{\"_id\": {\"$oid\": \"123\"}}\n".to_vec(),
        ),
        ("not-utf8.jsonl", b"{\"s\": \"\xff\xfe\"}\n".to_vec()),
        ("array.jsonl", b"[1, 2]\n".to_vec()),
        ("unterminated.json", b"[{\"n\": 1}, {\"n\": 2}".to_vec()),
        (
            "not-an-array.json",
            b"{\"n\": 1} {\"n\": 2} trailing".to_vec(),
        ),
        ("scalar.json", b"[1, \"two\"]".to_vec()),
        ("deep.jsonl", {
            let mut v = "[".repeat(300).into_bytes();
            v.extend("]".repeat(300).into_bytes());
            v.push(b'\n');
            v
        }),
    ];
    for (name, bytes) in &inputs {
        let path = write(d, name, bytes);
        cases.push(Case::new(["validate", "--schema", &schema, &path]));
        cases.push(Case::new(["infer", &path, "--collection", "c"]));
    }
    // Both readers name the byte and the reason in the same words.
    let bad_type = write(d, "bad-type.bson", &inputs[2].1);
    let says = "unknown element type 0x77";
    cases.push(Case::new(["validate", "--schema", &schema, &bad_type]).says(says));
    cases.push(Case::new(["infer", &bad_type]).says(says));
    cases.push(Case::new([
        "validate",
        "--schema",
        &schema,
        "/no/such/file.jsonl",
    ]));
    let here = d.to_str().unwrap();
    cases.push(Case::new(["validate", "--schema", &schema, here]).says("is a directory"));
    cases.push(Case::new(["infer", here]).says("is a directory"));
    cases.push(Case::new(["validate", "--schema", &schema, "file.xml"]));
    cases.push(Case::new(["infer", "/no/such/file.bson"]));
    cases.push(
        Case::new([
            "validate",
            "--schema",
            &schema,
            "--input-format",
            "bson",
            "-",
        ])
        .stdin(&[1, 2, 3]),
    );

    // Schemas and manifests that cannot be read, or that the server would refuse.
    let schema_files: Vec<(&str, &[u8])> = vec![
        ("typo.json", br#"{"bsonType": "object", "propertes": {}}"#),
        ("not-json.json", b"{bsonType: object"),
        ("empty.json", b""),
        ("binary.json", b"\x00\x01\x02\xff"),
        ("wrong-type.json", br#"{"bsonType": "objet"}"#),
        (
            "bad-pattern.json",
            br#"{"properties": {"a": {"pattern": "("}}}"#,
        ),
        ("array.json", b"[1, 2]"),
    ];
    for (name, bytes) in &schema_files {
        let path = write(d, name, bytes);
        cases.push(Case::new(["validate", "--schema", &path, &good]));
        cases.push(Case::new([
            "check",
            "--manifest",
            &path,
            "--catalog",
            &path,
        ]));
        cases.push(Case::new(["lint", "--manifest", &path]));
        cases.push(Case::new(["plan", "--manifest", &path, "--catalog", &path]));
    }
    cases.push(Case::new(["check", "--manifest", "/no/such/manifest.json"]));
    cases.push(Case::new(["generate", "--check", "/no/such/manifest.json"]));

    // mongosh pastes given as a catalog file.
    let pastes: Vec<(&str, &[u8], &'static str)> = vec![
        (
            "prompt.txt",
            b"shop> db.getCollectionInfos()\n[ { name: 'orders' } ]\n",
            "prompt",
        ),
        (
            "truncated.txt",
            b"[ { name: 'orders', options: { validator: [Object] } } ]\n",
            "[Object]",
        ),
        (
            "ellipsis.txt",
            b"[ { name: 'orders' }, ... 12 more items ]\n",
            "more items",
        ),
    ];
    for (name, bytes, says) in &pastes {
        let path = write(d, name, bytes);
        cases.push(Case::new(["check", "--manifest", &manifest, "--catalog", &path]).says(says));
    }

    // Commands that need declarations, run by the standalone binary with none.
    cases.push(Case::new(["lint"]).says("no declared collections"));
    cases.push(Case::new(["generate", "--check", &manifest]).says("no declared collections"));
    for command in ["apply", "audit", "explain", "check", "plan"] {
        let args = [
            command,
            "--uri",
            "mongodb://127.0.0.1:1/",
            "--timeout",
            "1s",
        ];
        cases.push(Case::new(args).says("no declared collections"));
    }
    // An unknown command, an unknown flag, a missing value.
    cases.push(Case::new(["chek"]).says("check"));
    cases.push(Case::new(["check", "--manifets", &manifest]).says("--manifest"));
    cases.push(Case::new(["check", "--manifest"]));
    cases
}

#[test]
fn every_bad_input_ends_with_a_message_and_exit_2_never_a_panic_or_a_password() {
    let d = dir();
    let cases = corpus(&d);
    assert!(cases.len() > 150, "a corpus of {} cases", cases.len());
    let mut transcript = String::new();
    let mut failures = Vec::new();
    for case in &cases {
        let started = std::time::Instant::now();
        let mut child = Command::new(BIN)
            .args(&case.args)
            .env_remove("MONGODB_URI")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&case.stdin).ok();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let took = started.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let all = format!("{stdout}{stderr}");
        let code = out.status.code().unwrap_or(-1);
        let shown_args = case
            .args
            .iter()
            .map(|a| a.replace(d.to_str().unwrap(), "DIR"))
            .collect::<Vec<_>>()
            .join(" ");
        let first = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .or_else(|| stdout.lines().next())
            .unwrap_or("")
            .replace(d.to_str().unwrap(), "DIR");
        let _ = writeln!(
            transcript,
            "$ mongo-schema {shown_args}\n{first}   [exit {code}, {} ms]",
            took.as_millis()
        );
        let mut why = Vec::new();
        if code != 2 {
            why.push(format!("exit {code}, expected 2"));
        }
        if all.contains("panicked") || code == 101 {
            why.push("panicked".to_owned());
        }
        if all.contains(PASSWORD) {
            why.push("printed the password".to_owned());
        }
        if stderr.trim().is_empty() && !stdout.contains("::error") {
            why.push("said nothing on stderr".to_owned());
        }
        if let Some(says) = case.says {
            if !all.contains(says) {
                why.push(format!("does not say {says:?}"));
            }
        }
        // The bson crate's internal error layout is not a message for a user (item 10).
        if all.contains("Kind: ") || all.contains("Message: ") {
            why.push("shows bson's internal error text".to_owned());
        }
        if took > std::time::Duration::from_secs(15) {
            why.push(format!("took {took:?}"));
        }
        if !why.is_empty() {
            failures.push(format!(
                "$ mongo-schema {shown_args}\n  {}\n  {all}",
                why.join("; ")
            ));
        }
    }
    if let Ok(path) = std::env::var("BAD_INPUTS_TRANSCRIPT") {
        std::fs::write(path, &transcript).unwrap();
    }
    std::fs::remove_dir_all(&d).ok();
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs misbehaved:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
