//! AQMs stepped by hand from Python: build one by name with its parameters, feed it arrivals
//! and departures with times and queue lengths, run its timer, read its state.

use crate::scenario_err;
use aqm::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, QueueView, Rng};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use toml::{Table, Value};

/// A Python value as a TOML value (bool, int, float or str).
fn to_toml(key: &str, v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_instance_of::<PyBool>() {
        Ok(Value::Boolean(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        Ok(Value::Integer(v.extract()?))
    } else if v.is_instance_of::<PyFloat>() {
        Ok(Value::Float(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(Value::String(v.extract()?))
    } else if let Ok(x) = v.extract::<f64>() {
        Ok(Value::Float(x))
    } else {
        Err(PyValueError::new_err(format!(
            "{key}: must be a bool, int, float or str"
        )))
    }
}

fn ns(t_s: f64, what: &str) -> PyResult<u64> {
    if t_s.is_finite() && t_s >= 0.0 {
        Ok((t_s * 1e9).round() as u64)
    } else {
        Err(PyValueError::new_err(format!(
            "{what}: must be a time >= 0 in seconds"
        )))
    }
}

/// One AQM instance with its own random stream.
#[pyclass(unsendable, module = "aqmlab._core")]
pub struct AqmStepper {
    aqm: Box<dyn Aqm>,
    rng: Rng,
    limit_pkts: u32,
    rate_bps: f64,
}

impl AqmStepper {
    fn view(&self, queue_pkts: u32, queue_bytes: Option<u64>, mean_bytes: u32) -> QueueView {
        QueueView {
            len_pkts: queue_pkts,
            len_bytes: queue_bytes.unwrap_or(u64::from(queue_pkts) * u64::from(mean_bytes)),
            limit_pkts: self.limit_pkts,
            limit_bytes: 0,
            rate_bps: self.rate_bps,
        }
    }
}

#[pymethods]
impl AqmStepper {
    /// Build AQM `name` for a queue of `limit_pkts` feeding a link of `rate_mbps`, with
    /// `params` (its parameter table, as in a scenario's `[queue.<name>]`).
    #[new]
    #[pyo3(signature = (name, params, rate_mbps=50.0, limit_pkts=1000, seed=1))]
    fn new(
        name: &str,
        params: &Bound<'_, PyDict>,
        rate_mbps: f64,
        limit_pkts: u32,
        seed: u64,
    ) -> PyResult<Self> {
        let mut table = Table::new();
        for (k, v) in params.iter() {
            let key: String = k.extract()?;
            table.insert(key.clone(), to_toml(&key, &v)?);
        }
        let mut queue = Table::new();
        queue.insert("aqm".into(), Value::String(name.to_string()));
        queue.insert("limit_pkts".into(), Value::Integer(limit_pkts.into()));
        if !table.is_empty() {
            queue.insert(name.to_string(), Value::Table(table));
        }
        let spec = sim::scenario::parse::queue_spec(&queue).map_err(scenario_err)?;
        if !(rate_mbps > 0.0 && rate_mbps.is_finite()) {
            return Err(PyValueError::new_err("rate_mbps: must be a number > 0"));
        }
        let rate_bps = rate_mbps * 1e6;
        let aqm = sim::aqm_factory::build(&spec, rate_bps).map_err(scenario_err)?;
        Ok(AqmStepper {
            aqm,
            rng: Rng::stream(seed, "aqm", 0),
            limit_pkts,
            rate_bps,
        })
    }

    /// The AQM's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.aqm.name()
    }

    /// An arrival at `now_s` finding `queue_pkts` packets waiting: "accept", "early_drop"
    /// (a mark when ECN is used) or "forced_drop".
    #[pyo3(signature = (now_s, queue_pkts, size_bytes=1000, ect=false, queue_bytes=None))]
    fn enqueue(
        &mut self,
        now_s: f64,
        queue_pkts: u32,
        size_bytes: u32,
        ect: bool,
        queue_bytes: Option<u64>,
    ) -> PyResult<&'static str> {
        let q = self.view(queue_pkts, queue_bytes, size_bytes);
        let pkt = PacketView { size_bytes, ect };
        Ok(
            match self
                .aqm
                .on_enqueue(ns(now_s, "now_s")?, pkt, &q, &mut self.rng)
            {
                EnqueueVerdict::Accept => "accept",
                EnqueueVerdict::EarlyDrop => "early_drop",
                EnqueueVerdict::ForcedDrop => "forced_drop",
            },
        )
    }

    /// The head packet leaves at `now_s` after `sojourn_s` in the queue, leaving
    /// `queue_pkts` behind: "deliver" or "early_drop".
    #[pyo3(signature = (now_s, sojourn_s, queue_pkts, size_bytes=1000, ect=false, queue_bytes=None))]
    fn dequeue(
        &mut self,
        now_s: f64,
        sojourn_s: f64,
        queue_pkts: u32,
        size_bytes: u32,
        ect: bool,
        queue_bytes: Option<u64>,
    ) -> PyResult<&'static str> {
        let q = self.view(queue_pkts, queue_bytes, size_bytes);
        let pkt = PacketView { size_bytes, ect };
        let now = ns(now_s, "now_s")?;
        let sojourn = ns(sojourn_s, "sojourn_s")?;
        Ok(
            match self.aqm.on_dequeue(now, sojourn, pkt, &q, &mut self.rng) {
                DequeueVerdict::Deliver => "deliver",
                DequeueVerdict::EarlyDrop => "early_drop",
            },
        )
    }

    /// When the AQM next wants `timer` called, seconds (None: never).
    #[getter]
    fn next_timer_s(&self) -> Option<f64> {
        self.aqm.next_timer_ns().map(|t| t as f64 * 1e-9)
    }

    /// Run the periodic update at `now_s` with `queue_pkts` waiting.
    #[pyo3(signature = (now_s, queue_pkts, queue_bytes=None))]
    fn timer(&mut self, now_s: f64, queue_pkts: u32, queue_bytes: Option<u64>) -> PyResult<()> {
        let q = self.view(queue_pkts, queue_bytes, 1000);
        self.aqm.on_timer(ns(now_s, "now_s")?, &q, &mut self.rng);
        Ok(())
    }

    /// The traced state (for example q_avg, p, p_max, mu, sigma) as a dict.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut values = Vec::new();
        self.aqm.probe(&mut values);
        let d = PyDict::new(py);
        for (name, v) in self.aqm.probe_names().iter().zip(values) {
            d.set_item(name, v)?;
        }
        Ok(d)
    }

    /// The drop curve in the current state at each averaged queue in `q_avg_pkts`
    /// (RED-family AQMs only).
    fn drop_probability(&self, q_avg_pkts: Vec<f64>) -> PyResult<Vec<f64>> {
        q_avg_pkts
            .iter()
            .map(|&q| {
                self.aqm.drop_probability_at(q).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "{} has no drop-probability curve",
                        self.aqm.name()
                    ))
                })
            })
            .collect()
    }
}
