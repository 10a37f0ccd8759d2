//! Special functions of `aqm::math`, exposed for checks against reference implementations.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The regularized incomplete beta function I_x(a, b), as `scipy.special.betainc(a, b, x)`;
/// NaN for a ≤ 0, b ≤ 0 or x outside [0, 1].
#[pyfunction]
fn betainc(a: f64, b: f64, x: f64) -> f64 {
    aqm::math::beta_inc_reg(a, b, x)
}

/// `betainc` element by element over three sequences of equal length.
#[pyfunction]
fn betainc_many(py: Python<'_>, a: Vec<f64>, b: Vec<f64>, x: Vec<f64>) -> PyResult<Vec<f64>> {
    if a.len() != b.len() || a.len() != x.len() {
        return Err(PyValueError::new_err(format!(
            "betainc_many: a, b and x must have equal lengths, got {}, {} and {}",
            a.len(),
            b.len(),
            x.len()
        )));
    }
    Ok(py.allow_threads(|| {
        a.iter()
            .zip(&b)
            .zip(&x)
            .map(|((&a, &b), &x)| aqm::math::beta_inc_reg(a, b, x))
            .collect()
    }))
}

/// Add the special functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(betainc, m)?)?;
    m.add_function(wrap_pyfunction!(betainc_many, m)?)?;
    Ok(())
}
