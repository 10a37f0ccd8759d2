//! Packets are small plain values, copied through the event queue and the buffers.

/// Flag bits of [`Packet::flags`].
pub mod flags {
    /// A pure acknowledgement (no payload).
    pub const ACK: u8 = 1;
    /// The two bits of the IP header's ECN field ([`super::Ecn`]); read and written through
    /// [`super::Packet::ecn`] and [`super::Packet::set_ecn`], never with [`super::Packet::has`].
    pub const ECN_FIELD: u8 = 0b110;
    /// ECN echo, on an acknowledgement.
    pub const ECE: u8 = 1 << 3;
    /// Congestion window reduced, on data after the sender reacted to ECE.
    pub const CWR: u8 = 1 << 4;
    /// Connection request (with ACK: the answer to one).
    pub const SYN: u8 = 1 << 5;
    /// A latency probe's packet: its request, or with [`PROBE_REPLY`] its response.
    pub const PROBE: u8 = 1 << 6;
    /// A latency probe's response, from the receiving host back to the sender.
    pub const PROBE_REPLY: u8 = 1 << 7;
}

/// The ECN field of the IP header (RFC 3168 §5, RFC 9331 §4): two bits, so a CE mark hides
/// which ECT codepoint the packet carried before (an L4S queue treats CE as L4S traffic,
/// RFC 9331 §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecn {
    /// Not-ECT (00): the transport does not use ECN; an AQM drops instead of marking.
    NotEct = 0b00,
    /// ECT(1) (01): ECN-capable, the L4S identifier of RFC 9331.
    Ect1 = 0b01,
    /// ECT(0) (10): ECN-capable with the classic response of RFC 3168.
    Ect0 = 0b10,
    /// CE (11): congestion experienced, set by an AQM instead of a drop.
    Ce = 0b11,
}

impl Ecn {
    /// The codepoint in the field's two bits.
    const fn from_bits(bits: u8) -> Self {
        match bits & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// Whether the transport uses ECN (any codepoint but Not-ECT): an AQM may mark it.
    pub fn is_capable(self) -> bool {
        self != Ecn::NotEct
    }

    /// Whether RFC 9331 §5.1 classifies the packet as L4S traffic: ECT(1) or CE.
    pub fn is_l4s(self) -> bool {
        matches!(self, Ecn::Ect1 | Ecn::Ce)
    }

    /// The packet's flag bits for this codepoint.
    pub const fn flag_bits(self) -> u8 {
        (self as u8) << 1
    }
}

/// Most SACK blocks one acknowledgement carries: 3 fit in the 40 bytes of TCP options next to
/// the timestamps option (RFC 2018 §3, RFC 7323), 4 without it.
pub const MAX_SACK_BLOCKS: usize = 4;

/// One SACK block: segments `start..end` are held by the receiver above a hole.
pub type SackBlock = (u32, u32);

/// One packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Flow the packet belongs to.
    pub flow: u32,
    /// Data: segment number. Acknowledgement: next segment expected (cumulative). A latency
    /// probe's request and response: the probe's number in its flow.
    pub seq: u32,
    /// Destination node.
    pub dst: u32,
    /// Size on the wire, bytes (IP packet including headers; scenarios keep it below 64 KiB).
    pub size_bytes: u16,
    /// On data: when the sender put it on its link, ns (for one-way delay, and the timestamp
    /// value TSval of RFC 7323). On an acknowledgement or SYN-ACK: the echoed timestamp
    /// TSecr, ns.
    pub sent_ns: u64,
    /// On an acknowledgement: the first segment of each SACK block, the most recent first.
    pub sack_start: [u32; MAX_SACK_BLOCKS],
    /// The length of each SACK block, segments.
    pub sack_len: [u16; MAX_SACK_BLOCKS],
    /// Number of SACK blocks carried.
    pub sack_blocks: u8,
    /// See [`flags`].
    pub flags: u8,
}

impl Packet {
    /// A data packet: one segment from `flow`'s sender at `sent_ns`, with no options.
    pub fn data(flow: u32, seq: u32, dst: u32, size_bytes: u32, sent_ns: u64, flags: u8) -> Self {
        Packet {
            flow,
            seq,
            dst,
            size_bytes: u16::try_from(size_bytes).expect("packet sizes are validated below 64 KiB"),
            sent_ns,
            sack_start: [0; MAX_SACK_BLOCKS],
            sack_len: [0; MAX_SACK_BLOCKS],
            sack_blocks: 0,
            flags,
        }
    }

    /// Size on the wire, bytes.
    pub fn bytes(&self) -> u32 {
        u32::from(self.size_bytes)
    }

    /// Carry `blocks` as SACK blocks (at most [`MAX_SACK_BLOCKS`]; a block longer than 65535
    /// segments is reported by its first 65535).
    pub fn set_sack(&mut self, blocks: &[SackBlock]) {
        let n = blocks.len().min(MAX_SACK_BLOCKS);
        for (i, &(start, end)) in blocks[..n].iter().enumerate() {
            self.sack_start[i] = start;
            self.sack_len[i] = u16::try_from(end - start).unwrap_or(u16::MAX);
        }
        self.sack_blocks = n as u8;
    }

    /// Whether this is a control packet without payload: an acknowledgement, a SYN or a
    /// SYN-ACK.
    pub fn is_ack(&self) -> bool {
        self.flags & (flags::ACK | flags::SYN) != 0
    }

    /// The SACK blocks carried, as (first, one past the last) segment.
    pub fn sack_blocks(&self) -> impl Iterator<Item = SackBlock> + '_ {
        (0..usize::from(self.sack_blocks)).map(|i| {
            (
                self.sack_start[i],
                self.sack_start[i] + u32::from(self.sack_len[i]),
            )
        })
    }

    /// Whether the given flag bit is set (not for the ECN field: see [`Packet::ecn`]).
    pub fn has(&self, flag: u8) -> bool {
        debug_assert_eq!(
            flag & flags::ECN_FIELD,
            0,
            "the ECN field is read with ecn()"
        );
        self.flags & flag != 0
    }

    /// The ECN codepoint of the IP header.
    pub fn ecn(&self) -> Ecn {
        Ecn::from_bits(self.flags >> 1)
    }

    /// Set the ECN codepoint of the IP header.
    pub fn set_ecn(&mut self, ecn: Ecn) {
        self.flags = (self.flags & !flags::ECN_FIELD) | ecn.flag_bits();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_stays_small_and_carries_its_sack_blocks() {
        assert!(std::mem::size_of::<Packet>() <= 48);
        let mut p = Packet::data(1, 2, 3, 52, 0, flags::ACK);
        p.set_sack(&[(10, 12), (20, 21)]);
        assert_eq!(
            p.sack_blocks().collect::<Vec<_>>(),
            vec![(10, 12), (20, 21)]
        );
    }

    #[test]
    fn the_ecn_field_holds_its_four_codepoints_beside_the_flags() {
        let mut p = Packet::data(1, 2, 3, 1000, 0, flags::CWR | Ecn::Ect1.flag_bits());
        assert_eq!(p.ecn(), Ecn::Ect1);
        assert!(p.ecn().is_l4s() && p.ecn().is_capable());
        p.set_ecn(Ecn::Ce);
        assert_eq!(p.ecn(), Ecn::Ce);
        assert!(p.has(flags::CWR) && !p.has(flags::ACK));
        p.set_ecn(Ecn::Ect0);
        assert!(!p.ecn().is_l4s() && p.ecn().is_capable());
        p.set_ecn(Ecn::NotEct);
        assert!(!p.ecn().is_capable());
        assert_eq!(p.flags, flags::CWR);
    }
}
