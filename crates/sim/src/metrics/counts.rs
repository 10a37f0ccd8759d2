//! Run-wide packet counts, for the conservation check: every data packet sent is delivered,
//! dropped, or still in flight at the end.

use crate::packet::Packet;

/// Totals over the whole run (not just the window).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketCounts {
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

impl PacketCounts {
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
