//! Terminals: colour only on a terminal.

use super::*;

#[test]
fn colour_only_when_the_console_is_a_terminal() {
    let mut console = Console::captured("");
    console.colour = true;
    let outcome = mongo_schema_cli::run(
        [
            "mongo-schema",
            "check",
            "--manifest",
            MANIFEST,
            "--catalog",
            LIVE,
        ],
        None,
        &mut console,
    );
    assert_eq!(outcome, Outcome::Findings);
    let coloured = console.stdout_text();
    assert!(coloured.contains("\u{1b}[31m"), "{coloured}");
    let (_, plain) = run(&["check", "--manifest", MANIFEST, "--catalog", LIVE]);
    assert!(!plain.contains('\u{1b}'), "{plain}");
    // Same words either way.
    let stripped: String = {
        let mut out = String::new();
        let mut chars = coloured.chars();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    assert!(plain.contains(&stripped), "{stripped}");
}
