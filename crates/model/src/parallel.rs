//! Independent work items on several threads; the result order is the input order, so the
//! output does not depend on the number of threads.

use std::num::NonZeroUsize;
use std::thread;

/// The number of threads: `threads`, or every core when it is 0.
pub fn thread_count(threads: usize) -> usize {
    if threads > 0 {
        threads
    } else {
        thread::available_parallelism().map_or(1, NonZeroUsize::get)
    }
}

/// `f` over `items` on `threads` threads (0: every core). Items are dealt round-robin so that
/// expensive neighbours (a chaotic band of a sweep) spread over the threads.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let n = thread_count(threads).min(items.len()).max(1);
    if n == 1 {
        return items.iter().map(f).collect();
    }
    let f = &f;
    let parts: Vec<Vec<R>> = thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|t| s.spawn(move || items.iter().skip(t).step_by(n).map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker thread panicked"))
            .collect()
    });
    let mut iters: Vec<_> = parts.into_iter().map(Vec::into_iter).collect();
    (0..items.len())
        .map(|i| iters[i % n].next().expect("one result per item"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_input_order() {
        let items: Vec<u64> = (0..103).collect();
        let expect: Vec<u64> = items.iter().map(|x| x * x).collect();
        for threads in [1, 2, 3, 8, 200] {
            assert_eq!(par_map(&items, threads, |x| x * x), expect);
        }
        assert!(par_map(&[] as &[u64], 4, |x| *x).is_empty());
    }
}
