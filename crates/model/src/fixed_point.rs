//! Fixed points of the map, the eigenvalue there and the stability bound on w
//! (self-tuning-RED paper §3.1 and §3.3, eq. (3.1), (3.9)–(3.12)); the p_max that puts the
//! fixed point at a target is in `tuning.rs`.
//!
//! A fixed point solves q = f(q) ⇔ Q(p(q)) = q, which does not involve w: w moves only the
//! eigenvalue. With s = −Q′(p(q*))·p′(q*) ≥ 0 the eigenvalue is λ = f′(q*) = 1 − w·(1 + s)
//! (eq. (3.9)–(3.10)), always below 1, so the fixed point is linearly stable exactly while
//! λ > −1, i.e. w < 2/(1 + s). For the linear ramp at q* = q_target this is eq. (3.12).

use crate::map::Model;
use crate::network::Network;

/// Intervals of the scan of [0, B] for sign changes of Q(p(q)) − q.
const SCAN_INTERVALS: usize = 256;

/// A fixed point q* = f(q*) and its linear stability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedPoint {
    /// q*, packets.
    pub q_avg_pkts: f64,
    /// p(q*).
    pub p: f64,
    /// λ = f′(q*) (eq. (3.9)) for the model's w.
    pub eigenvalue: f64,
    /// s = −Q′(p(q*))·p′(q*) ≥ 0, so that λ = 1 − w·(1 + s); independent of w.
    pub gain: f64,
    /// 2/(1 + s): the fixed point is linearly stable (|λ| < 1) exactly for w below it
    /// (eq. (3.10) solved for w; a bound above 1 means stable for every w in (0, 1]).
    pub w_bound: f64,
    /// |λ| < 1.
    pub stable: bool,
    /// The closed form eq. (3.12), 4/(3 + (q_min + d·C/M)/(q* − q_min)), when it applies: the
    /// drop function is the linear ramp there (RED or gentle RED with q_min < q* < q_max) and
    /// the queue is not clamped. Equal to `w_bound` then.
    pub w_bound_eq312: Option<f64>,
}

/// Every fixed point on [0, B], and where Q(p(q)) − q changes sign across a jump of the drop
/// function instead (RED's jump from p_max to 1 at q_max): there is no fixed point then, and
/// the orbit oscillates around that q.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Equilibria {
    /// The fixed points, in increasing order.
    pub fixed_points: Vec<FixedPoint>,
    /// Sign changes across a discontinuity, packets.
    pub jumps: Vec<f64>,
}

/// Find every root of Q(p(q)) − q on [0, B]: a scan of [0, B] (the drop function's
/// breakpoints and q1, q2 included) for sign changes, each bracket then bisected to the last
/// bit. For the drop functions here Q(p(q)) is non-increasing, so there is at most one root.
pub fn equilibria(model: &Model) -> Equilibria {
    let b = model.network.buffer_pkts;
    let g = |q: f64| model.queue_pkts(q) - q;
    let (q1, q2) = model.branch_points();
    let mut grid: Vec<f64> = (0..=SCAN_INTERVALS)
        .map(|i| b * i as f64 / SCAN_INTERVALS as f64)
        .chain(model.drop.breakpoints())
        .chain([q1, q2])
        .filter(|q| (0.0..=b).contains(q))
        .collect();
    grid.sort_by(f64::total_cmp);
    grid.dedup();

    let mut out = Equilibria::default();
    let tolerance = 1e-6 * b.max(1.0);
    let push_root = |q: f64, out: &mut Equilibria| {
        if out.fixed_points.last().map(|f| f.q_avg_pkts) != Some(q) {
            out.fixed_points.push(fixed_point_at(model, q));
        }
    };
    for pair in grid.windows(2) {
        let (mut lo, mut hi) = (pair[0], pair[1]);
        let (g_lo, g_hi) = (g(lo), g(hi));
        if g_lo == 0.0 {
            push_root(lo, &mut out);
            continue;
        }
        if g_hi == 0.0 || (g_lo > 0.0) == (g_hi > 0.0) {
            continue;
        }
        let lo_positive = g_lo > 0.0;
        loop {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if (g(mid) > 0.0) == lo_positive {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (r_lo, r_hi) = (g(lo).abs(), g(hi).abs());
        if r_lo.min(r_hi) > tolerance {
            out.jumps.push(hi);
        } else {
            push_root(if r_lo <= r_hi { lo } else { hi }, &mut out);
        }
    }
    if let Some(&last) = grid.last() {
        if g(last) == 0.0 {
            push_root(last, &mut out);
        }
    }
    out
}

/// The eigenvalue, gain and bounds at a fixed point q*.
pub fn fixed_point_at(model: &Model, q_star: f64) -> FixedPoint {
    let n = &model.network;
    let p = model.drop.probability(q_star);
    let gain = -n.queue_slope(p) * model.drop.slope(q_star);
    let eigenvalue = 1.0 - model.w * (1.0 + gain);
    let (q_min, q_max, _) = model.drop.thresholds();
    let unclamped = n.queue_slope(p) != 0.0;
    let w_bound_eq312 = (model.drop.is_linear() && q_star > q_min && q_star < q_max && unclamped)
        .then(|| w_bound_eq312(n, q_min, q_star));
    FixedPoint {
        q_avg_pkts: q_star,
        p,
        eigenvalue,
        gain,
        w_bound: 2.0 / (1.0 + gain),
        stable: eigenvalue.abs() < 1.0,
        w_bound_eq312,
    }
}

/// Eq. (3.12): the fixed point q* of the linear ramp is linearly stable for
/// w < 4/(3 + (q_min + d·C/M)/(q* − q_min)).
pub fn w_bound_eq312(network: &Network, q_min_pkts: f64, q_star_pkts: f64) -> f64 {
    aqm::red_tuning::w_bound_eq312(q_min_pkts, q_star_pkts, network.bdp_pkts())
}

/// Eq. (3.10): λ = 1 − w − w·N·K/(2·√v·(q* − q_min)^(3/2)), v = p_max/(q_max − q_min), the
/// eigenvalue at a fixed point q* on the linear ramp (eq. (3.9) prints the first w twice).
pub fn eigenvalue_eq310(
    network: &Network,
    w: f64,
    p_max: f64,
    q_min_pkts: f64,
    q_max_pkts: f64,
    q_star_pkts: f64,
) -> f64 {
    let v = p_max / (q_max_pkts - q_min_pkts);
    1.0 - w - w * network.nk() / (2.0 * v.sqrt() * (q_star_pkts - q_min_pkts).powf(1.5))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_function::DropKind;
    use crate::params::ModelParams;

    fn model(drop: DropKind, p_max: f64, w: f64) -> Model {
        Model::new(&ModelParams {
            drop,
            p_max,
            w,
            ..ModelParams::default()
        })
        .unwrap()
    }

    #[test]
    fn worked_example_fixed_point_and_bound() {
        // §3.3: p_max = 0.1 and the reference constants give q* = 345.1, stable for w < 0.1578.
        for drop in [DropKind::Red, DropKind::Gentle] {
            let eq = equilibria(&model(drop, 0.1, 0.02));
            assert!(eq.jumps.is_empty());
            assert_eq!(eq.fixed_points.len(), 1);
            let fp = eq.fixed_points[0];
            assert!(
                (fp.q_avg_pkts - 345.1).abs() < 0.05,
                "q* = {}",
                fp.q_avg_pkts
            );
            assert!((fp.w_bound - 0.1578).abs() < 5e-5, "bound {}", fp.w_bound);
            let closed = fp.w_bound_eq312.unwrap();
            assert!(
                (closed - fp.w_bound).abs() < 1e-12,
                "{closed} vs {}",
                fp.w_bound
            );
            assert!(fp.stable && (fp.eigenvalue - (1.0 - 0.02 * (1.0 + fp.gain))).abs() < 1e-15);
            // Eq. (3.12) at the paper's rounded q* = 345.1.
            let rounded = w_bound_eq312(&Network::default(), 250.0, 345.1);
            assert!((rounded - 0.1578).abs() < 5e-5, "{rounded}");
        }
    }

    #[test]
    fn eigenvalue_closed_form_eq_3_10() {
        for w in [0.02, 0.15, 0.16, 0.5] {
            let m = model(DropKind::Red, 0.1, w);
            let fp = equilibria(&m).fixed_points[0];
            let closed = eigenvalue_eq310(&m.network, w, 0.1, 250.0, 750.0, fp.q_avg_pkts);
            assert!((closed - fp.eigenvalue).abs() < 1e-12, "w = {w}");
            assert_eq!(fp.stable, w < fp.w_bound);
        }
    }

    #[test]
    fn red_jump_has_no_fixed_point() {
        // p_max = 0.01: Q(p_max) > q_max, and plain RED jumps to p = 1 at q_max, where Q = 0.
        let eq = equilibria(&model(DropKind::Red, 0.01, 0.02));
        assert!(eq.fixed_points.is_empty());
        assert_eq!(eq.jumps.len(), 1);
        assert!((eq.jumps[0] - 750.0).abs() < 1e-9);
        // Gentle RED has one, just above q_max and unstable at w = 0.02 (Fig. 3: oscillation
        // around q_max).
        let eq = equilibria(&model(DropKind::Gentle, 0.01, 0.02));
        let fp = eq.fixed_points[0];
        assert!(fp.q_avg_pkts > 750.0 && fp.q_avg_pkts < 760.0 && !fp.stable);
        assert!(fp.w_bound_eq312.is_none());
    }
}
