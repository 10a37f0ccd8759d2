//! Python bindings: the thin layer between `aqmlab._core` and the Rust crates. Scenario
//! errors become `aqmlab._core.ScenarioError` (a ValueError) with the one-line message.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use sim::result::{Column, Table, Value};
use sim::RunError;

mod aqm_params;
mod args;
mod interrupt;
mod math;
mod model;
mod stepper;
mod table_files;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario key is missing, unknown or out of range."
);

pub(crate) fn scenario_err(e: sim::ScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

fn table_to_dict<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in &table.columns {
        match col {
            Column::Floats(v) => d.set_item(name, PyList::new(py, v)?)?,
            Column::Ints(v) => d.set_item(name, PyList::new(py, v)?)?,
            Column::Texts(v) => d.set_item(name, PyList::new(py, v)?)?,
        }
    }
    Ok(d)
}

/// aqmlab's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Apply `key=value` overrides, validate, and return the canonical scenario text.
#[pyfunction]
fn resolve_scenario(text: &str, sets: Vec<(String, String)>) -> PyResult<String> {
    sim::resolve_scenario(text, &sets).map_err(scenario_err)
}

/// Why `text` is not TOML the scenario reader accepts (one line with its line and column),
/// or None when it is.
#[pyfunction]
fn toml_syntax_error(text: &str) -> Option<String> {
    sim::scenario::toml_syntax_error(text)
}

/// The string at the top-level `key` of TOML text, or None (not TOML, no such key, not a
/// string).
#[pyfunction]
fn toml_top_level_string(text: &str, key: &str) -> Option<String> {
    sim::scenario::top_level_string(text, key)
}

/// The steps of a key path as overrides read it (`topology.links[0].rate_mbps`:
/// `[("topology", []), ("links", [0]), ("rate_mbps", [])]`); `ScenarioError` for a path that
/// is not one.
#[pyfunction]
fn key_path(path: &str) -> PyResult<Vec<(String, Vec<usize>)>> {
    let steps = sim::scenario::key_path::parse(path).map_err(scenario_err)?;
    Ok(steps
        .into_iter()
        .map(|s| (s.key, s.indices.into_iter().map(|i| i.n).collect()))
        .collect())
}

/// What a run of the scenario will hold, from the scenario alone (`sim::output_size`):
/// `samples`, `ports`, `flows`, `probes` and the values of each table (`series_values`,
/// `port_series_values`, `cwnd_values`, `flow_values`, `probe_values`).
#[pyfunction]
#[pyo3(signature = (text, sets, seed=None))]
fn estimate_run<'py>(
    py: Python<'py>,
    text: &str,
    sets: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut sc = sim::scenario::load(text, &sets).map_err(scenario_err)?;
    if let Some(seed) = seed {
        sc.seed = seed;
    }
    let size = sim::output_size::estimate(&sc).map_err(scenario_err)?;
    let d = PyDict::new(py);
    d.set_item("samples", size.samples)?;
    d.set_item("ports", size.ports)?;
    d.set_item("flows", size.flows)?;
    d.set_item("series_values", size.series_values)?;
    d.set_item("port_series_values", size.port_series_values)?;
    d.set_item("cwnd_values", size.cwnd_values)?;
    d.set_item("flow_values", size.flow_values)?;
    d.set_item("probes", size.probes)?;
    d.set_item("probe_values", size.probe_values)?;
    Ok(d)
}

/// Validate and simulate; `progress(sim_time_s, duration_s)` is called every 1/200 of the
/// simulated time and every 2^20 events.
#[pyfunction]
#[pyo3(signature = (text, sets, seed=None, progress=None))]
fn run_scenario<'py>(
    py: Python<'py>,
    text: &str,
    sets: Vec<(String, String)>,
    seed: Option<u64>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let scenario = sim::scenario::load(text, &sets).map_err(scenario_err)?;
    let duration_s = scenario.duration_s;
    let group_names: Vec<String> = scenario
        .traffic
        .groups
        .iter()
        .map(|g| g.name.clone())
        .collect();
    let result = sim::run_loaded(scenario, seed, |t_s| -> PyResult<()> {
        py.check_signals()?;
        if let Some(cb) = &progress {
            cb.call1((t_s, duration_s))?;
        }
        Ok(())
    })
    .map_err(|e| match e {
        RunError::Scenario(e) => scenario_err(e),
        RunError::Aborted(e) => e,
    })?;
    let summary = PyDict::new(py);
    for (name, value) in &result.summary {
        match value {
            Value::Float(x) => summary.set_item(name, x)?,
            Value::Int(i) => summary.set_item(name, i)?,
            Value::Text(s) => summary.set_item(name, s)?,
        }
    }
    let out = PyDict::new(py);
    out.set_item("summary", summary)?;
    out.set_item("timeseries", table_to_dict(py, &result.timeseries)?)?;
    out.set_item("flows", table_to_dict(py, &result.flows)?)?;
    out.set_item("groups", table_to_dict(py, &result.groups)?)?;
    out.set_item("ports", table_to_dict(py, &result.ports)?)?;
    out.set_item(
        "port_timeseries",
        table_to_dict(py, &result.port_timeseries)?,
    )?;
    out.set_item("fct", table_to_dict(py, &result.fct)?)?;
    out.set_item("cwnd", table_to_dict(py, &result.cwnd)?)?;
    out.set_item("probes", table_to_dict(py, &result.probes)?)?;
    out.set_item("scenario", &result.scenario_toml)?;
    out.set_item("group_names", group_names)?;
    out.set_item("seed", result.seed)?;
    Ok(out)
}

/// The names a scenario may use: AQMs, TCP presets, congestion controls, schedules.
#[pyfunction]
fn catalog(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let names = aqm::registry::names();
    d.set_item("aqms", names.to_vec())?;
    let titles = PyDict::new(py);
    for name in names {
        titles.set_item(name, aqm::registry::title(name))?;
    }
    d.set_item("aqm_titles", titles)?;
    // Every discipline of more than one queue; `aqmlab list` names them by kind.
    let flow_queueing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| aqm::registry::is_flow_queueing(n))
        .collect();
    d.set_item("flow_queueing", flow_queueing)?;
    d.set_item("tcp_presets", sim::tcp::config::PRESETS.to_vec())?;
    d.set_item(
        "congestion_controls",
        sim::tcp::cc::registry::CcKind::NAMES.to_vec(),
    )?;
    let sources = PyDict::new(py);
    for name in sim::tcp::cc::registry::CcKind::NAMES {
        let kind = sim::tcp::cc::registry::CcKind::from_name(name).expect("a registered name");
        sources.set_item(name, kind.source())?;
    }
    d.set_item("cc_sources", sources)?;
    d.set_item("schedules", sim::scenario::SCHEDULE_NAMES.to_vec())?;
    Ok(d)
}

/// The compiled core of aqmlab.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_run, m)?)?;
    m.add_function(wrap_pyfunction!(key_path, m)?)?;
    m.add_function(wrap_pyfunction!(toml_syntax_error, m)?)?;
    m.add_function(wrap_pyfunction!(toml_top_level_string, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(aqm_params::aqm_params, m)?)?;
    m.add_class::<stepper::AqmStepper>()?;
    math::register(m)?;
    model::register(m)?;
    table_files::register(m)?;
    Ok(())
}
