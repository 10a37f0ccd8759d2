//! The event loop: pops events in (time, sequence) order and lets the network, the TCP
//! endpoints and the measurement react.

use crate::aqm_factory;
use crate::events::{Event, EventQueue};
use crate::metrics::counts::PacketCounts;
use crate::metrics::flow_stats::FlowStats;
use crate::metrics::group_table;
use crate::metrics::port_stats::PortStats;
use crate::metrics::series::Series;
use crate::metrics::summary::{self, SummaryInputs};
use crate::metrics::window::Window;
use crate::net::dumbbell::{self, AccessDelays, FlowEnds};
use crate::net::managed_port::ManagedQueue;
use crate::net::network::{Network, Node, PortQueue};
use crate::packet::{flags, Packet};
use crate::result::{Column, RunResult, Table};
use crate::scenario::{canonical, Scenario, ScenarioError};
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::Sender;
use crate::time::{ms_to_ns, ns_to_s, s_to_ns, tx_time_ns};
use crate::traffic::{self, FlowPlan};
use aqm::{Aqm, Rng};

/// One flow: its group, endpoints, TCP state and pending timer events.
struct Flow {
    group: u32,
    ends: FlowEnds,
    plan: FlowPlan,
    sender: Sender,
    receiver: Receiver,
    /// Time of the pending Rto event, if one is queued.
    rto_event_ns: Option<u64>,
    /// Time of the pending DelAck event, if one is queued.
    delack_event_ns: Option<u64>,
    active: bool,
    stats: FlowStats,
}

/// Queue `event` at `deadline` unless an event already pending (at `pending`) fires no later;
/// an event that fires before its deadline re-queues itself, so deadlines can move freely.
fn queue_timer(
    events: &mut EventQueue,
    deadline: Option<u64>,
    pending: &mut Option<u64>,
    event: Event,
) {
    if let Some(d) = deadline {
        if pending.is_none_or(|e| d < e) {
            *pending = Some(d);
            events.push(d, event);
        }
    }
}

/// A simulation of one scenario.
pub struct Simulation {
    scenario: Scenario,
    now_ns: u64,
    end_ns: u64,
    events: EventQueue,
    net: Network,
    bottleneck: u32,
    flows: Vec<Flow>,
    /// Packets produced by the endpoint being run, sent right after.
    outbox: Vec<Packet>,
    counts: PacketCounts,
    window: Window,
    series: Series,
    sample_step_ns: u64,
    probe_buf: Vec<f64>,
    aqm_avg_sum: f64,
    aqm_avg_n: u64,
    active_flows: u32,
    events_processed: u64,
}

impl Simulation {
    /// Build the network, the flows and the initial events of `scenario`, with the AQM the
    /// scenario names on the bottleneck. A scenario built in code is checked as one read from
    /// text is.
    pub fn new(scenario: Scenario) -> Result<Self, ScenarioError> {
        crate::scenario::validate(&scenario)?;
        let rate_bps = scenario.topology.bottleneck_rate_mbps * 1e6;
        let aqm = aqm_factory::build(&scenario.queue, rate_bps)?;
        Self::build(scenario, aqm)
    }

    /// Like [`Simulation::new`], with any [`Aqm`] on the bottleneck (for algorithms that
    /// are not, or not yet, part of the scenario format).
    pub fn with_aqm(scenario: Scenario, aqm: Box<dyn Aqm>) -> Result<Self, ScenarioError> {
        crate::scenario::validate(&scenario)?;
        Self::build(scenario, aqm)
    }

    /// Build a simulation of a validated scenario.
    fn build(scenario: Scenario, aqm: Box<dyn Aqm>) -> Result<Self, ScenarioError> {
        let seed = scenario.seed;
        let window = Window::from_s(scenario.measure.window_s[0], scenario.measure.window_s[1]);
        let plans = traffic::plan(&scenario.traffic, scenario.duration_s, seed)?;
        let q = &scenario.queue;
        let series = Series::new(aqm.probe_names());
        // The bottleneck is the first port of the dumbbell; its AQM draws from stream aqm/0.
        let managed = ManagedQueue::new(
            q.limit_pkts,
            q.limit_bytes,
            q.ecn,
            scenario.topology.bottleneck_rate_mbps * 1e6,
            aqm,
            Rng::stream(seed, "aqm", 0),
            PortStats::new(window),
        );
        let topo = &scenario.topology;
        let groups = &scenario.traffic.groups;
        let mut in_group = vec![0u32; groups.len()];
        let access: Vec<AccessDelays> = plans
            .iter()
            .map(|&(g, _)| {
                let group = &groups[g as usize];
                let index_in_group = in_group[g as usize];
                in_group[g as usize] += 1;
                AccessDelays {
                    sender_ms: group
                        .sender_delay_ms
                        .as_ref()
                        .unwrap_or(&topo.sender_delay_ms),
                    receiver_ms: group
                        .receiver_delay_ms
                        .as_ref()
                        .unwrap_or(&topo.receiver_delay_ms),
                    index_in_group,
                }
            })
            .collect();
        let built = dumbbell::build(topo, &access, seed, managed);
        let flows = built
            .flows
            .iter()
            .zip(&plans)
            .enumerate()
            .map(|(i, (ends, &(group, plan)))| Flow {
                group,
                ends: *ends,
                plan,
                sender: Sender::new(i as u32, ends.receiver, &groups[group as usize].tcp),
                receiver: Receiver::new(i as u32, ends.sender),
                rto_event_ns: None,
                delack_event_ns: None,
                active: false,
                stats: FlowStats::default(),
            })
            .collect::<Vec<_>>();
        let mut events = EventQueue::default();
        for (i, f) in flows.iter().enumerate() {
            events.push(f.plan.start_ns, Event::FlowStart { flow: i as u32 });
            if let Some(stop) = f.plan.stop_ns {
                events.push(stop, Event::FlowStop { flow: i as u32 });
            }
        }
        events.push(0, Event::Sample);
        let mut sim = Simulation {
            end_ns: s_to_ns(scenario.duration_s),
            sample_step_ns: ms_to_ns(scenario.measure.sample_interval_ms).max(1),
            now_ns: 0,
            events,
            net: built.net,
            bottleneck: built.bottleneck_port,
            flows,
            outbox: Vec::new(),
            counts: PacketCounts::default(),
            window,
            series,
            probe_buf: Vec::new(),
            aqm_avg_sum: 0.0,
            aqm_avg_n: 0,
            active_flows: 0,
            events_processed: 0,
            scenario,
        };
        sim.schedule_aqm_timer();
        Ok(sim)
    }

    /// Run to the end. `progress(sim_time_s)` is called about 200 times; an `Err` from it
    /// aborts the run and is returned.
    pub fn run<E>(
        mut self,
        mut progress: impl FnMut(f64) -> Result<(), E>,
    ) -> Result<RunResult, E> {
        let step = (self.end_ns / 200).max(1);
        let mut next_progress = step;
        while let Some(t) = self.events.peek_time() {
            if t > self.end_ns {
                break;
            }
            let (t, event) = self.events.pop().expect("peeked");
            self.now_ns = t;
            self.events_processed += 1;
            if t >= next_progress {
                progress(ns_to_s(t))?;
                next_progress = t + step;
            }
            self.dispatch(event);
        }
        self.now_ns = self.end_ns;
        progress(ns_to_s(self.end_ns))?;
        Ok(self.finish())
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::Arrive { node, pkt } => self.arrive(node, pkt),
            Event::TxDone { port } => {
                if let PortQueue::Managed(m) = &mut self.net.ports[port as usize].queue {
                    m.busy = false;
                }
                self.start_transmission(port);
            }
            Event::AqmTimer { port } => {
                if let PortQueue::Managed(m) = &mut self.net.ports[port as usize].queue {
                    m.on_timer(self.now_ns);
                }
                self.schedule_aqm_timer();
            }
            Event::FlowStart { flow } => self.start_flow(flow),
            Event::FlowStop { flow } => {
                let f = &mut self.flows[flow as usize];
                if f.active {
                    f.active = false;
                    f.sender.stop();
                    self.active_flows -= 1;
                }
            }
            Event::Rto { flow } => {
                let f = &mut self.flows[flow as usize];
                if f.rto_event_ns != Some(self.now_ns) {
                    return; // superseded by an earlier deadline
                }
                f.rto_event_ns = None;
                let tcp = &self.scenario.traffic.groups[f.group as usize].tcp;
                f.sender.on_rto(self.now_ns, tcp, &mut self.outbox);
                let host = f.ends.sender;
                self.flush_outbox(host);
                self.sync_rto_timer(flow);
            }
            Event::DelAck { flow } => {
                let f = &mut self.flows[flow as usize];
                if f.delack_event_ns != Some(self.now_ns) {
                    return;
                }
                f.delack_event_ns = None;
                let tcp = &self.scenario.traffic.groups[f.group as usize].tcp;
                f.receiver
                    .on_delack_timer(self.now_ns, tcp, &mut self.outbox);
                let host = f.ends.receiver;
                self.flush_outbox(host);
                self.sync_delack_timer(flow);
            }
            Event::Sample => self.sample(),
        }
    }

    fn start_flow(&mut self, flow: u32) {
        let now = self.now_ns;
        let f = &mut self.flows[flow as usize];
        if f.plan.stop_ns.is_some_and(|s| s <= now) {
            return; // removed before its start offset elapsed
        }
        f.active = true;
        self.active_flows += 1;
        f.sender.start(
            now,
            &self.scenario.traffic.groups[f.group as usize].tcp,
            &mut self.outbox,
        );
        let host = f.ends.sender;
        self.flush_outbox(host);
        self.sync_rto_timer(flow);
    }

    /// A packet reaches `node`: routers forward it, hosts hand it to TCP.
    fn arrive(&mut self, node: u32, pkt: Packet) {
        let port = match &self.net.nodes[node as usize] {
            Node::Router { routes } => routes[pkt.dst as usize],
            Node::Host { .. } => {
                self.counts.delivered(&pkt);
                self.deliver(pkt);
                return;
            }
        };
        self.forward(port, pkt);
    }

    fn deliver(&mut self, pkt: Packet) {
        let now = self.now_ns;
        let f = &mut self.flows[pkt.flow as usize];
        let tcp = &self.scenario.traffic.groups[f.group as usize].tcp;
        if pkt.has(flags::ACK) {
            f.sender.on_ack(&pkt, now, tcp, &mut self.outbox);
            let host = f.ends.sender;
            self.flush_outbox(host);
            self.sync_rto_timer(pkt.flow);
        } else if pkt.has(flags::SYN) {
            f.receiver.on_syn(&pkt, tcp, &mut self.outbox);
            let host = f.ends.receiver;
            self.flush_outbox(host);
        } else {
            let in_window = self.window.contains(now);
            f.stats.arrival(ns_to_s(now - pkt.sent_ns), in_window);
            let newly = f.receiver.on_data(&pkt, now, tcp, &mut self.outbox);
            if in_window {
                f.stats.delivered_bytes += u64::from(newly) * u64::from(tcp.payload_bytes());
            }
            let host = f.ends.receiver;
            self.flush_outbox(host);
            self.sync_delack_timer(pkt.flow);
        }
    }

    /// Put every packet the last endpoint produced onto `host`'s interface.
    fn flush_outbox(&mut self, host: u32) {
        let Node::Host { port } = self.net.nodes[host as usize] else {
            unreachable!("endpoints live on hosts");
        };
        let mut outbox = std::mem::take(&mut self.outbox);
        for pkt in outbox.drain(..) {
            self.counts.sent(&pkt);
            self.forward(port, pkt);
        }
        self.outbox = outbox;
    }

    /// Offer a packet to an output port.
    fn forward(&mut self, port_id: u32, pkt: Packet) {
        let now = self.now_ns;
        let port = &mut self.net.ports[port_id as usize];
        match &mut port.queue {
            PortQueue::Fifo(q) => {
                let tx_ns = tx_time_ns(pkt.bytes(), port.rate_bps);
                match q.offer(now, pkt.bytes(), tx_ns) {
                    Some(done_ns) => self.events.push(
                        done_ns.saturating_add(port.delay_ns),
                        Event::Arrive {
                            node: port.to_node,
                            pkt,
                        },
                    ),
                    None => self.counts.dropped(&pkt),
                }
            }
            PortQueue::Managed(m) => {
                if m.enqueue(now, pkt, &mut self.counts) && !m.busy {
                    self.start_transmission(port_id);
                }
            }
        }
    }

    /// A managed port is idle: send its next packet, if any.
    fn start_transmission(&mut self, port_id: u32) {
        let now = self.now_ns;
        let port = &mut self.net.ports[port_id as usize];
        let PortQueue::Managed(m) = &mut port.queue else {
            return;
        };
        let Some(pkt) = m.dequeue(now, &mut self.counts) else {
            return;
        };
        let tx_ns = tx_time_ns(pkt.bytes(), port.rate_bps);
        m.busy = true;
        m.stats.transmitted(now, now + tx_ns);
        self.events
            .push(now + tx_ns, Event::TxDone { port: port_id });
        self.events.push(
            now + tx_ns + port.delay_ns,
            Event::Arrive {
                node: port.to_node,
                pkt,
            },
        );
    }

    /// Keep one Rto event queued no later than the sender's deadline.
    fn sync_rto_timer(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let deadline = f.sender.rto_deadline_ns();
        queue_timer(
            &mut self.events,
            deadline,
            &mut f.rto_event_ns,
            Event::Rto { flow },
        );
    }

    /// Keep one DelAck event queued no later than the receiver's deadline.
    fn sync_delack_timer(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let deadline = f.receiver.delack_deadline_ns();
        queue_timer(
            &mut self.events,
            deadline,
            &mut f.delack_event_ns,
            Event::DelAck { flow },
        );
    }

    fn schedule_aqm_timer(&mut self) {
        if let Some(t) = self
            .net
            .managed(self.bottleneck)
            .and_then(|m| m.aqm().next_timer_ns())
        {
            self.events.push(
                t.max(self.now_ns),
                Event::AqmTimer {
                    port: self.bottleneck,
                },
            );
        }
    }

    fn sample(&mut self) {
        let now = self.now_ns;
        let t_s = ns_to_s(now);
        let m = self
            .net
            .managed(self.bottleneck)
            .expect("the bottleneck is managed");
        self.probe_buf.clear();
        m.aqm().probe(&mut self.probe_buf);
        if let (Some(avg), true) = (m.aqm().averaged_queue_pkts(), self.window.contains(now)) {
            self.aqm_avg_sum += avg;
            self.aqm_avg_n += 1;
        }
        self.series.queue_row(
            t_s,
            m.len_pkts(),
            m.len_bytes(),
            self.active_flows,
            &self.probe_buf,
        );
        for &flow in &self.scenario.measure.cwnd_flows {
            if let Some(f) = self.flows.get(flow as usize) {
                self.series
                    .cwnd_row(t_s, flow, f.sender.cwnd_pkts(), f.sender.ssthresh_pkts());
            }
        }
        self.events.push(now + self.sample_step_ns, Event::Sample);
    }

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

    fn finish(self) -> RunResult {
        let sc = &self.scenario;
        let m = self
            .net
            .managed(self.bottleneck)
            .expect("the bottleneck is managed");
        let active_s: Vec<f64> = self
            .flows
            .iter()
            .map(|f| {
                let stop = f.plan.stop_ns.unwrap_or(self.end_ns).max(f.plan.start_ns);
                self.window.overlap_ns(f.plan.start_ns, stop) as f64 * 1e-9
            })
            .collect();
        let stats: Vec<FlowStats> = self.flows.iter().map(|f| f.stats.clone()).collect();
        let (t_s, q) = self.series.queue_samples();
        let settle = sc.measure.target_queue_pkts.map_or(f64::NAN, |target| {
            summary::settle_time_s(t_s, q, &self.window, target, sc.measure.settle_band)
        });
        let summary = summary::build(&SummaryInputs {
            aqm: sc.queue.aqm,
            duration_s: sc.duration_s,
            seed: sc.seed,
            window: self.window,
            port: &m.stats,
            flows: &stats,
            active_s: &active_s,
            aqm_avg_queue_pkts: (self.aqm_avg_n > 0)
                .then(|| self.aqm_avg_sum / self.aqm_avg_n as f64),
            settle_time_s: settle,
            counts: self.counts,
            data_in_flight: self.data_in_flight(),
            events: self.events_processed,
        });
        let flows = self.flow_table(&active_s);
        let group_of: Vec<u32> = self.flows.iter().map(|f| f.group).collect();
        let groups = group_table::build(
            &group_of,
            sc.traffic.groups.len(),
            &stats,
            &active_s,
            self.window.len_s(),
        );
        let scenario_toml = canonical::to_toml(sc);
        let seed = sc.seed;
        let (timeseries, cwnd) = self.series.into_tables();
        RunResult {
            summary,
            timeseries,
            flows,
            groups,
            cwnd,
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
        let mean_ms = |sum: f64, n: u64| if n > 0 { sum / n as f64 * 1e3 } else { 0.0 };
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
                ("data_sent".into(), ints(&|f| f.sender.stats.data_sent)),
                ("retransmits".into(), ints(&|f| f.sender.stats.retransmits)),
                ("timeouts".into(), ints(&|f| f.sender.stats.timeouts)),
                (
                    "fast_recoveries".into(),
                    ints(&|f| f.sender.stats.fast_recoveries),
                ),
                (
                    "ecn_reductions".into(),
                    ints(&|f| f.sender.stats.ecn_reductions),
                ),
                (
                    "syn_retransmits".into(),
                    ints(&|f| f.sender.stats.syn_retransmits),
                ),
                ("aborted".into(), ints(&|f| f.sender.stats.aborted)),
            ],
        }
    }
}
