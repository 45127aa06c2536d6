//! Collects every problem with its span so one derive reports all of them together, once.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;

/// Spanned problems found while reading one derive input.
///
/// Panics if dropped without [`Errors::finish`], so no problem is silently lost.
pub struct Errors {
    list: RefCell<Option<Vec<syn::Error>>>,
}

impl Errors {
    pub fn new() -> Errors {
        Errors {
            list: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records a problem at `span`.
    pub fn at(&self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records a problem spanning the tokens of `tokens`.
    pub fn spanned(&self, tokens: impl quote::ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records a syn parse error.
    pub fn push(&self, error: syn::Error) {
        self.list
            .borrow_mut()
            .as_mut()
            .expect("errors used after finish")
            .push(error);
    }

    /// All problems combined into one error, or `Ok` when there are none.
    pub fn finish(self) -> syn::Result<()> {
        let list = self.list.borrow_mut().take().expect("finish called once");
        let mut iter = list.into_iter();
        let Some(mut combined) = iter.next() else {
            return Ok(());
        };
        iter.for_each(|e| combined.combine(e));
        Err(combined)
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.list.borrow().is_some() {
            panic!("Errors dropped without finish()");
        }
    }
}

/// `; did you mean "x"?` for the nearest candidate within a small distance, else empty.
pub fn suggestion<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    candidates
        .into_iter()
        .map(|c| (strsim::levenshtein(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min()
        .map(|(_, c)| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}
