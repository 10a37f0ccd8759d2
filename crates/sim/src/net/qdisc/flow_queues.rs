//! Flow queueing (RFC 8290 §4; ns-3.37 `FqCoDelQueueDisc` and its FQ-PIE and FQ-COBALT
//! siblings; Linux `sch_fq_codel`): arriving packets are hashed into flow queues
//! ([`super::classify`]); a flow queue that was idle joins the list of new flows with a
//! quantum of credit; the dequeue serves new flows before old ones by deficit round robin
//! (§4.2): a flow queue whose credit is spent gets a quantum more and goes to the end of the
//! old list; an empty new flow moves to the old list, an empty old flow leaves the lists.
//! Each flow queue has its own AQM instance, which decides on arrivals and departures of its
//! packets from its flow queue's state. When the discipline holds more packets than its limit
//! (or more bytes than its memory limit) after an arrival, packets are dropped from the head
//! of the flow queue with the most bytes, up to a batch or half of its bytes (§4.1,
//! "overlimit" drops).
//!
//! Where ns-3.37 and Linux differ, ns-3.37 is followed (docs/aqm/fq_codel.md): an empty new
//! flow always moves to the old list (Linux makes it idle when the old list is empty); the
//! AQM of a flow queue sees that flow queue's bytes (Linux's CoDel checks the whole backlog
//! against the MTU); a flow queue is put in the new list before its AQM decides on the packet.
//!
//! A flow queue's AQM timer (PIE's probability update every `t_update`, as each of ns-3.37's
//! per-flow `PieQueueDisc`s schedules its own) acts on nothing but that AQM, from that flow
//! queue's length, which changes only when a packet joins or leaves it. So the timers that
//! fell due since a flow queue was last touched run when it is next touched, each at its own
//! time and with the length the flow queue had then, before the packet that touches it (an
//! arrival at the timer's own instant comes first, as the event order has it): the AQM makes
//! the same decisions as with an event per timer, and the port schedules no timer events. A
//! timer that falls due after a flow queue's last packet never runs; nothing reads the AQM
//! without a packet. (No AQM draws random numbers in its timer; one that did would draw in
//! the order the flow queues are touched.)

use super::classify::{flow_key, Classifier};
use super::{judge_arrival, judge_departure, view_of, Host, Queued};
use crate::packet::{Ecn, Packet};
use aqm::{Aqm, FlowQueueing, QueueView};
use std::collections::VecDeque;

/// Marks a bucket without a flow queue.
const NONE: u32 = u32::MAX;

/// Which list a flow queue is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    /// Idle: in no list (RFC 8290 "inactive").
    Idle,
    New,
    Old,
}

/// One flow queue: its packets, DRR credit and AQM.
struct FlowQueue {
    packets: VecDeque<Queued>,
    bytes: u64,
    /// DRR deficit, bytes (may go negative by less than a packet).
    deficit: i64,
    list: List,
    aqm: Box<dyn Aqm>,
    /// When the AQM's next timer is due, ns, if it wants one.
    timer_ns: Option<u64>,
    /// The flow key ([`flow_key`]) that first used the queue, and whether another has since.
    owner: u64,
    shared: bool,
}

/// Counters of the flow scheduler (Linux `tc -s qdisc` names where they exist).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FqCounters {
    /// Flow queues ever used (whole run).
    pub flow_queues_used: u64,
    /// Times an idle flow queue became a new flow, inside the window (Linux `new_flow_count`).
    pub new_flows: u64,
    /// Flow queues that have held packets of more than one flow (whole run): hash collisions.
    pub collisions: u64,
    /// Packets dropped from the fattest flow queue because the discipline was full, counted
    /// with their arrival inside the window (Linux `drop_overlimit`).
    pub overlimit_drops: u64,
    /// Packets marked CE for a sojourn time above the CE threshold, inside the window (Linux
    /// `ce_mark`).
    pub ce_threshold_marks: u64,
}

impl FqCounters {
    /// The sum of two sets of counters (two schedulers' on one port).
    pub fn plus(&self, other: &FqCounters) -> FqCounters {
        FqCounters {
            flow_queues_used: self.flow_queues_used + other.flow_queues_used,
            new_flows: self.new_flows + other.new_flows,
            collisions: self.collisions + other.collisions,
            overlimit_drops: self.overlimit_drops + other.overlimit_drops,
            ce_threshold_marks: self.ce_threshold_marks + other.ce_threshold_marks,
        }
    }
}

/// The flow queues, their lists and the AQM factory.
pub struct FlowQueues {
    limit_pkts: u32,
    limit_bytes: u64,
    memory_limit_bytes: u64,
    rate_bps: f64,
    quantum_bytes: i64,
    drop_batch_size: u32,
    ce_threshold_ns: Option<u64>,
    overlimit_tells_aqm: bool,
    classifier: Classifier,
    /// Per bucket: the index of its flow queue in `queues`, or [`NONE`].
    bucket_queue: Vec<u32>,
    /// The flow queues in the order they were first used (ns-3's class order).
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len_pkts: u32,
    bytes: u64,
    make_aqm: Box<dyn FnMut() -> Box<dyn Aqm>>,
    /// The counters.
    pub counters: FqCounters,
}

impl FlowQueues {
    /// Flow queues set by `fq`, holding at most `limit_pkts` packets (and `limit_bytes`
    /// bytes when not 0) for a link of `rate_bps`, each managed by an AQM from `make_aqm`.
    pub fn new(
        fq: &FlowQueueing,
        limit_pkts: u32,
        limit_bytes: u64,
        rate_bps: f64,
        make_aqm: Box<dyn FnMut() -> Box<dyn Aqm>>,
    ) -> Self {
        let ways = if fq.set_associative_hash {
            fq.set_ways
        } else {
            0
        };
        FlowQueues {
            limit_pkts,
            limit_bytes,
            memory_limit_bytes: u64::from(fq.memory_limit_bytes),
            rate_bps,
            quantum_bytes: i64::from(fq.quantum_bytes),
            drop_batch_size: fq.drop_batch_size,
            ce_threshold_ns: (fq.ce_threshold_ms > 0.0)
                .then(|| (fq.ce_threshold_ms * 1e6).round() as u64),
            overlimit_tells_aqm: fq.overlimit_tells_aqm,
            classifier: Classifier::new(fq.flows, fq.perturbation, ways),
            bucket_queue: vec![NONE; fq.flows as usize],
            queues: Vec::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len_pkts: 0,
            bytes: 0,
            make_aqm,
            counters: FqCounters::default(),
        }
    }

    /// Packets waiting in all flow queues.
    pub fn len_pkts(&self) -> u32 {
        self.len_pkts
    }

    /// Bytes waiting in all flow queues.
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// Lengths of the new-flow and old-flow lists.
    pub fn list_lens(&self) -> (usize, usize) {
        (self.new_flows.len(), self.old_flows.len())
    }

    /// Every waiting packet.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.queues
            .iter()
            .flat_map(|q| q.packets.iter().map(|(p, _)| p))
    }

    /// Flow queue `q` as its AQM sees it.
    fn view(&self, q: u32) -> QueueView {
        let fq = &self.queues[q as usize];
        QueueView {
            len_pkts: fq.packets.len() as u32,
            len_bytes: fq.bytes,
            limit_pkts: self.limit_pkts,
            limit_bytes: self.limit_bytes,
            rate_bps: self.rate_bps,
        }
    }

    /// The flow queue of `pkt`, made on the first use of its bucket (at `now_ns`).
    fn queue_of(&mut self, pkt: &Packet, now_ns: u64) -> u32 {
        let (bucket_queue, queues) = (&self.bucket_queue, &self.queues);
        let bucket = self.classifier.bucket(pkt, |b| {
            let q = bucket_queue[b as usize];
            q == NONE || queues[q as usize].list == List::Idle
        });
        let owner = flow_key(pkt);
        let q = self.bucket_queue[bucket as usize];
        if q != NONE {
            let fq = &mut self.queues[q as usize];
            if fq.owner != owner && !fq.shared {
                fq.shared = true;
                self.counters.collisions += 1;
            }
            return q;
        }
        let q = self.queues.len() as u32;
        let aqm = (self.make_aqm)();
        self.queues.push(FlowQueue {
            packets: VecDeque::new(),
            bytes: 0,
            deficit: 0,
            list: List::Idle,
            // A timer the new AQM wants at once (PIE's first update) runs at its making.
            timer_ns: aqm.next_timer_ns().map(|t| t.max(now_ns)),
            aqm,
            owner,
            shared: false,
        });
        self.bucket_queue[bucket as usize] = q;
        self.counters.flow_queues_used += 1;
        q
    }

    /// Offer an arriving packet; returns whether it joined (it may still be dropped at once
    /// with the fattest flow queue's head when the discipline overflows).
    pub fn enqueue(&mut self, now_ns: u64, mut pkt: Packet, host: &mut Host) -> bool {
        let counted = host.stats.counts(now_ns);
        if counted {
            host.stats.arrivals += 1;
        }
        let q = self.queue_of(&pkt, now_ns);
        self.run_timers_before(q, now_ns, host.rng);
        if self.queues[q as usize].list == List::Idle {
            let fq = &mut self.queues[q as usize];
            fq.list = List::New;
            fq.deficit = self.quantum_bytes;
            self.new_flows.push_back(q);
            if counted {
                self.counters.new_flows += 1;
            }
        }
        let view = self.view(q);
        let fq = &mut self.queues[q as usize];
        let verdict = fq.aqm.on_enqueue(now_ns, view_of(&pkt), &view, host.rng);
        match judge_arrival(verdict, &mut pkt, host, counted) {
            None => return false,
            Some(true) if counted => host.stats.marks += 1,
            Some(_) => {}
        }
        fq.bytes += u64::from(pkt.size_bytes);
        fq.packets.push_back((pkt, now_ns));
        self.len_pkts += 1;
        self.bytes += u64::from(pkt.size_bytes);
        if self.len_pkts > self.limit_pkts
            || self.bytes > self.memory_limit_bytes
            || (self.limit_bytes > 0 && self.bytes > self.limit_bytes)
        {
            self.drop_from_fattest(now_ns, host);
        }
        // The length after the overlimit drop: the discipline never holds more than its limit
        // between two events.
        host.stats.queue_pkts.set(now_ns, f64::from(self.len_pkts));
        host.stats.max_queue_pkts = host.stats.max_queue_pkts.max(self.len_pkts);
        true
    }

    /// Drop from the head of the flow queue holding the most bytes (the first such in the
    /// order the flow queues were made) until `drop_batch_size` packets or half its bytes are
    /// gone (RFC 8290 §4.1; ns-3.37 `FqCoDelDrop`, Linux `fq_codel_drop`).
    fn drop_from_fattest(&mut self, now_ns: u64, host: &mut Host) {
        let mut fattest = 0;
        let mut most = 0;
        for (i, fq) in self.queues.iter().enumerate() {
            if fq.bytes > most {
                most = fq.bytes;
                fattest = i;
            }
        }
        let threshold = most / 2;
        self.run_timers_before(fattest as u32, now_ns, host.rng);
        let fq = &mut self.queues[fattest];
        let (mut dropped_bytes, mut dropped) = (0, 0);
        while let Some((pkt, joined_ns)) = fq.packets.pop_front() {
            let size = u64::from(pkt.size_bytes);
            fq.bytes -= size;
            self.bytes -= size;
            self.len_pkts -= 1;
            dropped_bytes += size;
            dropped += 1;
            if host.stats.counts(joined_ns) {
                host.stats.overflow_drops += 1;
                self.counters.overlimit_drops += 1;
            }
            host.counts.dropped(&pkt);
            if dropped >= self.drop_batch_size || dropped_bytes >= threshold {
                break;
            }
        }
        if self.overlimit_tells_aqm {
            fq.aqm.on_overflow(now_ns);
        }
    }

    /// Take the next packet to transmit (RFC 8290 §4.2): the first flow queue with credit,
    /// new flows first; its AQM may drop or mark at the head.
    pub fn dequeue(&mut self, now_ns: u64, host: &mut Host) -> Option<Packet> {
        loop {
            let (q, from_new) = self.next_with_credit()?;
            if let Some(pkt) = self.dequeue_from(q, now_ns, host) {
                self.queues[q as usize].deficit -= i64::from(pkt.size_bytes);
                return Some(pkt);
            }
            // The flow queue is empty: a new flow becomes old, an old one idle.
            if from_new {
                self.new_flows.pop_front();
                self.old_flows.push_back(q);
                self.queues[q as usize].list = List::Old;
            } else {
                self.old_flows.pop_front();
                self.queues[q as usize].list = List::Idle;
            }
        }
    }

    /// The flow queue at the head of the new list, else of the old list, that has credit,
    /// giving a quantum to each without and moving it to the end of the old list; with
    /// whether it came from the new list. None when both lists are empty.
    fn next_with_credit(&mut self) -> Option<(u32, bool)> {
        while let Some(&q) = self.new_flows.front() {
            let fq = &mut self.queues[q as usize];
            if fq.deficit > 0 {
                return Some((q, true));
            }
            fq.deficit += self.quantum_bytes;
            fq.list = List::Old;
            self.new_flows.pop_front();
            self.old_flows.push_back(q);
        }
        while let Some(&q) = self.old_flows.front() {
            let fq = &mut self.queues[q as usize];
            if fq.deficit > 0 {
                return Some((q, false));
            }
            fq.deficit += self.quantum_bytes;
            self.old_flows.pop_front();
            self.old_flows.push_back(q);
        }
        None
    }

    /// The next packet of flow queue `q` its AQM lets through (marking it CE above the CE
    /// threshold), or None once the flow queue is empty.
    fn dequeue_from(&mut self, q: u32, now_ns: u64, host: &mut Host) -> Option<Packet> {
        self.run_timers_before(q, now_ns, host.rng);
        loop {
            let fq = &mut self.queues[q as usize];
            let Some((pkt, joined_ns)) = fq.packets.pop_front() else {
                fq.aqm.on_empty(now_ns);
                return None;
            };
            let size = u64::from(pkt.size_bytes);
            fq.bytes -= size;
            self.bytes -= size;
            self.len_pkts -= 1;
            host.stats.queue_pkts.set(now_ns, f64::from(self.len_pkts));
            let view = self.view(q);
            let sojourn_ns = now_ns - joined_ns;
            let fq = &mut self.queues[q as usize];
            let verdict = fq
                .aqm
                .on_dequeue(now_ns, sojourn_ns, view_of(&pkt), &view, host.rng);
            let counted = host.stats.counts(joined_ns);
            let Some(mut pkt) = judge_departure(verdict, pkt, host, counted) else {
                continue;
            };
            let above = self.ce_threshold_ns.is_some_and(|t| sojourn_ns > t);
            if above && host.marks(&pkt) && pkt.ecn() != Ecn::Ce {
                pkt.set_ecn(Ecn::Ce);
                if counted {
                    host.stats.marks += 1;
                    self.counters.ce_threshold_marks += 1;
                }
            }
            return Some(pkt);
        }
    }

    /// Run the timers of flow queue `q`'s AQM that fell due before `now_ns`, each at its own
    /// time, with the flow queue as it was then (unchanged since its last packet).
    fn run_timers_before(&mut self, q: u32, now_ns: u64, rng: &mut aqm::Rng) {
        while let Some(t) = self.queues[q as usize].timer_ns.filter(|&t| t < now_ns) {
            let view = self.view(q);
            let fq = &mut self.queues[q as usize];
            fq.aqm.on_timer(t, &view, rng);
            fq.timer_ns = fq.aqm.next_timer_ns().map(|next| next.max(t + 1));
        }
    }
}

#[cfg(test)]
mod tests;
