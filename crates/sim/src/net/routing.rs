//! Static shortest-path routing (fewest hops), computed once before the run.

use super::network::{Network, Node, NO_ROUTE};
use std::collections::VecDeque;

/// Fill every router's table with the next-hop port toward every host.
pub fn compute_routes(net: &mut Network) {
    let n = net.nodes.len();
    let hosts: Vec<u32> = (0..n as u32)
        .filter(|&i| matches!(net.nodes[i as usize], Node::Host { .. }))
        .collect();
    let mut tables: Vec<Vec<u32>> = net
        .nodes
        .iter()
        .map(|node| match node {
            Node::Router { .. } => vec![NO_ROUTE; n],
            Node::Host { .. } => Vec::new(),
        })
        .collect();
    let mut next_hop = vec![NO_ROUTE; n];
    let mut queue = VecDeque::new();
    for &dst in &hosts {
        // Breadth-first search outward from the destination: the first link by which a node
        // is reached, reversed, is its next hop toward the destination.
        next_hop.fill(NO_ROUTE);
        let mut seen = vec![false; n];
        seen[dst as usize] = true;
        queue.push_back(dst);
        while let Some(v) = queue.pop_front() {
            for &p in &net.out_ports[v as usize] {
                let u = net.ports[p as usize].to_node as usize;
                if !seen[u] {
                    seen[u] = true;
                    next_hop[u] = net.reverse_port[p as usize];
                    // Hosts do not forward, so a search never passes through one.
                    if matches!(net.nodes[u], Node::Router { .. }) {
                        queue.push_back(u as u32);
                    }
                }
            }
        }
        for (node, table) in tables.iter_mut().enumerate() {
            if !table.is_empty() {
                table[dst as usize] = next_hop[node];
            }
        }
    }
    for (node, table) in net.nodes.iter_mut().zip(tables) {
        if let Node::Router { routes } = node {
            *routes = table;
        }
    }
}
