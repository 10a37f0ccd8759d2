//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Baker & White, RFC 8033,
//! 2017), with the options the ns-3.37 `PieQueueDisc` exposes. A timer updates the drop
//! probability every `t_update` from an estimate of the queueing delay (RFC 8033 §4.2); each
//! arrival is dropped (or marked) at random with that probability, except during a burst
//! allowance and when the queue is short (§4.1, §4.4).

use crate::contract::{
    Aqm, DequeueVerdict, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView,
};
use crate::params::{AqmParams, Bound, ParamDoc, Range, DURATION_MS, FRACTION, NON_NEGATIVE};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

mod rules;
pub use rules::{BurstRule, ShortQueueRule};
use rules::{BurstState, BURST_RESET_TIMEOUT_NS};

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
    /// Arming of the burst allowance and p while it lasts: `ns3` or `rfc8033`.
    pub burst_rule: BurstRule,
    /// Short-queue test of the no-drop guard: `ns3` (packets for a packet-counted buffer)
    /// or `rfc8033` (bytes).
    pub short_queue_rule: ShortQueueRule,
}

impl Default for PieParams {
    /// The ns-3.37 `PieQueueDisc` defaults, which are RFC 8033's: target 15 ms (§4.2
    /// QDELAY_REF), T_UPDATE 15 ms, alpha 0.125 and beta 1.25 per second (§4.2), MAX_BURST
    /// 150 ms (§4.4), mean packet 1000 bytes (ns-3 `MeanPktSize`), DQ_THRESHOLD 16384 bytes
    /// (§5.2 = 2^14), timestamp delay (ns-3 `UseDequeueRateEstimator` false), cap drop
    /// adjustment on (ns-3 `UseCapDropAdjustment` true), no de-randomisation (ns-3
    /// `UseDerandomization` false), ECN threshold 0.1 (§5.1, ns-3 `MarkEcnThreshold`), and
    /// ns-3's burst allowance and short-queue test.
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
            burst_rule: BurstRule::Ns3,
            short_queue_rule: ShortQueueRule::Ns3,
        }
    }
}

impl AqmParams for PieParams {
    const AQM: &'static str = "pie";
    const TITLE: &'static str = "PIE";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "target_ms",
            "ms",
            DURATION_MS,
            "QDELAY_REF: the target queueing delay",
        ),
        ParamDoc::new(
            "t_update_ms",
            "ms",
            DURATION_MS,
            "T_UPDATE: period of the drop-probability update",
        ),
        ParamDoc::new(
            "alpha",
            "1/s",
            NON_NEGATIVE,
            "weight of the deviation of the delay from target",
        ),
        ParamDoc::new("beta", "1/s", NON_NEGATIVE, "weight of the delay trend"),
        ParamDoc::new(
            "max_burst_ms",
            "ms",
            Range::Number(Bound::closed(0.0), Bound::closed(1e9)),
            "MAX_BURST: the burst allowance, no early drops while it lasts",
        ),
        ParamDoc::new(
            "mean_pkt_bytes",
            "bytes",
            Range::Count(1),
            "MEAN_PKTSIZE: no early drop while at most twice this is queued",
        ),
        ParamDoc::new(
            "dq_threshold_bytes",
            "bytes",
            Range::Count(1),
            "DQ_THRESHOLD: bytes per measurement cycle of the dequeue-rate estimator",
        ),
        ParamDoc::new(
            "use_dequeue_rate_estimator",
            "",
            Range::Flag,
            "delay = queue bytes / measured dequeue rate instead of the sojourn time",
        ),
        ParamDoc::new(
            "use_cap_drop_adjustment",
            "",
            Range::Flag,
            "cap the increase of p at 0.02 per update while p >= 0.1",
        ),
        ParamDoc::new(
            "use_derandomization",
            "",
            Range::Flag,
            "de-randomise the drops with an accumulated probability",
        ),
        ParamDoc::new(
            "ecn_max_p",
            "",
            FRACTION,
            "early signals may be ECN marks only while p <= this; above it PIE drops",
        ),
        ParamDoc::new(
            "burst_rule",
            "",
            Range::Choice(&["ns3", "rfc8033"]),
            "burst allowance: ns3 (armed by an arrival, p held at 0, re-armed after 1.5 s quiet)",
        ),
        ParamDoc::new(
            "short_queue_rule",
            "",
            Range::Choice(&["ns3", "rfc8033"]),
            "no-drop short queue: ns3 (<= 2 packets, bytes if limit_bytes > 0) or rfc8033 (bytes)",
        ),
    ];

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Pie::new(self)?))
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
    /// ns-3's burst state.
    burst_state: BurstState,
    /// Quiet updates counted in [`BurstState::InBurst`].
    burst_reset: u64,
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
        let burst_rule = params.burst_rule;
        Ok(Pie {
            target_ns: ms_to_ns(params.target_ms).max(1),
            t_update_ns: ms_to_ns(params.t_update_ms).max(1),
            max_burst_ns,
            params,
            vars: PieVars {
                p: 0.0,
                qdelay_old_ns: 0,
                sample_ns: 0,
                // RFC 8033 §4.4: burst_allowance is initialised to MAX_BURST; ns-3 arms it
                // at the first arrival.
                burst_allowance_ns: match burst_rule {
                    BurstRule::Ns3 => 0,
                    BurstRule::Rfc8033 => max_burst_ns,
                },
                burst_state: BurstState::NoBurst,
                burst_reset: 0,
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
    /// With the ns-3 rule p stays 0 while burst allowance remains, and the allowance is not
    /// reset here but marked for re-arming ([`Pie::track_burst`]).
    ///
    /// Panics if p is not a probability (a NaN must stop the run).
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
        let held = self.params.burst_rule == BurstRule::Ns3 && v.burst_allowance_ns > 0;
        let mut p = if held { 0.0 } else { v.p + dp };
        if qdelay_ns == 0 && v.qdelay_old_ns == 0 {
            p *= 0.98;
        }
        v.p = p.clamp(0.0, 1.0);
        assert!(
            (0.0..=1.0).contains(&v.p),
            "drop probability {} is not in [0, 1]",
            v.p
        );

        v.burst_allowance_ns = v.burst_allowance_ns.saturating_sub(self.t_update_ns);
        let quiet =
            2 * qdelay_ns < self.target_ns && 2 * v.qdelay_old_ns < self.target_ns && v.p == 0.0;
        if self.params.burst_rule == BurstRule::Ns3 {
            self.track_burst(quiet);
        } else if quiet {
            v.burst_allowance_ns = self.max_burst_ns;
        }
        let v = &mut self.vars;
        if quiet && self.params.use_dequeue_rate_estimator && !rate_unknown {
            // ns-3.37 forgets the measured rate when the queue has gone quiet.
            v.dq = DequeueRate::default();
        }
        v.qdelay_old_ns = qdelay_ns;
        self.stats.updates += 1;
    }

    /// ns-3.37's re-arming of the burst allowance, at each update after the allowance has
    /// shrunk: once it has run out at a quiet update the state goes to `InBurst`; each further
    /// quiet update counts, any other restarts the count, and more than ⌊1.5 s / T_UPDATE⌋ of
    /// them return it to `NoBurst`, so that the next arrival arms MAX_BURST again.
    fn track_burst(&mut self, quiet: bool) {
        let v = &mut self.vars;
        let limit = BURST_RESET_TIMEOUT_NS / self.t_update_ns;
        if quiet && v.burst_allowance_ns == 0 {
            match v.burst_state {
                BurstState::Protecting => {
                    v.burst_state = BurstState::InBurst;
                    v.burst_reset = 0;
                }
                BurstState::InBurst => {
                    v.burst_reset += 1;
                    if v.burst_reset > limit {
                        v.burst_reset = 0;
                        v.burst_state = BurstState::NoBurst;
                    }
                }
                BurstState::NoBurst => {}
            }
        } else if v.burst_state == BurstState::InBurst {
            v.burst_reset = 0;
        }
    }

    /// Whether the queue is short enough that no early drop happens (RFC 8033 §4.1).
    fn short_queue(&self, queue: &QueueView) -> bool {
        let bytes = queue.len_bytes <= 2 * u64::from(self.params.mean_pkt_bytes);
        match self.params.short_queue_rule {
            ShortQueueRule::Ns3 if queue.limit_bytes == 0 => queue.len_pkts <= 2,
            _ => bytes,
        }
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

    /// PIE drops on arrival only (RFC 8033 §4.1); departures feed its rate estimator.
    fn decides_at_dequeue(&self) -> bool {
        false
    }

    /// RFC 8033 §4.1 and §4.4: no early drop while burst allowance remains, nor while
    /// (qdelay_old < QDELAY_REF/2 and p < 0.2), nor while the queue is short (at most
    /// 2·MEAN_PKTSIZE bytes, or with the ns-3 rule at most 2 packets in a packet-counted
    /// buffer); otherwise drop with probability p. With the ns-3 burst rule an arrival that
    /// finds the allowance unarmed arms it to MAX_BURST and is then judged as usual. The signal is an early drop
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
        if self.params.burst_rule == BurstRule::Ns3 && self.vars.burst_state == BurstState::NoBurst
        {
            self.vars.burst_state = BurstState::Protecting;
            self.vars.burst_allowance_ns = self.max_burst_ns;
        }
        let low_delay = 2 * self.vars.qdelay_old_ns < self.target_ns && self.vars.p < 0.2;
        if low_delay || self.short_queue(queue) {
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
mod tests;
