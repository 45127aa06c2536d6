//! Catalogs pasted from mongosh.

use super::*;

/// `printjson({collections: db.getCollectionInfos(), indexes: {...getIndexes()}})` prints shell
/// syntax, not JSON: unquoted keys, single quotes, `UUID('...')`, `Long('...')`. It reads the same.
#[test]
fn a_catalog_printed_by_mongosh_reads_like_the_json_one() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-sh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let catalog = Catalog::from_file(std::path::Path::new(LIVE)).unwrap();
    let printed = mongo_schema_cli::render::mongosh::value(
        &Bson::Document(bson::Document::from_iter([
            (
                "collections".to_owned(),
                Bson::Array(
                    catalog
                        .collections
                        .iter()
                        .cloned()
                        .map(Bson::Document)
                        .collect(),
                ),
            ),
            (
                "indexes".to_owned(),
                Bson::Document(
                    catalog
                        .indexes
                        .iter()
                        .map(|(name, list)| {
                            (
                                name.clone(),
                                Bson::Array(list.iter().cloned().map(Bson::Document).collect()),
                            )
                        })
                        .collect(),
                ),
            ),
        ])),
        0,
    )
    // mongosh quotes with single quotes.
    .replace('"', "'");
    let file = dir.join("live.mongosh.txt");
    std::fs::write(&file, &printed).unwrap();
    assert_eq!(Catalog::from_file(&file).unwrap(), catalog);
    let (outcome, from_shell) = run(&[
        "check",
        "--manifest",
        MANIFEST,
        "--catalog",
        file.to_str().unwrap(),
    ]);
    let (_, from_json) = run(&["check", "--manifest", MANIFEST, "--catalog", LIVE]);
    assert_eq!(outcome, Outcome::Findings);
    assert_eq!(from_shell, from_json);

    std::fs::write(
        &file,
        "{\n  collections: [ { name: 'orders', options: Frob(1) } ],\n  indexes: {}\n}",
    )
    .unwrap();
    let (outcome, text) = run(&[
        "check",
        "--manifest",
        MANIFEST,
        "--catalog",
        file.to_str().unwrap(),
    ]);
    assert_eq!(outcome, Outcome::Failed);
    let text = text.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("check_bad_mongosh_catalog", text);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 16 item 11: a catalog pasted with the shell's prompt, or shortened by the REPL, says
/// so and how to print the full form, instead of "expected '(' at line 6 column 53".
#[test]
fn a_mongosh_paste_with_a_prompt_or_shortened_output_says_so() {
    let dir = std::env::temp_dir().join(format!("mongo-schema-cli-paste-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, content, expected) in [
        (
            "prompt",
            "shop> printjson({collections: db.getCollectionInfos(), indexes: {}})\n{\n  collections: [ { name: 'orders', type: 'collection' } ],\n  indexes: {}\n}\n",
            "line 1 is a mongosh prompt (`shop>`)",
        ),
        (
            "shortened",
            "{\n  collections: [ { name: 'orders', options: { validator: { '$jsonSchema': [Object] } } } ],\n  indexes: {}\n}\n",
            "line 2: `[Object]` is mongosh's shortened display",
        ),
    ] {
        let (outcome, text) = check_catalog_text(&dir, &format!("{name}.txt"), content);
        assert_eq!(outcome, Outcome::Failed, "{text}");
        assert!(text.contains(expected), "{text}");
        assert!(
            text.contains("EJSON.stringify(<expression>, null, 2)"),
            "{text}"
        );
        assert!(!text.contains("expected '('"), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
