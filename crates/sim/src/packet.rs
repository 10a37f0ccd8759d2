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
    /// Connection request (with ACK: the answer to one).
    pub const SYN: u8 = 1 << 5;
    /// A latency probe's packet: its request, or with [`PROBE_REPLY`] its response.
    pub const PROBE: u8 = 1 << 6;
    /// A latency probe's response, from the receiving host back to the sender.
    pub const PROBE_REPLY: u8 = 1 << 7;
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

    /// Whether the given flag bit is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
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
}
