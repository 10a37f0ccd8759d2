//! The Lyapunov exponent of an orbit: the mean of ln|f′(q_n)| along it after a transient.
//! Negative on a stable fixed point or cycle (it is then ln|λ| averaged over the cycle),
//! positive on a chaotic attractor.

use crate::map::Model;
use crate::orbit::validate_q0;
use aqm::ParamError;

/// ln|d|, floored at ln of the smallest normal f64 (about −708) so that a superstable point
/// (f′ = 0) does not make the mean −∞.
#[inline]
pub fn ln_abs(d: f64) -> f64 {
    d.abs().max(f64::MIN_POSITIVE).ln()
}

/// (1/n)·Σ ln|f′(q_k)| for k = t … t + n − 1, where t = `transient` iterations from q_0.
/// f′ is the one-sided derivative at the drop function's breakpoints (the map is piecewise
/// smooth); NaN when n = 0.
pub fn lyapunov(
    model: &Model,
    q0_pkts: f64,
    transient: usize,
    steps: usize,
) -> Result<f64, ParamError> {
    validate_q0(model, q0_pkts)?;
    let mut q = q0_pkts;
    for _ in 0..transient {
        q = model.f(q);
    }
    let mut sum = 0.0;
    for _ in 0..steps {
        let s = model.step(q);
        sum += ln_abs(s.derivative);
        q = s.q_avg_pkts;
    }
    Ok(sum / steps as f64)
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
    fn on_a_stable_fixed_point_it_is_ln_of_the_eigenvalue() {
        let m = red(0.1);
        let lambda = equilibria(&m).fixed_points[0].eigenvalue;
        let l = lyapunov(&m, 500.0, 5000, 1000).unwrap();
        assert!((l - lambda.abs().ln()).abs() < 1e-9, "{l} vs ln|{lambda}|");
    }

    #[test]
    fn sign_separates_order_from_chaos() {
        assert!(lyapunov(&red(0.155), 500.0, 20_000, 5000).unwrap() < 0.0);
        assert!(lyapunov(&red(0.2), 500.0, 5000, 20_000).unwrap() > 0.0);
    }
}
