//! A port whose packets wait in a queue discipline ([`super::qdisc`]): one queue run by an
//! AQM (a bottleneck of the papers), flow queues each run by its own AQM instance, or CAKE, whose
//! shaper may hold packets back while the link is free (the port then waits, [`ManagedQueue::not_before_ns`]). Unlike a
//! plain FIFO port it keeps its packets, so an AQM can decide at dequeue and its timer can see
//! the live queue.

use super::qdisc::cake::Cake;
use super::qdisc::flow_queues::{FlowQueues, FqCounters};
use super::qdisc::single::SingleQueue;
use super::qdisc::Host;
use crate::metrics::counts::PacketCounts;
use crate::metrics::port_stats::PortStats;
use crate::packet::Packet;
use crate::scenario::QueueSpec;
use aqm::Rng;

/// The discipline of a managed port.
pub enum Discipline {
    /// One queue, one AQM: the fast path.
    Single(SingleQueue),
    /// Flow queueing.
    FlowQueues(Box<FlowQueues>),
    /// CAKE: shaper, flow queues with host isolation, COBALT per flow queue.
    Cake(Box<Cake>),
}

/// Names of the values a flow-queueing port reports in the time series.
const FQ_PROBES: &[&str] = &["new_flows_len", "old_flows_len"];

/// Names of the values a CAKE port reports in the time series: flow queues per set.
const CAKE_PROBES: &[&str] = &["sparse_flows", "bulk_flows", "decaying_flows"];

impl Discipline {
    /// Names of the values the port reports in the time series: the AQM's state on a single
    /// queue, the scheduler's list lengths under flow queueing.
    pub fn probe_names(&self) -> &'static [&'static str] {
        match self {
            Discipline::Single(q) => q.aqm().probe_names(),
            Discipline::FlowQueues(_) => FQ_PROBES,
            Discipline::Cake(_) => CAKE_PROBES,
        }
    }
}

/// The discipline, its counters, and whether its link is busy.
pub struct ManagedQueue {
    ecn: bool,
    /// The AQM's name as the scenario gives it.
    aqm_name: &'static str,
    discipline: Discipline,
    rng: Rng,
    /// A packet is on the wire.
    pub busy: bool,
    /// When the discipline's timer event is queued for, if it is (flow queueing only: a new
    /// flow queue's AQM may want its timer earlier).
    pub timer_at_ns: Option<u64>,
    /// Counters over the measurement window.
    pub stats: PortStats,
}

impl ManagedQueue {
    /// A port holding `discipline` (for the queue `spec` describes); with `spec.ecn`, early
    /// signals mark ECN-capable packets.
    pub fn new(spec: &QueueSpec, discipline: Discipline, rng: Rng, stats: PortStats) -> Self {
        ManagedQueue {
            ecn: spec.ecn,
            aqm_name: spec.aqm,
            discipline,
            rng,
            busy: false,
            timer_at_ns: None,
            stats,
        }
    }

    /// Packets waiting.
    pub fn len_pkts(&self) -> u32 {
        match &self.discipline {
            Discipline::Single(q) => q.len_pkts(),
            Discipline::FlowQueues(q) => q.len_pkts(),
            Discipline::Cake(q) => q.len_pkts(),
        }
    }

    /// Bytes waiting.
    pub fn len_bytes(&self) -> u64 {
        match &self.discipline {
            Discipline::Single(q) => q.len_bytes(),
            Discipline::FlowQueues(q) => q.len_bytes(),
            Discipline::Cake(q) => q.len_bytes(),
        }
    }

    /// The AQM's name.
    pub fn aqm_name(&self) -> &'static str {
        self.aqm_name
    }

    /// Whether the port runs flow queueing (CAKE included).
    pub fn is_flow_queueing(&self) -> bool {
        matches!(
            self.discipline,
            Discipline::FlowQueues(_) | Discipline::Cake(_)
        )
    }

    /// Tell a CAKE port each flow's (sender, receiver) nodes, by flow id; other disciplines
    /// ignore it.
    pub fn set_flow_hosts(&mut self, hosts: &[(u32, u32)]) {
        if let Discipline::Cake(q) = &mut self.discipline {
            q.set_flow_hosts(hosts.to_vec());
        }
    }

    /// After a dequeue that gave nothing: when the discipline's shaper lets the next packet
    /// go, if it holds packets back (CAKE only).
    pub fn not_before_ns(&self) -> Option<u64> {
        match &self.discipline {
            Discipline::Cake(q) => q.not_before_ns(),
            _ => None,
        }
    }

    /// The flow scheduler's counters, on a flow-queueing port.
    pub fn fq_counters(&self) -> Option<&FqCounters> {
        match &self.discipline {
            Discipline::Single(_) => None,
            Discipline::FlowQueues(q) => Some(&q.counters),
            Discipline::Cake(q) => Some(&q.counters),
        }
    }

    /// Names of the values [`ManagedQueue::probe`] reports ([`Discipline::probe_names`]).
    pub fn probe_names(&self) -> &'static [&'static str] {
        self.discipline.probe_names()
    }

    /// The values named by [`ManagedQueue::probe_names`], appended to `out`.
    pub fn probe(&self, out: &mut Vec<f64>) {
        match &self.discipline {
            Discipline::Single(q) => q.aqm().probe(out),
            Discipline::FlowQueues(q) => {
                let (new, old) = q.list_lens();
                out.extend([new as f64, old as f64]);
            }
            Discipline::Cake(q) => {
                let s = q.set_counts();
                out.extend([s.sparse, s.bulk, s.decaying].map(f64::from));
            }
        }
    }

    /// The averaged queue the AQM acts on, packets, if it keeps one (single queue only).
    pub fn averaged_queue_pkts(&self) -> Option<f64> {
        match &self.discipline {
            Discipline::Single(q) => q.aqm().averaged_queue_pkts(),
            Discipline::FlowQueues(_) | Discipline::Cake(_) => None,
        }
    }

    /// When the discipline next wants [`ManagedQueue::on_timer`] called, if ever.
    pub fn next_timer_ns(&self) -> Option<u64> {
        match &self.discipline {
            Discipline::Single(q) => q.aqm().next_timer_ns(),
            Discipline::FlowQueues(q) => q.next_timer_ns(),
            Discipline::Cake(_) => None,
        }
    }

    /// Data packets waiting (for the conservation check).
    pub fn data_waiting(&self) -> u64 {
        let data = |p: &&Packet| !p.is_ack();
        match &self.discipline {
            Discipline::Single(q) => q.packets().filter(data).count() as u64,
            Discipline::FlowQueues(q) => q.packets().filter(data).count() as u64,
            Discipline::Cake(q) => q.packets().filter(data).count() as u64,
        }
    }

    /// The discipline, and what it borrows from the port for one operation.
    fn parts<'a>(&'a mut self, counts: &'a mut PacketCounts) -> (&'a mut Discipline, Host<'a>) {
        let host = Host {
            ecn: self.ecn,
            stats: &mut self.stats,
            counts,
            rng: &mut self.rng,
        };
        (&mut self.discipline, host)
    }

    /// Offer an arriving packet; returns whether it joined.
    pub fn enqueue(&mut self, now_ns: u64, pkt: Packet, counts: &mut PacketCounts) -> bool {
        match self.parts(counts) {
            (Discipline::Single(q), mut host) => q.enqueue(now_ns, pkt, &mut host),
            (Discipline::FlowQueues(q), mut host) => q.enqueue(now_ns, pkt, &mut host),
            (Discipline::Cake(q), mut host) => q.enqueue(now_ns, pkt, &mut host),
        }
    }

    /// Take the next packet to transmit, letting the AQMs drop (or mark) at the head.
    pub fn dequeue(&mut self, now_ns: u64, counts: &mut PacketCounts) -> Option<Packet> {
        match self.parts(counts) {
            (Discipline::Single(q), mut host) => q.dequeue(now_ns, &mut host),
            (Discipline::FlowQueues(q), mut host) => q.dequeue(now_ns, &mut host),
            (Discipline::Cake(q), mut host) => q.dequeue(now_ns, &mut host),
        }
    }

    /// Run the AQM timers that are due.
    pub fn on_timer(&mut self, now_ns: u64) {
        match &mut self.discipline {
            Discipline::Single(q) => q.on_timer(now_ns, &mut self.rng),
            Discipline::FlowQueues(q) => q.on_timer(now_ns, &mut self.rng),
            Discipline::Cake(_) => {}
        }
    }
}
