//! Run-wide packet counts, for the conservation check: every data packet sent is delivered,
//! dropped, or still in flight at the end. Drops are also kept per flow, for the packets a
//! flow sent inside the measurement window (its loss rate), and per latency probe (a probe
//! whose request or response is dropped is lost).

use super::window::Window;
use crate::packet::{flags, Packet};

/// Totals over the whole run (not just the window).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Data packets put on the wire by senders (retransmissions included).
    pub data_sent: u64,
    /// Data packets that reached their receiver.
    pub data_delivered: u64,
    /// Data packets dropped anywhere.
    pub data_dropped: u64,
    /// Acknowledgements sent by receivers.
    pub acks_sent: u64,
    /// Acknowledgements that reached their sender.
    pub acks_delivered: u64,
    /// Acknowledgements dropped anywhere.
    pub acks_dropped: u64,
}

/// The run's totals, and each flow's data packets sent inside the window and dropped.
#[derive(Clone, Debug)]
pub struct PacketCounts {
    /// Totals over the run.
    pub totals: Totals,
    window: Window,
    /// Per flow: data packets sent inside the window and dropped anywhere.
    pub lost_by_flow: Vec<u64>,
    /// The latency probes whose request or response was dropped, as (flow, probe number), in
    /// the order of the drops.
    pub lost_probes: Vec<(u32, u32)>,
}

impl PacketCounts {
    /// Zero counts for `flows` flows, losses counted for packets sent inside `window`.
    pub fn new(flows: usize, window: Window) -> Self {
        PacketCounts {
            totals: Totals::default(),
            window,
            lost_by_flow: vec![0; flows],
            lost_probes: Vec::new(),
        }
    }

    /// Count a packet put on the wire by a host.
    pub fn sent(&mut self, pkt: &Packet) {
        self.totals.sent(pkt);
    }

    /// Count a packet that reached its destination.
    pub fn delivered(&mut self, pkt: &Packet) {
        self.totals.delivered(pkt);
    }

    /// Count a dropped packet.
    pub fn dropped(&mut self, pkt: &Packet) {
        self.totals.dropped(pkt);
        if !pkt.is_ack() && self.window.contains(pkt.sent_ns) {
            self.lost_by_flow[pkt.flow as usize] += 1;
        }
        if pkt.has(flags::PROBE) {
            self.lost_probes.push((pkt.flow, pkt.seq));
        }
    }
}

impl Totals {
    /// Count a packet put on the wire by a host.
    pub fn sent(&mut self, pkt: &Packet) {
        if pkt.is_ack() {
            self.acks_sent += 1;
        } else {
            self.data_sent += 1;
        }
    }

    /// Count a packet that reached its destination.
    pub fn delivered(&mut self, pkt: &Packet) {
        if pkt.is_ack() {
            self.acks_delivered += 1;
        } else {
            self.data_delivered += 1;
        }
    }

    /// Count a dropped packet.
    pub fn dropped(&mut self, pkt: &Packet) {
        if pkt.is_ack() {
            self.acks_dropped += 1;
        } else {
            self.data_dropped += 1;
        }
    }
}
