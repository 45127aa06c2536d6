//! A view: the `viewOn` source and the aggregation `pipeline` of a read-only collection. A view
//! is a [`CollectionSpec`](super::CollectionSpec) whose options hold a [`View`], as the server
//! lists it (`listCollections` entries of type `view`, options `{viewOn, pipeline}`).

use bson::{Bson, Document};

use super::error::{DocumentError, SpecError};

/// A view's definition: the collection (or view) it reads and the pipeline it applies.
///
/// ```
/// use mongo_schema::spec::{CollectionSpec, View};
/// let pipeline = vec![bson::doc! { "$match": { "active": true } }];
/// let spec = CollectionSpec::new("active_users").view(View::new("users", pipeline));
/// assert_eq!(
///     spec.to_options_document(),
///     bson::doc! { "viewOn": "users", "pipeline": [{ "$match": { "active": true } }] },
/// );
/// assert!(spec.check().is_ok());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct View {
    /// `viewOn`: the source collection or view, in the same database.
    pub view_on: String,
    /// `pipeline`: the aggregation stages, as written (order and key order kept).
    pub pipeline: Vec<Document>,
}

impl View {
    /// A view on `view_on` through `pipeline`.
    pub fn new(view_on: impl Into<String>, pipeline: Vec<Document>) -> View {
        View {
            view_on: view_on.into(),
            pipeline,
        }
    }

    /// The pipeline as a BSON array.
    pub fn pipeline_bson(&self) -> Bson {
        Bson::Array(self.pipeline.iter().cloned().map(Bson::Document).collect())
    }

    /// Writes `viewOn` and `pipeline` into `create` options.
    pub(crate) fn write_into(&self, d: &mut Document) {
        d.insert("viewOn", self.view_on.clone());
        d.insert("pipeline", self.pipeline_bson());
    }

    /// The `collMod` that gives a live view this definition: the manual's "Modify a View"
    /// (<https://www.mongodb.com/docs/manual/core/views/update-view/>) sends `viewOn` and
    /// `pipeline` together.
    pub fn coll_mod_command(&self, name: &str) -> Document {
        let mut d = bson::doc! { "collMod": name };
        self.write_into(&mut d);
        d
    }

    /// Reads a `pipeline` value: an array of stage documents.
    ///
    /// # Errors
    /// [`DocumentError`] at `pipeline` or `pipeline[i]`.
    pub fn read_pipeline(value: &Bson) -> Result<Vec<Document>, DocumentError> {
        let Bson::Array(stages) = value else {
            return Err(DocumentError::expected("pipeline", "an array", value));
        };
        stages
            .iter()
            .enumerate()
            .map(|(i, stage)| match stage {
                Bson::Document(d) => Ok(d.clone()),
                other => Err(DocumentError::expected(
                    &format!("pipeline[{i}]"),
                    "a stage document",
                    other,
                )),
            })
            .collect()
    }

    /// The server's refusals for a view definition: an empty `viewOn`, a stage that is not
    /// one `$`-operator, and `$out`/`$merge` anywhere (nested pipelines of `$lookup`,
    /// `$facet` and `$unionWith` included; db.createView in the manual:
    /// <https://www.mongodb.com/docs/manual/reference/method/db.createView/>).
    pub(crate) fn check(&self, ns: &str) -> Result<(), SpecError> {
        let err = |reason: String| SpecError::InvalidCollection {
            collection: ns.to_owned(),
            reason,
        };
        if self.view_on.is_empty() {
            return Err(err("a view needs a non-empty 'viewOn'".into()));
        }
        if self.view_on == ns {
            return Err(err("a view cannot be defined on itself".into()));
        }
        for (i, stage) in self.pipeline.iter().enumerate() {
            check_stage(stage, &format!("pipeline[{i}]")).map_err(err)?;
        }
        Ok(())
    }
}

fn check_stage(stage: &Document, at: &str) -> Result<(), String> {
    let mut keys = stage.keys();
    let (Some(name), None) = (keys.next(), keys.next()) else {
        return Err(format!(
            "{at}: a pipeline stage is a document with exactly one field"
        ));
    };
    if !name.starts_with('$') {
        return Err(format!(
            "{at}: unrecognized pipeline stage name '{name}' (stages start with '$')"
        ));
    }
    if name == "$out" || name == "$merge" {
        return Err(format!("{at}: {name} cannot be used in a view definition"));
    }
    let Some(Bson::Document(spec)) = stage.get(name) else {
        return Ok(());
    };
    // The stages that hold sub-pipelines: `$lookup` and `$unionWith` under `pipeline`, `$facet`
    // under every field.
    let nested: Vec<(&String, &Bson)> = match name.as_str() {
        "$lookup" | "$unionWith" => spec.iter().filter(|(k, _)| *k == "pipeline").collect(),
        "$facet" => spec.iter().collect(),
        _ => Vec::new(),
    };
    for (key, value) in nested {
        let Bson::Array(stages) = value else {
            continue;
        };
        for (i, stage) in stages.iter().enumerate() {
            if let Bson::Document(stage) = stage {
                check_stage(stage, &format!("{at}.{key}[{i}]"))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;

    // The manual's db.createView: "A view definition pipeline cannot include the $out or the
    // $merge stage. This restriction also applies to embedded pipelines".
    #[test]
    fn out_and_merge_are_refused_at_any_depth() {
        let top = View::new("orders", vec![doc! { "$out": "x" }]);
        assert!(top.check("v").unwrap_err().to_string().contains("$out"));
        let nested = View::new(
            "orders",
            vec![doc! { "$facet": { "a": [{ "$match": {} }], "b": [{ "$merge": "x" }] } }],
        );
        let error = nested.check("v").unwrap_err().to_string();
        assert!(error.contains("pipeline[0].b[0]: $merge"), "{error}");
        let lookup = View::new(
            "orders",
            vec![doc! { "$lookup": { "from": "u", "as": "u", "pipeline": [{ "$out": "y" }] } }],
        );
        assert!(lookup.check("v").is_err());
        let fine = View::new(
            "orders",
            vec![
                doc! { "$match": { "status": "PAID" } },
                doc! { "$project": { "total": 1 } },
            ],
        );
        assert!(fine.check("v").is_ok());
    }

    #[test]
    fn a_stage_is_one_operator() {
        let two = View::new("orders", vec![doc! { "$match": {}, "$limit": 1 }]);
        assert!(two.check("v").is_err());
        let bare = View::new("orders", vec![doc! { "match": {} }]);
        assert!(bare.check("v").is_err());
        assert!(View::new("", Vec::new()).check("v").is_err());
        assert!(View::new("v", Vec::new()).check("v").is_err());
    }

    #[test]
    fn pipeline_reader_names_the_bad_stage() {
        let error =
            View::read_pipeline(&Bson::Array(vec![Bson::Document(doc! {}), Bson::Int32(1)]))
                .unwrap_err();
        assert_eq!(error.path, "pipeline[1]");
        assert!(View::read_pipeline(&Bson::Int32(1)).is_err());
    }
}
