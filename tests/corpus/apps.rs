//! Types re-typed from public applications that store serde types in MongoDB: each shape is
//! written here in our own words, with a comment naming the repository and file it follows.
//! Where an application used a bson 2 helper (`chrono_datetime_as_bson_datetime`,
//! `hex_string_as_object_id`) the type uses bson 3's name for the same helper.

#![allow(dead_code, reason = "fields exist to be serialized")]

use std::collections::{BTreeMap, HashMap};

use bson::oid::ObjectId;
use bson::serde_helpers::{datetime, object_id};
use bson::{Document, Uuid};
use mongo_schema::MongoSchema;
use proptest::prelude::*;
use proptest_derive::Arbitrary;
use serde::{Deserialize, Serialize};

use crate::values::*;

/// Every corpus type derives the same traits.
macro_rules! models {
    ($($(#[$m:meta])* pub $kind:ident $name:ident $body:tt)*) => {$(
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, MongoSchema, Arbitrary)]
        $(#[$m])*
        pub $kind $name $body
    )*};
}

fn maybe_oid() -> impl Strategy<Value = Option<ObjectId>> {
    proptest::option::of(oid())
}

fn maybe_date() -> impl Strategy<Value = Option<bson::DateTime>> {
    proptest::option::of(date())
}

fn string_map<V: Arbitrary + 'static>() -> impl Strategy<Value = HashMap<String, V>> {
    prop::collection::hash_map(key(), any::<V>(), 0..3)
}

models! {
    // collinstb01/ACTIX_WEB_SERVER model/user_model.rs (and the same tutorial shape in
    // gabrielbwitte/climacampo src/models/model_user.rs, Devedir/space-crabs
    // src/models/expedition_model.rs, SuperDev123-hub/mongo_actix api/src/models/user_model.rs):
    // an optional id left out when absent, three strings.
    /// A user profile of the actix tutorial.
    pub struct TutorialUser {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub location: String,
        pub title: String,
    }

    // SplitSky/resdata-rust src/api/model.rs: a named document with a description.
    /// A research data document.
    pub struct ResearchDocument {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub description: String,
    }

    // cedrickchee/bitcask rust/building-blocks/bb-2-3-exercise/src/lib.rs: a required id and
    // an age.
    /// A person with a required id.
    pub struct Person {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub name: String,
        pub age: i32,
    }

    // mporebainetum/api_to_automate src/models/doc_model.rs: an id and one text field.
    /// A note-like document.
    pub struct InfoDoc {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub info: String,
    }

    // adasarpan404/natours-rust src/models.rs: a tour user with a description.
    /// A tour site's user.
    pub struct TourUser {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub description: String,
    }

    // judegiordano/mongoose-rs README.md: a string id, an unsigned age and two chrono
    // timestamps stored as BSON dates through bson's helper.
    /// A user whose timestamps are BSON dates.
    pub struct MongooseUser {
        #[serde(rename = "_id")]
        pub id: String,
        pub age: u32,
        pub username: String,
        #[serde(with = "datetime::FromChrono04DateTime")]
        #[proptest(strategy = "chrono_millis()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
        #[serde(with = "datetime::FromChrono04DateTime")]
        #[proptest(strategy = "chrono_millis()")]
        pub updated_at: chrono::DateTime<chrono::Utc>,
    }

    // assidiqi598/halalho-rust bff/src/models/user.rs: camelCase field names written as
    // they are in Rust, chrono dates through the helper.
    /// A user with camelCase timestamps.
    pub struct HalalUser {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub username: String,
        pub email: String,
        pub password: String,
        #[serde(rename = "createdAt", with = "datetime::FromChrono04DateTime")]
        #[proptest(strategy = "chrono_millis()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
        #[serde(rename = "updatedAt", with = "datetime::FromChrono04DateTime")]
        #[proptest(strategy = "chrono_millis()")]
        pub updated_at: chrono::DateTime<chrono::Utc>,
    }

    // ChronoverseDevTeam/Chronoverse crv-hive/src/user/entitiy.rs: the user name is the id.
    /// A user keyed by name.
    pub struct NamedUser {
        #[serde(rename = "_id")]
        pub name: String,
        pub email: String,
        pub password: String,
        #[serde(with = "datetime::FromChrono04DateTime")]
        #[proptest(strategy = "chrono_millis()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
    }

    // dfberry/rust crates/crate_mongodb_crud/src/model.rs: a BSON date written as an
    // RFC 3339 string.
    /// A catalogue item whose date is a string.
    pub struct CrudItem {
        pub name: String,
        pub category: String,
        #[serde(with = "datetime::AsRfc3339String")]
        #[proptest(strategy = "rfc3339_date()")]
        pub created_at: bson::DateTime,
    }

    // wandercn/serialize_with_bson README.md: genome samples with a map of dates, an
    // embedded document and a list of strings.
    /// A bacterium sample.
    pub struct Bacterium {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub has_genome: bool,
        #[proptest(strategy = "date()")]
        pub creation_time: bson::DateTime,
        pub short_id: String,
        #[proptest(strategy = "prop::collection::hash_map(key(), date(), 0..3)")]
        pub locations: HashMap<String, bson::DateTime>,
        #[proptest(strategy = "document()")]
        pub taxonomy: Document,
        pub backtrace: Vec<String>,
    }

    // yurikrupnik/mussia30 apps/rust/api-rest1/src/product/model.rs: a product name.
    /// A product.
    pub struct NamedProduct {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
    }

    // ivanenkomaksym/dotnet-messagebroker-demo rorderapi/src/models/order.rs (and its
    // orderitem.rs, orderstatus.rs): PascalCase names, a bson Uuid id, a status and items.
    /// An order written with PascalCase names.
    #[serde(rename_all = "PascalCase")]
    pub struct BrokerOrder {
        #[proptest(strategy = "bson_uuid()")]
        pub id: Uuid,
        pub order_status: BrokerOrderStatus,
        pub items: Vec<BrokerOrderItem>,
    }

    /// One line of a broker order.
    #[serde(rename_all = "PascalCase")]
    pub struct BrokerOrderItem {
        #[proptest(strategy = "bson_uuid()")]
        pub product_id: Uuid,
        pub product_name: String,
        pub quantity: u32,
        pub price: f64,
    }

    /// The broker order's state.
    pub enum BrokerOrderStatus {
        New,
        StockReserved,
        PaymentProcessed,
        Shipped,
        Cancelled,
    }

    // nash-io/openlimits src/exchange/coinbase/model/order_status.rs: a camelCase unit enum.
    /// An exchange order state.
    #[serde(rename_all = "camelCase")]
    pub enum ExchangeOrderStatus {
        Open,
        Done,
        Pending,
        Active,
        Rejected,
    }

    // Leqord-Telegram/05042024-morse-backend tg-backend-sls/src/model/order.rs: numeric ids,
    // items with quantities, a plain status enum.
    /// A bot shop order.
    pub struct BotOrder {
        pub id: i64,
        pub user_id: i64,
        pub items: Vec<BotOrderItem>,
        pub status: BotOrderStatus,
    }

    /// A bot shop order line.
    pub struct BotOrderItem {
        pub id: i64,
        pub product_id: i64,
        #[proptest(strategy = "0..=i64::MAX as u64")]
        pub quantity: u64,
    }

    /// A bot shop order's state.
    pub enum BotOrderStatus {
        Failed,
        Pending,
        Shipping,
        Arrived,
        Finished,
    }

    // richgrov/eteedir server/src/main.rs: one content string.
    /// A chat message.
    pub struct ChatMessage {
        pub content: String,
    }

    // gvma/stock-manager history/src/domain/event.rs: versions as documents, two dates.
    /// A change event with the documents before and after.
    pub struct HistoryEvent {
        pub name: String,
        #[proptest(strategy = "document()")]
        pub previous_version: Document,
        #[proptest(strategy = "document()")]
        pub current_version: Document,
        #[proptest(strategy = "date()")]
        pub occurred_at: bson::DateTime,
        #[proptest(strategy = "date()")]
        pub created_at: bson::DateTime,
    }

    // yhc29/rustel_ehr_query_api rustel_query/src/models/tcde.rs: a field catalogue entry
    // with a `type` word renamed.
    /// A common data element of a health record query API.
    pub struct DataElement {
        pub id: i32,
        pub collection: String,
        pub field: String,
        pub value_type: String,
        pub count: i32,
    }

    // integraledelebesgue/Weekings weeking/src/database/post.rs: optional references.
    /// A post with optional category and owner references.
    pub struct WeekPost {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "date()")]
        pub creation_date: bson::DateTime,
        pub text: String,
        #[proptest(strategy = "maybe_oid()")]
        pub category: Option<ObjectId>,
        #[proptest(strategy = "maybe_oid()")]
        pub owner: Option<ObjectId>,
    }

    // luyangliuable/personal-portfolio server/src/models/post_model.rs: optional lists and
    // flags beside required text.
    /// A portfolio blog post.
    pub struct BlogPost {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub heading: String,
        pub author: String,
        pub post_type: String,
        pub year: i32,
        pub month: i32,
        pub date_created: String,
        pub file_name: String,
        pub tags: Option<Vec<String>>,
        pub reading_time_minutes: Option<i32>,
        pub is_featured: Option<bool>,
        #[proptest(strategy = "maybe_oid()")]
        pub image: Option<ObjectId>,
        pub body: String,
    }

    // Liby99/saemanga-rust src/models/session_model.rs: a session id and two dates.
    /// A reading site's session.
    pub struct MangaSession {
        #[proptest(strategy = "oid()")]
        pub session_id: ObjectId,
        #[proptest(strategy = "date()")]
        pub start_date_time: bson::DateTime,
        #[proptest(strategy = "date()")]
        pub expire_date_time: bson::DateTime,
    }

    // Michael2004-ukpeh/DiagnoAI-Backend-rust src/models/token.rs (and sarmadkung/foodic
    // apps/api/src/models/token.rs): a token bound to a user, with an expiry.
    /// An access token.
    pub struct AccessToken {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "oid()")]
        pub user_id: ObjectId,
        pub token: String,
        #[proptest(strategy = "date()")]
        pub expires_at: bson::DateTime,
    }

    // moezakura/toko src/domains/models/database/auth.rs: the `_id` field spelled in Rust.
    /// An auth token keyed by `_id` spelled as the field name.
    pub struct AuthToken {
        #[proptest(strategy = "oid()")]
        pub _id: ObjectId,
        pub auth_token: String,
        #[proptest(strategy = "date()")]
        pub created_at: bson::DateTime,
    }
}

models! {
    // Unnamed source: a public session-store model the code index returned without naming
    // its repository (a uuid::Uuid user and a numeric expiry).
    /// A session token: uuid written as binData by the driver, as a string by `$set`.
    pub struct SessionToken {
        pub token: String,
        #[proptest(strategy = "uuid()")]
        pub user_id: uuid::Uuid,
        pub expires_at: i64,
    }

    // Unnamed source: a public model the code index returned without naming its repository
    // (a user with embedded sessions: hex-string ids and chrono dates through bson's helpers,
    // a bson Uuid).
    /// A login session embedded in its user.
    pub struct EmbeddedSession {
        #[serde(with = "object_id::FromHexString")]
        #[proptest(strategy = "\"[0-9a-f]{24}\"")]
        pub _id: String,
        #[serde(with = "datetime::FromChrono04DateTime")]
        #[proptest(strategy = "chrono_millis()")]
        pub expiration: chrono::DateTime<chrono::Utc>,
        #[proptest(strategy = "bson_uuid()")]
        pub id: Uuid,
        pub csrf: String,
    }

    /// A user holding optional embedded sessions.
    pub struct SessionUser {
        #[serde(with = "object_id::FromHexString")]
        #[proptest(strategy = "\"[0-9a-f]{24}\"")]
        pub _id: String,
        pub email: String,
        pub subject: String,
        pub sessions: Option<Vec<EmbeddedSession>>,
    }

    // Unnamed source (as above): a chrono session whose dates are chrono strings (no
    // helper), an optional audit date renamed to camelCase and left out when absent.
    /// A session with RFC 3339 string dates.
    pub struct StringDatedSession {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "oid()")]
        pub user_id: ObjectId,
        pub session_id: String,
        #[proptest(strategy = "chrono_utc()")]
        pub valid_until: chrono::DateTime<chrono::Utc>,
        #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "proptest::option::of(chrono_utc())")]
        pub created_at: Option<chrono::DateTime<chrono::Utc>>,
    }

    // Unnamed source (as above): a city location with a coordinate pair and optional dates.
    /// A city with a coordinate tuple.
    pub struct CityLocation {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub city: String,
        pub state: String,
        pub coordinates: (f64, f64),
        #[proptest(strategy = "maybe_date()")]
        pub created_at: Option<bson::DateTime>,
    }

    // Unnamed source (as above): a GeoJSON point with `type` renamed and a fixed pair of
    // coordinates.
    /// A GeoJSON point.
    pub struct GeoPoint {
        #[serde(rename = "type")]
        pub geo_type: String,
        pub coordinates: [f64; 2],
    }

    // Unnamed source (as above): a rest stop whose id is a number, optional fields left out
    // when absent, a category enum with lowercase renames and a GeoJSON location.
    /// A motorway rest stop.
    pub struct RestStop {
        #[serde(rename = "_id")]
        pub id: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        pub category: RestStopCategory,
        pub location: StopLocation,
        #[proptest(strategy = "string_map::<bool>()")]
        pub amenities: HashMap<String, bool>,
    }

    /// A rest stop's kind.
    pub enum RestStopCategory {
        #[serde(rename = "restarea")]
        RestArea,
        #[serde(rename = "services")]
        Services,
    }

    /// A rest stop's location; the kind is written as `type` and read as `type` too.
    pub struct StopLocation {
        #[serde(rename = "type")]
        pub kind: String,
        pub coordinates: Vec<f64>,
    }

    // Unnamed source (as above): the MongoDB sample "restaurants" documents as a public Rust
    // model types them: a container default, an optional embedded address, grades left out
    // when empty.
    /// A restaurant of the sample dataset.
    #[derive(Default)]
    #[serde(default)]
    pub struct Restaurant {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub address: Option<RestaurantAddress>,
        pub borough: String,
        pub cuisine: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub grades: Vec<RestaurantGrade>,
        pub name: String,
        pub restaurant_id: String,
    }

    /// A restaurant's address.
    #[derive(Default)]
    #[serde(default)]
    pub struct RestaurantAddress {
        pub building: String,
        pub coord: Vec<f64>,
        pub street: String,
        pub zipcode: String,
    }

    /// An inspection grade.
    pub struct RestaurantGrade {
        #[proptest(strategy = "date()")]
        pub date: bson::DateTime,
        pub grade: String,
        pub score: Option<i32>,
    }

    // Sample data, not an application: the sample_mflix "movies" documents of MongoDB's
    // Atlas sample datasets, typed as the Rust driver's tutorials do.
    /// A movie of the sample dataset.
    pub struct Movie {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub title: String,
        pub year: i32,
        pub runtime: Option<i32>,
        #[serde(default)]
        pub genres: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cast: Option<Vec<String>>,
        pub plot: Option<String>,
        pub awards: MovieAwards,
        pub imdb: MovieImdb,
        #[serde(rename = "lastupdated")]
        pub last_updated: String,
    }

    /// A movie's awards.
    pub struct MovieAwards {
        pub wins: i32,
        pub nominations: i32,
        pub text: String,
    }

    /// A movie's IMDb figures; `rating` is sometimes an empty string in the dataset, so
    /// applications type it as an untagged number or text.
    pub struct MovieImdb {
        pub rating: RatingValue,
        pub votes: i32,
        pub id: i32,
    }

    /// A number, or the text some documents hold instead.
    #[serde(untagged)]
    pub enum RatingValue {
        Number(f64),
        Text(String),
    }

    // Sample data: sample_mflix "comments".
    /// A comment on a movie.
    pub struct MovieComment {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub name: String,
        pub email: String,
        #[proptest(strategy = "oid()")]
        pub movie_id: ObjectId,
        pub text: String,
        #[proptest(strategy = "date()")]
        pub date: bson::DateTime,
    }

    // Sample data: sample_supplies "sales" (items with a Decimal128 price, a customer, tags).
    /// A sale of the supplies store.
    #[serde(rename_all = "camelCase")]
    pub struct Sale {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        #[proptest(strategy = "date()")]
        pub sale_date: bson::DateTime,
        pub items: Vec<SaleItem>,
        pub store_location: String,
        pub customer: SaleCustomer,
        pub coupon_used: bool,
        pub purchase_method: PurchaseMethod,
    }

    /// A sold item.
    pub struct SaleItem {
        pub name: String,
        pub tags: Vec<String>,
        #[proptest(strategy = "price()")]
        pub price: bson::Decimal128,
        pub quantity: i32,
    }

    /// A sale's customer.
    pub struct SaleCustomer {
        pub gender: String,
        pub age: i32,
        pub email: String,
        pub satisfaction: i32,
    }

    /// How a sale was paid for.
    pub enum PurchaseMethod {
        Online,
        Phone,
        #[serde(rename = "In store")]
        InStore,
    }

    // Sample data: sample_analytics "accounts", "transactions" and "customers".
    /// A bank account with its products.
    pub struct Account {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub account_id: i32,
        pub limit: i32,
        pub products: Vec<String>,
    }

    /// A customer's transaction bucket.
    pub struct TransactionBucket {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub account_id: i32,
        pub transaction_count: i32,
        #[proptest(strategy = "date()")]
        pub bucket_start_date: bson::DateTime,
        #[proptest(strategy = "date()")]
        pub bucket_end_date: bson::DateTime,
        pub transactions: Vec<Transaction>,
    }

    /// One transaction; amounts are numbers, totals are decimal strings.
    pub struct Transaction {
        #[proptest(strategy = "date()")]
        pub date: bson::DateTime,
        pub amount: i32,
        pub transaction_code: TransactionCode,
        pub symbol: String,
        pub price: String,
        pub total: String,
    }

    /// Buy or sell.
    #[serde(rename_all = "lowercase")]
    pub enum TransactionCode {
        Buy,
        Sell,
    }

    /// An analytics customer with tiers keyed by id.
    pub struct AnalyticsCustomer {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub username: String,
        pub name: String,
        pub address: String,
        #[proptest(strategy = "date()")]
        pub birthdate: bson::DateTime,
        pub email: String,
        pub accounts: Vec<i32>,
        #[proptest(strategy = "prop::collection::btree_map(key(), any::<TierDetail>(), 0..3)")]
        pub tier_and_details: BTreeMap<String, TierDetail>,
    }

    /// A customer's tier.
    pub struct TierDetail {
        pub tier: String,
        pub id: String,
        pub active: bool,
        pub benefits: Vec<String>,
    }
}

models! {
    // Unnamed source (as above): event-sourced stock events, internally tagged, with the
    // `_id` inside each variant.
    /// A stock event tagged by `type`.
    #[serde(tag = "type")]
    pub enum StockEvent {
        Created {
            #[serde(rename = "_id")]
            #[proptest(strategy = "oid()")]
            id: ObjectId,
            stock_id: String,
            #[proptest(strategy = "chrono_utc()")]
            date: chrono::DateTime<chrono::Utc>,
        },
        Updated {
            #[serde(rename = "_id")]
            #[proptest(strategy = "oid()")]
            id: ObjectId,
            stock_id: String,
            qty: i32,
            #[proptest(strategy = "chrono_utc()")]
            date: chrono::DateTime<chrono::Utc>,
        },
    }

    /// A stock level.
    pub struct Stock {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub qty: i32,
    }

    // Unnamed source (as above; its module documents a "guilds" collection of a chat bot):
    // the guild id is a string, the configuration embedded and defaulted.
    /// A bot's per-guild configuration.
    pub struct Guild {
        #[serde(rename = "_id")]
        pub id: String,
        #[serde(default)]
        pub config: GuildConfig,
    }

    /// The configuration of one guild.
    #[derive(Default)]
    pub struct GuildConfig {
        pub prefix: Option<String>,
        pub log_channel: Option<String>,
        #[serde(default)]
        pub disabled_commands: Vec<String>,
        #[serde(default)]
        pub language: BotLanguage,
    }

    /// The bot's language.
    #[derive(Default)]
    #[serde(rename_all = "lowercase")]
    pub enum BotLanguage {
        #[default]
        English,
        French,
    }

    // Unnamed source (as above): an order with products by id, an f32 total, chrono string
    // dates and a status enum with explicit discriminants (serde still writes names).
    /// A shop order.
    pub struct ShopOrder {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub order_id: i32,
        pub products: Vec<ProductView>,
        pub total_price: f32,
        pub status: ShopOrderStatus,
        #[proptest(strategy = "chrono_utc()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
    }

    /// A product in an order.
    pub struct ProductView {
        pub id: String,
        pub quantity: i32,
    }

    /// A shop order's state, declared with a discriminant.
    pub enum ShopOrderStatus {
        Pending = 0,
        Completed,
        Cancelled,
    }

    // Unnamed source (as above): a ride order with `r#status` (a raw identifier field), u64
    // endpoints and SCREAMING variants.
    /// A ride order.
    pub struct RideOrder {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "0..=i64::MAX as u64")]
        pub from: u64,
        #[proptest(strategy = "0..=i64::MAX as u64")]
        pub to: u64,
        pub r#status: RideStatus,
        pub car_id: String,
    }

    /// A ride's state.
    #[expect(non_camel_case_types, clippy::upper_case_acronyms, reason = "the application's own spelling")]
    pub enum RideStatus {
        UNKNOWN,
        WAITING,
        IN_PROGRESS,
        DONE,
    }

    // Unnamed source (as above): an order entity with snake_case status renames and an
    // optional note left out when absent.
    /// A review-rebate order.
    pub struct RebateOrder {
        pub id: String,
        pub user_id: String,
        pub order_number: String,
        pub price: String,
        pub status: RebateStatus,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub note: Option<String>,
    }

    /// A rebate order's state.
    #[serde(rename_all = "snake_case")]
    pub enum RebateStatus {
        Uncommented,
        Commented,
        CommentRevealed,
        Reimbursed,
    }

    // Composite, not one source: a chat message whose body is an adjacently tagged enum.
    /// A chat room message.
    pub struct RoomMessage {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        #[proptest(strategy = "oid()")]
        pub room: ObjectId,
        pub author: String,
        pub body: MessageBody,
        #[proptest(strategy = "date()")]
        pub sent_at: bson::DateTime,
        #[serde(default)]
        pub reactions: BTreeMap<String, u32>,
    }

    /// What a message holds.
    #[serde(tag = "kind", content = "data", rename_all = "snake_case")]
    pub enum MessageBody {
        Text(String),
        Image { url: String, width: u32, height: u32 },
        Deleted,
    }

    // Composite: an IoT reading with flattened tags.
    /// A sensor reading with extra tags flattened beside it.
    pub struct SensorReading {
        pub sensor: String,
        #[proptest(strategy = "date()")]
        pub at: bson::DateTime,
        pub value: f64,
        #[serde(flatten)]
        #[proptest(strategy = "prop::collection::btree_map(key(), any::<String>(), 0..3)")]
        pub tags: BTreeMap<String, String>,
    }

    // Composite: a job queue entry with a data-carrying state and a `Result` outcome.
    /// A background job.
    pub struct Job {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub queue: String,
        pub state: JobState,
        pub attempts: u8,
        #[proptest(strategy = "document()")]
        pub payload: Document,
        pub outcome: Option<Result<String, String>>,
    }

    /// A job's state, externally tagged.
    pub enum JobState {
        Queued,
        Running { worker: String, #[proptest(strategy = "date()")] since: bson::DateTime },
        Failed(String),
        Done,
    }

    // Composite: an audit log entry with a serde_json payload.
    /// An audit entry with a JSON payload.
    pub struct AuditEntry {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub actor: String,
        pub action: String,
        #[proptest(strategy = "crate::corpus::types::json_value()")]
        pub payload: serde_json::Value,
        #[proptest(strategy = "date()")]
        pub at: bson::DateTime,
    }

    // Composite: a feature flag with an untagged rollout.
    /// A feature flag.
    pub struct FeatureFlag {
        #[serde(rename = "_id")]
        pub key: String,
        pub enabled: bool,
        pub rollout: Rollout,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub allow: Vec<String>,
    }

    /// How a flag is rolled out: untagged struct variants told apart by their fields.
    #[serde(untagged)]
    pub enum Rollout {
        Percentage { percent: u8 },
        Users { users: Vec<String> },
    }

    // Composite: a wiki page with revisions and a boxed parent.
    /// A wiki page.
    pub struct WikiPage {
        #[serde(rename = "_id")]
        pub slug: String,
        pub title: String,
        pub revisions: Vec<Revision>,
        pub parent: Option<Box<PageRef>>,
    }

    /// One revision of a page.
    pub struct Revision {
        pub number: u32,
        pub author: String,
        #[proptest(strategy = "date()")]
        pub at: bson::DateTime,
        pub text: String,
    }

    /// A reference to another page.
    pub struct PageRef {
        pub slug: String,
        pub title: Option<String>,
    }
}

models! {
    // brilliantDjaka/todo-api-rust src/todo/entity.rs: `_id` spelled as the field.
    /// A to-do entry.
    pub struct TodoEntity {
        #[proptest(strategy = "oid()")]
        pub _id: ObjectId,
        pub text: String,
        pub is_done: bool,
    }

    // hardcodeddev/RustCRUD src/models.rs: a string id left out when absent, a BSON date.
    /// A to-do with a due date.
    pub struct DueTodo {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        pub id: Option<String>,
        pub title: String,
        pub description: String,
        #[proptest(strategy = "date()")]
        pub due_date: bson::DateTime,
        pub completed: bool,
    }

    // Kesocial/RustAPI src/models/todo_model.rs: the state as free text.
    /// A to-do with a textual state.
    pub struct StatefulTodo {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub title: String,
        pub description: String,
        pub state: String,
    }

    // DhruvGupta3377/Rust-Htmx-TODO src/datastruct.rs: a task and its id.
    /// A one-line task.
    pub struct HtmxTask {
        #[proptest(strategy = "oid()")]
        pub _id: ObjectId,
        pub task: String,
    }

    // dimitrisniras/chat-app src/models/message.rs: a timestamp as epoch milliseconds.
    /// A chat message stamped with an i64.
    pub struct StampedMessage {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub username: String,
        pub content: String,
        pub timestamp: i64,
    }

    // neokofg/hello-rocket src/models/message.rs: a message in a chat by string id.
    /// A message of a chat.
    pub struct ChatLine {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub sender_name: String,
        pub message: String,
        pub chat_id: String,
    }

    // megaminden/cucura-backend src/models/message.rs: sender, receiver, text timestamp.
    /// A direct message.
    pub struct DirectMessage {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub sender: String,
        pub receiver: String,
        pub content: String,
        pub timestamp: String,
    }

    // megaminden/cucura-backend src/models/notification.rs: a confirmation flag.
    /// A user notification.
    pub struct UserNotification {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub user_id: String,
        pub message: String,
        pub confirmed: bool,
        pub timestamp: String,
    }

    // avidhanorkar/RustChat backend/src/models/message_model.rs: a receiver or a room, each
    // left out when absent, and a BSON date.
    /// A message routed to a user or a room.
    pub struct RoutedMessage {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "oid()")]
        pub sender_id: ObjectId,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub receiver_id: Option<ObjectId>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub room_id: Option<ObjectId>,
        pub content: String,
        #[proptest(strategy = "date()")]
        pub timestamp: bson::DateTime,
    }

    // klemen-s/EMP-Seminarska backend/emp-backend/src/models/cart.rs: a cart of items.
    /// A shopping cart.
    pub struct Cart {
        #[serde(skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub _id: Option<ObjectId>,
        pub products: Vec<CartItem>,
        #[proptest(strategy = "oid()")]
        pub user_id: ObjectId,
    }

    /// A cart line with a u32 quantity.
    pub struct CartItem {
        pub size: String,
        pub quantity: u32,
        pub color: String,
        #[proptest(strategy = "oid()")]
        pub product_id: ObjectId,
    }

    // klemen-s/EMP-Seminarska (same file): a cart line written as `imageUrl` and read as
    // `image_url`. The original cannot read what it writes, and the derive refuses it; re-typed
    // with the alias the derive asks for.
    /// A cart line for the client, with a split rename made readable.
    pub struct ContextCartItem {
        pub size: String,
        pub quantity: u32,
        pub color: String,
        #[serde(rename(serialize = "imageUrl", deserialize = "image_url"), alias = "imageUrl")]
        pub image_url: String,
        pub price: f64,
        #[proptest(strategy = "oid()")]
        pub product_id: ObjectId,
    }

    // klemen-s/EMP-Seminarska backend/emp-backend/src/models/order.rs: an order of cart lines.
    /// An order made from a cart.
    pub struct CartOrder {
        #[serde(skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub _id: Option<ObjectId>,
        pub order_items: Vec<CartItem>,
        #[proptest(strategy = "oid()")]
        pub user_id: ObjectId,
    }

    // SevenTV/SevenTV apps/data-brittler/src/types/price.rs: a provider enum in snake_case.
    /// A price of a paid plan.
    pub struct Price {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub template_index: u32,
        pub label: String,
        pub provider: PriceProvider,
        pub provider_id: String,
        pub live: bool,
    }

    /// Who takes the payment.
    #[serde(rename_all = "snake_case")]
    pub enum PriceProvider {
        Paypal,
        Stripe,
    }

    // iyappan04/ecommerce-api-rust src/models/order_model.rs: lowercase run-together names,
    // optional chrono dates (strings: no helper), embedded product and user.
    /// An e-commerce order.
    pub struct EcommerceOrder {
        pub user: OrderUser,
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub paymentmethod: String,
        pub taxprice: i64,
        pub shippingprice: i64,
        pub totalprice: i64,
        pub ispaid: bool,
        #[proptest(strategy = "proptest::option::of(chrono_utc())")]
        pub paidat: Option<chrono::DateTime<chrono::Utc>>,
        pub isdelivered: bool,
        #[proptest(strategy = "proptest::option::of(chrono_utc())")]
        pub deliveredat: Option<chrono::DateTime<chrono::Utc>>,
    }

    /// The ordering user, embedded.
    pub struct OrderUser {
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub username: String,
        pub email: String,
    }

    /// An ordered product, embedded.
    pub struct OrderProduct {
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub image: String,
        pub price: i32,
        pub quantity: i32,
    }

    /// Where an order ships.
    pub struct ShippingAddress {
        pub address: String,
        pub city: String,
        pub postalcode: i64,
        pub country: String,
    }

    // paq1/sutom-api src/api/players/entities/player_dbo.rs: an f32 score, a u32 count.
    /// A word-game player.
    pub struct WordPlayer {
        #[proptest(strategy = "oid()")]
        pub _id: ObjectId,
        pub name: String,
        pub score: f32,
        pub nombre_de_parties: u32,
    }

    // karasick/web_shop_crud src/repository/mongo_db/collections/players/player_schema.rs.
    /// A shop player with gold.
    pub struct GoldPlayer {
        #[serde(skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub _id: Option<ObjectId>,
        pub name: String,
        pub gold: f32,
    }

    // emilioparker/gaia_game_server game_server/src/long_term_storage_service/db_player.rs:
    // u16 and u32 fields.
    /// A game server's stored player.
    pub struct StoredPlayer {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub player_id: u16,
        pub device_id: String,
        pub player_name: String,
        pub constitution: u32,
    }

    // jackcat13/coding-fighters-back src/model/game.rs: topics and a count kept as text.
    /// A quiz game.
    #[derive(Default)]
    pub struct QuizGame {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub topics: Vec<String>,
        pub question_number: String,
    }

    // DefinitelyNotSimon13/rust-mongo-db backend/src/models/user_model.rs: an optional i64
    // index left out when absent.
    /// A user with an optional index.
    pub struct IndexedUser {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub index: Option<i64>,
        pub name: String,
        pub location: String,
        pub title: String,
    }

    // opensass/opensass src/server/subscriber/model.rs: a renamed chrono date through the
    // helper.
    /// A newsletter subscriber.
    pub struct Subscriber {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub email: String,
        #[serde(with = "datetime::FromChrono04DateTime", rename = "createdAt")]
        #[proptest(strategy = "chrono_millis()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
    }

    // Hanhan-23/Balap-inV2Mobile backend_rust/src/models/notifikasimodel.rs: two models,
    // one with an optional reference, one with a list of references.
    /// A notification pointing at a recommendation.
    pub struct Notifikasi {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub pesan: String,
        #[proptest(strategy = "date()")]
        pub tgl_notif: bson::DateTime,
        #[proptest(strategy = "maybe_oid()")]
        pub id_rekomendasi: Option<ObjectId>,
    }

    /// A recommendation over several reports.
    pub struct RekomendasiNotifikasi {
        #[serde(rename = "_id")]
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub status_urgent: String,
        pub status_rekom: String,
        #[proptest(strategy = "prop::collection::vec(oid(), 0..3)")]
        pub id_laporan: Vec<ObjectId>,
    }

    // williammunozr/rocket-mongo-api src/models/subscription_model.rs.
    /// A mailing-list subscription.
    pub struct MailSubscription {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub email: String,
        pub name: String,
        pub subscribed_at: Option<String>,
    }

    // triandamai/rumpy-rest-event src/entity/account_permission.rs: BSON dates as RFC 3339
    // strings (bson 2's bson_datetime_as_rfc3339_string, bson 3's AsRfc3339String).
    /// An account's permission.
    pub struct AccountPermission {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "maybe_oid()")]
        pub account_id: Option<ObjectId>,
        #[proptest(strategy = "maybe_oid()")]
        pub permission_id: Option<ObjectId>,
        pub name: String,
        pub value: String,
        #[serde(with = "datetime::AsRfc3339String")]
        #[proptest(strategy = "rfc3339_date()")]
        pub created_at: bson::DateTime,
        #[serde(with = "datetime::AsRfc3339String")]
        #[proptest(strategy = "rfc3339_date()")]
        pub updated_at: bson::DateTime,
    }

    // estelasouza/tcc src/ports/outbound/book.rs.
    /// A book with a test flag.
    pub struct FlaggedBook {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub book_name: String,
        pub description: String,
        pub is_test: bool,
    }

    // ME-IIOT/rust_aas_edge_client src/models/book.rs.
    /// A book and its author.
    pub struct AuthoredBook {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub title: String,
        pub author: String,
    }

    // ronaldofjc/api-books-rust-actix-web src/entity/book.rs: chrono dates without a helper
    // (RFC 3339 strings), an i64 page count.
    /// A catalogued book.
    pub struct CatalogBook {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub title: String,
        pub author: String,
        pub pages: i64,
        #[proptest(strategy = "chrono_utc()")]
        pub created_at: chrono::DateTime<chrono::Utc>,
        #[proptest(strategy = "chrono_utc()")]
        pub updated_at: chrono::DateTime<chrono::Utc>,
        pub active: bool,
    }

    // kobaryubi/link-book-rust src/models.rs: two `_id`-keyed models.
    /// A link book.
    pub struct LinkBook {
        #[proptest(strategy = "oid()")]
        pub _id: ObjectId,
        pub title: String,
    }

    /// A saved link.
    pub struct SavedLink {
        #[proptest(strategy = "oid()")]
        pub _id: ObjectId,
        pub url: String,
    }

    // CyberFlaw/cdp-rumble-backend src/model/rooms_model.rs: two u32 user numbers.
    /// A two-player room.
    pub struct DuelRoom {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub user1: u32,
        pub user2: u32,
        pub name: String,
    }

    // ACTOTA/actota-api src/models/bookings.rs: optional chrono dates.
    /// A trip booking.
    pub struct TripBooking {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "oid()")]
        pub user_id: ObjectId,
        #[proptest(strategy = "oid()")]
        pub itinerary_id: ObjectId,
        pub status: String,
        #[proptest(strategy = "proptest::option::of(chrono_utc())")]
        pub created_at: Option<chrono::DateTime<chrono::Utc>>,
    }

    // imkundan18/Rust-and-MongoDB src/Model/student_model.rs: f64 marks.
    /// A student with marks.
    pub struct MarkedStudent {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub age: i32,
        pub marks: f64,
    }

    // jchiasson423/actix-mongo-api src/model/student_model.rs.
    /// A student with an admission number.
    pub struct AdmittedStudent {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub admission_number: i32,
    }

    // b4its/rust-simple-api src/model/student.rs: a u32 year.
    /// A student's enrolment.
    pub struct EnrolledStudent {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub major: String,
        pub enrollment_year: u32,
    }

    // ferranjr/url-shortener src/models/mongo_docs.rs.
    /// A shortened URL.
    pub struct ShortenedUrl {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub nano_id: String,
        pub url: String,
    }

    // anomitroid/URL-Shortener-BlazinglyFast url_app/src/models/mod.rs: chrono's ts_seconds
    // helper, which the derive cannot see through: the stored form is stated, with the range
    // chrono reads back (DateTime::from_timestamp: years -262143 to 262142), or a stored
    // i64::MAX would pass the validator and fail every read.
    /// A URL entry with a click count and epoch-seconds date.
    pub struct UrlEntry {
        pub original_url: String,
        pub short_id: String,
        #[proptest(strategy = "0..=i64::MAX as u64")]
        pub clicks: u64,
        #[serde(with = "chrono::serde::ts_seconds")]
        #[mongo(bson_type = "long", minimum = -8_334_601_228_800_i64, maximum = 8_210_266_876_799_i64)]
        #[proptest(strategy = "(-8_334_601_228_800_i64..8_210_266_876_799).prop_map(|s| chrono::DateTime::from_timestamp(s, 0).expect(\"in range\"))")]
        pub created_at: chrono::DateTime<chrono::Utc>,
    }

    // hash-roar/treasureChest rust/shorturl/src/models.rs.
    /// A short code with its click count.
    pub struct ShortCode {
        pub id: i32,
        pub base_url: String,
        pub suffix_url: String,
        pub full_url: String,
        pub short_code: String,
        pub expiration_date: String,
        pub click_times: i64,
    }
}

models! {
    // sarmadkung/foodic apps/api/src/models/token.rs: the user reference optional.
    /// A food-ordering app's token.
    pub struct FoodToken {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "maybe_oid()")]
        pub user_id: Option<ObjectId>,
        pub token: String,
        #[proptest(strategy = "date()")]
        pub created_at: bson::DateTime,
    }

    // hashtaghacker/db-poc-rust-mongo src/models.rs: a slugged recipe.
    /// A recipe with a slug.
    pub struct SlugRecipe {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub title: String,
        pub description: String,
        pub slug: String,
    }

    // latonis/mongodb-api-rs src/models.rs: u32 temperature and time.
    /// A baking recipe.
    pub struct BakingRecipe {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub title: String,
        pub ingredients: Vec<String>,
        pub temperature: u32,
        pub bake_time: u32,
    }

    // grimvoodoo/recipie-book src/models/recipe_model.rs: the id stored as `id`, not `_id`.
    /// A recipe whose id is not the document's `_id`.
    pub struct BookRecipe {
        #[serde(rename = "id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub ingredients: Vec<String>,
        pub instructions: Vec<String>,
    }

    // alsomeb/rc-mongo-api src/models/recipe_model.rs.
    /// A recipe with steps and its author's email.
    pub struct StepRecipe {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub title: String,
        pub description: String,
        pub steps: Vec<String>,
        pub ingredients: Vec<String>,
        pub email: String,
    }

    // jamtycle/menu-master-backend src/model/inventory.rs: `_id` renamed to itself, a
    // Decimal128 quantity.
    /// A restaurant's stock of one product.
    pub struct Inventory {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub _id: Option<ObjectId>,
        pub product_id: String,
        #[proptest(strategy = "decimal()")]
        pub quantity: bson::Decimal128,
    }

    // ravizig/Hotel_Management_Backend src/models/item_model.rs: a u32 price.
    /// A hotel menu item.
    pub struct MenuItem {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub price: u32,
        pub description: String,
    }

    // anurag2361/rust-mongo-crud src/models/item.rs.
    /// An item with a value.
    pub struct ValueItem {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub name: String,
        pub value: i32,
    }

    // buraksenyurt/rust-farm handson/mongo-rocket/src/model/product_model.rs: f32 and u16.
    /// A product with a stock level.
    pub struct StockedProduct {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        pub title: String,
        pub price: f32,
        pub stock_level: u16,
        pub category: String,
    }

    // llettieri/rust-api-frameworks vehicle-manager-actix-web/src/models/vehicle.rs: an
    // ObjectId field named `id`, stored beside the server's `_id`.
    /// A vehicle.
    pub struct Vehicle {
        #[proptest(strategy = "oid()")]
        pub id: ObjectId,
        pub brand: String,
    }

    // yunusp/rental src/models/car_model.rs: u64 price and timestamp, a u16 year.
    /// A rental car.
    pub struct RentalCar {
        #[serde(rename = "_id", skip_serializing_if = "Option::is_none")]
        #[proptest(strategy = "maybe_oid()")]
        pub id: Option<ObjectId>,
        #[proptest(strategy = "maybe_oid()")]
        pub owner_id: Option<ObjectId>,
        #[proptest(strategy = "maybe_oid()")]
        pub borrower_id: Option<ObjectId>,
        pub name: String,
        pub number: String,
        pub brand: String,
        #[proptest(strategy = "0..=i64::MAX as u64")]
        pub price: u64,
        pub yop: u16,
        #[proptest(strategy = "0..=i64::MAX as u64")]
        pub dt: u64,
        pub iat: String,
        pub ito: String,
        pub picture: String,
        pub desc: Option<String>,
    }

    // NathaelB/tanit producer/src/lib/domain/car/models.rs (written only there; read here).
    /// A fleet car.
    pub struct FleetCar {
        pub id: String,
        pub licence_plate: String,
        pub brand: String,
        pub color: String,
        pub capacity: i32,
    }
}

crate::props::properties! {
    cases = 8;
    tutorial_user: TutorialUser,
    research_document: ResearchDocument,
    person: Person,
    info_doc: InfoDoc,
    tour_user: TourUser,
    mongoose_user: MongooseUser,
    halal_user: HalalUser,
    named_user: NamedUser,
    crud_item: CrudItem,
    bacterium: Bacterium,
    named_product: NamedProduct,
    broker_order: BrokerOrder,
    broker_order_item: BrokerOrderItem,
    broker_order_status: BrokerOrderStatus,
    exchange_order_status: ExchangeOrderStatus,
    bot_order: BotOrder,
    bot_order_item: BotOrderItem,
    bot_order_status: BotOrderStatus,
    chat_message: ChatMessage,
    history_event: HistoryEvent,
    data_element: DataElement,
    week_post: WeekPost,
    blog_post: BlogPost,
    manga_session: MangaSession,
    access_token: AccessToken,
    auth_token: AuthToken,
    session_token: SessionToken,
    embedded_session: EmbeddedSession,
    session_user: SessionUser,
    string_dated_session: StringDatedSession,
    city_location: CityLocation,
    geo_point: GeoPoint,
    rest_stop: RestStop,
    rest_stop_category: RestStopCategory,
    stop_location: StopLocation,
    restaurant: Restaurant,
    restaurant_address: RestaurantAddress,
    restaurant_grade: RestaurantGrade,
    movie: Movie,
    movie_awards: MovieAwards,
    movie_imdb: MovieImdb,
    rating_value: RatingValue,
    movie_comment: MovieComment,
    sale: Sale,
    sale_item: SaleItem,
    sale_customer: SaleCustomer,
    purchase_method: PurchaseMethod,
    account: Account,
    transaction_bucket: TransactionBucket,
    transaction: Transaction,
    transaction_code: TransactionCode,
    analytics_customer: AnalyticsCustomer,
    tier_detail: TierDetail,
    stock_event: StockEvent,
    stock: Stock,
    guild: Guild,
    guild_config: GuildConfig,
    bot_language: BotLanguage,
    shop_order: ShopOrder,
    product_view: ProductView,
    shop_order_status: ShopOrderStatus,
    ride_order: RideOrder,
    ride_status: RideStatus,
    rebate_order: RebateOrder,
    rebate_status: RebateStatus,
    room_message: RoomMessage,
    message_body: MessageBody,
    sensor_reading: SensorReading,
    job: Job,
    job_state: JobState,
    audit_entry: AuditEntry,
    feature_flag: FeatureFlag,
    rollout: Rollout,
    wiki_page: WikiPage,
    revision: Revision,
    page_ref: PageRef,
    todo_entity: TodoEntity,
    due_todo: DueTodo,
    stateful_todo: StatefulTodo,
    htmx_task: HtmxTask,
    stamped_message: StampedMessage,
    chat_line: ChatLine,
    direct_message: DirectMessage,
    user_notification: UserNotification,
    routed_message: RoutedMessage,
    cart: Cart,
    cart_item: CartItem,
    context_cart_item: ContextCartItem,
    cart_order: CartOrder,
    price: Price,
    price_provider: PriceProvider,
    ecommerce_order: EcommerceOrder,
    order_user: OrderUser,
    order_product: OrderProduct,
    shipping_address: ShippingAddress,
    word_player: WordPlayer,
    gold_player: GoldPlayer,
    stored_player: StoredPlayer,
    quiz_game: QuizGame,
    indexed_user: IndexedUser,
    subscriber: Subscriber,
    notifikasi: Notifikasi,
    rekomendasi_notifikasi: RekomendasiNotifikasi,
    mail_subscription: MailSubscription,
    account_permission: AccountPermission,
    flagged_book: FlaggedBook,
    authored_book: AuthoredBook,
    catalog_book: CatalogBook,
    link_book: LinkBook,
    saved_link: SavedLink,
    duel_room: DuelRoom,
    trip_booking: TripBooking,
    marked_student: MarkedStudent,
    admitted_student: AdmittedStudent,
    enrolled_student: EnrolledStudent,
    shortened_url: ShortenedUrl,
    url_entry: UrlEntry,
    short_code: ShortCode,
    food_token: FoodToken,
    slug_recipe: SlugRecipe,
    baking_recipe: BakingRecipe,
    book_recipe: BookRecipe,
    step_recipe: StepRecipe,
    inventory: Inventory,
    menu_item: MenuItem,
    value_item: ValueItem,
    stocked_product: StockedProduct,
    vehicle: Vehicle,
    rental_car: RentalCar,
    fleet_car: FleetCar,
}
