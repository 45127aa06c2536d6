//! Native time-series collection: the server buckets the measurements itself (MongoDB 5.0+).
//! The declaration carries `timeseries` and the collection TTL; it has no validator, because
//! the server refuses one on a time-series collection.

use bson::{DateTime, Document, doc};
use mongo_schema::MongoSchema;
use mongo_schema::spec::{Collection, CollectionSpec};
use serde::{Deserialize, Serialize};

use crate::{Example, json, json_list};

/// Ninety days, the seed's TTL.
pub const RETENTION_SECONDS: i64 = 90 * 24 * 3600;

/// One measurement, as the application inserts it (`sensor_readings`). No validator: time-series
/// collections refuse one (InvalidOptions, 72), and the declaration leaves it out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, MongoSchema)]
#[mongo(
    collection = "sensor_readings",
    timeseries(time_field = timestamp, meta_field = sensor_id, granularity = "minutes"),
    expire_after_seconds = 7776000
)]
pub struct SensorReading {
    /// The time field.
    pub timestamp: DateTime,
    /// The meta field: which series the measurement belongs to.
    pub sensor_id: String,
    /// Degrees Celsius.
    pub temperature: f64,
}

/// The example.
pub const EXAMPLE: Example = Example {
    name: "time_series",
    pattern: "native time series (sensor_readings)",
    summary: "For new projects the server's time-series collections bucket measurements \
              themselves. The declaration is the collection's options: timeField timestamp, \
              metaField sensor_id, granularity minutes, expireAfterSeconds 7776000 (90 days). \
              There is no validator: the server refuses one on a time-series collection, and \
              `generate` leaves it out.",
    collections,
    explain,
    drift,
};

fn collections() -> Vec<CollectionSpec> {
    vec![SensorReading::collection_spec()]
}

fn explain() -> String {
    let spec = SensorReading::collection_spec();
    let from = DateTime::parse_rfc3339_str("2026-01-01T00:00:00Z").expect("a literal date");
    let hourly = [
        doc! { "$match": { "sensor_id": "temp_001", "timestamp": { "$gte": from } } },
        doc! { "$group": {
            "_id": { "$dateTrunc": { "date": "$timestamp", "unit": "hour" } },
            "avgTemp": { "$avg": "$temperature" },
            "count": { "$sum": 1 },
        } },
        doc! { "$sort": { "_id": 1 } },
    ];
    format!(
        "db.createCollection(\"{}\", {})\n\nHourly averages (the seed's aggregation):\n\
         db.sensor_readings.aggregate({})\n",
        spec.name,
        json(&spec.to_options_document()),
        json_list(&hourly),
    )
}

/// Someone raised the granularity to hours by hand (the server allows only raising it).
fn drift() -> Vec<Document> {
    vec![doc! { "collMod": "sensor_readings", "timeseries": { "granularity": "hours" } }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_the_seeds_and_there_is_no_validator() {
        let spec = SensorReading::collection_spec();
        assert!(spec.validator.is_none());
        assert_eq!(
            spec.to_options_document(),
            doc! {
                "timeseries": { "timeField": "timestamp", "metaField": "sensor_id", "granularity": "minutes" },
                "expireAfterSeconds": 7_776_000_i64,
            }
        );
        assert!(spec.check().is_ok());
    }
}
