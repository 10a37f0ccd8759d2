//! The TCP receiver: cumulative acknowledgements, an out-of-order buffer, delayed ACKs
//! (RFC 5681 §4.2, RFC 1122 §4.2.3.2) and ECN echo (RFC 3168 §6.1.3).

use super::config::TcpConfig;
use crate::packet::{flags, Packet};
use crate::time::ms_to_ns;
use std::collections::BTreeSet;

/// One flow's receiving side.
#[derive(Clone, Debug)]
pub struct Receiver {
    flow: u32,
    sender_node: u32,
    /// Next in-order segment expected.
    rcv_next: u32,
    /// Segments received above a hole.
    out_of_order: BTreeSet<u32>,
    /// In-order segments received since the last ACK.
    unacked_pkts: u32,
    /// When the delayed-ACK timer expires, if running.
    delack_deadline_ns: Option<u64>,
    /// Echo ECE on every ACK until a CWR arrives.
    ece: bool,
}

impl Receiver {
    /// A receiver for `flow` whose ACKs go to `sender_node`.
    pub fn new(flow: u32, sender_node: u32) -> Self {
        Receiver {
            flow,
            sender_node,
            rcv_next: 0,
            out_of_order: BTreeSet::new(),
            unacked_pkts: 0,
            delack_deadline_ns: None,
            ece: false,
        }
    }

    /// When the delayed-ACK timer expires, if it runs.
    pub fn delack_deadline_ns(&self) -> Option<u64> {
        self.delack_deadline_ns
    }

    fn send_ack(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        out.push(Packet {
            flow: self.flow,
            seq: self.rcv_next,
            dst: self.sender_node,
            size_bytes: cfg.ack_bytes,
            sent_ns: now_ns,
            flags: flags::ACK | if self.ece { flags::ECE } else { 0 },
        });
        self.unacked_pkts = 0;
        self.delack_deadline_ns = None;
    }

    /// Take a data packet; returns how many segments it delivered in order.
    pub fn on_data(
        &mut self,
        pkt: &Packet,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) -> u32 {
        if pkt.has(flags::CWR) {
            self.ece = false;
        }
        let ce = pkt.has(flags::CE);
        if ce {
            self.ece = true;
        }
        // ACK at once when ACKs are not delayed, on CE, out of order, duplicates, and when
        // a hole is filled (RFC 5681 §4.2).
        let mut immediate = !cfg.delayed_ack || ce;
        let before = self.rcv_next;
        if pkt.seq == self.rcv_next {
            immediate |= !self.out_of_order.is_empty();
            self.rcv_next += 1;
            while self.out_of_order.remove(&self.rcv_next) {
                self.rcv_next += 1;
            }
        } else {
            if pkt.seq > self.rcv_next {
                self.out_of_order.insert(pkt.seq);
            }
            immediate = true;
        }
        if immediate {
            self.send_ack(now_ns, cfg, out);
        } else {
            self.unacked_pkts += 1;
            if self.unacked_pkts >= cfg.delack_count {
                self.send_ack(now_ns, cfg, out);
            } else if self.delack_deadline_ns.is_none() {
                self.delack_deadline_ns = Some(now_ns + ms_to_ns(cfg.delack_timeout_ms));
            }
        }
        self.rcv_next - before
    }

    /// The delayed-ACK timer fired at `now_ns` (stale calls are ignored).
    pub fn on_delack_timer(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        match self.delack_deadline_ns {
            Some(d) if d <= now_ns && self.unacked_pkts > 0 => self.send_ack(now_ns, cfg, out),
            Some(d) if d <= now_ns => self.delack_deadline_ns = None,
            _ => {}
        }
    }
}
