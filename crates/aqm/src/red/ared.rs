//! Adaptive RED (Floyd, Gummadi & Shenker 2001): RED whose p_max follows an AIMD rule every
//! `interval` to keep q_avg inside a target band, with thresholds and weight configured from a
//! target delay and the link rate as ns-3's RedQueueDisc does with ARED = true.

use super::common_params::{
    BYTE_MODE_DOC, GENTLE_DOC, IDLE_CORRECTION_DOC, MARK_P_MAX_DOC, MEAN_PKT_BYTES_DOC,
    SMALL_QUEUE_GUARD_DOC, SPACING_DOC,
};
use super::drop_decision::Spacing;
use super::random_early_detection::LinearCurve;
use super::red_core::{DropCurve, Periodic, RedCore, RedFamily};
use crate::contract::{check_rate_bps, Aqm, LinkContext, ParamError};
use crate::params::{AqmParams, Bound, Limit, ParamDoc, Range, POSITIVE, POSITIVE_FRACTION};
use serde::{Deserialize, Serialize};

/// When Adaptive RED adapts p_max.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AdaptAt {
    /// On a timer every `interval_s` (Floyd et al. 2001, Fig. 5).
    Timer,
    /// At an arrival, with the freshly updated q_avg, once more than `interval_s` has passed
    /// since p_max last changed (ns-3.37 RedQueueDisc: `now > m_lastSet + m_interval`, with
    /// `m_lastSet` set only when p_max changes).
    Arrival,
}

/// Adaptive RED parameters. A value of 0 for `q_min_pkts`, `q_max_pkts`, `w` or `bottom`
/// means "configure automatically" (Floyd et al. 2001, §5; ns-3.37 RedQueueDisc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AredParams {
    /// Target queueing delay, ms: sets the thresholds when they are automatic.
    pub target_delay_ms: f64,
    /// Minimum threshold, packets (0: max(5, target_delay·C/2)).
    pub q_min_pkts: f64,
    /// Maximum threshold, packets (0: 3·q_min).
    pub q_max_pkts: f64,
    /// EWMA weight (0: 1 − exp(−1/C), C in packets per second; neuron-comparison eq. (3)).
    pub w: f64,
    /// p_max before the first adaptation.
    pub p_max_initial: f64,
    /// Adaptation period, seconds.
    pub interval_s: f64,
    /// Additive increase step α (at most p_max/4 is added).
    pub alpha: f64,
    /// Multiplicative decrease factor β.
    pub beta: f64,
    /// Upper bound on p_max.
    pub top: f64,
    /// Lower bound on p_max (0: min(0.01, 8·mean_pkt_bytes·RTT/C_bps), ns-3.37's `Bottom`
    /// = 0; Floyd et al. 2001 use a fixed 0.01).
    pub bottom: f64,
    /// Round-trip time used for the automatic `bottom`, ms.
    pub rtt_ms: f64,
    /// Gentle region between q_max and 2·q_max (on in ARED).
    pub gentle: bool,
    /// Spacing of drops.
    pub spacing: Spacing,
    /// Byte mode.
    pub byte_mode: bool,
    /// Decay the average over idle periods.
    pub idle_correction: bool,
    /// Typical packet size, bytes (C in packets per second, idle correction, byte mode).
    pub mean_pkt_bytes: f64,
    /// The gentle region's slope is fixed by the initial p_max, as ns-2 and ns-3 compute it
    /// once at start-up; otherwise it follows the current p_max (Floyd et al. 2001).
    pub gentle_slope_from_initial_p_max: bool,
    /// When p_max is adapted: on a timer or at arrivals (ns-3).
    pub adapt_at: AdaptAt,
    /// No early or forced drop while the queue holds at most one packet (ns-2, ns-3).
    pub ns_small_queue_guard: bool,
    /// With ECN, early drops of ECN-capable packets are marks only while p_b is below this
    /// (ns-2's `mark_p_`); 1: wherever drops are not forced. As RED's.
    pub mark_p_max: f64,
}

impl Default for AredParams {
    /// ns-3.37 RedQueueDisc with ARED = true: TargetDelay 5 ms, Interval 0.5 s, Alpha 0.01,
    /// Beta 0.9, Top 0.5, automatic thresholds, weight and bottom, initial p_max 1/LInterm =
    /// 1/50, Rtt 100 ms, gentle with its slope fixed by the initial p_max, Wait, packet mode,
    /// adaptation checked at arrivals, no drops while at most one packet is queued,
    /// MeanPktSize set to 1000 B here.
    fn default() -> Self {
        AredParams {
            target_delay_ms: 5.0,
            q_min_pkts: 0.0,
            q_max_pkts: 0.0,
            w: 0.0,
            p_max_initial: 0.02,
            interval_s: 0.5,
            alpha: 0.01,
            beta: 0.9,
            top: 0.5,
            bottom: 0.0,
            rtt_ms: 100.0,
            gentle: true,
            spacing: Spacing::Wait,
            byte_mode: false,
            idle_correction: true,
            mean_pkt_bytes: 1000.0,
            ns_small_queue_guard: true,
            gentle_slope_from_initial_p_max: true,
            adapt_at: AdaptAt::Arrival,
            mark_p_max: 1.0,
        }
    }
}

/// Adaptive RED's step factors α and β, `(0, 1)`.
const OPEN_FRACTION: Range = Range::Fraction(Bound::open(0.0), Bound::open(1.0));

impl AqmParams for AredParams {
    const AQM: &'static str = "ared";
    const TITLE: &'static str = "ARED";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "target_delay_ms",
            "ms",
            POSITIVE,
            "target queueing delay: sets the thresholds when they are automatic",
        ),
        ParamDoc::new(
            "q_min_pkts",
            "packets",
            Range::Auto(Some("q_max_pkts"), &POSITIVE),
            "minimum threshold (0: max(5, target_delay·C/2), C in packets/s)",
        ),
        ParamDoc::new(
            "q_max_pkts",
            "packets",
            Range::Auto(Some("q_min_pkts"), &Range::Greater("q_min_pkts")),
            "maximum threshold (0: 3·q_min)",
        ),
        ParamDoc::new(
            "w",
            "",
            Range::Auto(None, &POSITIVE_FRACTION),
            "weight of q_avg per arrival (0: 1 − exp(−1/C), C in packets/s)",
        ),
        ParamDoc::new(
            "p_max_initial",
            "",
            POSITIVE_FRACTION,
            "p_max before the first adaptation",
        ),
        ParamDoc::new(
            "interval_s",
            "s",
            POSITIVE,
            "period of the adaptation of p_max",
        ),
        ParamDoc::new(
            "alpha",
            "",
            OPEN_FRACTION,
            "additive increase of p_max (at most p_max/4 is added)",
        ),
        ParamDoc::new(
            "beta",
            "",
            OPEN_FRACTION,
            "multiplicative decrease factor of p_max",
        ),
        ParamDoc::new("top", "", POSITIVE_FRACTION, "upper bound on p_max"),
        ParamDoc::new(
            "bottom",
            "",
            Range::Auto(
                None,
                &Range::Fraction(Bound::open(0.0), Bound::at(Limit::Param("top"), false)),
            ),
            "lower bound on p_max (0: min(0.01, 8·mean_pkt_bytes·RTT/rate in bit/s), as ns-3)",
        ),
        ParamDoc::new(
            "rtt_ms",
            "ms",
            POSITIVE,
            "round-trip time assumed by the automatic bottom",
        ),
        GENTLE_DOC,
        SPACING_DOC,
        BYTE_MODE_DOC,
        IDLE_CORRECTION_DOC,
        MEAN_PKT_BYTES_DOC,
        SMALL_QUEUE_GUARD_DOC,
        ParamDoc::new(
            "gentle_slope_from_initial_p_max",
            "",
            Range::Flag,
            "gentle slope fixed by p_max_initial (ns-2, ns-3) instead of the current p_max",
        ),
        ParamDoc::new(
            "adapt_at",
            "",
            Range::Choice(&["timer", "arrival"]),
            "adapt p_max on a timer every interval_s, or at the first arrival after it (ns-3)",
        ),
        MARK_P_MAX_DOC,
    ];

    /// q_min and q_max are automatic together or set together (the pairing their ranges
    /// state).
    fn validate_joint(&self) -> Result<(), ParamError> {
        if (self.q_min_pkts == 0.0) != (self.q_max_pkts == 0.0) {
            return Err(ParamError::new(
                "q_max_pkts",
                "q_min_pkts and q_max_pkts must both be set or both be 0 (automatic)",
            ));
        }
        Ok(())
    }

    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(Ared::new(self, link.rate_bps)?))
    }
}

/// The values ARED actually runs with, after automatic configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AredConfig {
    /// q_min, packets.
    pub q_min_pkts: f64,
    /// q_max, packets.
    pub q_max_pkts: f64,
    /// w.
    pub w: f64,
    /// Lower bound on p_max.
    pub bottom: f64,
}

impl AredParams {
    /// Resolve the automatic values for a link of `rate_bps` (Floyd et al. 2001, §5):
    /// q_min = max(5, target_delay·C/2), q_max = 3·q_min (so the target band's centre is
    /// target_delay·C), w = 1 − exp(−1/C), bottom = min(0.01, 8·S·RTT/rate), with C the link
    /// rate in packets of `mean_pkt_bytes` per second.
    pub fn configure(&self, rate_bps: f64) -> AredConfig {
        let c_pkts_per_s = rate_bps / (8.0 * self.mean_pkt_bytes);
        let (q_min, q_max) = if self.q_min_pkts == 0.0 {
            let q_min = (self.target_delay_ms * 1e-3 * c_pkts_per_s / 2.0).max(5.0);
            (q_min, 3.0 * q_min)
        } else {
            (self.q_min_pkts, self.q_max_pkts)
        };
        let w = if self.w == 0.0 {
            1.0 - (-1.0 / c_pkts_per_s).exp()
        } else {
            self.w
        };
        let bottom = if self.bottom == 0.0 {
            (8.0 * self.mean_pkt_bytes * self.rtt_ms * 1e-3 / rate_bps).min(0.01)
        } else {
            self.bottom
        };
        AredConfig {
            q_min_pkts: q_min,
            q_max_pkts: q_max,
            w,
            bottom,
        }
    }
}

/// ARED's drop curve: RED's, with the gentle region optionally drawn from a fixed p_max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AredCurve {
    /// The curve with the current p_max.
    pub linear: LinearCurve,
    /// The p_max that fixes the gentle slope, when it is not the current one.
    pub gentle_p_max: Option<f64>,
}

impl DropCurve for AredCurve {
    /// RED's curve with the current p_max below q_max; in the gentle region
    /// p = p₀ + (1 − p₀)(q_avg − q_max)/q_max with p₀ the initial p_max when the slope is fixed
    /// (ns-3.37 RedQueueDisc computes this line, `m_vC·q_avg + m_vD`, once at start-up), so the
    /// curve may jump at q_max once p_max has moved.
    fn probability(&self, q_avg_pkts: f64) -> f64 {
        let p = match self.gentle_p_max {
            Some(p0) if self.linear.gentle && q_avg_pkts >= self.linear.q_max_pkts => LinearCurve {
                p_max: p0,
                ..self.linear
            }
            .probability(q_avg_pkts),
            _ => self.linear.probability(q_avg_pkts),
        };
        // p_max may pass top, and 1, by up to α (ns-3 bounds p by 1 the same way).
        if p > 1.0 {
            1.0
        } else {
            p
        }
    }

    fn forced(&self, q_avg_pkts: f64) -> bool {
        self.linear.forced(q_avg_pkts)
    }
}

/// Adaptive RED state machine.
#[derive(Clone, Debug)]
pub struct Ared {
    params: AredParams,
    config: AredConfig,
    curve: AredCurve,
    core: RedCore,
    periodic: Periodic,
    /// When p_max last changed, ns (adaptation at arrivals).
    last_set_ns: u64,
}

impl Ared {
    /// Adaptive RED on a link of `rate_bps`.
    pub fn new(params: AredParams, rate_bps: f64) -> Result<Self, ParamError> {
        params.validate()?;
        check_rate_bps(rate_bps)?;
        let config = params.configure(rate_bps);
        Ok(Ared {
            curve: AredCurve {
                linear: LinearCurve {
                    q_min_pkts: config.q_min_pkts,
                    q_max_pkts: config.q_max_pkts,
                    p_max: params.p_max_initial,
                    gentle: params.gentle,
                },
                gentle_p_max: params
                    .gentle_slope_from_initial_p_max
                    .then_some(params.p_max_initial),
            },
            core: RedCore::new(
                config.w,
                params.idle_correction,
                params.spacing,
                params.byte_mode,
                params.mean_pkt_bytes,
                params.ns_small_queue_guard,
            )
            .with_mark_p_max(params.mark_p_max),
            periodic: Periodic::every_s(params.interval_s),
            last_set_ns: 0,
            config,
            params,
        })
    }

    /// The configuration in force (automatic values resolved).
    pub fn config(&self) -> AredConfig {
        self.config
    }

    /// Current p_max.
    pub fn p_max(&self) -> f64 {
        self.curve.linear.p_max
    }

    /// Drop probability for an averaged queue with the current p_max.
    pub fn drop_probability(&self, q_avg_pkts: f64) -> f64 {
        self.curve.probability(q_avg_pkts)
    }

    /// One adaptation step (Floyd et al. 2001, Fig. 5, as ns-3.37 codes it): with the target
    /// band [q_min + 0.4(q_max − q_min), q_max − 0.4(q_max − q_min)], below it p_max ← β·p_max
    /// while p_max > bottom; above it p_max ← p_max + min(α, p_max/4) while p_max < top.
    /// Returns whether p_max changed.
    pub fn adapt(&mut self, q_avg_pkts: f64) -> bool {
        let part = 0.4 * (self.config.q_max_pkts - self.config.q_min_pkts);
        let p_max = self.curve.linear.p_max;
        if q_avg_pkts < self.config.q_min_pkts + part && p_max > self.config.bottom {
            self.curve.linear.p_max = p_max * self.params.beta;
            true
        } else if q_avg_pkts > self.config.q_max_pkts - part && p_max < self.params.top {
            self.curve.linear.p_max = p_max + self.params.alpha.min(0.25 * p_max);
            true
        } else {
            false
        }
    }
}

impl RedFamily for Ared {
    type Curve = AredCurve;
    const NAME: &'static str = "ared";
    const PROBE_NAMES: &'static [&'static str] = &["q_avg", "p", "p_max"];

    fn core(&self) -> &RedCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut RedCore {
        &mut self.core
    }

    fn curve(&self) -> &AredCurve {
        &self.curve
    }

    fn periodic(&self) -> Option<&Periodic> {
        (self.params.adapt_at == AdaptAt::Timer).then_some(&self.periodic)
    }

    fn update_at(&mut self, now_ns: u64) {
        self.adapt(self.core.q_avg_pkts());
        self.periodic.ran(now_ns);
    }

    /// With adaptation at arrivals: once `now > last_set + interval`, adapt with the fresh
    /// q_avg, and restart the interval only if p_max changed (ns-3.37 RedQueueDisc).
    fn after_average(&mut self, now_ns: u64, q_avg_pkts: f64) {
        let due = self.last_set_ns + self.periodic.period_ns();
        if self.params.adapt_at == AdaptAt::Arrival && now_ns > due && self.adapt(q_avg_pkts) {
            self.last_set_ns = now_ns;
        }
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend([
            self.core.q_avg_pkts(),
            self.core.p(&self.curve),
            self.p_max(),
        ]);
    }
}

#[cfg(test)]
mod tests;
