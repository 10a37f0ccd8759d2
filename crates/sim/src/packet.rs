//! Packets are small plain values, copied through the event queue and the buffers.

/// Flag bits of [`Packet::flags`].
pub mod flags {
    /// A pure acknowledgement (no payload).
    pub const ACK: u8 = 1;
    /// ECN-capable transport (ECT(0)).
    pub const ECT: u8 = 1 << 1;
    /// Congestion experienced, set by an AQM instead of a drop.
    pub const CE: u8 = 1 << 2;
    /// ECN echo, on an acknowledgement.
    pub const ECE: u8 = 1 << 3;
    /// Congestion window reduced, on data after the sender reacted to ECE.
    pub const CWR: u8 = 1 << 4;
}

/// One packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Flow the packet belongs to.
    pub flow: u32,
    /// Data: segment number. Acknowledgement: next segment expected (cumulative).
    pub seq: u32,
    /// Destination node.
    pub dst: u32,
    /// Size on the wire, bytes (IP packet including headers).
    pub size_bytes: u32,
    /// When the sender put it on its link, ns (for one-way delay).
    pub sent_ns: u64,
    /// See [`flags`].
    pub flags: u8,
}

impl Packet {
    /// Whether this is a pure acknowledgement.
    pub fn is_ack(&self) -> bool {
        self.flags & flags::ACK != 0
    }

    /// Whether the given flag bit is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}
