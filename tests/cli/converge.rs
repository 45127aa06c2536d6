//! The async API (`converge::ensure_collections`).

use super::*;

#[test]
fn ensure_collections_creates_what_is_missing_and_never_drops() {
    let server = server_with_example();
    let declared = mongo_schema_cli::cmd::read_manifest(std::path::Path::new(MANIFEST)).unwrap();
    let db_uri = uri(&server);
    let (first, second) = server.runtime().block_on(async {
        let client = mongodb::Client::with_uri_str(&db_uri).await.unwrap();
        let db = client.database("shop");
        let first = mongo_schema_cli::converge::ensure_collections(&db, &declared)
            .await
            .unwrap();
        let second = mongo_schema_cli::converge::ensure_collections(&db, &declared)
            .await
            .unwrap();
        (first, second)
    });
    let summaries: Vec<&str> = first.done.iter().map(|s| s.summary.as_str()).collect();
    assert_eq!(
        summaries,
        [
            "set the validator",
            "build index user_id_1_status_1_created_at_-1",
            "set expireAfterSeconds of index deleted_at_1 to 2592000",
        ]
    );
    assert!(first.is_complete());
    assert_eq!(second.done, vec![], "a second call has nothing to do");
    assert!(server.commands_named("dropIndexes").is_empty());
    let names: Vec<String> = server
        .index_specs("shop", "articles")
        .iter()
        .map(|i| i.get_str("name").unwrap().to_owned())
        .collect();
    assert!(
        names.contains(&"author_1".to_owned()),
        "the unmanaged index stays: {names:?}"
    );
}
