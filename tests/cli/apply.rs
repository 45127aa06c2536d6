//! `apply`: confirmation, convergence, failures at every step, hiding.

use super::*;

#[test]
fn apply_refuses_without_yes_off_a_terminal() {
    let server = server_with_example();
    let (outcome, text) = run_in(
        &["apply", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Failed);
    insta::assert_snapshot!("apply_without_yes", text);
    assert_eq!(server.write_commands(), vec![]);
}

fn run_interactive(args: &[&str], answer: &str, server: &TestServer) -> (Outcome, String) {
    let mut console = Console::captured(answer);
    console.interactive = true;
    let mut argv = vec!["mongo-schema"];
    argv.extend_from_slice(args);
    let outcome = mongo_schema_cli::run(argv, None, &mut console);
    let text = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        outcome.code(),
        console.stdout_text(),
        console.stderr_text()
    )
    .replace(&server.address().to_string(), "127.0.0.1:PORT");
    (outcome, text)
}

#[test]
fn apply_on_a_terminal_shows_the_plan_and_asks() {
    let server = server_with_example();
    let args = ["apply", "--manifest", MANIFEST, "--uri", &uri(&server)];
    let (outcome, text) = run_interactive(&args, "n\n", &server);
    assert_eq!(outcome, Outcome::Findings);
    insta::assert_snapshot!("apply_declined", text);
    assert_eq!(server.write_commands(), vec![]);
    let (outcome, text) = run_interactive(&args, "y\n", &server);
    // Without --prune the unowned index author_1 stays: drift remains, exit 1 as `check` says.
    assert_eq!(outcome, Outcome::Findings, "{text}");
    insta::assert_snapshot!("apply_confirmed", text);
}

#[test]
fn apply_twice_converges_and_the_second_run_changes_nothing() {
    let server = server_with_example();
    let args = [
        "apply",
        "--manifest",
        MANIFEST,
        "--uri",
        &uri(&server),
        "--yes",
        "--prune",
    ];
    let (outcome, text) = run_in(&args, "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    insta::assert_snapshot!("apply_yes_prune", text);
    server.clear_commands();
    let (outcome, text) = run_in(&args, "", Some(&server));
    assert_eq!(outcome, Outcome::Clean);
    insta::assert_snapshot!("apply_second_run", text);
    assert_eq!(server.write_commands(), vec![]);
    let (outcome, text) = run_in(
        &["check", "--manifest", MANIFEST, "--uri", &uri(&server)],
        "",
        Some(&server),
    );
    assert_eq!(outcome, Outcome::Clean, "{text}");
}

/// A failure injected at every step: apply stops there, reports done/failed/remaining, and a
/// second run finishes the job.
#[test]
fn apply_converges_after_a_failure_at_every_step() {
    let probe = server_with_example();
    let (_, plan_json) = run_in(
        &[
            "plan",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&probe),
            "--prune",
            "--format",
            "json",
        ],
        "",
        Some(&probe),
    );
    let json = plan_json
        .split("--- stdout\n")
        .nth(1)
        .unwrap()
        .split("--- stderr\n")
        .next()
        .unwrap();
    let plan = mongo_schema::extjson::parse(json).unwrap();
    let steps: Vec<String> = plan
        .as_document()
        .unwrap()
        .get_array("steps")
        .unwrap()
        .iter()
        .map(|s| {
            let command = s.as_document().unwrap().get_document("command").unwrap();
            command.keys().next().unwrap().clone()
        })
        .collect();
    assert!(steps.len() >= 4, "{steps:?}");
    let failures = steps.iter().enumerate().flat_map(|(k, name)| {
        let nth = steps[..=k].iter().filter(|n| *n == name).count() as u64;
        [
            (
                k,
                false,
                Failure::on(name)
                    .nth(nth)
                    .error(11600, "interrupted at shutdown"),
            ),
            // The connection drops instead of a reply: the driver reports an I/O error.
            (k, true, Failure::on(name).nth(nth).close_connection()),
        ]
    });
    for (k, dropped, failure) in failures {
        let server = server_with_example();
        server.inject(failure);
        let args = [
            "apply",
            "--manifest",
            MANIFEST,
            "--uri",
            &uri(&server),
            "--yes",
            "--prune",
        ];
        let (outcome, text) = run_in(&args, "", Some(&server));
        assert_eq!(outcome, Outcome::Failed, "step {k}: {text}");
        let summary = format!(
            "apply: {k} done, 1 failed, {} remaining",
            steps.len() - k - 1
        );
        assert!(text.contains(&summary), "step {k}: {text}");
        if k == 1 && !dropped {
            insta::assert_snapshot!("apply_failed_at_step_2", text);
        }
        if k == 1 && dropped {
            insta::assert_snapshot!("apply_connection_lost_at_step_2", text);
        }
        server.clear_failures();
        let (outcome, text) = run_in(&args, "", Some(&server));
        assert_eq!(outcome, Outcome::Clean, "step {k} rerun: {text}");
        let (outcome, text) = run_in(
            &["check", "--manifest", MANIFEST, "--uri", &uri(&server)],
            "",
            Some(&server),
        );
        assert_eq!(outcome, Outcome::Clean, "step {k} check: {text}");
    }
}

#[test]
fn apply_with_hide_hides_once_and_then_has_nothing_to_do() {
    let server = server_with_example();
    let args = [
        "apply",
        "--manifest",
        MANIFEST,
        "--uri",
        &uri(&server),
        "--yes",
        "--prune",
        "--hide",
    ];
    let (outcome, text) = run_in(&args, "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert!(text.contains("hide index author_1"), "{text}");
    let hidden = server
        .index_specs("shop", "articles")
        .into_iter()
        .find(|i| i.get_str("name").ok() == Some("author_1"))
        .expect("hidden, not dropped");
    assert_eq!(hidden.get_bool("hidden").ok(), Some(true));
    server.clear_commands();
    let (outcome, text) = run_in(&args, "", Some(&server));
    assert_eq!(outcome, Outcome::Clean, "{text}");
    assert_eq!(server.write_commands(), vec![], "{text}");
}
