//! The drop function p(q_avg) of the map, taken from the AQM crate so that the model and the
//! packet simulator use the very same code: RED's [`LinearCurve`] (plain or gentle) and
//! BetaRED's [`BetaCurve`]. The derivative p′(q_avg), which the eigenvalue and the Lyapunov
//! exponent need, is written here.

use aqm::math::ln_beta;
use aqm::red::LinearCurve;
use aqm::{BetaCurve, ParamError};

/// Which drop function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropKind {
    /// RED (Floyd & Jacobson 1993): linear from 0 at q_min to p_max at q_max, then 1.
    Red,
    /// Gentle RED (self-tuning-RED paper eq. (2.1)): as RED, then linear from p_max at q_max
    /// to 1 at 2·q_max.
    Gentle,
    /// BetaRED (Giménez et al. 2022, eq. (7)): p_max·I_z(α, β) on (q_min, q_max), 1 above.
    BetaRed,
}

impl DropKind {
    /// Every name `from_name` accepts.
    pub const NAMES: [&'static str; 3] = ["red", "gentle", "betared"];

    /// The kind called `name` (`red`, `gentle`, `betared`).
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        match name {
            "red" => Ok(DropKind::Red),
            "gentle" => Ok(DropKind::Gentle),
            "betared" => Ok(DropKind::BetaRed),
            _ => Err(ParamError::new(
                "drop",
                format!("unknown drop function '{name}' (allowed: red, gentle, betared)"),
            )),
        }
    }

    /// The name `from_name` reads.
    pub fn name(self) -> &'static str {
        match self {
            DropKind::Red => "red",
            DropKind::Gentle => "gentle",
            DropKind::BetaRed => "betared",
        }
    }
}

/// A validated drop function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DropFunction {
    /// RED or gentle RED.
    Linear(LinearCurve),
    /// BetaRED's curve and ln B(α, β) for its density.
    Beta {
        /// The curve.
        curve: BetaCurve,
        /// ln B(α, β).
        ln_beta: f64,
    },
}

impl DropFunction {
    /// RED (`gentle` false) or gentle RED with thresholds q_min < q_max and p_max ∈ (0, 1].
    pub fn linear(
        q_min_pkts: f64,
        q_max_pkts: f64,
        p_max: f64,
        gentle: bool,
    ) -> Result<Self, ParamError> {
        check_thresholds(q_min_pkts, q_max_pkts)?;
        if !(p_max > 0.0 && p_max <= 1.0) {
            return Err(ParamError::new("p_max", "must be in (0, 1]"));
        }
        Ok(DropFunction::Linear(LinearCurve {
            q_min_pkts,
            q_max_pkts,
            p_max,
            gentle,
        }))
    }

    /// BetaRED's curve with mean at q_target (μ = (q_target − q_min)/(q_max − q_min)) and
    /// σ = θ·√(μ(1 − μ)); checks θ ∈ [0.005, 1) and q_min < q_target < q_max.
    pub fn beta(
        q_min_pkts: f64,
        q_max_pkts: f64,
        q_target_pkts: f64,
        p_max: f64,
        theta: f64,
    ) -> Result<Self, ParamError> {
        let curve = BetaCurve::new(q_min_pkts, q_max_pkts, q_target_pkts, p_max, theta)?;
        let (a, b) = curve.shape();
        Ok(DropFunction::Beta {
            curve,
            ln_beta: ln_beta(a, b),
        })
    }

    /// p(q_avg): the AQM crate's `probability()`.
    #[inline]
    pub fn probability(&self, q_avg_pkts: f64) -> f64 {
        match self {
            DropFunction::Linear(c) => c.probability(q_avg_pkts),
            DropFunction::Beta { curve, .. } => curve.probability(q_avg_pkts),
        }
    }

    /// p′(q_avg), per packet. Linear RED: p_max/(q_max − q_min) on (q_min, q_max) and, gentle,
    /// (1 − p_max)/q_max on (q_max, 2·q_max). BetaRED: the Beta(α, β) density scaled,
    /// p_max·z^(α−1)(1 − z)^(β−1)/B(α, β)/(q_max − q_min), computed in logarithms with
    /// ln B(α, β) from `aqm::math::ln_beta`. 0 on the flat parts. At a breakpoint the slope
    /// of the part to the right is returned, and at RED's jump to 1 at q_max (a discontinuity,
    /// where no derivative exists) 0.
    #[inline]
    pub fn slope(&self, q_avg_pkts: f64) -> f64 {
        match self {
            DropFunction::Linear(c) => {
                if q_avg_pkts < c.q_min_pkts {
                    0.0
                } else if q_avg_pkts < c.q_max_pkts {
                    c.p_max / (c.q_max_pkts - c.q_min_pkts)
                } else if c.gentle && q_avg_pkts < 2.0 * c.q_max_pkts {
                    (1.0 - c.p_max) / c.q_max_pkts
                } else {
                    0.0
                }
            }
            DropFunction::Beta { curve, ln_beta } => {
                if q_avg_pkts <= curve.q_min_pkts || q_avg_pkts >= curve.q_max_pkts {
                    return 0.0;
                }
                let span = curve.q_max_pkts - curve.q_min_pkts;
                let z = (q_avg_pkts - curve.q_min_pkts) / span;
                let (a, b) = curve.shape();
                let ln_density = (a - 1.0) * z.ln() + (b - 1.0) * (-z).ln_1p() - ln_beta;
                curve.p_max * ln_density.exp() / span
            }
        }
    }

    /// The normalised curve g with p(q) = p_max·g(q), where that holds: on [q_min, q_max)
    /// g = (q − q_min)/(q_max − q_min) for RED and I_z(α, β) for BetaRED; `None` elsewhere.
    pub fn ramp(&self, q_avg_pkts: f64) -> Option<f64> {
        let (q_min, q_max, p_max) = self.thresholds();
        if q_avg_pkts < q_min || q_avg_pkts >= q_max {
            return None;
        }
        Some(self.probability(q_avg_pkts) / p_max)
    }

    /// (q_min, q_max, p_max).
    pub fn thresholds(&self) -> (f64, f64, f64) {
        match self {
            DropFunction::Linear(c) => (c.q_min_pkts, c.q_max_pkts, c.p_max),
            DropFunction::Beta { curve, .. } => (curve.q_min_pkts, curve.q_max_pkts, curve.p_max),
        }
    }

    /// Where p(q) is continuous but not differentiable, or jumps: q_min, q_max and, for gentle
    /// RED, 2·q_max.
    pub fn breakpoints(&self) -> Vec<f64> {
        let (q_min, q_max, _) = self.thresholds();
        match self {
            DropFunction::Linear(c) if c.gentle => vec![q_min, q_max, 2.0 * q_max],
            _ => vec![q_min, q_max],
        }
    }

    /// Whether p is linear in q on [q_min, q_max), p = p_max·(q − q_min)/(q_max − q_min): the
    /// case the closed forms eq. (3.1)–(3.12) are written for.
    pub fn is_linear(&self) -> bool {
        matches!(self, DropFunction::Linear(_))
    }
}

fn check_thresholds(q_min_pkts: f64, q_max_pkts: f64) -> Result<(), ParamError> {
    if !(q_min_pkts >= 0.0 && q_min_pkts.is_finite()) {
        return Err(ParamError::new("q_min_pkts", "must be a number >= 0"));
    }
    if !(q_max_pkts > q_min_pkts && q_max_pkts.is_finite()) {
        return Err(ParamError::new(
            "q_max_pkts",
            "must be greater than q_min_pkts",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric_slope(d: &DropFunction, q: f64) -> f64 {
        let h = 1e-4;
        (d.probability(q + h) - d.probability(q - h)) / (2.0 * h)
    }

    #[test]
    fn linear_slopes() {
        let d = DropFunction::linear(250.0, 750.0, 0.1, true).unwrap();
        for q in [100.0, 300.0, 700.0, 800.0, 1400.0, 1600.0] {
            assert!((d.slope(q) - numeric_slope(&d, q)).abs() < 1e-9, "q = {q}");
        }
        assert_eq!(d.slope(300.0), 0.1 / 500.0);
        assert_eq!(d.slope(800.0), 0.9 / 750.0);
        let plain = DropFunction::linear(250.0, 750.0, 0.1, false).unwrap();
        assert_eq!(plain.slope(800.0), 0.0);
        assert_eq!(plain.probability(800.0), 1.0);
    }

    #[test]
    fn beta_slope_is_the_scaled_density() {
        for theta in [0.05, 0.1, 0.3, 0.5] {
            let d = DropFunction::beta(0.0, 1000.0, 250.0, 0.7, theta).unwrap();
            for q in [150.0, 230.0, 250.0, 270.0, 400.0] {
                let (a, n) = (d.slope(q), numeric_slope(&d, q));
                assert!(
                    (a - n).abs() < 1e-6 * a.abs().max(1e-6),
                    "θ = {theta}, q = {q}"
                );
            }
        }
    }

    #[test]
    fn beta_at_one_over_root_three_is_red() {
        let b = DropFunction::beta(250.0, 750.0, 500.0, 0.1, 1.0 / 3f64.sqrt()).unwrap();
        let r = DropFunction::linear(250.0, 750.0, 0.1, false).unwrap();
        for q in [0.0, 249.0, 260.0, 345.1, 500.0, 749.0, 750.0, 900.0] {
            assert!(
                (b.probability(q) - r.probability(q)).abs() < 1e-13,
                "q = {q}"
            );
            assert!((b.slope(q) - r.slope(q)).abs() < 1e-15, "q = {q}");
        }
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = DropFunction::beta(250.0, 750.0, 500.0, 0.1, 1.0).unwrap_err();
        assert_eq!(e.to_string(), "theta: must be in [0.005, 1)");
        let e = DropFunction::linear(250.0, 750.0, 0.0, false).unwrap_err();
        assert_eq!(e.field, "p_max");
        let e = DropFunction::linear(250.0, 250.0, 0.1, false).unwrap_err();
        assert_eq!(e.field, "q_max_pkts");
        assert_eq!(DropKind::from_name("pie").unwrap_err().field, "drop");
    }
}
