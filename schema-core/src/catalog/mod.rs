//! The live side as a file: a captured catalog (`listCollections` and `listIndexes` replies,
//! verbatim), which `normalize` reads into live specs, written as Extended JSON or pasted from
//! mongosh ([`shell`]). The driver half, which captures it from a deployment, is in the CLI.

pub mod shell;

use std::collections::BTreeMap;

use bson::{Bson, Document};

use crate::extjson::{self, ExtJsonMode};
use crate::manifest::ManifestError;
use crate::normalize::{NormalizeError, live_collection};
use crate::spec::{CollectionSpec, DocumentError};

/// A captured live catalog: the shape `mongo-schema snapshot` writes and `--catalog` reads.
///
/// `{"collections": [<listCollections entries>], "indexes": {"<collection>": [<listIndexes
/// entries>]}}`, in canonical Extended JSON, each entry verbatim.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    /// `listCollections` entries, verbatim.
    pub collections: Vec<Document>,
    /// `listIndexes` entries by collection name, verbatim.
    pub indexes: BTreeMap<String, Vec<Document>>,
    /// `$listSearchIndexes` entries by collection name, verbatim (`searchIndexes` in the file,
    /// left out when empty).
    pub search_indexes: BTreeMap<String, Vec<Document>>,
}

impl Catalog {
    /// Reads the snapshot shape from a document.
    ///
    /// # Errors
    /// [`NormalizeError::File`] with the path of the first field of the wrong shape.
    pub fn from_document(doc: &Document) -> Result<Catalog, NormalizeError> {
        let shape = |e: DocumentError| NormalizeError::File(e.into());
        let mut catalog = Catalog::default();
        match doc.get("collections") {
            Some(Bson::Array(list)) => {
                for (i, entry) in list.iter().enumerate() {
                    match entry {
                        Bson::Document(d) => catalog.collections.push(d.clone()),
                        other => {
                            return Err(shape(DocumentError::expected(
                                &format!("collections[{i}]"),
                                "a document",
                                other,
                            )));
                        }
                    }
                }
            }
            Some(other) => {
                return Err(shape(DocumentError::expected(
                    "collections",
                    "an array",
                    other,
                )));
            }
            None => return Err(shape(DocumentError::missing("collections"))),
        }
        match doc.get("indexes") {
            None => {}
            Some(Bson::Document(by_name)) => {
                for (name, list) in by_name {
                    let Bson::Array(list) = list else {
                        return Err(shape(DocumentError::expected(
                            &format!("indexes.{name}"),
                            "an array",
                            list,
                        )));
                    };
                    let mut entries = Vec::with_capacity(list.len());
                    for (i, entry) in list.iter().enumerate() {
                        match entry {
                            Bson::Document(d) => entries.push(d.clone()),
                            other => {
                                return Err(shape(DocumentError::expected(
                                    &format!("indexes.{name}[{i}]"),
                                    "a document",
                                    other,
                                )));
                            }
                        }
                    }
                    catalog.indexes.insert(name.clone(), entries);
                }
            }
            Some(other) => {
                return Err(shape(DocumentError::expected(
                    "indexes",
                    "a document",
                    other,
                )));
            }
        }
        match doc.get("searchIndexes") {
            None => {}
            Some(Bson::Document(by_name)) => {
                for (name, list) in by_name {
                    let at = format!("searchIndexes.{name}");
                    let Bson::Array(list) = list else {
                        return Err(shape(DocumentError::expected(&at, "an array", list)));
                    };
                    let entries = list
                        .iter()
                        .enumerate()
                        .map(|(i, e)| match e {
                            Bson::Document(d) => Ok(d.clone()),
                            other => Err(shape(DocumentError::expected(
                                &format!("{at}[{i}]"),
                                "a document",
                                other,
                            ))),
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    catalog.search_indexes.insert(name.clone(), entries);
                }
            }
            Some(other) => {
                return Err(shape(DocumentError::expected(
                    "searchIndexes",
                    "a document",
                    other,
                )));
            }
        }
        Ok(catalog)
    }

    /// Reads a catalog file (canonical or relaxed Extended JSON; `EJSON.stringify` output of
    /// mongosh's `db.getCollectionInfos()` and `getIndexes()` assembled in this shape works too).
    ///
    /// # Errors
    /// [`NormalizeError::File`] with line and column, or the path of a field of the wrong shape.
    pub fn from_json(text: &str) -> Result<Catalog, NormalizeError> {
        Catalog::from_document(&extjson::parse_document(text).map_err(ManifestError::from)?)
    }

    /// The catalog as a document of the snapshot shape.
    pub fn to_document(&self) -> Document {
        let collections: Vec<Bson> = self
            .collections
            .iter()
            .cloned()
            .map(Bson::Document)
            .collect();
        let indexes: Document = self
            .indexes
            .iter()
            .map(|(name, list)| {
                let list: Vec<Bson> = list.iter().cloned().map(Bson::Document).collect();
                (name.clone(), Bson::Array(list))
            })
            .collect();
        let mut d = bson::doc! { "collections": collections, "indexes": indexes };
        if !self.search_indexes.is_empty() {
            let search: Document = self
                .search_indexes
                .iter()
                .map(|(name, list)| {
                    let list: Vec<Bson> = list.iter().cloned().map(Bson::Document).collect();
                    (name.clone(), Bson::Array(list))
                })
                .collect();
            d.insert("searchIndexes", search);
        }
        d
    }

    /// The catalog as pretty canonical Extended JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut text =
            extjson::to_string_pretty(&Bson::Document(self.to_document()), ExtJsonMode::Canonical);
        text.push('\n');
        text
    }

    /// The live specs of every collection and view, canonical and sorted by name. `system.*`
    /// collections are skipped: they are not collections a manifest declares.
    ///
    /// # Errors
    /// The first entry that cannot be read.
    pub fn to_live_specs(&self) -> Result<Vec<CollectionSpec>, NormalizeError> {
        let mut specs = Vec::new();
        for entry in &self.collections {
            let name = entry.get_str("name").unwrap_or_default();
            let indexes = self.indexes.get(name).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(mut spec) = live_collection(entry, indexes)? {
                let listed = self
                    .search_indexes
                    .get(name)
                    .map(Vec::as_slice)
                    .unwrap_or(&[]);
                spec.search_indexes = crate::normalize::live_search_indexes(name, listed)?;
                specs.push(spec);
            }
        }
        specs.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(specs)
    }
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;

    #[test]
    fn catalog_file_round_trips() {
        let text = r#"{"collections": [{"name": "c", "type": "collection", "options": {}}],
            "indexes": {"c": [{"v": {"$numberInt": "2"}, "key": {"b": {"$numberInt": "1"}, "a": {"$numberInt": "-1"}}, "name": "b_1_a_-1"}]}}"#;
        let catalog = Catalog::from_json(text).unwrap();
        assert_eq!(Catalog::from_json(&catalog.to_json()).unwrap(), catalog);
        let specs = catalog.to_live_specs().unwrap();
        assert_eq!(
            specs[0].indexes[0].keys.to_document(),
            doc! { "b": 1, "a": -1 }
        );
        let err = Catalog::from_json(r#"{"collections": {}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "catalog: collections: expected an array, found {}"
        );
    }
}
