// One mistake is reported once: the type still implements MongoSchema (a stub), so its use
// below adds no error of its own.
use mongo_schema::MongoSchema;

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Person {
    #[mongo(maximun = 150)]
    age: i32,
}

#[derive(serde::Serialize, serde::Deserialize, MongoSchema)]
struct Team {
    lead: Person,
}

fn main() {
    let _ = Team::root_schema();
    let _ = Person::field_path(&["age"]);
}
