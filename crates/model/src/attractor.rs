//! The long-run behaviour of one orbit: iterate past a transient, then record the last
//! iterates, the period and the Lyapunov exponent. What every point of a bifurcation diagram,
//! a Lyapunov sweep and a stability map computes.

use crate::lyapunov::ln_abs;
use crate::map::Model;
use crate::orbit::{default_q0, validate_q0};
use crate::period::detect_period;
use crate::stop::{ModelError, Stop, POLL_EVERY};
use aqm::ParamError;
use std::collections::VecDeque;

/// How far the orbit settles before it is measured.
const EXIT_TOLERANCE: f64 = 1e-12;
/// Steps between checks for a settled cycle.
const CHECK_EVERY: usize = 64;
/// Longest period that may be looked for: each check compares up to 2·max_period iterates
/// at each candidate period.
pub const MAX_PERIOD: usize = 100_000;

/// How each orbit is run and measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitOptions {
    /// q_0, packets; `None`: mid-way between q_min and q_max.
    pub q0_pkts: Option<f64>,
    /// Iterations of the map in all, transient included.
    pub iterations: usize,
    /// Iterations discarded before the Lyapunov exponent is averaged.
    pub transient: usize,
    /// The last iterates recorded (at most iterations − transient).
    pub keep: usize,
    /// Longest period looked for.
    pub max_period: usize,
    /// Two iterates a period apart closer than this are equal; `None`: 10⁻⁶·B.
    pub period_tol_pkts: Option<f64>,
    /// Stop iterating the map once the orbit has settled on a cycle to within 10⁻¹²·B
    /// (every iterate a period apart, over 2·max_period iterates), and continue along the
    /// cycle instead: the recorded iterates then differ from a full iteration by less than
    /// that settling error divided by the cycle's contraction (far below the period
    /// tolerance), and chaotic orbits are iterated in full.
    pub early_exit: bool,
}

impl Default for OrbitOptions {
    /// 10⁴ iterations, the first half transient, the last 200 recorded, periods up to 64.
    fn default() -> Self {
        OrbitOptions {
            q0_pkts: None,
            iterations: 10_000,
            transient: 5_000,
            keep: 200,
            max_period: 64,
            period_tol_pkts: None,
            early_exit: true,
        }
    }
}

impl OrbitOptions {
    /// Check the counts: transient < iterations, keep ≤ iterations − transient,
    /// 1 ≤ max_period ≤ [`MAX_PERIOD`], a positive tolerance.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.iterations == 0 {
            return Err(ParamError::new("iterations", "must be at least 1"));
        }
        if self.transient >= self.iterations {
            return Err(ParamError::new(
                "transient",
                format!("must be below iterations ({})", self.iterations),
            ));
        }
        if self.keep > self.iterations - self.transient {
            return Err(ParamError::new(
                "keep",
                format!(
                    "must be at most iterations - transient ({})",
                    self.iterations - self.transient
                ),
            ));
        }
        if !(1..=MAX_PERIOD).contains(&self.max_period) {
            return Err(ParamError::new(
                "max_period",
                format!("must be in 1..{MAX_PERIOD}"),
            ));
        }
        if let Some(tol) = self.period_tol_pkts {
            if !(tol > 0.0 && tol.is_finite()) {
                return Err(ParamError::new("period_tol_pkts", "must be a number > 0"));
            }
        }
        Ok(())
    }
}

/// What an orbit settles on.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Attractor {
    /// The last `keep` values of q_avg, packets.
    pub q_avg_pkts: Vec<f64>,
    /// The instantaneous queue averaged into each of them (see [`crate::orbit::Orbit`]).
    pub queue_pkts: Vec<f64>,
    /// The period found within the tolerance, `None` for none up to `max_period`.
    pub period: Option<usize>,
    /// The Lyapunov exponent over the iterations after the transient.
    pub lyapunov: f64,
    /// Iterations of the map actually evaluated (fewer than `iterations` after an early exit).
    pub evaluated: usize,
}

/// A settled cycle the orbit continues along.
struct Cycle {
    /// c_0 … c_(P−1): the next iterates.
    q: Vec<f64>,
    /// The queue averaged into c_j, Q(p(c_(j−1))).
    queue: Vec<f64>,
    /// ln|f′(c_(j−1))|, the derivative of the step that gives c_j.
    ln_d: Vec<f64>,
    pos: usize,
}

impl Cycle {
    fn from_tail(model: &Model, tail: &[f64]) -> Cycle {
        let p = tail.len();
        let mut c = Cycle {
            q: tail.to_vec(),
            queue: Vec::with_capacity(p),
            ln_d: Vec::with_capacity(p),
            pos: 0,
        };
        for j in 0..p {
            let s = model.step(tail[(j + p - 1) % p]);
            c.queue.push(s.queue_pkts);
            c.ln_d.push(ln_abs(s.derivative));
        }
        c
    }
}

/// Iterate the map from q_0 and measure where the orbit goes (options checked first);
/// `stop` is looked at every [`POLL_EVERY`] iterations.
pub fn attractor(model: &Model, opts: &OrbitOptions, stop: Stop) -> Result<Attractor, ModelError> {
    opts.validate()?;
    let q0 = opts.q0_pkts.unwrap_or_else(|| default_q0(model));
    validate_q0(model, q0)?;
    let b = model.network.buffer_pkts;
    let tol = opts.period_tol_pkts.unwrap_or(1e-6 * b);
    let ring_len = 2 * opts.max_period;
    let mut ring: VecDeque<f64> = VecDeque::with_capacity(ring_len + 1);
    let keep_from = opts.iterations - opts.keep;
    let mut out = Attractor {
        q_avg_pkts: Vec::with_capacity(opts.keep),
        queue_pkts: Vec::with_capacity(opts.keep),
        ..Attractor::default()
    };
    let mut cycle: Option<Cycle> = None;
    let mut q = q0;
    let mut sum = 0.0;
    for i in 1..=opts.iterations {
        if i % POLL_EVERY == 0 {
            stop.check()?;
        }
        let (next, queue, ln_d) = match &mut cycle {
            None => {
                out.evaluated += 1;
                let s = model.step(q);
                (s.q_avg_pkts, s.queue_pkts, ln_abs(s.derivative))
            }
            Some(c) => {
                let j = c.pos;
                c.pos = (j + 1) % c.q.len();
                (c.q[j], c.queue[j], c.ln_d[j])
            }
        };
        if i > opts.transient {
            sum += ln_d;
        }
        q = next;
        if i > keep_from {
            out.q_avg_pkts.push(q);
            out.queue_pkts.push(queue);
        }
        if ring.len() == ring_len {
            ring.pop_front();
        }
        ring.push_back(q);
        if opts.early_exit && cycle.is_none() && ring.len() == ring_len && i % CHECK_EVERY == 0 {
            let tail = ring.make_contiguous();
            if let Some(p) = detect_period(tail, opts.max_period, EXIT_TOLERANCE * b) {
                cycle = Some(Cycle::from_tail(model, &tail[tail.len() - p..]));
            }
        }
    }
    out.lyapunov = sum / (opts.iterations - opts.transient) as f64;
    out.period = detect_period(ring.make_contiguous(), opts.max_period, tol);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_function::DropKind;
    use crate::fixed_point::equilibria;
    use crate::params::ModelParams;

    fn red(w: f64) -> Model {
        Model::new(&ModelParams {
            drop: DropKind::Red,
            w,
            ..ModelParams::default()
        })
        .unwrap()
    }

    #[test]
    fn converges_just_below_the_bound_and_period_two_just_above() {
        let long = OrbitOptions {
            iterations: 40_000,
            transient: 30_000,
            ..OrbitOptions::default()
        };
        // w = 0.155 < 0.1578: the orbit converges to q* = 345.1.
        let m = red(0.155);
        let q_star = equilibria(&m).fixed_points[0].q_avg_pkts;
        let a = attractor(&m, &long, Stop::NEVER).unwrap();
        assert_eq!(a.period, Some(1));
        assert!(a.q_avg_pkts.iter().all(|q| (q - q_star).abs() < 1e-6));
        assert!(a.lyapunov < 0.0);
        // w = 0.16 > 0.1578: a period-2 orbit around q*.
        let a = attractor(&red(0.16), &long, Stop::NEVER).unwrap();
        assert_eq!(a.period, Some(2));
        let (lo, hi) = (
            a.q_avg_pkts[0].min(a.q_avg_pkts[1]),
            a.q_avg_pkts[0].max(a.q_avg_pkts[1]),
        );
        assert!(
            lo < q_star - 1.0 && hi > q_star + 1.0,
            "{lo} {hi} around {q_star}"
        );
        assert!(a.lyapunov < 0.0);
    }

    #[test]
    fn early_exit_agrees_with_full_iteration() {
        for w in [0.05, 0.155, 0.16, 0.17, 0.19, 0.2] {
            let m = red(w);
            let fast = attractor(&m, &OrbitOptions::default(), Stop::NEVER).unwrap();
            let full = attractor(
                &m,
                &OrbitOptions {
                    early_exit: false,
                    ..OrbitOptions::default()
                },
                Stop::NEVER,
            )
            .unwrap();
            assert_eq!(fast.period, full.period, "w = {w}");
            if full.period.is_some() {
                assert!((fast.lyapunov - full.lyapunov).abs() < 1e-6, "w = {w}");
                for (a, b) in fast.q_avg_pkts.iter().zip(&full.q_avg_pkts) {
                    assert!((a - b).abs() < 1e-6, "w = {w}: {a} vs {b}");
                }
            } else {
                assert_eq!(fast, full, "w = {w}");
            }
        }
    }

    #[test]
    fn bad_options_name_the_field() {
        let m = red(0.1);
        let field = |o: OrbitOptions| match attractor(&m, &o, Stop::NEVER) {
            Err(ModelError::Param(e)) => e.field,
            other => panic!("expected a parameter error, got {other:?}"),
        };
        let d = OrbitOptions::default;
        assert_eq!(
            field(OrbitOptions {
                transient: 10_000,
                ..d()
            }),
            "transient"
        );
        assert_eq!(field(OrbitOptions { keep: 6000, ..d() }), "keep");
        assert_eq!(
            field(OrbitOptions {
                max_period: 0,
                ..d()
            }),
            "max_period"
        );
        assert_eq!(
            field(OrbitOptions {
                max_period: MAX_PERIOD + 1,
                ..d()
            }),
            "max_period"
        );
        assert_eq!(
            field(OrbitOptions {
                q0_pkts: Some(-5.0),
                ..d()
            }),
            "q0_pkts"
        );
        assert_eq!(
            field(OrbitOptions {
                period_tol_pkts: Some(0.0),
                ..d()
            }),
            "period_tol_pkts"
        );
    }
}
