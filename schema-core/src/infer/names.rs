//! Rust names for stored names: identifiers for fields and variants, PascalCase type names,
//! and which serde `rename_all` rule reproduces the stored names.

use std::collections::HashSet;

/// Keywords a field may still use as a raw identifier (`r#type`).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// Type names the generated source cannot use for its own types: what it imports, the
/// prelude's, and `Self`.
pub const RESERVED_TYPES: &[&str] = &[
    "Self",
    "Serialize",
    "Deserialize",
    "MongoSchema",
    "HashMap",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "String",
    "Box",
    "Copy",
    "Clone",
    "Debug",
    "Default",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "ToString",
    "ToOwned",
    "PartialEq",
    "PartialOrd",
    "Eq",
    "Ord",
    "From",
    "Into",
];

/// Splits a stored name into words: at non-alphanumeric characters and at case changes
/// (`createdAt` -> `created`, `At`; `userID` -> `user`, `ID`; `HTTPServer` -> `HTTP`, `Server`).
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// `shipping_address` -> `ShippingAddress`, `PENDING` -> `Pending`; empty when the name has no
/// ASCII letter or digit. A leading digit gets a `T` before it.
pub fn pascal(name: &str) -> String {
    let mut out = String::new();
    for w in words(name) {
        let mut chars = w.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    out
}

/// A plural English name made singular, for the element type of an array (`items` becomes
/// `Item` once PascalCased): `ies` -> `y`, `sses`/`xes`/`ches`/`shes` lose `es`, a final `s` is
/// dropped except after `s`, `u`, `i`.
pub fn singular(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("ies").filter(|s| !s.is_empty()) {
        return format!("{stem}y");
    }
    // `addresses`, `boxes`, `batches`, `wishes`: the plural added `es`.
    for suffix in ["sses", "xes", "ches", "shes"] {
        if name.len() > suffix.len() && name.ends_with(suffix) {
            return name[..name.len() - 2].to_owned();
        }
    }
    if name.len() > 3
        && name.ends_with('s')
        && !(name.ends_with("ss") || name.ends_with("us") || name.ends_with("is"))
    {
        return name[..name.len() - 1].to_owned();
    }
    name.to_owned()
}

/// The snake_case identifier of a stored field name, made valid and unique within `taken`:
/// `createdAt` -> `created_at`, `_id` -> `id`, `type` -> `r#type`, `2fa` -> `field_2fa`.
pub fn field_ident(name: &str, taken: &mut HashSet<String>) -> String {
    let mut ident = words(name)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    if ident.is_empty() {
        ident = "field".to_owned();
    } else if ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert_str(0, "field_");
    }
    if NOT_RAW.contains(&ident.as_str()) {
        ident.push('_');
    }
    // `self_` numbered is `self_2`, not `self__2` (which rustc warns is not snake case).
    let base = ident.trim_end_matches('_').to_owned();
    let mut n = 1;
    while taken.contains(&ident) {
        n += 1;
        ident = format!("{base}_{n}");
    }
    taken.insert(ident.clone());
    if KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else {
        ident
    }
}

/// The name serde gives a field: the identifier without `r#`.
pub fn unraw(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// serde's `rename_all = "camelCase"` on a field name (serde_derive `RenameRule::apply_to_field`:
/// PascalCase by capitalising after each `_`, then the first letter lowercased).
pub fn camel_case(field: &str) -> String {
    let mut pascal = String::new();
    let mut capitalize = true;
    for ch in field.chars() {
        if ch == '_' {
            capitalize = true;
        } else if capitalize {
            pascal.push(ch.to_ascii_uppercase());
            capitalize = false;
        } else {
            pascal.push(ch);
        }
    }
    match pascal.chars().next() {
        Some(first) => first.to_ascii_lowercase().to_string() + &pascal[first.len_utf8()..],
        None => pascal,
    }
}

/// Whether `rename_all = "camelCase"` names every field but `_id` (which is always renamed) and
/// is needed by at least one: a field whose identifier is its stored name already fits. Each
/// field is given as its `(identifier, stored name)`.
pub fn camel_case_fits<'a>(fields: impl IntoIterator<Item = (&'a str, &'a str)>) -> bool {
    let others = fields.into_iter().filter(|(_, name)| *name != "_id");
    let mut needed = false;
    for (ident, name) in others {
        let ident = unraw(ident);
        if camel_case(ident) != name {
            return false;
        }
        needed |= ident != name;
    }
    needed
}

/// Whether a key looks like data rather than a field name: digits, a 24-digit hex ObjectId, a
/// UUID, or a date (`2024-01-31`, `2024-01`).
pub fn is_data_key(key: &str) -> bool {
    let b = key.as_bytes();
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let hex = |s: &[u8]| s.iter().all(u8::is_ascii_hexdigit);
    let uuid = b.len() == 36
        && b.iter()
            .enumerate()
            .all(|(i, c)| matches!(i, 8 | 13 | 18 | 23) == (*c == b'-'))
        && hex(&key.replace('-', "").into_bytes());
    let date = (b.len() == 7 || b.len() == 10)
        && digits(&b[..4])
        && b[4] == b'-'
        && digits(&b[5..7])
        && (b.len() == 7 || (b[7] == b'-' && digits(&b[8..10])));
    digits(b) || (b.len() == 24 && hex(b)) || uuid || date
}

/// A serde `rename_all` rule (`None`: no attribute) and what it does to a variant name.
type Rule = (Option<&'static str>, fn(&str) -> String);

/// `(variant ident, stored string)` pairs.
pub type Variants = Vec<(String, String)>;

/// serde's rules for variant names (serde_derive `RenameRule::apply_to_variant`), tried in turn.
const VARIANT_RULES: &[Rule] = &[
    (None, |v| v.to_owned()),
    (Some("lowercase"), |v| v.to_ascii_lowercase()),
    (Some("UPPERCASE"), |v| v.to_ascii_uppercase()),
    (Some("SCREAMING_SNAKE_CASE"), |v| {
        snake_variant(v).to_ascii_uppercase()
    }),
    (Some("snake_case"), snake_variant),
    (Some("kebab-case"), |v| snake_variant(v).replace('_', "-")),
    (Some("camelCase"), |v| {
        let mut c = v.chars();
        c.next()
            .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
            .unwrap_or_default()
    }),
];

fn snake_variant(variant: &str) -> String {
    let mut snake = String::new();
    for (i, ch) in variant.char_indices() {
        if i > 0 && ch.is_uppercase() {
            snake.push('_');
        }
        snake.push(ch.to_ascii_lowercase());
    }
    snake
}

/// Variant identifiers for stored strings, and the `rename_all` rule that fits them all
/// (variants that no rule fits get a `rename` of their own). A value with no letter or digit is
/// `Value`, and identifiers that collide are numbered (`Paid`, `Paid2`), each renamed.
pub fn variants(values: &[String]) -> (Variants, Option<&'static str>) {
    let mut idents = HashSet::new();
    let mut out = Vec::new();
    for v in values {
        let mut ident = pascal(v);
        if ident.is_empty() {
            ident = "Value".to_owned();
        }
        if RESERVED_TYPES.contains(&ident.as_str()) {
            ident.push_str("Value");
        }
        let base = ident.clone();
        let mut n = 1;
        while !idents.insert(ident.clone()) {
            n += 1;
            ident = format!("{base}{n}");
        }
        out.push((ident, v.clone()));
    }
    let rule = VARIANT_RULES
        .iter()
        .find(|(_, apply)| out.iter().all(|(ident, value)| apply(ident) == *value))
        .and_then(|(name, _)| *name);
    (out, rule)
}

/// Whether a variant needs its own `rename` under the chosen rule.
pub fn variant_renamed(ident: &str, value: &str, rule: Option<&str>) -> bool {
    let apply = VARIANT_RULES
        .iter()
        .find(|(name, _)| *name == rule)
        .map_or(VARIANT_RULES[0].1, |(_, f)| *f);
    apply(ident) != value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_idents_are_valid_and_unique() {
        let mut taken = HashSet::new();
        let idents: Vec<String> = [
            "_id",
            "id",
            "createdAt",
            "type",
            "self",
            "2fa",
            "",
            "a.b",
            "userID",
        ]
        .iter()
        .map(|n| field_ident(n, &mut taken))
        .collect();
        assert_eq!(
            idents,
            [
                "id",
                "id_2",
                "created_at",
                "r#type",
                "self_",
                "field_2fa",
                "field",
                "a_b",
                "user_id"
            ]
        );
    }

    #[test]
    fn type_names_are_pascal_case() {
        assert_eq!(pascal("shipping_address"), "ShippingAddress");
        assert_eq!(pascal("PENDING"), "Pending");
        assert_eq!(pascal("nMeasurements"), "NMeasurements");
        assert_eq!(pascal("3d"), "T3d");
        assert_eq!(singular("addresses"), "address");
        assert_eq!(singular("batches"), "batch");
        assert_eq!(singular("items"), "item");
        assert_eq!(singular("categories"), "category");
        assert_eq!(singular("status"), "status");
    }

    #[test]
    fn camel_case_matches_serde() {
        assert_eq!(camel_case("created_at"), "createdAt");
        assert_eq!(camel_case("name"), "name");
        assert_eq!(camel_case("n_measurements"), "nMeasurements");
    }

    #[test]
    fn data_keys() {
        for key in [
            "123",
            "507f1f77bcf86cd799439011",
            "2024-01-31",
            "2024-01",
            "123e4567-e89b-12d3-a456-426614174000",
        ] {
            assert!(is_data_key(key), "{key}");
        }
        for key in ["name", "2024-1-1", "", "a1"] {
            assert!(!is_data_key(key), "{key}");
        }
    }

    #[test]
    fn variant_rules() {
        let values = ["PENDING", "PAID", "SHIPPED"].map(String::from);
        let (found, rule) = variants(&values);
        assert_eq!(rule, Some("UPPERCASE"));
        assert_eq!(found[0].0, "Pending");
        let values = ["in_stock", "sold_out"].map(String::from);
        assert_eq!(variants(&values).1, Some("snake_case"));
        let values = ["a b", "C"].map(String::from);
        let (found, rule) = variants(&values);
        assert_eq!(rule, None);
        assert!(variant_renamed(&found[0].0, &found[0].1, rule));
        let values = ["paid", "PAID", "*", "#"].map(String::from);
        let (found, rule) = variants(&values);
        let idents: Vec<&str> = found.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(
            (idents, rule),
            (vec!["Paid", "Paid2", "Value", "Value2"], None)
        );
    }
}
