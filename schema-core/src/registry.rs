//! Every collection root linked into the program, found without listing them by hand: the derive
//! submits one [`Registration`] per `#[mongo(collection = "...")]` type through `inventory`, and
//! [`collections`] gathers them for the manifest and the drift check.

use crate::spec::{CollectionSpec, SpecError};

/// One collection root, as the derive submits it:
///
/// ```text
/// ::mongo_schema::__private::inventory::submit! {
///     ::mongo_schema::registry::Registration::new(<Order as ::mongo_schema::spec::Collection>::collection_spec)
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Registration {
    spec: Source,
}

#[derive(Clone, Copy, Debug)]
enum Source {
    Infallible(fn() -> CollectionSpec),
    Fallible(fn() -> Result<CollectionSpec, SpecError>),
}

impl Registration {
    /// A registration that builds its spec with `spec` when the registry is read.
    pub const fn new(spec: fn() -> CollectionSpec) -> Registration {
        Registration {
            spec: Source::Infallible(spec),
        }
    }

    /// A registration whose spec may fail to build (the derive's: a path naming no field).
    pub const fn fallible(spec: fn() -> Result<CollectionSpec, SpecError>) -> Registration {
        Registration {
            spec: Source::Fallible(spec),
        }
    }

    /// Builds the registered spec.
    ///
    /// # Errors
    /// The declaration's [`SpecError`].
    pub fn try_spec(&self) -> Result<CollectionSpec, SpecError> {
        match self.spec {
            Source::Infallible(spec) => Ok(spec()),
            Source::Fallible(spec) => spec(),
        }
    }

    /// Builds the registered spec.
    ///
    /// # Panics
    /// When the declaration cannot be built; [`Registration::try_spec`] reports it instead.
    pub fn spec(&self) -> CollectionSpec {
        match self.try_spec() {
            Ok(spec) => spec,
            Err(error) => panic!("{error}"),
        }
    }
}

inventory::collect!(Registration);

/// The specs of every registered collection, sorted by name (ties keep no particular order).
///
/// # Panics
/// When a declaration cannot be built (a path that names no field);
/// [`checked_collections`] reports that as an error instead.
///
/// ```
/// // A program with no collection roots has an empty registry.
/// let names: Vec<String> = mongo_schema::registry::collections().into_iter().map(|c| c.name).collect();
/// assert!(names.windows(2).all(|w| w[0] <= w[1]));
/// ```
pub fn collections() -> Vec<CollectionSpec> {
    let mut specs: Vec<CollectionSpec> = inventory::iter::<Registration>
        .into_iter()
        .map(Registration::spec)
        .collect();
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    specs
}

/// The registered specs, sorted by name, after checking each ([`CollectionSpec::check`]) and
/// that no two roots claim one collection.
///
/// # Errors
/// The first [`SpecError`] found.
pub fn checked_collections() -> Result<Vec<CollectionSpec>, SpecError> {
    let mut specs = inventory::iter::<Registration>
        .into_iter()
        .map(Registration::try_spec)
        .collect::<Result<Vec<_>, _>>()?;
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    check_all(&specs)?;
    Ok(specs)
}

/// Checks each spec and that names are unique; `specs` must be sorted by name.
pub(crate) fn check_all(specs: &[CollectionSpec]) -> Result<(), SpecError> {
    for spec in specs {
        spec.check()?;
    }
    if let Some(pair) = specs.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(SpecError::DuplicateCollection {
            collection: pair[0].name.clone(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{IndexKind, IndexSpec};

    fn zebras() -> CollectionSpec {
        CollectionSpec::new("zebras")
    }

    fn antelopes() -> CollectionSpec {
        CollectionSpec::new("antelopes").index(IndexSpec::new([("herd", IndexKind::Ascending)]))
    }

    inventory::submit! { Registration::new(zebras) }
    inventory::submit! { Registration::new(antelopes) }

    #[test]
    fn submitted_roots_are_listed_sorted_by_name() {
        let names: Vec<String> = collections().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["antelopes", "zebras"]);
        assert_eq!(checked_collections().unwrap().len(), 2);
    }

    #[test]
    fn two_roots_for_one_collection_are_refused() {
        let specs = [CollectionSpec::new("a"), CollectionSpec::new("a")];
        assert_eq!(
            check_all(&specs),
            Err(SpecError::DuplicateCollection {
                collection: "a".into()
            })
        );
    }
}
