//! TCP Vegas (Brakmo and Peterson, "TCP Vegas: end to end congestion avoidance on a global
//! Internet", IEEE JSAC 13(8), 1995) as ns-3.37's `TcpVegas` implements it on top of
//! `TcpNewReno`. Once per round (when the ACKs pass the segment that was next to send when the
//! round began), with at least three RTT samples in the round:
//! - diff = cwnd − ⌊cwnd · BaseRTT / minRTT⌋ segments, the segments queued in the network;
//! - slow start: diff > γ ends slow start with cwnd = min(cwnd, target + 1) and ssthresh
//!   lowered to cwnd − 1; otherwise NewReno's slow start;
//! - congestion avoidance: diff > β: cwnd −1 segment and ssthresh lowered to cwnd − 1;
//!   diff < α: cwnd +1 segment; otherwise unchanged;
//! - then ssthresh ≥ ¾ cwnd.
//!
//! Between round ends only slow start grows cwnd. With fewer samples, or while the sender is
//! not in Open (ns-3's CongestionStateSet disables Vegas there; entering Open starts a new
//! round), it is NewReno. On congestion: ssthresh = max(min(ssthresh, cwnd − 1), 2) segments.
//! α = 2, β = 4, γ = 1 are ns-3.37's defaults. The round ends by `snd_max`, where ns-3 reads
//! m_nextTxSequence: one past the last segment sent, which falls behind `snd_max` only after a
//! retransmission (until new data goes out again) and goes back to SND.UNA at a timeout. The
//! two agree at every round end of a run without loss (the ns-3 validation's Vegas case); when
//! recovery ends after a retransmission, ns-3 ends the next one or two rounds after one ACK
//! each. A reconstruction.

use super::controller::{AckedInfo, CongState, Controller, WindowUpdate};
use super::reno::{ns3_increase_window, ns3_slow_start, ns3_whole_bytes, ns3_whole_segments};
use super::rtt_round::RttRound;
use crate::tcp::config::TcpConfig;

/// ns-3.37 `TcpVegas::Alpha`: below this many queued segments cwnd grows, segments.
const ALPHA_PKTS: u32 = 2;
/// ns-3.37 `TcpVegas::Beta`: above this many queued segments cwnd shrinks, segments.
const BETA_PKTS: u32 = 4;
/// ns-3.37 `TcpVegas::Gamma`: above this many queued segments slow start ends, segments.
const GAMMA_PKTS: u32 = 1;

/// Vegas's state.
#[derive(Clone, Copy, Debug)]
pub struct Vegas {
    rtt: RttRound,
    doing_vegas_now: bool,
    /// The round ends when this segment is acknowledged.
    beg_snd_nxt: u32,
    /// The sender's ssthresh as last seen or set (ns-3's GetSsThresh reads it).
    ssthresh_pkts: f64,
    pending: WindowUpdate,
    segment_bytes: u32,
}

impl Vegas {
    /// ns-3.37 `TcpVegas::GetSsThresh`: max(min(ssthresh, cwnd − 1 segment), 2 segments).
    fn reduced_ssthresh(&self, cwnd_pkts: f64) -> f64 {
        self.ssthresh_pkts.min(cwnd_pkts - 1.0).max(2.0)
    }

    /// The Vegas adjustment at the end of a round with enough samples; returns cwnd and sets
    /// `self.ssthresh_pkts`.
    fn adjust(&mut self, acked: u32, cwnd_pkts: f64) -> f64 {
        let mut seg_cwnd = ns3_whole_segments(cwnd_pkts);
        let target = self.rtt.target_cwnd_pkts(seg_cwnd);
        let diff = seg_cwnd.saturating_sub(target);
        let mut cwnd = cwnd_pkts;
        if diff > GAMMA_PKTS && cwnd < self.ssthresh_pkts {
            seg_cwnd = seg_cwnd.min(target + 1);
            cwnd = f64::from(seg_cwnd);
            self.ssthresh_pkts = self.reduced_ssthresh(cwnd);
        } else if cwnd < self.ssthresh_pkts {
            cwnd = ns3_slow_start(cwnd, self.ssthresh_pkts, acked).0;
        } else if diff > BETA_PKTS {
            cwnd = f64::from(seg_cwnd - 1);
            self.ssthresh_pkts = self.reduced_ssthresh(cwnd);
        } else if diff < ALPHA_PKTS {
            cwnd = f64::from(seg_cwnd + 1);
        }
        // ssthresh ≥ 3/4 cwnd, in whole bytes.
        let mss = f64::from(self.segment_bytes);
        let three_quarters = (3.0 * ns3_whole_bytes(cwnd, self.segment_bytes) / 4.0).floor();
        self.ssthresh_pkts = self.ssthresh_pkts.max(three_quarters / mss);
        cwnd
    }
}

impl Controller for Vegas {
    fn new(cfg: &TcpConfig) -> Self {
        Vegas {
            rtt: RttRound::default(),
            doing_vegas_now: true,
            beg_snd_nxt: 0,
            ssthresh_pkts: f64::INFINITY,
            pending: WindowUpdate::default(),
            segment_bytes: cfg.payload_bytes(),
        }
    }

    /// ns-3.37 `TcpVegas::PktsAcked`: BaseRTT, the round's minimum and its sample count, from
    /// the smoothed RTT on every call once there is one (ns-3.37 passes `m_tcb->m_lastRtt`,
    /// the estimator's smoothed value, which stays set on ACKs without a sample).
    fn on_pkts_acked(&mut self, info: &AckedInfo, _cwnd: f64, ssthresh_pkts: f64) -> Option<f64> {
        self.ssthresh_pkts = ssthresh_pkts;
        self.rtt.sample(info.srtt_s);
        None
    }

    /// ns-3.37 `TcpVegas::IncreaseWindow`.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        self.ssthresh_pkts = ssthresh_pkts;
        if !self.doing_vegas_now {
            return ns3_increase_window(
                cwnd_pkts,
                ssthresh_pkts,
                info.acked_pkts,
                self.segment_bytes,
            );
        }
        if info.snd_una >= self.beg_snd_nxt {
            self.beg_snd_nxt = info.snd_max;
            let cwnd = if self.rtt.cnt_rtt <= 2 {
                ns3_increase_window(
                    cwnd_pkts,
                    ssthresh_pkts,
                    info.acked_pkts,
                    self.segment_bytes,
                )
            } else {
                let cwnd = self.adjust(info.acked_pkts, cwnd_pkts);
                self.pending.ssthresh_pkts = Some(self.ssthresh_pkts);
                cwnd
            };
            self.rtt.restart();
            cwnd
        } else if cwnd_pkts < ssthresh_pkts {
            ns3_slow_start(cwnd_pkts, ssthresh_pkts, info.acked_pkts).0
        } else {
            cwnd_pkts
        }
    }

    fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, _flight_pkts: u32) -> f64 {
        self.ssthresh_pkts = self.reduced_ssthresh(cwnd_pkts);
        self.ssthresh_pkts
    }

    /// ns-3.37 `TcpVegas::CongestionStateSet`: Open starts a new round with Vegas on; any
    /// other state turns it off.
    fn on_state_change(&mut self, state: CongState, snd_max: u32) {
        self.doing_vegas_now = state == CongState::Open;
        if self.doing_vegas_now {
            self.beg_snd_nxt = snd_max;
            self.rtt.restart();
        }
    }

    fn take_window_update(&mut self) -> WindowUpdate {
        std::mem::take(&mut self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vegas() -> Vegas {
        Vegas::new(&TcpConfig::ns3())
    }

    /// An ACK of one segment at `snd_una` with `snd_max` sent and a smoothed RTT.
    fn ack(snd_una: u32, snd_max: u32, rtt_ms: f64) -> AckedInfo {
        AckedInfo {
            snd_una,
            snd_max,
            srtt_s: Some(rtt_ms * 1e-3),
            ..AckedInfo::of_segments(1)
        }
    }

    /// Three samples at `rtt_ms` after a BaseRTT of 100 ms, then the ACK that ends the round.
    fn end_round(v: &mut Vegas, rtt_ms: f64, cwnd: f64, ssthresh: f64) -> (f64, WindowUpdate) {
        v.on_pkts_acked(&ack(0, 0, 100.0), cwnd, ssthresh);
        v.rtt.restart();
        for _ in 0..3 {
            v.on_pkts_acked(&ack(0, 0, rtt_ms), cwnd, ssthresh);
        }
        let cwnd = v.increase_window(&ack(10, 50, rtt_ms), cwnd, ssthresh);
        (cwnd, v.take_window_update())
    }

    #[test]
    fn avoidance_follows_the_queued_segments() {
        // cwnd 20 at minRTT 100 ms: nothing queued, diff 0 < alpha: +1 segment; ssthresh stays
        // at least 3/4 of 21 segments.
        let (cwnd, up) = end_round(&mut vegas(), 100.0, 20.0, 10.0);
        assert_eq!(cwnd, 21.0);
        let mss: f64 = 948.0;
        assert_eq!(
            up.ssthresh_pkts,
            Some((3.0 * 21.0 * mss / 4.0_f64).floor() / mss)
        );
        // minRTT 125 ms: target ⌊20 · 0.8⌋ = 16, diff 4: between alpha and beta, unchanged.
        assert_eq!(end_round(&mut vegas(), 125.0, 20.0, 10.0).0, 20.0);
        // minRTT 200 ms: target 10, diff 10 > beta: −1 segment, ssthresh min(10, 18) = 10 then
        // at least 3/4 of 19.
        let (cwnd, up) = end_round(&mut vegas(), 200.0, 20.0, 10.0);
        assert_eq!(cwnd, 19.0);
        assert_eq!(
            up.ssthresh_pkts,
            Some((3.0 * 19.0 * mss / 4.0_f64).floor() / mss)
        );
    }

    #[test]
    fn queueing_ends_slow_start() {
        // In slow start at cwnd 20, minRTT 200 ms: diff 10 > gamma, cwnd = target + 1 = 11,
        // ssthresh = 10, then raised to 3/4 of 11 segments.
        let (cwnd, up) = end_round(&mut vegas(), 200.0, 20.0, f64::INFINITY);
        assert_eq!(cwnd, 11.0);
        let mss: f64 = 948.0;
        assert_eq!(
            up.ssthresh_pkts,
            Some(10.0_f64.max((33.0 * mss / 4.0).floor() / mss))
        );
        // No queue: NewReno's slow start.
        assert_eq!(end_round(&mut vegas(), 100.0, 20.0, f64::INFINITY).0, 21.0);
    }

    #[test]
    fn between_round_ends_only_slow_start_grows() {
        let mut v = vegas();
        v.beg_snd_nxt = 100;
        assert_eq!(v.increase_window(&ack(10, 50, 100.0), 20.0, 10.0), 20.0);
        assert_eq!(v.increase_window(&ack(10, 50, 100.0), 5.0, 10.0), 6.0);
        assert_eq!(v.take_window_update(), WindowUpdate::default());
    }

    #[test]
    fn outside_open_vegas_is_newreno() {
        let mut v = vegas();
        v.on_state_change(CongState::Recovery, 40);
        assert!(!v.doing_vegas_now);
        let (cwnd, _) = end_round(&mut v, 200.0, 20.0, 10.0);
        assert!(
            cwnd > 20.0 && cwnd < 20.1,
            "NewReno's avoidance, not Vegas's cut"
        );
        v.on_state_change(CongState::Open, 40);
        assert!(v.doing_vegas_now);
        assert_eq!((v.beg_snd_nxt, v.rtt.cnt_rtt), (40, 0));
    }

    #[test]
    fn congestion_takes_one_segment_off_cwnd() {
        let mut v = vegas();
        assert_eq!(v.ssthresh_after_congestion(20.0, 20), 19.0);
        v.ssthresh_pkts = 8.0;
        assert_eq!(v.ssthresh_after_congestion(20.0, 20), 8.0);
        v.ssthresh_pkts = 8.0;
        assert_eq!(v.ssthresh_after_congestion(2.5, 2), 2.0);
    }
}
