//! The average-queue map q_(n+1) = f(q_n) of the discrete-time TCP/AQM model (Ranjan, Abed &
//! La 2004), as the self-tuning-RED paper writes it (Chen, Hu & Ji 2011, eq. (2.3)), with any
//! drop function of the AQM crate.
//!
//! One step is one round trip: the N flows answer the drop probability p(q_n) set by the
//! averaged queue q_n with the instantaneous queue Q(p(q_n)), and the router averages it in:
//!
//! ```text
//! f(q) = (1 − w)·q + w·Q(p(q)),   Q(p) = clamp(N·K/√p − C·d/M, 0, B),   Q(0) = B.
//! ```
//!
//! This is eq. (2.3) (with the √ over p that the text of the paper loses; p1 = (NMK/(dC))²
//! confirms it). Its three branches are the three cases of the clamp: Q(p) = 0 exactly when
//! N·K/√p ≤ C·d/M, i.e. p ≥ p1 = (N·M·K/(d·C))²; Q(p) = B exactly when N·K/√p ≥ (C·d + B·M)/M,
//! i.e. p ≤ p2 = (N·M·K/(d·C + B·M))². With the linear ramp p = p_max·(q − q_min)/(q_max −
//! q_min), p ≥ p1 ⇔ q ≥ q1 = p1·(q_max − q_min)/p_max + q_min and p ≤ p2 ⇔ q ≤ q2 =
//! p2·(q_max − q_min)/p_max + q_min, the paper's breakpoints; so
//!
//! ```text
//! f(q) = (1 − w)·q                     for q ≥ q1,
//!        (1 − w)·q + w·B               for q ≤ q2,
//!        (1 − w)·q + w·(N·K/√p − C·d/M) otherwise,
//! ```
//!
//! as printed (a test checks the two forms against each other). Because p is non-decreasing in
//! q, the clamp form holds for every drop function, where q1 and q2 are wherever p(q) crosses
//! p1 and p2, and needs no case analysis (for instance when p1 > p_max and q1 lies in the gentle
//! region or on RED's jump to 1).

use crate::drop_function::{DropFunction, DropKind};
use crate::network::Network;
use crate::params::ModelParams;
use crate::tuning::p_max_for_target;
use aqm::beta_curve::validate_theta;
use aqm::ParamError;

/// A validated instance of the map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// N, C, d, M, B, K.
    pub network: Network,
    /// p(q_avg).
    pub drop: DropFunction,
    /// w per round trip.
    pub w: f64,
}

/// One step of the map from q_n.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// q_(n+1) = f(q_n), packets.
    pub q_avg_pkts: f64,
    /// Q(p(q_n)), the instantaneous queue of the round trip, packets.
    pub queue_pkts: f64,
    /// f′(q_n).
    pub derivative: f64,
}

/// Check w ∈ (0, 1].
pub fn validate_w(w: f64) -> Result<(), ParamError> {
    if w > 0.0 && w <= 1.0 {
        Ok(())
    } else {
        Err(ParamError::new("w", "must be in (0, 1]"))
    }
}

impl Model {
    /// Validate `params` and build the map. With `p_max_from_target` p_max is replaced by the
    /// value that puts the fixed point at q_target (eq. (3.2) and its general form).
    pub fn new(params: &ModelParams) -> Result<Model, ParamError> {
        params.network.validate()?;
        validate_w(params.w)?;
        validate_theta(params.theta)?;
        let build = |p_max: f64| match params.drop {
            DropKind::Red | DropKind::Gentle => DropFunction::linear(
                params.q_min_pkts,
                params.q_max_pkts,
                p_max,
                params.drop == DropKind::Gentle,
            ),
            DropKind::BetaRed => DropFunction::beta(
                params.q_min_pkts,
                params.q_max_pkts,
                params.q_target_pkts,
                p_max,
                params.theta,
            ),
        };
        let p_max = if params.p_max_from_target {
            p_max_for_target(&params.network, &build(1.0)?, params.q_target_pkts)?
        } else {
            params.p_max
        };
        Ok(Model {
            network: params.network,
            drop: build(p_max)?,
            w: params.w,
        })
    }

    /// Q(p(q_avg)): the instantaneous queue the flows build in the round trip after the router
    /// averaged q_avg.
    #[inline]
    pub fn queue_pkts(&self, q_avg_pkts: f64) -> f64 {
        self.network.queue_pkts(self.drop.probability(q_avg_pkts))
    }

    /// f(q) = (1 − w)·q + w·Q(p(q)), eq. (2.3).
    #[inline]
    pub fn f(&self, q_avg_pkts: f64) -> f64 {
        (1.0 - self.w) * q_avg_pkts + self.w * self.queue_pkts(q_avg_pkts)
    }

    /// f′(q) = 1 − w + w·Q′(p)·p′(q), with Q′(p) = −N·K/(2·p^(3/2)) where Q is not clamped
    /// and 0 where it is (the derivative of eq. (2.3); at the fixed point it is eq. (3.9)).
    #[inline]
    pub fn derivative(&self, q_avg_pkts: f64) -> f64 {
        self.step(q_avg_pkts).derivative
    }

    /// f(q), Q(p(q)) and f′(q) with one evaluation of the drop function.
    #[inline]
    pub fn step(&self, q_avg_pkts: f64) -> Step {
        let p = self.drop.probability(q_avg_pkts);
        let queue = self.network.queue_pkts(p);
        let dq_dp = self.network.queue_slope(p);
        let slope = if dq_dp == 0.0 {
            0.0
        } else {
            dq_dp * self.drop.slope(q_avg_pkts)
        };
        Step {
            q_avg_pkts: (1.0 - self.w) * q_avg_pkts + self.w * queue,
            queue_pkts: queue,
            derivative: 1.0 - self.w + self.w * slope,
        }
    }

    /// Where the branches of eq. (2.3) meet for any drop function: q1, the smallest q_avg
    /// with p(q_avg) ≥ p1 (the queue empties from there on), and q2, the smallest with
    /// p(q_avg) > p2 (the buffer stays full below it), found by bisection on [0, B] (p is
    /// non-decreasing); B when p does not get there inside the buffer.
    pub fn branch_points(&self) -> (f64, f64) {
        let b = self.network.buffer_pkts;
        let first = |reached: &dyn Fn(f64) -> bool| {
            if !reached(b) {
                return b;
            }
            if reached(0.0) {
                return 0.0;
            }
            let (mut lo, mut hi) = (0.0, b);
            loop {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    return hi;
                }
                if reached(mid) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
        };
        let (p1, p2) = (self.network.p1(), self.network.p2());
        (
            first(&|q| self.drop.probability(q) >= p1),
            first(&|q| self.drop.probability(q) > p2),
        )
    }

    /// The paper's breakpoints (q1, q2) for the linear ramp: q1 = p1·(q_max − q_min)/p_max +
    /// q_min, q2 = p2·(q_max − q_min)/p_max + q_min (after eq. (2.3)). They are where the
    /// branches of eq. (2.3) meet only while p1, p2 ≤ p_max.
    pub fn q1_q2(&self) -> (f64, f64) {
        let (q_min, q_max, p_max) = self.drop.thresholds();
        let span = q_max - q_min;
        (
            self.network.p1() * span / p_max + q_min,
            self.network.p2() * span / p_max + q_min,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> Model {
        Model::new(&ModelParams {
            drop: DropKind::Red,
            ..ModelParams::default()
        })
        .unwrap()
    }

    /// Eq. (2.3) exactly as printed, with the linear ramp.
    fn eq_2_3(m: &Model, q: f64) -> f64 {
        let (q1, q2) = m.q1_q2();
        let n = &m.network;
        let w = m.w;
        if q >= q1 {
            (1.0 - w) * q
        } else if q <= q2 {
            (1.0 - w) * q + w * n.buffer_pkts
        } else {
            let p = m.drop.probability(q);
            (1.0 - w) * q + w * (n.nk() / p.sqrt() - n.bdp_pkts())
        }
    }

    #[test]
    fn clamp_form_equals_the_three_branches_of_eq_2_3() {
        let m = reference();
        let (q1, q2) = m.q1_q2();
        // Reference case: q2 ≈ 264.8, q1 ≈ 383.3, both inside [q_min, q_max].
        assert!(
            (q2 - 264.81).abs() < 0.01 && (q1 - 383.33).abs() < 0.01,
            "{q1} {q2}"
        );
        let (g1, g2) = m.branch_points();
        assert!(
            (g1 - q1).abs() < 1e-9 && (g2 - q2).abs() < 1e-9,
            "{g1} {g2}"
        );
        for i in 0..=37_500 {
            let q = i as f64 * 0.1;
            let (a, b) = (m.f(q), eq_2_3(&m, q));
            assert!(
                (a - b).abs() < 1e-9 * b.abs().max(1.0),
                "q = {q}: {a} vs {b}"
            );
        }
    }

    #[test]
    fn derivative_matches_finite_differences() {
        for drop in [DropKind::Red, DropKind::Gentle, DropKind::BetaRed] {
            let m = Model::new(&ModelParams {
                drop,
                ..ModelParams::default()
            })
            .unwrap();
            for q in [100.0, 270.0, 300.0, 345.1, 380.0, 600.0, 1000.0] {
                let h = 1e-5;
                let num = (m.f(q + h) - m.f(q - h)) / (2.0 * h);
                let d = m.derivative(q);
                assert!(
                    (d - num).abs() < 1e-5 * d.abs().max(1.0),
                    "{drop:?} q = {q}"
                );
            }
        }
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let err = |p: ModelParams| Model::new(&p).unwrap_err().to_string();
        let d = ModelParams::default;
        assert_eq!(err(ModelParams { w: 0.0, ..d() }), "w: must be in (0, 1]");
        assert_eq!(err(ModelParams { w: 1.5, ..d() }), "w: must be in (0, 1]");
        assert_eq!(
            err(ModelParams { w: f64::NAN, ..d() }),
            "w: must be in (0, 1]"
        );
        assert!(Model::new(&ModelParams { w: 1.0, ..d() }).is_ok());
        for theta in [0.0, 1.0, -0.5, 2.0] {
            let p = ModelParams {
                drop: DropKind::BetaRed,
                theta,
                ..d()
            };
            assert_eq!(err(p), "theta: must be in [0.005, 1)");
        }
        assert_eq!(
            err(ModelParams { p_max: 0.0, ..d() }),
            "p_max: must be in (0, 1]"
        );
        let mut p = d();
        p.network.n_flows = -3.0;
        assert_eq!(err(p), "n_flows: must be in [0.001, 1000000000]");
    }
}
