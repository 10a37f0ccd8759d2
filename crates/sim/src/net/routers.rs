//! Chains (parking lots) and networks: named routers joined by links. Each link's forward port
//! (`from` → `to`; along a chain, toward the last router) holds its own queue and AQM; its
//! reverse port does too when the link sets `reverse_queue`, and is plain drop tail otherwise.
//! A flow's sender hangs off its ingress router and its receiver off its egress router, each
//! by its own access link; routes are the fewest hops (on a line, the line).

use super::built::{
    fifo, link_rate, route_flows, Access, BuiltNet, FlowAccess, MeasuredPort, QueueMaker,
};
use super::network::{Network, PortQueue};
use crate::scenario::{RouterNet, ScenarioError};
use crate::time::ms_to_ns;

/// Build a chain or network for one flow per entry of `access` (flow ids in order); `make`
/// builds each managed queue, numbered in port order (link 0 forward, link 0 reverse if
/// managed, link 1 forward, ...).
pub fn build(
    spec: &RouterNet,
    access: &[FlowAccess],
    seed: u64,
    make: &mut QueueMaker,
) -> Result<BuiltNet, ScenarioError> {
    let mut net = Network::default();
    let routers: Vec<u32> = spec.routers.iter().map(|_| net.add_router()).collect();
    let mut measured = Vec::new();
    for (i, link) in spec.links.iter().enumerate() {
        let rate_bps = link.rate_mbps * 1e6;
        let (a, b) = link.ends;
        let forward = make(measured.len(), &link.queue, rate_bps)?;
        let reverse = match &link.reverse_queue {
            Some((q, _)) => PortQueue::Managed(Box::new(make(measured.len() + 1, q, rate_bps)?)),
            None => fifo(spec.access.router_buffer_pkts),
        };
        let managed_reverse = matches!(reverse, PortQueue::Managed(_));
        let (ab, ba) = net.add_link(
            routers[a],
            routers[b],
            link_rate(link.rate_mbps, &link.rate_schedule),
            ms_to_ns(link.delay_ms),
            PortQueue::Managed(Box::new(forward)),
            reverse,
        );
        measured.push(MeasuredPort {
            port: ab,
            name: spec.port_name(i, false),
            rate_bps,
        });
        if managed_reverse {
            measured.push(MeasuredPort {
                port: ba,
                name: spec.port_name(i, true),
                rate_bps,
            });
        }
    }
    let hosts = Access::new(&spec.access, seed);
    let attached = hosts.attach_all(&mut net, access, |a| (routers[a.path.0], routers[a.path.1]));
    let flows = route_flows(&mut net, attached);
    Ok(BuiltNet {
        net,
        measured,
        flows,
    })
}
