//! Per-thread seeds for the hash maps inside `bson::Document`.
//!
//! bson keys each document's field map with an `ahash::RandomState`, whose default seed source
//! is one process-wide counter that every new map bumps. When two `validate` workers explain
//! rejected documents at once, each explanation builds dozens of small documents, and that
//! counter's cache line moves between the cores on almost every one: it was about 40% of the
//! extra CPU two workers spent over one (`bench/RESULTS.md`). A counter per thread gives every
//! map a distinct seed with nothing shared. The secret part of the keys still comes from the
//! operating system's generator (ahash's `runtime-rng`), so maps are as hard to flood as before.

use std::cell::Cell;

use ahash::random_state::{RandomSource, set_random_source};

/// Seeds from a counter per thread, started at the thread's own counter address.
struct PerThread;

impl RandomSource for PerThread {
    fn gen_hasher_seed(&self) -> usize {
        thread_local! {
            static NEXT: Cell<usize> = const { Cell::new(0) };
        }
        NEXT.with(|next| {
            let mut seed = next.get();
            if seed == 0 {
                // Distinct per thread (and moved by address-space randomisation).
                seed = std::ptr::from_ref(next) as usize | 1;
            }
            // An odd step visits every value before repeating.
            next.set(seed.wrapping_add(0x9E37_79B9_7F4A_7C15_u64 as usize));
            seed
        })
    }
}

/// Installs the per-thread seed source for the rest of the process. It takes effect only before
/// the first hash map is built (returns `false` otherwise, when nothing changes), so binaries
/// call it first: [`crate::main()`] and [`crate::main_registered`] do.
pub fn install() -> bool {
    set_random_source(PerThread).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_within_and_across_threads() {
        let here: Vec<usize> = (0..4).map(|_| PerThread.gen_hasher_seed()).collect();
        let there: Vec<usize> = std::thread::spawn(|| {
            (0..4)
                .map(|_| PerThread.gen_hasher_seed())
                .collect::<Vec<_>>()
        })
        .join()
        .expect("thread");
        let mut all: Vec<usize> = here.iter().chain(&there).copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 8, "{here:?} {there:?}");
    }
}
