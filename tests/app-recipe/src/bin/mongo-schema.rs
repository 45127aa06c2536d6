//! The application's own `mongo-schema` command, as the README shows it.

mongo_schema_cli::main!(recipe_app);
