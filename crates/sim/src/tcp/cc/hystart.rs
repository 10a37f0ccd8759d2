//! HyStart, the hybrid slow start of Ha & Rhee ("Taming the elephants: New TCP slow start",
//! Computer Networks 55(9), 2011), with the thresholds and round bookkeeping of ns-3.37's
//! TcpCubic. Slow start ends early, with ssthresh set to cwnd, when either detector fires:
//! - **ACK train**: ACKs arriving at most 2 ms apart, from the start of a round, have spanned
//!   more than the minimum delay. The paper and Linux end at half the minimum delay (the
//!   train then covers the forward path); ns-3.37 waits for the whole minimum delay, which we
//!   follow.
//! - **Delay increase**: the smallest of the first 8 delay samples of a round exceeds the
//!   minimum delay by more than a threshold. The paper, Linux and RFC 9406 §4.2 use a fraction
//!   of the minimum delay clamped to a few milliseconds (RFC 9406: an eighth, within
//!   [4, 16] ms); ns-3.37 uses the minimum delay itself clamped to [4 ms, 1 s], so slow start
//!   ends only once the delay has about doubled. We follow ns-3.37.
//!
//! A round is one window of data: it starts on a slow-start ACK that acknowledges beyond the
//! segment that ended the previous one, and ends at the highest segment sent at its start.
//! Once a detector has fired HyStart stays off until a retransmission timeout. The delays are
//! whatever the caller feeds (ns-3.37 feeds the smoothed RTT) and the minimum delay is kept
//! by CUBIC. HyStart acts only while cwnd ≤ ssthresh and cwnd ≥ `hystart_low_window_pkts`.

/// ACKs at most this far apart belong to one train, ns (ns-3.37's HyStartAckDelta, 2 ms).
const TRAIN_SPACING_NS: u64 = 2_000_000;
/// Delay samples per round whose minimum is tested (ns-3.37's HyStartMinSamples).
const ROUND_SAMPLES: u32 = 8;
/// Lower bound of the delay-increase threshold, ns (ns-3.37's HyStartDelayMin, 4 ms).
const DELAY_THRESH_MIN_NS: u64 = 4_000_000;
/// Upper bound of the delay-increase threshold, ns (ns-3.37's HyStartDelayMax, 1 s).
const DELAY_THRESH_MAX_NS: u64 = 1_000_000_000;

/// An ACK train that may still grow long enough to end slow start.
#[derive(Clone, Copy, Debug)]
struct Train {
    /// Start of the round, ns.
    round_start_ns: u64,
    /// Last ACK that kept the train going, ns.
    last_ack_ns: u64,
}

/// HyStart's state for one flow.
#[derive(Clone, Debug)]
pub struct HyStart {
    low_window_pkts: f64,
    /// A detector has fired; no more detection until the next timeout.
    found: bool,
    /// The round ends when an ACK acknowledges beyond this segment; None after a timeout
    /// until the next slow-start ACK, which takes the highest segment sent then (no new data
    /// goes out between a timeout and its first ACK, so that is the value at the timeout).
    round_end_seq: Option<u32>,
    /// The ACK train of this round; None when none can form until the next round (after a
    /// timeout, as ns-3.37's round starting at the timeout, which no ACK follows within 2 ms).
    train: Option<Train>,
    /// Delay samples taken this round (counted up to `ROUND_SAMPLES`).
    samples: u32,
    /// Smallest of those samples, ns.
    round_min_delay_ns: Option<u64>,
}

impl HyStart {
    /// HyStart acting from `low_window_pkts` segments of cwnd on.
    pub fn new(low_window_pkts: u32) -> Self {
        HyStart {
            low_window_pkts: f64::from(low_window_pkts),
            found: false,
            round_end_seq: Some(0),
            train: None,
            samples: 0,
            round_min_delay_ns: None,
        }
    }

    /// A slow-start ACK at `now_ns` that leaves `snd_una` unacknowledged, with `snd_max` the
    /// highest segment sent: start a new round when it acknowledges beyond the current one.
    pub fn on_slow_start_ack(&mut self, now_ns: u64, snd_una: u32, snd_max: u32) {
        let round_end = *self.round_end_seq.get_or_insert(snd_max);
        if snd_una > round_end {
            self.round_end_seq = Some(snd_max);
            self.train = Some(Train {
                round_start_ns: now_ns,
                last_ack_ns: now_ns,
            });
            self.samples = 0;
            self.round_min_delay_ns = None;
        }
    }

    /// A delay sample `delay_ns` at `now_ns`, with `delay_min_ns` the smallest delay seen.
    /// Returns true when slow start must end now (the caller sets ssthresh = cwnd).
    pub fn on_delay(
        &mut self,
        now_ns: u64,
        cwnd_pkts: f64,
        ssthresh_pkts: f64,
        delay_ns: u64,
        delay_min_ns: u64,
    ) -> bool {
        if self.found || cwnd_pkts > ssthresh_pkts || cwnd_pkts < self.low_window_pkts {
            return false;
        }
        if let Some(train) = &mut self.train {
            if now_ns.saturating_sub(train.last_ack_ns) <= TRAIN_SPACING_NS {
                train.last_ack_ns = now_ns;
                if now_ns.saturating_sub(train.round_start_ns) > delay_min_ns {
                    self.found = true;
                }
            }
        }
        if self.samples < ROUND_SAMPLES {
            self.round_min_delay_ns = Some(
                self.round_min_delay_ns
                    .map_or(delay_ns, |m| m.min(delay_ns)),
            );
            self.samples += 1;
        } else if self.round_min_delay_ns.is_some_and(|m| {
            m > delay_min_ns + delay_min_ns.clamp(DELAY_THRESH_MIN_NS, DELAY_THRESH_MAX_NS)
        }) {
            self.found = true;
        }
        self.found
    }

    /// A retransmission timeout: detection is armed again and a round starts that lasts
    /// until the data outstanding now is acknowledged, without an ACK train.
    pub fn on_timeout(&mut self) {
        self.found = false;
        self.round_end_seq = None;
        self.train = None;
        self.samples = 0;
        self.round_min_delay_ns = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn train_longer_than_the_minimum_delay_ends_slow_start() {
        let mut h = HyStart::new(16);
        h.on_slow_start_ack(0, 1, 40);
        // ACKs 1 ms apart, delay 50 ms throughout: the train passes 50 ms at the 51st.
        let fired: Vec<u64> = (1..=60)
            .filter(|i| h.on_delay(i * MS, 20.0, f64::INFINITY, 50 * MS, 50 * MS))
            .collect();
        assert_eq!(fired, vec![51]);
    }

    #[test]
    fn sparse_acks_form_no_train() {
        let mut h = HyStart::new(16);
        h.on_slow_start_ack(0, 1, 40);
        for i in 1..=60 {
            assert!(!h.on_delay(i * 3 * MS, 20.0, f64::INFINITY, 50 * MS, 50 * MS));
        }
    }

    #[test]
    fn doubled_delay_ends_slow_start_after_the_round_samples() {
        let mut h = HyStart::new(16);
        h.on_slow_start_ack(0, 1, 40);
        // 10 ms apart (no train); 8 samples of 101 ms against a minimum of 50 ms, then tests.
        for i in 1..=8 {
            assert!(!h.on_delay(i * 10 * MS, 20.0, f64::INFINITY, 101 * MS, 50 * MS));
        }
        assert!(h.on_delay(90 * MS, 20.0, f64::INFINITY, 101 * MS, 50 * MS));
        // 99 ms (< 2 × 50 ms) would not have done it.
        let mut h = HyStart::new(16);
        h.on_slow_start_ack(0, 1, 40);
        for i in 1..=20 {
            assert!(!h.on_delay(i * 10 * MS, 20.0, f64::INFINITY, 99 * MS, 50 * MS));
        }
    }

    #[test]
    fn threshold_is_at_least_4_ms() {
        let mut h = HyStart::new(16);
        h.on_slow_start_ack(0, 1, 40);
        // Minimum 1 ms: 2.5 ms is below 1 ms + 4 ms, 5.5 ms above.
        for i in 1..=12 {
            assert!(!h.on_delay(i * 10 * MS, 20.0, f64::INFINITY, 2_500_000, MS));
        }
        h.on_slow_start_ack(200 * MS, 41, 80);
        for i in 1..=8 {
            assert!(!h.on_delay(200 * MS + i * 10 * MS, 20.0, f64::INFINITY, 5_500_000, MS));
        }
        assert!(h.on_delay(300 * MS, 20.0, f64::INFINITY, 5_500_000, MS));
    }

    #[test]
    fn low_window_and_ssthresh_gate_detection() {
        let mut h = HyStart::new(16);
        h.on_slow_start_ack(0, 1, 40);
        for i in 1..=60 {
            assert!(!h.on_delay(i * MS, 15.0, f64::INFINITY, 50 * MS, 50 * MS));
            assert!(!h.on_delay(i * MS, 30.0, 20.0, 50 * MS, 50 * MS));
        }
    }

    #[test]
    fn fires_once_until_a_timeout() {
        let mut h = HyStart::new(16);
        h.on_slow_start_ack(0, 1, 40);
        assert!((1..=60).any(|i| h.on_delay(i * MS, 20.0, f64::INFINITY, 50 * MS, 50 * MS)));
        h.on_slow_start_ack(100 * MS, 41, 90);
        assert!(!(1..=60).any(|i| h.on_delay(
            100 * MS + i * MS,
            20.0,
            f64::INFINITY,
            50 * MS,
            50 * MS
        )));
        h.on_timeout();
        // The round after the timeout runs until segment 90 is acknowledged, without a train.
        h.on_slow_start_ack(2000 * MS, 50, 90);
        assert!(!(1..=60).any(|i| h.on_delay(
            2000 * MS + i * MS,
            20.0,
            f64::INFINITY,
            50 * MS,
            50 * MS
        )));
        h.on_slow_start_ack(2100 * MS, 91, 120);
        assert!((1..=60).any(|i| h.on_delay(
            2100 * MS + i * MS,
            20.0,
            f64::INFINITY,
            50 * MS,
            50 * MS
        )));
    }
}
