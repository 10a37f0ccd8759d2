//! Static shortest-path routing (fewest hops), computed once before the run.
//!
//! Hosts do not forward, so the way from a router to a host is the way to a router the host
//! is attached to, then the host's own link. One breadth-first search over the routers per
//! router therefore gives every table, in time proportional to routers × ports (not to the
//! square of the number of hosts).

use super::network::{Network, Node, NO_ROUTE};
use std::collections::VecDeque;

/// From every router toward router `dst`: (hops, first port), by a breadth-first search that
/// only passes through routers; indexed by node id, `NO_ROUTE` hops where unreachable.
fn toward_router(net: &Network, dst: usize) -> Vec<(u32, u32)> {
    let mut way = vec![(NO_ROUTE, NO_ROUTE); net.nodes.len()];
    way[dst] = (0, NO_ROUTE);
    let mut queue = VecDeque::from([dst]);
    while let Some(v) = queue.pop_front() {
        for &p in &net.out_ports[v] {
            let u = net.ports[p as usize].to_node as usize;
            if matches!(net.nodes[u], Node::Router { .. }) && way[u].0 == NO_ROUTE {
                // The first link by which u is reached, reversed, is its next hop toward dst.
                way[u] = (way[v].0 + 1, net.reverse_port[p as usize]);
                queue.push_back(u);
            }
        }
    }
    way
}

/// Fill every router's table with the next-hop port toward every host.
pub fn compute_routes(net: &mut Network) {
    let n = net.nodes.len();
    let is_router = |i: usize| matches!(net.nodes[i], Node::Router { .. });
    let routers: Vec<usize> = (0..n).filter(|&i| is_router(i)).collect();
    // ways[a][r]: from router r toward router a.
    let mut ways: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
    for &a in &routers {
        ways[a] = toward_router(net, a);
    }
    let mut tables: Vec<(usize, Vec<u32>)> = Vec::with_capacity(routers.len());
    for &r in &routers {
        let mut table = vec![NO_ROUTE; n];
        for (host, slot) in table.iter_mut().enumerate() {
            if is_router(host) {
                continue;
            }
            // The nearest router the host is attached to (the first of its links on a tie).
            let mut best = (NO_ROUTE, NO_ROUTE);
            for &p in &net.out_ports[host] {
                let a = net.ports[p as usize].to_node as usize;
                let way = if a == r {
                    (0, net.reverse_port[p as usize])
                } else if is_router(a) {
                    ways[a][r]
                } else {
                    continue;
                };
                if way.0 < best.0 {
                    best = way;
                }
            }
            *slot = best.1;
        }
        tables.push((r, table));
    }
    for (r, table) in tables {
        if let Node::Router { routes } = &mut net.nodes[r] {
            *routes = table;
        }
    }
}

/// The propagation delay from host `from` to host `to` along the routes, ns (the routes must
/// join them: every topology builder connects its routers).
pub fn path_delay_ns(net: &Network, from: u32, to: u32) -> u64 {
    let port = net.host_port(from).expect("flows start at hosts");
    let (mut port, mut total_ns) = (port, 0);
    loop {
        let p = &net.ports[port as usize];
        total_ns += p.delay_ns;
        if p.to_node == to {
            return total_ns;
        }
        let Node::Router { routes } = &net.nodes[p.to_node as usize] else {
            unreachable!("hosts do not forward")
        };
        port = routes[to as usize];
    }
}

#[cfg(test)]
mod tests {
    use super::super::fifo_port::FifoQueue;
    use super::super::link_rate::LinkRate;
    use super::super::network::PortQueue;
    use super::*;

    fn fifo() -> PortQueue {
        PortQueue::Fifo(FifoQueue::new(10))
    }

    fn routes(net: &Network, router: u32) -> &[u32] {
        match &net.nodes[router as usize] {
            Node::Router { routes } => routes,
            Node::Host { .. } => panic!("not a router"),
        }
    }

    #[test]
    fn routes_follow_the_fewest_hops() {
        // h0 - r0 - r1 - r2 - h1, with a shortcut r0 - r2 and h2 on r1.
        let mut net = Network::default();
        let (r0, r1, r2) = (net.add_router(), net.add_router(), net.add_router());
        let (h0, h1, h2) = (net.add_host(), net.add_host(), net.add_host());
        let (r0_h0, _) = net.add_link(r0, h0, LinkRate::fixed(1), 0, fifo(), fifo());
        let (r0_r1, r1_r0) = net.add_link(r0, r1, LinkRate::fixed(1), 0, fifo(), fifo());
        let (r1_r2, _) = net.add_link(r1, r2, LinkRate::fixed(1), 0, fifo(), fifo());
        let (r2_h1, _) = net.add_link(r2, h1, LinkRate::fixed(1), 0, fifo(), fifo());
        let (r0_r2, r2_r0) = net.add_link(r0, r2, LinkRate::fixed(1), 0, fifo(), fifo());
        let (r1_h2, _) = net.add_link(r1, h2, LinkRate::fixed(1), 0, fifo(), fifo());
        compute_routes(&mut net);
        let (h0, h1, h2) = (h0 as usize, h1 as usize, h2 as usize);
        assert_eq!(routes(&net, r0)[h0], r0_h0);
        assert_eq!(routes(&net, r0)[h1], r0_r2, "the shortcut, not through r1");
        assert_eq!(routes(&net, r0)[h2], r0_r1);
        assert_eq!(routes(&net, r1)[h0], r1_r0);
        assert_eq!(routes(&net, r1)[h1], r1_r2);
        assert_eq!(routes(&net, r1)[h2], r1_h2);
        assert_eq!(routes(&net, r2)[h0], r2_r0);
        assert_eq!(routes(&net, r2)[h1], r2_h1);
        assert_eq!(
            routes(&net, r2)[r0 as usize],
            NO_ROUTE,
            "routers are not destinations"
        );
    }
}
