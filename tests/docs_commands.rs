//! Every command the README and `docs/` show is one the command line takes (issue 16 item 13):
//! each `mongo-schema ...`, `cargo run --bin schema -- ...` (the application binary of the
//! guide; in this repository the `shop` example is one) and `cargo run -p mongo-schema-examples
//! --example NAME -- ...` line of a `sh`/`console`/`yaml` block is parsed by the real clap
//! parser, each example it names exists, and each shipped file it names is in the repository.

use std::path::{Path, PathBuf};

use clap::Parser;
use mongo_schema_cli::args::Cli;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The pages whose commands are checked.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The command lines of a page's shell and workflow blocks, with their line numbers.
fn command_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut fence: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(lang) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(lang.trim().to_owned()),
            };
            continue;
        }
        let Some(lang) = &fence else { continue };
        let command = match lang.as_str() {
            "sh" | "console" | "shell" | "bash" => trimmed.strip_prefix("$ ").unwrap_or(trimmed),
            "yaml" | "yml" => match trimmed.split_once("run: ") {
                Some((_, run)) => run,
                None => continue,
            },
            _ => continue,
        };
        // A comment after the command, and what comes after `||` or `&&`, are not part of it.
        let command = command.split(" # ").next().unwrap_or(command);
        let command = command.split("  #").next().unwrap_or(command);
        let command = command.split(" || ").next().unwrap_or(command);
        let command = command.split(" && ").next().unwrap_or(command);
        // An output redirection is the shell's.
        let command = command.split(" > ").next().unwrap_or(command);
        // In a pipeline, the stage that is ours.
        for stage in command.split(" | ") {
            let stage = stage.trim();
            if stage.starts_with("mongo-schema ") || stage.starts_with("cargo run") {
                lines.push((i + 1, stage.to_owned()));
            }
        }
    }
    lines
}

/// Splits a command line into words, with single and double quotes.
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words
}

/// The examples `examples/Cargo.toml` declares.
fn examples() -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("examples/Cargo.toml")).unwrap();
    let mut names = Vec::new();
    let mut in_example = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_example = line == "[[example]]";
        } else if in_example && let Some(name) = line.strip_prefix("name = ") {
            names.push(name.trim_matches('"').to_owned());
        }
    }
    names
}

/// What is wrong with one documented command, if anything.
fn check(command: &str, examples: &[String]) -> Result<(), String> {
    let words = words(command);
    let (args, example): (&[String], Option<&str>) = if words[0] == "mongo-schema" {
        (&words[1..], None)
    } else if let Some(dash) = words.iter().position(|w| w == "--") {
        let cargo = &words[..dash];
        let example = cargo
            .iter()
            .position(|w| w == "--example")
            .map(|i| cargo[i + 1].as_str());
        let bin = cargo
            .iter()
            .position(|w| w == "--bin")
            .map(|i| cargo[i + 1].as_str());
        match (example, bin) {
            (Some(example), _) => (&words[dash + 1..], Some(example)),
            // The application binary of the guide's step 3 (`mongo_schema_cli::main!(myapp)`; tests/app-recipe).
            (None, Some("mongo-schema")) => (&words[dash + 1..], None),
            (None, other) => return Err(format!("names no example and binary {other:?}")),
        }
    } else {
        // `cargo run -p mongo-schema-examples --example NAME` without arguments.
        let example = words
            .iter()
            .position(|w| w == "--example")
            .map(|i| words[i + 1].as_str());
        match example {
            Some(example) => (&[], Some(example)),
            None => return Ok(()),
        }
    };
    if let Some(example) = example
        && example != "<name>"
        && !examples.iter().any(|e| e == example)
    {
        return Err(format!("no example {example:?}"));
    }
    if args.is_empty() {
        return Ok(());
    }
    if example == Some("quickstart") {
        return match args {
            [only] if only == "--help" => Ok(()),
            _ => Err("quickstart takes no arguments".into()),
        };
    }
    // The standalone binary links no declarations: the commands that read them need a manifest.
    let declared = [
        "generate", "lint", "check", "plan", "apply", "audit", "explain",
    ];
    if words[0] == "mongo-schema"
        && declared.contains(&args[0].as_str())
        && !args
            .iter()
            .any(|a| a == "--manifest" || a.starts_with("--manifest="))
    {
        return Err("the standalone mongo-schema declares nothing: give --manifest FILE".into());
    }
    let mut argv = vec!["mongo-schema".to_owned()];
    argv.extend(args.iter().cloned());
    if let Err(e) = Cli::try_parse_from(&argv) {
        return Err(e.render().to_string());
    }
    // Files shipped in this repository must be there.
    for arg in args {
        let shipped = arg.starts_with("examples/") || arg.starts_with("bench/");
        if shipped && !arg.contains('<') && !root().join(arg).exists() {
            return Err(format!("{arg} is not in the repository"));
        }
        if arg.contains("<name>") {
            for name in examples
                .iter()
                .filter(|n| *n != "quickstart" && *n != "shop")
            {
                let file = arg.replace("<name>", name);
                if !root().join(&file).exists() {
                    return Err(format!("{file} is not in the repository"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_documented_command_is_one_the_command_line_takes() {
    let examples = examples();
    assert!(examples.iter().any(|e| e == "shop"), "{examples:?}");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (line, command) in command_lines(&text) {
            checked += 1;
            if let Err(why) = check(&command, &examples) {
                let page = page
                    .strip_prefix(root())
                    .unwrap_or(&page)
                    .display()
                    .to_string();
                wrong.push(format!("{page}:{line}: `{command}`: {why}"));
            }
        }
    }
    assert!(checked > 20, "only {checked} commands found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_checker_refuses_what_does_not_parse() {
    let examples = examples();
    assert!(check("mongo-schema validat --schema s.json", &examples).is_err());
    assert!(
        check(
            "mongo-schema check --timeout 999999999999999999999",
            &examples
        )
        .is_err()
    );
    assert!(
        check(
            "cargo run -p mongo-schema-examples --example nope -- lint",
            &examples
        )
        .is_err()
    );
    assert!(
        check(
            "cargo run -p mongo-schema-examples --example quickstart -- lint",
            &examples
        )
        .is_err()
    );
    assert!(
        check(
            "cargo run -p x --example shop -- check --catalog examples/live/shop.json",
            &examples
        )
        .is_err()
    );
    assert!(
        check(
            "cargo run --bin mongo-schema -- lint --format github",
            &examples
        )
        .is_ok()
    );
    // The name the guide used before: no binary of the recipe is called that.
    assert!(check("cargo run --bin schema -- lint --format github", &examples).is_err());
    assert!(check("mongo-schema generate", &examples).is_err());
    assert!(
        check(
            "mongo-schema check --manifest m.json --catalog c.json",
            &examples
        )
        .is_ok()
    );
    assert_eq!(
        words(r#"mongo-schema check --uri "$MONGODB_URI" --db 'a b'"#),
        [
            "mongo-schema",
            "check",
            "--uri",
            "$MONGODB_URI",
            "--db",
            "a b"
        ]
    );
}
