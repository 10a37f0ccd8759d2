//! A port whose packets wait in a queue discipline ([`super::qdisc`]): one queue run by an
//! AQM (a bottleneck of the papers), flow queues each run by its own AQM instance, or either
//! behind a token-bucket shaper. Unlike a plain FIFO port it keeps its packets, so an AQM can
//! decide at dequeue and its timer can see the live queue.
//!
//! One queue whose AQM never decides at dequeue ([`aqm::Aqm::decides_at_dequeue`]) sends its
//! packets in the order they join, back to back: the port is *in order*. Each packet's departure
//! is then known when it joins, and the simulator sends it on at once
//! ([`ManagedQueue::offer_in_order`]), with no end-of-transmission event; the queue makes its
//! departures, each at its own time, whenever it is next used ([`ManagedQueue::depart_until`]),
//! so the AQM hears of them as it would have at each end of transmission. A link whose rate
//! changes keeps this exact: each packet's transmission time follows from the rate in force at
//! its start ([`LinkRate`]), which is known when it joins.
//!
//! Every other port makes its ends of transmission *late*: what happens at one (the discipline
//! gives its next packet, its AQMs deciding at the head) depends on the queue as it is then,
//! which only the port's own arrivals and timers change, so the port makes the ends of
//! transmission due by then, each at its own time, before it takes an arrival, runs its timers
//! or is sampled ([`ManagedQueue::depart_late_until`]). A packet that starts at an end of
//! transmission reaches the far end of the link one transmission and one delay later, so the
//! simulator keeps one check event queued no later than the next end of transmission plus the
//! link's delay, and each packet is sent on before the time it arrives. A busy bottleneck
//! takes arrivals far more often than once per delay, so about one check per delay replaces
//! one event per packet.

use super::link_rate::LinkRate;
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
    /// When the discipline's timer event is queued for, if it is (priority bands only: a
    /// band's AQM may want its timer earlier).
    pub timer_at_ns: Option<u64>,
    /// Counters over the measurement window.
    pub stats: PortStats,
    /// The port is in order (see the module's documentation).
    in_order: bool,
    /// In order: when the packet on the wire will have left (while `busy`), ns.
    tx_end_ns: u64,
    /// In order: when the last packet to join will have left, ns.
    backlog_end_ns: u64,
    /// The port makes its ends of transmission late (see the module's documentation); when
    /// busy, `tx_end_ns` is the next one (or the end of the shaper's wait).
    late: bool,
    /// Late: when the queued check event fires, if one is queued.
    pub check_at_ns: Option<u64>,
}

/// What an offer to an in-order port did ([`ManagedQueue::offer_in_order`]).
pub struct Offered {
    /// Packets put on the link during the offer: the departures that came due, and the
    /// offered packet when the link was idle.
    pub sent: u64,
    /// If the packet joined: the packet as queued (CE-marked if the AQM marked it) and when its
    /// transmission ends, ns.
    pub joined: Option<(Packet, u64)>,
}

impl ManagedQueue {
    /// A port holding `discipline` (for the queue `spec` describes); with `spec.ecn`, early
    /// signals mark ECN-capable packets.
    pub fn new(spec: &QueueSpec, discipline: Discipline, rng: Rng, stats: PortStats) -> Self {
        let in_order =
            matches!(&discipline, Discipline::Single(q) if !q.aqm().decides_at_dequeue());
        ManagedQueue {
            ecn: spec.ecn,
            aqm_name: spec.aqm,
            discipline,
            rng,
            busy: false,
            timer_at_ns: None,
            stats,
            in_order,
            tx_end_ns: 0,
            backlog_end_ns: 0,
            late: !in_order,
            check_at_ns: None,
        }
    }

    /// Make the port send each packet at its end of transmission, as any other port (to
    /// compare runs with and without in-order ports).
    #[cfg(test)]
    pub(crate) fn never_in_order(&mut self) {
        self.in_order = false;
        self.late = true;
    }

    /// Make the port run each end of transmission as an event (to compare runs with and
    /// without late ends of transmission).
    #[cfg(test)]
    pub(crate) fn never_late(&mut self) {
        self.late = false;
    }

    /// Whether the port makes its ends of transmission late (see the module's documentation).
    pub fn late(&self) -> bool {
        self.late
    }

    /// Late: the next end of transmission (or of the shaper's wait), while the link is busy.
    pub fn next_tx_end_ns(&self) -> Option<u64> {
        self.busy.then_some(self.tx_end_ns)
    }

    /// Whether the port is in order: its packets are sent on when they join
    /// ([`ManagedQueue::offer_in_order`]) and it has no end-of-transmission events.
    pub fn in_order(&self) -> bool {
        self.in_order
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

    /// Data packets waiting and not yet sent on (for the conservation check): none on an
    /// in-order port, whose packets are on their way to the next hop from when they join.
    pub fn data_waiting(&self) -> u64 {
        if self.in_order {
            0
        } else {
            self.discipline.data_waiting()
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

    /// In order: make every departure due by `now_ns` (ends of transmission at or before it),
    /// each at its own time, on a link of `rate`. Returns how many packets went on the link.
    pub fn depart_until(&mut self, now_ns: u64, rate: &LinkRate, counts: &mut PacketCounts) -> u64 {
        debug_assert!(self.in_order);
        let mut started = 0;
        while self.busy && self.tx_end_ns <= now_ns {
            self.busy = false;
            started += self.start_next(self.tx_end_ns, rate, counts);
        }
        started
    }

    /// In order: make the departures due by `now_ns`, then offer an arriving packet. When it
    /// joins, it leaves after the packets ahead of it, back to back; its transmission starts
    /// at once if the link is idle.
    pub fn offer_in_order(
        &mut self,
        now_ns: u64,
        pkt: Packet,
        rate: &LinkRate,
        counts: &mut PacketCounts,
    ) -> Offered {
        let mut sent = self.depart_until(now_ns, rate, counts);
        if !self.enqueue(now_ns, pkt, counts) {
            return Offered { sent, joined: None };
        }
        let Discipline::Single(q) = &self.discipline else {
            unreachable!("an in-order port holds one queue");
        };
        let pkt = *q.newest().expect("the packet just joined");
        let start_ns = if self.busy {
            self.backlog_end_ns
        } else {
            now_ns
        };
        self.backlog_end_ns = start_ns + rate.tx_time_ns(pkt.bytes(), start_ns);
        if !self.busy {
            sent += self.start_next(now_ns, rate, counts);
        }
        Offered {
            sent,
            joined: Some((pkt, self.backlog_end_ns)),
        }
    }

    /// Late: make every end of transmission due by `now_ns`, each at its own time, on a link of
    /// `rate`; each packet that starts goes to `out` with the end of its transmission.
    pub fn depart_late_until(
        &mut self,
        now_ns: u64,
        rate: &LinkRate,
        counts: &mut PacketCounts,
        out: &mut Vec<(Packet, u64)>,
    ) {
        debug_assert!(self.late);
        while self.busy && self.tx_end_ns <= now_ns {
            self.busy = false;
            self.start_late(self.tx_end_ns, rate, counts, out);
        }
    }

    /// Late, with the link idle at `at_ns`: the discipline's next packet starts (to `out`, with
    /// the end of its transmission), or its shaper holds the link until its tokens are there.
    pub fn start_late(
        &mut self,
        at_ns: u64,
        rate: &LinkRate,
        counts: &mut PacketCounts,
        out: &mut Vec<(Packet, u64)>,
    ) {
        match self.dequeue(at_ns, counts) {
            Dequeued::Packet(pkt) => {
                self.transmit(&pkt, at_ns, rate);
                out.push((pkt, self.tx_end_ns));
            }
            Dequeued::WaitUntil(wait_ns) => {
                self.busy = true;
                self.tx_end_ns = wait_ns;
            }
            Dequeued::Empty => {}
        }
    }

    /// In order, with the link idle at `at_ns`: put the head packet on it, if any. Returns
    /// how many packets went on the link (0 or 1).
    fn start_next(&mut self, at_ns: u64, rate: &LinkRate, counts: &mut PacketCounts) -> u64 {
        match self.dequeue(at_ns, counts) {
            Dequeued::Packet(pkt) => {
                self.transmit(&pkt, at_ns, rate);
                1
            }
            Dequeued::Empty => 0,
            Dequeued::WaitUntil(_) => unreachable!("an in-order port has no shaper"),
        }
    }

    /// `pkt` goes on the idle link at `at_ns`: the link is busy until its transmission ends.
    fn transmit(&mut self, pkt: &Packet, at_ns: u64, rate: &LinkRate) {
        let tx_ns = rate.tx_time_ns(pkt.bytes(), at_ns);
        self.busy = true;
        self.tx_end_ns = at_ns + tx_ns;
        self.stats
            .transmitted(at_ns, at_ns + tx_ns, pkt.bytes(), !pkt.is_ack());
    }
}
