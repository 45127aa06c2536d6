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
    // A session model with a uuid::Uuid user and a numeric expiry (several public session
    // stores share it; the shape from the search results around Liby99/saemanga-rust).
    /// A session token: uuid written as binData by the driver, as a string by `$set`.
    pub struct SessionToken {
        pub token: String,
        #[proptest(strategy = "uuid()")]
        pub user_id: uuid::Uuid,
        pub expires_at: i64,
    }

    // A user with embedded sessions: hex-string ids through bson's helper, chrono dates
    // through the helper, a bson Uuid (the shape next to moezakura/toko in the same results).
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

    // A chrono session whose dates are chrono strings (no helper), optional audit dates
    // renamed to camelCase and left out when absent.
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

    // A city location with a coordinate pair and optional dates (the search results'
    // location model beside collinstb01/ACTIX_WEB_SERVER).
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

    // A GeoJSON point with `type` renamed and a fixed pair of coordinates.
    /// A GeoJSON point.
    pub struct GeoPoint {
        #[serde(rename = "type")]
        pub geo_type: String,
        pub coordinates: [f64; 2],
    }

    // A rest stop: the id is a number, optional fields left out when absent, a category
    // enum with lowercase renames and a location written only with `type`.
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

    // The MongoDB sample "restaurants" model as Rust applications type it: a container
    // default, an optional embedded address, grades left out when empty.
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

    // The MongoDB sample "movies" model: nested awards and ratings, optional lists.
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

    // The MongoDB sample "comments" model.
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

    // The MongoDB sample "sales" model (supplies store): items with a Decimal128 price, a
    // customer and tags.
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

    // The MongoDB sample "accounts"/"transactions" models (sample_analytics).
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
    // Event-sourced stock events, internally tagged with an id inside each variant (the
    // stock events of gvma/stock-manager's sample).
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

    // A guild configuration of a chat bot (the "guilds" collection model in the search
    // results): the guild id is a string, the configuration embedded and defaulted.
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

    // An order with products by id, f32 totals and chrono string dates, and a status enum
    // with explicit discriminants (serde still writes names).
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

    // A ride order with `r#status` (a raw identifier field), u64 endpoints and SCREAMING
    // variants.
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
    #[expect(non_camel_case_types, reason = "the application's own spelling")]
    pub enum RideStatus {
        UNKNOWN,
        WAITING,
        IN_PROGRESS,
        DONE,
    }

    // An order entity with snake_case status renames and an optional note left out when
    // absent.
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

    // Chat applications: a message whose body is an adjacently tagged enum.
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

    // An IoT reading with flattened tags (the bucket pattern's readings as applications
    // keep them).
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

    // A job queue entry: a status enum with data, attempts, and a result of either kind.
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

    // An audit log entry with serde_json payloads, as web services keep request bodies.
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

    // A feature flag with a generic rollout and Cow-free string lists.
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

    // A wiki page with revisions and a boxed parent.
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
}
