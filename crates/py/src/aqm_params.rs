//! Every AQM's parameters for Python: name, unit, default, allowed values and help line, from
//! the descriptions next to each parameter struct in the AQM crate (`aqm::registry`) and the
//! defaults its `Default` serialises to (as the scenario reader reads them).

use crate::ScenarioError;
use aqm::{AqmParams, ParamDoc, ParamsVisitor};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use toml::{Table, Value};

/// The parameters of one AQM: descriptions and defaults.
pub struct Described {
    /// One entry per parameter, in declaration order.
    pub docs: &'static [ParamDoc],
    /// The default of every parameter.
    pub defaults: Table,
}

/// Finds the parameter struct of the AQM called `name`.
struct Find<'a> {
    name: &'a str,
    found: Option<Described>,
}

impl ParamsVisitor for Find<'_> {
    fn visit<P: AqmParams>(&mut self) {
        if P::AQM == self.name {
            let defaults = match Value::try_from(P::default()) {
                Ok(Value::Table(t)) => t,
                _ => unreachable!("AQM parameter structs serialise to tables"),
            };
            self.found = Some(Described {
                docs: P::PARAMS,
                defaults,
            });
        }
    }
}

/// The parameters of AQM `name`: empty for an AQM without any (drop tail); an error naming the
/// AQMs for a name the registry does not know.
pub fn described(name: &str) -> PyResult<Described> {
    let mut find = Find { name, found: None };
    aqm::registry::for_each(&mut find);
    find.found.ok_or_else(|| {
        ScenarioError::new_err(format!(
            "unknown AQM \"{name}\"; allowed: {}",
            aqm::registry::names().join(", ")
        ))
    })
}

/// A TOML scalar as a Python object (bool, int, float or str).
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(x) => x.into_pyobject(py)?.into_any(),
        other => other
            .as_str()
            .map_or_else(|| other.to_string(), str::to_string)
            .into_pyobject(py)?
            .into_any(),
    })
}

/// `[{name, unit, default, allowed, help}, …]` for AQM `name`, in the order of its parameter
/// struct; `[]` for drop tail. ScenarioError for an unknown name.
#[pyfunction]
pub fn aqm_params<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
    let d = described(name)?;
    let out = PyList::empty(py);
    for doc in d.docs {
        let default = d
            .defaults
            .get(doc.name)
            .expect("every described parameter has a default (checked in the AQM crate)");
        let row = PyDict::new(py);
        row.set_item("name", doc.name)?;
        row.set_item("unit", doc.unit)?;
        row.set_item("default", to_py(py, default)?)?;
        row.set_item("allowed", doc.range.to_string())?;
        row.set_item("help", doc.help)?;
        out.append(row)?;
    }
    Ok(out)
}
