//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation, as ns-3.37's
//! TcpRateLinux after Linux tcp_rate.c), in segments. Every segment sent records how much had
//! been delivered and when, when the current sending flight began, and whether the sender was
//! application-limited; when it is SACKed or cumulatively acknowledged, the newest such record
//! becomes the sample's start, and each ACK turns it into a rate sample: delivered /
//! max(send elapsed, ACK elapsed).
//!
//! ns-3.37's arithmetic is kept where it departs from the draft: the ACK-elapsed time is taken
//! from the previous sample start (ns-3 computes it before moving the start), and the sample
//! persists between ACKs, so an invalid one keeps the last delivery rate. ns-3 marks "no
//! timing" by a start time of zero; here it is `None`, so a flight sent at time 0 is timed
//! (reconstruction: aqmlab's flows may start at 0 without a handshake).
//!
//! A congestion control that reads no more of the sample than the segments each ACK delivered
//! (`Controller::NEEDS_RATE_SAMPLE` false, TCP Prague) gets no estimator: the scoreboard counts
//! deliveries exactly as the estimator does ([`super::scoreboard::Scoreboard::delivered_pkts`]),
//! and its samples hold only the ACK's counts ([`RateSample::counts`]).

use std::collections::VecDeque;

/// The rate record of one sent segment (ns-3's TcpTxItem::RateInformation).
#[derive(Clone, Copy, Debug)]
struct Record {
    /// Segments delivered when it was sent.
    delivered_pkts: u64,
    /// When the last delivery before it was sent happened; `None` once the segment has been
    /// counted as delivered (ns-3's Time::Max).
    delivered_ns: Option<u64>,
    /// When the flight it belongs to began.
    first_sent_ns: u64,
    /// When it was last sent.
    last_sent_ns: u64,
    /// The sender was application-limited when it was sent.
    app_limited: bool,
}

/// The connection's delivery counters (ns-3's TcpRateConnection).
#[derive(Clone, Copy, Debug, Default)]
pub struct RateConnection {
    /// Segments delivered (SACKed or acknowledged) so far.
    pub delivered_pkts: u64,
    /// When the last of them was delivered.
    pub delivered_ns: u64,
    /// When the current flight began (the last delivered segment's send time).
    pub first_sent_ns: u64,
    /// Nonzero while application-limited: the delivered count that ends the bubble.
    pub app_limited_pkts: u64,
    /// The last non-app-limited (or highest app-limited) sample: segments and interval.
    pub rate_delivered_pkts: u64,
    /// Its interval, ns.
    pub rate_interval_ns: u64,
    /// Whether it was app-limited.
    pub rate_app_limited: bool,
}

/// One ACK's rate sample (ns-3's TcpRateSample).
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    /// Segments per second; kept from the last valid sample when this one is invalid (ns-3).
    pub delivery_rate_pkts_per_s: f64,
    /// The sample's start segment was sent while application-limited.
    pub is_app_limited: bool,
    /// max(send elapsed, ACK elapsed), ns; 0 for an invalid sample.
    pub interval_ns: u64,
    /// Segments delivered over the interval; -1 when there is no timing information.
    pub delivered_pkts: i64,
    /// The delivered count when the sample's start segment was sent.
    pub prior_delivered_pkts: u64,
    /// When the delivery before the start segment's send happened; `None`: no timing.
    pub prior_ns: Option<u64>,
    /// Send time of the start segment less the start of its flight, ns.
    pub send_elapsed_ns: u64,
    /// ACK time less the previous sample start, ns (ns-3.37's order of updates).
    pub ack_elapsed_ns: u64,
    /// Segments newly marked lost by this ACK.
    pub lost_pkts: u32,
    /// Segments in flight before this ACK.
    pub prior_in_flight_pkts: u32,
    /// Segments this ACK newly acknowledged or SACKed.
    pub acked_sacked_pkts: u32,
}

impl RateSample {
    /// A sample without timing: only what one ACK delivered (`acked_sacked`), newly marked
    /// lost (`lost`) and found in flight before it (`prior_in_flight`).
    pub fn counts(acked_sacked: u32, lost: u32, prior_in_flight: u32) -> Self {
        RateSample {
            acked_sacked_pkts: acked_sacked,
            lost_pkts: lost,
            prior_in_flight_pkts: prior_in_flight,
            ..RateSample::default()
        }
    }
}

impl Default for RateSample {
    fn default() -> Self {
        RateSample {
            delivery_rate_pkts_per_s: 0.0,
            is_app_limited: false,
            interval_ns: 0,
            delivered_pkts: 0,
            prior_delivered_pkts: 0,
            prior_ns: None,
            send_elapsed_ns: 0,
            ack_elapsed_ns: 0,
            lost_pkts: 0,
            prior_in_flight_pkts: 0,
            acked_sacked_pkts: 0,
        }
    }
}

/// The estimator: one record per outstanding segment `base..base + records.len()`.
#[derive(Clone, Debug, Default)]
pub struct RateEstimator {
    base: u32,
    records: VecDeque<Record>,
    conn: RateConnection,
    sample: RateSample,
}

impl RateEstimator {
    /// The connection's counters.
    pub fn connection(&self) -> &RateConnection {
        &self.conn
    }

    /// Segment `seq` goes on the wire at `now_ns` (ns-3's SkbSent); `start_of_transmission`
    /// when nothing was in flight, which restarts the flight and the delivery clock.
    pub fn on_sent(&mut self, seq: u32, now_ns: u64, start_of_transmission: bool) {
        if start_of_transmission {
            self.conn.first_sent_ns = now_ns;
            self.conn.delivered_ns = now_ns;
        }
        let record = Record {
            delivered_pkts: self.conn.delivered_pkts,
            delivered_ns: Some(self.conn.delivered_ns),
            first_sent_ns: self.conn.first_sent_ns,
            last_sent_ns: now_ns,
            app_limited: self.conn.app_limited_pkts != 0,
        };
        let index = (seq - self.base) as usize;
        if index == self.records.len() {
            self.records.push_back(record);
        } else {
            self.records[index] = record;
        }
    }

    /// Segment `seq` is delivered at `now_ns` (ns-3's SkbDelivered): counted once; the newest
    /// send among the delivered segments becomes the sample's start.
    fn deliver(&mut self, seq: u32, now_ns: u64) {
        let r = &mut self.records[(seq - self.base) as usize];
        let Some(delivered_ns) = r.delivered_ns.take() else {
            return;
        };
        self.conn.delivered_pkts += 1;
        self.conn.delivered_ns = now_ns;
        let s = &mut self.sample;
        if s.prior_delivered_pkts == 0 || r.delivered_pkts > s.prior_delivered_pkts {
            s.ack_elapsed_ns = now_ns - s.prior_ns.unwrap_or(0);
            s.prior_delivered_pkts = r.delivered_pkts;
            s.prior_ns = Some(delivered_ns);
            s.is_app_limited = r.app_limited;
            s.send_elapsed_ns = r.last_sent_ns - r.first_sent_ns;
            self.conn.first_sent_ns = r.last_sent_ns;
        }
    }

    /// The SACK blocks of an ACK: every segment in them not yet delivered is (ns-3 updates the
    /// scoreboard, and so delivers SACKed segments, before the cumulative ACK).
    pub fn on_sack(&mut self, blocks: impl IntoIterator<Item = (u32, u32)>, now_ns: u64) {
        let high = self.base + self.records.len() as u32;
        for (start, end) in blocks {
            for seq in start.max(self.base)..end.min(high) {
                self.deliver(seq, now_ns);
            }
        }
    }

    /// A cumulative ACK of everything below `ackno`: those segments are delivered (the ones
    /// not SACKed before) and forgotten.
    pub fn on_cumulative_ack(&mut self, ackno: u32, now_ns: u64) {
        while self.base < ackno && !self.records.is_empty() {
            self.deliver(self.base, now_ns);
            self.records.pop_front();
            self.base += 1;
        }
    }

    /// ns-3's CalculateAppLimited: with no new data to send, in flight below cwnd and every
    /// lost segment resent, the delivery rate no longer tells the path's capacity until the
    /// segments now in flight are delivered.
    pub fn check_app_limited(&mut self, cwnd_pkts: f64, in_flight_pkts: u32, lost_resent: bool) {
        if f64::from(in_flight_pkts) < cwnd_pkts && lost_resent {
            self.conn.app_limited_pkts =
                (self.conn.delivered_pkts + u64::from(in_flight_pkts)).max(1);
        }
    }

    /// The rate sample of an ACK (ns-3's GenerateSample): `acked_sacked` segments newly
    /// delivered, `lost` newly marked lost, `prior_in_flight` in flight before it; a sample
    /// shorter than `min_rtt_ns` (None before any RTT estimate: every sample is) is invalid.
    pub fn generate_sample(
        &mut self,
        acked_sacked: u32,
        lost: u32,
        prior_in_flight: u32,
        min_rtt_ns: Option<u64>,
    ) -> &RateSample {
        if self.conn.app_limited_pkts != 0 && self.conn.delivered_pkts > self.conn.app_limited_pkts
        {
            self.conn.app_limited_pkts = 0;
        }
        let s = &mut self.sample;
        s.acked_sacked_pkts = acked_sacked;
        s.lost_pkts = lost;
        s.prior_in_flight_pkts = prior_in_flight;
        if s.prior_ns.is_none() {
            s.delivered_pkts = -1;
            s.interval_ns = 0;
            return &self.sample;
        }
        s.interval_ns = s.send_elapsed_ns.max(s.ack_elapsed_ns);
        s.delivered_pkts = (self.conn.delivered_pkts - s.prior_delivered_pkts) as i64;
        if min_rtt_ns.is_none_or(|m| s.interval_ns < m) {
            s.interval_ns = 0;
            s.prior_ns = None;
            return &self.sample;
        }
        let c = &mut self.conn;
        let delivered = s.delivered_pkts as u64;
        if !s.is_app_limited
            || u128::from(delivered) * u128::from(c.rate_interval_ns)
                >= u128::from(c.rate_delivered_pkts) * u128::from(s.interval_ns)
        {
            c.rate_delivered_pkts = delivered;
            c.rate_interval_ns = s.interval_ns;
            c.rate_app_limited = s.is_app_limited;
            s.delivery_rate_pkts_per_s = delivered as f64 * 1e9 / s.interval_ns as f64;
        }
        &self.sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Ten segments 1 ms apart from t = 0, the first starting the flight.
    fn sent_ten() -> RateEstimator {
        let mut r = RateEstimator::default();
        for seq in 0..10 {
            r.on_sent(seq, u64::from(seq) * MS, seq == 0);
        }
        r
    }

    #[test]
    fn first_ack_of_a_flight() {
        let mut r = sent_ten();
        // Segments 0 and 1 acknowledged at 50 ms. While the start's delivered count is 0 every
        // delivered segment replaces it, so the start is segment 1: send elapsed 1 ms − 0, ACK
        // elapsed 50 ms − 0; 2 segments over max(1, 50) ms = 40 segments/s.
        r.on_cumulative_ack(2, 50 * MS);
        let s = *r.generate_sample(2, 0, 10, Some(10 * MS));
        assert_eq!(s.delivered_pkts, 2);
        assert_eq!(s.send_elapsed_ns, MS);
        assert_eq!(s.interval_ns, 50 * MS);
        assert!((s.delivery_rate_pkts_per_s - 40.0).abs() < 1e-9);
        assert_eq!(r.connection().delivered_pkts, 2);
    }

    #[test]
    fn later_sample_starts_at_the_newest_delivered_send() {
        let mut r = sent_ten();
        r.on_cumulative_ack(2, 50 * MS);
        r.generate_sample(2, 0, 10, Some(10 * MS));
        // At 50 ms two more go out (delivered 2, delivery time 50 ms, flight began at 1 ms,
        // the last delivered segment's send).
        r.on_sent(10, 50 * MS, false);
        r.on_sent(11, 51 * MS, false);
        // At 101 ms segment 10 is SACKed: start = segment 10 (delivered 2 > 0); send elapsed
        // 50 − 1 = 49 ms; ACK elapsed 101 − 0 (the previous start's time, as ns-3.37) =
        // 101 ms; delivered 3 − 2 = 1 segment over 101 ms.
        r.on_sack([(10, 11)], 101 * MS);
        let s = *r.generate_sample(1, 0, 9, Some(10 * MS));
        assert_eq!(s.prior_delivered_pkts, 2);
        assert_eq!(s.send_elapsed_ns, 49 * MS);
        assert_eq!(s.ack_elapsed_ns, 101 * MS);
        assert_eq!(s.delivered_pkts, 1);
        assert!((s.delivery_rate_pkts_per_s - 1e9 / (101.0 * MS as f64)).abs() < 1e-9);
        // The SACKed segment is not counted again when the cumulative ACK covers it.
        r.on_cumulative_ack(12, 120 * MS);
        assert_eq!(r.connection().delivered_pkts, 12);
    }

    #[test]
    fn short_interval_is_invalid_and_keeps_the_last_rate() {
        let mut r = sent_ten();
        r.on_cumulative_ack(2, 50 * MS);
        r.generate_sample(2, 0, 10, Some(10 * MS));
        r.on_cumulative_ack(3, 52 * MS);
        // Interval max(2 ms send, 52 ms ack) is below a 60 ms minimum RTT.
        let s = *r.generate_sample(1, 0, 8, Some(60 * MS));
        assert_eq!(s.interval_ns, 0);
        assert_eq!(s.prior_ns, None);
        assert!((s.delivery_rate_pkts_per_s - 40.0).abs() < 1e-9);
        // With no timing information the sample says so.
        r.on_cumulative_ack(3, 53 * MS);
        assert_eq!(r.generate_sample(0, 0, 7, Some(MS)).delivered_pkts, -1);
        // Before any RTT estimate every timed sample is invalid.
        let mut r = sent_ten();
        r.on_cumulative_ack(1, 50 * MS);
        assert_eq!(r.generate_sample(1, 0, 10, None).interval_ns, 0);
    }

    #[test]
    fn app_limited_samples_count_only_when_faster() {
        let mut r = sent_ten();
        r.on_cumulative_ack(2, 50 * MS);
        r.generate_sample(2, 0, 10, Some(10 * MS)); // 2 segments over 50 ms recorded
                                                    // Application-limited from now on, until 2 + 8 = 10 segments are delivered.
        r.check_app_limited(20.0, 8, true);
        assert_eq!(r.connection().app_limited_pkts, 10);
        r.on_sent(10, 60 * MS, false);
        r.on_cumulative_ack(11, 200 * MS);
        // 9 more segments; the start is segment 10 (app-limited, delivered 2, sent 60 ms in the
        // flight begun at 1 ms): 9 over max(59 ms, 200 − 0 ms) is 45/s, faster than the 40/s
        // recorded, so it is recorded.
        let s = *r.generate_sample(9, 0, 9, Some(10 * MS));
        assert!(s.is_app_limited);
        assert_eq!(s.send_elapsed_ns, 59 * MS);
        assert!((s.delivery_rate_pkts_per_s - 45.0).abs() < 1e-9);
        assert!(r.connection().rate_app_limited);
        // The bubble is gone once more than 10 segments are delivered.
        assert_eq!(r.connection().app_limited_pkts, 0);
        // No check when in flight fills cwnd.
        r.check_app_limited(5.0, 5, true);
        assert_eq!(r.connection().app_limited_pkts, 0);
        // A slower app-limited sample (1 segment over 950 ms) is not recorded.
        r.check_app_limited(20.0, 1, true);
        r.on_sent(11, 210 * MS, false);
        r.on_cumulative_ack(12, 1000 * MS);
        let s = *r.generate_sample(1, 0, 1, Some(10 * MS));
        assert!(s.is_app_limited && s.interval_ns == 950 * MS);
        assert!((s.delivery_rate_pkts_per_s - 45.0).abs() < 1e-9);
        assert_eq!(r.connection().rate_delivered_pkts, 9);
    }

    #[test]
    fn the_scoreboard_counts_deliveries_as_the_estimator() {
        use crate::tcp::scoreboard::Scoreboard;
        let mut full = sent_ten();
        let mut board = Scoreboard::new(3);
        board.count_deliveries();
        for seq in 0..10u32 {
            board.on_sent_new(u64::from(seq) * MS);
        }
        // SACKs (overlapping, one beyond what was sent), a resend of a SACKed segment and of
        // an unSACKed one, cumulative ACKs: the delivered counts agree after every step.
        type Step = fn(&mut RateEstimator, &mut Scoreboard);
        let steps: [Step; 7] = [
            |r, b| {
                r.on_sack([(3, 5), (7, 8)], 50 * MS);
                b.apply_sack([(3, 5), (7, 8)]);
            },
            |r, b| {
                r.on_sack([(4, 6), (9, 12)], 51 * MS);
                b.apply_sack([(4, 6), (9, 12)]);
            },
            |r, b| {
                r.on_cumulative_ack(2, 52 * MS);
                b.acknowledge(2);
            },
            |r, b| {
                r.on_sent(4, 53 * MS, false);
                b.on_retransmit(4, 53 * MS);
            },
            |r, b| {
                r.on_sent(2, 54 * MS, false);
                b.on_retransmit(2, 54 * MS);
            },
            |r, b| {
                r.on_cumulative_ack(6, 80 * MS);
                b.acknowledge(6);
            },
            |r, b| {
                r.on_cumulative_ack(10, 90 * MS);
                b.acknowledge(10);
            },
        ];
        for step in steps {
            step(&mut full, &mut board);
            assert_eq!(board.delivered_pkts(), full.connection().delivered_pkts);
        }
        assert_eq!(board.delivered_pkts(), 11);
        let s = RateSample::counts(3, 1, 7);
        assert_eq!(
            (s.acked_sacked_pkts, s.lost_pkts, s.prior_in_flight_pkts),
            (3, 1, 7)
        );
        assert_eq!(s.prior_ns, None);
    }
}
