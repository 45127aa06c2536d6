//! Usage errors, help, flag values, and the `::error` annotation of a run that could not check.

use super::*;

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let (outcome, text) = run(&["frobnicate"]);
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("usage_error", text);
    let (outcome, text) = run(&["--help"]);
    assert_eq!(outcome, Outcome::Clean);
    insta::assert_snapshot!("help", text);
}

/// A schema file and a one-document input for `validate` runs, written once.
fn validate_inputs() -> &'static (String, String) {
    static FILES: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("cli-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let schema = dir.join("schema.json");
        std::fs::write(&schema, r#"{"bsonType": "object"}"#).unwrap();
        let input = dir.join("in.jsonl");
        std::fs::write(&input, "{\"a\": 1}\n").unwrap();
        (
            schema.to_str().unwrap().to_owned(),
            input.to_str().unwrap().to_owned(),
        )
    })
}

/// A value for a numeric or duration flag: numbers of any size, with or without a unit, signed,
/// fractional, or any text at all.
fn flag_value() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        "[0-9]{1,30}",
        "-?[0-9]{1,25}(\\.[0-9]{0,5})?(e[0-9]{1,4})?(ms|s|m|min|h|d|)",
        "\\PC{0,12}",
        Just("18446744073709551615".to_owned()),
        Just("99999999999999999999s".to_owned()),
        Just("NaN".to_owned()),
        Just("inf".to_owned()),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]

    /// Issue 16 item 5: no argument value makes any command panic; one its parser refuses is a
    /// usage error, exit 2, naming the flag.
    #[test]
    fn no_flag_value_panics_and_refused_values_exit_2(value in flag_value()) {
        let (schema, input) = validate_inputs();
        let closed = "mongodb://127.0.0.1:1/shop";
        let cases: Vec<(Vec<&str>, &str)> = vec![
            (vec!["check", "--manifest", MANIFEST, "--catalog", LIVE], "--timeout"),
            (vec!["check", "--manifest", MANIFEST, "--catalog", LIVE], "--concurrency"),
            (vec!["plan", "--manifest", MANIFEST, "--catalog", LIVE], "--timeout"),
            (vec!["snapshot", "--uri", closed], "--timeout"),
            (vec!["snapshot", "--uri", closed], "--concurrency"),
            (vec!["audit", "--manifest", MANIFEST, "--uri", closed], "--max-time"),
            (vec!["audit", "--manifest", MANIFEST, "--uri", closed], "--sample"),
            (vec!["audit", "--manifest", MANIFEST, "--uri", closed], "--timeout"),
            (vec!["apply", "--manifest", MANIFEST, "--uri", closed], "--timeout"),
            (vec!["explain", "--manifest", MANIFEST, "--uri", closed], "--max-time"),
            (vec!["validate", "--schema", schema, input], "--threads"),
            (vec!["validate", "--schema", schema, input], "--examples"),
        ];
        for (mut args, flag) in cases {
            let with_value = format!("{flag}={value}");
            args.push(&with_value);
            let (outcome, text) = run(&args);
            proptest::prop_assert!(!text.contains("panicked"), "{}", text);
            if text.contains("error: invalid value") {
                proptest::prop_assert_eq!(outcome, Outcome::Failed, "{}", text);
                proptest::prop_assert!(text.contains(flag), "{}", text);
            }
        }
    }
}

/// Issue 16 item 6: a run that exits 2 with `--format github` leaves an `::error` annotation,
/// for errors while running and for command lines clap refuses.
#[test]
fn github_format_annotates_a_run_that_could_not_check() {
    let closed = "mongodb://127.0.0.1:1/shop";
    for args in [
        vec![
            "check",
            "--manifest",
            "missing.json",
            "--catalog",
            LIVE,
            "--format",
            "github",
        ],
        vec![
            "audit",
            "--manifest",
            MANIFEST,
            "--uri",
            closed,
            "--format=github",
        ],
        vec![
            "lint",
            "--manifest",
            MANIFEST,
            "--format",
            "github",
            "--no-such-flag",
        ],
        vec![
            "validate",
            "--schema",
            "missing.json",
            "x.jsonl",
            "--format",
            "github",
        ],
    ] {
        let mut console = Console::captured("");
        let mut argv = vec!["mongo-schema"];
        argv.extend_from_slice(&args);
        let outcome = mongo_schema_cli::run(argv, None, &mut console);
        assert_eq!(outcome, Outcome::Failed);
        let out = console.stdout_text();
        let line = out.lines().last().unwrap_or_default();
        assert!(
            line.starts_with(&format!(
                "::error title=mongo-schema {} could not run::",
                args[0]
            )),
            "{out}"
        );
    }
    // Without github format, stdout stays empty on exit 2.
    let mut console = Console::captured("");
    let argv = [
        "mongo-schema",
        "check",
        "--manifest",
        "missing.json",
        "--catalog",
        LIVE,
    ];
    assert_eq!(
        mongo_schema_cli::run(argv, None, &mut console),
        Outcome::Failed
    );
    assert_eq!(console.stdout_text(), "");
}
