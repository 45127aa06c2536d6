//! The README's three-line binary in an ordinary lib + bin crate: the types live in the library,
//! the binary names it with `mongo_schema_cli::main!`, and the command line sees them.

use std::process::{Command, Output};

fn run(binary: &str, args: &[&str]) -> Output {
    Command::new(binary)
        .args(args)
        .output()
        .expect("the test binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_recipe_binary_sees_the_library_collections() {
    let output = run(env!("CARGO_BIN_EXE_app-mongo-schema"), &["generate"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let manifest: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("generate prints JSON");
    let names: Vec<&str> = manifest["collections"]
        .as_array()
        .expect("a collections array")
        .iter()
        .map(|c| c["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["notes", "users"]);
}

#[test]
fn the_recipe_binary_lints_the_library_collections() {
    let output = run(env!("CARGO_BIN_EXE_app-mongo-schema"), &["lint"]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    // Each linked collection is linted by name (both have unbounded strings, a note).
    let linted: Vec<&str> = stdout.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(linted[..2], ["notes", "users"], "{stdout}");
}

/// Every command that needs declarations refuses to succeed on nothing, and names the fix.
#[test]
fn a_binary_that_links_nothing_exits_2_with_the_fix() {
    for args in [
        &["generate"][..],
        &["lint"],
        &["check", "--catalog", "does-not-matter.json"],
        &["plan", "--catalog", "does-not-matter.json"],
        &["apply", "--uri", "mongodb://127.0.0.1:1", "--yes"],
        &["audit", "--uri", "mongodb://127.0.0.1:1"],
        &["explain", "--uri", "mongodb://127.0.0.1:1"],
    ] {
        let output = run(env!("CARGO_BIN_EXE_unlinked"), args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("no collections are registered")
                && stderr.contains("mongo_schema_cli::main!"),
            "{args:?}: {stderr}"
        );
    }
}

/// docs/README.md step 3: the mongosh script of the same declarations.
#[test]
fn the_recipe_binary_writes_the_mongosh_script() {
    let output = run(
        env!("CARGO_BIN_EXE_app-mongo-schema"),
        &["generate", "--format", "mongosh"],
    );
    let script = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    for expected in ["create: \"notes\"", "create: \"users\"", "unique: true"] {
        assert!(
            script.contains(expected),
            "{expected} missing in:\n{script}"
        );
    }
}
