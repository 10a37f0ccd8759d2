//! Counters of a dual-queue port (DualPI2) per queue, L and C, and the sojourn times of the
//! packets each queue sent (docs/metrics.md, "Dual queue"): what the per-port table reports
//! as `l_*` and `c_*` columns. Every count is of packets that arrived inside the window (the
//! port's rule, so each packet counts once); the sojourn times are those of the packets sent
//! among them, marked or not.

use super::probes::nearest_rank;

/// One queue's counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueCounts {
    /// Packets classified to the queue.
    pub arrivals: u64,
    /// CE marks from the coupled or Classic probability.
    pub marks: u64,
    /// CE marks from the L queue's native step or ramp (0 for the C queue).
    pub step_marks: u64,
    /// Packets of the queue dropped, for any cause (the AQM, overload, the limit).
    pub drops: u64,
    /// Sojourn time of each packet sent, ns, in the order sent.
    pub sojourn_ns: Vec<u64>,
}

impl QueueCounts {
    /// Mean sojourn time, ms (NaN without any packet sent).
    pub fn sojourn_mean_ms(&self) -> f64 {
        if self.sojourn_ns.is_empty() {
            return f64::NAN;
        }
        let sum: u128 = self.sojourn_ns.iter().map(|&s| u128::from(s)).sum();
        sum as f64 / self.sojourn_ns.len() as f64 * 1e-6
    }

    /// The `p`-th percentile of the sojourn times, ms, by the nearest-rank method (NaN
    /// without any packet sent).
    pub fn sojourn_percentile_ms(&self, p: u64) -> f64 {
        let mut ms: Vec<f64> = self.sojourn_ns.iter().map(|&s| s as f64 * 1e-6).collect();
        ms.sort_unstable_by(f64::total_cmp);
        nearest_rank(&ms, p)
    }

    /// The counts of two queues together (the same queue in two priority bands).
    fn plus(&self, other: &QueueCounts) -> QueueCounts {
        let mut sojourn_ns = self.sojourn_ns.clone();
        sojourn_ns.extend_from_slice(&other.sojourn_ns);
        QueueCounts {
            arrivals: self.arrivals + other.arrivals,
            marks: self.marks + other.marks,
            step_marks: self.step_marks + other.step_marks,
            drops: self.drops + other.drops,
            sojourn_ns,
        }
    }
}

/// The L and C queues' counters of a dual-queue port.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DualQueueCounts {
    /// The L4S queue.
    pub l: QueueCounts,
    /// The Classic queue.
    pub c: QueueCounts,
}

impl DualQueueCounts {
    /// The counts of two dual-queue disciplines on one port (priority bands), queue by queue.
    pub fn plus(&self, other: &DualQueueCounts) -> DualQueueCounts {
        DualQueueCounts {
            l: self.l.plus(&other.l),
            c: self.c.plus(&other.c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sojourn_statistics_by_hand() {
        let q = QueueCounts {
            sojourn_ns: (1..=100).rev().map(|ms| ms * 1_000_000).collect(),
            ..QueueCounts::default()
        };
        assert_eq!(q.sojourn_mean_ms(), 50.5);
        assert_eq!(q.sojourn_percentile_ms(99), 99.0);
        assert_eq!(q.sojourn_percentile_ms(50), 50.0);
        let none = QueueCounts::default();
        assert!(none.sojourn_mean_ms().is_nan() && none.sojourn_percentile_ms(99).is_nan());
        let both = DualQueueCounts {
            l: q.clone(),
            c: none,
        }
        .plus(&DualQueueCounts {
            l: QueueCounts {
                arrivals: 3,
                sojourn_ns: vec![7],
                ..QueueCounts::default()
            },
            c: QueueCounts::default(),
        });
        assert_eq!((both.l.arrivals, both.l.sojourn_ns.len()), (3, 101));
    }
}
