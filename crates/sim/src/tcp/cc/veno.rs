//! TCP Veno (Fu and Liew, "TCP Veno: TCP enhancement for transmission over wireless access
//! networks", IEEE JSAC 21(2), 2003) as ns-3.37's `TcpVeno` implements it on top of
//! `TcpNewReno`. On every ACK outside loss recovery Veno estimates the backlog
//! N = cwnd − ⌊cwnd · BaseRTT / RTT⌋ segments (RTT the lowest since the last estimate):
//! - growth: NewReno's, except in congestion avoidance with N ≥ β, where only every other
//!   ACK grows the window (the paper: one segment every other RTT);
//! - on congestion: N < β means a random loss, ssthresh = max(⌊⅘ · flight⌋, 2) segments;
//!   otherwise NewReno's max(flight/2, 2).
//!
//! β = 3 is ns-3.37's attribute default. As in ns-3.37, each growth resets the sample count,
//! so Veno's own rule applies only when more than two RTT samples arrived since the last
//! growth (after loss recovery, where samples are counted but nothing grows); otherwise it
//! grows as NewReno, and Veno differs from NewReno by its loss response.

use super::controller::{AckedInfo, CongState, Controller};
use super::reno::{
    ns3_congestion_avoidance, ns3_increase_window, ns3_slow_start, ns3_whole_segments,
    ssthresh_after_loss,
};
use super::rtt_round::{RttRound, NS3_TIME_MAX_S};
use crate::tcp::config::TcpConfig;

/// ns-3.37 `TcpVeno::Beta`: a backlog of at least this many segments means congestion.
const BETA_PKTS: u32 = 3;
/// Share of the flight kept after a loss taken as random (Fu and Liew §III-A, ⅘).
const RANDOM_LOSS_KEEP: f64 = 4.0 / 5.0;

/// Veno's state.
#[derive(Clone, Copy, Debug)]
pub struct Veno {
    rtt: RttRound,
    doing_veno_now: bool,
    /// The backlog N at the last estimate, segments.
    diff_pkts: u32,
    /// The next congestion-avoidance ACK with N ≥ β grows the window.
    inc: bool,
    segment_bytes: u32,
}

impl Controller for Veno {
    fn new(cfg: &TcpConfig) -> Self {
        Veno {
            rtt: RttRound::default(),
            doing_veno_now: true,
            diff_pkts: 0,
            inc: true,
            segment_bytes: cfg.payload_bytes(),
        }
    }

    /// ns-3.37 `TcpVeno::PktsAcked`: BaseRTT, the lowest RTT and the sample count.
    fn on_pkts_acked(&mut self, info: &AckedInfo, _cwnd: f64, _ssthresh: f64) -> Option<f64> {
        self.rtt.sample(info.rtt_sample_s);
        None
    }

    /// ns-3.37 `TcpVeno::IncreaseWindow`: the backlog N = cwnd − ⌊cwnd · BaseRTT/RTT⌋ (Fu
    /// and Liew eq. (3)), then the growth.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        let seg_cwnd = ns3_whole_segments(cwnd_pkts);
        self.diff_pkts = seg_cwnd.saturating_sub(self.rtt.target_cwnd_pkts(seg_cwnd));
        let acked = info.acked_pkts;
        if !self.doing_veno_now {
            return ns3_increase_window(cwnd_pkts, ssthresh_pkts, acked, self.segment_bytes);
        }
        let cwnd = if self.rtt.cnt_rtt <= 2 {
            ns3_increase_window(cwnd_pkts, ssthresh_pkts, acked, self.segment_bytes)
        } else if cwnd_pkts < ssthresh_pkts {
            ns3_slow_start(cwnd_pkts, ssthresh_pkts, acked).0
        } else if self.diff_pkts < BETA_PKTS {
            ns3_congestion_avoidance(cwnd_pkts, acked, self.segment_bytes)
        } else if self.inc {
            self.inc = false;
            ns3_congestion_avoidance(cwnd_pkts, acked, self.segment_bytes)
        } else {
            self.inc = true;
            cwnd_pkts
        };
        self.rtt.restart();
        cwnd
    }

    /// ns-3.37 `TcpVeno::GetSsThresh` (Fu and Liew §III-A).
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        if self.diff_pkts < BETA_PKTS {
            let mss = f64::from(self.segment_bytes);
            let kept_bytes = (f64::from(flight_pkts) * mss * RANDOM_LOSS_KEEP).floor();
            (kept_bytes / mss).max(2.0)
        } else {
            ssthresh_after_loss(flight_pkts)
        }
    }

    /// ns-3.37 `TcpVeno::CongestionStateSet`: on in Open (with a new minimum), off elsewhere.
    fn on_state_change(&mut self, state: CongState, _snd_max: u32) {
        self.doing_veno_now = state == CongState::Open;
        if self.doing_veno_now {
            self.rtt.min_rtt_s = NS3_TIME_MAX_S;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn veno() -> Veno {
        Veno::new(&TcpConfig::ns3())
    }

    fn ack(rtt_ms: f64) -> AckedInfo {
        AckedInfo {
            rtt_sample_s: Some(rtt_ms * 1e-3),
            ..AckedInfo::of_segments(1)
        }
    }

    /// BaseRTT 100 ms, then three samples at `rtt_ms`, as after a recovery.
    fn with_samples(rtt_ms: f64) -> Veno {
        let mut v = veno();
        v.on_pkts_acked(&ack(100.0), 20.0, 10.0);
        v.rtt.restart();
        for _ in 0..3 {
            v.on_pkts_acked(&ack(rtt_ms), 20.0, 10.0);
        }
        v
    }

    #[test]
    fn backlog_is_cwnd_less_the_base_rtt_share() {
        // cwnd 20, RTT 125 ms against 100 ms: 20 − 16 = 4.
        let mut v = with_samples(125.0);
        v.increase_window(&ack(125.0), 20.0, 10.0);
        assert_eq!(v.diff_pkts, 4);
        assert_eq!(v.rtt.cnt_rtt, 0, "every growth starts a new count");
    }

    #[test]
    fn a_backlog_of_beta_grows_every_other_ack() {
        let mss: f64 = 948.0;
        let step = (mss / 20.0).floor() / mss;
        // N = 4 ≥ 3: the first ACK grows (inc), and clears inc.
        let mut v = with_samples(125.0);
        assert_eq!(v.increase_window(&ack(125.0), 20.0, 10.0), 20.0 + step);
        assert!(!v.inc);
        // The next one with enough samples does not grow, and sets inc again.
        for _ in 0..3 {
            v.on_pkts_acked(&ack(125.0), 20.0, 10.0);
        }
        assert_eq!(v.increase_window(&ack(125.0), 20.0, 10.0), 20.0);
        assert!(v.inc);
        // N = 0: NewReno's avoidance.
        let mut v = with_samples(100.0);
        assert_eq!(v.increase_window(&ack(100.0), 20.0, 10.0), 20.0 + step);
    }

    #[test]
    fn few_samples_grow_as_newreno() {
        let mut v = veno();
        assert_eq!(v.increase_window(&ack(100.0), 10.0, 64.0), 11.0);
    }

    #[test]
    fn loss_response_depends_on_the_backlog() {
        let mut v = veno();
        v.diff_pkts = 2;
        // ⌊0.8 · 30 · 948⌋ bytes = 22752 = 24 segments.
        assert_eq!(v.ssthresh_after_congestion(30.0, 30), 24.0);
        assert_eq!(v.ssthresh_after_congestion(2.0, 2), 2.0);
        v.diff_pkts = 3;
        assert_eq!(v.ssthresh_after_congestion(30.0, 30), 15.0);
    }

    #[test]
    fn only_open_runs_veno() {
        let mut v = with_samples(125.0);
        v.on_state_change(CongState::Recovery, 0);
        assert!(!v.doing_veno_now);
        let cwnd = v.increase_window(&ack(125.0), 20.0, 10.0);
        assert!(cwnd > 20.0, "NewReno growth");
        assert_eq!(v.rtt.cnt_rtt, 3, "samples kept while off");
        v.on_state_change(CongState::Open, 0);
        assert!(v.doing_veno_now);
        assert_eq!(v.rtt.min_rtt_s, NS3_TIME_MAX_S);
    }
}
