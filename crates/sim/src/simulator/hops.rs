//! Hops whose outcome is known when a packet enters the link before them. A router's
//! drop-tail port fed by one link only (a receiver's access link behind the bottleneck, a
//! sender's on the way back, the reverse bottleneck of a chain) takes that link's packets in
//! the order the link delivers them, and nothing else: what it does with each (the time it
//! sends it, or a drop) is decided by those packets alone, so it is computed when the packet
//! leaves the port before, at the time the packet will reach it, with no arrival event at the
//! router. The run is the same as with the event (the same offers in the same order at the
//! same times; the packet's arrival further on keeps its key), with fewer events. A packet
//! that would reach such a port after the end of the run keeps its event, never run, as before.
//! A link whose rate changes during the run keeps this exact: each packet's transmission time
//! follows from the rate in force when it starts (`crate::net::link_rate`).

use super::ports::link_lane;
use super::Simulation;
use crate::events::Event;
use crate::net::network::{Network, Node, PortQueue, NO_ROUTE};
use crate::packet::Packet;

/// What feeds a port, as the flows' paths tell.
#[derive(Clone, Copy, PartialEq)]
enum Feed {
    /// No path enters it from another port (a host's port, or one no flow uses).
    None,
    /// Every packet it takes comes from this port's link.
    Sole(u32),
    /// Two links or more.
    Many,
}

/// For each port, the port whose link alone feeds it, when it is a router's drop-tail port
/// and every path of `ends` (each flow's sender and receiver, both ways) that enters it comes
/// from that one link.
pub(super) fn sole_inputs(net: &Network, ends: &[(u32, u32)]) -> Vec<Option<u32>> {
    let mut feeds = vec![Feed::None; net.ports.len()];
    for &(a, b) in ends {
        for (from, to) in [(a, b), (b, a)] {
            let Some(mut port) = net.host_port(from) else {
                continue;
            };
            while let Node::Router { routes } =
                &net.nodes[net.ports[port as usize].to_node as usize]
            {
                let next = routes[to as usize];
                if next == NO_ROUTE {
                    break;
                }
                let feed = &mut feeds[next as usize];
                *feed = match *feed {
                    Feed::None => Feed::Sole(port),
                    Feed::Sole(p) if p == port => Feed::Sole(p),
                    _ => Feed::Many,
                };
                port = next;
            }
        }
    }
    feeds
        .iter()
        .zip(&net.ports)
        .map(|(feed, port)| match (feed, &port.queue) {
            (Feed::Sole(p), PortQueue::Fifo(_)) => Some(*p),
            _ => None,
        })
        .collect()
}

impl Simulation {
    /// `pkt` reaches the far end of port `port_id`'s link at `at_ns`: hand it on through every
    /// port there that this link alone feeds, then queue its arrival where it goes next.
    pub(super) fn send_on(&mut self, port_id: u32, at_ns: u64, pkt: Packet) {
        let (mut port_id, mut at_ns) = (port_id, at_ns);
        loop {
            let port = &self.net.ports[port_id as usize];
            let (node, shortcuts) = (port.to_node, port.shortcuts);
            if shortcuts.early_receiver && at_ns <= self.end_ns {
                self.deliver_early(at_ns, pkt);
                return;
            }
            if shortcuts.early_sender && self.sender_takes_early(pkt.flow, at_ns) {
                self.deliver_early_to_sender(at_ns, pkt);
                return;
            }
            // Packets go to hosts: at its destination the node is not looked up.
            let next = if at_ns > self.end_ns || pkt.dst == node {
                NO_ROUTE
            } else {
                match &self.net.nodes[node as usize] {
                    Node::Router { routes } => routes[pkt.dst as usize],
                    Node::Host { .. } => NO_ROUTE,
                }
            };
            let sole = next != NO_ROUTE
                && self.net.ports[next as usize].shortcuts.sole_input == Some(port_id);
            if !sole {
                self.events.push_shared(
                    shortcuts.shared_lane,
                    link_lane(port_id),
                    at_ns,
                    Event::Arrive { node, pkt },
                );
                return;
            }
            let port = &mut self.net.ports[next as usize];
            let PortQueue::Fifo(q) = &mut port.queue else {
                unreachable!("a sole input feeds a drop-tail port")
            };
            // Serialised at the rate in force when its transmission starts.
            let (rate, bytes) = (&port.rate, pkt.bytes());
            match q.offer(at_ns, bytes, |start| rate.tx_time_ns(bytes, start)) {
                Some(done_ns) => {
                    self.link_transmissions += 1;
                    at_ns = done_ns.saturating_add(port.delay_ns);
                    port_id = next;
                }
                None => {
                    self.counts.dropped(&pkt);
                    return;
                }
            }
        }
    }
}
