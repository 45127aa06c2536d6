//! The bucket pattern: one document per entity and time window holding up to `max_items`
//! measurements, plus a running count and summary. [`BucketSpec`] is declared once; the validator
//! bound ([`BucketSpec::constrain`]) and the upsert's `count < max` ([`BucketSpec::add`]) both
//! read its one number.
//!
//! `$avg` cannot be kept by an update operator (there is no running-average operator), so the
//! helper offers two honest choices: store `sum` beside `count` and divide when reading
//! ([`BucketSpec::average_expression`]), or recompute a stored average with a pipeline update
//! ([`BucketSpec::refresh_average`]), a second write that reads the whole bucket.

use bson::{Bson, DateTime, Document, doc};

use super::{Find, PatternError, Update, number, property_mut};
use crate::schema::{JsonSchema, Number};

/// A bucketed collection's field names and its bucket size.
///
/// The first seed's shape, `{sensorId, start, count, readings: [{t, temp}], sum, min, max}`:
///
/// ```
/// use mongo_schema::patterns::bucket::BucketSpec;
/// const SENSOR: BucketSpec = BucketSpec::new("sensor_data", "sensorId", "start", "count", "readings", 60)
///     .value("temp")
///     .sum("sum")
///     .min("min")
///     .max("max");
/// assert_eq!(SENSOR.max_items, 60);
/// ```
///
/// The second seed's shape, `{sensor_id, date, nMeasurements, measurements: [23.4, ...],
/// summary: {min, max, avg}}`:
///
/// ```
/// use mongo_schema::patterns::bucket::BucketSpec;
/// const SENSOR: BucketSpec =
///     BucketSpec::new("sensor_data", "sensor_id", "date", "nMeasurements", "measurements", 60)
///         .min("summary.min")
///         .max("summary.max")
///         .avg("summary.avg");
/// assert!(SENSOR.value.is_none()); // each measurement is the number itself
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketSpec {
    /// The bucket collection.
    pub collection: &'static str,
    /// The stored name of the entity the bucket belongs to (`sensorId`).
    pub entity: &'static str,
    /// The stored name of the window's start (`start`, `date`).
    pub window: &'static str,
    /// The stored name of the measurement count (`count`, `nMeasurements`).
    pub count: &'static str,
    /// The stored name of the measurements array (`readings`, `measurements`).
    pub items: &'static str,
    /// How many measurements a bucket holds at most: the validator's `maxItems` and the
    /// upsert's `count < max`.
    pub max_items: u32,
    /// The window length in seconds (default 3600: one bucket per hour).
    pub span_seconds: i64,
    /// The field of each measurement holding the summarised number (`temp`); `None` when each
    /// measurement is the number itself.
    pub value: Option<&'static str>,
    /// Stored path of the running sum (`$inc`).
    pub sum: Option<&'static str>,
    /// Stored path of the running minimum (`$min`).
    pub min: Option<&'static str>,
    /// Stored path of the running maximum (`$max`).
    pub max: Option<&'static str>,
    /// Stored path of a stored average, kept by [`BucketSpec::refresh_average`].
    pub avg: Option<&'static str>,
}

impl BucketSpec {
    /// A bucket collection with no summary fields and hour-long windows.
    pub const fn new(
        collection: &'static str,
        entity: &'static str,
        window: &'static str,
        count: &'static str,
        items: &'static str,
        max_items: u32,
    ) -> BucketSpec {
        BucketSpec {
            collection,
            entity,
            window,
            count,
            items,
            max_items,
            span_seconds: 3600,
            value: None,
            sum: None,
            min: None,
            max: None,
            avg: None,
        }
    }

    /// Sets the window length in seconds.
    pub const fn span_seconds(mut self, seconds: i64) -> BucketSpec {
        self.span_seconds = seconds;
        self
    }

    /// Names the field of each measurement that holds the summarised number.
    pub const fn value(mut self, field: &'static str) -> BucketSpec {
        self.value = Some(field);
        self
    }

    /// Keeps a running sum at this stored path.
    pub const fn sum(mut self, path: &'static str) -> BucketSpec {
        self.sum = Some(path);
        self
    }

    /// Keeps a running minimum at this stored path.
    pub const fn min(mut self, path: &'static str) -> BucketSpec {
        self.min = Some(path);
        self
    }

    /// Keeps a running maximum at this stored path.
    pub const fn max(mut self, path: &'static str) -> BucketSpec {
        self.max = Some(path);
        self
    }

    /// Stores an average at this stored path (see [`BucketSpec::refresh_average`]).
    pub const fn avg(mut self, path: &'static str) -> BucketSpec {
        self.avg = Some(path);
        self
    }

    /// The start of the window holding `at`: `at` rounded down to a multiple of the span,
    /// counted from the Unix epoch.
    ///
    /// ```
    /// use mongo_schema::patterns::bucket::BucketSpec;
    /// let spec = BucketSpec::new("c", "e", "w", "n", "m", 60);
    /// let at = bson::DateTime::parse_rfc3339_str("2026-01-15T10:42:07Z").unwrap();
    /// assert_eq!(spec.window_of(at).try_to_rfc3339_string().unwrap(), "2026-01-15T10:00:00Z");
    /// ```
    pub fn window_of(&self, at: DateTime) -> DateTime {
        let span = self.span_seconds.max(1).saturating_mul(1000);
        let millis = at.timestamp_millis();
        DateTime::from_millis(millis - millis.rem_euclid(span))
    }

    /// Bounds the bucket in `schema` (the collection's root schema): `maxItems` on the
    /// measurements array and `maximum` on the count, both [`BucketSpec::max_items`].
    ///
    /// # Errors
    /// [`PatternError::MissingProperty`] when the schema has no such field.
    pub fn constrain(&self, mut schema: JsonSchema) -> Result<JsonSchema, PatternError> {
        property_mut(&mut schema, self.items)?.max_items = Some(u64::from(self.max_items));
        property_mut(&mut schema, self.count)?.maximum =
            Some(Number::integer(i128::from(self.max_items)));
        Ok(schema)
    }

    /// The upsert adding one measurement to the entity's current bucket for `window_start`.
    ///
    /// The filter matches the bucket of the entity and window while its count is under the
    /// bucket size; the update pushes the measurement, increments the count (and the sum), and
    /// folds the value into `$min`/`$max`. When every bucket of the window is full (or none
    /// exists) nothing matches and the upsert inserts a new bucket from the filter's
    /// equalities (`entity`, `window`): a window may therefore hold several buckets, and readers
    /// gather all of them. Do not put a unique index on `{entity, window}`: the upsert of a
    /// second bucket would fail with a duplicate key.
    ///
    /// # Errors
    /// [`PatternError::MissingValue`] when the spec names a value field the measurement lacks,
    /// [`PatternError::NotANumber`] when the summarised value is not a number (only checked when
    /// a sum, min or max is kept).
    pub fn add(
        &self,
        entity: impl Into<Bson>,
        window_start: DateTime,
        measurement: impl Into<Bson>,
    ) -> Result<Update, PatternError> {
        let measurement = measurement.into();
        let filter = doc! {
            self.entity: entity.into(),
            self.window: window_start,
            self.count: { "$lt": compact(self.max_items) },
        };
        let mut push = Document::new();
        push.insert(self.items, measurement.clone());
        let mut inc = doc! { self.count: 1 };
        let mut update = doc! { "$push": push };
        if self.sum.is_some() || self.min.is_some() || self.max.is_some() {
            let value = self.value_of(&measurement)?;
            if let Some(sum) = self.sum {
                inc.insert(sum, value.clone());
            }
            update.insert("$inc", inc);
            if let Some(min) = self.min {
                update.insert("$min", doc! { min: value.clone() });
            }
            if let Some(max) = self.max {
                update.insert("$max", doc! { max: value });
            }
        } else {
            update.insert("$inc", inc);
        }
        Ok(Update::new(self.collection, filter, update).upsert(true))
    }

    /// [`BucketSpec::add`] for a measurement taken at `at`, in the window holding it.
    ///
    /// # Errors
    /// As [`BucketSpec::add`].
    pub fn add_at(
        &self,
        entity: impl Into<Bson>,
        at: DateTime,
        measurement: impl Into<Bson>,
    ) -> Result<Update, PatternError> {
        self.add(entity, self.window_of(at), measurement)
    }

    fn value_of(&self, measurement: &Bson) -> Result<Bson, PatternError> {
        match self.value {
            None => number("the measurement", measurement.clone()),
            Some(field) => {
                let value = measurement
                    .as_document()
                    .and_then(|d| d.get(field))
                    .ok_or_else(|| PatternError::MissingValue {
                        field: field.to_owned(),
                    })?;
                number(field, value.clone())
            }
        }
    }

    /// The average as an aggregation expression over the stored sum and count
    /// (`{$divide: ["$sum", "$count"]}`), for a `$project` or `$addFields` stage; `None` when no
    /// sum is kept.
    pub fn average_expression(&self) -> Option<Bson> {
        let sum = self.sum?;
        Some(Bson::Document(doc! {
            "$divide": [format!("${sum}"), format!("${}", self.count)],
        }))
    }

    /// The pipeline update recomputing the stored average of the entity's buckets of one
    /// window from their measurements (`{$set: {"summary.avg": {$avg: "$measurements"}}}`);
    /// `None` when no average is stored. Apply it with `updateMany` (the update is
    /// marked `multi`) after [`BucketSpec::add`]: it is a second write, not atomic with the
    /// first, and it reads every measurement of the bucket.
    pub fn refresh_average(
        &self,
        entity: impl Into<Bson>,
        window_start: DateTime,
    ) -> Option<Update> {
        let avg = self.avg?;
        let values = match self.value {
            Some(field) => format!("${}.{field}", self.items),
            None => format!("${}", self.items),
        };
        let filter = doc! { self.entity: entity.into(), self.window: window_start };
        let stage = doc! { "$set": { avg: { "$avg": values } } };
        Some(Update::pipeline(self.collection, filter, vec![stage]).multi(true))
    }

    /// The buckets of one entity whose windows start in `[from, to)`, oldest first.
    pub fn range(&self, entity: impl Into<Bson>, from: DateTime, to: DateTime) -> Find {
        Find {
            collection: self.collection.to_owned(),
            filter: doc! { self.entity: entity.into(), self.window: { "$gte": from, "$lt": to } },
            sort: doc! { self.window: 1 },
        }
    }
}

/// An unsigned count as the smallest BSON integer holding it.
fn compact(n: u32) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(i64::from(n)), Bson::Int32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{MongoSchema, SchemaGenerator, array_of, object};

    const FIRST_SEED: BucketSpec =
        BucketSpec::new("sensor_data", "sensorId", "start", "count", "readings", 60)
            .value("temp")
            .sum("sum")
            .min("min")
            .max("max");

    const SECOND_SEED: BucketSpec = BucketSpec::new(
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

    fn hour() -> DateTime {
        DateTime::parse_rfc3339_str("2026-01-15T10:00:00Z").unwrap()
    }

    #[test]
    fn first_seed_upsert_pushes_counts_sums_and_folds_min_max() {
        let write = FIRST_SEED
            .add("s_42", hour(), doc! { "t": 60, "temp": 22.3 })
            .unwrap();
        assert_eq!(write.collection, "sensor_data");
        assert_eq!(
            write.filter,
            doc! { "sensorId": "s_42", "start": hour(), "count": { "$lt": 60 } }
        );
        assert_eq!(
            write.update,
            doc! {
                "$push": { "readings": { "t": 60, "temp": 22.3 } },
                "$inc": { "count": 1, "sum": 22.3 },
                "$min": { "min": 22.3 },
                "$max": { "max": 22.3 },
            }
        );
        assert!(write.upsert);
        assert!(!write.multi);
    }

    // The second seed's updateOne, word for word: filter {sensor_id, date, nMeasurements: {$lt:
    // 60}}, update {$push, $inc, $min: {"summary.min"}, $max: {"summary.max"}}, {upsert: true}.
    #[test]
    fn second_seed_upsert_matches_the_documented_command() {
        let date = DateTime::parse_rfc3339_str("2026-01-01T00:00:00Z").unwrap();
        let write = SECOND_SEED.add("s1", date, 23.7).unwrap();
        assert_eq!(
            write.to_statement(),
            doc! {
                "q": { "sensor_id": "s1", "date": date, "nMeasurements": { "$lt": 60 } },
                "u": {
                    "$push": { "measurements": 23.7 },
                    "$inc": { "nMeasurements": 1 },
                    "$min": { "summary.min": 23.7 },
                    "$max": { "summary.max": 23.7 },
                },
                "upsert": true,
            }
        );
    }

    #[test]
    fn bucket_without_summary_needs_no_numeric_value() {
        let spec = BucketSpec::new("log", "host", "hour", "n", "lines", 1000);
        let write = spec.add("web-1", hour(), "GET /").unwrap();
        assert_eq!(
            write.update,
            doc! { "$push": { "lines": "GET /" }, "$inc": { "n": 1 } }
        );
        assert_eq!(
            write.filter.get_document("n").unwrap(),
            &doc! { "$lt": 1000 }
        );
    }

    #[test]
    fn summary_of_a_missing_or_non_numeric_value_is_refused() {
        assert_eq!(
            FIRST_SEED.add("s", hour(), doc! { "t": 0 }),
            Err(PatternError::MissingValue {
                field: "temp".into()
            })
        );
        assert!(matches!(
            FIRST_SEED.add("s", hour(), doc! { "t": 0, "temp": "hot" }),
            Err(PatternError::NotANumber { .. })
        ));
        assert!(matches!(
            SECOND_SEED.add("s", hour(), "23.7"),
            Err(PatternError::NotANumber { .. })
        ));
    }

    #[test]
    fn window_of_rounds_down_to_the_span() {
        let at = DateTime::parse_rfc3339_str("2026-01-15T10:59:59.999Z").unwrap();
        assert_eq!(FIRST_SEED.window_of(at), hour());
        assert_eq!(FIRST_SEED.window_of(hour()), hour());
        let daily = FIRST_SEED.span_seconds(86_400);
        assert_eq!(
            daily.window_of(at),
            DateTime::parse_rfc3339_str("2026-01-15T00:00:00Z").unwrap()
        );
        // Before the epoch the window still starts at or before the instant.
        let early = DateTime::from_millis(-1);
        assert_eq!(
            FIRST_SEED.window_of(early),
            DateTime::from_millis(-3_600_000)
        );
        let write = FIRST_SEED
            .add_at("s", at, doc! { "t": 3599, "temp": 1 })
            .unwrap();
        assert_eq!(write.filter.get_datetime("start").unwrap(), &hour());
    }

    fn bucket_schema() -> JsonSchema {
        let g = &mut SchemaGenerator::default();
        let mut s = object();
        s.properties
            .insert("sensorId".into(), String::json_schema(g));
        s.properties.insert("count".into(), i32::json_schema(g));
        s.properties.insert("readings".into(), array_of(object()));
        s
    }

    #[test]
    fn validator_bound_and_upsert_bound_are_one_number() {
        let spec = FIRST_SEED;
        let schema = spec.constrain(bucket_schema()).unwrap();
        assert_eq!(schema.properties["readings"].max_items, Some(60));
        assert_eq!(
            schema.properties["count"].to_document().get("maximum"),
            Some(&Bson::Int32(60))
        );
        let write = spec.add("s", hour(), doc! { "temp": 1.0 }).unwrap();
        assert_eq!(
            write.filter.get_document("count").unwrap().get("$lt"),
            Some(&Bson::Int32(60))
        );
        let small = BucketSpec {
            max_items: 12,
            ..spec
        };
        assert_eq!(
            small.constrain(bucket_schema()).unwrap().properties["readings"].max_items,
            Some(12)
        );
    }

    #[test]
    fn constrain_names_a_missing_field() {
        assert_eq!(
            SECOND_SEED.constrain(bucket_schema()),
            Err(PatternError::MissingProperty {
                path: "measurements".into()
            })
        );
    }

    #[test]
    fn average_is_sum_over_count_or_a_pipeline_recompute() {
        assert_eq!(
            FIRST_SEED.average_expression(),
            Some(Bson::Document(doc! { "$divide": ["$sum", "$count"] }))
        );
        assert_eq!(SECOND_SEED.average_expression(), None);
        let date = hour();
        let refresh = SECOND_SEED.refresh_average("s1", date).unwrap();
        assert_eq!(refresh.filter, doc! { "sensor_id": "s1", "date": date });
        assert_eq!(
            refresh.pipeline,
            Some(vec![
                doc! { "$set": { "summary.avg": { "$avg": "$measurements" } } }
            ])
        );
        assert!(refresh.multi);
        assert!(FIRST_SEED.refresh_average("s", date).is_none());
        let with_value = FIRST_SEED.avg("avg").refresh_average("s", date).unwrap();
        assert_eq!(
            with_value.pipeline,
            Some(vec![
                doc! { "$set": { "avg": { "$avg": "$readings.temp" } } }
            ])
        );
    }

    #[test]
    fn range_reads_windows_oldest_first() {
        let to = DateTime::from_millis(hour().timestamp_millis() + 7_200_000);
        let find = FIRST_SEED.range("s_42", hour(), to);
        assert_eq!(
            find.filter,
            doc! { "sensorId": "s_42", "start": { "$gte": hour(), "$lt": to } }
        );
        assert_eq!(find.sort, doc! { "start": 1 });
    }
}
