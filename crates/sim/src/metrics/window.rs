//! The measurement window [start, end].

use crate::time::{ns_to_s, s_to_ns};

/// Summary metrics cover events with start ≤ t ≤ end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Start, ns.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
}

impl Window {
    /// The window [start_s, end_s].
    pub fn from_s(start_s: f64, end_s: f64) -> Self {
        Window {
            start_ns: s_to_ns(start_s),
            end_ns: s_to_ns(end_s),
        }
    }

    /// Whether `t_ns` falls in the window.
    pub fn contains(&self, t_ns: u64) -> bool {
        self.start_ns <= t_ns && t_ns <= self.end_ns
    }

    /// Length of the overlap of [a, b] with the window, ns.
    pub fn overlap_ns(&self, a_ns: u64, b_ns: u64) -> u64 {
        b_ns.min(self.end_ns)
            .saturating_sub(a_ns.max(self.start_ns))
    }

    /// Length, seconds.
    pub fn len_s(&self) -> f64 {
        ns_to_s(self.end_ns - self.start_ns)
    }
}
