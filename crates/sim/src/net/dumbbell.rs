//! The dumbbell: N senders → R1 → R2 → N receivers. The bottleneck R1 → R2 port holds the
//! scenario's queue and AQM; every other port is drop tail with a declared size.

use super::built::{
    fifo, link_rate, route_flows, Access, BuiltNet, FlowAccess, MeasuredPort, QueueMaker,
};
use super::network::{Network, PortQueue};
use crate::scenario::{Dumbbell, QueueSpec, ScenarioError, DUMBBELL_PORT};
use crate::time::ms_to_ns;

/// Build a dumbbell for one flow per entry of `access` (flow ids in order), the bottleneck
/// queue of `queue` made by `make`.
pub fn build(
    spec: &Dumbbell,
    queue: &QueueSpec,
    access: &[FlowAccess],
    seed: u64,
    make: &mut QueueMaker,
) -> Result<BuiltNet, ScenarioError> {
    let mut net = Network::default();
    let r1 = net.add_router();
    let r2 = net.add_router();
    let bottleneck_delay_ns = ms_to_ns(spec.bottleneck_delay_ms);
    let rate = link_rate(spec.bottleneck_rate_mbps, &spec.bottleneck_rate_schedule);
    let managed = make(0, queue, spec.bottleneck_rate_mbps * 1e6)?;
    let (bottleneck_port, _) = net.add_link(
        r1,
        r2,
        rate,
        bottleneck_delay_ns,
        PortQueue::Managed(Box::new(managed)),
        fifo(spec.access.router_buffer_pkts),
    );
    let hosts = Access::new(&spec.access, seed);
    let attached = hosts.attach_all(&mut net, access, |_| (r1, r2));
    let flows = route_flows(&mut net, attached);
    Ok(BuiltNet {
        net,
        measured: vec![MeasuredPort {
            port: bottleneck_port,
            name: DUMBBELL_PORT.into(),
            rate_bps: spec.bottleneck_rate_mbps * 1e6,
        }],
        flows,
    })
}
