//! Stopping a long computation from outside: the caller sets a flag (on Ctrl-C or SIGTERM)
//! and the loops of orbits, sweeps and maps look at it every [`POLL_EVERY`] iterations, so a
//! computation ends within about a millisecond of the request, with [`ModelError::Stopped`].

use aqm::ParamError;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

/// Iterations of the map between two looks at the stop flag (about 0.1–0.5 ms of work).
pub const POLL_EVERY: usize = 4096;

/// Where a computation looks for a request to stop.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stop<'a>(Option<&'a AtomicBool>);

impl<'a> Stop<'a> {
    /// A computation that runs to its end.
    pub const NEVER: Stop<'static> = Stop(None);

    /// Stop when `flag` is set.
    pub fn on(flag: &'a AtomicBool) -> Self {
        Stop(Some(flag))
    }

    /// Whether a stop was requested.
    pub fn requested(self) -> bool {
        self.0.is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// `Err(Stopped)` when a stop was requested.
    pub fn check(self) -> Result<(), ModelError> {
        if self.requested() {
            Err(ModelError::Stopped)
        } else {
            Ok(())
        }
    }
}

/// Why a computation of the model gave no result.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelError {
    /// A parameter or option is out of range.
    Param(ParamError),
    /// The caller asked it to stop.
    Stopped,
}

impl From<ParamError> for ModelError {
    fn from(e: ParamError) -> Self {
        ModelError::Param(e)
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Param(e) => e.fmt(f),
            ModelError::Stopped => f.write_str("stopped on request"),
        }
    }
}

impl std::error::Error for ModelError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_flag_stops() {
        let flag = AtomicBool::new(false);
        assert!(Stop::on(&flag).check().is_ok());
        flag.store(true, Ordering::Relaxed);
        assert_eq!(Stop::on(&flag).check(), Err(ModelError::Stopped));
        assert!(!Stop::NEVER.requested());
    }
}
