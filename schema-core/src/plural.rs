//! How every message counts things: `1 document`, `3 documents`, `1 index`, `2 queries`. The
//! core's messages and the command line's reports all go through [`count`], so that no message
//! reads "1 documents".

use std::fmt::Display;

/// `n` followed by `noun` in the number `n` asks for: `count(1, "index")` is `"1 index"`,
/// `count(0, "index")` is `"0 indexes"`.
///
/// `noun` is the singular; the plural follows English spelling (`query` -> `queries`, `index`
/// -> `indexes`, `match` -> `matches`, `document` -> `documents`). Any integer type counts; so
/// does a display form that is a number (`"~1"` is read as one).
///
/// ```
/// use mongo_schema::plural::count;
/// assert_eq!(count(1, "document"), "1 document");
/// assert_eq!(count(3_u64, "query"), "3 queries");
/// assert_eq!(count(-1_i64, "index"), "-1 indexes");
/// ```
pub fn count(n: impl Display, noun: &str) -> String {
    let n = n.to_string();
    let word = self::noun(is_one(&n), noun);
    format!("{n} {word}")
}

/// `noun` alone, singular when `one`, for a message that prints its number elsewhere
/// (`"{rejected} of {total} documents"` agrees with `total`).
///
/// ```
/// use mongo_schema::plural::noun;
/// assert_eq!(noun(false, "entry"), "entries");
/// assert_eq!(noun(true, "entry"), "entry");
/// ```
#[must_use]
pub fn noun(one: bool, noun: &str) -> String {
    if one {
        return noun.to_owned();
    }
    let vowel_before_y = noun
        .chars()
        .rev()
        .nth(1)
        .is_some_and(|c| "aeiou".contains(c));
    if let Some(stem) = noun.strip_suffix('y')
        && !vowel_before_y
    {
        format!("{stem}ies")
    } else if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| noun.ends_with(end))
    {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// Whether a displayed number is one (`1`, `+1`, `~1`; not `-1`, `11` or `1.5`).
fn is_one(n: &str) -> bool {
    n.trim_start_matches(['~', '+']) == "1"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_is_plural() {
        for noun in [
            "document",
            "collection",
            "index",
            "query",
            "error",
            "step",
            "byte",
        ] {
            assert_eq!(count(1_usize, noun), format!("1 {noun}"));
            for n in [0_i64, 2, 11, 21, -1] {
                assert_ne!(count(n, noun), format!("{n} {noun}"), "{n} {noun}");
            }
        }
        assert_eq!(count("~1", "document"), "~1 document");
    }

    #[test]
    fn plurals_follow_english_spelling() {
        for (one, many) in [
            ("document", "documents"),
            ("collection", "collections"),
            ("index", "indexes"),
            ("query", "queries"),
            ("entry", "entries"),
            ("key", "keys"),
            ("match", "matches"),
            ("difference", "differences"),
            ("error", "errors"),
        ] {
            assert_eq!(noun(false, one), many);
        }
    }
}
