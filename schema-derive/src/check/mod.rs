//! Rules that span several fields or attributes, the stage between `ast` and `expand`; each
//! problem is recorded once, at the token to change, with the way out. The collection
//! declaration's rules are in `declaration.rs`.

mod declaration;
mod search;
mod view;

use quote::ToTokens;

use crate::ast::{Body, Container, Field, Style, Variant, With, is_option};
use crate::attr::MongoAttrs;
use crate::errors::Errors;

pub fn container(errors: &Errors, c: &Container) {
    conversions(errors, c);
    declaration::container(errors, c);
    match &c.body {
        Body::Struct(style, fields) => {
            fields
                .iter()
                .for_each(|f| field(errors, f, c.has_default, c.deny_unknown_fields));
            tuple_skips(errors, *style, fields);
        }
        Body::Enum(variants) => {
            for v in variants {
                variant(errors, v);
                v.fields
                    .iter()
                    .for_each(|f| field(errors, f, c.has_default, c.deny_unknown_fields));
                tuple_skips(errors, v.style, &v.fields);
            }
        }
    }
}

/// serde reads a tuple by position: an element left out when writing shifts the ones after
/// it, so `#[serde(default)]` (the advice for named fields) does not make it readable.
fn tuple_skips(errors: &Errors, style: Style, fields: &[Field]) {
    if style != Style::Tuple {
        return;
    }
    for (i, f) in fields.iter().enumerate() {
        if f.skip_deserializing {
            continue;
        }
        // Later elements written always: leaving this one out shifts them.
        let later_written = fields[i + 1..]
            .iter()
            .any(|g| !(g.skip_serializing || (g.skip_serializing_if && g.has_default)));
        if f.skip_serializing {
            errors.spanned(
                &f.ty,
                "#[serde(skip_serializing)] leaves this element out of the array the tuple is \
                 written as, and serde reads a tuple by position; skip it both ways with \
                 #[serde(skip)] (it is then read as its Default)",
            );
        } else if f.skip_serializing_if && (later_written || !f.has_default) {
            errors.spanned(
                &f.ty,
                "#[serde(skip_serializing_if)] sometimes leaves this element out of the array the \
                 tuple is written as, and serde reads a tuple by position; only the last \
                 elements may be left out, each with #[serde(default)]; otherwise use a struct \
                 with named fields",
            );
        }
    }
}

/// from / try_from / into change what is written or read: the schema must be given
/// unless one type is both written and read.
fn conversions(errors: &Errors, c: &Container) {
    if c.mongo.schema_as.is_some() || c.mongo.schema_with.is_some() {
        return;
    }
    if let Some(ty) = &c.try_from {
        errors.spanned(
            ty,
            "#[serde(try_from)] may reject values that the schema of its source type accepts, so \
             the validator cannot be derived; state what is stored with \
             #[mongo(schema_as = \"Type\")] or #[mongo(schema_with = path)] (the documents that \
             `try_from` rejects are a known gap of $jsonSchema)",
        );
        return;
    }
    let same = |a: &syn::Type, b: &syn::Type| {
        a.to_token_stream().to_string() == b.to_token_stream().to_string()
    };
    match (&c.from, &c.into) {
        (Some(from), Some(into)) if !same(from, into) => errors.spanned(
            into,
            "#[serde(from)] and #[serde(into)] name different types: the type reads one form and \
             writes another; state the stored form with #[mongo(schema_as = \"Type\")]",
        ),
        (Some(ty), None) => errors.spanned(
            ty,
            "#[serde(from)] without #[serde(into)]: the type reads this form but writes its own; \
             add #[serde(into = \"...\")] with the same type, or state the stored form with \
             #[mongo(schema_as = \"Type\")]",
        ),
        (None, Some(ty)) => errors.spanned(
            ty,
            "#[serde(into)] without #[serde(from)]: the type writes this form but reads its own; \
             add #[serde(from = \"...\")] with the same type, or state the stored form with \
             #[mongo(schema_as = \"Type\")]",
        ),
        _ => {}
    }
}

fn variant(errors: &Errors, v: &Variant) {
    if v.skip_deserializing && !v.skip_serializing {
        errors.spanned(
            &v.ident,
            "this variant is written but never read (#[serde(skip_deserializing)]): documents \
             holding it would fail to read; skip it both ways with #[serde(skip)]",
        );
    }
    if v.custom_with && v.mongo.bson_type.is_none() && v.mongo.schema_with.is_none() {
        errors.spanned(
            &v.ident,
            "a variant with serialize_with/deserialize_with stores a form the derive cannot see; \
             say what it stores on the variant with #[mongo(bson_type = \"string\")] or \
             #[mongo(schema_with = path)] (the variant's content, inside its tag)",
        );
    }
    bounds(errors, &v.mongo);
    if !v.read_names.contains(&v.ser_name) && !v.other {
        errors.spanned(
            &v.ident,
            format!(
                "this variant is written as {:?} but read as {:?}: the type cannot read what it \
                 writes; add #[serde(alias = {:?})]",
                v.ser_name, v.read_names[0], v.ser_name
            ),
        );
    }
}

fn field(errors: &Errors, f: &Field, container_default: bool, deny_unknown: bool) {
    let defaulted = f.has_default || container_default;
    let written = !f.skip_serializing;
    let read = !f.skip_deserializing;
    if written && read && !f.flatten && !f.read_names.contains(&f.ser_name) {
        errors.spanned(
            &f.member,
            format!(
                "this field is written as {:?} but read as {:?}: the type cannot read what it \
                 writes; add #[serde(alias = {:?})]",
                f.ser_name, f.read_names[0], f.ser_name
            ),
        );
    }
    // A field that may not be written must be readable when missing.
    let may_be_missing = f.skip_serializing || f.skip_serializing_if;
    let absent_reads = defaulted || (is_option(&f.ty) && !f.has_deserialize_with());
    let positional = matches!(f.member, syn::Member::Unnamed(_));
    if read && may_be_missing && !absent_reads && !positional {
        let why = if f.skip_serializing {
            "#[serde(skip_serializing)]"
        } else {
            "#[serde(skip_serializing_if)]"
        };
        errors.spanned(
            &f.member,
            format!(
                "{why} leaves this field out of documents the type then cannot read (serde \
                 requires it when reading); add #[serde(default)] to the field"
            ),
        );
    }
    if deny_unknown && written && !read {
        errors.spanned(
            &f.member,
            "with #[serde(deny_unknown_fields)] a field that is written but skipped when reading \
             makes every written document unreadable; use #[serde(skip)]",
        );
    }
    if let With::Custom(path) = &f.with {
        let stated = f.mongo.bson_type.is_some()
            || f.mongo.schema_with.is_some()
            || f.mongo.schema_as.is_some();
        if !stated && written {
            if let Some(converter) = serde_as_converter(path) {
                // `#[serde_as]` writes the `with` path spanned at its own attribute: pointing
                // there would name every field at one line (and rustc would show it once).
                errors.spanned(
                    &f.member,
                    format!(
                        "#[serde_as(as = \"{converter}\")] stores a form the derive cannot see; \
                         say what it stores with #[mongo(schema_as = T)] (a type serde writes \
                         the same way, e.g. `String` for DisplayFromStr), \
                         #[mongo(bson_type = \"string\")] or #[mongo(schema_with = path)] (a \
                         `fn(&mut SchemaGenerator) -> JsonSchema`)"
                    ),
                );
            } else {
                errors.spanned(
                    path,
                    "this serde function stores a form the derive cannot see; say what it stores \
                     with #[mongo(bson_type = \"string\")] or #[mongo(schema_with = path)] (a \
                     `fn(&mut SchemaGenerator) -> JsonSchema`)",
                );
            }
        }
    }
    if f.flatten && has_validation(&f.mongo) {
        errors.at(
            f.span,
            "#[mongo] validation keys do not apply to a #[serde(flatten)] field; put them on \
             the fields of the flattened type",
        );
    }
    bounds(errors, &f.mongo);
}

/// The converter of a `serde_with::As::<Converter>::serialize` path, as `#[serde_as]` wrote it.
fn serde_as_converter(path: &syn::ExprPath) -> Option<String> {
    let segments: Vec<&syn::PathSegment> = path.path.segments.iter().collect();
    let as_segment = segments.iter().rev().nth(1).filter(|s| s.ident == "As")?;
    let syn::PathArguments::AngleBracketed(args) = &as_segment.arguments else {
        return None;
    };
    // Tokens print with spaces; `#[serde_as]` wrote each `_` as `::serde_with::Same`.
    let converter: String = args
        .args
        .first()?
        .to_token_stream()
        .to_string()
        .split_whitespace()
        .collect();
    Some(
        converter
            .replace("::serde_with::Same", "_")
            .replace(',', ", "),
    )
}

fn has_validation(m: &MongoAttrs) -> bool {
    m.has_number_keys().is_some()
        || m.has_text_keys().is_some()
        || m.has_array_keys().is_some()
        || m.bson_type.is_some()
        || m.schema_with.is_some()
        || m.schema_as.is_some()
}

/// Conflicting or malformed validation keys.
fn bounds(errors: &Errors, m: &MongoAttrs) {
    if let Some(x) = &m.exclusive_minimum {
        if m.minimum.is_none() && x.value {
            errors.at(
                x.span,
                "`exclusive_minimum` makes `minimum` exclusive, and there is no `minimum`; add \
                 `minimum = ...` beside it",
            );
        }
    }
    if let Some(x) = &m.exclusive_maximum {
        if m.maximum.is_none() && x.value {
            errors.at(
                x.span,
                "`exclusive_maximum` makes `maximum` exclusive, and there is no `maximum`; add \
                 `maximum = ...` beside it",
            );
        }
    }
    if let (Some(lo), Some(hi)) = (&m.minimum, &m.maximum) {
        let exclusive = m.exclusive_minimum.as_ref().is_some_and(|x| x.value)
            || m.exclusive_maximum.as_ref().is_some_and(|x| x.value);
        if lo.value > hi.value || (exclusive && lo.value >= hi.value) {
            errors.at(
                hi.span,
                format!(
                    "`maximum` ({}) is below `minimum` ({}): no value can pass",
                    hi.value, lo.value
                ),
            );
        }
    }
    if let Some(n) = &m.multiple_of {
        if n.value <= 0.0 {
            errors.at(n.span, "`multiple_of` must be greater than 0");
        }
    }
    for (lo, hi, what) in [
        (&m.min_length, &m.max_length, "length"),
        (&m.min_items, &m.max_items, "items"),
    ] {
        if let (Some(lo), Some(hi)) = (lo, hi) {
            if lo.value > hi.value {
                errors.at(
                    hi.span,
                    format!(
                        "`max_{what}` ({}) is below `min_{what}` ({}): no value can pass",
                        hi.value, lo.value
                    ),
                );
            }
        }
    }
    if let Some(p) = &m.pattern {
        if let Err(message) = check_pattern(&p.value()) {
            errors.spanned(
                p,
                format!("`pattern` does not compile as a regular expression: {message}"),
            );
        }
    }
    if m.bson_type.is_some() && m.schema_with.is_some() {
        let span = m.bson_type.as_ref().map(|b| b.span).expect("checked");
        errors.at(
            span,
            "`bson_type` and `schema_with` both give the whole schema; keep one",
        );
    }
    if let (Some(ty), true) = (
        &m.schema_as,
        m.bson_type.is_some() || m.schema_with.is_some(),
    ) {
        errors.spanned(
            ty,
            "`schema_as` gives the whole schema, as `bson_type` and `schema_with` do; keep one",
        );
    }
}

/// Checks a `pattern` as the server's PCRE would: `regex-syntax` parses the common syntax;
/// constructs it does not know but PCRE has (look-around, backreferences) are let through.
fn check_pattern(pattern: &str) -> Result<(), String> {
    use regex_syntax::ast::ErrorKind;
    match regex_syntax::ast::parse::Parser::new().parse(pattern) {
        Ok(_) => Ok(()),
        Err(e) => match e.kind() {
            ErrorKind::UnsupportedLookAround | ErrorKind::UnsupportedBackreference => Ok(()),
            kind => Err(kind.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::check_pattern;

    #[test]
    fn patterns_are_checked_like_pcre() {
        assert!(check_pattern(r"^[a-z]+\z").is_ok());
        assert!(check_pattern(r"^(?=a)b").is_ok());
        assert!(check_pattern(r"(a").is_err());
        assert!(check_pattern(r"[a-").is_err());
    }
}
