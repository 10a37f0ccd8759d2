//! The RTT bookkeeping ns-3.37's delay-based algorithms share (Vegas, Veno, YeAH): the lowest
//! RTT of the connection (BaseRTT), the lowest RTT and the number of samples since the
//! current round began.

/// ns-3's `Time::Max()` in seconds ((2⁶³ − 1) ns): the value of a minimum with no sample yet.
/// A finite number, so ratios of two such values stay 1 as in ns-3.
pub const NS3_TIME_MAX_S: f64 = 9_223_372_036.854_775;

/// BaseRTT and the current round's lowest RTT and sample count.
#[derive(Clone, Copy, Debug)]
pub struct RttRound {
    /// Lowest RTT seen on the connection, seconds.
    pub base_rtt_s: f64,
    /// Lowest RTT seen this round, seconds.
    pub min_rtt_s: f64,
    /// RTT samples this round.
    pub cnt_rtt: u32,
}

impl Default for RttRound {
    fn default() -> Self {
        RttRound {
            base_rtt_s: NS3_TIME_MAX_S,
            min_rtt_s: NS3_TIME_MAX_S,
            cnt_rtt: 0,
        }
    }
}

impl RttRound {
    /// A PktsAcked with an RTT sample (none under Karn's rule: ns-3 skips a zero RTT).
    pub fn sample(&mut self, rtt_s: Option<f64>) {
        if let Some(rtt_s) = rtt_s {
            self.min_rtt_s = self.min_rtt_s.min(rtt_s);
            self.base_rtt_s = self.base_rtt_s.min(rtt_s);
            self.cnt_rtt += 1;
        }
    }

    /// A new round: no sample counted, no minimum.
    pub fn restart(&mut self) {
        self.cnt_rtt = 0;
        self.min_rtt_s = NS3_TIME_MAX_S;
    }

    /// The window that would hold as many segments in flight at BaseRTT as `seg_cwnd` holds
    /// at this round's lowest RTT, truncated: ⌊cwnd · BaseRTT / RTT⌋ (Brakmo and Peterson
    /// 1995, Expected = cwnd/BaseRTT against Actual = cwnd/RTT).
    pub fn target_cwnd_pkts(&self, seg_cwnd: u32) -> u32 {
        (f64::from(seg_cwnd) * (self.base_rtt_s / self.min_rtt_s)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_base_and_round_minimum() {
        let mut r = RttRound::default();
        assert_eq!(r.target_cwnd_pkts(10), 10, "no sample: the ratio is 1");
        r.sample(Some(0.1));
        r.sample(None);
        r.sample(Some(0.125));
        assert_eq!((r.base_rtt_s, r.min_rtt_s, r.cnt_rtt), (0.1, 0.1, 2));
        r.restart();
        r.sample(Some(0.125));
        assert_eq!((r.base_rtt_s, r.min_rtt_s, r.cnt_rtt), (0.1, 0.125, 1));
        // 20 · 0.1/0.125 = 16.
        assert_eq!(r.target_cwnd_pkts(20), 16);
        r.restart();
        assert_eq!(r.target_cwnd_pkts(20), 0, "no sample this round");
    }
}
