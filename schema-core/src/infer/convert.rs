//! The conversions of a versioned model: `From<Older> for Current`, which the derive's
//! `Versioned::from_any_version` calls for a document of an older version. Written where they
//! are mechanical (a field kept, widened, made optional, or new and optional), and otherwise
//! marked: a call to the generated `unconverted`, which panics with what it could not fill, so
//! the gap fails loudly on the documents that have it and on no other.

pub use super::model::Conversion;
use super::model::{Model, Previous, Ty};

/// Fills in a versioned model's conversions ([`conversions`]) and notes how many values they
/// cannot fill; a model without versions is left as it is.
pub fn complete(model: &mut Model) {
    let Some(v) = &model.versioning else {
        return;
    };
    let conversions = conversions(model, &v.field, v.current, &v.previous);
    let gaps: usize = conversions.iter().map(|c| c.unconverted().len()).sum();
    let field = v.field.clone();
    if gaps > 0 {
        model.notes.push(format!(
            "{field}: {} the conversions cannot fill (marked `unconverted`): write them \
             before reading older documents with from_any_version",
            crate::plural::count(gaps as u64, "value")
        ));
    }
    if let Some(v) = &mut model.versioning {
        v.conversions = conversions;
    }
}

/// The conversions from each older version's root into the current root (`structs[0]`), and
/// from each nested type they need converted.
pub fn conversions(
    model: &Model,
    field: &str,
    current: i64,
    previous: &[Previous],
) -> Vec<Conversion> {
    let mut w = Writer {
        model,
        out: Vec::new(),
        pending: Vec::new(),
    };
    for p in previous {
        w.pending
            .push((p.structure, 0, p.value, Some((field, current))));
        while let Some((from, to, version, pin)) = w.pending.pop() {
            let done = w.out.iter().any(|c| {
                matches!(c, Conversion::Struct { from: f, to: t, .. } if (*f, *t) == (from, to))
            });
            if !done {
                let c = w.structure(from, to, version, pin);
                w.out.push(c);
            }
        }
    }
    w.out
}

struct Writer<'a> {
    model: &'a Model,
    out: Vec<Conversion>,
    /// Struct pairs still to convert.
    pending: Vec<Pending<'a>>,
}

/// `(from, to, version, the version field and the current value)` for a root pair.
type Pending<'a> = (usize, usize, i64, Option<(&'a str, i64)>);

impl<'a> Writer<'a> {
    fn structure(
        &mut self,
        from: usize,
        to: usize,
        version: i64,
        pin: Option<(&'a str, i64)>,
    ) -> Conversion {
        let (older, newer) = (&self.model.structs[from], &self.model.structs[to]);
        let mut unconverted = Vec::new();
        let mut fields = Vec::new();
        let path = |name: &str| {
            if newer.path.is_empty() {
                name.to_owned()
            } else {
                format!("{}.{name}", newer.path)
            }
        };
        for f in &newer.fields {
            let expr = match (pin, older.fields.iter().find(|o| o.name == f.name)) {
                (Some((field, current)), _) if f.name == field => literal(&f.ty, current),
                (_, Some(o)) => {
                    let what = Gap {
                        version,
                        path: path(&f.name),
                    };
                    self.value(
                        &o.ty,
                        &f.ty,
                        format!("old.{}", o.ident),
                        &what,
                        &mut unconverted,
                    )
                }
                (_, None) if f.ty.is_option() => "None".to_owned(),
                (_, None) => {
                    let why = format!("version {version} has no {}", path(&f.name));
                    let call = format!("unconverted({why:?})");
                    unconverted.push(why);
                    call
                }
            };
            fields.push((f.ident.clone(), expr));
        }
        let dropped = older
            .fields
            .iter()
            .filter(|o| pin.is_none_or(|(field, _)| o.name != field))
            .filter(|o| newer.fields.iter().all(|f| f.name != o.name))
            .map(|o| o.name.clone())
            .collect();
        Conversion::Struct {
            from,
            to,
            fields,
            dropped,
            unconverted,
        }
    }

    /// An expression of type `to` from `expr` of type `from`.
    fn value(
        &mut self,
        from: &Ty,
        to: &Ty,
        expr: String,
        what: &Gap,
        unconverted: &mut Vec<String>,
    ) -> String {
        if from == to {
            return expr;
        }
        match (from, to) {
            (Ty::Option(a), Ty::Option(b)) => {
                let inner = self.value(a, b, "v".to_owned(), what, unconverted);
                format!("{expr}.map(|v| {inner})")
            }
            (Ty::Option(a), b) => {
                let inner = self.value(a, b, "v".to_owned(), what, unconverted);
                let why = format!(
                    "a version {} document without {} (or with null)",
                    what.version, what.path
                );
                let none = format!("unconverted({why:?})");
                unconverted.push(why);
                format!("match {expr} {{ Some(v) => {inner}, None => {none} }}")
            }
            (a, Ty::Option(b)) => {
                let inner = self.value(a, b, expr, what, unconverted);
                format!("Some({inner})")
            }
            (Ty::I32, Ty::I64) => format!("i64::from({expr})"),
            (Ty::I32, Ty::F64) => format!("f64::from({expr})"),
            (Ty::I64, Ty::I32) => {
                let why = format!(
                    "a version {} {} beyond the range of i32",
                    what.version, what.path
                );
                let call =
                    format!("i32::try_from({expr}).unwrap_or_else(|_| unconverted({why:?}))");
                unconverted.push(why);
                call
            }
            (Ty::Vec(a), Ty::Vec(b)) => {
                let inner = self.value(a, b, "v".to_owned(), what, unconverted);
                format!("{expr}.into_iter().map(|v| {inner}).collect()")
            }
            (Ty::Map(a), Ty::Map(b)) => {
                let inner = self.value(a, b, "v".to_owned(), what, unconverted);
                format!("{expr}.into_iter().map(|(k, v)| (k, {inner})).collect()")
            }
            (Ty::Struct(a), Ty::Struct(b)) => {
                self.pending.push((*a, *b, what.version, None));
                format!("{}::from({expr})", self.model.structs[*b].name)
            }
            (Ty::Enum(a), Ty::Enum(b)) => match self.enumeration(*a, *b) {
                true => format!("{}::from({expr})", self.model.enums[*b].name),
                false => gap(
                    unconverted,
                    format!(
                        "a version {} {} value the newer enum does not have",
                        what.version, what.path
                    ),
                ),
            },
            _ => gap(
                unconverted,
                format!(
                    "version {} {}: {} cannot become {}",
                    what.version,
                    what.path,
                    super::rust::rust_type(self.model, from),
                    super::rust::rust_type(self.model, to)
                ),
            ),
        }
    }

    /// Queues the enum conversion when every older value is a newer one.
    fn enumeration(&mut self, from: usize, to: usize) -> bool {
        let (older, newer) = (&self.model.enums[from], &self.model.enums[to]);
        let arms: Option<Vec<(String, String)>> = older
            .variants
            .iter()
            .map(|(ident, value)| {
                newer
                    .variants
                    .iter()
                    .find(|(_, v)| v == value)
                    .map(|(n, _)| (ident.clone(), n.clone()))
            })
            .collect();
        let Some(arms) = arms else {
            return false;
        };
        let done = self.out.iter().any(
            |c| matches!(c, Conversion::Enum { from: f, to: t, .. } if (*f, *t) == (from, to)),
        );
        if !done {
            self.out.push(Conversion::Enum { from, to, arms });
        }
        true
    }
}

/// A call to `unconverted`, the sentence recorded.
fn gap(unconverted: &mut Vec<String>, why: String) -> String {
    let call = format!("unconverted({why:?})");
    unconverted.push(why);
    call
}

/// Where a value comes from, for the sentence of a gap.
struct Gap {
    version: i64,
    path: String,
}

/// The current version number as a value of the version field's type.
fn literal(ty: &Ty, current: i64) -> String {
    match ty {
        Ty::F64 => format!("{current}.0"),
        Ty::Option(inner) => format!("Some({})", literal(inner, current)),
        _ => current.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::{Census, Options, model};

    fn gaps(docs: &[bson::Document]) -> Vec<usize> {
        let mut census = Census::new();
        for d in docs {
            census
                .add(&bson::RawDocumentBuf::try_from(d).unwrap())
                .unwrap();
        }
        let mut m = model::build(&census, "things", &Options::default());
        complete(&mut m);
        let v = m.versioning.expect("versioned");
        v.conversions
            .iter()
            .map(|c| c.unconverted().len())
            .collect()
    }

    #[test]
    fn only_what_no_mechanical_rule_fills_is_marked() {
        let docs = [
            bson::doc! { "_id": 1, "name": "Ada L" },
            bson::doc! { "_id": 3, "name": "Bo" },
            bson::doc! { "_id": 2, "schemaVersion": 2, "first": "Ada", "last": "L" },
            bson::doc! { "_id": 4, "schemaVersion": 2, "first": "Bo", "last": "" },
            bson::doc! { "_id": 5, "schemaVersion": 3, "first": "Cy", "last": "", "age": 3 },
            bson::doc! { "_id": 6, "schemaVersion": 3, "first": "Di", "last": "", "age": 4 },
        ];
        // 2 -> 3 is mechanical but for the new `age`; 1 -> 3 has neither first, last nor age.
        assert_eq!(gaps(&docs), [1, 3]);
        // A type change no rule converts (string to double).
        let retyped = [
            bson::doc! { "v": 1, "price": "9.99" },
            bson::doc! { "v": 1, "price": "1.00" },
            bson::doc! { "v": 2, "price": 9.99 },
            bson::doc! { "v": 2, "price": 1.0 },
        ];
        assert_eq!(gaps(&retyped), [1]);
        // Widening, a new optional field and a dropped one: nothing to mark.
        let mechanical = [
            bson::doc! { "v": 1, "n": 1, "old": 1 },
            bson::doc! { "v": 1, "n": 2, "old": 1 },
            bson::doc! { "v": 2, "n": 1_i64 << 40 },
            bson::doc! { "v": 2, "n": 2_i64, "extra": "x" },
        ];
        assert_eq!(gaps(&mechanical), [0]);
    }
}
