//! A port whose queue is run by an AQM (a bottleneck). Unlike a plain FIFO port it keeps
//! its packets, so the AQM can decide at dequeue and its timer can see the live queue.

use crate::metrics::counts::PacketCounts;
use crate::metrics::port_stats::PortStats;
use crate::packet::{flags, Packet};
use crate::scenario::QueueSpec;
use aqm::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, QueueView, Rng};
use std::collections::VecDeque;

/// The queue, its AQM and its counters.
pub struct ManagedQueue {
    limit_pkts: u32,
    limit_bytes: u64,
    ecn: bool,
    rate_bps: f64,
    /// The AQM's name as the scenario gives it.
    aqm_name: &'static str,
    /// Waiting packets with the time each joined, ns.
    queue: VecDeque<(Packet, u64)>,
    bytes: u64,
    aqm: Box<dyn Aqm>,
    rng: Rng,
    /// A packet is on the wire.
    pub busy: bool,
    /// Counters over the measurement window.
    pub stats: PortStats,
}

impl ManagedQueue {
    /// A queue of `spec.limit_pkts` packets (and `spec.limit_bytes` bytes when not 0) feeding
    /// a link of `rate_bps`, managed by `aqm`; with `spec.ecn`, early signals mark ECN-capable
    /// packets.
    pub fn new(
        spec: &QueueSpec,
        rate_bps: f64,
        aqm: Box<dyn Aqm>,
        rng: Rng,
        stats: PortStats,
    ) -> Self {
        ManagedQueue {
            limit_pkts: spec.limit_pkts,
            limit_bytes: spec.limit_bytes,
            ecn: spec.ecn,
            rate_bps,
            aqm_name: spec.aqm,
            queue: VecDeque::new(),
            bytes: 0,
            aqm,
            rng,
            busy: false,
            stats,
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

    /// The AQM's name.
    pub fn aqm_name(&self) -> &'static str {
        self.aqm_name
    }

    /// The AQM (for probes and timers).
    pub fn aqm(&self) -> &dyn Aqm {
        self.aqm.as_ref()
    }

    /// Data packets waiting (for the conservation check).
    pub fn data_waiting(&self) -> u64 {
        self.queue.iter().filter(|(p, _)| !p.is_ack()).count() as u64
    }

    fn full_for(&self, size_bytes: u32) -> bool {
        self.queue.len() as u32 >= self.limit_pkts
            || (self.limit_bytes > 0 && self.bytes + u64::from(size_bytes) > self.limit_bytes)
    }

    /// Offer an arriving packet; returns whether it joined the queue.
    pub fn enqueue(&mut self, now_ns: u64, mut pkt: Packet, counts: &mut PacketCounts) -> bool {
        let counted = self.stats.counts(now_ns);
        if counted {
            self.stats.arrivals += 1;
        }
        let view = PacketView {
            size_bytes: pkt.bytes(),
            ect: pkt.has(flags::ECT),
        };
        let q = self.view();
        let mut marked = false;
        match self.aqm.on_enqueue(now_ns, view, &q, &mut self.rng) {
            EnqueueVerdict::Accept => {}
            EnqueueVerdict::EarlyDrop if self.ecn && view.ect => {
                pkt.flags |= flags::CE;
                marked = true;
            }
            EnqueueVerdict::EarlyDrop => {
                if counted {
                    self.stats.early_drops += 1;
                }
                counts.dropped(&pkt);
                return false;
            }
            EnqueueVerdict::ForcedDrop => {
                if counted {
                    self.stats.forced_drops += 1;
                }
                counts.dropped(&pkt);
                return false;
            }
        }
        if self.full_for(pkt.bytes()) {
            if counted {
                self.stats.overflow_drops += 1;
            }
            counts.dropped(&pkt);
            return false;
        }
        // A marked packet counts as marked only once it is known not to overflow.
        if marked && counted {
            self.stats.marks += 1;
        }
        self.bytes += u64::from(pkt.size_bytes);
        self.queue.push_back((pkt, now_ns));
        let len = self.queue.len() as u32;
        self.stats.queue_pkts.set(now_ns, f64::from(len));
        self.stats.max_queue_pkts = self.stats.max_queue_pkts.max(len);
        true
    }

    /// Take the next packet to transmit, letting the AQM drop (or mark) at the head.
    pub fn dequeue(&mut self, now_ns: u64, counts: &mut PacketCounts) -> Option<Packet> {
        while let Some((mut pkt, joined_ns)) = self.queue.pop_front() {
            self.bytes -= u64::from(pkt.size_bytes);
            self.stats.queue_pkts.set(now_ns, self.queue.len() as f64);
            let view = PacketView {
                size_bytes: pkt.bytes(),
                ect: pkt.has(flags::ECT),
            };
            let q = self.view();
            let verdict = self
                .aqm
                .on_dequeue(now_ns, now_ns - joined_ns, view, &q, &mut self.rng);
            // A verdict at the head counts with the packet's arrival, so that every rate over
            // arrivals counts each arriving packet at most once, whatever the window.
            let counted = self.stats.counts(joined_ns);
            match verdict {
                DequeueVerdict::Deliver => return Some(pkt),
                DequeueVerdict::EarlyDrop if self.ecn && view.ect => {
                    pkt.flags |= flags::CE;
                    if counted {
                        self.stats.marks += 1;
                    }
                    return Some(pkt);
                }
                DequeueVerdict::EarlyDrop | DequeueVerdict::ForcedDrop => {
                    if counted {
                        self.stats.dequeue_drops += 1;
                    }
                    counts.dropped(&pkt);
                }
                DequeueVerdict::Mark => {
                    if self.ecn && view.ect {
                        pkt.flags |= flags::CE;
                        if counted {
                            self.stats.marks += 1;
                        }
                    }
                    return Some(pkt);
                }
            }
        }
        None
    }

    /// Run the AQM's timer.
    pub fn on_timer(&mut self, now_ns: u64) {
        let q = self.view();
        self.aqm.on_timer(now_ns, &q, &mut self.rng);
    }
}
