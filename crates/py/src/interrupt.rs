//! Long computations of the model run on a worker thread while the calling thread, without
//! the GIL, watches for Ctrl-C and SIGTERM: it runs Python's signal handlers every
//! [`WATCH_EVERY`], and when one raises (KeyboardInterrupt, or the CLI's `Interrupted` on
//! SIGTERM) it sets the stop flag the computation polls, waits for the worker to return (about
//! a millisecond) and raises that exception.

use ::model::Stop;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

/// How often the calling thread looks for a signal.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// The worker's value, or its panic carried on.
fn joined<T>(worker: thread::ScopedJoinHandle<'_, T>) -> T {
    worker
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Run `work` on a worker thread until it returns or a signal handler raises.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(Stop<'_>) -> T + Send,
) -> PyResult<T> {
    let flag = AtomicBool::new(false);
    let caller = thread::current();
    thread::scope(|s| {
        let flag = &flag;
        let worker = s.spawn(move || {
            let out = work(Stop::on(flag));
            caller.unpark();
            out
        });
        loop {
            py.allow_threads(|| thread::park_timeout(WATCH_EVERY));
            if worker.is_finished() {
                return Ok(joined(worker));
            }
            if let Err(raised) = py.check_signals() {
                flag.store(true, Ordering::Relaxed);
                py.allow_threads(|| joined(worker));
                return Err(raised);
            }
        }
    })
}
