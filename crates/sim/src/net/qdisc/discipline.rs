//! The discipline a managed port holds, as one enum over the kinds (one dispatch per call):
//! one queue with an AQM (the fast path), flow queues, CAKE, DualPI2, strict priority over
//! bands of these, or any of them behind a token-bucket shaper.

use super::cake::Cake;
use super::dualpi2::DualPi2;
use super::flow_queues::{FlowQueues, FqCounters};
use super::single::SingleQueue;
use super::token_bucket::TokenBucket;
use super::Host;
use crate::metrics::dual_queue::DualQueueCounts;
use crate::packet::Packet;
use aqm::Rng;
use prio::Prio;

pub mod prio;

/// The discipline of a managed port.
pub enum Discipline {
    /// One queue, one AQM: the fast path.
    Single(SingleQueue),
    /// Flow queueing.
    FlowQueues(Box<FlowQueues>),
    /// CAKE: its shaper, flow queues with host isolation, a COBALT per flow queue.
    Cake(Box<Cake>),
    /// DualPI2: an L4S and a Classic queue coupled by one PI2 controller (RFC 9332).
    DualPi2(Box<DualPi2>),
    /// Strict priority over bands, each a discipline of the kinds above (ns-3.37
    /// `PrioQueueDisc`).
    Prio(Box<Prio>),
    /// A discipline behind a token-bucket filter (ns-3.37 `TbfQueueDisc` with it as child).
    Shaped(Box<Shaped>),
}

/// What a discipline may know of each flow, by flow id.
pub struct FlowInfo<'a> {
    /// The flow's (sender, receiver) nodes: CAKE's host isolation.
    pub hosts: &'a [(u32, u32)],
    /// The flow's socket priority, 0 to 15: the priority bands.
    pub priorities: &'a [u8],
}

/// A token-bucket filter and the discipline it lets packets out of.
pub struct Shaped {
    /// The shaper's buckets.
    pub bucket: TokenBucket,
    /// The packet taken from `inner` that waits for tokens (ns-3's TBF peeks at its child's
    /// head, which dequeues it and keeps it aside: the child's AQM has decided on it).
    pub held: Option<Packet>,
    /// The discipline shaped.
    pub inner: Discipline,
}

/// What a dequeue gives.
pub enum Dequeued {
    /// A packet to send now.
    Packet(Packet),
    /// Nothing to send.
    Empty,
    /// Packets wait for the shaper until this time, ns.
    WaitUntil(u64),
}

/// Names of the values a flow-queueing port reports in the time series.
const FQ_PROBES: &[&str] = &["new_flows_len", "old_flows_len"];

/// Names of the values a CAKE port reports in the time series: flow queues per set.
const CAKE_PROBES: &[&str] = &["sparse_flows", "bulk_flows", "decaying_flows"];

/// Names of the values a DualPI2 port reports in the time series: the L and C queues' lengths,
/// packets, the base probability p', the Classic p_C = p'² and the coupled p_CL = k·p'.
const DUALPI2_PROBES: &[&str] = &["l_queue_pkts", "c_queue_pkts", "p_base", "p_c", "p_cl"];

impl Discipline {
    /// Names of the values the port reports in the time series: the AQM's state on a single
    /// queue, the scheduler's list lengths under flow queueing.
    pub fn probe_names(&self) -> &'static [&'static str] {
        match self {
            Discipline::Single(q) => q.aqm().probe_names(),
            Discipline::FlowQueues(_) => FQ_PROBES,
            Discipline::Cake(_) => CAKE_PROBES,
            Discipline::DualPi2(_) => DUALPI2_PROBES,
            Discipline::Prio(p) => p.probe_names(),
            Discipline::Shaped(s) => s.inner.probe_names(),
        }
    }

    /// The values named by [`Discipline::probe_names`], appended to `out`.
    pub fn probe(&self, out: &mut Vec<f64>) {
        match self {
            Discipline::Single(q) => q.aqm().probe(out),
            Discipline::FlowQueues(q) => {
                let (new, old) = q.list_lens();
                out.extend([new as f64, old as f64]);
            }
            Discipline::Cake(q) => {
                let s = q.set_counts();
                out.extend([s.sparse, s.bulk, s.decaying].map(f64::from));
            }
            Discipline::DualPi2(q) => {
                let (l, c) = q.queue_lens();
                let pi2 = q.pi2();
                out.extend([
                    f64::from(l),
                    f64::from(c),
                    pi2.p_base(),
                    pi2.p_c(),
                    pi2.p_cl(),
                ]);
            }
            Discipline::Prio(p) => p.probe(out),
            Discipline::Shaped(s) => s.inner.probe(out),
        }
    }

    /// Packets waiting (a packet the shaper holds back included).
    pub fn len_pkts(&self) -> u32 {
        match self {
            Discipline::Single(q) => q.len_pkts(),
            Discipline::FlowQueues(q) => q.len_pkts(),
            Discipline::Cake(q) => q.len_pkts(),
            Discipline::DualPi2(q) => q.len_pkts(),
            Discipline::Prio(p) => p.len_pkts(),
            Discipline::Shaped(s) => s.inner.len_pkts() + u32::from(s.held.is_some()),
        }
    }

    /// Bytes waiting.
    pub fn len_bytes(&self) -> u64 {
        match self {
            Discipline::Single(q) => q.len_bytes(),
            Discipline::FlowQueues(q) => q.len_bytes(),
            Discipline::Cake(q) => q.len_bytes(),
            Discipline::DualPi2(q) => q.len_bytes(),
            Discipline::Prio(p) => p.len_bytes(),
            Discipline::Shaped(s) => {
                s.inner.len_bytes() + s.held.map_or(0, |p| u64::from(p.size_bytes))
            }
        }
    }

    /// The averaged queue the AQM acts on, packets, if it keeps one (single queue only).
    pub fn averaged_queue_pkts(&self) -> Option<f64> {
        match self {
            Discipline::Single(q) => q.aqm().averaged_queue_pkts(),
            Discipline::FlowQueues(_)
            | Discipline::Cake(_)
            | Discipline::DualPi2(_)
            | Discipline::Prio(_) => None,
            Discipline::Shaped(s) => s.inner.averaged_queue_pkts(),
        }
    }

    /// The flow schedulers' counters, under flow queueing (summed over priority bands).
    pub fn fq_counters(&self) -> Option<FqCounters> {
        match self {
            Discipline::Single(_) | Discipline::DualPi2(_) => None,
            Discipline::FlowQueues(q) => Some(q.counters.clone()),
            Discipline::Cake(q) => Some(q.counters.clone()),
            Discipline::Prio(p) => p.fq_counters(),
            Discipline::Shaped(s) => s.inner.fq_counters(),
        }
    }

    /// The L and C queues' counters, on a DualPI2 port (summed over priority bands).
    pub fn dual_queue_counts(&self) -> Option<DualQueueCounts> {
        match self {
            Discipline::Single(_) | Discipline::FlowQueues(_) | Discipline::Cake(_) => None,
            Discipline::DualPi2(q) => Some(q.counts.clone()),
            Discipline::Prio(p) => p.dual_queue_counts(),
            Discipline::Shaped(s) => s.inner.dual_queue_counts(),
        }
    }

    /// Whether the AQM timers may come to be wanted earlier than the one queued (several AQM
    /// instances: priority bands), so that the port re-queues its timer after an arrival and
    /// skips the timer events an earlier one replaced. Flow queues run their AQMs' timers
    /// when they are touched (`flow_queues.rs`), with no timer events.
    pub fn timers_may_move(&self) -> bool {
        match self {
            Discipline::Single(_)
            | Discipline::FlowQueues(_)
            | Discipline::Cake(_)
            | Discipline::DualPi2(_) => false,
            Discipline::Prio(_) => true,
            Discipline::Shaped(s) => s.inner.timers_may_move(),
        }
    }

    /// When the AQMs next want [`Discipline::on_timer`] called, if ever.
    pub fn next_timer_ns(&self) -> Option<u64> {
        match self {
            Discipline::Single(q) => q.aqm().next_timer_ns(),
            Discipline::FlowQueues(_) | Discipline::Cake(_) => None,
            Discipline::DualPi2(q) => Some(q.next_timer_ns()),
            Discipline::Prio(p) => p.next_timer_ns(),
            Discipline::Shaped(s) => s.inner.next_timer_ns(),
        }
    }

    /// Run the AQM timers that are due.
    pub fn on_timer(&mut self, now_ns: u64, rng: &mut Rng) {
        match self {
            Discipline::Single(q) => q.on_timer(now_ns, rng),
            Discipline::FlowQueues(_) | Discipline::Cake(_) => {}
            Discipline::DualPi2(q) => q.on_timer(now_ns),
            Discipline::Prio(p) => p.on_timer(now_ns, rng),
            Discipline::Shaped(s) => s.inner.on_timer(now_ns, rng),
        }
    }

    /// Data packets waiting (for the conservation check).
    pub fn data_waiting(&self) -> u64 {
        let data = |p: &&Packet| !p.is_ack();
        match self {
            Discipline::Single(q) => q.packets().filter(data).count() as u64,
            Discipline::FlowQueues(q) => q.packets().filter(data).count() as u64,
            Discipline::Cake(q) => q.packets().filter(data).count() as u64,
            Discipline::DualPi2(q) => q.packets().filter(data).count() as u64,
            Discipline::Prio(p) => p.data_waiting(),
            Discipline::Shaped(s) => {
                s.inner.data_waiting() + u64::from(s.held.is_some_and(|p| !p.is_ack()))
            }
        }
    }

    /// Offer an arriving packet; returns whether it joined.
    pub fn enqueue(&mut self, now_ns: u64, pkt: Packet, host: &mut Host) -> bool {
        match self {
            Discipline::Single(q) => q.enqueue(now_ns, pkt, host),
            Discipline::FlowQueues(q) => q.enqueue(now_ns, pkt, host),
            Discipline::Cake(q) => q.enqueue(now_ns, pkt, host),
            Discipline::DualPi2(q) => q.enqueue(now_ns, pkt, host),
            Discipline::Prio(p) => p.enqueue(now_ns, pkt, host),
            Discipline::Shaped(s) => {
                let joined = s.inner.enqueue(now_ns, pkt, host);
                s.count_held(now_ns, host);
                joined
            }
        }
    }

    /// The next packet to transmit, letting the AQMs drop (or mark) at the head; behind a
    /// shaper, the time the held packet may go when its tokens are short.
    pub fn dequeue(&mut self, now_ns: u64, host: &mut Host) -> Dequeued {
        let pkt = match self {
            Discipline::Single(q) => q.dequeue(now_ns, host),
            Discipline::FlowQueues(q) => q.dequeue(now_ns, host),
            Discipline::DualPi2(q) => q.dequeue(now_ns, host),
            Discipline::Cake(q) => {
                // CAKE's own shaper may hold its packets back while the link is free.
                return match (q.dequeue(now_ns, host), q.not_before_ns()) {
                    (Some(p), _) => Dequeued::Packet(p),
                    (None, Some(t)) => Dequeued::WaitUntil(t),
                    (None, None) => Dequeued::Empty,
                };
            }
            Discipline::Prio(p) => return p.dequeue(now_ns, host),
            Discipline::Shaped(s) => return s.dequeue(now_ns, host),
        };
        pkt.map_or(Dequeued::Empty, Dequeued::Packet)
    }

    /// Tell the discipline about the run's flows: CAKE takes their end nodes for its host
    /// isolation, priority bands their socket priorities; the others have no use for them.
    pub fn set_flows(&mut self, flows: &FlowInfo) {
        match self {
            Discipline::Cake(q) => q.set_flow_hosts(flows.hosts.to_vec()),
            Discipline::Prio(p) => p.set_flows(flows),
            Discipline::Shaped(s) => s.inner.set_flows(flows),
            Discipline::Single(_) | Discipline::FlowQueues(_) | Discipline::DualPi2(_) => {}
        }
    }
}

impl Shaped {
    /// The head packet (the held one, else the inner discipline's) if its tokens are there.
    fn dequeue(&mut self, now_ns: u64, host: &mut Host) -> Dequeued {
        let pkt = match self.held.take() {
            Some(p) => p,
            None => match self.inner.dequeue(now_ns, host) {
                Dequeued::Packet(p) => p,
                other => return other,
            },
        };
        match self.bucket.take(now_ns, pkt.bytes()) {
            Ok(()) => Dequeued::Packet(pkt),
            Err(at_ns) => {
                self.held = Some(pkt);
                self.count_held(now_ns, host);
                Dequeued::WaitUntil(at_ns)
            }
        }
    }

    /// The inner discipline counts its own packets in the port's queue length; a held packet
    /// is one more (a zero-length correction at `now_ns`).
    fn count_held(&self, now_ns: u64, host: &mut Host) {
        if self.held.is_some() {
            let len = self.inner.len_pkts() + 1;
            host.stats.queue_pkts.set(now_ns, f64::from(len));
            host.stats.max_queue_pkts = host.stats.max_queue_pkts.max(len);
        }
    }
}
