//! Bucket: one document per sensor and hour, holding up to 60 readings with a running count and
//! summary, in both shapes the seeds show. The bucket size is one number ([`BucketSpec`]): the
//! validator's `maxItems` and the upsert's `count < 60` both read it.

use bson::{DateTime, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::access::{QueryRegistration, QuerySpec};
use mongo_schema::patterns::bucket::BucketSpec;
use mongo_schema::spec::{Collection, CollectionSpec};
use mongo_schema::spec::{IndexKind, IndexSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json, json_list};

/// The second seed's shape, `sensor_data`: `{sensor_id, date, nMeasurements, measurements:
/// [23.4, ...], summary: {min, max, avg}}`.
pub const HOURLY: BucketSpec = BucketSpec::new(
    "sensor_data",
    "sensor_id",
    "date",
    "nMeasurements",
    "measurements",
    60,
)
.min("summary.min")
.max("summary.max")
.avg("summary.avg");

/// The first seed's shape, `sensor_buckets`: `{sensorId, start, count, readings: [{t, temp}],
/// sum, min, max}`.
pub const READINGS: BucketSpec = BucketSpec::new(
    "sensor_buckets",
    "sensorId",
    "start",
    "count",
    "readings",
    60,
)
.value("temp")
.sum("sum")
.min("min")
.max("max");

/// The running summary of one bucket.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Summary {
    /// Smallest measurement (`$min`).
    pub min: f64,
    /// Largest measurement (`$max`).
    pub max: f64,
    /// The average, recomputed by a pipeline update; absent until the first recompute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avg: Option<f64>,
}

/// One hour of one sensor, second seed's shape (`sensor_data`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "camelCase")]
pub struct HourBucket {
    /// The sensor.
    #[serde(rename = "sensor_id")]
    #[mongo(max_length = 64)]
    pub sensor_id: String,
    /// The hour's start.
    pub date: DateTime,
    /// How many measurements; at most the bucket size.
    #[mongo(minimum = 1)]
    pub n_measurements: i32,
    /// The measurements; at most the bucket size.
    pub measurements: Vec<f64>,
    /// Running summary.
    pub summary: Summary,
}

/// One reading of the first seed's shape: seconds into the window and the temperature.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
pub struct Reading {
    /// Seconds since the window's start.
    #[mongo(minimum = 0, maximum = 3599)]
    pub t: i32,
    /// Degrees Celsius.
    pub temp: f64,
}

/// One hour of one sensor, first seed's shape (`sensor_buckets`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadingBucket {
    /// The sensor.
    #[mongo(max_length = 64)]
    pub sensor_id: String,
    /// The window's start.
    pub start: DateTime,
    /// How many readings.
    #[mongo(minimum = 1)]
    pub count: i32,
    /// The readings.
    pub readings: Vec<Reading>,
    /// Sum of `temp` (the average is `sum / count`).
    pub sum: f64,
    /// Lowest `temp`.
    pub min: f64,
    /// Highest `temp`.
    pub max: f64,
}

/// The bucket's lookup index: entity then window. Not unique: a full bucket's window gets a
/// second bucket from the upsert.
fn lookup<T: MongoSchema>(entity: &str, window: &str) -> IndexSpec {
    IndexSpec::on::<T>([
        (entity, IndexKind::Ascending),
        (window, IndexKind::Ascending),
    ])
    .expect("the bucket's entity and window are fields of its type")
}

impl Collection for HourBucket {
    fn collection_spec() -> CollectionSpec {
        let schema = HOURLY
            .constrain(Self::root_schema())
            .expect("HourBucket stores measurements and nMeasurements");
        CollectionSpec::new(HOURLY.collection)
            .json_schema(schema)
            .index(lookup::<HourBucket>("sensor_id", "date"))
    }
}

impl Collection for ReadingBucket {
    fn collection_spec() -> CollectionSpec {
        let schema = READINGS
            .constrain(Self::root_schema())
            .expect("ReadingBucket stores readings and count");
        CollectionSpec::new(READINGS.collection)
            .json_schema(schema)
            .index(lookup::<ReadingBucket>("sensor_id", "start"))
    }
}

// The hour's bucket of a sensor (the upsert's filter and the chart's read), and a sensor's
// buckets over a time range.
mongo_schema::__private::inventory::submit! {
    QueryRegistration::new(HOURLY.collection, || {
        QuerySpec::new("sensor_hour").eq("sensor_id").eq("date").resolve::<HourBucket>().map(|q| vec![q])
    })
}
mongo_schema::__private::inventory::submit! {
    QueryRegistration::new(READINGS.collection, || {
        QuerySpec::new("sensor_range").eq("sensor_id").range("start").resolve::<ReadingBucket>().map(|q| vec![q])
    })
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "bucket",
    pattern: "bucket (sensor_data)",
    summary: "One document per sensor and hour instead of one per measurement. The bucket size \
              (60) is declared once, in a BucketSpec: the validator's maxItems on the array and \
              maximum on the count, and the upsert's `count < 60`, come from it. Both seed shapes \
              are declared: sensor_data {sensor_id, date, nMeasurements, measurements, summary} \
              and sensor_buckets {sensorId, start, count, readings: [{t, temp}], sum, min, max}. \
              $avg has no update operator: keep sum and count and divide when reading, or \
              recompute a stored avg with a pipeline update (a second write).",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![
        HourBucket::collection_spec(),
        ReadingBucket::collection_spec(),
    ]
}

fn explain() -> String {
    let date = DateTime::parse_rfc3339_str("2026-01-01T00:00:00Z").expect("a literal date");
    let hourly = HOURLY.add("s1", date, 23.7).expect("23.7 is a number");
    let refresh = HOURLY
        .refresh_average("s1", date)
        .expect("HOURLY stores an average");
    let at = DateTime::parse_rfc3339_str("2026-01-15T10:01:00Z").expect("a literal date");
    let reading = READINGS
        .add_at("s_42", at, doc! { "t": 60, "temp": 22.3 })
        .expect("the reading has a numeric temp");
    let average = READINGS.average_expression().expect("READINGS keeps a sum");
    format!(
        "Adding a measurement (mongo_schema::patterns::bucket), second seed's shape:\n\
         db.{}.updateOne({}, {}, {{upsert: true}})\n\
         then, to keep summary.avg: db.{}.updateMany({}, {})\n\n\
         First seed's shape (window from the reading's time, sum kept instead of avg):\n\
         db.{}.updateOne({}, {}, {{upsert: true}})\n\
         and the average when reading: {{$project: {{avg: {}}}}}\n",
        hourly.collection,
        json(&hourly.filter),
        json(&hourly.update),
        refresh.collection,
        json(&refresh.filter),
        json_list(refresh.pipeline.as_deref().unwrap_or_default()),
        reading.collection,
        json(&reading.filter),
        json(&reading.update),
        mongo_schema::extjson::to_string_pretty(&average, mongo_schema::ExtJsonMode::Relaxed),
    )
}

/// The deployment's `sensor_data` was created without the lookup index: every upsert scans.
fn drift() -> Vec<Document> {
    vec![doc! { "dropIndexes": "sensor_data", "index": "sensor_id_1_date_1" }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict;

    fn bound_of(spec: &CollectionSpec, field: &str) -> Option<bson::Bson> {
        let validator = spec.validator.as_ref()?.to_document();
        validator
            .get_document("$jsonSchema")
            .ok()?
            .get_document("properties")
            .ok()?
            .get_document(field)
            .ok()?
            .get("maxItems")
            .cloned()
    }

    #[test]
    fn validator_and_upsert_share_the_bucket_size() {
        let spec = HourBucket::collection_spec();
        let bound =
            bound_of(&spec, "measurements").and_then(|b| b.as_i64().or(b.as_i32().map(i64::from)));
        assert_eq!(bound, Some(i64::from(HOURLY.max_items)));
        let write = HOURLY.add("s1", DateTime::from_millis(0), 1.0).unwrap();
        assert_eq!(
            write.filter.get_document("nMeasurements").unwrap(),
            &doc! { "$lt": 60 }
        );
    }

    /// What the first upsert of an empty window inserts: the filter's equalities, then the
    /// update's fields (server: "upsert" on the update manual page).
    #[test]
    fn the_document_the_first_upsert_creates_passes_the_validator() {
        let start = DateTime::parse_rfc3339_str("2026-01-15T10:00:00Z").unwrap();
        let created = doc! {
            "sensorId": "s_42", "start": start,
            "readings": [{ "t": 0, "temp": 22.1 }], "count": 1, "sum": 22.1, "min": 22.1, "max": 22.1,
        };
        assert_eq!(verdict(&ReadingBucket::collection_spec(), &created), Ok(()));
        let hourly = doc! {
            "sensor_id": "s1", "date": start,
            "measurements": [23.7], "nMeasurements": 1, "summary": { "min": 23.7, "max": 23.7 },
        };
        assert_eq!(verdict(&HourBucket::collection_spec(), &hourly), Ok(()));
        let mut full = hourly.clone();
        full.insert("measurements", vec![bson::Bson::Double(1.0); 61]);
        assert!(verdict(&HourBucket::collection_spec(), &full).is_err());
    }
}
