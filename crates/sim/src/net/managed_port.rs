//! A port whose packets wait in a queue discipline ([`super::qdisc`]): one queue run by an
//! AQM (a bottleneck of the papers), flow queues each run by its own AQM instance, or either
//! behind a token-bucket shaper. Unlike a plain FIFO port it keeps its packets, so an AQM can
//! decide at dequeue and its timer can see the live queue.

use super::qdisc::discipline::{Dequeued, Discipline, FlowInfo};
use super::qdisc::flow_queues::FqCounters;
use super::qdisc::Host;
use crate::metrics::counts::PacketCounts;
use crate::metrics::dual_queue::DualQueueCounts;
use crate::metrics::port_stats::PortStats;
use crate::packet::Packet;
use crate::scenario::QueueSpec;
use aqm::Rng;

/// The discipline, its counters, and whether its link is busy.
pub struct ManagedQueue {
    ecn: bool,
    /// The AQM's name as the scenario gives it.
    aqm_name: &'static str,
    discipline: Discipline,
    rng: Rng,
    /// A packet is on the wire, or the shaper holds the link until its next packet may go.
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
        self.discipline.len_pkts()
    }

    /// Bytes waiting.
    pub fn len_bytes(&self) -> u64 {
        self.discipline.len_bytes()
    }

    /// The AQM's name.
    pub fn aqm_name(&self) -> &'static str {
        self.aqm_name
    }

    /// Tell the discipline about the run's flows ([`Discipline::set_flows`]).
    pub fn set_flows(&mut self, flows: &FlowInfo) {
        self.discipline.set_flows(flows);
    }

    /// Whether the AQM timers may come to be wanted earlier than the one queued
    /// ([`Discipline::timers_may_move`]).
    pub fn timers_may_move(&self) -> bool {
        self.discipline.timers_may_move()
    }

    /// The flow schedulers' counters, on a flow-queueing port.
    pub fn fq_counters(&self) -> Option<FqCounters> {
        self.discipline.fq_counters()
    }

    /// The L and C queues' counters, on a DualPI2 port.
    pub fn dual_queue_counts(&self) -> Option<DualQueueCounts> {
        self.discipline.dual_queue_counts()
    }

    /// Names of the values [`ManagedQueue::probe`] reports ([`Discipline::probe_names`]).
    pub fn probe_names(&self) -> &'static [&'static str] {
        self.discipline.probe_names()
    }

    /// The values named by [`ManagedQueue::probe_names`], appended to `out`.
    pub fn probe(&self, out: &mut Vec<f64>) {
        self.discipline.probe(out)
    }

    /// The averaged queue the AQM acts on, packets, if it keeps one (single queue only).
    pub fn averaged_queue_pkts(&self) -> Option<f64> {
        self.discipline.averaged_queue_pkts()
    }

    /// When the discipline next wants [`ManagedQueue::on_timer`] called, if ever.
    pub fn next_timer_ns(&self) -> Option<u64> {
        self.discipline.next_timer_ns()
    }

    /// Data packets waiting (for the conservation check).
    pub fn data_waiting(&self) -> u64 {
        self.discipline.data_waiting()
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
        let (discipline, mut host) = self.parts(counts);
        discipline.enqueue(now_ns, pkt, &mut host)
    }

    /// Take the next packet to transmit, letting the AQMs drop (or mark) at the head.
    pub fn dequeue(&mut self, now_ns: u64, counts: &mut PacketCounts) -> Dequeued {
        let (discipline, mut host) = self.parts(counts);
        discipline.dequeue(now_ns, &mut host)
    }

    /// Run the AQM timers that are due.
    pub fn on_timer(&mut self, now_ns: u64) {
        self.discipline.on_timer(now_ns, &mut self.rng);
    }
}
