//! Cheap bounds on the BetaRED drop probability p = p_max·I_z(α, β), from which most drop
//! decisions follow without evaluating the incomplete beta function.
//!
//! The arrival is dropped when a uniform draw u is below p, so bounds lo ≤ p ≤ hi settle it
//! whenever u < lo or u ≥ hi. They come from a table of I at the grid points z_k = k/N,
//! filled as cells are visited: I is increasing in z (it is the distribution function of the
//! Beta(α, β) law, DLMF 8.17.1), so I(z_k) ≤ I(z) ≤ I(z_{k+1}) on cell k. The table holds
//! the computed values Ĩ = I·(1 + e), |e| ≤ ε = 5·10⁻¹³ (the accuracy documented for
//! [`beta_inc_reg`] with shapes in [0.01, 10⁵] and results above about 10⁻³⁰⁸), and so does
//! the exact path, hence
//!
//! ```text
//! Ĩ(z_k)·(1 − ε)/(1 + ε) ≤ Ĩ(z) ≤ Ĩ(z_{k+1})·(1 + ε)/(1 − ε),
//! ```
//!
//! and widening by a margin of 10⁻⁹ ≫ 2ε covers both factors. Multiplying by p_max and
//! capping at 1 are monotone in floating point (IEEE 754-2019 returns every operation's exact
//! result rounded, and rounding is monotone), so the bounds carry over to p as
//! [`BetaCurve::probability`] computes it, bit for bit.
//!
//! The gap hi − lo, the share of draws left undecided, is p_max times the rise of I over the
//! cell: with N = 4096 at most about 10⁻⁴/σ (the density of a near-normal Beta law peaks at
//! 0.4/σ), 0.002 for BetaRED's defaults μ = 0.25, θ = 0.1. DBetaRED moves its shapes at every
//! update, and q_avg visits hundreds of cells before the next: a cell whose ends are not
//! known yet is therefore first bounded by the coarse cell of 16 around it, and refined only
//! for the few draws that fall in the coarse gap.

use super::beta_curve::{BetaCurve, SHAPE_MIN};
use crate::math::beta_inc_reg;
use std::fmt;

/// Grid cells on z ∈ [0, 1]: a power of two, so that z·N, ⌊z·N⌋ and k/N are exact.
const CELLS: usize = 4096;

/// Cells of the fine grid in one cell of the coarse grid, whose points are every `COARSE`-th.
const COARSE: usize = 16;

/// Relative widening of the tabulated values, 1000 times the 2ε it must cover.
const MARGIN: f64 = 1e-9;

/// Smallest tabulated value taken as a lower bound: far above 10⁻³⁰⁸, where results turn
/// subnormal and lose their relative accuracy. Below it no bounds are given, so that p > 0,
/// which decides whether a uniform is drawn at all, is never assumed.
const SMALLEST_LOWER: f64 = 1e-300;

/// Largest shape for which [`beta_inc_reg`] documents its accuracy.
const SHAPE_MAX: f64 = 1e5;

/// The table of I_{k/N}(α, β) for the shapes of the curve last seen.
#[derive(Clone)]
pub struct BetaBounds {
    /// (α, β) the table holds values for.
    shape: (f64, f64),
    /// I_{k/N}(α, β) for k = 0..=N, NaN where not computed yet.
    table: Box<[f64]>,
}

impl fmt::Debug for BetaBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let filled = self.table.iter().filter(|v| !v.is_nan()).count();
        f.debug_struct("BetaBounds")
            .field("shape", &self.shape)
            .field("filled", &filled)
            .finish()
    }
}

impl Default for BetaBounds {
    fn default() -> Self {
        BetaBounds {
            shape: (f64::NAN, f64::NAN),
            table: vec![f64::NAN; CELLS + 1].into_boxed_slice(),
        }
    }
}

impl BetaBounds {
    /// Bounds 0 < lo ≤ `curve.probability(q_avg)` ≤ hi ≤ 1, or None where the table gives
    /// none: q_avg outside (q_min, q_max), shapes outside the documented accuracy of
    /// [`beta_inc_reg`], a lower bound on I below 10⁻³⁰⁰, or one on p that underflows to 0.
    /// From the fine cell of q_avg when `tight` or when both its ends are known, otherwise
    /// from the coarse cell around it. The table follows the curve's shapes: it is cleared
    /// when they change.
    pub fn bounds(
        &mut self,
        curve: &BetaCurve,
        q_avg_pkts: f64,
        tight: bool,
    ) -> Option<(f64, f64)> {
        if !(q_avg_pkts > curve.q_min_pkts && q_avg_pkts < curve.q_max_pkts) {
            return None;
        }
        let shape = curve.shape();
        if shape != self.shape {
            let (a, b) = shape;
            if !(a.min(b) >= SHAPE_MIN && a.max(b) <= SHAPE_MAX) {
                return None;
            }
            self.shape = shape;
            self.table.fill(f64::NAN);
        }
        let z = curve.position(q_avg_pkts);
        // z ≥ 0, so the conversion truncates toward zero: k = ⌊z·N⌋, k/N ≤ z < (k + 1)/N.
        let k = (z * CELLS as f64) as usize;
        if k >= CELLS {
            return None;
        }
        let (left, right) = if tight || !(self.table[k].is_nan() || self.table[k + 1].is_nan()) {
            (k, k + 1)
        } else {
            let j = k - k % COARSE;
            (j, j + COARSE)
        };
        let below = self.value(left);
        if below.is_nan() || below < SMALLEST_LOWER {
            return None;
        }
        let lo = (curve.p_max * (below * (1.0 - MARGIN))).min(1.0);
        if lo <= 0.0 {
            // p_max·I underflows (p_max near 10⁻³⁰⁸): p itself may be 0.
            return None;
        }
        let hi = curve.p_max * (self.value(right) * (1.0 + MARGIN));
        Some((lo, hi.min(1.0)))
    }

    /// I_{k/N}(α, β), computed on first use.
    fn value(&mut self, k: usize) -> f64 {
        let v = self.table[k];
        if !v.is_nan() {
            return v;
        }
        let (a, b) = self.shape;
        let v = beta_inc_reg(a, b, k as f64 / CELLS as f64);
        self.table[k] = v;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The decision the bounds give for draw u: Some(drop) or None (exact value needed).
    fn settled(lo: f64, hi: f64, u: f64) -> Option<bool> {
        if u < lo {
            Some(true)
        } else if u >= hi {
            Some(false)
        } else {
            None
        }
    }

    fn next_up(x: f64) -> f64 {
        f64::from_bits(x.to_bits() + 1)
    }

    fn next_down(x: f64) -> f64 {
        f64::from_bits(x.to_bits() - 1)
    }

    /// A random valid curve: θ log-uniform in [0.005, 0.99], μ in (0.01, 0.99), p_max in
    /// (0, 1], thresholds anywhere in [0, 2000].
    fn random_curve(rng: &mut Rng) -> BetaCurve {
        loop {
            let theta = 0.005 * (0.99f64 / 0.005).powf(rng.uniform());
            let q_min = if rng.uniform() < 0.5 {
                0.0
            } else {
                rng.uniform_in(0.0, 1000.0)
            };
            let q_max = q_min + rng.uniform_in(3.0, 1000.0);
            let q_target = q_min + (q_max - q_min) * rng.uniform_in(0.01, 0.99);
            let p_max = if rng.uniform() < 0.3 {
                1.0
            } else {
                1.0 - rng.uniform()
            };
            if let Ok(c) = BetaCurve::new(q_min, q_max, q_target, p_max, theta) {
                return c;
            }
        }
    }

    #[test]
    fn bounds_bracket_the_exact_probability_and_settle_the_same_decisions() {
        let mut rng = Rng::from_seed(11);
        let (mut queries, mut bounded) = (0, 0);
        for _ in 0..300 {
            let curve = random_curve(&mut rng);
            let mut bounds = BetaBounds::default();
            let span = curve.q_max_pkts - curve.q_min_pkts;
            let mu_q = curve.q_min_pkts + curve.mu() * span;
            let sigma_q = curve.sigma() * span;
            for i in 0..400 {
                // Uniform over the thresholds, near the mean, and on or next to grid points.
                let q = match i % 4 {
                    0 => rng.uniform_in(curve.q_min_pkts, curve.q_max_pkts),
                    1 => mu_q + sigma_q * rng.uniform_in(-6.0, 6.0),
                    2 => {
                        let k = (rng.uniform() * CELLS as f64).floor();
                        curve.q_min_pkts + k / CELLS as f64 * span
                    }
                    _ => {
                        let z = (rng.uniform() * CELLS as f64).floor() / CELLS as f64;
                        let q = curve.q_min_pkts + z * span;
                        if i % 8 == 3 {
                            next_up(q)
                        } else {
                            next_down(q)
                        }
                    }
                };
                let p = curve.probability(q);
                for tight in [false, true] {
                    queries += 1;
                    let Some((lo, hi)) = bounds.bounds(&curve, q, tight) else {
                        continue;
                    };
                    bounded += 1;
                    assert!(
                        0.0 < lo && lo <= p && p <= hi && hi <= 1.0,
                        "{curve:?} q {q}: {lo} {p} {hi}"
                    );
                    let draws = [
                        p,
                        next_up(p),
                        next_down(p),
                        lo,
                        next_down(lo),
                        hi,
                        next_up(hi),
                        0.5 * (lo + hi),
                        rng.uniform(),
                    ];
                    for u in draws {
                        if let Some(drop) = settled(lo, hi, u) {
                            assert_eq!(drop, u < p, "{curve:?} q {q} u {u}: {lo} {p} {hi}");
                        }
                    }
                    // Draws more than a cell's width from p are settled.
                    assert_eq!(settled(lo, hi, p + (hi - lo) + 1e-12), Some(false));
                }
            }
        }
        // The rest: the first cell and the far left tail of steep curves (p below 10⁻³⁰⁰).
        assert!(bounded * 4 > queries * 3, "{bounded} of {queries} bounded");
    }

    #[test]
    fn no_bounds_outside_the_open_range_or_where_p_may_be_zero() {
        let curve = BetaCurve::new(100.0, 1100.0, 350.0, 0.7, 0.1).unwrap();
        let mut b = BetaBounds::default();
        assert_eq!(b.bounds(&curve, 100.0, true), None);
        assert_eq!(b.bounds(&curve, 50.0, true), None);
        assert_eq!(b.bounds(&curve, 1100.0, true), None);
        // First cell: its lower grid value is I_0 = 0.
        assert_eq!(b.bounds(&curve, 100.1, true), None);
        let (lo, hi) = b.bounds(&curve, 350.0, true).unwrap();
        assert!(lo < curve.probability(350.0) && hi - lo < 0.01);
        // p_max = 10⁻³⁰⁸: p_max·I underflows to 0 where I ≈ 10⁻²⁰, and is subnormal, but
        // positive, where I ≈ 10⁻⁵.
        let tiny = BetaCurve::new(100.0, 1100.0, 350.0, 1e-308, 0.1).unwrap();
        assert_eq!(b.bounds(&tiny, 120.0, true), None);
        let (lo, hi) = b.bounds(&tiny, 200.0, true).unwrap();
        let p = tiny.probability(200.0);
        assert!(0.0 < lo && lo <= p && p <= hi, "{lo} {p} {hi}");
    }

    #[test]
    fn coarse_cells_until_the_fine_cell_is_known() {
        let curve = BetaCurve::new(0.0, 1000.0, 250.0, 1.0, 0.1).unwrap();
        let mut b = BetaBounds::default();
        let coarse = b.bounds(&curve, 251.0, false).unwrap();
        let fine = b.bounds(&curve, 251.0, true).unwrap();
        assert!(
            coarse.0 < fine.0 && fine.1 < coarse.1,
            "{coarse:?} {fine:?}"
        );
        assert_eq!(b.bounds(&curve, 251.0, false), Some(fine));
    }

    #[test]
    fn the_table_follows_the_shapes() {
        let mut curve = BetaCurve::new(0.0, 1000.0, 250.0, 1.0, 0.1).unwrap();
        let mut b = BetaBounds::default();
        let (_, hi) = b.bounds(&curve, 350.0, true).unwrap();
        assert!(hi > 0.9);
        curve.set_target(600.0);
        let (lo, hi) = b.bounds(&curve, 300.0, true).unwrap();
        let p = curve.probability(300.0);
        assert!(lo <= p && p <= hi && hi < 1e-3, "{lo} {p} {hi}");
    }
}
