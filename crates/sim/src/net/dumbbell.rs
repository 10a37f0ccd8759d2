//! The dumbbell: N senders → R1 → R2 → N receivers. The bottleneck R1 → R2 port holds the
//! AQM; every other port is drop tail with a declared size.

use super::fifo_port::FifoQueue;
use super::managed_port::ManagedQueue;
use super::network::{Network, PortQueue};
use super::routing::compute_routes;
use crate::scenario::{DelaySpec, Dumbbell};
use crate::time::ms_to_ns;
use aqm::Rng;

/// The two ends of one flow and its round-trip propagation delay.
#[derive(Clone, Copy, Debug)]
pub struct FlowEnds {
    /// Sender host.
    pub sender: u32,
    /// Receiver host.
    pub receiver: u32,
    /// Round-trip propagation delay, ns (no queueing, no serialisation).
    pub rtt_prop_ns: u64,
}

/// A built dumbbell.
pub struct DumbbellNet {
    /// The network.
    pub net: Network,
    /// The R1 → R2 port (the AQM's).
    pub bottleneck_port: u32,
    /// Endpoints of each flow.
    pub flows: Vec<FlowEnds>,
}

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

fn mbps_to_bps(mbps: f64) -> u64 {
    (mbps * 1e6).round() as u64
}

/// The access delays of one flow's sender and receiver links.
pub struct AccessDelays<'a> {
    /// Sender link.
    pub sender_ms: &'a DelaySpec,
    /// Receiver link.
    pub receiver_ms: &'a DelaySpec,
    /// The flow's place in its group (what a list of delays is indexed by).
    pub index_in_group: u32,
}

/// Build a dumbbell for one flow per entry of `access` (flow ids in order) with
/// `bottleneck` as the R1 → R2 queue.
pub fn build(
    spec: &Dumbbell,
    access: &[AccessDelays],
    seed: u64,
    bottleneck: ManagedQueue,
) -> DumbbellNet {
    let mut net = Network::default();
    let r1 = net.add_router();
    let r2 = net.add_router();
    let fifo = |limit| PortQueue::Fifo(FifoQueue::new(limit));
    let bottleneck_delay_ns = ms_to_ns(spec.bottleneck_delay_ms);
    let (bottleneck_port, _) = net.add_link(
        r1,
        r2,
        mbps_to_bps(spec.bottleneck_rate_mbps),
        bottleneck_delay_ns,
        PortQueue::Managed(Box::new(bottleneck)),
        fifo(spec.router_buffer_pkts),
    );
    let access_bps = mbps_to_bps(spec.access_rate_mbps);
    let mut flows = Vec::with_capacity(access.len());
    for (flow, delays) in (0u32..).zip(access) {
        let sender = net.add_host();
        let receiver = net.add_host();
        let i = delays.index_in_group;
        let sender_ns = ms_to_ns(delays.sender_ms.for_flow(flow, i, seed, "sender-delay"));
        let receiver_ns = ms_to_ns(delays.receiver_ms.for_flow(flow, i, seed, "receiver-delay"));
        net.add_link(
            sender,
            r1,
            access_bps,
            sender_ns,
            fifo(spec.host_buffer_pkts),
            fifo(spec.router_buffer_pkts),
        );
        net.add_link(
            r2,
            receiver,
            access_bps,
            receiver_ns,
            fifo(spec.router_buffer_pkts),
            fifo(spec.host_buffer_pkts),
        );
        flows.push(FlowEnds {
            sender,
            receiver,
            rtt_prop_ns: 2 * (sender_ns + bottleneck_delay_ns + receiver_ns),
        });
    }
    compute_routes(&mut net);
    DumbbellNet {
        net,
        bottleneck_port,
        flows,
    }
}
