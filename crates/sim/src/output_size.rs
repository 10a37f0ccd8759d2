//! The size of a run's result tables, known from the scenario before the run: the values its
//! time series, per-port series, cwnd trace, per-flow table and probe table will hold, and the
//! number of flows whose state the simulation keeps. The front end turns it into a memory
//! estimate and refuses a run that would need more than the user allows (docs/cli.md,
//! "Memory").

use crate::aqm_factory;
use crate::metrics::probes::PROBE_COLUMNS;
use crate::probe;
use crate::scenario::{Scenario, ScenarioError};
use crate::time::s_to_ns;
use crate::traffic;
use std::collections::BTreeSet;

/// Columns of the time series besides the AQM's own and one goodput column per flow group
/// (`t_s`, `queue_pkts`, `queue_bytes`, `active_flows`); of the per-port series likewise (`t_s`, `port`, `queue_pkts`,
/// `queue_bytes`).
pub const SERIES_BASE_COLUMNS: u64 = 4;
/// Columns of the cwnd trace: `t_s`, `flow`, `cwnd_pkts`, `ssthresh_pkts`.
pub const CWND_COLUMNS: u64 = 4;
/// Columns of the per-flow table.
pub const FLOW_COLUMNS: u64 = 19;

/// What a run of a scenario will produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputSize {
    /// Rows of each time series: one per sample step over the run, and one at 0.
    pub samples: u64,
    /// Measured ports (one row each per sample in the per-port series).
    pub ports: u64,
    /// Flows of the run.
    pub flows: u64,
    /// Values of the time series of the port the summary describes.
    pub series_values: u64,
    /// Values of the per-port series.
    pub port_series_values: u64,
    /// Values of the cwnd trace.
    pub cwnd_values: u64,
    /// Values of the per-flow table.
    pub flow_values: u64,
    /// Latency probes the run sends (one row each in the probe table).
    pub probes: u64,
    /// Values of the probe table.
    pub probe_values: u64,
}

impl OutputSize {
    /// Values of all five tables.
    pub fn values(&self) -> u64 {
        self.series_values
            .saturating_add(self.port_series_values)
            .saturating_add(self.cwnd_values)
            .saturating_add(self.flow_values)
            .saturating_add(self.probe_values)
    }
}

/// The output size of a validated scenario.
pub fn estimate(sc: &Scenario) -> Result<OutputSize, ScenarioError> {
    let step_s = sc.measure.sample_interval_ms * 1e-3;
    let samples = (sc.duration_s / step_s).floor() as u64 + 1;
    let plans = traffic::plan(&sc.traffic, sc.duration_s, sc.seed)?;
    let flows = plans.len() as u64;
    let end_ns = s_to_ns(sc.duration_s);
    let requests = plans
        .iter()
        .map(|(g, plan)| probe::requests(&sc.traffic.groups[*g as usize].source, plan, end_ns))
        .fold(0u64, u64::saturating_add);
    let mut probes = Vec::new();
    let mut names = BTreeSet::new();
    for (path, queue, rate_bps) in sc.queues() {
        let discipline = aqm_factory::discipline_at(&path, queue, rate_bps)?;
        probes.push(discipline.probe_names().len() as u64);
        names.extend(discipline.probe_names().iter().copied());
    }
    let ports = probes.len() as u64;
    let described = probes.get(sc.summary_port()).copied().unwrap_or(0);
    let traced = sc.measure.cwnd_flows.len() as u64;
    Ok(OutputSize {
        samples,
        ports,
        flows,
        series_values: (SERIES_BASE_COLUMNS + described + sc.traffic.groups.len() as u64)
            .saturating_mul(samples),
        port_series_values: (SERIES_BASE_COLUMNS + names.len() as u64)
            .saturating_mul(samples.saturating_mul(ports)),
        cwnd_values: CWND_COLUMNS.saturating_mul(samples.saturating_mul(traced)),
        flow_values: FLOW_COLUMNS.saturating_mul(flows),
        probes: requests,
        probe_values: PROBE_COLUMNS.saturating_mul(requests),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Column, Table};

    fn rows(c: &Column) -> u64 {
        match c {
            Column::Floats(v) => v.len() as u64,
            Column::Ints(v) => v.len() as u64,
            Column::Texts(v) => v.len() as u64,
        }
    }

    fn values(t: &Table) -> u64 {
        t.columns.iter().map(|(_, c)| rows(c)).sum()
    }

    /// The estimate is exact: it counts what a run then holds, on one port and on three.
    #[test]
    fn counts_what_the_run_holds() {
        let cases = [
            "duration_s = 3.0\nqueue.aqm = \"pie\"\nmeasure.cwnd_flows = [0, 2]\n\
             traffic.schedule = { kind = \"constant\", flows = 4 }",
            "duration_s = 2.0\nmeasure.sample_interval_ms = 7.0\n\
             [topology]\nkind = \"chain\"\nrouters = [\"A\", \"B\", \"C\"]\n\
             [[topology.links]]\nrate_mbps = 10.0\ndelay_ms = 1.0\nqueue = { aqm = \"red\" }\n\
             reverse_queue = { aqm = \"codel\" }\n\
             [[topology.links]]\nrate_mbps = 20.0\ndelay_ms = 2.0\n\
             [[traffic.groups]]\npath = [\"A\", \"C\"]\n\
             schedule = { kind = \"constant\", flows = 3 }",
            // Probe flows: one running to the end, one stopped early, one never started.
            "duration_s = 2.0\n\
             [[traffic.groups]]\nschedule = { kind = \"constant\", flows = 2 }\n\
             [[traffic.groups]]\ntransport = \"udp\"\nstart_jitter_s = 0.3\n\
             source = { kind = \"probe\", interval_ms = 70.0 }\n\
             schedule = { kind = \"events\", events = [{ t_s = 0.0, add = 2 }, \
             { t_s = 1.5, remove = 1 }, { t_s = 2.0, add = 1 }] }",
        ];
        for text in cases {
            let sc = crate::scenario::load(text, &[]).unwrap();
            let size = estimate(&sc).unwrap();
            let out = crate::run_scenario(text, &[], None, |_| Ok::<(), ()>(())).unwrap();
            let held = values(&out.timeseries)
                + values(&out.port_timeseries)
                + values(&out.cwnd)
                + values(&out.flows)
                + values(&out.probes);
            assert_eq!(size.values(), held, "{text}");
            assert_eq!(size.flows, rows(&out.flows.columns[0].1));
            assert_eq!(size.probes, rows(&out.probes.columns[0].1));
        }
    }
}
