//! ns-2.35's `Agent/TCP/Sack1`: the SACK recovery of Fall & Floyd, "Simulation-based
//! Comparisons of Tahoe, Reno, and SACK TCP" (CCR 1996), as ns-2 runs it with its default
//! settings (partial_ack_ false, LimTransmitFix_ false, its reassembly-queue scoreboard).
//!
//! Outside recovery the sender behaves as Reno on cumulative ACKs, except that a duplicate ACK
//! counts only when its SACK blocks tell something new, and every ACK of new data forgets the
//! SACK information. The third counted duplicate halves the window (ns-2's slowdown), resends
//! the head, and sets `pipe` = outstanding − 3. During recovery every ACK takes one from
//! `pipe`, a partial ACK one more (it restarts the timer and ends the back-off), and segments
//! go out while `pipe` < cwnd, `pipe` counting one up for each: first the holes below the
//! highest SACKed segment, each at most once per episode, then new data within the receiver's
//! window. The ACK that covers `recover` ends recovery with the halved window, without growth.
//! A timeout forgets the SACK information and goes back to the oldest unacknowledged segment,
//! as Reno's does, and duplicates are ignored until the next ACK of new data.

use super::config::TcpConfig;
use super::sender::{CongState, Sender};
use crate::packet::Packet;

impl Sender {
    /// Send what the window allows: outside recovery as on the cumulative-ACK path, during
    /// recovery while `pipe` < cwnd (Sack1's send_much).
    pub(super) fn send_sack1(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if self.state != CongState::Recovery {
            self.send_cumulative(now_ns, cfg, out);
            return;
        }
        let mut burst = 0;
        while self.sack1.pipe_pkts < self.cwnd_pkts as i64
            && (cfg.max_burst_pkts == 0 || burst < cfg.max_burst_pkts)
        {
            let una = self.board.una();
            let hole = self.board.next_hole(self.sack1.retransmit_from.max(una));
            let seq = match hole {
                Some(seq) if seq < una + cfg.rwnd_pkts => {
                    self.sack1.retransmit_from = seq + 1;
                    seq
                }
                Some(_) => break,
                None if self.snd_nxt < self.app_limit && self.snd_nxt < una + cfg.rwnd_pkts => {
                    self.snd_nxt += 1;
                    self.snd_nxt - 1
                }
                None => break,
            };
            self.transmit(seq, now_ns, cfg, out);
            self.sack1.pipe_pkts += 1;
            burst += 1;
        }
    }

    /// An acknowledgement on the Sack1 path (Sack1TcpAgent::recv).
    pub(super) fn on_ack_sack1(
        &mut self,
        ack: &Packet,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let ackno = ack.seq;
        self.on_ecn_echo_cumulative(ack, cfg);
        let una = self.board.una();
        if ackno < una {
            return;
        }
        if self.state != CongState::Recovery {
            if ackno > una {
                // newack and opencwnd, as Reno; then the SACK information is forgotten.
                self.on_new_ack_cumulative(ack, now_ns, cfg, out);
                self.board.forget_sacks();
                self.sack1.after_timeout = false;
            } else if !self.sack1.after_timeout
                && self.board.outstanding() > 0
                && self.board.apply_sack(ack.sack_blocks()) > 0
            {
                self.dupacks += 1;
                if self.dupacks == cfg.dupack_threshold {
                    self.on_third_duplicate_sack1(ackno, now_ns, cfg, out);
                } else if self.dupacks < cfg.dupack_threshold {
                    self.set_state(CongState::Disorder);
                }
            }
            return;
        }
        self.sack1.pipe_pkts -= 1;
        if ackno >= self.recover {
            // Recovery ends at the halved window, which this ACK does not grow (newack only).
            // After an ECN cut `recover` can be the head itself, reached by a duplicate.
            if ackno > una {
                self.sample_rtt(ack, ackno, now_ns, false, cfg);
                self.acknowledge_sack1(ackno, cfg);
            }
            self.set_state(CongState::Open);
            self.recover_active = false;
            self.dupacks = 0;
            self.board.forget_sacks();
            if self.board.outstanding() > 0 {
                self.arm_timer(now_ns);
            } else {
                self.rto_deadline_ns = None;
            }
        } else if ackno > una {
            // A partial ACK: the retransmission has left the network too. The timer restarts
            // and its back-off ends, without an RTT sample.
            self.acknowledge_sack1(ackno, cfg);
            self.board.apply_sack(ack.sack_blocks());
            self.sack1.pipe_pkts -= 1;
            self.rtt.clear_backoff();
            self.arm_timer(now_ns);
        } else if !self.sack1.after_timeout {
            self.board.apply_sack(ack.sack_blocks());
        }
    }

    fn acknowledge_sack1(&mut self, ackno: u32, cfg: &TcpConfig) {
        self.board.acknowledge(ackno);
        self.on_progress(cfg);
        self.snd_nxt = self.snd_nxt.max(ackno);
    }

    /// The third duplicate that brought new SACK information (Sack1's dupack_action): a fast
    /// retransmit with the window halved, when no earlier episode's `recover` guards against
    /// it; after an ECN cut in the same window, the retransmission without a second cut.
    fn on_third_duplicate_sack1(
        &mut self,
        ackno: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        if self.may_cut(ackno) {
            self.cwnd_pkts = self.cut_window(true, cfg);
            self.recover = self.board.high();
            self.recover_active = true;
        } else if !self.last_cut_ecn {
            return;
        }
        self.stats.fast_recoveries += 1;
        self.last_cut_ecn = false;
        self.set_state(CongState::Recovery);
        self.recovery_cwnd_pkts = self.cwnd_pkts;
        // The duplicates say that `dupack_threshold` segments have left the network.
        self.sack1.pipe_pkts =
            i64::from(self.board.outstanding()) - i64::from(cfg.dupack_threshold);
        self.sack1.retransmit_from = ackno + 1;
        self.transmit(ackno, now_ns, cfg, out);
        if cfg.fast_retransmit_restarts_timer {
            self.arm_timer(now_ns);
        }
    }

    /// A retransmission timeout: Reno's (go-back-N from the oldest unacknowledged segment),
    /// with the SACK information forgotten and duplicates ignored until new data is
    /// acknowledged.
    pub(super) fn on_timeout_sack1(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.board.forget_sacks();
        self.sack1.after_timeout = true;
        self.on_timeout_cumulative(now_ns, cfg, out);
    }
}
