//! Two-parameter stability maps: over a grid of two parameters (for example θ × w), the
//! Lyapunov exponent and the period of the orbit, and the linear stability of the fixed
//! point. The BetaRED authors present "robust parameter regions" this way.

use crate::attractor::{attractor, OrbitOptions};
use crate::bifurcation::models;
use crate::fixed_point::{equilibria, FixedPoint};
use crate::map::Model;
use crate::parallel::par_map;
use crate::params::{ModelParams, Param};
use crate::stop::{ModelError, Stop};
use aqm::ParamError;

/// One cell of the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct MapCell {
    /// The x parameter's value.
    pub x: f64,
    /// The y parameter's value.
    pub y: f64,
    /// The Lyapunov exponent of the orbit from q_0.
    pub lyapunov: f64,
    /// Its period, `None` for none up to `max_period`.
    pub period: Option<usize>,
    /// The fixed point, if any.
    pub fixed_point: Option<FixedPoint>,
}

/// Every (x, y) of `xs` × `ys`, y-major (all x for the first y, then the next y), on
/// `threads` threads (0: every core), until `stop` is requested. `opts.keep` is ignored.
#[allow(clippy::too_many_arguments)]
pub fn stability_map(
    params: &ModelParams,
    x: Param,
    xs: &[f64],
    y: Param,
    ys: &[f64],
    opts: &OrbitOptions,
    threads: usize,
    stop: Stop,
) -> Result<Vec<MapCell>, ModelError> {
    if x == y {
        return Err(ParamError::new(x.name(), "x and y must be different parameters").into());
    }
    let opts = OrbitOptions { keep: 0, ..*opts };
    opts.validate()?;
    let mut cells: Vec<(f64, f64, Model)> = Vec::with_capacity(xs.len() * ys.len());
    for &yv in ys {
        let row = params.with(y, yv);
        for (&xv, model) in xs.iter().zip(models(&row, x, xs)?) {
            cells.push((xv, yv, model));
        }
    }
    par_map(&cells, threads, |(xv, yv, model)| {
        let a = attractor(model, &opts, stop)?;
        Ok(MapCell {
            x: *xv,
            y: *yv,
            lyapunov: a.lyapunov,
            period: a.period,
            fixed_point: equilibria(model).fixed_points.first().copied(),
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
    fn red_map_over_p_max_and_w_matches_the_linear_bound() {
        let params = ModelParams {
            drop: DropKind::Red,
            ..ModelParams::default()
        };
        let ws = [0.05, 0.1, 0.15, 0.2, 0.3];
        let pmaxs = [0.05, 0.1, 0.2];
        let cells = stability_map(
            &params,
            Param::W,
            &ws,
            Param::PMax,
            &pmaxs,
            &OrbitOptions::default(),
            2,
            Stop::NEVER,
        )
        .unwrap();
        assert_eq!(cells.len(), 15);
        assert_eq!((cells[1].x, cells[1].y), (0.1, 0.05));
        for c in &cells {
            let fp = c.fixed_point.unwrap();
            // Linearly stable fixed point ⇔ the orbit converges (period 1, negative exponent).
            if fp.w_bound > c.x * 1.02 {
                assert_eq!(c.period, Some(1), "w = {}, p_max = {}", c.x, c.y);
                assert!(c.lyapunov < 0.0);
            } else if fp.w_bound < c.x * 0.98 {
                assert_ne!(c.period, Some(1), "w = {}, p_max = {}", c.x, c.y);
            }
        }
    }

    #[test]
    fn same_parameter_twice_is_an_error() {
        let e = stability_map(
            &ModelParams::default(),
            Param::W,
            &[0.1],
            Param::W,
            &[0.2],
            &OrbitOptions::default(),
            1,
            Stop::NEVER,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "w: x and y must be different parameters");
    }

    #[test]
    fn a_requested_stop_ends_a_long_map() {
        let flag = std::sync::atomic::AtomicBool::new(true);
        let long = OrbitOptions {
            iterations: usize::MAX,
            early_exit: false,
            ..OrbitOptions::default()
        };
        let ws: Vec<f64> = (1..=40).map(|i| 0.01 * i as f64).collect();
        let e = stability_map(
            &ModelParams::default(),
            Param::W,
            &ws,
            Param::PMax,
            &[0.1, 0.2],
            &long,
            2,
            Stop::on(&flag),
        );
        assert_eq!(e.unwrap_err(), ModelError::Stopped);
    }
}
