//! The end of a run: the summary (of the port `Scenario::summary_port` picks), the per-port,
//! per-flow, per-group, flow-completion and probe tables, and the time series.

use super::Simulation;
use crate::events::Event;
use crate::flow::{Agent, Flow};
use crate::metrics::fct_table::{self, FiniteFlow};
use crate::metrics::flow_stats::FlowStats;
use crate::metrics::group_table::{self, GroupInputs};
use crate::metrics::port_table::{self, PortRow};
use crate::metrics::probes::{self, ProbeFlow};
use crate::metrics::summary::{self, SummaryInputs};
use crate::net::network::PortQueue;
use crate::result::{Column, RunResult, Table};
use crate::scenario::canonical;
use crate::time::ns_to_s;

impl Simulation {
    /// Data packets still in a queue or on a link.
    fn data_in_flight(&self) -> u64 {
        let on_links = self
            .events
            .iter()
            .filter(|e| matches!(e, Event::Arrive { pkt, .. } if !pkt.is_ack()))
            .count() as u64;
        let queued: u64 = self
            .net
            .ports
            .iter()
            .map(|p| match &p.queue {
                PortQueue::Managed(m) => m.data_waiting(),
                PortQueue::Fifo(_) => 0,
            })
            .sum();
        on_links + queued
    }

    /// The mean of measured port `k`'s AQM-averaged queue over the samples in the window.
    fn aqm_avg_queue_pkts(&self, k: usize) -> Option<f64> {
        let (sum, n) = self.aqm_avg[k];
        (n > 0).then(|| sum / n as f64)
    }

    /// The probe flows, each with its probes.
    fn probe_flows(&self) -> Vec<ProbeFlow<'_>> {
        (0u32..)
            .zip(&self.flows)
            .filter_map(|(flow, f)| match &f.agent {
                Agent::Probe(p) => Some(ProbeFlow {
                    flow,
                    group: f.group,
                    probes: &p.probes,
                }),
                _ => None,
            })
            .collect()
    }

    pub(super) fn finish(mut self) -> RunResult {
        for &(flow, seq) in &self.counts.lost_probes {
            if let Agent::Probe(p) = &mut self.flows[flow as usize].agent {
                p.mark_lost(seq);
            }
        }
        let sc = &self.scenario;
        let managed = |k: usize| {
            self.net
                .managed(self.measured[k].port)
                .expect("measured ports are managed")
        };
        let active_s: Vec<f64> = self
            .flows
            .iter()
            .map(|f| {
                let end = f.completed_ns.or(f.plan.stop_ns).unwrap_or(self.end_ns);
                let stop = end.max(f.plan.start_ns);
                self.window.overlap_ns(f.plan.start_ns, stop) as f64 * 1e-9
            })
            .collect();
        let stats: Vec<FlowStats> = self.flows.iter().map(|f| f.stats.clone()).collect();
        let (t_s, q) = self.series.queue_samples();
        let settle = sc.measure.target_queue_pkts.map_or(f64::NAN, |target| {
            summary::settle_time_s(t_s, q, &self.window, target, sc.measure.settle_band)
        });
        // Probe flows measure the path and carry no load: the summary's delivery metrics
        // leave them out.
        let load: Vec<usize> = (0..self.flows.len())
            .filter(|&i| !matches!(self.flows[i].agent, Agent::Probe(_)))
            .collect();
        let load_stats: Vec<FlowStats> = load.iter().map(|&i| stats[i].clone()).collect();
        let load_active_s: Vec<f64> = load.iter().map(|&i| active_s[i]).collect();
        let described = self.summary_port;
        let port = managed(described);
        let probe_flows = self.probe_flows();
        let mut summary = summary::build(&SummaryInputs {
            aqm: port.aqm_name(),
            port_name: &self.measured[described].name,
            duration_s: sc.duration_s,
            seed: sc.seed,
            window: self.window,
            port: &port.stats,
            flows_total: self.flows.len() as u64,
            flows: &load_stats,
            active_s: &load_active_s,
            aqm_avg_queue_pkts: self.aqm_avg_queue_pkts(described),
            settle_time_s: settle,
            counts: self.counts.totals,
            data_in_flight: self.data_in_flight(),
            events: self.events_processed,
            link_transmissions: self.link_transmissions,
        });
        summary.extend(probes::summary(&probe_flows, self.window));
        let probes = probes::table(&probe_flows);
        let port_rows: Vec<PortRow> = self
            .measured
            .iter()
            .enumerate()
            .map(|(k, mp)| PortRow {
                name: &mp.name,
                aqm: managed(k).aqm_name(),
                rate_bps: mp.rate_bps,
                stats: &managed(k).stats,
                aqm_avg_queue_pkts: self.aqm_avg_queue_pkts(k),
                queue_end_pkts: managed(k).len_pkts(),
                fq: managed(k).fq_counters(),
                dual: managed(k).dual_queue_counts(),
            })
            .collect();
        let ports = port_table::build(&port_rows, self.window);
        let flows = self.flow_table(&active_s);
        let group_of: Vec<u32> = self.flows.iter().map(|f| f.group).collect();
        let transport: Vec<&str> = sc
            .traffic
            .groups
            .iter()
            .map(|g| if g.source.is_tcp() { "tcp" } else { "udp" })
            .collect();
        let groups = group_table::build(&GroupInputs {
            group_of: &group_of,
            transport: &transport,
            stats: &stats,
            active_s: &active_s,
            lost: &self.counts.lost_by_flow,
            window_s: self.window.len_s(),
        });
        let finite: Vec<FiniteFlow> = self
            .flows
            .iter()
            .filter(|f| self.window.contains(f.plan.start_ns))
            .filter_map(|f| {
                f.plan.size_bytes.map(|size_bytes| FiniteFlow {
                    group: f.group,
                    size_bytes,
                    fct_s: f.completed_ns.map(|c| ns_to_s(c - f.plan.start_ns)),
                })
            })
            .collect();
        let fct = fct_table::build(&finite, &sc.measure.fct_bins_bytes);
        let scenario_toml = canonical::to_toml(sc);
        let seed = sc.seed;
        let port_timeseries = self.port_series.into_table();
        let (timeseries, cwnd) = self.series.into_tables();
        RunResult {
            summary,
            timeseries,
            ports,
            port_timeseries,
            flows,
            groups,
            fct,
            cwnd,
            probes,
            scenario_toml,
            seed,
        }
    }

    fn flow_table(&self, active_s: &[f64]) -> Table {
        let fl = &self.flows;
        let floats = |g: &dyn Fn(usize, &Flow) -> f64| {
            Column::Floats(fl.iter().enumerate().map(|(i, f)| g(i, f)).collect())
        };
        let ints =
            |g: &dyn Fn(&Flow) -> u64| Column::Ints(fl.iter().map(|f| g(f) as i64).collect());
        let tcp = |g: &dyn Fn(&crate::tcp::sender::SenderStats) -> u64| {
            ints(&|f: &Flow| f.tcp_sender().map_or(0, |s| g(&s.stats)))
        };
        let mean_ms = |sum: f64, n: u64| if n > 0 { sum / n as f64 * 1e3 } else { 0.0 };
        let lost = &self.counts.lost_by_flow;
        Table {
            columns: vec![
                ("flow".into(), Column::Ints((0..fl.len() as i64).collect())),
                ("group".into(), ints(&|f| u64::from(f.group))),
                ("start_s".into(), floats(&|_, f| ns_to_s(f.plan.start_ns))),
                (
                    "stop_s".into(),
                    floats(&|_, f| f.plan.stop_ns.map_or(f64::NAN, ns_to_s)),
                ),
                (
                    "rtt_prop_ms".into(),
                    floats(&|_, f| f.ends.rtt_prop_ns as f64 * 1e-6),
                ),
                ("delivered_bytes".into(), ints(&|f| f.stats.delivered_bytes)),
                (
                    "throughput_mbps".into(),
                    floats(&|i, f| {
                        if active_s[i] > 0.0 {
                            f.stats.delivered_bytes as f64 * 8.0 / active_s[i] / 1e6
                        } else {
                            0.0
                        }
                    }),
                ),
                (
                    "delay_mean_ms".into(),
                    floats(&|_, f| mean_ms(f.stats.delay_sum_s, f.stats.delay_count)),
                ),
                (
                    "jitter_ms".into(),
                    floats(&|_, f| mean_ms(f.stats.jitter_sum_s, f.stats.jitter_count)),
                ),
                (
                    "data_sent".into(),
                    ints(&|f| match &f.agent {
                        Agent::Tcp { sender, .. } => sender.stats.data_sent,
                        Agent::Udp(u) => u.packets_sent,
                        Agent::Probe(p) => p.packets_sent(),
                    }),
                ),
                ("retransmits".into(), tcp(&|s| s.retransmits)),
                ("timeouts".into(), tcp(&|s| s.timeouts)),
                ("fast_recoveries".into(), tcp(&|s| s.fast_recoveries)),
                ("ecn_reductions".into(), tcp(&|s| s.ecn_reductions)),
                ("syn_retransmits".into(), tcp(&|s| s.syn_retransmits)),
                ("aborted".into(), tcp(&|s| s.aborted)),
                (
                    "lost_pkts".into(),
                    Column::Ints(lost.iter().map(|&n| n as i64).collect()),
                ),
                (
                    "size_bytes".into(),
                    ints(&|f| f.plan.size_bytes.unwrap_or(0)),
                ),
                (
                    "fct_s".into(),
                    floats(&|_, f| {
                        f.completed_ns
                            .map_or(f64::NAN, |c| ns_to_s(c - f.plan.start_ns))
                    }),
                ),
            ],
        }
    }
}
