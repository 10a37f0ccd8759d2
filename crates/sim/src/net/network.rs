//! Nodes and links. A link is two output ports, one per direction; each port has a rate, a
//! propagation delay and a queue (drop tail, or a managed queue with an AQM).

use super::fifo_port::FifoQueue;
use super::link_rate::LinkRate;
use super::managed_port::ManagedQueue;

/// An output port: the sending end of one direction of a link.
pub struct Port {
    /// Node at the far end.
    pub to_node: u32,
    /// Link rate over the run, bits per second.
    pub rate: LinkRate,
    /// Propagation delay, ns.
    pub delay_ns: u64,
    /// The port's buffer.
    pub queue: PortQueue,
    /// What a simulation works out about this port when it is built (the default until then).
    pub shortcuts: PortShortcuts,
}

/// Facts about a port that a simulation works out when it is built (`simulator::hops`,
/// `simulator::early`, `simulator::ports` say how), kept in the port itself so that a
/// packet's hop finds them in the memory it reads for the port anyway (in BetaRED scenario 2
/// with paced senders, reading them from three tables of their own took about 9 % of the
/// first-level data-cache misses).
#[derive(Clone, Copy, Debug, Default)]
pub struct PortShortcuts {
    /// The event lane the packets on this port's link share with links like it.
    pub shared_lane: u32,
    /// The port whose link alone feeds this one, when this is a router's drop-tail port with
    /// one input link; its packets are computed through without an arrival event.
    pub sole_input: Option<u32>,
    /// The far end is a host whose receiver takes packets when their arrival is known.
    pub early_receiver: bool,
    /// The far end is a host whose sender may take its acknowledgements when their arrival
    /// is known (`simulator::early`).
    pub early_sender: bool,
}

/// The buffer of a port.
pub enum PortQueue {
    /// Drop tail without an AQM.
    Fifo(FifoQueue),
    /// A queue run by an AQM.
    Managed(Box<ManagedQueue>),
}

/// A node: a router forwards by its table, a host delivers to its TCP endpoints.
pub enum Node {
    /// Forwards packets; `routes[dst]` is the output port toward node `dst`.
    Router { routes: Vec<u32> },
    /// An end host with one network interface.
    Host { port: u32 },
}

/// Marks "no route" in a routing table.
pub const NO_ROUTE: u32 = u32::MAX;

/// The whole network.
#[derive(Default)]
pub struct Network {
    /// Every node, indexed by node id.
    pub nodes: Vec<Node>,
    /// Every port, indexed by port id.
    pub ports: Vec<Port>,
    /// Ports leaving each node.
    pub(crate) out_ports: Vec<Vec<u32>>,
    /// The port of the opposite direction of the same link.
    pub(crate) reverse_port: Vec<u32>,
}

impl Network {
    /// Add a router.
    pub fn add_router(&mut self) -> u32 {
        self.add_node(Node::Router { routes: Vec::new() })
    }

    /// Add a host (its port is set by the first link attached to it).
    pub fn add_host(&mut self) -> u32 {
        self.add_node(Node::Host { port: NO_ROUTE })
    }

    fn add_node(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        self.out_ports.push(Vec::new());
        (self.nodes.len() - 1) as u32
    }

    /// Connect `a` and `b` with a full-duplex link of `rate` both ways; returns the ports
    /// (a→b, b→a).
    pub fn add_link(
        &mut self,
        a: u32,
        b: u32,
        rate: LinkRate,
        delay_ns: u64,
        queue_ab: PortQueue,
        queue_ba: PortQueue,
    ) -> (u32, u32) {
        let ab = self.add_port(a, b, rate.clone(), delay_ns, queue_ab);
        let ba = self.add_port(b, a, rate, delay_ns, queue_ba);
        self.reverse_port.push(ba);
        self.reverse_port.push(ab);
        (ab, ba)
    }

    fn add_port(
        &mut self,
        from: u32,
        to: u32,
        rate: LinkRate,
        delay_ns: u64,
        queue: PortQueue,
    ) -> u32 {
        let id = self.ports.len() as u32;
        self.ports.push(Port {
            to_node: to,
            rate,
            delay_ns,
            queue,
            shortcuts: PortShortcuts::default(),
        });
        self.out_ports[from as usize].push(id);
        if let Node::Host { port } = &mut self.nodes[from as usize] {
            if *port == NO_ROUTE {
                *port = id;
            }
        }
        id
    }

    /// The port of `node` when it is a host (its one network interface).
    pub fn host_port(&self, node: u32) -> Option<u32> {
        match self.nodes[node as usize] {
            Node::Host { port } => Some(port),
            Node::Router { .. } => None,
        }
    }

    /// The managed queue of port `port`, if it has one.
    pub fn managed(&self, port: u32) -> Option<&ManagedQueue> {
        match &self.ports[port as usize].queue {
            PortQueue::Managed(m) => Some(m),
            PortQueue::Fifo(_) => None,
        }
    }
}
