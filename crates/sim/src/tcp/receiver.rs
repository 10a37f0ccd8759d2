//! The TCP receiver: cumulative acknowledgements, an out-of-order buffer, SACK blocks
//! (RFC 2018), the timestamp echo (RFC 7323 §4.3), delayed ACKs (RFC 5681 §4.2, RFC 1122
//! §4.2.3.2, as ns-3.37's receiver decides them, the first data segment after a handshake
//! acknowledged at once), ECN echo (RFC 3168 §6.1.3, or per CE mark
//! as RFC 8257 §3.2 has DCTCP's receiver do it), and the answer to a SYN.

use super::config::{EcnFeedback, TcpConfig};
use super::sack_list::SackList;
use crate::packet::{flags, Ecn, Packet, MAX_SACK_BLOCKS};
use crate::time::ms_to_ns;
use std::collections::BTreeSet;

/// Bytes the window-scale and SACK-permitted options add to a SYN or SYN-ACK over a pure ACK
/// (3 + 2, padded to 4 with the 2 of padding the timestamps option leaves).
pub const SYN_OPTION_BYTES: u32 = 4;

/// One flow's receiving side.
#[derive(Clone, Debug)]
pub struct Receiver {
    flow: u32,
    sender_node: u32,
    /// Next in-order segment expected.
    rcv_next: u32,
    /// Segments received above a hole.
    out_of_order: BTreeSet<u32>,
    /// The SACK blocks to report.
    sack: SackList,
    /// In-order segments received since the last ACK.
    unacked_pkts: u32,
    /// When the delayed-ACK timer expires, if running.
    delack_deadline_ns: Option<u64>,
    /// Echo ECE on the next ACK: classic feedback sets it on a CE mark until a CWR arrives;
    /// per-CE feedback holds the CE state of the last ECN-capable segment.
    ece: bool,
    /// TS.Recent of RFC 7323: the timestamp to echo, ns.
    ts_recent_ns: u64,
    /// The acknowledgement number last sent (Last.ACK.sent of RFC 7323).
    last_ack_sent: u32,
    /// A handshake opened the connection and no ACK has been sent since: the next in-order
    /// segment is acknowledged at once (ns-3.37's ProcessSynRcvd sets m_delAckCount to
    /// m_delAckMaxCount, "always respond to first data packet to speed up the connection").
    ack_first_segment: bool,
}

impl Receiver {
    /// A receiver for `flow` whose ACKs go to `sender_node`.
    pub fn new(flow: u32, sender_node: u32) -> Self {
        Receiver {
            flow,
            sender_node,
            rcv_next: 0,
            out_of_order: BTreeSet::new(),
            sack: SackList::default(),
            unacked_pkts: 0,
            delack_deadline_ns: None,
            ece: false,
            ts_recent_ns: 0,
            last_ack_sent: 0,
            ack_first_segment: false,
        }
    }

    /// When the delayed-ACK timer expires, if it runs.
    pub fn delack_deadline_ns(&self) -> Option<u64> {
        self.delack_deadline_ns
    }

    /// A SYN arrived: answer with a SYN-ACK echoing its timestamp (a repeated SYN is answered
    /// again, as when the first SYN-ACK was lost).
    pub fn on_syn(&mut self, syn: &Packet, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.ts_recent_ns = syn.sent_ns;
        // The first data segment will be acknowledged at once, as ns-3.37's receiver does
        // once the handshake completes (a repeated SYN after data changes nothing).
        self.ack_first_segment = self.rcv_next == 0 && self.out_of_order.is_empty();
        // A SYN-ACK's timestamp field echoes the SYN's (TSecr).
        let ack = Packet::data(
            self.flow,
            self.rcv_next,
            self.sender_node,
            cfg.ack_bytes + SYN_OPTION_BYTES,
            syn.sent_ns,
            flags::SYN | flags::ACK | cfg.control_ecn_bits(),
        );
        out.push(ack);
    }

    /// Size of an ACK carrying `blocks` SACK blocks: 8 bytes per block plus the option's
    /// 2-byte header, which fills the padding left by the timestamps option (RFC 2018 §3);
    /// without timestamps the header and 2 bytes of padding are added.
    fn ack_bytes(cfg: &TcpConfig, blocks: usize) -> u32 {
        match blocks {
            0 => cfg.ack_bytes,
            n if cfg.timestamps => cfg.ack_bytes + 8 * n as u32,
            n => cfg.ack_bytes + 4 + 8 * n as u32,
        }
    }

    fn send_ack(&mut self, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        // An ACK's timestamp field carries the echo TSecr = TS.Recent.
        let f = flags::ACK | if self.ece { flags::ECE } else { 0 } | cfg.control_ecn_bits();
        let mut ack = Packet::data(
            self.flow,
            self.rcv_next,
            self.sender_node,
            cfg.ack_bytes,
            self.ts_recent_ns,
            f,
        );
        if cfg.sack {
            let room = if cfg.timestamps {
                MAX_SACK_BLOCKS - 1
            } else {
                MAX_SACK_BLOCKS
            };
            let blocks = self.sack.blocks();
            let n = blocks.len().min(room);
            ack.set_sack(&blocks[..n]);
            ack.size_bytes = u16::try_from(Self::ack_bytes(cfg, n)).expect("ACKs are small");
        }
        out.push(ack);
        self.last_ack_sent = self.rcv_next;
        self.unacked_pkts = 0;
        self.delack_deadline_ns = None;
        self.ack_first_segment = false;
    }

    /// Take a data packet; returns how many segments it delivered in order.
    pub fn on_data(
        &mut self,
        pkt: &Packet,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) -> u32 {
        let ce = pkt.ecn() == Ecn::Ce;
        let per_ce = cfg.ecn_feedback == EcnFeedback::PerCe;
        if per_ce {
            self.echo_per_ce(pkt.ecn(), cfg, out);
        } else {
            if pkt.has(flags::CWR) {
                self.ece = false;
            }
            if ce {
                self.ece = true;
            }
        }
        // RFC 7323 §4.3: remember the timestamp of a segment at the left edge of the window
        // (seq ≤ Last.ACK.sent), so the echo covers the delay of a delayed ACK.
        if pkt.seq == self.rcv_next && pkt.seq <= self.last_ack_sent {
            self.ts_recent_ns = pkt.sent_ns;
        }
        // ACK at once when ACKs are not delayed, on CE with classic feedback, out of order,
        // duplicates, and when a hole is filled or remains (RFC 5681 §4.2).
        let mut immediate = !cfg.delayed_ack || (ce && !per_ce);
        let before = self.rcv_next;
        if pkt.seq == self.rcv_next {
            immediate |= !self.out_of_order.is_empty();
            self.rcv_next += 1;
            while self.out_of_order.remove(&self.rcv_next) {
                self.rcv_next += 1;
            }
            self.sack.on_advance(self.rcv_next);
        } else {
            if pkt.seq > self.rcv_next && self.out_of_order.insert(pkt.seq) {
                self.sack.on_out_of_order(pkt.seq);
            }
            immediate = true;
        }
        if immediate {
            self.send_ack(cfg, out);
        } else {
            self.unacked_pkts += 1;
            if self.unacked_pkts >= cfg.delack_count || self.ack_first_segment {
                self.send_ack(cfg, out);
            } else if self.delack_deadline_ns.is_none() {
                self.delack_deadline_ns = Some(now_ns + ms_to_ns(cfg.delack_timeout_ms));
            }
        }
        self.rcv_next - before
    }

    /// Per-CE feedback (RFC 8257 §3.2, ns-3.37 `TcpDctcp::CeState0to1`/`CeState1to0`): when an
    /// ECN-capable segment's CE state differs from the one being echoed and a delayed ACK is
    /// pending, that ACK goes out now with the old state, so that no ACK covers segments of
    /// both states; the echo then follows the new segment. Not-ECT segments leave it as is.
    fn echo_per_ce(&mut self, ecn: Ecn, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if !ecn.is_capable() {
            return;
        }
        let ce = ecn == Ecn::Ce;
        if ce != self.ece && self.unacked_pkts > 0 {
            self.send_ack(cfg, out);
        }
        self.ece = ce;
    }

    /// The delayed-ACK timer fired at `now_ns` (stale calls are ignored).
    pub fn on_delack_timer(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        match self.delack_deadline_ns {
            Some(d) if d <= now_ns && self.unacked_pkts > 0 => self.send_ack(cfg, out),
            Some(d) if d <= now_ns => self.delack_deadline_ns = None,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The acknowledgement numbers the receiver sends for data segments `seqs`, one a
    /// millisecond, after a SYN when `handshake`.
    fn acks(handshake: bool, seqs: &[u32]) -> Vec<u32> {
        let cfg = TcpConfig::ns3();
        let mut rx = Receiver::new(0, 1);
        let mut out = Vec::new();
        if handshake {
            rx.on_syn(&Packet::data(0, 0, 1, 40, 0, flags::SYN), &cfg, &mut out);
            out.clear();
        }
        for (i, &seq) in seqs.iter().enumerate() {
            let now_ns = (i as u64 + 1) * 1_000_000;
            rx.on_data(
                &Packet::data(0, seq, 1, 1000, now_ns, 0),
                now_ns,
                &cfg,
                &mut out,
            );
        }
        out.iter().map(|a| a.seq).collect()
    }

    #[test]
    fn the_first_segment_after_a_handshake_is_acknowledged_at_once() {
        // ns-3.37: the first data segment at once, then every second one.
        assert_eq!(acks(true, &[0, 1, 2, 3, 4]), vec![1, 3, 5]);
        // Without a handshake, every second segment from the first.
        assert_eq!(acks(false, &[0, 1, 2, 3, 4]), vec![2, 4]);
        // A first segment out of order is acknowledged at once anyway, and the count then
        // starts afresh: the hole filled (ACK at once), then every second one.
        assert_eq!(acks(true, &[1, 0, 2, 3]), vec![0, 2, 4]);
    }
}
