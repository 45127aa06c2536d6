//! Collations as the server stores them: a requested `{locale: "fr"}` comes back expanded to the
//! full ICU specification; the simple collation is never listed.
//!
//! Source: the manual's "Collation" page (fields and defaults: caseLevel false, caseFirst "off",
//! strength 3, numericOrdering false, alternate "non-ignorable", maxVariable "punct",
//! normalization false, backwards false, with `backwards: true` for fr_CA) and the server's
//! `CollatorFactoryICU`, which adds the ICU `version`.

use bson::{Bson, Document, doc};

use crate::error::{CommandError, code};

/// The ICU version the server reports in an expanded collation.
const ICU_VERSION: &str = "57.1";

const FIELDS: &[&str] = &[
    "locale",
    "caseLevel",
    "caseFirst",
    "strength",
    "numericOrdering",
    "alternate",
    "maxVariable",
    "normalization",
    "backwards",
    "version",
];

/// The stored form of a requested collation; `None` for the simple collation.
pub(crate) fn expand(requested: &Document) -> Result<Option<Document>, CommandError> {
    for key in requested.keys() {
        if !FIELDS.contains(&key.as_str()) {
            return Err(CommandError::new(
                code::IDL_UNKNOWN_FIELD,
                format!("BSON field 'collation.{key}' is an unknown field."),
            ));
        }
    }
    let locale = match requested.get("locale") {
        Some(Bson::String(locale)) => locale.clone(),
        Some(_) => {
            return Err(CommandError::new(
                code::TYPE_MISMATCH,
                "collation locale must be a string",
            ));
        }
        None => {
            return Err(CommandError::new(
                code::IDL_MISSING_FIELD,
                "BSON field 'locale' is missing but a required field",
            ));
        }
    };
    if locale == "simple" {
        if requested.len() > 1 {
            return Err(CommandError::new(
                code::BAD_VALUE,
                "If \"locale\" is set to \"simple\", then no other fields may be set",
            ));
        }
        return Ok(None);
    }
    if let Some(strength) = requested.get("strength").and_then(crate::matcher::number)
        && !(1.0..=5.0).contains(&strength)
    {
        return Err(CommandError::new(
            code::FAILED_TO_PARSE,
            format!("Field 'strength' must be an integer 1 through 5. Got: {strength}"),
        ));
    }
    let mut expanded = doc! {
        "locale": locale.as_str(),
        "caseLevel": false,
        "caseFirst": "off",
        "strength": 3,
        "numericOrdering": false,
        "alternate": "non-ignorable",
        "maxVariable": "punct",
        "normalization": false,
        "backwards": locale == "fr_CA",
        "version": ICU_VERSION,
    };
    for (key, value) in requested {
        if key == "version" {
            continue;
        }
        let value = match (key.as_str(), value) {
            ("strength", v) => Bson::Int32(crate::matcher::number(v).unwrap_or(3.0) as i32),
            (_, v) => v.clone(),
        };
        expanded.insert(key.clone(), value);
    }
    Ok(Some(expanded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_expands_to_the_full_icu_spec() {
        let full = expand(&doc! {"locale": "fr", "strength": 2.0})
            .unwrap()
            .unwrap();
        assert_eq!(full.get_str("caseFirst").unwrap(), "off");
        assert_eq!(full.get_i32("strength").unwrap(), 2);
        assert!(!full.get_bool("backwards").unwrap());
        assert_eq!(full.get_str("version").unwrap(), ICU_VERSION);
    }

    #[test]
    fn fr_ca_defaults_to_backwards() {
        let full = expand(&doc! {"locale": "fr_CA"}).unwrap().unwrap();
        assert!(full.get_bool("backwards").unwrap());
    }

    #[test]
    fn simple_is_never_listed() {
        assert_eq!(expand(&doc! {"locale": "simple"}).unwrap(), None);
    }

    #[test]
    fn missing_locale_is_an_error() {
        assert_eq!(
            expand(&doc! {"strength": 1}).unwrap_err().code,
            code::IDL_MISSING_FIELD
        );
    }
}
