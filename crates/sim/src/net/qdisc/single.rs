//! One FIFO queue managed by one AQM: the discipline of every AQM of the papers, and the fast
//! path. The AQM decides on each arrival and on each departure from the head; the buffer limit
//! is the host's (`aqm::contract`).

use super::{judge_arrival, judge_departure, view_of, Host, Queued};
use crate::packet::Packet;
use aqm::{Aqm, QueueView};
use std::collections::VecDeque;

/// The queue and its AQM.
pub struct SingleQueue {
    limit_pkts: u32,
    limit_bytes: u64,
    rate_bps: f64,
    queue: VecDeque<Queued>,
    bytes: u64,
    aqm: Box<dyn Aqm>,
}

impl SingleQueue {
    /// A queue of `limit_pkts` packets (and `limit_bytes` bytes when not 0) feeding a link of
    /// `rate_bps`, managed by `aqm`.
    pub fn new(limit_pkts: u32, limit_bytes: u64, rate_bps: f64, aqm: Box<dyn Aqm>) -> Self {
        SingleQueue {
            limit_pkts,
            limit_bytes,
            rate_bps,
            queue: VecDeque::new(),
            bytes: 0,
            aqm,
        }
    }

    /// The queue as the AQM sees it.
    pub fn view(&self) -> QueueView {
        QueueView {
            len_pkts: self.queue.len() as u32,
            len_bytes: self.bytes,
            limit_pkts: self.limit_pkts,
            limit_bytes: self.limit_bytes,
            rate_bps: self.rate_bps,
        }
    }

    /// Packets waiting.
    pub fn len_pkts(&self) -> u32 {
        self.queue.len() as u32
    }

    /// Bytes waiting.
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// The AQM.
    pub fn aqm(&self) -> &dyn Aqm {
        self.aqm.as_ref()
    }

    /// The AQM, taken out of the queue (for hosts that run the AQM themselves).
    pub fn into_aqm(self) -> Box<dyn Aqm> {
        self.aqm
    }

    /// The packet that joined last, if any is waiting.
    pub fn newest(&self) -> Option<&Packet> {
        self.queue.back().map(|(p, _)| p)
    }

    /// Every waiting packet.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.queue.iter().map(|(p, _)| p)
    }

    fn full_for(&self, size_bytes: u32) -> bool {
        self.queue.len() as u32 >= self.limit_pkts
            || (self.limit_bytes > 0 && self.bytes + u64::from(size_bytes) > self.limit_bytes)
    }

    /// Offer an arriving packet; returns whether it joined the queue.
    pub fn enqueue(&mut self, now_ns: u64, mut pkt: Packet, host: &mut Host) -> bool {
        let counted = host.stats.counts(now_ns);
        if counted {
            host.stats.arrivals += 1;
        }
        let q = self.view();
        let verdict = self.aqm.on_enqueue(now_ns, view_of(&pkt), &q, host.rng);
        let Some(marked) = judge_arrival(verdict, &mut pkt, host, counted) else {
            return false;
        };
        if self.full_for(pkt.bytes()) {
            if counted {
                host.stats.overflow_drops += 1;
            }
            host.counts.dropped(&pkt);
            self.aqm.on_overflow(now_ns);
            return false;
        }
        // A marked packet counts as marked only once it is known not to overflow.
        if marked && counted {
            host.stats.marks += 1;
        }
        self.bytes += u64::from(pkt.size_bytes);
        self.queue.push_back((pkt, now_ns));
        let len = self.queue.len() as u32;
        host.stats.queue_pkts.set(now_ns, f64::from(len));
        host.stats.max_queue_pkts = host.stats.max_queue_pkts.max(len);
        true
    }

    /// Take the next packet to transmit, letting the AQM drop (or mark) at the head; with
    /// none left, the AQM hears that the queue was found empty.
    pub fn dequeue(&mut self, now_ns: u64, host: &mut Host) -> Option<Packet> {
        while let Some((pkt, joined_ns)) = self.queue.pop_front() {
            self.bytes -= u64::from(pkt.size_bytes);
            host.stats.queue_pkts.set(now_ns, self.queue.len() as f64);
            let q = self.view();
            let verdict =
                self.aqm
                    .on_dequeue(now_ns, now_ns - joined_ns, view_of(&pkt), &q, host.rng);
            let counted = host.stats.counts(joined_ns);
            if let Some(pkt) = judge_departure(verdict, pkt, host, counted) {
                return Some(pkt);
            }
        }
        self.aqm.on_empty(now_ns);
        None
    }

    /// Run the AQM's timer.
    pub fn on_timer(&mut self, now_ns: u64, rng: &mut aqm::Rng) {
        let q = self.view();
        self.aqm.on_timer(now_ns, &q, rng);
    }
}
