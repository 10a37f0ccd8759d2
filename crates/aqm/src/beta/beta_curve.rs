//! The BetaRED drop function (Giménez et al. 2022, §4.1–4.2): p_max times the regularized
//! incomplete beta function, parametrised by its mean μ and standard deviation σ.

use crate::contract::ParamError;
use crate::math::beta_inc_reg;
use crate::params::{check_numbers, Bound, Limit, ParamDoc, Range, POSITIVE_FRACTION};
use crate::red::common_params::Q_MIN_DOC;
use crate::red::red_core::DropCurve;

/// The drop curve p(q_avg) of eq. (7) for thresholds q_min < q_max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BetaCurve {
    /// q_min, packets.
    pub q_min_pkts: f64,
    /// q_max, packets.
    pub q_max_pkts: f64,
    /// p_max.
    pub p_max: f64,
    /// Scale factor θ in (0, 1): σ = θ·√(μ(1 − μ)).
    pub theta: f64,
    /// Mean μ of the beta distribution.
    mu: f64,
    /// Standard deviation σ.
    sigma: f64,
    /// Shape α(μ, σ).
    alpha: f64,
    /// Shape β(μ, σ).
    beta: f64,
}

/// Smallest θ accepted. The shapes satisfy α + β = 1/θ² − 1 (eq. (5) with σ = θ·√(μ(1 − μ))),
/// so θ ≥ 0.005 keeps α and β below 4·10⁴, inside the range where
/// [`beta_inc_reg`] is accurate to 5·10⁻¹³ and needs at most a few thousand terms; at θ = 10⁻¹⁰
/// one evaluation would take seconds, and at 10⁻²⁰ the shapes overflow its arithmetic.
pub const THETA_MIN: f64 = 0.005;

/// Smallest shape α or β accepted when a curve is built: below it [`beta_inc_reg`] loses
/// accuracy and, far below, returns values outside [0, 1].
pub const SHAPE_MIN: f64 = 0.01;

/// θ, shared by the BetaRED variants: [[`THETA_MIN`], 1).
pub(crate) const THETA_DOC: ParamDoc = ParamDoc::new(
    "theta",
    "",
    Range::Fraction(Bound::closed(THETA_MIN), Bound::open(1.0)),
    "spread of the curve, σ = θ·√(μ(1 − μ)): small θ, steep rise at q_target",
);
/// BetaRED's q_max.
pub(crate) const Q_MAX_DOC: ParamDoc = ParamDoc::new(
    "q_max_pkts",
    "packets",
    Range::Greater("q_min_pkts"),
    "maximum threshold q_max: every arrival dropped above it",
);
/// BetaRED's q_target.
pub(crate) const Q_TARGET_DOC: ParamDoc = ParamDoc::new(
    "q_target_pkts",
    "packets",
    Range::Between(Limit::Param("q_min_pkts"), Limit::Param("q_max_pkts")),
    "target q_target: the mean of the beta drop curve",
);
/// BetaRED's p_max.
pub(crate) const P_MAX_DOC: ParamDoc = ParamDoc::new(
    "p_max",
    "",
    POSITIVE_FRACTION,
    "drop probability at q_max (the curve is p_max·I_z(α, β))",
);

/// Check θ against its range, [[`THETA_MIN`], 1).
pub fn validate_theta(theta: f64) -> Result<(), ParamError> {
    check_numbers(&[(&THETA_DOC, theta)])
}

impl BetaCurve {
    /// The curve whose mean sits at `q_target` (eq. (8)). Checks each value against its range
    /// in BetaRED's table (q_min ≥ 0, q_min < q_target < q_max, p_max ∈ (0, 1],
    /// θ ∈ [[`THETA_MIN`], 1)), then that the shapes α and β are at least [`SHAPE_MIN`].
    pub fn new(
        q_min_pkts: f64,
        q_max_pkts: f64,
        q_target_pkts: f64,
        p_max: f64,
        theta: f64,
    ) -> Result<Self, ParamError> {
        check_numbers(&[
            (&Q_MIN_DOC, q_min_pkts),
            (&Q_MAX_DOC, q_max_pkts),
            (&Q_TARGET_DOC, q_target_pkts),
            (&P_MAX_DOC, p_max),
            (&THETA_DOC, theta),
        ])?;
        let mut c = BetaCurve {
            q_min_pkts,
            q_max_pkts,
            p_max,
            theta,
            mu: 0.0,
            sigma: 0.0,
            alpha: 0.0,
            beta: 0.0,
        };
        c.set_target(q_target_pkts);
        if c.alpha.min(c.beta).is_nan() || c.alpha.min(c.beta) < SHAPE_MIN {
            return Err(ParamError::new(
                "q_target_pkts",
                format!(
                    "is too close to q_min_pkts or q_max_pkts for θ = {theta}: the curve's \
                     shapes α = {:.3e}, β = {:.3e} must both be at least {SHAPE_MIN}",
                    c.alpha, c.beta
                ),
            ));
        }
        Ok(c)
    }

    /// Move the curve's mean to `q_target`: μ = (q_target − q_min)/(q_max − q_min) (eq. (8)),
    /// σ = θ·√(μ(1 − μ)) (§4.2), and α, β from eq. (5):
    /// α = μ(μ(1 − μ)/σ² − 1), β = (1 − μ)(μ(1 − μ)/σ² − 1).
    pub fn set_target(&mut self, q_target_pkts: f64) {
        let mu = (q_target_pkts - self.q_min_pkts) / (self.q_max_pkts - self.q_min_pkts);
        let sigma = self.theta * (mu * (1.0 - mu)).sqrt();
        let k = mu * (1.0 - mu) / (sigma * sigma) - 1.0;
        self.mu = mu;
        self.sigma = sigma;
        self.alpha = mu * k;
        self.beta = (1.0 - mu) * k;
    }

    /// μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// (α, β).
    pub fn shape(&self) -> (f64, f64) {
        (self.alpha, self.beta)
    }

    /// z = (q_avg − q_min)/(q_max − q_min), the argument of I_z(α, β) in eq. (7).
    pub(crate) fn position(&self, q_avg_pkts: f64) -> f64 {
        (q_avg_pkts - self.q_min_pkts) / (self.q_max_pkts - self.q_min_pkts)
    }

    /// Drop probability, eq. (7) as Algorithm 1 writes it: 0 for q_avg ≤ q_min, 1 for
    /// q_avg ≥ q_max, otherwise p_max·I_z(α, β) with z = (q_avg − q_min)/(q_max − q_min).
    pub fn probability(&self, q_avg_pkts: f64) -> f64 {
        if q_avg_pkts <= self.q_min_pkts {
            0.0
        } else if q_avg_pkts >= self.q_max_pkts {
            1.0
        } else {
            let p = self.p_max * beta_inc_reg(self.alpha, self.beta, self.position(q_avg_pkts));
            // Rounding may pass 1 by an ulp or so; a NaN is kept for the caller's check.
            if p > 1.0 {
                1.0
            } else {
                p
            }
        }
    }
}

impl DropCurve for BetaCurve {
    fn probability(&self, q_avg_pkts: f64) -> f64 {
        BetaCurve::probability(self, q_avg_pkts)
    }

    /// Whether q_avg is at or past q_max (every arrival dropped).
    fn forced(&self, q_avg_pkts: f64) -> bool {
        q_avg_pkts >= self.q_max_pkts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_one_over_root_three_at_the_midpoint_is_red() {
        let c = BetaCurve::new(100.0, 300.0, 200.0, 0.3, 1.0 / 3f64.sqrt()).unwrap();
        let (a, b) = c.shape();
        assert!((a - 1.0).abs() < 1e-12 && (b - 1.0).abs() < 1e-12);
        assert!((c.sigma() - 1.0 / (2.0 * 3f64.sqrt())).abs() < 1e-15);
        for q in [100.0, 120.0, 150.0, 200.0, 277.7, 299.9] {
            let red = 0.3 * (q - 100.0) / 200.0;
            assert!((c.probability(q) - red).abs() < 1e-12, "q = {q}");
        }
        assert_eq!(c.probability(300.0), 1.0);
    }

    #[test]
    fn shapes_follow_eq_5() {
        // μ = 0.25, θ = 0.1: α + β = 1/θ² − 1 = 99, α = 24.75, β = 74.25.
        let c = BetaCurve::new(0.0, 1000.0, 250.0, 1.0, 0.1).unwrap();
        let (a, b) = c.shape();
        assert!((a - 24.75).abs() < 1e-9 && (b - 74.25).abs() < 1e-9);
        assert!((c.mu() - 0.25).abs() < 1e-15);
        // Against scipy.special.betainc(24.75, 74.25, z) for z = 0.15, 0.25, 0.4.
        for (q, expect) in [
            (150.0, 0.0055072970955744194),
            (250.0, 0.5154566559562497),
            (400.0, 0.9992416641299144),
        ] {
            let p = c.probability(q);
            assert!(
                (p - expect).abs() < 1e-12 * expect,
                "q = {q}: {p} vs {expect}"
            );
        }
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let field = |r: Result<BetaCurve, ParamError>| r.unwrap_err().field;
        assert_eq!(field(BetaCurve::new(0.0, 1000.0, 250.0, 1.0, 1.0)), "theta");
        assert_eq!(field(BetaCurve::new(0.0, 1000.0, 250.0, 1.0, 0.0)), "theta");
        assert_eq!(
            field(BetaCurve::new(0.0, 1000.0, 250.0, 1.0, 1e-10)),
            "theta"
        );
        assert_eq!(
            field(BetaCurve::new(0.0, 1000.0, 250.0, 1.0, 1e-20)),
            "theta"
        );
        // At the bound the curve is finite and quick: α + β = 1/0.005² − 1 = 39999.
        let c = BetaCurve::new(0.0, 1000.0, 250.0, 1.0, THETA_MIN).unwrap();
        for q in [1.0, 240.0, 250.0, 260.0, 999.0] {
            let p = c.probability(q);
            assert!((0.0..=1.0).contains(&p), "q = {q}: {p}");
        }
        assert_eq!(
            field(BetaCurve::new(300.0, 1000.0, 250.0, 1.0, 0.1)),
            "q_target_pkts"
        );
        assert_eq!(
            field(BetaCurve::new(0.0, 1000.0, 1000.0, 1.0, 0.1)),
            "q_target_pkts"
        );
        assert_eq!(
            field(BetaCurve::new(500.0, 400.0, 450.0, 1.0, 0.1)),
            "q_max_pkts"
        );
        assert_eq!(field(BetaCurve::new(0.0, 1000.0, 250.0, 0.0, 0.1)), "p_max");
        // μ = 1e-303: α ≈ 1e-301, far below SHAPE_MIN.
        assert_eq!(
            field(BetaCurve::new(0.0, 1000.0, 1e-300, 1.0, 0.1)),
            "q_target_pkts"
        );
    }
}
