//! Orbits of the map: q_0, f(q_0), f(f(q_0)), … with the instantaneous queue of each round.

use crate::map::Model;
use crate::stop::{ModelError, Stop, POLL_EVERY};
use aqm::ParamError;

/// An orbit from q_0.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Orbit {
    /// q_avg,0 … q_avg,n, packets.
    pub q_avg_pkts: Vec<f64>,
    /// q_0 … q_n: q_k = Q(p(q_avg,k−1)) is the instantaneous queue averaged into q_avg,k
    /// (eq. (2.2): q_avg,k = (1 − w)·q_avg,k−1 + w·q_k); q_0 is NaN (no round before).
    pub queue_pkts: Vec<f64>,
}

/// Check q_0 ∈ [0, B].
pub fn validate_q0(model: &Model, q0_pkts: f64) -> Result<(), ParamError> {
    let b = model.network.buffer_pkts;
    if (0.0..=b).contains(&q0_pkts) {
        Ok(())
    } else {
        Err(ParamError::new(
            "q0_pkts",
            format!("must be in [0, buffer_pkts] = [0, {b}]"),
        ))
    }
}

/// The default start: mid-way between q_min and q_max, inside [0, B].
pub fn default_q0(model: &Model) -> f64 {
    let (q_min, q_max, _) = model.drop.thresholds();
    (0.5 * (q_min + q_max)).min(model.network.buffer_pkts)
}

/// `steps` iterations of the map from `q0_pkts` (n + 1 points); `stop` is looked at every
/// [`POLL_EVERY`] iterations.
pub fn orbit(model: &Model, q0_pkts: f64, steps: usize, stop: Stop) -> Result<Orbit, ModelError> {
    validate_q0(model, q0_pkts)?;
    let mut out = Orbit {
        q_avg_pkts: Vec::with_capacity(steps + 1),
        queue_pkts: Vec::with_capacity(steps + 1),
    };
    out.q_avg_pkts.push(q0_pkts);
    out.queue_pkts.push(f64::NAN);
    let mut q = q0_pkts;
    for i in 0..steps {
        if i % POLL_EVERY == 0 {
            stop.check()?;
        }
        let s = model.step(q);
        q = s.q_avg_pkts;
        out.q_avg_pkts.push(q);
        out.queue_pkts.push(s.queue_pkts);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_function::DropKind;
    use crate::params::ModelParams;

    #[test]
    fn orbit_follows_eq_2_2() {
        let m = Model::new(&ModelParams::default()).unwrap();
        let o = orbit(&m, 500.0, 50, Stop::NEVER).unwrap();
        assert_eq!(o.q_avg_pkts.len(), 51);
        for k in 1..=50 {
            let expect = (1.0 - m.w) * o.q_avg_pkts[k - 1] + m.w * o.queue_pkts[k];
            assert!((o.q_avg_pkts[k] - expect).abs() < 1e-12);
            assert!((0.0..=m.network.buffer_pkts).contains(&o.queue_pkts[k]));
        }
    }

    #[test]
    fn q0_outside_the_buffer_is_an_error() {
        let m = Model::new(&ModelParams {
            drop: DropKind::Red,
            ..ModelParams::default()
        })
        .unwrap();
        let e = orbit(&m, 4000.0, 10, Stop::NEVER).unwrap_err();
        assert_eq!(
            e.to_string(),
            "q0_pkts: must be in [0, buffer_pkts] = [0, 3750]"
        );
        assert!(orbit(&m, -1.0, 10, Stop::NEVER).is_err());
    }
}
