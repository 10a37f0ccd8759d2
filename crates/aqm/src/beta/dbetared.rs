//! DBetaRED, Dynamic BetaRED (Giménez et al. 2022, §5.2, Algorithm 3): BetaRED with
//! q_min = 0, q_max = B, p_max = 1, whose curve is centred on a virtual target that moves every
//! T_update to pull q_avg toward the real target q_target = C·T_target.

use super::adaptive_beta::{thresholds, ADAPTIVE_MEAN_PKT_BYTES_DOC, T_TARGET_DOC, T_UPDATE_DOC};
use super::beta_bounds::BetaBounds;
use super::beta_curve::{BetaCurve, THETA_DOC};
use super::betared::{beta_probe, BETA_SPACING_DOC};
use crate::contract::{Aqm, LinkContext, ParamError};
use crate::params::{AqmParams, ParamDoc, POSITIVE_FRACTION};
use crate::red::common_params::{BYTE_MODE_DOC, IDLE_CORRECTION_DOC, SMALL_QUEUE_GUARD_DOC, W_DOC};
use crate::red::drop_decision::Spacing;
use crate::red::red_core::{Periodic, RedCore, RedFamily};
use serde::{Deserialize, Serialize};

/// DBetaRED parameters: the user sets T_target, θ and w (§5.2); the rest have the paper's
/// defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DBetaRedParams {
    /// Target queueing delay T_target, ms.
    pub t_target_ms: f64,
    /// EWMA weight w.
    pub w: f64,
    /// Scale factor θ, in (0, 1).
    pub theta: f64,
    /// Step factor when q_avg is below target (virtual target rises), in (0, 1].
    pub alpha: f64,
    /// Step factor when q_avg is above target (virtual target falls), in (0, 1].
    pub beta: f64,
    /// Update period T_update, seconds.
    pub t_update_s: f64,
    /// Spacing of drops (Algorithm 3 drops with probability p directly: `none`).
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

impl Default for DBetaRedParams {
    /// Algorithm 3: Alpha = Beta = 1, T_update = 0.5 s; T_target = 40 ms, θ = 0.1 and w = 0.1
    /// as in the simulations of §5.3.
    fn default() -> Self {
        DBetaRedParams {
            t_target_ms: 40.0,
            w: 0.1,
            theta: 0.1,
            alpha: 1.0,
            beta: 1.0,
            t_update_s: 0.5,
            spacing: Spacing::None,
            byte_mode: false,
            idle_correction: true,
            mean_pkt_bytes: 1000.0,
            ns_small_queue_guard: true,
        }
    }
}

impl AqmParams for DBetaRedParams {
    const AQM: &'static str = "dbetared";
    const TITLE: &'static str = "DBetaRED";
    const PARAMS: &'static [ParamDoc] = &[
        T_TARGET_DOC,
        W_DOC,
        THETA_DOC,
        ParamDoc::new(
            "alpha",
            "",
            POSITIVE_FRACTION,
            "step factor of the rise of the virtual target (q_avg below target)",
        ),
        ParamDoc::new(
            "beta",
            "",
            POSITIVE_FRACTION,
            "step factor of the fall of the virtual target (q_avg above target)",
        ),
        T_UPDATE_DOC,
        BETA_SPACING_DOC,
        BYTE_MODE_DOC,
        IDLE_CORRECTION_DOC,
        ADAPTIVE_MEAN_PKT_BYTES_DOC,
        SMALL_QUEUE_GUARD_DOC,
    ];

    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(DBetaRed::new(self, link)?))
    }
}

/// DBetaRED state machine.
#[derive(Clone, Debug)]
pub struct DBetaRed {
    params: DBetaRedParams,
    q_target_pkts: f64,
    /// The virtual target q̃_target, packets.
    q_target_virtual_pkts: f64,
    curve: BetaCurve,
    bounds: BetaBounds,
    core: RedCore,
    periodic: Periodic,
}

impl DBetaRed {
    /// DBetaRED on `link`.
    pub fn new(params: DBetaRedParams, link: LinkContext) -> Result<Self, ParamError> {
        params.validate()?;
        let (q_min, q_max, q_target) = thresholds(link, params.t_target_ms, params.mean_pkt_bytes)?;
        Ok(DBetaRed {
            curve: BetaCurve::new(q_min, q_max, q_target, 1.0, params.theta)?,
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
            q_target_virtual_pkts: q_target,
            periodic: Periodic::every_s(params.t_update_s),
            params,
        })
    }

    /// The virtual target q̃_target, packets.
    pub fn q_target_virtual_pkts(&self) -> f64 {
        self.q_target_virtual_pkts
    }

    /// One update for averaged queue `q_avg` (Algorithm 3, lines 8–14):
    /// δ = μ(1 − μ)(q_target − q_avg); below target q̃ ← min(q_max − 1, q̃ + Alpha·δ), above
    /// target q̃ ← max(q_min + 1, q̃ + Beta·δ); then μ = (q̃ − q_min)/(q_max − q_min) and
    /// σ = θ·√(μ(1 − μ)).
    /// The probability traced for the last arrival is fixed first, from the curve it saw.
    pub fn update(&mut self, q_avg_pkts: f64) {
        self.core.settle_p(&self.curve);
        let mu = self.curve.mu();
        let delta = mu * (1.0 - mu) * (self.q_target_pkts - q_avg_pkts);
        let (q_min, q_max) = (self.curve.q_min_pkts, self.curve.q_max_pkts);
        let v = self.q_target_virtual_pkts;
        if q_avg_pkts < self.q_target_pkts {
            self.q_target_virtual_pkts = (v + self.params.alpha * delta).min(q_max - 1.0);
        } else if q_avg_pkts > self.q_target_pkts {
            self.q_target_virtual_pkts = (v + self.params.beta * delta).max(q_min + 1.0);
        }
        self.curve.set_target(self.q_target_virtual_pkts);
    }
}

impl RedFamily for DBetaRed {
    type Curve = BetaCurve;
    const NAME: &'static str = "dbetared";
    const PROBE_NAMES: &'static [&'static str] =
        &["q_avg", "p", "p_max", "mu", "sigma", "q_target_virtual"];

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
        out.push(self.q_target_virtual_pkts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dbetared() -> DBetaRed {
        let link = LinkContext {
            rate_bps: 50e6,
            buffer_pkts: 1000,
        };
        DBetaRed::new(DBetaRedParams::default(), link).unwrap()
    }

    #[test]
    fn virtual_target_moves_by_delta() {
        let mut d = dbetared();
        assert_eq!(d.curve().p_max, 1.0);
        // μ = 0.25: δ = 0.1875·(250 − 350) = −18.75 → q̃ = 231.25, μ = 0.23125.
        d.update(350.0);
        assert!((d.q_target_virtual_pkts() - 231.25).abs() < 1e-12);
        assert!((d.curve().mu() - 0.23125).abs() < 1e-15);
        let sigma = 0.1 * (0.23125f64 * 0.76875).sqrt();
        assert!((d.curve().sigma() - sigma).abs() < 1e-15);
        // Below target: δ = 0.23125·0.76875·(250 − 150) = 17.77734375 → q̃ = 249.02734375.
        d.update(150.0);
        assert!((d.q_target_virtual_pkts() - 249.02734375).abs() < 1e-12);
        // At target: unchanged.
        d.update(250.0);
        assert!((d.q_target_virtual_pkts() - 249.02734375).abs() < 1e-12);
    }

    #[test]
    fn virtual_target_is_clamped_inside_the_thresholds() {
        let mut d = dbetared();
        for _ in 0..10_000 {
            d.update(1000.0);
        }
        assert_eq!(d.q_target_virtual_pkts(), 1.0, "q_min + 1");
        for _ in 0..10_000 {
            d.update(0.0);
        }
        assert_eq!(d.q_target_virtual_pkts(), 999.0, "q_max − 1");
        let p = d.curve().probability(500.0);
        assert!((0.0..=1.0).contains(&p) && p.is_finite());
    }
}
