//! Independent work spread over the machine's cores, with the results in input order, so that
//! nothing a caller computes depends on the number of threads or on which thread did what.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use evokb_store::Progress;

/// The number of threads [`map_in_order`] uses: one per core, at most eight.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8)
}

/// `f` applied to each of `items`, in their order, by this thread and one helper per further
/// core, each taking the next `chunk` items in turn. This thread reports the items done to
/// `progress` (which need not be shareable between threads) after each of its chunks. A panic
/// in `f` is resumed on this thread.
pub fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    f: &(dyn Fn(&T) -> R + Sync),
    progress: &dyn Progress,
) -> Vec<R> {
    let chunk = chunk.max(1);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let found: Mutex<Vec<(usize, Vec<R>)>> = Mutex::new(Vec::new());
    let take = |between: &mut dyn FnMut()| loop {
        let start = next.fetch_add(chunk, Ordering::Relaxed);
        if start >= items.len() {
            return;
        }
        let end = (start + chunk).min(items.len());
        let made: Vec<R> = items[start..end].iter().map(f).collect();
        done.fetch_add(end - start, Ordering::Relaxed);
        match found.lock() {
            Ok(mut found) => found.push((start, made)),
            Err(poisoned) => poisoned.into_inner().push((start, made)),
        }
        between();
    };
    let helpers = threads().min(items.len().div_ceil(chunk)).saturating_sub(1);
    std::thread::scope(|s| {
        let running: Vec<_> = (0..helpers).map(|_| s.spawn(|| take(&mut || {}))).collect();
        let mut shown = 0;
        let mut show = || {
            let now = done.load(Ordering::Relaxed);
            progress.advance((now - shown) as u64);
            shown = now;
        };
        take(&mut show);
        for helper in running {
            if let Err(panic) = helper.join() {
                std::panic::resume_unwind(panic);
            }
        }
        show();
    });
    let mut found = match found.into_inner() {
        Ok(found) => found,
        Err(poisoned) => poisoned.into_inner(),
    };
    found.sort_unstable_by_key(|(start, _)| *start);
    found.into_iter().flat_map(|(_, made)| made).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_input_order_whatever_the_chunk() {
        let items: Vec<u64> = (0..1000).collect();
        for chunk in [0, 1, 7, 64, 5000] {
            let squares = map_in_order(&items, chunk, &|x| x * x, &evokb_store::Silent);
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>(), "chunk {chunk}");
        }
        let none: Vec<u64> = map_in_order(&[], 8, &|x: &u64| *x, &evokb_store::Silent);
        assert!(none.is_empty());
    }
}
