//! Sweeps over one parameter: the bifurcation diagram (the attractor's iterates against the
//! parameter, as the self-tuning-RED paper's Fig. 3 over p_max and Fig. 4 over w) and, from
//! the same orbits, the Lyapunov exponent and the period at each value.

use crate::attractor::{attractor, Attractor, OrbitOptions};
use crate::fixed_point::{equilibria, FixedPoint};
use crate::map::Model;
use crate::parallel::par_map;
use crate::params::{ModelParams, Param};
use crate::stop::{ModelError, Stop};
use aqm::ParamError;

/// One value of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    /// The parameter's value.
    pub value: f64,
    /// Where the orbit from q_0 settles.
    pub attractor: Attractor,
    /// The fixed point (the first, should there be several), if any.
    pub fixed_point: Option<FixedPoint>,
    /// p_max in force (differs from the parameters' with `p_max_from_target`).
    pub p_max: f64,
}

/// Build the model for every value first, so that a bad value fails before any work, with
/// the value in the message.
pub(crate) fn models(
    params: &ModelParams,
    param: Param,
    values: &[f64],
) -> Result<Vec<Model>, ParamError> {
    values
        .iter()
        .map(|&v| {
            Model::new(&params.with(param, v)).map_err(|e| {
                ParamError::new(
                    &e.field,
                    format!("{} (sweep value {} = {v})", e.message, param.name()),
                )
            })
        })
        .collect()
}

/// The orbit, period, Lyapunov exponent and fixed point at each value of `param`, on
/// `threads` threads (0: every core), until `stop` is requested.
pub fn sweep(
    params: &ModelParams,
    param: Param,
    values: &[f64],
    opts: &OrbitOptions,
    threads: usize,
    stop: Stop,
) -> Result<Vec<SweepPoint>, ModelError> {
    opts.validate()?;
    let models = models(params, param, values)?;
    let items: Vec<(f64, Model)> = values.iter().copied().zip(models).collect();
    par_map(&items, threads, |(value, model)| {
        Ok(SweepPoint {
            value: *value,
            attractor: attractor(model, opts, stop)?,
            fixed_point: equilibria(model).fixed_points.first().copied(),
            p_max: model.drop.thresholds().2,
        })
    })
    .into_iter()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_function::DropKind;

    #[test]
    fn fig4_period_doubling_over_w() {
        // Fig. 4: w from 0.12 to 0.2 with p_max = 0.1: the fixed point 345.1 up to 0.1578,
        // then period 2, then chaos.
        let params = ModelParams {
            drop: DropKind::Gentle,
            ..ModelParams::default()
        };
        let values: Vec<f64> = (0..=80).map(|i| 0.12 + 0.001 * i as f64).collect();
        let opts = OrbitOptions {
            iterations: 20_000,
            transient: 15_000,
            ..OrbitOptions::default()
        };
        let pts = sweep(&params, Param::W, &values, &opts, 2, Stop::NEVER).unwrap();
        for p in &pts {
            let fp = p.fixed_point.unwrap();
            assert!((fp.q_avg_pkts - 345.1).abs() < 0.05);
            if p.value < 0.155 {
                assert_eq!(p.attractor.period, Some(1), "w = {}", p.value);
            }
            if (0.159..0.163).contains(&p.value) {
                assert_eq!(p.attractor.period, Some(2), "w = {}", p.value);
            }
            // The period-2 orbit reaches the breakpoint q1 ≈ 383.3 near w = 0.164 (a
            // border collision) and the orbit turns chaotic at once.
            if p.value > 0.1645 {
                assert_eq!(p.attractor.period, None, "w = {}", p.value);
                assert!(p.attractor.lyapunov > 0.0, "w = {}", p.value);
            }
        }
    }

    #[test]
    fn a_bad_sweep_value_fails_before_any_work() {
        let e = sweep(
            &ModelParams::default(),
            Param::W,
            &[0.1, 1.2],
            &OrbitOptions::default(),
            1,
            Stop::NEVER,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "w: must be in (0, 1] (sweep value w = 1.2)");
        let betared = ModelParams {
            drop: DropKind::BetaRed,
            ..ModelParams::default()
        };
        let e = sweep(
            &betared,
            Param::Theta,
            &[0.5, 1.0],
            &OrbitOptions::default(),
            1,
            Stop::NEVER,
        )
        .unwrap_err();
        assert!(matches!(e, ModelError::Param(p) if p.field == "theta"));
    }

    #[test]
    fn result_does_not_depend_on_threads() {
        let values: Vec<f64> = (0..17).map(|i| 0.02 + 0.05 * i as f64).collect();
        let one = sweep(
            &ModelParams::default(),
            Param::PMax,
            &values,
            &OrbitOptions::default(),
            1,
            Stop::NEVER,
        );
        let three = sweep(
            &ModelParams::default(),
            Param::PMax,
            &values,
            &OrbitOptions::default(),
            3,
            Stop::NEVER,
        );
        assert_eq!(one.unwrap(), three.unwrap());
    }
}
