//! A link's rate over the run: fixed, or changing at given times (a scenario's
//! `bottleneck_rate_schedule` or a link's `rate_schedule`).
//!
//! A packet is serialised at the rate in force when its transmission starts, for its whole
//! transmission: a change takes effect for the packets that start at its time or later, and a
//! packet already on the wire finishes at the old rate. This is ns-3's PointToPointNetDevice,
//! which reads its `DataRate` attribute once per packet, in `TransmitStart`, so that setting the
//! attribute at a time (`Simulator::Schedule`, `Config::Set`) changes the packets sent after it.
//! Since a packet's transmission time depends only on its size and its start time, every port
//! that knows the start in advance (a drop-tail port, an in-order managed port) still knows the
//! end: the shortcuts that compute departures ahead of time stay exact.

use crate::time::tx_time_ns;

/// The rate of one direction of a link, b/s, as a function of time.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRate {
    /// The rate from the start of the run, b/s.
    initial_bps: u64,
    /// Later rates: (from this time, ns; this rate, b/s), times strictly increasing.
    changes: Box<[(u64, u64)]>,
}

impl LinkRate {
    /// A rate of `bps` for the whole run.
    pub fn fixed(bps: u64) -> Self {
        LinkRate {
            initial_bps: bps,
            changes: Box::new([]),
        }
    }

    /// `initial_bps` from the start, then each change's rate from its time on; the times
    /// must be strictly increasing.
    pub fn scheduled(initial_bps: u64, changes: Vec<(u64, u64)>) -> Self {
        assert!(
            changes.windows(2).all(|w| w[0].0 < w[1].0),
            "rate changes in strictly increasing order of time"
        );
        LinkRate {
            initial_bps,
            changes: changes.into_boxed_slice(),
        }
    }

    /// The rate the run starts with, b/s (the one a link's AQM is built for).
    pub fn initial_bps(&self) -> u64 {
        self.initial_bps
    }

    /// Whether the rate ever changes.
    pub fn is_fixed(&self) -> bool {
        self.changes.is_empty()
    }

    /// The rate in force at `t_ns`: that of the last change at or before `t_ns`, else the
    /// initial one.
    pub fn at(&self, t_ns: u64) -> u64 {
        match self
            .changes
            .partition_point(|&(from_ns, _)| from_ns <= t_ns)
        {
            0 => self.initial_bps,
            i => self.changes[i - 1].1,
        }
    }

    /// Time to serialise `bytes` when the transmission starts at `start_ns`, ns: ⌈bytes · 8 ·
    /// 10⁹ / r⌉ with r the rate in force at `start_ns` ([`tx_time_ns`]), however the rate
    /// changes while the packet is on the wire.
    pub fn tx_time_ns(&self, bytes: u32, start_ns: u64) -> u64 {
        tx_time_ns(bytes, self.at(start_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_applies_from_its_time_on() {
        let r = LinkRate::scheduled(10_000_000, vec![(100, 5_000_000), (200, 20_000_000)]);
        assert!(!r.is_fixed());
        assert_eq!(r.initial_bps(), 10_000_000);
        assert_eq!(r.at(0), 10_000_000);
        assert_eq!(r.at(99), 10_000_000);
        assert_eq!(
            r.at(100),
            5_000_000,
            "a packet starting at the change's time"
        );
        assert_eq!(r.at(199), 5_000_000);
        assert_eq!(r.at(200), 20_000_000);
        assert_eq!(r.at(u64::MAX), 20_000_000);
        // 1000 bytes: 800 µs at 10 Mb/s, 1.6 ms at 5 Mb/s, whatever follows its start.
        assert_eq!(r.tx_time_ns(1000, 99), 800_000);
        assert_eq!(r.tx_time_ns(1000, 100), 1_600_000);
    }

    #[test]
    fn a_fixed_rate_and_a_change_at_zero() {
        let r = LinkRate::fixed(50_000_000);
        assert!(r.is_fixed());
        assert_eq!(r.at(0), 50_000_000);
        assert_eq!(r.tx_time_ns(1000, 12345), tx_time_ns(1000, 50_000_000));
        let r = LinkRate::scheduled(50_000_000, vec![(0, 1_000_000)]);
        assert_eq!(r.at(0), 1_000_000);
        assert_eq!(r.initial_bps(), 50_000_000);
    }

    #[test]
    #[should_panic(expected = "strictly increasing")]
    fn times_must_increase() {
        LinkRate::scheduled(1, vec![(5, 2), (5, 3)]);
    }
}
