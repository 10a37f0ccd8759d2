//! AQMs stepped by hand from Python: build one by name with its parameters, feed it arrivals
//! and departures with times and queue lengths, run its timer, read its state.
//!
//! Every argument is checked before the AQM sees it, so that a call either fails with one line
//! naming the argument (ScenarioError when building, ValueError when stepping) or does what a
//! host following the contract of `aqm::contract` would do: time never goes backwards, the
//! queue never exceeds its limit, the timer runs when it is due.

use crate::aqm_params::{described, to_py};
use crate::args::{self, Checked};
use crate::{scenario_err, ScenarioError};
use aqm::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, QueueView, Rng};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use toml::{Table, Value};

/// The latest time accepted, seconds (times are integer nanoseconds below 2^64).
const MAX_TIME_S: f64 = 1.8e10;
/// Packet size when the call gives none, bytes.
const DEFAULT_SIZE_BYTES: u32 = 1000;

/// A parameter value from Python as a TOML value (bool, int, float or str); `at` is its path
/// as the scenario reader's messages write it (`red.p_max`).
fn to_toml(at: &str, v: &Bound<'_, PyAny>) -> Checked<Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(Value::Boolean(v.extract().expect("a bool")));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Value::String(v.extract().expect("a str")));
    }
    if !v.is_instance_of::<PyFloat>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Value::Integer(i));
        }
        if v.is_instance_of::<PyInt>() {
            return Err(format!(
                "{at}: must be an integer in -2^63..2^63-1, got {}",
                args::shown(v)
            ));
        }
    }
    v.extract::<f64>().map(Value::Float).map_err(|_| {
        format!(
            "{at}: must be a bool, int, float or str, got {}",
            args::shown(v)
        )
    })
}

/// `t_s` seconds as integer nanoseconds; `name` is the argument.
fn time_ns(name: &str, v: &Bound<'_, PyAny>) -> Checked<(u64, f64)> {
    let t_s = args::number_where(name, v, "a time in seconds in [0, 1.8e10]", |t| {
        (0.0..=MAX_TIME_S).contains(&t)
    })?;
    Ok(((t_s * 1e9).round() as u64, t_s))
}

fn value_err(message: String) -> PyErr {
    PyValueError::new_err(message)
}

fn build_err(message: String) -> PyErr {
    ScenarioError::new_err(message)
}

/// One AQM instance with its own random stream.
#[pyclass(unsendable, module = "aqmlab._core")]
pub struct AqmStepper {
    aqm: Box<dyn Aqm>,
    rng: Rng,
    limit_pkts: u32,
    rate_mbps: f64,
    seed: u64,
    /// Every parameter in force, in the order of the AQM's parameter struct.
    params: Vec<(&'static str, Value)>,
    /// The time of the latest call, ns and as given in seconds.
    last_now: Option<(u64, f64)>,
}

impl AqmStepper {
    /// The time of a call: at or after the previous call's.
    fn now(&self, v: &Bound<'_, PyAny>) -> Checked<(u64, f64)> {
        let (ns, t_s) = time_ns("now_s", v)?;
        match self.last_now {
            Some((last_ns, last_s)) if ns < last_ns => Err(format!(
                "now_s: time went backwards ({t_s:?} s after {last_s:?} s)"
            )),
            _ => Ok((ns, t_s)),
        }
    }

    /// The queue as the AQM sees it: `queue_pkts` within the buffer and `queue_bytes`
    /// (default: `queue_pkts` packets of `mean_bytes`) consistent with it.
    fn view(
        &self,
        queue_pkts: &Bound<'_, PyAny>,
        queue_bytes: Option<&Bound<'_, PyAny>>,
        mean_bytes: u32,
    ) -> Checked<QueueView> {
        let limit = u64::from(self.limit_pkts);
        let range = format!("0..{limit} (at most limit_pkts)");
        let len_pkts = args::int("queue_pkts", queue_pkts, 0, limit, &range)?;
        let len_bytes = match queue_bytes {
            None => len_pkts * u64::from(mean_bytes),
            Some(v) if len_pkts == 0 => {
                args::int("queue_bytes", v, 0, 0, "0..0 (queue_pkts is 0)")?
            }
            Some(v) => {
                let range = format!("{len_pkts}..2^64-1 (at least a byte per packet)");
                args::int("queue_bytes", v, len_pkts, u64::MAX, &range)?
            }
        };
        Ok(QueueView {
            len_pkts: u32::try_from(len_pkts).expect("at most limit_pkts"),
            len_bytes,
            limit_pkts: self.limit_pkts,
            limit_bytes: 0,
            rate_bps: self.rate_mbps * 1e6,
        })
    }

    /// The packet a decision is about.
    fn packet(
        size_bytes: Option<&Bound<'_, PyAny>>,
        ect: Option<&Bound<'_, PyAny>>,
    ) -> Checked<PacketView> {
        let size_bytes = match size_bytes {
            None => DEFAULT_SIZE_BYTES,
            Some(v) => args::int("size_bytes", v, 1, u64::from(u32::MAX), "1..2^32-1")? as u32,
        };
        let ect = ect.map_or(Ok(false), |v| args::flag("ect", v))?;
        Ok(PacketView { size_bytes, ect })
    }
}

#[pymethods]
impl AqmStepper {
    /// Build AQM `name` for a queue of `limit_pkts` (1..2^32-1, default 1000) feeding a link of
    /// `rate_mbps` (> 0, default 50), drawing from random stream `seed` (0..2^64-1, default 1),
    /// with `params` (its parameter table, as in a scenario's `[queue.<name>]`).
    #[new]
    #[pyo3(signature = (name, params, rate_mbps=None, limit_pkts=None, seed=None))]
    fn new(
        name: &str,
        params: &Bound<'_, PyDict>,
        rate_mbps: Option<&Bound<'_, PyAny>>,
        limit_pkts: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let rate_mbps = match rate_mbps {
            None => 50.0,
            Some(v) => {
                args::number_where("rate_mbps", v, "a number > 0", |x| x > 0.0 && x.is_finite())
                    .map_err(build_err)?
            }
        };
        let limit_pkts = match limit_pkts {
            None => 1000,
            Some(v) => args::int("limit_pkts", v, 1, u64::from(u32::MAX), "1..2^32-1")
                .map_err(build_err)? as u32,
        };
        let seed = match seed {
            None => 1,
            Some(v) => args::int("seed", v, 0, u64::MAX, "0..2^64-1").map_err(build_err)?,
        };
        let mut table = Table::new();
        for (k, v) in params.iter() {
            let key: String = k.extract().map_err(|_| {
                build_err(format!(
                    "{name}: parameter names must be str, got {}",
                    args::shown(&k)
                ))
            })?;
            let value = to_toml(&format!("{name}.{key}"), &v).map_err(build_err)?;
            table.insert(key, value);
        }
        let aqm = sim::aqm_factory::build_named(name, table.clone(), limit_pkts, rate_mbps * 1e6)
            .map_err(scenario_err)?;
        let d = described(name)?;
        let params = d
            .docs
            .iter()
            .map(|doc| {
                let default = &d.defaults[doc.name];
                let value = match (default, table.get(doc.name)) {
                    (Value::Float(_), Some(Value::Integer(i))) => Value::Float(*i as f64),
                    (_, Some(v)) => v.clone(),
                    (_, None) => default.clone(),
                };
                (doc.name, value)
            })
            .collect();
        Ok(AqmStepper {
            aqm,
            rng: Rng::stream(seed, "aqm", 0),
            limit_pkts,
            rate_mbps,
            seed,
            params,
            last_now: None,
        })
    }

    /// The AQM's name.
    #[getter]
    fn name(&self) -> &'static str {
        self.aqm.name()
    }

    /// Every parameter in force (the defaults with the given ones applied) as a dict.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, value) in &self.params {
            d.set_item(name, to_py(py, value)?)?;
        }
        Ok(d)
    }

    /// `AqmStepper('red', limit_pkts=1000, rate_mbps=50.0, seed=1, q_min_pkts=100.0, ...)`.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = vec![
            format!("'{}'", self.aqm.name()),
            format!("limit_pkts={}", self.limit_pkts),
            format!("rate_mbps={}", self.rate_mbps.into_pyobject(py)?.repr()?),
            format!("seed={}", self.seed),
        ];
        for (name, value) in &self.params {
            parts.push(format!("{name}={}", to_py(py, value)?.repr()?));
        }
        Ok(format!("AqmStepper({})", parts.join(", ")))
    }

    /// An arrival at `now_s` finding `queue_pkts` packets waiting (0..limit_pkts): "accept",
    /// "early_drop" (a mark when ECN is used) or "forced_drop".
    #[pyo3(signature = (now_s, queue_pkts, size_bytes=None, ect=None, queue_bytes=None))]
    fn enqueue(
        &mut self,
        now_s: &Bound<'_, PyAny>,
        queue_pkts: &Bound<'_, PyAny>,
        size_bytes: Option<&Bound<'_, PyAny>>,
        ect: Option<&Bound<'_, PyAny>>,
        queue_bytes: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        let now = self.now(now_s).map_err(value_err)?;
        let pkt = Self::packet(size_bytes, ect).map_err(value_err)?;
        let q = self
            .view(queue_pkts, queue_bytes, pkt.size_bytes)
            .map_err(value_err)?;
        self.last_now = Some(now);
        Ok(match self.aqm.on_enqueue(now.0, pkt, &q, &mut self.rng) {
            EnqueueVerdict::Accept => "accept",
            EnqueueVerdict::EarlyDrop => "early_drop",
            EnqueueVerdict::ForcedDrop => "forced_drop",
        })
    }

    /// The head packet leaves at `now_s` after `sojourn_s` (0..now_s) in the queue, leaving
    /// `queue_pkts` behind: "deliver", "early_drop", "forced_drop" or "mark".
    #[pyo3(signature = (now_s, sojourn_s, queue_pkts, size_bytes=None, ect=None, queue_bytes=None))]
    fn dequeue(
        &mut self,
        now_s: &Bound<'_, PyAny>,
        sojourn_s: &Bound<'_, PyAny>,
        queue_pkts: &Bound<'_, PyAny>,
        size_bytes: Option<&Bound<'_, PyAny>>,
        ect: Option<&Bound<'_, PyAny>>,
        queue_bytes: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        let now = self.now(now_s).map_err(value_err)?;
        let allowed = format!("a time in seconds in [0, now_s] = [0, {:?}]", now.1);
        let sojourn_s = args::number_where("sojourn_s", sojourn_s, &allowed, |s| {
            (0.0..=now.1).contains(&s)
        })
        .map_err(value_err)?;
        let pkt = Self::packet(size_bytes, ect).map_err(value_err)?;
        let q = self
            .view(queue_pkts, queue_bytes, pkt.size_bytes)
            .map_err(value_err)?;
        self.last_now = Some(now);
        let sojourn_ns = (sojourn_s * 1e9).round() as u64;
        Ok(
            match self
                .aqm
                .on_dequeue(now.0, sojourn_ns, pkt, &q, &mut self.rng)
            {
                DequeueVerdict::Deliver => "deliver",
                DequeueVerdict::EarlyDrop => "early_drop",
                DequeueVerdict::ForcedDrop => "forced_drop",
                DequeueVerdict::Mark => "mark",
            },
        )
    }

    /// When the AQM next wants `timer` called, seconds (None: never).
    #[getter]
    fn next_timer_s(&self) -> Option<f64> {
        self.aqm.next_timer_ns().map(|t| t as f64 * 1e-9)
    }

    /// Run the periodic update at `now_s` (at or after `next_timer_s`) with `queue_pkts`
    /// waiting.
    #[pyo3(signature = (now_s, queue_pkts, queue_bytes=None))]
    fn timer(
        &mut self,
        now_s: &Bound<'_, PyAny>,
        queue_pkts: &Bound<'_, PyAny>,
        queue_bytes: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let now = self.now(now_s).map_err(value_err)?;
        match self.aqm.next_timer_ns() {
            None => {
                return Err(value_err(format!(
                    "timer: {} has no timer (next_timer_s is None)",
                    self.aqm.name()
                )))
            }
            Some(due) if now.0 < due => {
                return Err(value_err(format!(
                    "now_s: the timer is due at {:?} s, got {:?} s",
                    due as f64 * 1e-9,
                    now.1
                )))
            }
            Some(_) => {}
        }
        let q = self
            .view(queue_pkts, queue_bytes, DEFAULT_SIZE_BYTES)
            .map_err(value_err)?;
        self.last_now = Some(now);
        self.aqm.on_timer(now.0, &q, &mut self.rng);
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

    /// The drop curve in the current state at each averaged queue in `q_avg_pkts` (finite,
    /// >= 0; RED-family AQMs only).
    fn drop_probability(&self, q_avg_pkts: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
        if self.aqm.drop_probability_at(0.0).is_none() {
            return Err(value_err(format!(
                "{} has no drop-probability curve",
                self.aqm.name()
            )));
        }
        let q = args::numbers("q_avg_pkts", q_avg_pkts, "finite numbers >= 0", |q| {
            q >= 0.0 && q.is_finite()
        })
        .map_err(value_err)?;
        Ok(q.iter()
            .map(|&x| self.aqm.drop_probability_at(x).expect("a RED-family AQM"))
            .collect())
    }
}
