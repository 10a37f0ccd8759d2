//! What a topology builder hands the simulator: the network, its measured ports (those with a
//! managed queue) and the two ends of every flow, plus the helpers the builders share.

use super::fifo_port::FifoQueue;
use super::link_rate::LinkRate;
use super::managed_port::ManagedQueue;
use super::network::{Network, PortQueue};
use super::routing::{compute_routes, path_delay_ns};
use crate::scenario::{AccessLinks, DelaySpec, QueueSpec, RateChange, ScenarioError};
use crate::time::{ms_to_ns, s_to_ns};
use aqm::Rng;

/// The two ends of one flow and its round-trip propagation delay.
#[derive(Clone, Copy, Debug)]
pub struct FlowEnds {
    /// Sender host.
    pub sender: u32,
    /// Receiver host.
    pub receiver: u32,
    /// The sender host's port (its network interface).
    pub sender_port: u32,
    /// The receiver host's port.
    pub receiver_port: u32,
    /// Round-trip propagation delay, ns (no queueing, no serialisation).
    pub rtt_prop_ns: u64,
}

/// A port with a managed queue, whose counters and time series are reported.
#[derive(Clone, Debug)]
pub struct MeasuredPort {
    /// Port id in the network.
    pub port: u32,
    /// Name, "<from>-><to>" by router names.
    pub name: String,
    /// Link rate, b/s.
    pub rate_bps: f64,
}

/// A built network.
pub struct BuiltNet {
    /// The network, routes computed.
    pub net: Network,
    /// The measured ports, in the topology's order (`Scenario::summary_port` indexes them).
    pub measured: Vec<MeasuredPort>,
    /// Endpoints of each flow, by flow id.
    pub flows: Vec<FlowEnds>,
}

/// Where one flow attaches: its access delays and, on a chain, the routers it enters and
/// leaves by.
pub struct FlowAccess<'a> {
    /// Sender access link delay, ms.
    pub sender_ms: &'a DelaySpec,
    /// Receiver access link delay, ms.
    pub receiver_ms: &'a DelaySpec,
    /// The flow's place in its group (what a list of delays is indexed by).
    pub index_in_group: u32,
    /// Ingress and egress router indices along a chain (ignored by the dumbbell).
    pub path: (usize, usize),
}

/// Builds the managed queue of the `k`-th measured port from its spec and link rate (b/s).
pub type QueueMaker<'a> =
    dyn FnMut(usize, &QueueSpec, f64) -> Result<ManagedQueue, ScenarioError> + 'a;

impl DelaySpec {
    /// The delay of flow `flow`, the `index`-th of its group, ms: uniform draws come from the
    /// stream `label`/`flow`, a list gives its item `index` mod its length.
    pub fn for_flow(&self, flow: u32, index: u32, seed: u64, label: &str) -> f64 {
        match self {
            DelaySpec::Constant(x) => *x,
            DelaySpec::Uniform(lo, hi) => {
                Rng::stream(seed, label, flow.into()).uniform_in(*lo, *hi)
            }
            DelaySpec::List(items) => items[index as usize % items.len()],
        }
    }
}

/// Mb/s to b/s, rounded to whole bits per second.
pub fn mbps_to_bps(mbps: f64) -> u64 {
    (mbps * 1e6).round() as u64
}

/// A link's rate: `rate_mbps` from the start, then each change's from its time on, in whole
/// b/s and whole nanoseconds.
pub fn link_rate(rate_mbps: f64, schedule: &[RateChange]) -> LinkRate {
    let initial_bps = mbps_to_bps(rate_mbps);
    if schedule.is_empty() {
        return LinkRate::fixed(initial_bps);
    }
    let changes = schedule
        .iter()
        .map(|c| (s_to_ns(c.t_s), mbps_to_bps(c.rate_mbps)))
        .collect();
    LinkRate::scheduled(initial_bps, changes)
}

/// A drop-tail port of `limit` packets.
pub fn fifo(limit: u32) -> PortQueue {
    PortQueue::Fifo(FifoQueue::new(limit))
}

/// How hosts attach: their links' rate and delays, and the drop-tail buffers at both ends.
pub struct Access {
    /// Access links' rate, b/s.
    pub rate_bps: u64,
    /// Drop-tail buffer of router ports, packets.
    pub router_buffer_pkts: u32,
    /// Drop-tail buffer of host interfaces, packets.
    pub host_buffer_pkts: u32,
    /// Seed of the delay draws.
    pub seed: u64,
}

impl Access {
    /// The access links of `spec`, delays drawn with `seed`.
    pub fn new(spec: &AccessLinks, seed: u64) -> Self {
        Access {
            rate_bps: mbps_to_bps(spec.access_rate_mbps),
            router_buffer_pkts: spec.router_buffer_pkts,
            host_buffer_pkts: spec.host_buffer_pkts,
            seed,
        }
    }

    /// Attach every flow of `access` (flow ids in order) between the ingress and egress
    /// routers `route(a)` gives.
    pub fn attach_all(
        &self,
        net: &mut Network,
        access: &[FlowAccess],
        route: impl Fn(&FlowAccess) -> (u32, u32),
    ) -> Vec<Attached> {
        (0u32..)
            .zip(access)
            .map(|(flow, a)| {
                let (ingress, egress) = route(a);
                self.attach(net, flow, a, ingress, egress)
            })
            .collect()
    }

    /// Add flow `flow`'s sender host on `ingress` and receiver host on `egress`.
    fn attach(
        &self,
        net: &mut Network,
        flow: u32,
        a: &FlowAccess,
        ingress: u32,
        egress: u32,
    ) -> Attached {
        let sender = net.add_host();
        let receiver = net.add_host();
        let i = a.index_in_group;
        let sender_ns = ms_to_ns(a.sender_ms.for_flow(flow, i, self.seed, "sender-delay"));
        let receiver_ns = ms_to_ns(a.receiver_ms.for_flow(flow, i, self.seed, "receiver-delay"));
        let (host, router) = (self.host_buffer_pkts, self.router_buffer_pkts);
        net.add_link(
            sender,
            ingress,
            LinkRate::fixed(self.rate_bps),
            sender_ns,
            fifo(host),
            fifo(router),
        );
        net.add_link(
            egress,
            receiver,
            LinkRate::fixed(self.rate_bps),
            receiver_ns,
            fifo(router),
            fifo(host),
        );
        Attached { sender, receiver }
    }
}

/// The two hosts of one flow, attached before the routes are computed.
pub struct Attached {
    /// Sender host.
    pub sender: u32,
    /// Receiver host.
    pub receiver: u32,
}

/// Compute `net`'s routes, then each flow's ends with its round-trip propagation delay: the
/// delays along its route there plus those along its route back.
pub fn route_flows(net: &mut Network, attached: Vec<Attached>) -> Vec<FlowEnds> {
    compute_routes(net);
    attached
        .into_iter()
        .map(|a| FlowEnds {
            sender: a.sender,
            receiver: a.receiver,
            sender_port: net.host_port(a.sender).expect("flows attach to hosts"),
            receiver_port: net.host_port(a.receiver).expect("flows attach to hosts"),
            rtt_prop_ns: path_delay_ns(net, a.sender, a.receiver)
                + path_delay_ns(net, a.receiver, a.sender),
        })
        .collect()
}
