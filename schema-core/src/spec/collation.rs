//! `Collation`: how strings compare and sort, for a collection or one index.

use bson::Document;

use super::error::{DocumentError, SpecError};
use super::read;

/// A collation: how strings compare and sort.
///
/// The server lists any collation other than `simple` expanded to every ICU field plus a
/// server-only `version`; `normalize` and `diff` compare only the fields a declaration gives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Collation {
    /// `locale` (`"simple"` means binary comparison: no collation).
    pub locale: String,
    /// `caseLevel`.
    pub case_level: Option<bool>,
    /// `caseFirst`: `upper`, `lower` or `off`.
    pub case_first: Option<String>,
    /// `strength`: 1 to 5.
    pub strength: Option<i32>,
    /// `numericOrdering`.
    pub numeric_ordering: Option<bool>,
    /// `alternate`: `non-ignorable` or `shifted`.
    pub alternate: Option<String>,
    /// `maxVariable`: `punct` or `space`.
    pub max_variable: Option<String>,
    /// `normalization`.
    pub normalization: Option<bool>,
    /// `backwards` (French secondary ordering).
    pub backwards: Option<bool>,
    /// `version`: the ICU version the server used. Never compared.
    pub version: Option<String>,
    /// Fields the model does not know, kept verbatim.
    pub other: Document,
}

impl Collation {
    /// A collation with only `locale` set.
    pub fn new(locale: impl Into<String>) -> Collation {
        Collation {
            locale: locale.into(),
            ..Collation::default()
        }
    }

    /// Sets `strength`.
    pub fn strength(mut self, strength: i32) -> Collation {
        self.strength = Some(strength);
        self
    }

    /// Sets `caseLevel`.
    pub fn case_level(mut self, on: bool) -> Collation {
        self.case_level = Some(on);
        self
    }

    /// Sets `numericOrdering`.
    pub fn numeric_ordering(mut self, on: bool) -> Collation {
        self.numeric_ordering = Some(on);
        self
    }

    /// Checks what the server refuses in a collation: an empty locale, a strength outside 1..=5,
    /// an unknown `caseFirst`, `alternate` or `maxVariable`.
    ///
    /// # Errors
    /// [`SpecError::InvalidCollection`] with the reason.
    pub fn check(&self, ns: &str) -> Result<(), SpecError> {
        let err = |reason: String| SpecError::InvalidCollection {
            collection: ns.to_owned(),
            reason,
        };
        if self.locale.is_empty() {
            return Err(err("collation locale must be non-empty".into()));
        }
        if let Some(s) = self.strength
            && !(1..=5).contains(&s)
        {
            return Err(err(format!("collation strength must be 1 to 5, not {s}")));
        }
        let one_of = |field: &str, value: &Option<String>, allowed: &[&str]| match value {
            Some(v) if !allowed.contains(&v.as_str()) => Err(err(format!(
                "collation {field} must be one of {allowed:?}, not {v:?}"
            ))),
            _ => Ok(()),
        };
        one_of("caseFirst", &self.case_first, &["upper", "lower", "off"])?;
        one_of("alternate", &self.alternate, &["non-ignorable", "shifted"])?;
        one_of("maxVariable", &self.max_variable, &["punct", "space"])?;
        Ok(())
    }

    /// Whether this is the `simple` collation, which the server never lists.
    pub fn is_simple(&self) -> bool {
        self.locale == "simple"
    }

    /// The collation as a document, `locale` first, then the ICU fields that are set.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("locale", self.locale.clone());
        if let Some(v) = self.case_level {
            d.insert("caseLevel", v);
        }
        if let Some(v) = &self.case_first {
            d.insert("caseFirst", v.clone());
        }
        if let Some(v) = self.strength {
            d.insert("strength", v);
        }
        if let Some(v) = self.numeric_ordering {
            d.insert("numericOrdering", v);
        }
        if let Some(v) = &self.alternate {
            d.insert("alternate", v.clone());
        }
        if let Some(v) = &self.max_variable {
            d.insert("maxVariable", v.clone());
        }
        if let Some(v) = self.normalization {
            d.insert("normalization", v);
        }
        if let Some(v) = self.backwards {
            d.insert("backwards", v);
        }
        if let Some(v) = &self.version {
            d.insert("version", v.clone());
        }
        for (k, v) in &self.other {
            d.insert(k.clone(), v.clone());
        }
        d
    }

    /// Reads a collation document.
    ///
    /// # Errors
    /// [`DocumentError`] when `locale` is missing or a known field has the wrong type.
    pub fn from_document(doc: &Document) -> Result<Collation, DocumentError> {
        let mut c = Collation::default();
        let mut has_locale = false;
        for (key, value) in doc {
            match key.as_str() {
                "locale" => {
                    c.locale = read::string(key, value)?;
                    has_locale = true;
                }
                "caseLevel" => c.case_level = Some(read::truthy(key, value)?),
                "caseFirst" => c.case_first = Some(read::string(key, value)?),
                "strength" => {
                    let n = read::number(value)
                        .ok_or_else(|| DocumentError::expected(key, "a number", value))?;
                    c.strength = Some(n as i32);
                }
                "numericOrdering" => c.numeric_ordering = Some(read::truthy(key, value)?),
                "alternate" => c.alternate = Some(read::string(key, value)?),
                "maxVariable" => c.max_variable = Some(read::string(key, value)?),
                "normalization" => c.normalization = Some(read::truthy(key, value)?),
                "backwards" => c.backwards = Some(read::truthy(key, value)?),
                "version" => c.version = Some(read::string(key, value)?),
                _ => {
                    c.other.insert(key.clone(), value.clone());
                }
            }
        }
        if !has_locale {
            return Err(DocumentError::missing("locale"));
        }
        Ok(c)
    }
}
