//! The TCP sender: slow start and congestion avoidance (RFC 5681), fast retransmit with
//! NewReno (RFC 6582) or classic Reno (RFC 5681 §3.2) fast recovery, the retransmission timer
//! (RFC 6298 or ns-2's) with Karn's rule and go-back-N after a timeout, a limit on the burst
//! sent per ACK (ns-2's maxburst_), and the ECN response (RFC 3168 §6.1.2). No SACK.

use super::config::{RecoveryKind, TcpConfig};
use super::congestion::CongestionControl;
use super::rtt::RttEstimator;
use crate::packet::{flags, Packet};
use crate::time::{ns_to_s, s_to_ns};
use std::collections::VecDeque;

/// What the sender remembers about each unacknowledged segment.
#[derive(Clone, Copy, Debug)]
struct SentRecord {
    /// Last time it was put on the wire, ns.
    sent_ns: u64,
    /// Whether it was ever sent more than once (Karn: no RTT sample from it).
    retransmitted: bool,
}

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    /// Data packets put on the wire, retransmissions included.
    pub data_sent: u64,
    /// Retransmitted data packets.
    pub retransmits: u64,
    /// Retransmission-timer expiries.
    pub timeouts: u64,
    /// Entries into fast recovery.
    pub fast_recoveries: u64,
    /// Window reductions in response to ECN echoes.
    pub ecn_reductions: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
}

/// One flow's sending side. Sequence numbers count segments from 0.
#[derive(Clone, Debug)]
pub struct Sender {
    flow: u32,
    dst_node: u32,
    /// Oldest unacknowledged segment.
    snd_una: u32,
    /// Next segment to send.
    snd_nxt: u32,
    /// One past the highest segment ever sent.
    snd_max: u32,
    /// Segments the application offers (unbounded while it runs).
    app_limit: u32,
    /// Congestion window, segments.
    cwnd_pkts: f64,
    /// Slow-start threshold, segments.
    ssthresh_pkts: f64,
    dupacks: u32,
    in_recovery: bool,
    /// NewReno's `recover`: snd_max when the last loss episode began.
    recover: Option<u32>,
    /// No second ECN reduction until this segment is acknowledged.
    ecn_recover: u32,
    /// Set CWR on the next data packet.
    cwr_pending: bool,
    rtt: RttEstimator,
    sent: VecDeque<SentRecord>,
    /// When the retransmission timer expires, if running.
    rto_deadline_ns: Option<u64>,
    cc: CongestionControl,
    /// Counters.
    pub stats: SenderStats,
}

impl Sender {
    /// A sender for `flow` whose segments go to `dst_node`.
    pub fn new(flow: u32, dst_node: u32, cfg: &TcpConfig) -> Self {
        Sender {
            flow,
            dst_node,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_limit: 0,
            cwnd_pkts: f64::from(cfg.initial_cwnd_pkts),
            ssthresh_pkts: f64::INFINITY,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            ecn_recover: 0,
            cwr_pending: false,
            rtt: RttEstimator::new(cfg),
            sent: VecDeque::new(),
            rto_deadline_ns: None,
            cc: CongestionControl::new(cfg),
            stats: SenderStats::default(),
        }
    }

    /// The application starts offering unlimited data.
    pub fn start(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.app_limit = u32::MAX;
        self.try_send(now_ns, cfg, out);
    }

    /// The application stops offering new data; what was sent is still delivered reliably.
    pub fn stop(&mut self) {
        self.app_limit = self.snd_max;
    }

    /// Congestion window, segments.
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd_pkts
    }

    /// Slow-start threshold, segments (infinite before the first loss).
    pub fn ssthresh_pkts(&self) -> f64 {
        self.ssthresh_pkts
    }

    /// When the retransmission timer expires, if it runs.
    pub fn rto_deadline_ns(&self) -> Option<u64> {
        self.rto_deadline_ns
    }

    /// The retransmission timeout in force, back-off included, seconds.
    pub fn rto_s(&self) -> f64 {
        self.rtt.rto_s()
    }

    fn arm_timer(&mut self, now_ns: u64) {
        self.rto_deadline_ns = Some(now_ns + s_to_ns(self.rtt.rto_s()));
    }

    /// Put segment `seq` on the wire.
    fn transmit(&mut self, seq: u32, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.rtt.on_transmit(seq, seq >= self.snd_max, now_ns);
        if seq < self.snd_max {
            let rec = &mut self.sent[(seq - self.snd_una) as usize];
            rec.retransmitted = true;
            rec.sent_ns = now_ns;
            self.stats.retransmits += 1;
        } else {
            self.sent.push_back(SentRecord {
                sent_ns: now_ns,
                retransmitted: false,
            });
            self.snd_max = seq + 1;
        }
        let mut f = if cfg.ecn { flags::ECT } else { 0 };
        if self.cwr_pending {
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        out.push(Packet {
            flow: self.flow,
            seq,
            dst: self.dst_node,
            size_bytes: cfg.packet_bytes,
            sent_ns: now_ns,
            flags: f,
        });
        self.stats.data_sent += 1;
        if self.rto_deadline_ns.is_none() {
            self.arm_timer(now_ns);
        }
    }

    /// Send what the window (min of cwnd and the receiver's window) allows, at most
    /// `max_burst_pkts` segments when that is not 0 (ns-2's maxburst_).
    fn try_send(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let window = (self.cwnd_pkts.max(1.0) as u32).min(cfg.rwnd_pkts);
        let mut burst = 0;
        while self.snd_nxt < self.app_limit
            && self.snd_nxt - self.snd_una < window
            && (cfg.max_burst_pkts == 0 || burst < cfg.max_burst_pkts)
        {
            self.transmit(self.snd_nxt, now_ns, cfg, out);
            self.snd_nxt += 1;
            burst += 1;
        }
    }

    /// React to an acknowledgement.
    pub fn on_ack(&mut self, ack: &Packet, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let ackno = ack.seq;
        if ackno > self.snd_max {
            return;
        }
        if cfg.ecn && ack.has(flags::ECE) && ackno > self.ecn_recover && !self.in_recovery {
            // RFC 3168 §6.1.2: reduce as for a loss, at most once per window of data.
            let flight = self.snd_max - self.snd_una;
            self.ssthresh_pkts = self.cc.ssthresh_after_congestion(self.cwnd_pkts, flight);
            self.cwnd_pkts = self.ssthresh_pkts;
            self.ecn_recover = self.snd_max;
            self.cwr_pending = true;
            self.stats.ecn_reductions += 1;
        }
        if ackno > self.snd_una {
            self.on_new_ack(ackno, now_ns, cfg, out);
        } else if ackno == self.snd_una && self.snd_una < self.snd_max {
            self.on_duplicate_ack(ackno, now_ns, cfg, out);
        }
        self.try_send(now_ns, cfg, out);
    }

    fn on_new_ack(&mut self, ackno: u32, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let acked = ackno - self.snd_una;
        let newest = self.sent[(acked - 1) as usize];
        // Karn's rule: only segments sent once give an RTT sample.
        let karn_sample_s = (!newest.retransmitted).then(|| ns_to_s(now_ns - newest.sent_ns));
        if self.rtt.on_new_ack(ackno, now_ns, karn_sample_s) {
            self.stats.rtt_samples += 1;
        }
        self.sent.drain(..acked as usize);
        self.snd_una = ackno;
        self.snd_nxt = self.snd_nxt.max(ackno);
        if self.in_recovery {
            if cfg.recovery == RecoveryKind::Reno || self.recover.is_some_and(|r| ackno >= r) {
                // Classic Reno leaves fast recovery on the first ACK of new data, deflating the
                // window to ssthresh (RFC 5681 §3.2 step 6, as ns-2's Agent/TCP/Reno does);
                // NewReno on a full acknowledgement (RFC 6582 §3.2 step 3, option 2).
                self.in_recovery = false;
                self.dupacks = 0;
                self.cwnd_pkts = self.ssthresh_pkts;
            } else {
                // Partial acknowledgement: retransmit the next hole and deflate the window by
                // the amount acknowledged, less one segment (RFC 6582 §3.2 step 4).
                self.transmit(self.snd_una, now_ns, cfg, out);
                self.cwnd_pkts = (self.cwnd_pkts - f64::from(acked) + 1.0).max(1.0);
            }
        } else {
            self.dupacks = 0;
            if self.cwnd_pkts < self.ssthresh_pkts {
                // Slow start: one segment per segment acknowledged.
                self.cwnd_pkts += f64::from(acked);
            } else {
                let rtt_s = self.rtt.srtt_s().unwrap_or(0.0);
                self.cwnd_pkts =
                    self.cc
                        .on_ack_avoidance(self.cwnd_pkts, acked, ns_to_s(now_ns), rtt_s);
            }
        }
        // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, else restart it.
        if self.snd_una == self.snd_max {
            self.rto_deadline_ns = None;
        } else {
            self.arm_timer(now_ns);
        }
    }

    fn on_duplicate_ack(
        &mut self,
        ackno: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        self.dupacks += 1;
        if self.in_recovery {
            // Window inflation by one segment per duplicate (RFC 5681 §3.2 step 4).
            self.cwnd_pkts += 1.0;
        } else if self.dupacks == cfg.dupack_threshold && self.recover.is_none_or(|r| ackno > r) {
            // Fast retransmit and entry into fast recovery (RFC 6582 §3.2 steps 1–2). Only
            // duplicates above `recover` start an episode, for Reno too (as ns-2's Reno with its
            // default bug_fix_): a second loss in a window Reno left early waits for the timer.
            self.stats.fast_recoveries += 1;
            let flight = self.snd_max - self.snd_una;
            self.ssthresh_pkts = self.cc.ssthresh_after_congestion(self.cwnd_pkts, flight);
            self.recover = Some(self.snd_max);
            self.in_recovery = true;
            self.transmit(self.snd_una, now_ns, cfg, out);
            self.cwnd_pkts = self.ssthresh_pkts + f64::from(cfg.dupack_threshold);
        }
    }

    /// The retransmission timer fired at `now_ns` (stale calls are ignored).
    pub fn on_rto(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        match self.rto_deadline_ns {
            Some(deadline) if deadline <= now_ns => {}
            _ => return,
        }
        self.rto_deadline_ns = None;
        if self.snd_una == self.snd_max {
            return;
        }
        // RFC 5681 eq. (4) and §3.1: ssthresh from the flight size, cwnd to one segment;
        // RFC 6298 (5.5): back off; go back to the oldest unacknowledged segment.
        self.stats.timeouts += 1;
        let flight = self.snd_max - self.snd_una;
        self.ssthresh_pkts = self.cc.ssthresh_after_congestion(self.cwnd_pkts, flight);
        self.cwnd_pkts = 1.0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        self.rtt.back_off();
        self.snd_nxt = self.snd_una;
        self.try_send(now_ns, cfg, out);
    }
}
