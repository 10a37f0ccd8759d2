//! Loss recovery from cumulative ACKs alone (no SACK): fast retransmit with NewReno
//! (RFC 6582) or classic Reno (RFC 5681 §3.2) fast recovery, window inflation, limited transmit
//! (RFC 3042), the ECN response (RFC 3168 §6.1.2, or ns-2's) sharing `recover` with loss
//! recovery, and go-back-N after a timeout, since the sender cannot know what the receiver
//! holds. ns-2's `Agent/TCP/Reno` and `Agent/TCP/Newreno` recover this way.

use super::cc::Controller;
use super::config::{EcnResponse, RecoveryExit, RecoveryKind, TcpConfig, WindowReduction};
use super::sender::{CongState, Sender};
use crate::packet::{flags, Packet};

impl Sender {
    /// Send what the window (min of cwnd and the receiver's window) allows, from `snd_nxt`;
    /// limited transmit lets one segment more out for each of the first two duplicate ACKs;
    /// at most `max_burst_pkts` segments when that is not 0 (ns-2's maxburst_).
    pub(super) fn send_cumulative(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let limited = if cfg.limited_transmit && self.state != CongState::Recovery {
            self.dupacks.min(2)
        } else {
            0
        };
        // ns-2 lets an ECN cut take cwnd below one segment, and then sends nothing.
        let cwnd = match cfg.ecn_response {
            EcnResponse::Ns2 => self.cwnd_pkts,
            EcnResponse::Rfc3168 => self.cwnd_pkts.max(1.0),
        };
        let window = (cwnd as u32 + limited).min(cfg.rwnd_pkts);
        let mut burst = 0;
        while self.snd_nxt < self.app_limit
            && self.snd_nxt - self.board.una() < window
            && (cfg.max_burst_pkts == 0 || burst < cfg.max_burst_pkts)
        {
            self.transmit(self.snd_nxt, now_ns, cfg, out);
            self.snd_nxt += 1;
            burst += 1;
        }
    }

    /// An acknowledgement on the cumulative-ACK path.
    pub(super) fn on_ack_cumulative(
        &mut self,
        ack: &Packet,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let ackno = ack.seq;
        self.on_ecn_echo_cumulative(ack, cfg);
        if ackno > self.board.una() {
            self.on_new_ack_cumulative(ack, now_ns, cfg, out);
        } else if ackno == self.board.una() && self.board.outstanding() > 0 {
            self.on_duplicate_ack_cumulative(ackno, now_ns, cfg, out);
        }
    }

    /// The ECN response of a sender without RFC 6675 recovery (this path and ns-2's Sack1).
    /// RFC 3168 §6.1.2: reduce as for a loss, at most once per window of data, and not within
    /// the window of a reduction for loss either: one `recover` guards both, as ns-2's
    /// recover_ does.
    pub(super) fn on_ecn_echo_cumulative(&mut self, ack: &Packet, cfg: &TcpConfig) {
        if !(cfg.ecn
            && ack.has(flags::ECE)
            && self.state != CongState::Recovery
            && self.may_cut(ack.seq))
        {
            return;
        }
        if cfg.ecn_response == EcnResponse::Ns2 {
            // ns-2's ecn(): a second echo in a row at cwnd <= 1 backs off the timer.
            if self.cwnd_pkts <= 1.0 {
                if self.ecn_backoff {
                    self.rtt.back_off();
                }
                self.ecn_backoff = true;
            } else {
                self.ecn_backoff = false;
            }
        }
        let base = self.cut_window(false, cfg);
        self.cwnd_pkts = base;
        self.recover = self.board.high();
        self.recover_active = true;
        self.last_cut_ecn = true;
        self.stats.ecn_reductions += 1;
    }

    pub(super) fn on_new_ack_cumulative(
        &mut self,
        ack: &Packet,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let ackno = ack.seq;
        let echo = ack.has(flags::ECE);
        // ns-2 grows no window on an ACK that carries an ECN echo (recv_newack_helper), and
        // keeps the timer's back-off while echoes hold cwnd at one segment (newack,
        // ecn_backoff_, which only the ns-2 response sets).
        let may_grow = !(cfg.ecn_response == EcnResponse::Ns2 && echo);
        let keep_backoff = self.ecn_backoff && echo;
        if !echo {
            self.ecn_backoff = false;
        }
        let partial = self.state == CongState::Recovery
            && cfg.recovery != RecoveryKind::Reno
            && ackno < self.recover;
        let sample_s = if partial {
            self.sample_partial_ack(ack, ackno, now_ns, cfg)
        } else {
            self.sample_rtt(ack, ackno, now_ns, keep_backoff, cfg)
        };
        let acked = self.board.acknowledge(ackno).segments;
        self.on_progress(cfg);
        self.snd_nxt = self.snd_nxt.max(ackno);
        // RFC 6298 (5.3) restarts the timer on every ACK of new data, but RFC 6582 §3.2 step 4
        // (and ns-2's newreno_changes1_) only on the first partial ACK of an episode, so that
        // many holes end in a timeout rather than one repair per RTT.
        let mut restart_timer = true;
        if self.state == CongState::Recovery {
            if !partial {
                // Classic Reno leaves fast recovery on the first ACK of new data, deflating the
                // window to ssthresh (RFC 5681 §3.2 step 6, as ns-2's Agent/TCP/Reno does);
                // NewReno on a full acknowledgement, at the window reduced at the entry
                // (RFC 6582 §3.2 step 3, option 2) or what partial ACKs left of it.
                self.set_state(CongState::Open);
                self.dupacks = 0;
                self.cwnd_pkts = self.recovery_cwnd_pkts;
                if may_grow && self.cc.grows_on_recovery_exit() {
                    // ns-2 opens the window on every ACK of new data, this one included.
                    let info = self.acked_info(acked, sample_s, now_ns);
                    self.grow_window(&info);
                }
            } else {
                // Partial acknowledgement: retransmit the next hole and deflate the window.
                restart_timer = std::mem::replace(&mut self.first_partial_ack, false);
                self.transmit(ackno, now_ns, cfg, out);
                self.deflate_on_partial_ack(acked, cfg);
            }
        } else {
            self.set_state(CongState::Open);
            self.dupacks = 0;
            let info = self.acked_info(acked, sample_s, now_ns);
            self.pkts_acked(&info);
            if may_grow {
                self.grow_window(&info);
            }
        }
        // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, else restart it; ns-2
        // also runs it while cwnd is below one segment, the only way out of that state.
        if self.board.outstanding() > 0 || self.cwnd_pkts < 1.0 {
            if restart_timer {
                self.arm_timer(now_ns);
            }
        } else {
            self.rto_deadline_ns = None;
        }
    }

    /// A partial acknowledgement of `acked` segments: the window shrinks by the amount
    /// acknowledged, less one segment (RFC 6582 §3.2 step 4). With `recovery_exit =
    /// "deflated"` the inflation pays first and, once it is used up, the window recovery will
    /// return to (ns-2's dupwnd_, then cwnd_, leaving dupwnd_ = 1).
    fn deflate_on_partial_ack(&mut self, acked: u32, cfg: &TcpConfig) {
        let acked = f64::from(acked);
        let inflation = self.cwnd_pkts - self.recovery_cwnd_pkts;
        if cfg.recovery_exit == RecoveryExit::Deflated && inflation <= acked {
            self.recovery_cwnd_pkts = (self.recovery_cwnd_pkts - (acked - inflation)).max(1.0);
            self.cwnd_pkts = self.recovery_cwnd_pkts + 1.0;
        } else {
            self.cwnd_pkts = (self.cwnd_pkts - acked + 1.0).max(1.0);
        }
    }

    fn on_duplicate_ack_cumulative(
        &mut self,
        ackno: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        self.dupacks += 1;
        if self.state == CongState::Recovery {
            // Window inflation by one segment per duplicate (RFC 5681 §3.2 step 4).
            self.cwnd_pkts += 1.0;
        } else if self.dupacks == cfg.dupack_threshold && self.may_cut(ackno) {
            // Fast retransmit and entry into fast recovery (RFC 6582 §3.2 steps 1–2). Only
            // duplicates above `recover` start an episode, for Reno too (as ns-2's Reno with its
            // default bug_fix_): a second loss in a window Reno left early waits for the timer.
            let base = self.cut_window(true, cfg);
            self.recover = self.board.high();
            self.recover_active = true;
            self.fast_retransmit(base, ackno, now_ns, cfg, out);
        } else if self.dupacks == cfg.dupack_threshold && self.last_cut_ecn {
            // A loss in the window an ECN echo has already cut: retransmit and recover without
            // a second cut (RFC 3168 §6.1.2; ns-2's dupack_action after CWND_ACTION_ECN).
            self.fast_retransmit(self.cwnd_pkts, ackno, now_ns, cfg, out);
        } else {
            self.set_state(CongState::Disorder);
        }
    }

    /// Whether a congestion signal carried by an ACK of `ackno` may cut the window: no episode
    /// guards, or the ACK covers its `recover` (RFC 6582 §3.2 step 1, RFC 3168 §6.1.2).
    pub(super) fn may_cut(&self, ackno: u32) -> bool {
        !self.recover_active || ackno > self.recover
    }

    /// Reduce ssthresh for a congestion event and return the window to continue from, before
    /// any inflation. ns-2 halves its window capped by the receiver's (windowd()). An ECN
    /// sender flags the next data packet CWR after a cut for any reason (RFC 3168 §6.1.2), so
    /// the receiver stops echoing a CE the cut already answered. `loss`: a loss, not an ECN
    /// echo, caused the cut.
    pub(super) fn cut_window(&mut self, loss: bool, cfg: &TcpConfig) -> f64 {
        self.cwr_pending = cfg.ecn;
        let cwnd = match cfg.window_reduction {
            WindowReduction::Cwnd => self.cwnd_pkts.min(f64::from(cfg.rwnd_pkts)),
            WindowReduction::Flight => self.cwnd_pkts,
        };
        let flight = self.board.outstanding();
        self.ssthresh_pkts = if loss {
            self.cc.ssthresh_after_loss(cwnd, flight)
        } else {
            self.cc.ssthresh_after_congestion(cwnd, flight)
        };
        self.cc.cwnd_after_congestion(cwnd, self.ssthresh_pkts)
    }

    /// Resend the oldest segment and enter fast recovery from the window `base_pkts`,
    /// inflated by the duplicates seen (RFC 5681 §3.2 steps 2–3); the timer restarts when the
    /// configuration says so (ns-2's reset_rtx_timer).
    fn fast_retransmit(
        &mut self,
        base_pkts: f64,
        ackno: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        self.stats.fast_recoveries += 1;
        self.last_cut_ecn = false;
        self.first_partial_ack = true;
        self.set_state(CongState::Recovery);
        self.recovery_cwnd_pkts = base_pkts;
        self.transmit(ackno, now_ns, cfg, out);
        if cfg.fast_retransmit_restarts_timer {
            self.arm_timer(now_ns);
        }
        self.cwnd_pkts = base_pkts + f64::from(cfg.dupack_threshold);
    }

    /// The timer fired with nothing outstanding and cwnd below one segment (ns-2 after an
    /// echo at cwnd <= 1): cwnd = 1, without a cut or a back-off (ns-2's timeout with
    /// restart_bugfix_), and one segment goes out.
    pub(super) fn on_window_stall_timeout(
        &mut self,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        self.cwnd_pkts = 1.0;
        self.recover = self.board.high();
        self.recover_active = true;
        self.last_cut_ecn = false;
        self.arm_timer(now_ns);
        self.try_send(now_ns, cfg, out);
    }

    /// A retransmission timeout on the cumulative-ACK path: RFC 5681 eq. (4) and §3.1
    /// (ssthresh reduced, cwnd one segment), RFC 6298 (5.5) back-off, and back to the oldest
    /// unacknowledged segment. In fast recovery the window reduced is the one before
    /// inflation (ns-2 clears dupwnd_ first); within the window of an ECN cut ssthresh stays
    /// (ns-2's timeout after CWND_ACTION_ECN).
    pub(super) fn on_timeout_cumulative(
        &mut self,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        if self.state == CongState::Recovery {
            self.cwnd_pkts = self.recovery_cwnd_pkts;
        }
        if !(self.last_cut_ecn && self.recover_active && self.board.una() < self.recover) {
            self.cut_window(true, cfg);
        }
        self.last_cut_ecn = false;
        self.cc.on_timeout();
        self.cwnd_pkts = 1.0;
        // Without a loss state here (ns-2), congestion control sees one begin and end at once.
        self.set_state(CongState::Loss);
        self.set_state(CongState::Open);
        self.dupacks = 0;
        self.recover = self.board.high();
        self.recover_active = true;
        self.rtt.back_off();
        self.snd_nxt = self.board.una();
        self.try_send(now_ns, cfg, out);
    }
}
