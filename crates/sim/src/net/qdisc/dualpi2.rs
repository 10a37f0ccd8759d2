//! DualPI2 (RFC 9332; Linux `net/sched/sch_dualpi2.c`): the discipline the parameters of
//! `aqm::dualq::dualpi2` describe, written from the RFC's Appendix A and the kernel's
//! `dualpi2_enqueue_skb`, `dequeue_packet`, `dualpi2_qdisc_dequeue`, `must_drop` and
//! `calculate_probability`. The decisions on each packet are [`Pi2`]'s.
//!
//! - **Classifier** (RFC 9332 §2.3, Linux `dualpi2_skb_classify`): a packet whose ECN field
//!   matches the mask (ECT(1) and CE by default) joins the L queue, any other the C queue.
//! - **Limit**: an arrival that finds `queue.limit_pkts` packets waiting (or that would pass
//!   `queue.limit_bytes` when set) is dropped, whichever queue it is for.
//! - **PI2** (`calculate_probability`): every `tupdate` the base probability p' moves with the
//!   queue delay, the larger of the two head packets' sojourn times (0 for an empty queue), as
//!   Linux measures it; RFC 9332 Appendix A.1 uses the C queue's alone, which is the same
//!   whenever the L queue is shorter in time.
//! - **Scheduler** (`dequeue_packet`): weighted round robin by a byte credit. The L queue is
//!   served when the C queue is empty or the credit is ≤ 0; each packet sent from one queue
//!   while the other waits moves the credit by its size times the other side's weight (+w_C
//!   for L, −w_L for C), and the credit returns to MTU·(w_C − w_L) whenever both queues are
//!   empty. RFC 9332 Appendix A gives a time-shifted FIFO instead; Linux's round robin is what
//!   ships and what this follows (docs/aqm/dualpi2.md).
//! - **Signals** (`must_drop`, `do_step_aqm`): with at least 2 MTU left in the discipline, a C
//!   packet is marked (ECT(0)) or dropped (Not-ECT, or under overload) with p'², an L packet
//!   marked with k·p' (dropped with p'² under overload); at dequeue by default, at enqueue with
//!   `drop_enqueue`. The L queue's step (or ramp) marks at dequeue whatever the backlog, for
//!   packets that found at least `min_qlen_step_pkts` in the L queue. A dropped packet leaves
//!   the credit unchanged and the next is taken.
//! - **ECN**: DualPI2 marks every ECN-capable packet it signals, as Linux's does; the queue's
//!   `ecn` switch, which other disciplines read, does not apply.

use super::Host;
use crate::metrics::dual_queue::{DualQueueCounts, QueueCounts};
use crate::packet::{Ecn, Packet};
use aqm::fq::cake::MTU_BYTES;
use aqm::{DualPi2Params, Pi2, Rng, Signal};
use std::collections::VecDeque;

/// The C queue's weight and the L queue's together, percent (Linux `MAX_WC`).
const MAX_WC: i64 = 100;

/// A waiting packet, when it joined, ns, and whether the L queue's step applies to it.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    pkt: Packet,
    joined_ns: u64,
    apply_step: bool,
}

/// The queue a packet is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    L,
    C,
}

/// The DualPI2 discipline of a port.
pub struct DualPi2 {
    pi2: Pi2,
    limit_pkts: u32,
    limit_bytes: u64,
    l: VecDeque<Waiting>,
    c: VecDeque<Waiting>,
    bytes: u64,
    /// The round robin's credit, bytes·percent (Linux `c_protection_credit`).
    credit: i64,
    /// The C and L queues' weights, percent (Linux `c_protection_wc`, `c_protection_wl`).
    w_c: i64,
    w_l: i64,
    /// The counters per queue.
    pub counts: DualQueueCounts,
}

impl DualPi2 {
    /// DualPI2 with `params`, holding at most `limit_pkts` packets (and `limit_bytes` bytes
    /// when not 0). Panics on parameters that fail validation (the factory checks them).
    pub fn new(params: DualPi2Params, limit_pkts: u32, limit_bytes: u64) -> Self {
        let w_c = i64::from(params.c_protection_pct);
        let pi2 = Pi2::new(params).expect("parameters checked when the discipline was built");
        let mut q = DualPi2 {
            pi2,
            limit_pkts,
            limit_bytes,
            l: VecDeque::new(),
            c: VecDeque::new(),
            bytes: 0,
            credit: 0,
            w_c,
            w_l: MAX_WC - w_c,
            counts: DualQueueCounts::default(),
        };
        q.reset_credit();
        q
    }

    /// Linux `dualpi2_reset_c_protection`: credit = MTU·(w_C − w_L), so that the queue of the
    /// larger weight goes first.
    fn reset_credit(&mut self) {
        self.credit = i64::from(MTU_BYTES) * (self.w_c - self.w_l);
    }

    /// The controller.
    pub fn pi2(&self) -> &Pi2 {
        &self.pi2
    }

    /// Packets waiting in the L and C queues.
    pub fn queue_lens(&self) -> (u32, u32) {
        (self.l.len() as u32, self.c.len() as u32)
    }

    /// Packets waiting.
    pub fn len_pkts(&self) -> u32 {
        (self.l.len() + self.c.len()) as u32
    }

    /// Bytes waiting.
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// Every waiting packet.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.l.iter().chain(&self.c).map(|w| &w.pkt)
    }

    /// When the controller next updates.
    pub fn next_timer_ns(&self) -> u64 {
        self.pi2.next_update_ns()
    }

    /// The controller's update, when due: the queue delay is the larger head sojourn time.
    pub fn on_timer(&mut self, now_ns: u64) {
        if now_ns < self.pi2.next_update_ns() {
            return;
        }
        let head = |q: &VecDeque<Waiting>| q.front().map_or(0, |w| now_ns - w.joined_ns);
        let qdelay_ns = head(&self.l).max(head(&self.c));
        self.pi2.update(now_ns, qdelay_ns);
    }

    fn counts_of(&mut self, which: Which) -> &mut QueueCounts {
        match which {
            Which::L => &mut self.counts.l,
            Which::C => &mut self.counts.c,
        }
    }

    /// The coupled or Classic signal for `pkt` of queue `which` with `backlog_bytes` in the
    /// discipline besides it (Linux `must_drop`; none below 2 MTU), and the L queue's native
    /// step for a packet it applies to (`native`, 0 otherwise).
    fn signal(
        &self,
        which: Which,
        pkt: &Packet,
        backlog_bytes: u64,
        coupled_stage: bool,
        native: f64,
        rng: &mut Rng,
    ) -> Signal {
        let coupled = coupled_stage && backlog_bytes >= 2 * u64::from(MTU_BYTES);
        match which {
            Which::L => self.pi2.scalable(coupled, native, rng),
            Which::C if coupled => self.pi2.classic(pkt.ecn().is_capable(), rng),
            Which::C => Signal::Pass,
        }
    }

    /// Apply `signal` to `pkt` of queue `which`, counted when `counted`: the packet, marked
    /// CE when signalled, or None when dropped (counted as `early_drops` at enqueue,
    /// `dequeue_drops` at dequeue).
    fn apply(
        &mut self,
        which: Which,
        signal: Signal,
        mut pkt: Packet,
        host: &mut Host,
        counted: bool,
        at_enqueue: bool,
    ) -> Option<Packet> {
        if signal == Signal::Pass {
            return Some(pkt);
        }
        if signal == Signal::Drop {
            if counted {
                if at_enqueue {
                    host.stats.early_drops += 1;
                } else {
                    host.stats.dequeue_drops += 1;
                }
                self.counts_of(which).drops += 1;
            }
            host.counts.dropped(&pkt);
            return None;
        }
        pkt.set_ecn(Ecn::Ce);
        if counted {
            host.stats.marks += 1;
            let q = self.counts_of(which);
            if signal == Signal::StepMark {
                q.step_marks += 1;
            } else {
                q.marks += 1;
            }
        }
        Some(pkt)
    }

    /// Offer an arriving packet (Linux `dualpi2_enqueue_skb`); returns whether it joined.
    pub fn enqueue(&mut self, now_ns: u64, pkt: Packet, host: &mut Host) -> bool {
        let counted = host.stats.counts(now_ns);
        let which = if self.pi2.params().ecn_mask.to_l_queue(pkt.ecn() as u8) {
            Which::L
        } else {
            Which::C
        };
        if counted {
            host.stats.arrivals += 1;
            self.counts_of(which).arrivals += 1;
        }
        let size = u64::from(pkt.size_bytes);
        let full = self.len_pkts() >= self.limit_pkts
            || (self.limit_bytes > 0 && self.bytes + size > self.limit_bytes);
        if full {
            if counted {
                host.stats.overflow_drops += 1;
                self.counts_of(which).drops += 1;
            }
            host.counts.dropped(&pkt);
            return false;
        }
        let at_enqueue = self.pi2.params().drop_enqueue;
        let signal = self.signal(which, &pkt, self.bytes, at_enqueue, 0.0, host.rng);
        let Some(pkt) = self.apply(which, signal, pkt, host, counted, true) else {
            return false;
        };
        let apply_step = which == Which::L
            && self.l.len() as u64 >= u64::from(self.pi2.params().min_qlen_step_pkts);
        let waiting = Waiting {
            pkt,
            joined_ns: now_ns,
            apply_step,
        };
        match which {
            Which::L => self.l.push_back(waiting),
            Which::C => self.c.push_back(waiting),
        }
        self.bytes += size;
        let len = self.len_pkts();
        host.stats.queue_pkts.set(now_ns, f64::from(len));
        host.stats.max_queue_pkts = host.stats.max_queue_pkts.max(len);
        true
    }

    /// The queue the round robin serves next (Linux `dequeue_packet`); None when both are
    /// empty.
    fn pick(&self) -> Option<Which> {
        let (l, c) = (!self.l.is_empty(), !self.c.is_empty());
        if l && (!c || self.credit <= 0) {
            Some(Which::L)
        } else if c {
            Some(Which::C)
        } else {
            None
        }
    }

    /// Take the next packet to transmit (Linux `dualpi2_qdisc_dequeue`), or None when both
    /// queues are empty (the credit is then reset).
    pub fn dequeue(&mut self, now_ns: u64, host: &mut Host) -> Option<Packet> {
        loop {
            let Some(which) = self.pick() else {
                self.reset_credit();
                return None;
            };
            let (queue, other_waits, weight) = match which {
                Which::L => (&mut self.l, !self.c.is_empty(), self.w_c),
                Which::C => (&mut self.c, !self.l.is_empty(), -self.w_l),
            };
            let w = queue
                .pop_front()
                .expect("the round robin picks a queue with packets");
            let size = u64::from(w.pkt.size_bytes);
            let credit_change = if other_waits { weight * size as i64 } else { 0 };
            let l_len = self.l.len() as u32;
            self.bytes -= size;
            host.stats
                .queue_pkts
                .set(now_ns, f64::from(self.len_pkts()));
            let sojourn_ns = now_ns - w.joined_ns;
            let native = if w.apply_step {
                self.pi2.native_l(sojourn_ns, l_len)
            } else {
                0.0
            };
            let at_dequeue = !self.pi2.params().drop_enqueue;
            let signal = self.signal(which, &w.pkt, self.bytes, at_dequeue, native, host.rng);
            let counted = host.stats.counts(w.joined_ns);
            if let Some(pkt) = self.apply(which, signal, w.pkt, host, counted, false) {
                self.credit += credit_change;
                if counted {
                    self.counts_of(which).sojourn_ns.push(sojourn_ns);
                }
                return Some(pkt);
            }
        }
    }
}

#[cfg(test)]
mod tests;
