//! The time series of every measured port in long format: one row per port per sample, with
//! the queue and the probes of the port's AQM (`aqm_<probe>` for the union of the ports'
//! probe names, NaN where a port's AQM has no such probe).

use crate::result::{Column, Table};

/// Rows of the per-port series, column by column.
pub struct PortSeries {
    /// Per port, for each column of the union: the index of that probe in the port's AQM
    /// (None: the AQM has no such probe).
    columns_of_port: Vec<Vec<Option<usize>>>,
    /// The union of probe names, in order of first appearance.
    names: Vec<String>,
    t_s: Vec<f64>,
    port: Vec<i64>,
    queue_pkts: Vec<i64>,
    queue_bytes: Vec<i64>,
    probes: Vec<Vec<f64>>,
}

impl PortSeries {
    /// An empty series for ports whose AQMs probe `port_probes[k]`.
    pub fn new(port_probes: Vec<Vec<String>>) -> Self {
        let mut names: Vec<String> = Vec::new();
        for n in port_probes.iter().flatten() {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        let columns_of_port = port_probes
            .iter()
            .map(|own| {
                names
                    .iter()
                    .map(|n| own.iter().position(|o| o == n))
                    .collect()
            })
            .collect();
        PortSeries {
            probes: vec![Vec::new(); names.len()],
            columns_of_port,
            names,
            t_s: Vec::new(),
            port: Vec::new(),
            queue_pkts: Vec::new(),
            queue_bytes: Vec::new(),
        }
    }

    /// Record port `k`'s row: its queue and the values of its probes, in its AQM's order.
    pub fn row(&mut self, t_s: f64, k: usize, pkts: u32, bytes: u64, probe: &[f64]) {
        self.t_s.push(t_s);
        self.port.push(k as i64);
        self.queue_pkts.push(pkts.into());
        self.queue_bytes.push(bytes as i64);
        for (at, col) in self.columns_of_port[k].iter().zip(&mut self.probes) {
            col.push(at.map_or(f64::NAN, |i| probe[i]));
        }
    }

    /// The table.
    pub fn into_table(self) -> Table {
        let mut columns = vec![
            ("t_s".to_string(), Column::Floats(self.t_s)),
            ("port".to_string(), Column::Ints(self.port)),
            ("queue_pkts".to_string(), Column::Ints(self.queue_pkts)),
            ("queue_bytes".to_string(), Column::Ints(self.queue_bytes)),
        ];
        columns.extend(
            self.names
                .into_iter()
                .zip(self.probes)
                .map(|(n, v)| (format!("aqm_{n}"), Column::Floats(v))),
        );
        Table { columns }
    }
}
