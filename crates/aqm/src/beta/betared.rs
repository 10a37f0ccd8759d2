//! BetaRED (Giménez et al. 2022, §4.2, Algorithm 1): RED whose linear drop curve is replaced by
//! p_max·I_z(α, β), a regularized incomplete beta function with its mean at q_target and its
//! spread set by θ. "The rest of the algorithm works exactly the same as RED" (§4.2): the same
//! averaged queue, updated on every arrival.

use super::beta_bounds::BetaBounds;
use super::beta_curve::{BetaCurve, P_MAX_DOC, Q_MAX_DOC, Q_TARGET_DOC, THETA_DOC};
use crate::contract::{Aqm, LinkContext, ParamError};
use crate::params::{AqmParams, ParamDoc, Range};
use crate::red::common_params::{
    BYTE_MODE_DOC, IDLE_CORRECTION_DOC, MEAN_PKT_BYTES_DOC, Q_MIN_DOC, SMALL_QUEUE_GUARD_DOC, W_DOC,
};
use crate::red::drop_decision::{Spacing, SPACING_NAMES};
use crate::red::red_core::{RedCore, RedFamily};
use serde::{Deserialize, Serialize};

/// BetaRED parameters (Algorithm 1, line 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BetaRedParams {
    /// q_min, packets.
    pub q_min_pkts: f64,
    /// q_max, packets.
    pub q_max_pkts: f64,
    /// q_target, packets, in (q_min, q_max): the mean of the drop curve.
    pub q_target_pkts: f64,
    /// p_max, in (0, 1].
    pub p_max: f64,
    /// EWMA weight w, in (0, 1].
    pub w: f64,
    /// Scale factor θ, in (0, 1).
    pub theta: f64,
    /// Spacing of drops (Algorithm 1 drops with probability p directly: `none`).
    pub spacing: Spacing,
    /// Byte mode.
    pub byte_mode: bool,
    /// Decay the average over idle periods, as RED does.
    pub idle_correction: bool,
    /// Typical packet size, bytes.
    pub mean_pkt_bytes: f64,
    /// No early or forced drop while the queue holds at most one packet (ns-2, ns-3).
    pub ns_small_queue_guard: bool,
}

impl Default for BetaRedParams {
    /// The BetaRED paper's Fig. 3–4 settings: q_min 0, q_max 1000 (= B), q_target 250,
    /// p_max 1 (recommended in §4.3), w 0.1, θ 0.1 (its default from §4.3 on).
    fn default() -> Self {
        BetaRedParams {
            q_min_pkts: 0.0,
            q_max_pkts: 1000.0,
            q_target_pkts: 250.0,
            p_max: 1.0,
            w: 0.1,
            theta: 0.1,
            spacing: Spacing::None,
            byte_mode: false,
            idle_correction: true,
            mean_pkt_bytes: 1000.0,
            ns_small_queue_guard: true,
        }
    }
}

impl AqmParams for BetaRedParams {
    const AQM: &'static str = "betared";
    const TITLE: &'static str = "BetaRED";
    const PARAMS: &'static [ParamDoc] = &[
        Q_MIN_DOC,
        Q_MAX_DOC,
        Q_TARGET_DOC,
        P_MAX_DOC,
        W_DOC,
        THETA_DOC,
        BETA_SPACING_DOC,
        BYTE_MODE_DOC,
        IDLE_CORRECTION_DOC,
        MEAN_PKT_BYTES_DOC,
        SMALL_QUEUE_GUARD_DOC,
    ];

    /// The curve's shapes α and β, which depend on q_min, q_max, q_target and θ together,
    /// are at least [`super::beta_curve::SHAPE_MIN`].
    fn validate_joint(&self) -> Result<(), ParamError> {
        self.curve().map(|_| ())
    }

    fn build(self, _link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        Ok(Box::new(BetaRed::new(self)?))
    }
}

/// The spacing of drops of the BetaRED variants.
pub(crate) const BETA_SPACING_DOC: ParamDoc = ParamDoc::new(
    "spacing",
    "",
    Range::Choice(SPACING_NAMES),
    "spacing of drops (the paper's algorithms drop with p directly: none)",
);

impl BetaRedParams {
    fn curve(&self) -> Result<BetaCurve, ParamError> {
        BetaCurve::new(
            self.q_min_pkts,
            self.q_max_pkts,
            self.q_target_pkts,
            self.p_max,
            self.theta,
        )
    }
}

/// BetaRED state machine.
#[derive(Clone, Debug)]
pub struct BetaRed {
    curve: BetaCurve,
    bounds: BetaBounds,
    core: RedCore,
}

impl BetaRed {
    /// BetaRED with validated parameters.
    pub fn new(params: BetaRedParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(BetaRed {
            curve: params.curve()?,
            bounds: BetaBounds::default(),
            core: RedCore::new(
                params.w,
                params.idle_correction,
                params.spacing,
                params.byte_mode,
                params.mean_pkt_bytes,
                params.ns_small_queue_guard,
            ),
        })
    }
}

/// The probe every BetaRED variant reports.
pub(crate) fn beta_probe(core: &RedCore, curve: &BetaCurve, out: &mut Vec<f64>) {
    out.extend([
        core.q_avg_pkts(),
        core.p(curve),
        curve.p_max,
        curve.mu(),
        curve.sigma(),
    ]);
}

/// Probe names matching [`beta_probe`].
pub(crate) const BETA_PROBE_NAMES: &[&str] = &["q_avg", "p", "p_max", "mu", "sigma"];

impl RedFamily for BetaRed {
    type Curve = BetaCurve;
    const NAME: &'static str = "betared";
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

    fn probe(&self, out: &mut Vec<f64>) {
        beta_probe(&self.core, &self.curve, out);
    }
}
