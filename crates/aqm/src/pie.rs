//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Baker & White, RFC 8033,
//! 2017), with the options the ns-3.37 `PieQueueDisc` exposes. A timer updates the drop
//! probability every `t_update` from an estimate of the queueing delay (RFC 8033 §4.2); each
//! arrival is dropped (or marked) at random with that probability, except during a burst
//! allowance and when the queue is short (§4.1, §4.4).

use crate::contract::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, ParamError, QueueView};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Largest time parameter accepted, milliseconds (about 11.6 days).
const MAX_TIME_MS: f64 = 1e9;

/// PIE parameters (RFC 8033 §4 and §5 names; ns-3.37 `PieQueueDisc` attributes in brackets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PieParams {
    /// QDELAY_REF, the target queueing delay, milliseconds (ns-3 attribute `QueueDelayReference`).
    pub target_ms: f64,
    /// T_UPDATE, the period of the drop-probability update, milliseconds (ns-3 attribute `Tupdate`).
    pub t_update_ms: f64,
    /// alpha, weight of the deviation from target, per second (ns-3 attribute `A`).
    pub alpha: f64,
    /// beta, weight of the delay trend, per second (ns-3 attribute `B`).
    pub beta: f64,
    /// MAX_BURST, the burst allowance, milliseconds (ns-3 attribute `MaxBurstAllowance`).
    pub max_burst_ms: f64,
    /// MEAN_PKTSIZE: no early drop while the queue holds at most twice this many bytes
    /// (ns-3 attribute `MeanPktSize`).
    pub mean_pkt_bytes: u32,
    /// DQ_THRESHOLD of the dequeue-rate estimator, bytes (ns-3 attribute `DequeueThreshold`).
    pub dq_threshold_bytes: u32,
    /// Estimate the delay as queue bytes / measured dequeue rate (RFC 8033 §4.3, §5.2)
    /// instead of from the sojourn time of departing packets (ns-3 attribute `UseDequeueRateEstimator`).
    pub use_dequeue_rate_estimator: bool,
    /// Cap the increase of p at 0.02 per update while p ≥ 0.1 (RFC 8033 §5.5)
    /// (ns-3 attribute `UseCapDropAdjustment`).
    pub use_cap_drop_adjustment: bool,
    /// De-randomise the drops with an accumulated probability (RFC 8033 §5.4)
    /// (ns-3 attribute `UseDerandomization`).
    pub use_derandomization: bool,
    /// Early signals may be ECN marks only while p ≤ this; above it PIE drops even
    /// ECN-capable packets (RFC 8033 §5.1) (ns-3 attribute `MarkEcnThreshold`).
    pub ecn_max_p: f64,
}

impl Default for PieParams {
    /// The ns-3.37 `PieQueueDisc` defaults, which are RFC 8033's: target 15 ms (§4.2
    /// QDELAY_REF), T_UPDATE 15 ms, alpha 0.125 and beta 1.25 per second (§4.2), MAX_BURST
    /// 150 ms (§4.4), mean packet 1000 bytes (ns-3 `MeanPktSize`), DQ_THRESHOLD 16384 bytes
    /// (§5.2 = 2^14), timestamp delay (ns-3 `UseDequeueRateEstimator` false), cap drop
    /// adjustment on (ns-3 `UseCapDropAdjustment` true), no de-randomisation (ns-3
    /// `UseDerandomization` false), ECN threshold 0.1 (§5.1, ns-3 `MarkEcnThreshold`).
    fn default() -> Self {
        PieParams {
            target_ms: 15.0,
            t_update_ms: 15.0,
            alpha: 0.125,
            beta: 1.25,
            max_burst_ms: 150.0,
            mean_pkt_bytes: 1000,
            dq_threshold_bytes: 16384,
            use_dequeue_rate_estimator: false,
            use_cap_drop_adjustment: true,
            use_derandomization: false,
            ecn_max_p: 0.1,
        }
    }
}

/// Milliseconds to integer nanoseconds, rounded.
fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

/// Nanoseconds to seconds.
fn ns_to_s(ns: u64) -> f64 {
    ns as f64 / 1e9
}

impl PieParams {
    /// Check every parameter against its allowed range.
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.target_ms >= 1e-6 && self.target_ms <= MAX_TIME_MS) {
            return Err(ParamError::new(
                "target_ms",
                "must be a number in [0.000001, 1e9] (at least 1 ns)",
            ));
        }
        if !(self.t_update_ms >= 1e-6 && self.t_update_ms <= MAX_TIME_MS) {
            return Err(ParamError::new(
                "t_update_ms",
                "must be a number in [0.000001, 1e9] (at least 1 ns)",
            ));
        }
        if !(self.alpha >= 0.0 && self.alpha.is_finite()) {
            return Err(ParamError::new("alpha", "must be a number >= 0"));
        }
        if !(self.beta >= 0.0 && self.beta.is_finite()) {
            return Err(ParamError::new("beta", "must be a number >= 0"));
        }
        if !(self.max_burst_ms >= 0.0 && self.max_burst_ms <= MAX_TIME_MS) {
            return Err(ParamError::new(
                "max_burst_ms",
                "must be a number in [0, 1e9]",
            ));
        }
        if self.mean_pkt_bytes == 0 {
            return Err(ParamError::new("mean_pkt_bytes", "must be at least 1"));
        }
        if self.dq_threshold_bytes == 0 {
            return Err(ParamError::new("dq_threshold_bytes", "must be at least 1"));
        }
        if !(self.ecn_max_p >= 0.0 && self.ecn_max_p <= 1.0) {
            return Err(ParamError::new("ecn_max_p", "must be in [0, 1]"));
        }
        Ok(())
    }
}

/// The dequeue-rate estimator of RFC 8033 §5.2 as ns-3.37 codes it: a measurement cycle starts
/// when at least DQ_THRESHOLD bytes are queued and ends once DQ_THRESHOLD bytes have left.
#[derive(Clone, Debug, Default)]
struct DequeueRate {
    in_measurement: bool,
    /// Bytes departed since the cycle started.
    count_bytes: u64,
    /// Start of the cycle, ns.
    start_ns: u64,
    /// Averaged dequeue rate, bytes per second; 0 while unknown.
    avg_bytes_per_s: f64,
}

/// PIE controller state (RFC 8033 pseudo-code variables ending in `_`).
#[derive(Clone, Debug)]
struct PieVars {
    /// `drop_prob_`.
    p: f64,
    /// `qdelay_old_`: the delay estimate of the last update, ns.
    qdelay_old_ns: u64,
    /// Latest timestamp sample (`current_qdelay` of the pseudo-code), ns.
    sample_ns: u64,
    /// `burst_allowance_`, ns.
    burst_allowance_ns: u64,
    /// `accu_prob_` (de-randomisation).
    accu_prob: f64,
    /// When the next update is due, ns.
    next_update_ns: u64,
    dq: DequeueRate,
}

/// Counters kept by PIE.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PieStats {
    /// Probability updates run.
    pub updates: u64,
    /// [`EnqueueVerdict::EarlyDrop`] verdicts (p ≤ `ecn_max_p`: the host may mark).
    pub early_signals: u64,
    /// [`EnqueueVerdict::ForcedDrop`] verdicts (p above `ecn_max_p`).
    pub forced_drops: u64,
}

/// PIE state machine.
#[derive(Clone, Debug)]
pub struct Pie {
    params: PieParams,
    target_ns: u64,
    t_update_ns: u64,
    max_burst_ns: u64,
    vars: PieVars,
    stats: PieStats,
}

impl Pie {
    /// A PIE queue manager with validated parameters. The first probability update is due at
    /// time 0 (ns-3's `Supdate` default), then every `t_update_ms`.
    pub fn new(params: PieParams) -> Result<Self, ParamError> {
        params.validate()?;
        let max_burst_ns = ms_to_ns(params.max_burst_ms);
        Ok(Pie {
            target_ns: ms_to_ns(params.target_ms).max(1),
            t_update_ns: ms_to_ns(params.t_update_ms).max(1),
            max_burst_ns,
            params,
            vars: PieVars {
                p: 0.0,
                qdelay_old_ns: 0,
                sample_ns: 0,
                // RFC 8033 §4.4: burst_allowance is initialised to MAX_BURST.
                burst_allowance_ns: max_burst_ns,
                accu_prob: 0.0,
                next_update_ns: 0,
                dq: DequeueRate::default(),
            },
            stats: PieStats::default(),
        })
    }

    /// The parameters in force.
    pub fn params(&self) -> &PieParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &PieStats {
        &self.stats
    }

    /// The drop probability p.
    pub fn p(&self) -> f64 {
        self.vars.p
    }

    /// Auto-tuning of RFC 8033 §4.2: the raw Δp is divided by 2048, 512, 128, 32, 8 or 2 while
    /// p is below 10⁻⁶, 10⁻⁵, 10⁻⁴, 10⁻³, 10⁻² or 10⁻¹, and used whole above.
    fn scale(p: f64) -> f64 {
        if p < 0.000001 {
            2048.0
        } else if p < 0.00001 {
            512.0
        } else if p < 0.0001 {
            128.0
        } else if p < 0.001 {
            32.0
        } else if p < 0.01 {
            8.0
        } else if p < 0.1 {
            2.0
        } else {
            1.0
        }
    }

    /// The delay estimate for an update, ns, and whether the rate estimator has no rate yet.
    /// Timestamp method (RFC 8033 §4.3): the sojourn time of the last departing packet, 0 if it
    /// left the queue empty. Rate method (§4.3 Little's law, §5.2): queue bytes / averaged
    /// dequeue rate, 0 while no rate has been measured.
    fn qdelay_estimate(&self, queue: &QueueView) -> (u64, bool) {
        if !self.params.use_dequeue_rate_estimator {
            return (self.vars.sample_ns, false);
        }
        let rate = self.vars.dq.avg_bytes_per_s;
        if rate > 0.0 {
            ((queue.len_bytes as f64 / rate * 1e9).round() as u64, false)
        } else {
            (0, true)
        }
    }

    /// One probability update, RFC 8033 §4.2 (and §5.5, §4.4):
    /// Δp = α·(qdelay − QDELAY_REF) + β·(qdelay − qdelay_old), delays in seconds, scaled by
    /// [`Pie::scale`]; capped at 0.02 while p ≥ 0.1 (cap drop adjustment, §5.5); p ← p + Δp;
    /// p ← 0.98·p when both qdelay and qdelay_old are 0 (decay); p clamped to [0, 1].
    /// Then the burst allowance shrinks by T_UPDATE (bottomed at 0) and is reset to MAX_BURST
    /// when congestion has gone: p = 0 and both qdelay and qdelay_old below QDELAY_REF/2 (§4.4).
    fn update(&mut self, queue: &QueueView) {
        let (qdelay_ns, rate_unknown) = self.qdelay_estimate(queue);
        let PieParams {
            alpha,
            beta,
            use_cap_drop_adjustment,
            ..
        } = self.params;
        let v = &mut self.vars;
        let qdelay = ns_to_s(qdelay_ns);
        let qdelay_old = ns_to_s(v.qdelay_old_ns);
        let target = ns_to_s(self.target_ns);
        let mut dp = alpha * (qdelay - target) + beta * (qdelay - qdelay_old);
        dp /= Self::scale(v.p);
        if use_cap_drop_adjustment && v.p >= 0.1 && dp > 0.02 {
            dp = 0.02;
        }
        let mut p = v.p + dp;
        if qdelay_ns == 0 && v.qdelay_old_ns == 0 {
            p *= 0.98;
        }
        v.p = p.clamp(0.0, 1.0);

        v.burst_allowance_ns = v.burst_allowance_ns.saturating_sub(self.t_update_ns);
        let quiet =
            2 * qdelay_ns < self.target_ns && 2 * v.qdelay_old_ns < self.target_ns && v.p == 0.0;
        if quiet {
            v.burst_allowance_ns = self.max_burst_ns;
            if self.params.use_dequeue_rate_estimator && !rate_unknown {
                // ns-3.37 forgets the measured rate when the queue has gone quiet.
                v.dq = DequeueRate::default();
            }
        }
        v.qdelay_old_ns = qdelay_ns;
        self.stats.updates += 1;
    }

    /// Feed the dequeue-rate estimator with a departure (RFC 8033 §5.2 as ns-3.37 codes it):
    /// a cycle starts when at least DQ_THRESHOLD bytes remain queued; when DQ_THRESHOLD bytes
    /// have left, rate = bytes / cycle time and avg ← rate (first time) or ½·avg + ½·rate; a
    /// new cycle starts at once if more than DQ_THRESHOLD bytes remain.
    fn measure_departure(&mut self, now_ns: u64, size_bytes: u32, backlog_bytes: u64) {
        let threshold = u64::from(self.params.dq_threshold_bytes);
        let dq = &mut self.vars.dq;
        if backlog_bytes >= threshold && !dq.in_measurement {
            dq.start_ns = now_ns;
            dq.count_bytes = 0;
            dq.in_measurement = true;
        }
        if !dq.in_measurement {
            return;
        }
        dq.count_bytes += u64::from(size_bytes);
        if dq.count_bytes < threshold {
            return;
        }
        let elapsed_s = ns_to_s(now_ns.saturating_sub(dq.start_ns));
        if elapsed_s > 0.0 {
            let rate = dq.count_bytes as f64 / elapsed_s;
            dq.avg_bytes_per_s = if dq.avg_bytes_per_s == 0.0 {
                rate
            } else {
                0.5 * dq.avg_bytes_per_s + 0.5 * rate
            };
        }
        dq.count_bytes = 0;
        dq.in_measurement = backlog_bytes > threshold;
        if dq.in_measurement {
            dq.start_ns = now_ns;
        }
    }

    /// The random-drop decision of RFC 8033 §4.1 with de-randomisation (§5.4) when enabled:
    /// accu_prob is cleared when p = 0 and grows by p at each arrival that reaches this point;
    /// below 0.85 nothing is dropped, from 8.5 on the packet is dropped without a draw.
    fn drop_early(&mut self, rng: &mut Rng) -> bool {
        let p = self.vars.p;
        if self.params.use_derandomization {
            if p == 0.0 {
                self.vars.accu_prob = 0.0;
            }
            self.vars.accu_prob += p;
            if self.vars.accu_prob < 0.85 {
                return false;
            }
            if self.vars.accu_prob >= 8.5 {
                return true;
            }
        }
        rng.bernoulli(p)
    }
}

impl Aqm for Pie {
    fn name(&self) -> &'static str {
        "pie"
    }

    /// RFC 8033 §4.1 and §4.4: no early drop while burst allowance remains, nor while
    /// (qdelay_old < QDELAY_REF/2 and p < 0.2), nor while the queue holds at most
    /// 2·MEAN_PKTSIZE bytes; otherwise drop with probability p. The signal is an early drop
    /// ([`EnqueueVerdict::EarlyDrop`], which the host turns into an ECN mark for an
    /// ECN-capable packet on an ECN queue) except for an ECN-capable packet while
    /// p > `ecn_max_p`, which is dropped regardless of ECN ([`EnqueueVerdict::ForcedDrop`],
    /// §5.1). A packet that is not ECN-capable is dropped either way, so its drop is an early
    /// one whatever p is, and the host's counts of early and forced drops stay meaningful.
    fn on_enqueue(
        &mut self,
        _now_ns: u64,
        pkt: PacketView,
        queue: &QueueView,
        rng: &mut Rng,
    ) -> EnqueueVerdict {
        if self.vars.burst_allowance_ns > 0 {
            return EnqueueVerdict::Accept;
        }
        let low_delay = 2 * self.vars.qdelay_old_ns < self.target_ns && self.vars.p < 0.2;
        let short_queue = queue.len_bytes <= 2 * u64::from(self.params.mean_pkt_bytes);
        if low_delay || short_queue {
            return EnqueueVerdict::Accept;
        }
        if !self.drop_early(rng) {
            return EnqueueVerdict::Accept;
        }
        self.vars.accu_prob = 0.0;
        if !pkt.ect || self.vars.p <= self.params.ecn_max_p {
            self.stats.early_signals += 1;
            EnqueueVerdict::EarlyDrop
        } else {
            self.stats.forced_drops += 1;
            EnqueueVerdict::ForcedDrop
        }
    }

    /// PIE decides at arrival only; departures feed the delay estimate.
    fn on_dequeue(
        &mut self,
        now_ns: u64,
        sojourn_ns: u64,
        pkt: PacketView,
        queue: &QueueView,
        _rng: &mut Rng,
    ) -> DequeueVerdict {
        if self.params.use_dequeue_rate_estimator {
            self.measure_departure(now_ns, pkt.size_bytes, queue.len_bytes);
        } else {
            self.vars.sample_ns = if queue.len_bytes == 0 { 0 } else { sojourn_ns };
        }
        DequeueVerdict::Deliver
    }

    fn next_timer_ns(&self) -> Option<u64> {
        Some(self.vars.next_update_ns)
    }

    fn on_timer(&mut self, now_ns: u64, queue: &QueueView, _rng: &mut Rng) {
        self.update(queue);
        self.vars.next_update_ns = now_ns.saturating_add(self.t_update_ns);
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["p", "qdelay_ms", "burst_allowance_ms"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.push(self.vars.p);
        out.push(self.vars.qdelay_old_ns as f64 / 1e6);
        out.push(self.vars.burst_allowance_ns as f64 / 1e6);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    const PKT: PacketView = PacketView {
        size_bytes: 1000,
        ect: true,
    };

    fn queue(len_bytes: u64) -> QueueView {
        QueueView {
            len_pkts: len_bytes.div_ceil(1000) as u32,
            len_bytes,
            limit_pkts: 1000,
            limit_bytes: 0,
            rate_bps: 10e6,
        }
    }

    fn new_pie() -> Pie {
        Pie::new(PieParams::default()).unwrap()
    }

    /// Record a timestamp sample (a departure with `sojourn_ms`, queue left non-empty) and run
    /// one update at `now_ns`.
    fn update_with(pie: &mut Pie, now_ns: u64, sojourn_ms: f64) {
        let mut rng = Rng::from_seed(1);
        let sojourn_ns = ms_to_ns(sojourn_ms);
        assert_eq!(
            pie.on_dequeue(now_ns, sojourn_ns, PKT, &queue(10_000), &mut rng),
            DequeueVerdict::Deliver
        );
        pie.on_timer(now_ns, &queue(10_000), &mut rng);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    /// Δp before scaling for qdelay, qdelay_old in seconds, default α, β and 15 ms target.
    fn raw(q: f64, q_old: f64) -> f64 {
        0.125 * (q - 0.015) + 1.25 * (q - q_old)
    }

    #[test]
    fn timer_runs_at_zero_then_every_t_update() {
        let mut pie = new_pie();
        assert_eq!(pie.next_timer_ns(), Some(0));
        pie.on_timer(0, &queue(0), &mut Rng::from_seed(1));
        assert_eq!(pie.next_timer_ns(), Some(15 * MS));
        pie.on_timer(15 * MS, &queue(0), &mut Rng::from_seed(1));
        assert_eq!(pie.next_timer_ns(), Some(30 * MS));
        assert_eq!(pie.stats().updates, 2);
    }

    #[test]
    fn delta_p_follows_the_scaling_table() {
        // From p = 0, qdelay 30 ms after 0: Δp = (0.125·0.015 + 1.25·0.030)/2048.
        let mut pie = new_pie();
        update_with(&mut pie, 0, 30.0);
        let p1 = 0.039375 / 2048.0;
        assert!(close(pie.p(), p1), "{}", pie.p());
        assert!(close(p1, 1.922607421875e-5));
        // p1 is in [1e-5, 1e-4): Δp = 0.125·0.015 / 128 with qdelay steady at 30 ms.
        update_with(&mut pie, 15 * MS, 30.0);
        let p2 = p1 + 0.001875 / 128.0;
        assert!(close(pie.p(), p2), "{}", pie.p());
        // Each band of the table, entered by setting p.
        for (p0, divisor) in [
            (0.0000005, 2048.0),
            (0.000005, 512.0),
            (0.00005, 128.0),
            (0.0005, 32.0),
            (0.005, 8.0),
            (0.05, 2.0),
            (0.5, 1.0),
        ] {
            let mut pie = new_pie();
            pie.vars.p = p0;
            pie.vars.qdelay_old_ns = 20 * MS;
            update_with(&mut pie, 0, 22.0);
            // raw(0.022, 0.020) = 0.125·0.007 + 1.25·0.002 = 0.003375 (below the cap).
            let expect = p0 + raw(0.022, 0.020) / divisor;
            assert!(close(pie.p(), expect), "p0 {p0}: {} vs {expect}", pie.p());
        }
        // A falling delay gives a negative Δp.
        let mut pie = new_pie();
        pie.vars.p = 0.05;
        pie.vars.qdelay_old_ns = 40 * MS;
        update_with(&mut pie, 0, 20.0);
        assert!(close(pie.p(), 0.05 + raw(0.020, 0.040) / 2.0));
        assert!(close(pie.p(), 0.05 - 0.0121875));
    }

    #[test]
    fn cap_drop_adjustment_limits_the_increase_at_high_p() {
        // p = 0.15, qdelay 100 ms after 50 ms: raw Δp = 0.010625 + 0.0625 = 0.073125.
        let mut capped = new_pie();
        capped.vars.p = 0.15;
        capped.vars.qdelay_old_ns = 50 * MS;
        update_with(&mut capped, 0, 100.0);
        assert!(close(capped.p(), 0.17));
        let mut uncapped = Pie::new(PieParams {
            use_cap_drop_adjustment: false,
            ..PieParams::default()
        })
        .unwrap();
        uncapped.vars.p = 0.15;
        uncapped.vars.qdelay_old_ns = 50 * MS;
        update_with(&mut uncapped, 0, 100.0);
        assert!(close(uncapped.p(), 0.15 + 0.073125));
        // Below p = 0.1 there is no cap: 0.05 + 0.073125/2.
        let mut low = new_pie();
        low.vars.p = 0.05;
        low.vars.qdelay_old_ns = 50 * MS;
        update_with(&mut low, 0, 100.0);
        assert!(close(low.p(), 0.05 + 0.0365625));
    }

    #[test]
    fn probability_decays_when_the_queue_stays_empty() {
        let mut pie = new_pie();
        pie.vars.p = 0.5;
        // A departure that empties the queue is a zero delay sample.
        let mut rng = Rng::from_seed(1);
        pie.on_dequeue(0, 40 * MS, PKT, &queue(0), &mut rng);
        pie.on_timer(0, &queue(0), &mut rng);
        // Δp = 0.125·(0 − 0.015) = −0.001875 (p ≥ 0.1: unscaled), then ×0.98.
        assert!(close(pie.p(), (0.5 - 0.001875) * 0.98));
        let p1 = pie.p();
        pie.on_timer(15 * MS, &queue(0), &mut rng);
        assert!(close(pie.p(), (p1 - 0.001875) * 0.98));
    }

    #[test]
    fn probability_is_clamped_to_unit_interval() {
        let mut pie = new_pie();
        pie.vars.p = 0.99;
        pie.vars.qdelay_old_ns = 500 * MS;
        update_with(&mut pie, 0, 1000.0);
        assert_eq!(pie.p(), 1.0);
        let mut pie = pie_with_p(0.0000001);
        pie.vars.qdelay_old_ns = 500 * MS;
        update_with(&mut pie, 0, 1.0);
        assert_eq!(pie.p(), 0.0);
    }

    fn pie_with_p(p: f64) -> Pie {
        let mut pie = new_pie();
        pie.vars.p = p;
        pie
    }

    #[test]
    fn burst_allowance_blocks_drops_then_expires_after_max_burst() {
        let mut pie = new_pie();
        let mut rng = Rng::from_seed(7);
        let big = queue(100_000);
        // Congested from the start: 100 ms samples. Even with p forced to 1 nothing is dropped
        // while allowance remains: 150 → 135 → … → 15 ms after the updates at 0 … 120 ms.
        for k in 0..9u64 {
            update_with(&mut pie, k * 15 * MS, 100.0);
            assert_eq!(pie.vars.burst_allowance_ns, (150 - 15 * (k + 1)) * MS);
            pie.vars.p = 1.0;
            for _ in 0..100 {
                assert_eq!(
                    pie.on_enqueue(0, PKT, &big, &mut rng),
                    EnqueueVerdict::Accept
                );
            }
        }
        // The tenth update (t = 135 ms) uses up the 150 ms: drops start.
        update_with(&mut pie, 135 * MS, 100.0);
        assert_eq!(pie.vars.burst_allowance_ns, 0);
        pie.vars.p = 1.0;
        assert_eq!(
            pie.on_enqueue(0, PKT, &big, &mut rng),
            EnqueueVerdict::ForcedDrop
        );
        let mut out = Vec::new();
        pie.probe(&mut out);
        assert_eq!(out, vec![1.0, 100.0, 0.0]);
    }

    #[test]
    fn burst_allowance_is_reset_when_congestion_has_gone() {
        let mut pie = new_pie();
        for k in 0..12u64 {
            update_with(&mut pie, k * 15 * MS, 100.0);
        }
        assert_eq!(pie.vars.burst_allowance_ns, 0);
        // Delay back under target/2 while p is still > 0: no reset. (The first 5 ms update
        // also still has qdelay_old = 100 ms.)
        pie.vars.p = 0.5;
        update_with(&mut pie, 180 * MS, 5.0);
        update_with(&mut pie, 195 * MS, 5.0);
        assert!(pie.p() > 0.3);
        assert_eq!(pie.vars.burst_allowance_ns, 0);
        // p = 0 with qdelay and qdelay_old both < 7.5 ms: reset to MAX_BURST.
        pie.vars.p = 0.0;
        update_with(&mut pie, 210 * MS, 5.0);
        assert_eq!(pie.p(), 0.0);
        assert_eq!(pie.vars.burst_allowance_ns, 150 * MS);
    }

    #[test]
    fn short_queue_in_bytes_is_never_dropped() {
        let mut pie = pie_with_p(1.0);
        pie.vars.burst_allowance_ns = 0;
        pie.vars.qdelay_old_ns = 100 * MS;
        let mut rng = Rng::from_seed(3);
        // 2·MEAN_PKTSIZE = 2000 bytes, whatever the packet count.
        let mut q = queue(2000);
        q.len_pkts = 40;
        for _ in 0..1000 {
            assert_eq!(pie.on_enqueue(0, PKT, &q, &mut rng), EnqueueVerdict::Accept);
        }
        assert_eq!(
            pie.on_enqueue(0, PKT, &queue(2001), &mut rng),
            EnqueueVerdict::ForcedDrop
        );
    }

    #[test]
    fn low_delay_and_low_p_bypass_random_drops() {
        let mut pie = pie_with_p(0.19);
        pie.vars.burst_allowance_ns = 0;
        pie.vars.qdelay_old_ns = 7 * MS; // < 7.5 ms
        let mut rng = Rng::from_seed(3);
        for _ in 0..1000 {
            assert_eq!(
                pie.on_enqueue(0, PKT, &queue(100_000), &mut rng),
                EnqueueVerdict::Accept
            );
        }
        // Either condition failing re-enables drops.
        pie.vars.qdelay_old_ns = 7_500_000;
        let drops = (0..1000)
            .filter(|_| pie.on_enqueue(0, PKT, &queue(100_000), &mut rng) != EnqueueVerdict::Accept)
            .count();
        assert!(drops > 100, "{drops}");
    }

    #[test]
    fn drop_frequency_matches_p() {
        let mut pie = pie_with_p(0.05);
        pie.vars.burst_allowance_ns = 0;
        pie.vars.qdelay_old_ns = 30 * MS;
        let mut rng = Rng::from_seed(11);
        let n = 200_000;
        let drops = (0..n)
            .filter(|_| {
                pie.on_enqueue(0, PKT, &queue(50_000), &mut rng) == EnqueueVerdict::EarlyDrop
            })
            .count();
        let freq = drops as f64 / f64::from(n);
        assert!((freq - 0.05).abs() < 0.002, "frequency {freq}");
        assert_eq!(pie.stats().early_signals, drops as u64);
    }

    #[test]
    fn ecn_marks_only_up_to_the_threshold() {
        for (p, expect) in [
            (0.1, EnqueueVerdict::EarlyDrop),
            (0.100001, EnqueueVerdict::ForcedDrop),
            (0.6, EnqueueVerdict::ForcedDrop),
        ] {
            let mut pie = pie_with_p(p);
            pie.vars.burst_allowance_ns = 0;
            pie.vars.qdelay_old_ns = 30 * MS;
            let mut rng = Rng::from_seed(5);
            let verdicts: Vec<_> = (0..2000)
                .map(|_| pie.on_enqueue(0, PKT, &queue(50_000), &mut rng))
                .filter(|v| *v != EnqueueVerdict::Accept)
                .collect();
            assert!(!verdicts.is_empty());
            assert!(verdicts.iter().all(|v| *v == expect), "p {p}");
            // A packet that is not ECN-capable is an early drop at any p.
            let plain = PacketView { ect: false, ..PKT };
            assert!((0..2000)
                .map(|_| pie.on_enqueue(0, plain, &queue(50_000), &mut rng))
                .all(|v| v != EnqueueVerdict::ForcedDrop));
        }
    }

    #[test]
    fn derandomization_spaces_drops() {
        let params = PieParams {
            use_derandomization: true,
            ..PieParams::default()
        };
        let mut pie = Pie::new(params).unwrap();
        pie.vars.p = 0.1;
        pie.vars.burst_allowance_ns = 0;
        pie.vars.qdelay_old_ns = 30 * MS;
        let mut rng = Rng::from_seed(9);
        // accu_prob 0.1 … 0.8 stays below 0.85: no draw, no drop for 8 arrivals.
        let before = rng.clone();
        for _ in 0..8 {
            assert_eq!(
                pie.on_enqueue(0, PKT, &queue(50_000), &mut rng),
                EnqueueVerdict::Accept
            );
        }
        assert_eq!(rng.clone().next_u64(), before.clone().next_u64());
        // From 8.5 on the drop is certain, again without a draw; accu_prob then restarts.
        pie.vars.accu_prob = 8.45;
        assert_eq!(
            pie.on_enqueue(0, PKT, &queue(50_000), &mut rng),
            EnqueueVerdict::EarlyDrop
        );
        assert_eq!(rng.clone().next_u64(), before.clone().next_u64());
        assert_eq!(pie.vars.accu_prob, 0.0);
        // p = 0 clears the accumulator.
        pie.vars.accu_prob = 0.5;
        pie.vars.p = 0.0;
        pie.vars.qdelay_old_ns = 30 * MS;
        pie.on_enqueue(0, PKT, &queue(50_000), &mut rng);
        assert_eq!(pie.vars.accu_prob, 0.0);
    }

    #[test]
    fn dequeue_rate_estimator_gives_littles_law_delay() {
        let mut pie = Pie::new(PieParams {
            use_dequeue_rate_estimator: true,
            ..PieParams::default()
        })
        .unwrap();
        let mut rng = Rng::from_seed(1);
        // No rate yet: delay 0.
        pie.on_timer(0, &queue(20_000), &mut rng);
        assert_eq!(pie.vars.qdelay_old_ns, 0);
        // 1000-byte departures every ms with 20 kB behind them: the cycle starts at t = 1 ms
        // and ends at the 17th departure (17 000 ≥ 16 384 bytes) at t = 17 ms, after 16 ms:
        // rate = 17 000 / 0.016 = 1 062 500 B/s.
        for k in 1..=17u64 {
            pie.on_dequeue(k * MS, 0, PKT, &queue(20_000), &mut rng);
        }
        assert!(close(pie.vars.dq.avg_bytes_per_s, 1_062_500.0));
        // A new cycle started at once (20 000 > 16 384 bytes remain).
        assert!(pie.vars.dq.in_measurement);
        assert_eq!(pie.vars.dq.start_ns, 17 * MS);
        pie.on_timer(30 * MS, &queue(20_000), &mut rng);
        // 20 000 / 1 062 500 s = 18.823529… ms.
        assert_eq!(pie.vars.qdelay_old_ns, 18_823_529);
        // The second cycle: 17 000 bytes in 8.5 ms = 2 000 000 B/s; avg = ½·1 062 500 + ½·2 000 000.
        for k in 0..17u64 {
            pie.on_dequeue(17 * MS + (k + 1) * MS / 2, 0, PKT, &queue(20_000), &mut rng);
        }
        assert!(close(pie.vars.dq.avg_bytes_per_s, 1_531_250.0));
    }

    #[test]
    fn timestamp_delay_is_the_last_sojourn_or_zero_when_emptied() {
        let mut pie = new_pie();
        let mut rng = Rng::from_seed(1);
        pie.on_dequeue(MS, 12 * MS, PKT, &queue(3000), &mut rng);
        pie.on_timer(2 * MS, &queue(3000), &mut rng);
        assert_eq!(pie.vars.qdelay_old_ns, 12 * MS);
        pie.on_dequeue(3 * MS, 12 * MS, PKT, &queue(0), &mut rng);
        pie.on_timer(4 * MS, &queue(0), &mut rng);
        assert_eq!(pie.vars.qdelay_old_ns, 0);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let cases: [(PieParams, &str); 8] = [
            (
                PieParams {
                    target_ms: 0.0,
                    ..PieParams::default()
                },
                "target_ms",
            ),
            (
                PieParams {
                    t_update_ms: -1.0,
                    ..PieParams::default()
                },
                "t_update_ms",
            ),
            (
                PieParams {
                    alpha: f64::NAN,
                    ..PieParams::default()
                },
                "alpha",
            ),
            (
                PieParams {
                    beta: -0.1,
                    ..PieParams::default()
                },
                "beta",
            ),
            (
                PieParams {
                    max_burst_ms: f64::INFINITY,
                    ..PieParams::default()
                },
                "max_burst_ms",
            ),
            (
                PieParams {
                    mean_pkt_bytes: 0,
                    ..PieParams::default()
                },
                "mean_pkt_bytes",
            ),
            (
                PieParams {
                    dq_threshold_bytes: 0,
                    ..PieParams::default()
                },
                "dq_threshold_bytes",
            ),
            (
                PieParams {
                    ecn_max_p: 1.5,
                    ..PieParams::default()
                },
                "ecn_max_p",
            ),
        ];
        for (params, field) in cases {
            assert_eq!(Pie::new(params).unwrap_err().field, field);
        }
        assert!(Pie::new(PieParams {
            max_burst_ms: 0.0,
            ..PieParams::default()
        })
        .is_ok());
    }
}
