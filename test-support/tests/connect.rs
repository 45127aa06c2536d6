//! The real `mongodb` driver connects to the test server and lists collections.

use bson::{Document, doc};
use mongo_schema_test_support::{TestServer, TestServerOptions};
use mongodb::Client;

#[tokio::test]
async fn driver_connects_and_lists_collections() {
    let server = TestServer::start(TestServerOptions::default()).await;
    server.execute("shop", doc! {"create": "orders"});
    server.execute("shop", doc! {"create": "users"});
    let client = Client::with_uri_str(server.uri()).await.unwrap();
    let db = client.database("shop");
    let reply: Document = db.run_command(doc! {"ping": 1}).await.unwrap();
    assert_eq!(reply.get_f64("ok").unwrap(), 1.0);
    let names = db.list_collection_names().await.unwrap();
    assert_eq!(names, vec!["orders".to_owned(), "users".to_owned()]);
    let commands = server.command_names();
    assert!(
        commands.contains(&"listCollections".to_owned()),
        "{commands:?}"
    );
}
