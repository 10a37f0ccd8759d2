//! Strict priority over bands (ns-3.37 `PrioQueueDisc`; Linux `sch_prio`): each band is a
//! discipline of its own (the port's AQM, single-queue or flow-queueing, with the port's
//! limits), a packet joins the band its flow's socket priority maps to through the priomap,
//! and a dequeue serves the lowest-numbered band that has a packet to send.
//!
//! Classification is by the socket priority of the packet's flow (its group's `priority`,
//! Linux `SO_PRIORITY`, ns-3 `SocketPriorityTag`): band = priomap[priority & 15]. A flow's
//! acknowledgements and probe responses carry the same priority as its data. Both sources give
//! each band its own full buffer (ns-3's default children are `FifoQueueDisc`s of MaxSize
//! 1000 packets; Linux's are `pfifo`s of the device's `txqueuelen`), so a band fills without
//! taking room from the others.

use super::{Dequeued, Discipline, FlowInfo};
use crate::metrics::dual_queue::DualQueueCounts;
use crate::net::qdisc::flow_queues::FqCounters;
use crate::net::qdisc::Host;
use crate::packet::Packet;
use aqm::Rng;

/// Most bands (Linux `TCQ_PRIO_BANDS`).
pub const MAX_BANDS: usize = 16;

/// The priomap both sources default to: socket priority → band (Linux `prio2band`, ns-3
/// `Priomap` "1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1"); priority 0 goes to band 1.
pub const DEFAULT_PRIOMAP: [u8; 16] = [1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1];

/// Names of the values a priority port reports in the time series: packets in each band.
const BAND_PROBES: [&str; MAX_BANDS] = [
    "band0_pkts",
    "band1_pkts",
    "band2_pkts",
    "band3_pkts",
    "band4_pkts",
    "band5_pkts",
    "band6_pkts",
    "band7_pkts",
    "band8_pkts",
    "band9_pkts",
    "band10_pkts",
    "band11_pkts",
    "band12_pkts",
    "band13_pkts",
    "band14_pkts",
    "band15_pkts",
];

/// The bands, the priomap, and each flow's band.
pub struct Prio {
    bands: Vec<Discipline>,
    priomap: [u8; 16],
    /// Each flow's band, by flow id (priomap[0] until the flows are known).
    band_of_flow: Vec<u8>,
}

impl Prio {
    /// Strict priority over `bands` (2 to [`MAX_BANDS`]), packets mapped by `priomap`, whose
    /// entries the caller has checked to be below the band count.
    pub fn new(bands: Vec<Discipline>, priomap: [u8; 16]) -> Self {
        debug_assert!((2..=MAX_BANDS).contains(&bands.len()));
        debug_assert!(priomap.iter().all(|&b| usize::from(b) < bands.len()));
        Prio {
            bands,
            priomap,
            band_of_flow: Vec::new(),
        }
    }

    /// Learn each flow's band from its socket priority, and pass the flows on to the bands.
    pub fn set_flows(&mut self, flows: &FlowInfo) {
        self.band_of_flow = flows
            .priorities
            .iter()
            .map(|&p| self.priomap[usize::from(p & 0x0f)])
            .collect();
        for band in &mut self.bands {
            band.set_flows(flows);
        }
    }

    /// The band of a packet: its flow's.
    fn band_of(&self, pkt: &Packet) -> usize {
        let band = self.band_of_flow.get(pkt.flow as usize).copied();
        usize::from(band.unwrap_or(self.priomap[0]))
    }

    /// Names of the per-band lengths in the time series.
    pub fn probe_names(&self) -> &'static [&'static str] {
        &BAND_PROBES[..self.bands.len()]
    }

    /// Packets in each band, appended to `out`.
    pub fn probe(&self, out: &mut Vec<f64>) {
        out.extend(self.bands.iter().map(|b| f64::from(b.len_pkts())));
    }

    /// Packets waiting in all bands.
    pub fn len_pkts(&self) -> u32 {
        self.bands.iter().map(Discipline::len_pkts).sum()
    }

    /// Bytes waiting in all bands.
    pub fn len_bytes(&self) -> u64 {
        self.bands.iter().map(Discipline::len_bytes).sum()
    }

    /// Data packets waiting in all bands.
    pub fn data_waiting(&self) -> u64 {
        self.bands.iter().map(Discipline::data_waiting).sum()
    }

    /// The flow schedulers' counters summed over the bands that run flow queueing.
    pub fn fq_counters(&self) -> Option<FqCounters> {
        self.bands
            .iter()
            .filter_map(Discipline::fq_counters)
            .reduce(|a, b| a.plus(&b))
    }

    /// The L and C queues' counters summed over the bands that run DualPI2, if any do.
    pub fn dual_queue_counts(&self) -> Option<DualQueueCounts> {
        self.bands
            .iter()
            .filter_map(Discipline::dual_queue_counts)
            .reduce(|a, b| a.plus(&b))
    }

    /// The earliest timer any band's AQMs ask for.
    pub fn next_timer_ns(&self) -> Option<u64> {
        self.bands
            .iter()
            .filter_map(Discipline::next_timer_ns)
            .min()
    }

    /// Run the timers that are due, band by band.
    pub fn on_timer(&mut self, now_ns: u64, rng: &mut Rng) {
        for band in &mut self.bands {
            if band.next_timer_ns().is_some_and(|t| t <= now_ns) {
                band.on_timer(now_ns, rng);
            }
        }
    }

    /// Offer an arriving packet to its band; returns whether it joined.
    pub fn enqueue(&mut self, now_ns: u64, pkt: Packet, host: &mut Host) -> bool {
        let band = self.band_of(&pkt);
        let joined = self.bands[band].enqueue(now_ns, pkt, host);
        self.count_all(now_ns, host);
        joined
    }

    /// The next packet of the first band that has one to send. A band whose own shaper holds
    /// its packets (CAKE) lets the lower bands send meanwhile; when no band sends, the
    /// earliest such time is when to ask again.
    pub fn dequeue(&mut self, now_ns: u64, host: &mut Host) -> Dequeued {
        let mut wait: Option<u64> = None;
        let mut sent = None;
        for band in &mut self.bands {
            match band.dequeue(now_ns, host) {
                Dequeued::Packet(p) => {
                    sent = Some(p);
                    break;
                }
                Dequeued::Empty => {}
                Dequeued::WaitUntil(t) => wait = Some(wait.map_or(t, |w| w.min(t))),
            }
        }
        self.count_all(now_ns, host);
        match (sent, wait) {
            (Some(p), _) => Dequeued::Packet(p),
            (None, Some(t)) => Dequeued::WaitUntil(t),
            (None, None) => Dequeued::Empty,
        }
    }

    /// Each band counts its own packets in the port's queue length; the port holds them all
    /// (a zero-length correction at `now_ns`).
    fn count_all(&self, now_ns: u64, host: &mut Host) {
        let len = self.len_pkts();
        host.stats.queue_pkts.set(now_ns, f64::from(len));
        host.stats.max_queue_pkts = host.stats.max_queue_pkts.max(len);
    }
}

#[cfg(test)]
mod tests;
