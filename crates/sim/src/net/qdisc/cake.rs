//! CAKE (Høiland-Jørgensen, Täht & Morton, IEEE LANMAN 2018; Linux `net/sched/sch_cake.c`):
//! the discipline the parameters of `aqm::fq::cake` describe, written from the paper and the
//! kernel's `cake_enqueue`, `cake_dequeue`, `cake_drop` and `cake_advance_shaper`.
//!
//! - **Shaper** (§3.1, deficit mode): `time_next_packet` advances by each sent packet's
//!   serialisation time at the shaped rate; before it, dequeue gives nothing and tells the port
//!   when to ask again ([`Cake::not_before_ns`]). An arrival to an empty discipline brings a
//!   lagging `time_next_packet` up to now (no credit is saved while idle).
//! - **Flow queues** (§4.1): 1024, 8-way set-associative; the key hashed is the flow, or the
//!   source host, the destination host or the pair under `srchost`, `dsthost`, `hosts`.
//! - **Flow sets** (§4.2, `cake_enqueue`/`cake_dequeue`): an idle or decaying flow queue that
//!   gets a packet is *sparse* and joins the new list with one quantum; a sparse flow queue that
//!   spends its quantum becomes *bulk* (or *sparse-wait*, still counted sparse, when empty) and
//!   moves to the old list; a flow queue found empty stays in the *decaying* list while its
//!   COBALT is not at rest, else leaves the lists. Each dequeue first visits the head of the
//!   decaying list, then serves new flows before old ones by DRR.
//! - **Host isolation** (§4.2): under `dual-srchost`, `dual-dsthost` and `triple-isolate` each
//!   host counts its bulk flow queues, and a flow queue's quantum is the flow quantum divided
//!   by its host's count (the larger of its source and destination hosts' under
//!   `triple-isolate`), with Linux's dithering: `(quantum·⌊65535/load⌋ + u16) >> 16`, the u16
//!   drawn from the port's random stream.
//! - **Overflow** (`cake_drop`): while the discipline holds more bytes than its buffer limit
//!   (or more packets than `queue.limit_pkts`), the head packet of the flow queue with the most
//!   bytes is dropped, one packet at a time, and that flow queue's COBALT is told
//!   (`cobalt_queue_full`, [`aqm::Aqm::on_overflow`]).
//! - **The last packet** of a flow queue is sent even when COBALT says drop (marked when the
//!   port and the packet use ECN), as Linux does.

use super::classify::{flow_key, Classifier};
use super::flow_queues::FqCounters;
use super::{judge_departure, view_of, Host, Queued};
use crate::packet::Packet;
use aqm::fq::cake::{CakeSettings, Isolation, CAKE_QUEUES, CAKE_SET_WAYS};
use aqm::{Aqm, Cobalt, DequeueVerdict, QueueView};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Marks a bucket without a flow queue, and a host the simulator did not name.
const NONE: u32 = u32::MAX;

/// The set a flow queue is counted in (Linux `CAKE_SET_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Set {
    /// Idle: in no list.
    None,
    Sparse,
    /// Spent its quantum while empty: in the old list, still counted sparse.
    SparseWait,
    Bulk,
    /// Empty, its COBALT not yet at rest.
    Decaying,
}

/// The list a flow queue waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Chain {
    New,
    Old,
    Decaying,
}

/// A list of flow queues linked through their `prev` and `next` (Linux's `list_head`).
#[derive(Clone, Copy, Debug)]
struct FlowList {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for FlowList {
    fn default() -> Self {
        FlowList {
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }
}

impl FlowList {
    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One flow queue.
struct CakeFlow {
    packets: VecDeque<Queued>,
    bytes: u64,
    deficit: i64,
    set: Set,
    chain: Option<Chain>,
    /// Its neighbours in its list ([`NONE`] at the ends): Linux's `flowchain` links.
    prev: u32,
    next: u32,
    /// Source and destination hosts of its packets (Linux `srchost`, `dsthost`).
    src: u32,
    dst: u32,
    /// The classification key that first used it, and whether another has since.
    owner: u64,
    shared: bool,
}

/// Counts of flow queues in each set: sparse (with sparse-wait), bulk, decaying.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetCounts {
    /// Linux `sparse_flow_count`.
    pub sparse: u32,
    /// Linux `bulk_flow_count`.
    pub bulk: u32,
    /// Linux `decaying_flow_count`.
    pub decaying: u32,
}

/// The count of `sets` that flow queues in `set` add to: sparse-wait counts as sparse.
fn set_count(sets: &mut SetCounts, set: Set) -> Option<&mut u32> {
    match set {
        Set::Sparse | Set::SparseWait => Some(&mut sets.sparse),
        Set::Bulk => Some(&mut sets.bulk),
        Set::Decaying => Some(&mut sets.decaying),
        Set::None => None,
    }
}

/// The CAKE discipline of a port.
pub struct Cake {
    settings: CakeSettings,
    limit_pkts: u32,
    limit_bytes: u64,
    buffer_limit_bytes: u64,
    rate_bps: f64,
    classifier: Classifier,
    bucket_flow: Vec<u32>,
    flows: Vec<CakeFlow>,
    /// Each flow queue's COBALT, by flow queue (apart from the scheduler's state, which every
    /// arrival touches; a COBALT is consulted only at departures, drops and empty queues).
    cobalts: Vec<Cobalt>,
    /// (bytes, flow queue) noted at each arrival: every flow queue with bytes has an entry at
    /// least as large as its bytes, so the fattest flow queue is the largest entry that is
    /// still current (Linux keeps a heap of backlogs, `cake_heapify`; a stale entry found on
    /// top is replaced by the flow queue's current bytes).
    fat: BinaryHeap<(u64, Reverse<u32>)>,
    new_flows: FlowList,
    old_flows: FlowList,
    decaying_flows: FlowList,
    sets: SetCounts,
    /// Bulk flow queues per source and per destination host, by node id (isolation modes
    /// that count).
    src_bulk: Vec<u32>,
    dst_bulk: Vec<u32>,
    /// Per flow id: (sender node, receiver node).
    flow_hosts: Vec<(u32, u32)>,
    len_pkts: u32,
    bytes: u64,
    /// The shaper's next send time, ns (Linux `time_next_packet`).
    time_next_ns: u64,
    /// Set by a dequeue the shaper held back: when to ask again.
    not_before_ns: Option<u64>,
    /// The counters (the flow-queueing ones).
    pub counters: FqCounters,
}

impl Cake {
    /// CAKE with `settings` on a link of `rate_bps`, holding at most `limit_pkts` packets (and
    /// `limit_bytes` bytes when not 0) besides its buffer rule.
    pub fn new(settings: CakeSettings, limit_pkts: u32, limit_bytes: u64, rate_bps: f64) -> Self {
        let mut buffer_limit_bytes = settings.buffer_limit_bytes(limit_pkts);
        if limit_bytes > 0 {
            buffer_limit_bytes = buffer_limit_bytes.min(limit_bytes);
        }
        Cake {
            settings,
            limit_pkts,
            limit_bytes,
            buffer_limit_bytes,
            rate_bps,
            classifier: Classifier::new(CAKE_QUEUES, 0, CAKE_SET_WAYS),
            bucket_flow: vec![NONE; CAKE_QUEUES as usize],
            flows: Vec::new(),
            cobalts: Vec::new(),
            fat: BinaryHeap::new(),
            new_flows: FlowList::default(),
            old_flows: FlowList::default(),
            decaying_flows: FlowList::default(),
            sets: SetCounts::default(),
            src_bulk: Vec::new(),
            dst_bulk: Vec::new(),
            flow_hosts: Vec::new(),
            len_pkts: 0,
            bytes: 0,
            time_next_ns: 0,
            not_before_ns: None,
            counters: FqCounters::default(),
        }
    }

    /// Tell the discipline each flow's (sender, receiver) nodes, by flow id: a packet's source
    /// host is the end that is not its destination. A flow not in the table has an unnamed
    /// source host.
    pub fn set_flow_hosts(&mut self, hosts: Vec<(u32, u32)>) {
        self.flow_hosts = hosts;
    }

    /// Packets waiting.
    pub fn len_pkts(&self) -> u32 {
        self.len_pkts
    }

    /// Bytes waiting.
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// The buffer limit in force, bytes.
    pub fn buffer_limit_bytes(&self) -> u64 {
        self.buffer_limit_bytes
    }

    /// Flow queues in each set.
    pub fn set_counts(&self) -> SetCounts {
        self.sets
    }

    /// After a dequeue that gave nothing while packets wait: when the shaper allows the next.
    pub fn not_before_ns(&self) -> Option<u64> {
        self.not_before_ns
    }

    /// Every waiting packet.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.flows
            .iter()
            .flat_map(|f| f.packets.iter().map(|(p, _)| p))
    }

    /// The (source, destination) hosts of `pkt`.
    fn hosts_of(&self, pkt: &Packet) -> (u32, u32) {
        let src = match self.flow_hosts.get(pkt.flow as usize) {
            Some(&(sender, receiver)) if pkt.dst == receiver => sender,
            Some(&(sender, receiver)) if pkt.dst == sender => receiver,
            _ => NONE,
        };
        (src, pkt.dst)
    }

    /// The classification key of a packet from `src` to `dst` (Linux `cake_hash`).
    fn key_of(&self, pkt: &Packet, src: u32, dst: u32) -> u64 {
        match self.settings.isolation {
            Isolation::Srchost => 1 << 63 | u64::from(src),
            Isolation::Dsthost => 1 << 62 | u64::from(dst),
            Isolation::Hosts => u64::from(src) << 32 | u64::from(dst),
            _ => flow_key(pkt),
        }
    }

    /// The flow queue of `key`, made on the first use of its bucket, its hosts set to
    /// (`src`, `dst`) (a bulk flow queue's host counts move with them, as Linux does when a
    /// colliding flow takes a queue over).
    fn flow_of(&mut self, key: u64, src: u32, dst: u32) -> u32 {
        let (bucket_flow, flows) = (&self.bucket_flow, &self.flows);
        let bucket = self.classifier.bucket_of_key_cake(key, |b| {
            let q = bucket_flow[b as usize];
            q == NONE || flows[q as usize].set == Set::None
        });
        let q = self.bucket_flow[bucket as usize];
        if q == NONE {
            let q = self.flows.len() as u32;
            self.flows.push(CakeFlow {
                packets: VecDeque::new(),
                bytes: 0,
                deficit: 0,
                set: Set::None,
                chain: None,
                prev: NONE,
                next: NONE,
                src,
                dst,
                owner: key,
                shared: false,
            });
            self.cobalts.push(self.settings.cobalt());
            self.bucket_flow[bucket as usize] = q;
            self.counters.flow_queues_used += 1;
            return q;
        }
        let f = &mut self.flows[q as usize];
        if f.owner != key && !f.shared {
            f.shared = true;
            self.counters.collisions += 1;
        }
        if (f.src, f.dst) != (src, dst) {
            let bulk = f.set == Set::Bulk;
            if bulk {
                self.count_hosts(q, -1);
            }
            let f = &mut self.flows[q as usize];
            (f.src, f.dst) = (src, dst);
            if bulk {
                self.count_hosts(q, 1);
            }
        }
        q
    }

    /// Add `by` to the bulk counts of flow queue `q`'s hosts, where the isolation counts them.
    fn count_hosts(&mut self, q: u32, by: i32) {
        let (src, dst) = (self.flows[q as usize].src, self.flows[q as usize].dst);
        let iso = self.settings.isolation;
        for (counts, host, on) in [
            (&mut self.src_bulk, src, iso.counts_src()),
            (&mut self.dst_bulk, dst, iso.counts_dst()),
        ] {
            if on {
                if counts.len() <= host as usize {
                    counts.resize(host as usize + 1, 0);
                }
                let c = &mut counts[host as usize];
                *c = c.saturating_add_signed(by);
            }
        }
    }

    /// Move flow queue `q` to set `to`, keeping the set counts and the hosts' bulk counts.
    fn set_to(&mut self, q: u32, to: Set) {
        let from = self.flows[q as usize].set;
        let counted_alike = from == to
            || matches!(
                (from, to),
                (Set::Sparse | Set::SparseWait, Set::Sparse | Set::SparseWait)
            );
        if !counted_alike {
            if let Some(c) = set_count(&mut self.sets, from) {
                *c -= 1;
            }
            if let Some(c) = set_count(&mut self.sets, to) {
                *c += 1;
            }
            if from == Set::Bulk {
                self.count_hosts(q, -1);
            }
            if to == Set::Bulk {
                self.count_hosts(q, 1);
            }
        }
        self.flows[q as usize].set = to;
    }

    /// The list `chain`.
    fn list(&self, chain: Chain) -> &FlowList {
        match chain {
            Chain::New => &self.new_flows,
            Chain::Old => &self.old_flows,
            Chain::Decaying => &self.decaying_flows,
        }
    }

    fn list_mut(&mut self, chain: Chain) -> &mut FlowList {
        match chain {
            Chain::New => &mut self.new_flows,
            Chain::Old => &mut self.old_flows,
            Chain::Decaying => &mut self.decaying_flows,
        }
    }

    /// Move flow queue `q` to the end of list `to` (out of every list when `None`), in
    /// constant time as Linux's `list_move_tail` does.
    fn chain_to(&mut self, q: u32, to: Option<Chain>) {
        if let Some(from) = self.flows[q as usize].chain {
            let (prev, next) = (self.flows[q as usize].prev, self.flows[q as usize].next);
            match prev {
                NONE => self.list_mut(from).head = next,
                p => self.flows[p as usize].next = next,
            }
            match next {
                NONE => self.list_mut(from).tail = prev,
                n => self.flows[n as usize].prev = prev,
            }
            self.list_mut(from).len -= 1;
        }
        let f = &mut self.flows[q as usize];
        (f.prev, f.next, f.chain) = (NONE, NONE, to);
        if let Some(to) = to {
            let tail = self.list(to).tail;
            self.flows[q as usize].prev = tail;
            match tail {
                NONE => self.list_mut(to).head = q,
                t => self.flows[t as usize].next = q,
            }
            let list = self.list_mut(to);
            list.tail = q;
            list.len += 1;
        }
    }

    /// A quantum for flow queue `q` (Linux `cake_get_flow_quantum`): the flow quantum divided
    /// by its host load, dithered by a 16-bit draw.
    fn quantum(&self, q: u32, host: &mut Host) -> i64 {
        let f = &self.flows[q as usize];
        let iso = self.settings.isolation;
        let mut load = 1;
        if iso.counts_src() {
            load = load.max(self.src_bulk.get(f.src as usize).copied().unwrap_or(0));
        }
        if iso.counts_dst() {
            load = load.max(self.dst_bulk.get(f.dst as usize).copied().unwrap_or(0));
        }
        let div = 65535 / u64::from(load.min(CAKE_QUEUES));
        let dither = host.rng.next_u64() >> 48;
        ((u64::from(self.settings.flow_quantum) * div + dither) >> 16) as i64
    }

    /// Flow queue `q` as its COBALT sees it.
    fn view(&self, q: u32) -> QueueView {
        let f = &self.flows[q as usize];
        QueueView {
            len_pkts: f.packets.len() as u32,
            len_bytes: f.bytes,
            limit_pkts: self.limit_pkts,
            limit_bytes: self.limit_bytes,
            rate_bps: self.rate_bps,
        }
    }

    fn over_limit(&self) -> bool {
        self.bytes > self.buffer_limit_bytes || self.len_pkts > self.limit_pkts
    }

    /// Offer an arriving packet (Linux `cake_enqueue`); it always joins, and packets are then
    /// dropped from the fattest flow queue while the discipline is over its limits.
    pub fn enqueue(&mut self, now_ns: u64, pkt: Packet, host: &mut Host) -> bool {
        let counted = host.stats.counts(now_ns);
        if counted {
            host.stats.arrivals += 1;
        }
        if self.len_pkts == 0 {
            self.time_next_ns = self.time_next_ns.max(now_ns);
        }
        let (src, dst) = self.hosts_of(&pkt);
        let key = self.key_of(&pkt, src, dst);
        let q = self.flow_of(key, src, dst);
        let size = u64::from(pkt.size_bytes);
        let f = &mut self.flows[q as usize];
        f.bytes += size;
        f.packets.push_back((pkt, now_ns));
        self.len_pkts += 1;
        self.bytes += size;
        self.note_bytes(q);
        match self.flows[q as usize].set {
            Set::None | Set::Decaying => {
                self.chain_to(q, Some(Chain::New));
                self.set_to(q, Set::Sparse);
                self.flows[q as usize].deficit = self.quantum(q, host);
                if counted {
                    self.counters.new_flows += 1;
                }
            }
            Set::SparseWait => self.set_to(q, Set::Bulk),
            Set::Sparse | Set::Bulk => {}
        }
        while self.over_limit() {
            self.drop_from_fattest(now_ns, host);
        }
        host.stats.queue_pkts.set(now_ns, f64::from(self.len_pkts));
        host.stats.max_queue_pkts = host.stats.max_queue_pkts.max(self.len_pkts);
        true
    }

    /// Drop the head packet of the flow queue with the most bytes (the first such in the
    /// order the flow queues were made) and tell its COBALT (Linux `cake_drop`).
    fn drop_from_fattest(&mut self, now_ns: u64, host: &mut Host) {
        // The largest current entry: the most bytes, the first made among equals. A stale
        // entry on top goes back with the flow queue's current bytes (departures do not
        // update the heap), so no flow queue is passed over.
        let fattest = loop {
            let Some((bytes, Reverse(q))) = self.fat.pop() else {
                return;
            };
            let current = self.flows[q as usize].bytes;
            if current == bytes {
                break q as usize;
            }
            if current > 0 && current < bytes {
                self.fat.push((current, Reverse(q)));
            }
        };
        let f = &mut self.flows[fattest];
        let (pkt, joined_ns) = f.packets.pop_front().expect("the fattest flow has bytes");
        let size = u64::from(pkt.size_bytes);
        f.bytes -= size;
        self.bytes -= size;
        self.len_pkts -= 1;
        if host.stats.counts(joined_ns) {
            host.stats.overflow_drops += 1;
            self.counters.overlimit_drops += 1;
        }
        host.counts.dropped(&pkt);
        self.cobalts[fattest].on_overflow(now_ns);
        self.note_bytes(fattest as u32);
    }

    /// Note flow queue `q`'s bytes after an arrival or a drop, for
    /// [`Cake::drop_from_fattest`]; when stale
    /// entries outnumber the flow queues eightfold, the heap is rebuilt from the current ones.
    fn note_bytes(&mut self, q: u32) {
        let bytes = self.flows[q as usize].bytes;
        if bytes > 0 {
            self.fat.push((bytes, Reverse(q)));
        }
        if self.fat.len() > 8 * self.flows.len() + 64 {
            self.fat = self
                .flows
                .iter()
                .enumerate()
                .filter(|(_, f)| f.bytes > 0)
                .map(|(i, f)| (f.bytes, Reverse(i as u32)))
                .collect();
        }
    }

    /// Take the next packet to transmit (Linux `cake_dequeue`), or None: nothing waits, or the
    /// shaper holds the next back ([`Cake::not_before_ns`] then says until when).
    pub fn dequeue(&mut self, now_ns: u64, host: &mut Host) -> Option<Packet> {
        self.not_before_ns = None;
        let mut first = true;
        'begin: loop {
            if self.len_pkts == 0 {
                return None;
            }
            if self.settings.rate_bps > 0.0 && self.time_next_ns > now_ns {
                self.not_before_ns = Some(self.time_next_ns);
                return None;
            }
            loop {
                // The head of the decaying list first (once per dequeue), then new, then old.
                let chain = if first && !self.decaying_flows.is_empty() {
                    Chain::Decaying
                } else if !self.new_flows.is_empty() {
                    Chain::New
                } else if !self.old_flows.is_empty() {
                    Chain::Old
                } else if !self.decaying_flows.is_empty() {
                    Chain::Decaying
                } else {
                    unreachable!("waiting packets are in flow queues on the lists");
                };
                first = false;
                let q = self.list(chain).head;
                if self.flows[q as usize].deficit > 0 {
                    match self.dequeue_from(q, now_ns, host) {
                        Some(pkt) => return Some(pkt),
                        None => continue 'begin,
                    }
                }
                // Out of credit: a sparse flow queue turns bulk (sparse-wait when empty), and
                // every such one gets a quantum and goes to the end of the old list.
                if self.flows[q as usize].set == Set::Sparse {
                    let next = if self.flows[q as usize].packets.is_empty() {
                        Set::SparseWait
                    } else {
                        Set::Bulk
                    };
                    self.set_to(q, next);
                }
                let quantum = self.quantum(q, host);
                self.flows[q as usize].deficit += quantum;
                self.chain_to(q, Some(Chain::Old));
            }
        }
    }

    /// The next packet of flow queue `q` that its COBALT lets through, charged to its deficit
    /// and to the shaper; None once the flow queue is found empty, which then decays or
    /// leaves the lists.
    fn dequeue_from(&mut self, q: u32, now_ns: u64, host: &mut Host) -> Option<Packet> {
        loop {
            let f = &mut self.flows[q as usize];
            let Some((pkt, joined_ns)) = f.packets.pop_front() else {
                let c = &mut self.cobalts[q as usize];
                c.on_empty(now_ns);
                let decaying = c.p_drop() > 0.0 || c.count() > 0 || now_ns < c.drop_next_ns();
                if decaying {
                    self.chain_to(q, Some(Chain::Decaying));
                    self.set_to(q, Set::Decaying);
                } else {
                    self.chain_to(q, None);
                    self.set_to(q, Set::None);
                }
                return None;
            };
            let size = u64::from(pkt.size_bytes);
            f.bytes -= size;
            self.bytes -= size;
            self.len_pkts -= 1;
            host.stats.queue_pkts.set(now_ns, f64::from(self.len_pkts));
            let view = self.view(q);
            let mut verdict = self.cobalts[q as usize].on_dequeue(
                now_ns,
                now_ns - joined_ns,
                view_of(&pkt),
                &view,
                host.rng,
            );
            // The last packet of a flow queue is sent (marked where ECN allows), never dropped.
            if self.flows[q as usize].packets.is_empty() {
                verdict = match verdict {
                    DequeueVerdict::EarlyDrop if host.marks(&pkt) => DequeueVerdict::Mark,
                    DequeueVerdict::EarlyDrop | DequeueVerdict::ForcedDrop => {
                        DequeueVerdict::Deliver
                    }
                    v => v,
                };
            }
            let counted = host.stats.counts(joined_ns);
            if let Some(pkt) = judge_departure(verdict, pkt, host, counted) {
                self.flows[q as usize].deficit -= i64::from(pkt.size_bytes);
                self.time_next_ns = self
                    .time_next_ns
                    .saturating_add(self.settings.shaper_ns(pkt.bytes()));
                return Some(pkt);
            }
        }
    }
}

#[cfg(test)]
mod tests;
