//! Queue disciplines: what a managed port holds ([`discipline::Discipline`]). One FIFO queue
//! with an AQM (every AQM of the papers: the fast path), or flow queueing, a scheduler over
//! flow queues each managed by its own AQM instance (FQ-CoDel, FQ-PIE, FQ-COBALT), or CAKE (its
//! shaper, flow queues with host isolation and a COBALT per flow queue), or DualPI2 (an L4S and
//! a Classic queue coupled by one PI2 controller), strict priority over
//! bands of any of these, and any of them behind a token-bucket shaper when the scenario sets
//! one. A discipline stores the packets and asks its
//! AQMs ([`aqm::Aqm`]) for decisions; the port around it ([`super::managed_port`]) owns the
//! link and the counters the disciplines update through [`Host`].

pub mod cake;
pub mod classify;
pub mod discipline;
pub mod dualpi2;
pub mod flow_queues;
pub mod single;
pub mod token_bucket;

use crate::metrics::counts::PacketCounts;
use crate::metrics::port_stats::PortStats;
use crate::packet::{Ecn, Packet};
use aqm::{DequeueVerdict, EnqueueVerdict, PacketView, Rng};

/// What a discipline borrows from its port for one operation: the ECN setting, the counters
/// and the random source of the port's AQMs.
pub struct Host<'a> {
    /// Early signals mark ECN-capable packets instead of dropping them (`queue.ecn`).
    pub ecn: bool,
    /// The port's counters over the window.
    pub stats: &'a mut PortStats,
    /// Whole-run packet conservation.
    pub counts: &'a mut PacketCounts,
    /// The random stream of the port's AQMs.
    pub rng: &'a mut Rng,
}

impl Host<'_> {
    /// Whether an early signal about `pkt` becomes a CE mark rather than a drop.
    pub fn marks(&self, pkt: &Packet) -> bool {
        self.ecn && pkt.ecn().is_capable()
    }
}

/// The packet as an AQM sees it.
pub fn view_of(pkt: &Packet) -> PacketView {
    PacketView {
        size_bytes: pkt.bytes(),
        ect: pkt.ecn().is_capable(),
    }
}

/// A waiting packet and the time it joined, ns.
pub type Queued = (Packet, u64);

/// What an AQM's verdict on an arriving packet does: `Some(marked)` when the packet may join
/// (marked CE for an early signal when the port and the packet use ECN), `None` when it is
/// dropped (counted as an early or forced drop when `counted`, and in the conservation
/// counts).
pub fn judge_arrival(
    verdict: EnqueueVerdict,
    pkt: &mut Packet,
    host: &mut Host,
    counted: bool,
) -> Option<bool> {
    match verdict {
        EnqueueVerdict::Accept => Some(false),
        EnqueueVerdict::EarlyDrop if host.marks(pkt) => {
            pkt.set_ecn(Ecn::Ce);
            Some(true)
        }
        EnqueueVerdict::EarlyDrop => {
            if counted {
                host.stats.early_drops += 1;
            }
            host.counts.dropped(pkt);
            None
        }
        EnqueueVerdict::ForcedDrop => {
            if counted {
                host.stats.forced_drops += 1;
            }
            host.counts.dropped(pkt);
            None
        }
    }
}

/// What an AQM's verdict on a departing packet does: the packet to send (marked CE for an
/// early signal or a mark when the port and the packet use ECN), or `None` when it is dropped
/// (an early signal without ECN, or a forced drop: counted as a drop at dequeue when
/// `counted`, and in the conservation counts). A verdict at the
/// head counts with the packet's arrival (`counted`), so that every rate over arrivals counts
/// each arriving packet at most once, whatever the window.
pub fn judge_departure(
    verdict: DequeueVerdict,
    mut pkt: Packet,
    host: &mut Host,
    counted: bool,
) -> Option<Packet> {
    match verdict {
        DequeueVerdict::Deliver => Some(pkt),
        DequeueVerdict::EarlyDrop if host.marks(&pkt) => {
            pkt.set_ecn(Ecn::Ce);
            if counted {
                host.stats.marks += 1;
            }
            Some(pkt)
        }
        DequeueVerdict::Mark => {
            if host.marks(&pkt) {
                pkt.set_ecn(Ecn::Ce);
                if counted {
                    host.stats.marks += 1;
                }
            }
            Some(pkt)
        }
        DequeueVerdict::EarlyDrop | DequeueVerdict::ForcedDrop => {
            if counted {
                host.stats.dequeue_drops += 1;
            }
            host.counts.dropped(&pkt);
            None
        }
    }
}
