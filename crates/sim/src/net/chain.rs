//! The chain (parking lot): routers in a line, link i joining routers i and i + 1. Each
//! link's forward port (toward the last router) holds its own queue and AQM; its reverse port
//! does too when the link sets `reverse_queue`, and is plain drop tail otherwise. A flow's
//! sender hangs off its ingress router and its receiver off its egress router, each by its own
//! access link; routes are the fewest hops, which on a line is the line.

use super::built::{fifo, mbps_to_bps, Access, BuiltNet, FlowAccess, MeasuredPort, QueueMaker};
use super::network::{Network, PortQueue};
use super::routing::compute_routes;
use crate::scenario::{Chain, ScenarioError};
use crate::time::ms_to_ns;

/// Build a chain for one flow per entry of `access` (flow ids in order); `make` builds each
/// managed queue, numbered in port order (link 0 forward, link 0 reverse if managed, link 1
/// forward, ...).
pub fn build(
    spec: &Chain,
    access: &[FlowAccess],
    seed: u64,
    make: &mut QueueMaker,
) -> Result<BuiltNet, ScenarioError> {
    let mut net = Network::default();
    let routers: Vec<u32> = spec.routers.iter().map(|_| net.add_router()).collect();
    let mut measured = Vec::new();
    let mut link_delay_ns = Vec::with_capacity(spec.links.len());
    for (i, link) in spec.links.iter().enumerate() {
        let rate_bps = link.rate_mbps * 1e6;
        let (from, to) = (&spec.routers[i], &spec.routers[i + 1]);
        let forward = make(measured.len(), &link.queue, rate_bps)?;
        let reverse = match &link.reverse_queue {
            Some((q, _)) => PortQueue::Managed(Box::new(make(measured.len() + 1, q, rate_bps)?)),
            None => fifo(spec.access.router_buffer_pkts),
        };
        let managed_reverse = matches!(reverse, PortQueue::Managed(_));
        let delay_ns = ms_to_ns(link.delay_ms);
        link_delay_ns.push(delay_ns);
        let (ab, ba) = net.add_link(
            routers[i],
            routers[i + 1],
            mbps_to_bps(link.rate_mbps),
            delay_ns,
            PortQueue::Managed(Box::new(forward)),
            reverse,
        );
        measured.push(MeasuredPort {
            port: ab,
            name: format!("{from}->{to}"),
            rate_bps,
        });
        if managed_reverse {
            measured.push(MeasuredPort {
                port: ba,
                name: format!("{to}->{from}"),
                rate_bps,
            });
        }
    }
    let hosts = Access::new(&spec.access, seed);
    let flows = hosts.attach_all(&mut net, access, |a| {
        let (lo, hi) = (a.path.0.min(a.path.1), a.path.0.max(a.path.1));
        let core_ns = link_delay_ns[lo..hi].iter().sum();
        (routers[a.path.0], routers[a.path.1], core_ns)
    });
    compute_routes(&mut net);
    Ok(BuiltNet {
        net,
        measured,
        flows,
    })
}
