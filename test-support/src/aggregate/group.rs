//! `$group`, as the manual's stage page and its accumulator pages describe it: `_id` any
//! expression (documents with equal keys, numbers by value, share a group), and the accumulators
//! `$sum`, `$count`, `$min`, `$max`, `$first`, `$last`, `$push`, `$firstN`. Groups come out in
//! the order their first document came in (the server promises no order).

use std::cmp::Ordering;
use std::collections::HashMap;

use bson::{Bson, Document};

use super::expr::{Scope, eval};
use super::order::{compare, group_key};
use crate::error::CommandError;

/// One accumulator's running state.
enum Acc {
    Sum(Bson),
    Min(Option<Bson>),
    Max(Option<Bson>),
    First(Option<Bson>),
    Last(Bson),
    Push(Vec<Bson>),
    FirstN(usize, Vec<Bson>),
}

/// `$sum` of two numbers: int while it fits, then long, double once a double is added (the
/// manual's $sum: "returns the same type as the input" widened as needed).
fn add(total: &Bson, value: &Bson) -> Bson {
    match (total, value) {
        (Bson::Int32(a), Bson::Int32(b)) => a
            .checked_add(*b)
            .map_or(Bson::Int64(i64::from(*a) + i64::from(*b)), Bson::Int32),
        (Bson::Int32(a), Bson::Int64(b)) | (Bson::Int64(b), Bson::Int32(a)) => i64::from(*a)
            .checked_add(*b)
            .map_or(Bson::Double(f64::from(*a) + *b as f64), Bson::Int64),
        (Bson::Int64(a), Bson::Int64(b)) => a
            .checked_add(*b)
            .map_or(Bson::Double(*a as f64 + *b as f64), Bson::Int64),
        _ => Bson::Double(
            crate::matcher::number(total).unwrap_or(0.0)
                + crate::matcher::number(value).unwrap_or(0.0),
        ),
    }
}

/// Keeps `value` in `best` when it is not null or missing and sorts `wanted` of it.
fn keep(best: &mut Option<Bson>, value: Option<Bson>, wanted: Ordering) {
    if let Some(value) = value.filter(|v| !matches!(v, Bson::Null | Bson::Undefined))
        && best.as_ref().is_none_or(|b| compare(&value, b) == wanted)
    {
        *best = Some(value);
    }
}

impl Acc {
    fn new(op: &str, arg: &Bson, field: &str) -> Result<Acc, CommandError> {
        Ok(match op {
            "$sum" | "$count" => Acc::Sum(Bson::Int32(0)),
            "$min" => Acc::Min(None),
            "$max" => Acc::Max(None),
            "$first" => Acc::First(None),
            "$last" => Acc::Last(Bson::Null),
            "$push" => Acc::Push(Vec::new()),
            // Source: the manual's $firstN: {input, n}, n a positive integer (5787902).
            "$firstN" => {
                let n = match arg {
                    Bson::Document(spec) => spec.get("n").and_then(crate::matcher::number),
                    _ => None,
                };
                match n {
                    Some(n) if n >= 1.0 && n.fract() == 0.0 => Acc::FirstN(n as usize, Vec::new()),
                    _ => {
                        return Err(CommandError::new(
                            5787902,
                            format!("'n' of $firstN in field '{field}' must be a positive integer"),
                        ));
                    }
                }
            }
            other => {
                return Err(CommandError::new(
                    15952,
                    format!("unknown group operator '{other}'"),
                ));
            }
        })
    }

    fn add(&mut self, op_arg: &Bson, scope: &mut Scope<'_>) -> Result<(), CommandError> {
        match self {
            Acc::Sum(total) => {
                // `$count: {}` is `$sum: 1`; `$sum` ignores what is not a number.
                let value = match op_arg {
                    Bson::Document(d) if d.is_empty() => Some(Bson::Int32(1)),
                    arg => eval(arg, scope)?,
                };
                if let Some(v) = value.filter(|v| crate::matcher::number(v).is_some()) {
                    *total = add(total, &v);
                }
            }
            // Source: the manual's $min/$max: null and missing values are ignored.
            Acc::Min(best) => keep(best, eval(op_arg, scope)?, Ordering::Less),
            Acc::Max(best) => keep(best, eval(op_arg, scope)?, Ordering::Greater),
            Acc::First(first) => {
                if first.is_none() {
                    *first = Some(eval(op_arg, scope)?.unwrap_or(Bson::Null));
                }
            }
            Acc::Last(last) => *last = eval(op_arg, scope)?.unwrap_or(Bson::Null),
            Acc::Push(values) => {
                if let Some(v) = eval(op_arg, scope)? {
                    values.push(v);
                }
            }
            // $firstN keeps nulls and missing values (as null): the manual's "$firstN ... does
            // not filter out null values".
            Acc::FirstN(n, values) => {
                if values.len() < *n {
                    let input = match op_arg {
                        Bson::Document(spec) => spec.get("input").cloned().unwrap_or(Bson::Null),
                        _ => Bson::Null,
                    };
                    values.push(eval(&input, scope)?.unwrap_or(Bson::Null));
                }
            }
        }
        Ok(())
    }

    fn finish(self) -> Bson {
        match self {
            Acc::Sum(total) => total,
            Acc::Min(v) | Acc::Max(v) | Acc::First(v) => v.unwrap_or(Bson::Null),
            Acc::Last(v) => v,
            Acc::Push(values) | Acc::FirstN(_, values) => Bson::Array(values),
        }
    }
}

/// Runs `$group` over `docs`.
///
/// # Errors
/// No `_id` (15955), a field that is not an accumulator object (40234), an unknown accumulator
/// (15952), or an expression's error.
pub(crate) fn group(docs: &[Document], spec: &Document) -> Result<Vec<Document>, CommandError> {
    let id = spec
        .get("_id")
        .ok_or_else(|| CommandError::new(15955, "a group specification must include an _id"))?;
    let mut fields = Vec::new();
    for (field, accumulator) in spec.iter().filter(|(k, _)| *k != "_id") {
        let Some((op, arg)) = accumulator
            .as_document()
            .filter(|d| d.len() == 1)
            .and_then(|d| d.iter().next())
        else {
            return Err(CommandError::new(
                40234,
                format!("The field '{field}' must be an accumulator object"),
            ));
        };
        Acc::new(op, arg, field)?;
        fields.push((field.clone(), op.clone(), arg.clone()));
    }
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut groups: Vec<(Bson, Vec<Acc>)> = Vec::new();
    for doc in docs {
        let mut scope = Scope::new(doc);
        let key = eval(id, &mut scope)?.unwrap_or(Bson::Null);
        let mut bytes = Vec::new();
        group_key(&key, &mut bytes);
        let at = match index.get(&bytes) {
            Some(at) => *at,
            None => {
                let accs = fields
                    .iter()
                    .map(|(field, op, arg)| Acc::new(op, arg, field))
                    .collect::<Result<_, _>>()?;
                groups.push((key, accs));
                index.insert(bytes, groups.len() - 1);
                groups.len() - 1
            }
        };
        for (acc, (_, _, arg)) in groups[at].1.iter_mut().zip(&fields) {
            acc.add(arg, &mut scope)?;
        }
    }
    Ok(groups
        .into_iter()
        .map(|(key, accs)| {
            let mut out = Document::new();
            out.insert("_id", key);
            for (acc, (field, _, _)) in accs.into_iter().zip(&fields) {
                out.insert(field.clone(), acc.finish());
            }
            out
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn groups_by_an_expression_with_every_accumulator() {
        let docs = [
            doc! {"t": "a", "n": 3, "s": "x"},
            doc! {"t": "b", "n": 2.5},
            doc! {"t": "a", "n": 1, "s": null},
            doc! {"t": "a", "n": i64::from(i32::MAX)},
        ];
        let out = group(
            &docs,
            &doc! {
                "_id": {"t": "$t"},
                "n": {"$sum": 1},
                "total": {"$sum": "$n"},
                "min": {"$min": "$s"},
                "max": {"$max": "$n"},
                "first": {"$first": "$s"},
                "some": {"$firstN": {"input": "$s", "n": 2}},
            },
        )
        .unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].get_document("_id").unwrap(), &doc! {"t": "a"});
        assert_eq!(out[0].get("n"), Some(&Bson::Int32(3)));
        assert_eq!(
            out[0].get("total"),
            Some(&Bson::Int64(4 + i64::from(i32::MAX)))
        );
        assert_eq!(out[0].get("min"), Some(&Bson::String("x".into())));
        assert_eq!(out[0].get("max"), Some(&Bson::Int64(i64::from(i32::MAX))));
        assert_eq!(out[0].get("first"), Some(&Bson::String("x".into())));
        assert_eq!(out[0].get("some"), Some(&bson::bson!(["x", null])));
        assert_eq!(out[1].get("total"), Some(&Bson::Double(2.5)));
        assert_eq!(out[1].get("min"), Some(&Bson::Null));
    }

    #[test]
    fn equal_numbers_share_a_group_and_errors_have_codes() {
        let docs = [doc! {"k": 1}, doc! {"k": 1.0}, doc! {"k": 1_i64}];
        let out = group(&docs, &doc! {"_id": "$k", "c": {"$count": {}}}).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].get("c"), Some(&Bson::Int32(3)));
        assert_eq!(group(&docs, &doc! {}).unwrap_err().code, 15955);
        assert_eq!(
            group(&docs, &doc! {"_id": null, "x": {"$median": "$k"}})
                .unwrap_err()
                .code,
            15952
        );
        assert_eq!(
            group(&docs, &doc! {"_id": null, "x": 1}).unwrap_err().code,
            40234
        );
    }
}
