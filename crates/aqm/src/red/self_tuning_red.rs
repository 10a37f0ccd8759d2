//! Self-tuning RED (Chen, Hu & Ji 2011, §4, Algorithm 1; "IRED" in the paper's Table 1):
//! gentle RED whose averaging weight w is set once from the stability bound eq. (3.12) (or
//! given), and whose p_max is re-estimated every δt by eq. (3.6) from the mean q̃ of q_avg
//! over the period. Both formulas live in [`super::red_tuning`], shared with the model.

use super::common_params::{
    GENTLE_DOC, IDLE_CORRECTION_DOC, MARK_P_MAX_DOC, MEAN_PKT_BYTES_DOC, SMALL_QUEUE_GUARD_DOC,
    SPACING_DOC,
};
use super::drop_decision::Spacing;
use super::random_early_detection::LinearCurve;
use super::red_core::{RedCore, RedFamily};
use super::red_tuning::{p_max_eq36, w_bound_eq312};
use crate::contract::{check_rate_bps, Aqm, LinkContext, ParamError};
use crate::params::{AqmParams, Bound, Limit, ParamDoc, Range, POSITIVE_FRACTION};
use serde::{Deserialize, Serialize};

/// Self-tuning RED parameters (§4 and §5.1 of the paper, thresholds in packets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfTuningRedParams {
    /// Minimum threshold q_min, packets.
    pub q_min_pkts: f64,
    /// Maximum threshold q_max, packets.
    pub q_max_pkts: f64,
    /// Target q_target of q_avg, packets, in (q_min, q_max).
    pub q_target_pkts: f64,
    /// p_max before the first update.
    pub p_max_initial: f64,
    /// Lower bound on p_max after an update; 0: none (Algorithm 1 as printed).
    pub p_max_min: f64,
    /// δt, the period over which q_avg is averaged before each p_max update, seconds.
    pub delta_t_s: f64,
    /// The estimate of the round-trip propagation delay d, milliseconds (eq. (3.6), (3.12)).
    pub d_ms: f64,
    /// The EWMA weight w per arrival, when `w_from_bound` is false.
    pub w: f64,
    /// Set w from eq. (3.12) instead: the model's bound divided by the packets sent per round
    /// trip at the target, n = d·C/M + q_target (§2.2: w_red ≈ w/n).
    pub w_from_bound: bool,
    /// Gentle region between q_max and 2·q_max (the paper's RED is gentle, §2.1).
    pub gentle: bool,
    /// Spacing of drops: `none`, `uniform` or `wait`.
    pub spacing: Spacing,
    /// Decay the average over idle periods.
    pub idle_correction: bool,
    /// M, the mean packet size, bytes: the link rate in packets per second.
    pub mean_pkt_bytes: f64,
    /// No early or forced drop while the queue holds at most one packet (ns-2, ns-3).
    pub ns_small_queue_guard: bool,
    /// With ECN, early signals are marks only while p_b is below this (ns-2's `mark_p_`).
    pub mark_p_max: f64,
}

impl Default for SelfTuningRedParams {
    /// §5.1: q_min 750, q_max 2250, q_target 1500 packets, p_max 0.01 to start, δt 2 s,
    /// d estimated at 150 ms, w = 0.00048814, 500-byte packets; ns-2's RED defaults otherwise
    /// (gentle, `wait` spacing, idle correction, small-queue guard).
    fn default() -> Self {
        SelfTuningRedParams {
            q_min_pkts: 750.0,
            q_max_pkts: 2250.0,
            q_target_pkts: 1500.0,
            p_max_initial: 0.01,
            p_max_min: 0.0,
            delta_t_s: 2.0,
            d_ms: 150.0,
            w: 0.00048814,
            w_from_bound: false,
            gentle: true,
            spacing: Spacing::Wait,
            idle_correction: true,
            mean_pkt_bytes: 500.0,
            ns_small_queue_guard: true,
            mark_p_max: 1.0,
        }
    }
}

impl AqmParams for SelfTuningRedParams {
    const AQM: &'static str = "self_tuning_red";
    const TITLE: &'static str = "Self-tuning RED";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "q_min_pkts",
            "packets",
            Range::Number(
                Bound::closed(0.0),
                Bound::at(Limit::Mirror("q_target_pkts"), false),
            ),
            "minimum threshold q_min",
        ),
        ParamDoc::new(
            "q_max_pkts",
            "packets",
            Range::Greater("q_target_pkts"),
            "maximum threshold q_max",
        ),
        ParamDoc::new(
            "q_target_pkts",
            "packets",
            Range::Between(Limit::Param("q_min_pkts"), Limit::Mirror("q_max_pkts")),
            "target of q_avg, which eq. (3.6) steers p_max towards",
        ),
        ParamDoc::new(
            "p_max_initial",
            "",
            POSITIVE_FRACTION,
            "p_max before the first update",
        ),
        ParamDoc::new(
            "p_max_min",
            "",
            Range::Fraction(
                Bound::closed(0.0),
                Bound::at(Limit::Param("p_max_initial"), true),
            ),
            "lower bound on p_max after an update (0: none, as the paper's Algorithm 1)",
        ),
        ParamDoc::new(
            "delta_t_s",
            "s",
            Range::Number(Bound::open(0.0), Bound::closed(1e6)),
            "period δt: p_max re-estimated by eq. (3.6) from the mean q_avg over it",
        ),
        ParamDoc::new(
            "d_ms",
            "ms",
            Range::Number(Bound::open(0.0), Bound::closed(1e9)),
            "estimate of the round-trip propagation delay d",
        ),
        ParamDoc::new(
            "w",
            "",
            POSITIVE_FRACTION,
            "weight of q_avg per arrival (unless w_from_bound)",
        ),
        ParamDoc::new(
            "w_from_bound",
            "",
            Range::Flag,
            "w = eq. (3.12)'s bound / packets per round trip (d·C/M + q_target)",
        ),
        GENTLE_DOC,
        SPACING_DOC,
        IDLE_CORRECTION_DOC,
        MEAN_PKT_BYTES_DOC,
        SMALL_QUEUE_GUARD_DOC,
        MARK_P_MAX_DOC,
    ];

    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(SelfTuningRed::new(self, link.rate_bps)?))
    }
}

/// The running mean of q_avg over the current period δt (Algorithm 1's `sum`, `n`, `L time`).
#[derive(Clone, Debug, Default)]
struct PeriodMean {
    sum_pkts: f64,
    n: u64,
    /// When p_max was last computed, ns.
    last_ns: u64,
}

/// Counters kept by self-tuning RED.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SelfTuningRedStats {
    /// p_max updates by eq. (3.6).
    pub updates: u64,
    /// Periods whose mean q̃ was at or below q_min, where eq. (3.6) does not apply and p_max
    /// was kept.
    pub skipped: u64,
    /// Updates whose eq. (3.6) value was above 1 and was capped.
    pub capped: u64,
    /// Updates whose eq. (3.6) value was below `p_max_min` and was raised to it.
    pub floored: u64,
}

/// Self-tuning RED state machine.
#[derive(Clone, Debug)]
pub struct SelfTuningRed {
    params: SelfTuningRedParams,
    /// C/M, packets per second.
    capacity_pkts_per_s: f64,
    w: f64,
    delta_t_ns: u64,
    curve: LinearCurve,
    core: RedCore,
    period: PeriodMean,
    stats: SelfTuningRedStats,
}

impl SelfTuningRed {
    /// Self-tuning RED with validated parameters on a link of `rate_bps`.
    pub fn new(params: SelfTuningRedParams, rate_bps: f64) -> Result<Self, ParamError> {
        params.validate()?;
        check_rate_bps(rate_bps)?;
        let capacity_pkts_per_s = rate_bps / (8.0 * params.mean_pkt_bytes);
        let w = if params.w_from_bound {
            Self::w_from_bound(&params, capacity_pkts_per_s)
        } else {
            params.w
        };
        Ok(SelfTuningRed {
            capacity_pkts_per_s,
            w,
            delta_t_ns: ((params.delta_t_s * 1e9).round() as u64).max(1),
            curve: LinearCurve {
                q_min_pkts: params.q_min_pkts,
                q_max_pkts: params.q_max_pkts,
                p_max: params.p_max_initial,
                gentle: params.gentle,
            },
            core: RedCore::new(
                w,
                params.idle_correction,
                params.spacing,
                false,
                params.mean_pkt_bytes,
                params.ns_small_queue_guard,
            )
            .with_mark_p_max(params.mark_p_max),
            period: PeriodMean::default(),
            stats: SelfTuningRedStats::default(),
            params,
        })
    }

    /// Eq. (3.12)'s bound on the model's w, turned into a weight per arrival by dividing by
    /// the packets sent per round trip at the target, n = d·C/M + q_target (§2.2).
    fn w_from_bound(params: &SelfTuningRedParams, capacity_pkts_per_s: f64) -> f64 {
        let bdp_pkts = params.d_ms / 1e3 * capacity_pkts_per_s;
        let bound = w_bound_eq312(params.q_min_pkts, params.q_target_pkts, bdp_pkts);
        (bound / (bdp_pkts + params.q_target_pkts)).min(1.0)
    }

    /// The parameters in force.
    pub fn params(&self) -> &SelfTuningRedParams {
        &self.params
    }

    /// The counters.
    pub fn stats(&self) -> &SelfTuningRedStats {
        &self.stats
    }

    /// The averaging weight in force (given, or from eq. (3.12)).
    pub fn w(&self) -> f64 {
        self.w
    }

    /// The p_max in force.
    pub fn p_max(&self) -> f64 {
        self.curve.p_max
    }

    /// Algorithm 1 at each q_avg update: add q_avg to the period's sum; once more than δt has
    /// passed since the last computation, set p_max by eq. (3.6) from the period's mean q̃
    /// (capped at 1, raised to `p_max_min`) and start a new period. With q̃ ≤ q_min eq. (3.6) does not apply (its K,
    /// eq. (3.5), is estimated from the drop probability at q̃, which is 0 there, and the
    /// formula would set p_max ≤ 0, from which the multiplicative update could never
    /// recover): p_max is kept. **Reconstruction**: the paper assumes q̃ ∈ [q_min, q_max].
    pub fn observe(&mut self, now_ns: u64, q_avg_pkts: f64) {
        let period = &mut self.period;
        period.sum_pkts += q_avg_pkts;
        period.n += 1;
        if now_ns <= period.last_ns + self.delta_t_ns {
            return;
        }
        let q_mean = period.sum_pkts / period.n as f64;
        *period = PeriodMean {
            last_ns: now_ns,
            ..PeriodMean::default()
        };
        let p = &self.params;
        if q_mean <= p.q_min_pkts {
            self.stats.skipped += 1;
            return;
        }
        let next = p_max_eq36(
            self.curve.p_max,
            q_mean,
            p.q_min_pkts,
            p.q_target_pkts,
            p.d_ms / 1e3,
            self.capacity_pkts_per_s,
        );
        assert!(next > 0.0, "p_max {next} is not a positive number");
        self.stats.capped += u64::from(next > 1.0);
        self.stats.floored += u64::from(next < p.p_max_min);
        self.stats.updates += 1;
        self.curve.p_max = next.clamp(p.p_max_min, 1.0);
    }
}

impl RedFamily for SelfTuningRed {
    type Curve = LinearCurve;
    const NAME: &'static str = "self_tuning_red";
    const PROBE_NAMES: &'static [&'static str] = &["q_avg", "p", "p_max"];

    fn core(&self) -> &RedCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut RedCore {
        &mut self.core
    }

    fn curve(&self) -> &LinearCurve {
        &self.curve
    }

    fn after_average(&mut self, now_ns: u64, q_avg_pkts: f64) {
        self.observe(now_ns, q_avg_pkts);
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend([
            self.core.q_avg_pkts(),
            self.core.p(&self.curve),
            self.curve.p_max,
        ]);
    }
}

#[cfg(test)]
mod tests;
