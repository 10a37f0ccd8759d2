//! Turning a drop probability into drop decisions, shared by the RED family: optional byte
//! mode and optional count-based spacing of drops.

use crate::contract::ParamError;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// How drops are spaced between consecutive packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Spacing {
    /// Drop each arrival with probability p_b (the BetaRED paper's Algorithms 1–3).
    None,
    /// Floyd & Jacobson's uniformisation, p_a = p_b / (1 − count·p_b) (1993, §7).
    Uniform,
    /// ns-2/ns-3's "wait" variant: p_a = 0 while count·p_b < 1, p_b/(2 − count·p_b) while
    /// < 2, and 1 after (ns-2 red.cc modify_p with wait_ = 1; ns-3 RedQueueDisc Wait = true).
    Wait,
}

/// Names of [`Spacing`] as written in scenarios.
pub const SPACING_NAMES: &[&str] = &["none", "uniform", "wait"];

impl Spacing {
    /// The spacing called `name`.
    pub fn from_name(name: &str) -> Result<Self, ParamError> {
        match name {
            "none" => Ok(Spacing::None),
            "uniform" => Ok(Spacing::Uniform),
            "wait" => Ok(Spacing::Wait),
            _ => Err(ParamError::new(
                "spacing",
                format!(
                    "unknown value \"{name}\"; allowed: {}",
                    SPACING_NAMES.join(", ")
                ),
            )),
        }
    }

    /// Name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Spacing::None => "none",
            Spacing::Uniform => "uniform",
            Spacing::Wait => "wait",
        }
    }
}

/// Drop decisions for early (probabilistic) drops.
#[derive(Clone, Debug)]
pub struct DropDecision {
    spacing: Spacing,
    byte_mode: bool,
    mean_pkt_bytes: f64,
    /// Arrivals since the last early drop while the probability was positive.
    count: u32,
}

impl DropDecision {
    /// Decisions with the given spacing; in byte mode p_b scales with size/mean_pkt_bytes.
    pub fn new(spacing: Spacing, byte_mode: bool, mean_pkt_bytes: f64) -> Self {
        DropDecision {
            spacing,
            byte_mode,
            mean_pkt_bytes,
            count: 0,
        }
    }

    /// The probability actually applied to this arrival, from the curve's p_b.
    pub fn applied_probability(&self, p_b: f64, size_bytes: u32) -> f64 {
        let p_b = if self.byte_mode {
            // Byte mode (Floyd & Jacobson 1993, §7): p_b ← p_b·size/mean packet size.
            (p_b * f64::from(size_bytes) / self.mean_pkt_bytes).min(1.0)
        } else {
            p_b
        };
        let c = f64::from(self.count) * p_b;
        let p_a = match self.spacing {
            Spacing::None => p_b,
            Spacing::Uniform if c >= 1.0 => 1.0,
            Spacing::Uniform => p_b / (1.0 - c),
            Spacing::Wait if c < 1.0 => 0.0,
            Spacing::Wait if c < 2.0 => p_b / (2.0 - c),
            Spacing::Wait => 1.0,
        };
        p_a.clamp(0.0, 1.0)
    }

    /// Decide on one arrival whose curve gives `p_b` (> 0): true means drop.
    pub fn decide(&mut self, p_b: f64, size_bytes: u32, rng: &mut Rng) -> bool {
        self.count += 1;
        let p_a = self.applied_probability(p_b, size_bytes);
        let drop = rng.bernoulli(p_a);
        if drop {
            self.count = 0;
        }
        drop
    }

    /// [`DropDecision::decide`] for a p_b known only to lie in [lo, hi]: the decision, or
    /// None, with nothing changed, when it depends on where p_b lies.
    ///
    /// `decide` drops when u < p_a(p_b) for the next uniform draw u. Every step of p_a (the
    /// byte-mode scaling, count·p_b, the spacing formulas, the clamps) is non-decreasing in
    /// p_b, and so is each correctly rounded operation of it (IEEE 754-2019 rounding is monotone),
    /// so p_a(lo) ≤ p_a(p_b) ≤ p_a(hi): u < p_a(lo) means drop, u ≥ p_a(hi) means keep.
    pub fn decide_within(
        &mut self,
        lo: f64,
        hi: f64,
        size_bytes: u32,
        rng: &mut Rng,
    ) -> Option<bool> {
        self.count += 1;
        let mut next = rng.clone();
        let u = next.uniform();
        let drop = if u < self.applied_probability(lo, size_bytes) {
            true
        } else if u >= self.applied_probability(hi, size_bytes) {
            false
        } else {
            self.count -= 1;
            return None;
        };
        *rng = next;
        if drop {
            self.count = 0;
        }
        Some(drop)
    }

    /// The probability fell to zero (q_avg below q_min) or a forced drop happened.
    pub fn reset(&mut self) {
        self.count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_formulas() {
        let mut d = DropDecision::new(Spacing::Uniform, false, 1000.0);
        d.count = 5;
        assert!((d.applied_probability(0.1, 1000) - 0.1 / 0.5).abs() < 1e-15);
        d.count = 10;
        assert_eq!(d.applied_probability(0.1, 1000), 1.0);
        let mut w = DropDecision::new(Spacing::Wait, false, 1000.0);
        w.count = 5;
        assert_eq!(w.applied_probability(0.1, 1000), 0.0);
        w.count = 15;
        assert!((w.applied_probability(0.1, 1000) - 0.1 / 0.5).abs() < 1e-15);
        w.count = 25;
        assert_eq!(w.applied_probability(0.1, 1000), 1.0);
        let b = DropDecision::new(Spacing::None, true, 1000.0);
        assert!((b.applied_probability(0.1, 500) - 0.05).abs() < 1e-15);
    }

    #[test]
    fn wait_spaces_drops_about_one_over_p_apart() {
        let mut d = DropDecision::new(Spacing::Wait, false, 1000.0);
        let mut rng = Rng::from_seed(4);
        let mut gaps = Vec::new();
        let mut since = 0;
        for _ in 0..200_000 {
            since += 1;
            if d.decide(0.02, 1000, &mut rng) {
                gaps.push(since);
                since = 0;
            }
        }
        let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
        assert!(
            gaps.iter().all(|&g| g >= 50),
            "no drop before count·p reaches 1"
        );
        assert!((mean - 75.0).abs() < 3.0, "mean gap {mean}");
    }
}
