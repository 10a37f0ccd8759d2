//! Counters of a managed port over the measurement window.

use super::time_average::TimeAverage;
use super::window::Window;

/// What happened at the AQM port inside the window.
#[derive(Clone, Debug)]
pub struct PortStats {
    window: Window,
    /// Packets offered to the port.
    pub arrivals: u64,
    /// Early (unforced) drops decided by the AQM at enqueue.
    pub early_drops: u64,
    /// Forced drops decided by the AQM at enqueue.
    pub forced_drops: u64,
    /// Drops because the buffer was full.
    pub overflow_drops: u64,
    /// Drops decided by the AQM at dequeue.
    pub dequeue_drops: u64,
    /// Packets marked CE instead of dropped.
    pub marks: u64,
    /// Packets that started transmission.
    pub departures: u64,
    /// Data packets (not acknowledgements or SYNs) among them.
    pub data_departures: u64,
    /// Bytes of the packets that started transmission.
    pub departed_bytes: u64,
    /// Time the link spent transmitting, ns.
    pub busy_ns: u64,
    /// Time-weighted queue length, packets.
    pub queue_pkts: TimeAverage,
    /// Longest the queue has been at any time of the run, packets.
    pub max_queue_pkts: u32,
}

impl PortStats {
    /// Empty counters for `window`.
    pub fn new(window: Window) -> Self {
        PortStats {
            window,
            arrivals: 0,
            early_drops: 0,
            forced_drops: 0,
            overflow_drops: 0,
            dequeue_drops: 0,
            marks: 0,
            departures: 0,
            data_departures: 0,
            departed_bytes: 0,
            busy_ns: 0,
            queue_pkts: TimeAverage::new(window),
            max_queue_pkts: 0,
        }
    }

    /// Whether `now_ns` counts.
    pub fn counts(&self, now_ns: u64) -> bool {
        self.window.contains(now_ns)
    }

    /// A transmission of `bytes` (a data packet when `data`) on [start, end]: its part inside
    /// the window is busy time.
    pub fn transmitted(&mut self, start_ns: u64, end_ns: u64, bytes: u32, data: bool) {
        if self.window.contains(start_ns) {
            self.departures += 1;
            self.data_departures += u64::from(data);
            self.departed_bytes += u64::from(bytes);
        }
        self.busy_ns += self.window.overlap_ns(start_ns, end_ns);
    }

    /// All drops at the port.
    pub fn drops(&self) -> u64 {
        self.early_drops + self.forced_drops + self.overflow_drops + self.dequeue_drops
    }

    /// `n` over the packets offered (0 without any).
    pub fn per_arrival(&self, n: u64) -> f64 {
        if self.arrivals == 0 {
            0.0
        } else {
            n as f64 / self.arrivals as f64
        }
    }

    /// Share of the window the link spent transmitting.
    pub fn link_efficiency(&self) -> f64 {
        self.busy_ns as f64 / (self.window.end_ns - self.window.start_ns) as f64
    }
}
