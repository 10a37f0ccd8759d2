//! The time series: bottleneck queue and AQM state every sample step, each flow group's
//! goodput over the step, and the congestion window of chosen flows.

use crate::result::{Column, Table};

/// Rows of the queue/AQM series, column by column.
pub struct Series {
    aqm_names: Vec<String>,
    t_s: Vec<f64>,
    queue_pkts: Vec<i64>,
    queue_bytes: Vec<i64>,
    active_flows: Vec<i64>,
    aqm: Vec<Vec<f64>>,
    group_names: Vec<String>,
    /// Per group: in-order payload delivered since t = 0, and at the last sample, bytes.
    group_bytes: Vec<(u64, u64)>,
    group_goodput: Vec<Vec<f64>>,
    /// Time of the last sample, s.
    last_t_s: Option<f64>,
    cwnd_t_s: Vec<f64>,
    cwnd_flow: Vec<i64>,
    cwnd_pkts: Vec<f64>,
    ssthresh_pkts: Vec<f64>,
}

impl Series {
    /// An empty series whose AQM columns are `aqm_<name>` for each probe name and whose
    /// goodput columns are `goodput_mbps_<name>` for each flow group's name.
    pub fn new(probe_names: &[&str], group_names: &[&str]) -> Self {
        Series {
            aqm_names: probe_names.iter().map(|n| format!("aqm_{n}")).collect(),
            t_s: Vec::new(),
            queue_pkts: Vec::new(),
            queue_bytes: Vec::new(),
            active_flows: Vec::new(),
            aqm: vec![Vec::new(); probe_names.len()],
            group_names: group_names
                .iter()
                .map(|n| format!("goodput_mbps_{n}"))
                .collect(),
            group_bytes: vec![(0, 0); group_names.len()],
            group_goodput: vec![Vec::new(); group_names.len()],
            last_t_s: None,
            cwnd_t_s: Vec::new(),
            cwnd_flow: Vec::new(),
            cwnd_pkts: Vec::new(),
            ssthresh_pkts: Vec::new(),
        }
    }

    /// Group `group`'s flows delivered `bytes` more of in-order payload (TCP; a UDP or probe
    /// flow's whole packets).
    pub fn delivered(&mut self, group: u32, bytes: u64) {
        self.group_bytes[group as usize].0 += bytes;
    }

    /// Record one row of the queue series, with each group's goodput since the last row (0 in
    /// the first row, at t = 0).
    pub fn queue_row(&mut self, t_s: f64, pkts: u32, bytes: u64, active: u32, probe: &[f64]) {
        let step_s = self.last_t_s.map(|last| t_s - last);
        for ((total, at_last), col) in self.group_bytes.iter_mut().zip(&mut self.group_goodput) {
            let bits = (*total - *at_last) as f64 * 8.0;
            col.push(match step_s {
                Some(s) if s > 0.0 => bits / s / 1e6,
                _ => 0.0,
            });
            *at_last = *total;
        }
        self.last_t_s = Some(t_s);
        self.t_s.push(t_s);
        self.queue_pkts.push(pkts.into());
        self.queue_bytes.push(bytes as i64);
        self.active_flows.push(active.into());
        for (col, &v) in self.aqm.iter_mut().zip(probe) {
            col.push(v);
        }
    }

    /// Record one flow's window.
    pub fn cwnd_row(&mut self, t_s: f64, flow: u32, cwnd: f64, ssthresh: f64) {
        self.cwnd_t_s.push(t_s);
        self.cwnd_flow.push(flow.into());
        self.cwnd_pkts.push(cwnd);
        self.ssthresh_pkts.push(ssthresh);
    }

    /// Sample times and queue lengths recorded so far.
    pub fn queue_samples(&self) -> (&[f64], &[i64]) {
        (&self.t_s, &self.queue_pkts)
    }

    /// The queue/AQM table and the cwnd table.
    pub fn into_tables(self) -> (Table, Table) {
        let mut columns = vec![
            ("t_s".to_string(), Column::Floats(self.t_s)),
            ("queue_pkts".to_string(), Column::Ints(self.queue_pkts)),
            ("queue_bytes".to_string(), Column::Ints(self.queue_bytes)),
            ("active_flows".to_string(), Column::Ints(self.active_flows)),
        ];
        columns.extend(
            self.aqm_names
                .into_iter()
                .zip(self.aqm)
                .map(|(n, v)| (n, Column::Floats(v))),
        );
        columns.extend(
            self.group_names
                .into_iter()
                .zip(self.group_goodput)
                .map(|(n, v)| (n, Column::Floats(v))),
        );
        let cwnd = Table {
            columns: vec![
                ("t_s".to_string(), Column::Floats(self.cwnd_t_s)),
                ("flow".to_string(), Column::Ints(self.cwnd_flow)),
                ("cwnd_pkts".to_string(), Column::Floats(self.cwnd_pkts)),
                (
                    "ssthresh_pkts".to_string(),
                    Column::Floats(self.ssthresh_pkts),
                ),
            ],
        };
        (Table { columns }, cwnd)
    }
}
