//! Loss recovery with SACK: RFC 6675 as ns-3.37's TcpSocketBase runs it. Every ACK updates the
//! scoreboard; an ACK that SACKs new data counts as a duplicate; the third one, or a lost
//! segment per IsLost, starts recovery (ssthresh from congestion control, RecoveryPoint = HighData,
//! the first lost segment resent at once); during recovery PRR (RFC 6937) or the classic rule
//! (cwnd = ssthresh) sets the window and segments go out while cwnd − pipe allows, chosen by
//! NextSeg. A partial ACK resends the next lost segment at once. After a timeout every unSACKed
//! segment is marked lost and resent in slow start; SACKed ones are not resent.

use super::cc::{CongEvent, Controller};
use super::config::TcpConfig;
use super::prr::Prr;
use super::scoreboard::NextSegment;
use super::sender::{CongState, Sender};
use crate::packet::{flags, Packet};
use crate::time::ns_to_s;

impl Sender {
    /// Send while min(cwnd, rwnd) − pipe leaves room for a segment (RFC 6675 step (C)). In
    /// Disorder without limited transmit the SACKed segments give no room, so the window counts
    /// everything outstanding.
    pub(super) fn send_by_pipe(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let window = self.cwnd_pkts.min(f64::from(cfg.rwnd_pkts));
        let mut burst = 0;
        loop {
            let in_flight = if self.state == CongState::Disorder && !cfg.limited_transmit {
                self.board.outstanding()
            } else {
                self.board.pipe()
            };
            if window - f64::from(in_flight) < 1.0 - 1e-9
                || (cfg.max_burst_pkts != 0 && burst >= cfg.max_burst_pkts)
            {
                break;
            }
            if !self.pacing_allows(now_ns, cfg) {
                break;
            }
            self.on_send_from_idle(now_ns, cfg);
            if !self.send_next_segment(self.state == CongState::Recovery, now_ns, cfg, out) {
                break;
            }
            burst += 1;
        }
        self.check_app_limited();
    }

    /// Send what NextSeg picks; false when it picks nothing.
    fn send_next_segment(
        &mut self,
        rule3: bool,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) -> bool {
        let high = self.board.high();
        let pending = high < self.app_limit;
        let allowed = self.board.outstanding() < cfg.rwnd_pkts;
        match self.board.next_segment(pending, allowed, rule3) {
            NextSegment::Retransmit(seq) => self.transmit(seq, now_ns, cfg, out),
            NextSegment::New => self.transmit(high, now_ns, cfg, out),
            NextSegment::Nothing => return false,
        }
        true
    }

    /// ns-3's DoRetransmit: send what NextSeg picks regardless of the window, or the head
    /// segment again when it picks nothing.
    fn retransmit_now(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if !self.send_next_segment(false, now_ns, cfg, out) {
            let una = self.board.una();
            self.transmit(una, now_ns, cfg, out);
        }
    }

    /// cwnd during recovery or CWR, after an ACK that delivered `delivered` segments: PRR, or
    /// ssthresh with the classic rule.
    /// A rate-based congestion control sets the window itself (ns-3 skips the recovery
    /// algorithm when HasCongControl).
    fn recovery_window(&mut self, delivered: u32, retransmission_acked: bool, cfg: &TcpConfig) {
        if self.rate_based {
            return;
        }
        if !Self::uses_prr(cfg) {
            self.cwnd_pkts = self.ssthresh_pkts;
            return;
        }
        let mss = Self::segment_bytes(cfg);
        let cwnd_bytes = self.prr.on_ack(
            u64::from(delivered) * mss,
            u64::from(self.board.pipe()) * mss,
            (self.ssthresh_pkts * mss as f64) as u64,
            retransmission_acked,
            mss,
        );
        self.cwnd_pkts = cwnd_bytes as f64 / mss as f64;
    }

    /// An acknowledgement on the SACK path (ns-3's ReceivedAck and ProcessAck).
    pub(super) fn on_ack_sack(
        &mut self,
        ack: &Packet,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let ackno = ack.seq;
        let old_una = self.board.una();
        let before = self.before_ack();
        let newly_sacked = self.board.apply_sack(ack.sack_blocks());
        self.rate_on_sack(ack, now_ns);
        if ackno < old_una {
            return;
        }
        self.process_ack_sack(ack, old_una, newly_sacked, now_ns, cfg, out);
        self.after_ack(before, now_ns, cfg);
    }

    /// ns-3's ProcessAck on the SACK path, after the scoreboard took the SACK blocks.
    fn process_ack_sack(
        &mut self,
        ack: &Packet,
        old_una: u32,
        newly_sacked: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let ackno = ack.seq;
        let sample_s = if ackno > old_una {
            self.sample_rtt(ack, ackno, now_ns, false, cfg)
        } else {
            None
        };
        let newest_sent =
            (self.wants_newest_rtt && ackno > old_una).then(|| self.board.sent_record(ackno - 1));
        let acked = if ackno > old_una {
            self.board.acknowledge(ackno)
        } else {
            Default::default()
        };
        if self.wants_newest_rtt {
            self.ack_newest_rtt_s = newest_sent
                .filter(|&(_, resent)| !resent && !acked.retransmission_acked)
                .map(|(sent_ns, _)| ns_to_s(now_ns - sent_ns));
        }
        self.rate_on_cumulative_ack(ackno, now_ns);
        let delivered = acked.newly_delivered + newly_sacked;
        if self.state == CongState::Cwr && ackno > self.recover {
            self.set_state(CongState::Open);
            if !self.rate_based {
                self.cwnd_pkts = self.ssthresh_pkts;
            }
        }
        if cfg.ecn && ackno > old_una && ack.has(flags::ECE) && self.ecn_recover < ackno {
            self.ecn_recover = ackno;
            if matches!(self.state, CongState::Open | CongState::Disorder) {
                self.enter_cwr(delivered, now_ns, cfg);
            }
        }
        let is_dup = newly_sacked > 0;
        let old_dupacks = self.dupacks;
        if is_dup {
            self.duplicate_ack(delivered, now_ns, cfg, out);
        }
        if ackno == old_una {
            if ackno < self.board.high() {
                // A duplicate: one segment has left the network.
                let info = self.acked_info(1, None, now_ns);
                self.pkts_acked(&info);
            }
            return;
        }
        let segs = acked.segments;
        if !is_dup {
            self.dupacks = 0;
        }
        self.on_progress(cfg);
        match self.state {
            CongState::Recovery if ackno < self.recover => {
                // Partial ACK (RFC 6675 (B)): set the window, resend the next lost segment at
                // once unless the new head was already resent.
                if segs >= 1 {
                    self.recovery_window(delivered, acked.retransmission_acked, cfg);
                }
                if !self.board.is_retransmitted(ackno) || self.board.is_sacked(ackno) {
                    self.retransmit_now(now_ns, cfg, out);
                }
                let info = self.acked_info(1, sample_s, now_ns);
                self.pkts_acked(&info);
                let first = std::mem::replace(&mut self.first_partial_ack, false);
                self.new_ack(first, now_ns);
            }
            CongState::Loss if ackno < self.recover => {
                let info = self.acked_info(segs, sample_s, now_ns);
                self.pkts_acked(&info);
                self.grow_window(&info);
                self.new_ack(true, now_ns);
            }
            CongState::Cwr => {
                let info = self.acked_info(segs, sample_s, now_ns);
                self.pkts_acked(&info);
                self.recovery_window(delivered, acked.retransmission_acked, cfg);
                self.new_ack(true, now_ns);
            }
            state => {
                let mut segs = segs;
                match state {
                    CongState::Open => {
                        let info = self.acked_info(segs, sample_s, now_ns);
                        self.pkts_acked(&info);
                    }
                    CongState::Disorder => {
                        if segs >= old_dupacks {
                            let info = self.acked_info(segs - old_dupacks, sample_s, now_ns);
                            self.pkts_acked(&info);
                        }
                        if !is_dup {
                            self.set_state(CongState::Open);
                        }
                    }
                    CongState::Recovery => {
                        // RFC 6675 (A): RecoveryPoint acknowledged, recovery ends with
                        // cwnd = ssthresh.
                        self.first_partial_ack = true;
                        let info = self.acked_info(segs, sample_s, now_ns);
                        self.pkts_acked(&info);
                        if self.rate_based {
                            self.cc_event(CongEvent::CompleteCwr, now_ns, cfg);
                        }
                        self.set_state(CongState::Open);
                        self.dupacks = 0;
                        self.cwnd_pkts = self.ssthresh_pkts;
                    }
                    _ => {
                        // Loss ends when RecoveryPoint is acknowledged; only the segments
                        // above it count for window growth (ns-3).
                        self.first_partial_ack = true;
                        segs = ackno - self.recover;
                        let info = self.acked_info(segs, sample_s, now_ns);
                        self.pkts_acked(&info);
                        self.set_state(CongState::Open);
                    }
                }
                if ackno >= self.recover {
                    self.recover_active = false;
                }
                if self.state == CongState::Open {
                    let info = self.acked_info(segs, sample_s, now_ns);
                    self.grow_window(&info);
                }
                self.new_ack(true, now_ns);
            }
        }
    }

    /// An ACK that SACKed new data (RFC 6675 §5, ns-3's DupAck).
    fn duplicate_ack(
        &mut self,
        delivered: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        match self.state {
            CongState::Loss => {}
            CongState::Recovery => self.recovery_window(delivered, false, cfg),
            _ => {
                self.dupacks += 1;
                if self.state == CongState::Open {
                    self.set_state(CongState::Disorder);
                }
                let una = self.board.una();
                let may_start = una >= self.recover || !self.recover_active;
                if (self.dupacks == cfg.dupack_threshold && may_start)
                    || self.board.is_lost(una + 1)
                {
                    self.enter_recovery(delivered, now_ns, cfg, out);
                }
            }
        }
    }

    /// RFC 6675 step (4): fast retransmit and the entry into recovery.
    fn enter_recovery(
        &mut self,
        delivered: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let una = self.board.una();
        if !self.board.is_lost(una) {
            self.board.mark_head_lost();
        }
        self.recover = self.board.high();
        self.recover_active = true;
        self.set_state(CongState::Recovery);
        self.stats.fast_recoveries += 1;
        if self.rate_based {
            self.cc_event(
                CongEvent::EnterRecovery {
                    delivered_pkts: delivered,
                },
                now_ns,
                cfg,
            );
        }
        let pipe = self.board.pipe();
        self.ssthresh_pkts = self.cc.ssthresh_after_loss(self.cwnd_pkts, pipe);
        self.prr = Prr::enter(u64::from(self.board.outstanding()) * Self::segment_bytes(cfg));
        self.recovery_window(delivered, false, cfg);
        self.retransmit_now(now_ns, cfg, out);
        if cfg.fast_retransmit_restarts_timer {
            self.arm_timer(now_ns);
        }
    }

    /// RFC 3168 §6.1.2 with ns-3's CWR state: ssthresh from congestion control, the window
    /// brought down to it by PRR (or at once) until `recover` is acknowledged.
    fn enter_cwr(&mut self, delivered: u32, now_ns: u64, cfg: &TcpConfig) {
        let pipe = self.board.pipe();
        self.ssthresh_pkts = self.cc.ssthresh_after_congestion(self.cwnd_pkts, pipe);
        self.recover = self.board.high();
        self.set_state(CongState::Cwr);
        if self.rate_based {
            self.cc_event(CongEvent::EnterCwr, now_ns, cfg);
        }
        self.prr = Prr::enter(u64::from(self.board.outstanding()) * Self::segment_bytes(cfg));
        self.recovery_window(delivered, false, cfg);
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// ns-3's NewAck: when `restart` the retransmission timer restarts with the RTO recomputed
    /// from the estimator, which ends any back-off; it stops when nothing is outstanding.
    fn new_ack(&mut self, restart: bool, now_ns: u64) {
        if self.board.outstanding() == 0 && self.board.high() >= self.app_limit {
            self.rto_deadline_ns = None;
        } else if restart {
            self.rtt.clear_backoff();
            self.arm_timer(now_ns);
        }
    }

    /// A retransmission timeout on the SACK path (ns-3's ReTxTimeout): every unSACKed segment
    /// is lost, RecoveryPoint = HighData, the RTO doubles, ssthresh is reduced unless the head
    /// was already resent by this timer, cwnd = 1 segment, and sending resumes from the first
    /// lost segment.
    pub(super) fn on_timeout_sack(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let una = self.board.una();
        let head_resent = self.board.is_retransmitted(una);
        let pipe_before = self.board.pipe();
        self.dupacks = 0;
        self.board.on_timeout();
        self.recover = self.board.high();
        self.recover_active = true;
        self.rtt.back_off();
        if self.state != CongState::Loss || !head_resent {
            self.ssthresh_pkts = self.cc.ssthresh_after_loss(self.cwnd_pkts, pipe_before);
        }
        self.cc.on_timeout();
        if self.rate_based {
            self.cc_event(CongEvent::EnterLoss, now_ns, cfg);
        }
        self.set_state(CongState::Loss);
        self.cwnd_pkts = 1.0;
        self.try_send(now_ns, cfg, out);
    }
}
