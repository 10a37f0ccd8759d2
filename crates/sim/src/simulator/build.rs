//! Laying out a run: the flows' plans, the network from the topology's builder (each managed
//! port with its own AQM, timer and random stream, and which of them the summary describes),
//! the flows' endpoints and the first events.

use super::{early, hops, ports, Simulation};
use crate::aqm_factory;
use crate::events::{Event, EventQueue};
use crate::flow::Flow;
use crate::metrics::counts::PacketCounts;
use crate::metrics::port_series::PortSeries;
use crate::metrics::port_stats::PortStats;
use crate::metrics::series::Series;
use crate::metrics::window::Window;
use crate::net::built::{BuiltNet, FlowAccess};
use crate::net::managed_port::ManagedQueue;
use crate::net::network::{Network, PortQueue, PortShortcuts};
use crate::net::qdisc::discipline::FlowInfo;
use crate::net::{dumbbell, routers};
use crate::scenario::{QueueSpec, Scenario, ScenarioError, Topology};
use crate::time::{ms_to_ns, s_to_ns};
use crate::traffic::{self, FlowPlan};
use aqm::{Aqm, Rng};

/// Where each flow attaches, by flow id: its group's access delays (or the topology's) and
/// its path through a chain or network as router indices.
fn flow_access<'a>(sc: &'a Scenario, plans: &[(u32, FlowPlan)]) -> Vec<FlowAccess<'a>> {
    let groups = &sc.traffic.groups;
    let (sender_default, receiver_default) = sc.topology.access_delays_ms();
    // Each group's (ingress, egress) router indices, resolved once; the dumbbell ignores them.
    let paths: Vec<(usize, usize)> = match &sc.topology {
        Topology::Chain(n) | Topology::Network(n) => {
            let index = |name: &String| n.routers.iter().position(|r| r == name).unwrap_or(0);
            groups
                .iter()
                .map(|g| {
                    g.path
                        .as_ref()
                        .map_or((0, n.routers.len() - 1), |[a, b]| (index(a), index(b)))
                })
                .collect()
        }
        Topology::Dumbbell(_) => vec![(0, 1); groups.len()],
    };
    let mut in_group = vec![0u32; groups.len()];
    plans
        .iter()
        .map(|&(g, _)| {
            let group = &groups[g as usize];
            let index_in_group = in_group[g as usize];
            in_group[g as usize] += 1;
            FlowAccess {
                sender_ms: group.sender_delay_ms.as_ref().unwrap_or(sender_default),
                receiver_ms: group.receiver_delay_ms.as_ref().unwrap_or(receiver_default),
                index_in_group,
                path: paths[g as usize],
            }
        })
        .collect()
}

impl Simulation {
    /// Build a simulation of a validated scenario; `custom` replaces the AQM of the port the
    /// summary describes ([`Scenario::summary_port`]).
    pub(super) fn build(
        scenario: Scenario,
        mut custom: Option<Box<dyn Aqm>>,
    ) -> Result<Self, ScenarioError> {
        let seed = scenario.seed;
        let window = Window::from_s(scenario.measure.window_s[0], scenario.measure.window_s[1]);
        let plans = traffic::plan(&scenario.traffic, scenario.duration_s, seed)?;
        let access = flow_access(&scenario, &plans);
        let paths: Vec<String> = scenario.queues().into_iter().map(|(p, _, _)| p).collect();
        // The port the summary and the main time series describe.
        let described = scenario.summary_port();
        // The k-th managed port draws from stream aqm/k (the dumbbell's bottleneck: aqm/0).
        let mut make =
            |k: usize, q: &QueueSpec, rate_bps: f64| -> Result<ManagedQueue, ScenarioError> {
                let discipline = match custom.take_if(|_| k == described) {
                    Some(aqm) => aqm_factory::shaped(
                        &paths[k],
                        q,
                        rate_bps,
                        aqm_factory::custom_single(&paths[k], q, rate_bps, aqm)?,
                    )?,
                    None => aqm_factory::discipline_at(&paths[k], q, rate_bps)?,
                };
                Ok(ManagedQueue::new(
                    q,
                    discipline,
                    Rng::stream(seed, "aqm", k as u64),
                    PortStats::new(window),
                ))
            };
        let built: BuiltNet = match &scenario.topology {
            Topology::Dumbbell(d) => dumbbell::build(d, &scenario.queue, &access, seed, &mut make)?,
            Topology::Chain(n) | Topology::Network(n) => {
                routers::build(n, &access, seed, &mut make)?
            }
        };
        // What the disciplines may know of the flows, by flow id: their two ends (CAKE's host
        // isolation) and their group's socket priority (priority bands).
        let groups = &scenario.traffic.groups;
        let hosts: Vec<(u32, u32)> = built.flows.iter().map(|e| (e.sender, e.receiver)).collect();
        let priorities: Vec<u8> = plans
            .iter()
            .map(|&(g, _)| groups[g as usize].priority)
            .collect();
        let flow_info = FlowInfo {
            hosts: &hosts,
            priorities: &priorities,
        };
        let mut built = built;
        for mp in &built.measured {
            if let PortQueue::Managed(m) = &mut built.net.ports[mp.port as usize].queue {
                m.set_flows(&flow_info);
            }
        }
        let flows: Vec<Flow> = built
            .flows
            .iter()
            .zip(&plans)
            .enumerate()
            .map(|(i, (ends, &(g, plan)))| {
                let group = &groups[g as usize];
                Flow::new(i as u32, g, *ends, plan, &group.source, &group.tcp, seed)
            })
            .collect();
        let mut events = EventQueue::default();
        for (i, f) in flows.iter().enumerate() {
            events.push(f.plan.start_ns, Event::FlowStart { flow: i as u32 });
            if let Some(stop) = f.plan.stop_ns {
                events.push(stop, Event::FlowStop { flow: i as u32 });
            }
        }
        events.push(0, Event::Sample);
        let probes: Vec<Vec<String>> = built
            .measured
            .iter()
            .map(|m| {
                let q = built
                    .net
                    .managed(m.port)
                    .expect("measured ports are managed");
                q.probe_names().iter().map(|n| n.to_string()).collect()
            })
            .collect();
        let described_probes: Vec<&str> = probes[described].iter().map(String::as_str).collect();
        let group_names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
        let ends: Vec<(u32, u32)> = flows
            .iter()
            .map(|f| (f.ends.sender, f.ends.receiver))
            .collect();
        let sample_step_ns = ms_to_ns(scenario.measure.sample_interval_ms).max(1);
        let mut sim = Simulation {
            end_ns: s_to_ns(scenario.duration_s),
            sample_step_ns,
            now_ns: 0,
            events,
            link_transmissions: 0,
            ahead: early::Ahead::new(sample_step_ns, groups.len()),
            net: built.net,
            aqm_avg: vec![(0.0, 0); built.measured.len()],
            measured: built.measured,
            counts: PacketCounts::new(flows.len(), window),
            flows,
            outbox: Vec::new(),
            departed: Vec::new(),
            window,
            series: Series::new(&described_probes, &group_names),
            summary_port: described,
            port_series: PortSeries::new(probes),
            probe_buf: Vec::new(),
            active_flows: 0,
            events_processed: 0,
            taking_early: false,
            scenario,
        };
        set_shortcuts(
            &mut sim.net,
            &ends,
            &sim.flows,
            &sim.scenario.measure.cwnd_flows,
        );
        for k in 0..sim.measured.len() {
            sim.schedule_aqm_timer(sim.measured[k].port);
        }
        Ok(sim)
    }
}

/// Each port's [`PortShortcuts`]: its link's shared event lane, the link that alone feeds it
/// (`ends`: each flow's sender and receiver), and whether its far end is an early receiver or
/// an early sender (`traced`: the flows whose window the series records).
fn set_shortcuts(net: &mut Network, ends: &[(u32, u32)], flows: &[Flow], traced: &[u32]) {
    let shared_lanes = ports::shared_link_lanes(net);
    let sole_inputs = hops::sole_inputs(net, ends);
    let early_hosts = early::early_hosts(net, flows);
    let early_senders = early::early_senders(net, flows, traced);
    for (i, port) in net.ports.iter_mut().enumerate() {
        port.shortcuts = PortShortcuts {
            shared_lane: shared_lanes[i],
            sole_input: sole_inputs[i],
            early_receiver: early_hosts[port.to_node as usize],
            early_sender: early_senders[port.to_node as usize],
        };
    }
}
