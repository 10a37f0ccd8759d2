//! The discrete-time TCP/AQM model (`crates/model`): fixed points, orbits, one-parameter
//! sweeps (bifurcation diagram, Lyapunov exponent, period) and two-parameter stability maps.
//! Parameters come as a dict of the names `model::Param` accepts plus `drop` (`red`,
//! `gentle`, `betared`) and `p_max_from_target` (bool); bad values and bad arguments raise
//! ValueError with a one-line message naming the field or argument.

use crate::args::{self, Checked};
use crate::interrupt::interruptible;
use ::model::attractor::MAX_PERIOD;
use ::model::stop::POLL_EVERY;
use ::model::{DropKind, FixedPoint, ModelError, ModelParams, OrbitOptions, Param, ParamError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

/// Most rows a function returns (orbit steps, map points, sweep iterates kept, map cells):
/// about 2 GiB of Python floats at four columns.
const MAX_ROWS: usize = 50_000_000;
/// Most worker threads a sweep or map may ask for.
const MAX_THREADS: usize = 1024;
/// Most iterations of the map one sweep or stability map may ask for in all (iterations ×
/// values or cells): 10¹⁰, 5–30 minutes on one core at 30–200 ns per iteration (RED to
/// BetaRED), a hundred times the largest diagram of the papers.
const MAX_MAP_ITERATIONS: usize = 10_000_000_000;

fn value_err(e: ParamError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A parameter error as ValueError; a stop (only after a signal handler raised, which is
/// what reaches Python) as KeyboardInterrupt.
fn model_err(e: ModelError) -> PyErr {
    match e {
        ModelError::Param(e) => value_err(e),
        ModelError::Stopped => PyKeyboardInterrupt::new_err("stopped"),
    }
}

fn arg_err(message: String) -> PyErr {
    PyValueError::new_err(message)
}

/// Checked with the message as a ValueError.
fn checked<T>(c: Checked<T>) -> PyResult<T> {
    c.map_err(arg_err)
}

/// A finite value list for sweep or map axis `name`.
fn axis(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    checked(args::numbers(name, v, "finite numbers", f64::is_finite))
}

/// An optional number (`None` stays `None`; the model checks the range).
fn opt_number(name: &str, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
    v.filter(|v| !v.is_none())
        .map(|v| checked(args::number(name, v)))
        .transpose()
}

/// The parameters: the defaults (the self-tuning-RED paper's reference case) with the dict's
/// entries applied.
fn params_from(dict: Option<&Bound<'_, PyDict>>) -> PyResult<ModelParams> {
    let mut params = ModelParams::default();
    let Some(dict) = dict else {
        return Ok(params);
    };
    for (key, value) in dict.iter() {
        let key: String = key.extract().map_err(|_| {
            arg_err(format!(
                "params: names must be str, got {}",
                args::shown(&key)
            ))
        })?;
        match key.as_str() {
            "drop" => {
                let name: String = value
                    .extract()
                    .map_err(|_| PyValueError::new_err("drop: must be red, gentle or betared"))?;
                params.drop = DropKind::from_name(&name).map_err(value_err)?;
            }
            "p_max_from_target" => {
                if !value.is_instance_of::<PyBool>() {
                    return Err(PyValueError::new_err(
                        "p_max_from_target: must be true or false",
                    ));
                }
                params.p_max_from_target = value.extract()?;
            }
            _ => {
                let param = Param::from_name(&key).map_err(value_err)?;
                let x = checked(args::number_where(
                    &key,
                    &value,
                    "a finite number",
                    f64::is_finite,
                ))?;
                params.set(param, x);
            }
        }
    }
    Ok(params)
}

fn param_from(name: &str) -> PyResult<Param> {
    Param::from_name(name).map_err(value_err)
}

fn fixed_point_dict<'py>(py: Python<'py>, fp: &FixedPoint) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("q_avg_pkts", fp.q_avg_pkts)?;
    d.set_item("p", fp.p)?;
    d.set_item("eigenvalue", fp.eigenvalue)?;
    d.set_item("gain", fp.gain)?;
    d.set_item("w_bound", fp.w_bound)?;
    d.set_item("w_bound_eq312", fp.w_bound_eq312)?;
    d.set_item("stable", fp.stable)?;
    Ok(d)
}

/// The default parameters and every parameter name with its alias.
#[pyfunction]
fn model_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let p = ModelParams::default();
    let d = PyDict::new(py);
    d.set_item("drop", p.drop.name())?;
    for param in Param::ALL {
        d.set_item(param.name(), p.get(param))?;
    }
    d.set_item("p_max_from_target", p.p_max_from_target)?;
    Ok(d)
}

/// `[(name, alias or None), …]` for every numeric parameter.
#[pyfunction]
fn model_param_names() -> Vec<(&'static str, Option<&'static str>)> {
    Param::ALL.iter().map(|p| (p.name(), p.alias())).collect()
}

/// Fixed points with eigenvalue and bounds, jumps of the drop function the equilibrium falls
/// on, p_max in force, and the derived constants (C·d/M, p1, p2, and q1, q2 where p(q)
/// reaches p1 and p2).
#[pyfunction]
#[pyo3(signature = (params=None))]
fn model_fixed_points<'py>(
    py: Python<'py>,
    params: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let m = ::model::Model::new(&params_from(params)?).map_err(value_err)?;
    let eq = ::model::equilibria(&m);
    let fps = PyList::empty(py);
    for fp in &eq.fixed_points {
        fps.append(fixed_point_dict(py, fp)?)?;
    }
    let (q1, q2) = m.branch_points();
    let d = PyDict::new(py);
    d.set_item("fixed_points", fps)?;
    d.set_item("jumps_pkts", eq.jumps.clone())?;
    d.set_item("p_max", m.drop.thresholds().2)?;
    d.set_item("w", m.w)?;
    d.set_item("bdp_pkts", m.network.bdp_pkts())?;
    d.set_item("p1", m.network.p1())?;
    d.set_item("p2", m.network.p2())?;
    d.set_item("q1_pkts", q1)?;
    d.set_item("q2_pkts", q2)?;
    Ok(d)
}

/// `steps` iterations (0..MAX_ROWS - 1, default 100) from q0 (default mid-way between q_min
/// and q_max): lists `n`, `q_avg_pkts`, `q_pkts` (the instantaneous queue averaged in; NaN at
/// n = 0), `derivative`.
#[pyfunction]
#[pyo3(signature = (params=None, q0_pkts=None, steps=None))]
fn model_orbit<'py>(
    py: Python<'py>,
    params: Option<&Bound<'py, PyDict>>,
    q0_pkts: Option<&Bound<'py, PyAny>>,
    steps: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let steps = match steps {
        None => 100,
        Some(v) => checked(args::count(
            "steps",
            v,
            0,
            MAX_ROWS - 1,
            &format!("0..{}", MAX_ROWS - 1),
        ))?,
    };
    let q0_pkts = opt_number("q0_pkts", q0_pkts)?;
    let m = ::model::Model::new(&params_from(params)?).map_err(value_err)?;
    let q0 = q0_pkts.unwrap_or_else(|| ::model::orbit::default_q0(&m));
    let o = interruptible(py, |stop| ::model::orbit(&m, q0, steps, stop))?.map_err(model_err)?;
    let derivative: Vec<f64> = o.q_avg_pkts.iter().map(|&q| m.derivative(q)).collect();
    let d = PyDict::new(py);
    d.set_item("n", (0..=steps).collect::<Vec<usize>>())?;
    d.set_item("q_avg_pkts", o.q_avg_pkts)?;
    d.set_item("q_pkts", o.queue_pkts)?;
    d.set_item("derivative", derivative)?;
    Ok(d)
}

/// The map on `points` values (2..MAX_ROWS, default 2001) of q_avg evenly spread over [0, B]:
/// lists `q_avg_pkts`, `p`, `q_pkts` (Q(p)), `f` and `derivative`.
#[pyfunction]
#[pyo3(signature = (params=None, points=None))]
fn model_map<'py>(
    py: Python<'py>,
    params: Option<&Bound<'py, PyDict>>,
    points: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let n = match points {
        None => 2001,
        Some(v) => checked(args::count(
            "points",
            v,
            2,
            MAX_ROWS,
            &format!("2..{MAX_ROWS}"),
        ))?,
    };
    let m = ::model::Model::new(&params_from(params)?).map_err(value_err)?;
    let b = m.network.buffer_pkts;
    let q: Vec<f64> = (0..n).map(|i| b * i as f64 / (n - 1) as f64).collect();
    let steps = interruptible(py, |stop| -> Result<Vec<::model::map::Step>, ModelError> {
        let mut steps = Vec::with_capacity(q.len());
        for (i, &x) in q.iter().enumerate() {
            if i % POLL_EVERY == 0 {
                stop.check()?;
            }
            steps.push(m.step(x));
        }
        Ok(steps)
    })?
    .map_err(model_err)?;
    let d = PyDict::new(py);
    d.set_item(
        "p",
        q.iter()
            .map(|&x| m.drop.probability(x))
            .collect::<Vec<f64>>(),
    )?;
    d.set_item(
        "q_pkts",
        steps.iter().map(|s| s.queue_pkts).collect::<Vec<f64>>(),
    )?;
    d.set_item(
        "f",
        steps.iter().map(|s| s.q_avg_pkts).collect::<Vec<f64>>(),
    )?;
    d.set_item(
        "derivative",
        steps.iter().map(|s| s.derivative).collect::<Vec<f64>>(),
    )?;
    d.set_item("q_avg_pkts", q)?;
    Ok(d)
}

/// The orbit options of a sweep or map as given (`None`: the default).
struct OrbitArgs<'a, 'py> {
    iterations: Option<&'a Bound<'py, PyAny>>,
    transient: Option<&'a Bound<'py, PyAny>>,
    keep: Option<&'a Bound<'py, PyAny>>,
    q0_pkts: Option<&'a Bound<'py, PyAny>>,
    max_period: Option<&'a Bound<'py, PyAny>>,
    period_tol_pkts: Option<&'a Bound<'py, PyAny>>,
    early_exit: Option<&'a Bound<'py, PyAny>>,
}

impl OrbitArgs<'_, '_> {
    /// Check every option: iterations 1..2^64-1 (default 10⁴), transient below iterations
    /// (default half), keep at most iterations − transient (default `default_keep`) and at
    /// most MAX_ROWS over `orbits` orbits, max_period 1..MAX_PERIOD (default 64), a tolerance
    /// (the model checks it), early_exit a bool (default true).
    fn check(&self, orbits: usize, default_keep: usize) -> PyResult<OrbitOptions> {
        let count = |name: &str, v: Option<&Bound<'_, PyAny>>, default, lo, hi, range: &str| {
            v.map_or(Ok(default), |v| {
                checked(args::count(name, v, lo, hi, range))
            })
        };
        let iterations = count(
            "iterations",
            self.iterations,
            10_000,
            1,
            usize::MAX,
            "1..2^64-1",
        )?;
        let last = iterations - 1;
        let transient = count(
            "transient",
            self.transient,
            iterations / 2,
            0,
            last,
            &format!("0..{last} (below iterations)"),
        )?;
        let most = iterations - transient;
        let keep = count(
            "keep",
            self.keep,
            default_keep,
            0,
            most,
            &format!("0..{most} (at most iterations - transient)"),
        )?;
        if iterations.saturating_mul(orbits) > MAX_MAP_ITERATIONS {
            return Err(arg_err(format!(
                "iterations: {iterations} iterations × {orbits} values is more than \
                 {MAX_MAP_ITERATIONS} iterations of the map in all (the most one call may ask \
                 for); use fewer iterations or values"
            )));
        }
        if keep.saturating_mul(orbits) > MAX_ROWS {
            return Err(arg_err(format!(
                "keep: {keep} iterates × {orbits} values is more than {MAX_ROWS} rows"
            )));
        }
        let max_period = count(
            "max_period",
            self.max_period,
            64,
            1,
            MAX_PERIOD,
            &format!("1..{MAX_PERIOD}"),
        )?;
        let early_exit = self
            .early_exit
            .map_or(Ok(true), |v| checked(args::flag("early_exit", v)))?;
        Ok(OrbitOptions {
            q0_pkts: opt_number("q0_pkts", self.q0_pkts)?,
            iterations,
            transient,
            keep,
            max_period,
            period_tol_pkts: opt_number("period_tol_pkts", self.period_tol_pkts)?,
            early_exit,
        })
    }
}

/// Worker threads, 0..MAX_THREADS (0, the default: every core).
fn threads(v: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    v.map_or(Ok(0), |v| {
        checked(args::count(
            "threads",
            v,
            0,
            MAX_THREADS,
            &format!("0..{MAX_THREADS} (0: every core)"),
        ))
    })
}

/// Columns shared by a sweep's summary and a stability map's cells.
#[derive(Default)]
struct Summary {
    period: Vec<usize>,
    lyapunov: Vec<f64>,
    q_star: Vec<f64>,
    eigenvalue: Vec<f64>,
    w_bound: Vec<f64>,
    stable: Vec<bool>,
}

impl Summary {
    fn push(&mut self, period: Option<usize>, lyapunov: f64, fp: Option<&FixedPoint>) {
        self.period.push(period.unwrap_or(0));
        self.lyapunov.push(lyapunov);
        self.q_star.push(fp.map_or(f64::NAN, |f| f.q_avg_pkts));
        self.eigenvalue.push(fp.map_or(f64::NAN, |f| f.eigenvalue));
        self.w_bound.push(fp.map_or(f64::NAN, |f| f.w_bound));
        self.stable.push(fp.is_some_and(|f| f.stable));
    }

    fn write(self, d: &Bound<'_, PyDict>) -> PyResult<()> {
        d.set_item("period", self.period)?;
        d.set_item("lyapunov", self.lyapunov)?;
        d.set_item("q_star_pkts", self.q_star)?;
        d.set_item("eigenvalue", self.eigenvalue)?;
        d.set_item("w_bound", self.w_bound)?;
        d.set_item("fixed_point_stable", self.stable)?;
        Ok(())
    }
}

/// A sweep of `param` over `values`: `{"points": {value, q_avg_pkts, q_pkts} (the last `keep`
/// iterates at each value), "summary": {value, period (0: none up to max_period), lyapunov,
/// q_star_pkts, eigenvalue, w_bound, fixed_point_stable, p_max, evaluated}}`. Runs without the
/// GIL on `threads` threads (0: every core). Options and their ranges: [`OrbitArgs::check`].
#[pyfunction]
#[pyo3(signature = (params, param, values, iterations=None, transient=None, keep=None,
    q0_pkts=None, max_period=None, period_tol_pkts=None, early_exit=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn model_bifurcation<'py>(
    py: Python<'py>,
    params: Option<&Bound<'py, PyDict>>,
    param: &str,
    values: &Bound<'py, PyAny>,
    iterations: Option<&Bound<'py, PyAny>>,
    transient: Option<&Bound<'py, PyAny>>,
    keep: Option<&Bound<'py, PyAny>>,
    q0_pkts: Option<&Bound<'py, PyAny>>,
    max_period: Option<&Bound<'py, PyAny>>,
    period_tol_pkts: Option<&Bound<'py, PyAny>>,
    early_exit: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let params = params_from(params)?;
    let param = param_from(param)?;
    let values = axis("values", values)?;
    let opts = OrbitArgs {
        iterations,
        transient,
        keep,
        q0_pkts,
        max_period,
        period_tol_pkts,
        early_exit,
    }
    .check(values.len(), 200)?;
    let threads = self::threads(threads)?;
    let points = interruptible(py, |stop| {
        ::model::sweep(&params, param, &values, &opts, threads, stop)
    })?
    .map_err(model_err)?;
    let (mut value, mut q_avg, mut q) = (Vec::new(), Vec::new(), Vec::new());
    let mut summary = Summary::default();
    let (mut p_max, mut evaluated) = (Vec::new(), Vec::new());
    for pt in &points {
        let a = &pt.attractor;
        value.extend(std::iter::repeat_n(pt.value, a.q_avg_pkts.len()));
        q_avg.extend_from_slice(&a.q_avg_pkts);
        q.extend_from_slice(&a.queue_pkts);
        summary.push(a.period, a.lyapunov, pt.fixed_point.as_ref());
        p_max.push(pt.p_max);
        evaluated.push(a.evaluated);
    }
    let pts = PyDict::new(py);
    pts.set_item("value", value)?;
    pts.set_item("q_avg_pkts", q_avg)?;
    pts.set_item("q_pkts", q)?;
    let sum = PyDict::new(py);
    sum.set_item("value", values)?;
    summary.write(&sum)?;
    sum.set_item("p_max", p_max)?;
    sum.set_item("evaluated", evaluated)?;
    let d = PyDict::new(py);
    d.set_item("points", pts)?;
    d.set_item("summary", sum)?;
    Ok(d)
}

/// Every (x, y) of `x_values` × `y_values` (at most MAX_ROWS cells), y-major: `{x, y, period,
/// lyapunov, q_star_pkts, eigenvalue, w_bound, fixed_point_stable}`. Runs without the GIL.
/// Options and their ranges: [`OrbitArgs::check`].
#[pyfunction]
#[pyo3(signature = (params, x_param, x_values, y_param, y_values, iterations=None,
    transient=None, q0_pkts=None, max_period=None, period_tol_pkts=None, early_exit=None,
    threads=None))]
#[allow(clippy::too_many_arguments)]
fn model_stability_map<'py>(
    py: Python<'py>,
    params: Option<&Bound<'py, PyDict>>,
    x_param: &str,
    x_values: &Bound<'py, PyAny>,
    y_param: &str,
    y_values: &Bound<'py, PyAny>,
    iterations: Option<&Bound<'py, PyAny>>,
    transient: Option<&Bound<'py, PyAny>>,
    q0_pkts: Option<&Bound<'py, PyAny>>,
    max_period: Option<&Bound<'py, PyAny>>,
    period_tol_pkts: Option<&Bound<'py, PyAny>>,
    early_exit: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let params = params_from(params)?;
    let (x, y) = (param_from(x_param)?, param_from(y_param)?);
    let (x_values, y_values) = (axis("x_values", x_values)?, axis("y_values", y_values)?);
    let cells = x_values.len().saturating_mul(y_values.len());
    if cells > MAX_ROWS {
        return Err(arg_err(format!(
            "x_values, y_values: {} × {} values is more than {MAX_ROWS} cells",
            x_values.len(),
            y_values.len()
        )));
    }
    let opts = OrbitArgs {
        iterations,
        transient,
        keep: None,
        q0_pkts,
        max_period,
        period_tol_pkts,
        early_exit,
    }
    .check(cells, 0)?;
    let threads = self::threads(threads)?;
    let cells = interruptible(py, |stop| {
        ::model::stability_map(&params, x, &x_values, y, &y_values, &opts, threads, stop)
    })?
    .map_err(model_err)?;
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let mut summary = Summary::default();
    for c in &cells {
        xs.push(c.x);
        ys.push(c.y);
        summary.push(c.period, c.lyapunov, c.fixed_point.as_ref());
    }
    let d = PyDict::new(py);
    d.set_item("x", xs)?;
    d.set_item("y", ys)?;
    summary.write(&d)?;
    Ok(d)
}

/// Add the model's functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(model_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(model_param_names, m)?)?;
    m.add_function(wrap_pyfunction!(model_fixed_points, m)?)?;
    m.add_function(wrap_pyfunction!(model_orbit, m)?)?;
    m.add_function(wrap_pyfunction!(model_map, m)?)?;
    m.add_function(wrap_pyfunction!(model_bifurcation, m)?)?;
    m.add_function(wrap_pyfunction!(model_stability_map, m)?)?;
    Ok(())
}
