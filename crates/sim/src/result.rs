//! What a run returns: a one-row summary, the time series, the per-port, per-flow and
//! per-group tables, the flow-completion times, the latency probes and the congestion-window
//! trace, plus the scenario text that produced them.

/// One summary value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A measured quantity.
    Float(f64),
    /// A count, or the seed (unsigned, as the scenario gives it).
    Int(u64),
    /// A name.
    Text(String),
}

/// One column of a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Floating-point values.
    Floats(Vec<f64>),
    /// Integer values.
    Ints(Vec<i64>),
    /// Names.
    Texts(Vec<String>),
}

/// Named columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Columns in output order.
    pub columns: Vec<(String, Column)>,
}

impl Table {
    /// The float column called `name`.
    pub fn floats(&self, name: &str) -> Option<&[f64]> {
        self.columns.iter().find_map(|(n, c)| match c {
            Column::Floats(v) if n == name => Some(v.as_slice()),
            _ => None,
        })
    }

    /// The integer column called `name`.
    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        self.columns.iter().find_map(|(n, c)| match c {
            Column::Ints(v) if n == name => Some(v.as_slice()),
            _ => None,
        })
    }
}

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Summary metrics, in output order.
    pub summary: Vec<(String, Value)>,
    /// Queue and AQM state of the port the summary describes at a fixed step.
    pub timeseries: Table,
    /// One row per measured port.
    pub ports: Table,
    /// Queue and AQM state of every measured port at the same step (long format).
    pub port_timeseries: Table,
    /// Flow-completion times of finite flows, per group and size bin.
    pub fct: Table,
    /// One row per flow.
    pub flows: Table,
    /// One row per flow group.
    pub groups: Table,
    /// Congestion window of the traced flows (long format).
    pub cwnd: Table,
    /// One row per latency probe.
    pub probes: Table,
    /// The resolved scenario, as TOML.
    pub scenario_toml: String,
    /// Seed of the run.
    pub seed: u64,
}

impl RunResult {
    /// The summary value called `name`, as f64 (counts converted).
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.summary.iter().find_map(|(n, v)| match v {
            Value::Float(x) if n == name => Some(*x),
            Value::Int(i) if n == name => Some(*i as f64),
            _ => None,
        })
    }
}
