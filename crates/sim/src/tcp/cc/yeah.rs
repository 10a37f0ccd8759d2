//! YeAH-TCP (Baiocchi, Castellani and Vacirca, "YeAH-TCP: yet another highspeed TCP", PFLDnet
//! 2007) as ns-3.37's `TcpYeah` implements it on top of `TcpNewReno`:
//! - slow start: NewReno's (one segment per ACK);
//! - congestion avoidance: Scalable TCP (AIFactor 100) in Fast mode, NewReno in Slow mode;
//! - once per round with more than two RTT samples: Q = ⌊cwnd/RTT_min · (RTT_min −
//!   RTT_base)⌋ segments queued and L = (RTT_min − RTT_base)/RTT_base. Q > Q_max or
//!   L > 1/φ selects Slow mode, where Q > Q_max with cwnd above the Reno estimate also drains
//!   the queue (precautionary decongestion: cwnd −= min(Q/γ, cwnd/2^ε), at least the Reno
//!   estimate, and ssthresh = cwnd); otherwise Fast mode;
//! - on congestion: ssthresh = flight − R segments (at least 2), R = min(max(Q, flight/2^δ),
//!   max(flight/2, 2)) when not competing with Reno flows (fewer than ρ rounds in Slow
//!   mode), else max(flight/2, 2).
//!
//! As ns-3.37 computes 1/φ in integer arithmetic (1/8 = 0), any queueing delay selects Slow
//! mode. Entering Open starts a new round (ns-3.37's CongestionStateSet); ns-3.37 records
//! other states but never reads them. The round ends by `snd_max` (ns-3 reads
//! m_nextTxSequence). Where the flight is under two segments ns-3.37's unsigned
//! flight − R wraps around; ssthresh is 2 segments here (a reconstruction). Attribute
//! defaults of ns-3.37: α (Q_max) 80, γ 1, δ 3, ε 1, φ 8, ρ 16, ζ 50, StcpAiFactor 100.

use super::controller::{AckedInfo, CongState, Controller, WindowUpdate};
use super::reno::{ns3_congestion_avoidance, ns3_slow_start, ns3_whole_segments};
use super::rtt_round::RttRound;
use super::scalable::Scalable;
use crate::tcp::config::TcpConfig;

/// ns-3.37 `TcpYeah::Alpha` (the paper's Q_max): most segments allowed queued.
const ALPHA_PKTS: u32 = 80;
/// ns-3.37 `TcpYeah::Gamma`: 1/γ of the queue drained per round by decongestion.
const GAMMA: u32 = 1;
/// ns-3.37 `TcpYeah::Delta`: at least flight/2^δ given up on a loss.
const DELTA: u32 = 3;
/// ns-3.37 `TcpYeah::Epsilon`: at most cwnd/2^ε given up by decongestion.
const EPSILON: u32 = 1;
/// ns-3.37 `TcpYeah::Phy`: 1/φ is the largest queueing share of the RTT for Fast mode.
const PHY: u32 = 8;
/// ns-3.37 `TcpYeah::Rho`: rounds in Slow mode that mean competition with Reno flows.
const RHO_ROUNDS: u32 = 16;
/// ns-3.37 `TcpYeah::Zeta`: rounds in Fast mode that reset the Reno estimate.
const ZETA_ROUNDS: u32 = 50;
/// ns-3.37 `TcpYeah::StcpAiFactor`: Scalable TCP's AIFactor in Fast mode.
const STCP_AI_FACTOR: u32 = 100;

/// YeAH's state.
#[derive(Clone, Copy, Debug)]
pub struct Yeah {
    stcp: Scalable,
    rtt: RttRound,
    /// The round ends when this segment is acknowledged.
    beg_snd_nxt: u32,
    /// Segments queued at the last estimate.
    last_q_pkts: u32,
    /// Consecutive rounds in Slow mode (0: Fast mode).
    doing_reno_now: u32,
    /// Estimated window of competing Reno flows, segments.
    reno_count_pkts: u32,
    fast_count: u32,
    pending: WindowUpdate,
    segment_bytes: u32,
}

impl Yeah {
    /// The end-of-round estimate (ns-3.37 `TcpYeah::IncreaseWindow`, second half); returns
    /// cwnd, with a precautionary decongestion in `self.pending`.
    fn end_round(&mut self, cwnd_pkts: f64) -> f64 {
        let mut seg_cwnd = ns3_whole_segments(cwnd_pkts);
        let rtt_queue_s = self.rtt.min_rtt_s - self.rtt.base_rtt_s;
        let bw_pkts_per_s = f64::from(seg_cwnd) / self.rtt.min_rtt_s;
        let queue_pkts = (bw_pkts_per_s * rtt_queue_s) as u32;
        let l = rtt_queue_s / self.rtt.base_rtt_s;
        let mut cwnd = cwnd_pkts;
        if queue_pkts > ALPHA_PKTS || l > f64::from(1 / PHY) {
            if queue_pkts > ALPHA_PKTS && seg_cwnd > self.reno_count_pkts {
                let reduction = (queue_pkts / GAMMA).min(seg_cwnd >> EPSILON);
                seg_cwnd = (seg_cwnd - reduction).max(self.reno_count_pkts);
                cwnd = f64::from(seg_cwnd);
                self.pending = WindowUpdate {
                    cwnd_pkts: None,
                    ssthresh_pkts: Some(cwnd),
                };
            }
            if self.reno_count_pkts <= 2 {
                self.reno_count_pkts = (seg_cwnd >> 1).max(2);
            } else {
                self.reno_count_pkts += 1;
            }
            self.doing_reno_now += 1;
        } else {
            self.fast_count += 1;
            if self.fast_count > ZETA_ROUNDS {
                self.reno_count_pkts = 2;
                self.fast_count = 0;
            }
            self.doing_reno_now = 0;
        }
        self.last_q_pkts = queue_pkts;
        cwnd
    }
}

impl Controller for Yeah {
    fn new(cfg: &TcpConfig) -> Self {
        Yeah {
            stcp: Scalable::with_ai_factor(STCP_AI_FACTOR),
            rtt: RttRound::default(),
            beg_snd_nxt: 0,
            last_q_pkts: 0,
            doing_reno_now: 0,
            reno_count_pkts: 2,
            fast_count: 0,
            pending: WindowUpdate::default(),
            segment_bytes: cfg.payload_bytes(),
        }
    }

    /// ns-3.37 `TcpYeah::PktsAcked`: BaseRTT, the round's minimum and its sample count.
    fn on_pkts_acked(&mut self, info: &AckedInfo, _cwnd: f64, _ssthresh: f64) -> Option<f64> {
        self.rtt.sample(info.rtt_sample_s);
        None
    }

    /// ns-3.37 `TcpYeah::IncreaseWindow`: growth by mode, then the estimate at a round end.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        let acked = info.acked_pkts;
        let mut cwnd = if cwnd_pkts < ssthresh_pkts {
            ns3_slow_start(cwnd_pkts, ssthresh_pkts, acked).0
        } else if self.doing_reno_now == 0 {
            self.stcp.increase_window(info, cwnd_pkts, ssthresh_pkts)
        } else {
            ns3_congestion_avoidance(cwnd_pkts, acked, self.segment_bytes)
        };
        if info.snd_una >= self.beg_snd_nxt {
            if self.rtt.cnt_rtt > 2 {
                cwnd = self.end_round(cwnd);
            }
            self.beg_snd_nxt = info.snd_max;
            self.rtt.restart();
        }
        cwnd
    }

    /// ns-3.37 `TcpYeah::GetSsThresh`: flight − R segments.
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        let halved = (flight_pkts >> 1).max(2);
        let reduction = if self.doing_reno_now < RHO_ROUNDS {
            self.last_q_pkts.max(flight_pkts >> DELTA).min(halved)
        } else {
            halved
        };
        self.fast_count = 0;
        self.reno_count_pkts = (self.reno_count_pkts >> 1).max(2);
        f64::from(flight_pkts.saturating_sub(reduction).max(2))
    }

    /// ns-3.37 `TcpYeah::CongestionStateSet`: Open starts a new round.
    fn on_state_change(&mut self, state: CongState, snd_max: u32) {
        if state == CongState::Open {
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

    fn yeah() -> Yeah {
        Yeah::new(&TcpConfig::ns3())
    }

    fn ack(snd_una: u32, snd_max: u32, acked_pkts: u32, rtt_ms: f64) -> AckedInfo {
        AckedInfo {
            snd_una,
            snd_max,
            rtt_sample_s: Some(rtt_ms * 1e-3),
            ..AckedInfo::of_segments(acked_pkts)
        }
    }

    /// BaseRTT 100 ms, three samples at `rtt_ms` this round.
    fn with_samples(rtt_ms: f64) -> Yeah {
        let mut y = yeah();
        y.on_pkts_acked(&ack(0, 0, 1, 100.0), 0.0, 0.0);
        y.rtt.restart();
        for _ in 0..3 {
            y.on_pkts_acked(&ack(0, 0, 1, rtt_ms), 0.0, 0.0);
        }
        y
    }

    #[test]
    fn no_queue_is_fast_mode_with_scalable_growth() {
        let mut y = with_samples(100.0);
        y.beg_snd_nxt = 100;
        // Fast mode, cwnd 200: one segment per 100 acknowledged (Scalable, AIFactor 100).
        assert_eq!(
            y.increase_window(&ack(10, 300, 100, 100.0), 200.0, 10.0),
            201.0
        );
        y.beg_snd_nxt = 0;
        y.increase_window(&ack(10, 300, 1, 100.0), 200.0, 10.0);
        assert_eq!((y.doing_reno_now, y.fast_count, y.last_q_pkts), (0, 1, 0));
        assert_eq!((y.beg_snd_nxt, y.rtt.cnt_rtt), (300, 0));
    }

    #[test]
    fn a_long_queue_drains_it() {
        // cwnd 400 at 200 ms against 100 ms: Q = 400/0.2 · 0.1 = 200 > 80, so cwnd −=
        // min(200, 400/2) = 200, ssthresh = cwnd = 200.
        let mut y = with_samples(200.0);
        let cwnd = y.increase_window(&ack(10, 500, 1, 200.0), 400.0, 10.0);
        assert_eq!(cwnd, 200.0);
        let up = y.take_window_update();
        assert_eq!(up.ssthresh_pkts, Some(200.0));
        assert_eq!(
            (y.last_q_pkts, y.doing_reno_now, y.reno_count_pkts),
            (200, 1, 100)
        );
        // Slow mode grows as NewReno.
        let cwnd = y.increase_window(&ack(10, 500, 1, 200.0), 200.0, 10.0);
        assert!((cwnd - (200.0 + (948.0_f64 / 200.0).floor() / 948.0)).abs() < 1e-12);
    }

    #[test]
    fn any_queueing_delay_is_slow_mode() {
        // Q = 20/0.101 · 0.001 = 0, but L > 1/φ = 0 in ns-3.37's integer division.
        let mut y = with_samples(101.0);
        y.increase_window(&ack(10, 500, 1, 101.0), 20.0, 10.0);
        assert_eq!((y.doing_reno_now, y.last_q_pkts), (1, 0));
        assert_eq!(y.take_window_update(), WindowUpdate::default());
    }

    #[test]
    fn loss_gives_up_the_queue_within_bounds() {
        let mut y = yeah();
        y.last_q_pkts = 30;
        // R = min(max(30, 100/8), 50) = 30.
        assert_eq!(y.ssthresh_after_congestion(100.0, 100), 70.0);
        y.last_q_pkts = 0;
        // R = 100/8 = 12.
        assert_eq!(y.ssthresh_after_congestion(100.0, 100), 88.0);
        y.doing_reno_now = RHO_ROUNDS;
        assert_eq!(y.ssthresh_after_congestion(100.0, 100), 50.0);
        assert_eq!(y.ssthresh_after_congestion(1.0, 1), 2.0);
        y.reno_count_pkts = 40;
        y.ssthresh_after_congestion(100.0, 100);
        assert_eq!(y.reno_count_pkts, 20);
    }

    #[test]
    fn open_starts_a_new_round() {
        let mut y = with_samples(100.0);
        y.on_state_change(CongState::Recovery, 70);
        assert_eq!(y.rtt.cnt_rtt, 3);
        y.on_state_change(CongState::Open, 70);
        assert_eq!((y.beg_snd_nxt, y.rtt.cnt_rtt), (70, 0));
    }
}
