//! ABetaRED, Adaptive BetaRED (Giménez et al. 2022, §5.1, Algorithm 2): BetaRED with
//! q_min = 0, q_max = B, q_target = C·T_target, and p_max adapted every T_update, ARED-style.

use super::adaptive_beta::{thresholds, ADAPTIVE_MEAN_PKT_BYTES_DOC, T_TARGET_DOC, T_UPDATE_DOC};
use super::beta_bounds::BetaBounds;
use super::beta_curve::{BetaCurve, THETA_DOC};
use super::betared::{beta_probe, BETA_PROBE_NAMES, BETA_SPACING_DOC};
use crate::contract::{Aqm, LinkContext, ParamError};
use crate::params::{AqmParams, Bound, ParamDoc, Range, POSITIVE_FRACTION};
use crate::red::common_params::{BYTE_MODE_DOC, IDLE_CORRECTION_DOC, SMALL_QUEUE_GUARD_DOC, W_DOC};
use crate::red::drop_decision::Spacing;
use crate::red::red_core::{Periodic, RedCore, RedFamily};
use serde::{Deserialize, Serialize};

/// ABetaRED parameters: the user sets T_target, θ and w (§5.1); the rest have the paper's
/// defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ABetaRedParams {
    /// Target queueing delay T_target, ms.
    pub t_target_ms: f64,
    /// EWMA weight w.
    pub w: f64,
    /// Scale factor θ, in (0, 1).
    pub theta: f64,
    /// Step factor of the decrease rule, in (0, 1].
    pub alpha: f64,
    /// Step factor of the increase rule, in (0, 1].
    pub beta: f64,
    /// Update period T_update, seconds.
    pub t_update_s: f64,
    /// p_max before the first update.
    pub p_max_initial: f64,
    /// Spacing of drops (Algorithm 2 drops with probability p directly: `none`).
    pub spacing: Spacing,
    /// Byte mode.
    pub byte_mode: bool,
    /// Decay the average over idle periods, as RED does.
    pub idle_correction: bool,
    /// Packet size used for C in packets per second, bytes.
    pub mean_pkt_bytes: f64,
    /// No early or forced drop while the queue holds at most one packet (ns-2, ns-3).
    pub ns_small_queue_guard: bool,
}

impl Default for ABetaRedParams {
    /// Algorithm 2: Alpha = Beta = 1, T_update = 0.5 s, initial p_max = 0.5; T_target = 40 ms,
    /// θ = 0.1 and w = 0.1 as in every simulation of §5.3.
    fn default() -> Self {
        ABetaRedParams {
            t_target_ms: 40.0,
            w: 0.1,
            theta: 0.1,
            alpha: 1.0,
            beta: 1.0,
            t_update_s: 0.5,
            p_max_initial: 0.5,
            spacing: Spacing::None,
            byte_mode: false,
            idle_correction: true,
            mean_pkt_bytes: 1000.0,
            ns_small_queue_guard: true,
        }
    }
}

impl AqmParams for ABetaRedParams {
    const AQM: &'static str = "abetared";
    const TITLE: &'static str = "ABetaRED";
    const PARAMS: &'static [ParamDoc] = &[
        T_TARGET_DOC,
        W_DOC,
        THETA_DOC,
        ParamDoc::new(
            "alpha",
            "",
            POSITIVE_FRACTION,
            "step factor of the decrease of p_max (q_avg below target)",
        ),
        ParamDoc::new(
            "beta",
            "",
            POSITIVE_FRACTION,
            "step factor of the increase of p_max (q_avg above target)",
        ),
        T_UPDATE_DOC,
        ParamDoc::new(
            "p_max_initial",
            "",
            Range::Fraction(Bound::closed(P_MAX_FLOOR), Bound::closed(P_MAX_CEILING)),
            "p_max before the first update",
        ),
        BETA_SPACING_DOC,
        BYTE_MODE_DOC,
        IDLE_CORRECTION_DOC,
        ADAPTIVE_MEAN_PKT_BYTES_DOC,
        SMALL_QUEUE_GUARD_DOC,
    ];

    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(ABetaRed::new(self, link)?))
    }
}

/// ABetaRED state machine.
#[derive(Clone, Debug)]
pub struct ABetaRed {
    params: ABetaRedParams,
    q_target_pkts: f64,
    curve: BetaCurve,
    bounds: BetaBounds,
    core: RedCore,
    periodic: Periodic,
}

/// Lower and upper clamps of p_max (Algorithm 2, lines 9 and 12).
const P_MAX_FLOOR: f64 = 0.01;
const P_MAX_CEILING: f64 = 0.99;

impl ABetaRed {
    /// ABetaRED on `link`.
    pub fn new(params: ABetaRedParams, link: LinkContext) -> Result<Self, ParamError> {
        params.validate()?;
        let (q_min, q_max, q_target) = thresholds(link, params.t_target_ms, params.mean_pkt_bytes)?;
        Ok(ABetaRed {
            curve: BetaCurve::new(q_min, q_max, q_target, params.p_max_initial, params.theta)?,
            bounds: BetaBounds::default(),
            core: RedCore::new(
                params.w,
                params.idle_correction,
                params.spacing,
                params.byte_mode,
                params.mean_pkt_bytes,
                params.ns_small_queue_guard,
            ),
            q_target_pkts: q_target,
            periodic: Periodic::every_s(params.t_update_s),
            params,
        })
    }

    /// q_target = C·T_target, packets.
    pub fn q_target_pkts(&self) -> f64 {
        self.q_target_pkts
    }

    /// One update of p_max for averaged queue `q_avg` (Algorithm 2, lines 7–13):
    /// below target p_max ← max(0.01, p_max·Alpha·(1 − (q_target − q_avg)/(q_max − q_min)));
    /// above target p_max ← min(0.99, p_max + Beta·p_max·(1 − p_max)·(q_avg − q_target)/(q_max − q_min)).
    /// The probability traced for the last arrival is fixed first, from the curve it saw.
    pub fn update(&mut self, q_avg_pkts: f64) {
        self.core.settle_p(&self.curve);
        let span = self.curve.q_max_pkts - self.curve.q_min_pkts;
        let p_max = self.curve.p_max;
        let target = self.q_target_pkts;
        if q_avg_pkts < target {
            let factor = self.params.alpha * (1.0 - (target - q_avg_pkts) / span);
            self.curve.p_max = (p_max * factor).max(P_MAX_FLOOR);
        } else if q_avg_pkts > target {
            let step = self.params.beta * p_max * (1.0 - p_max) * (q_avg_pkts - target) / span;
            self.curve.p_max = (p_max + step).min(P_MAX_CEILING);
        }
    }
}

impl RedFamily for ABetaRed {
    type Curve = BetaCurve;
    const NAME: &'static str = "abetared";
    const PROBE_NAMES: &'static [&'static str] = BETA_PROBE_NAMES;

    fn core(&self) -> &RedCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut RedCore {
        &mut self.core
    }

    fn curve(&self) -> &BetaCurve {
        &self.curve
    }

    fn probability_bounds(&mut self, q_avg_pkts: f64, tight: bool) -> Option<(f64, f64)> {
        self.bounds.bounds(&self.curve, q_avg_pkts, tight)
    }

    fn periodic(&self) -> Option<&Periodic> {
        Some(&self.periodic)
    }

    fn update_at(&mut self, now_ns: u64) {
        self.update(self.core.q_avg_pkts());
        self.periodic.ran(now_ns);
    }

    fn probe(&self, out: &mut Vec<f64>) {
        beta_probe(&self.core, &self.curve, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abetared() -> ABetaRed {
        let link = LinkContext {
            rate_bps: 50e6,
            buffer_pkts: 1000,
        };
        ABetaRed::new(ABetaRedParams::default(), link).unwrap()
    }

    #[test]
    fn configuration_follows_eq_9_and_10() {
        let a = abetared();
        assert!(
            (a.q_target_pkts() - 250.0).abs() < 1e-9,
            "6250 packets/s × 40 ms"
        );
        assert_eq!((a.curve().q_min_pkts, a.curve().q_max_pkts), (0.0, 1000.0));
        assert_eq!(a.curve().p_max, 0.5);
        assert!((a.curve().mu() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn update_rules_by_hand() {
        let mut a = abetared();
        // Above target by 100 of 1000: 0.5 + 1·0.5·0.5·0.1 = 0.525.
        a.update(350.0);
        assert!((a.curve().p_max - 0.525).abs() < 1e-15);
        // Below target by 50: 0.525·1·(1 − 0.05) = 0.49875.
        a.update(200.0);
        assert!((a.curve().p_max - 0.49875).abs() < 1e-15);
        // At target: unchanged.
        a.update(250.0);
        assert!((a.curve().p_max - 0.49875).abs() < 1e-15);
        // Clamps: far below drives it to the 0.01 floor, far above to the 0.99 ceiling.
        for _ in 0..200 {
            a.update(0.0);
        }
        assert_eq!(a.curve().p_max, 0.01);
        for _ in 0..5000 {
            a.update(1000.0);
        }
        assert_eq!(a.curve().p_max, 0.99);
    }

    #[test]
    fn target_outside_the_buffer_is_an_error() {
        let link = LinkContext {
            rate_bps: 50e6,
            buffer_pkts: 100,
        };
        let e = ABetaRed::new(ABetaRedParams::default(), link).unwrap_err();
        assert_eq!(e.field, "t_target_ms");
        let e = ABetaRed::new(
            ABetaRedParams {
                theta: 1.2,
                ..ABetaRedParams::default()
            },
            LinkContext {
                rate_bps: 50e6,
                buffer_pkts: 1000,
            },
        )
        .unwrap_err();
        assert_eq!(e.field, "theta");
    }
}
