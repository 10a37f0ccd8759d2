//! TCP-LP (Kuzmanovic and Knightly, "TCP-LP: low-priority service via end-point congestion
//! control", IEEE/ACM ToN 14(4), 2006) as ns-3.37's `TcpLp` implements it (after Linux's
//! tcp_lp) on top of `TcpNewReno`:
//! - one-way delay: smoothed d_s ← ⅞ d_s + ⅛ d (paper §III-A), with the lowest and largest
//!   delays seen;
//! - early congestion indication (paper eq. (1)): d_s > d_min + 15 % (d_max − d_min); it
//!   halves cwnd (at least one segment), or sets it to one segment when it comes within the
//!   inference time (3 RTTs, paper §III-B) of the last such reduction, and restarts d_min and
//!   d_max from d_s;
//! - within the inference time congestion avoidance does not grow cwnd; otherwise growth and
//!   loss response are NewReno's.
//!
//! ns-3.37 reads the one-way delay as TSval − TSecr of the ACK in milliseconds and the
//! inference time as 3 · (now − TSecr). aqmlab's ACKs carry only the echoed timestamp, so
//! the delay is the RTT sample from the timestamp echo in whole milliseconds and the
//! inference time 3 · that RTT (a reconstruction; the constant reverse-path delay shifts d,
//! d_min and d_max alike, which leaves the 15 % test unchanged once they have been restarted
//! from d_s). Without timestamps there is no delay sample, the inference time is 3 · now (as
//! ns-3 with TSecr 0) and the indication never fires, as in ns-3.37. The delays keep ns-3's
//! 32-bit unsigned arithmetic (its wrap-around included). A cut is applied to cwnd after the
//! ACK's PktsAcked, as ns-3 writes it there.

use super::controller::{AckedInfo, Controller, WindowUpdate};
use super::reno::{
    ns3_congestion_avoidance, ns3_increase_window_with, ns3_whole_bytes, ssthresh_after_loss,
};
use crate::tcp::config::TcpConfig;

/// Inference time in RTTs (Kuzmanovic and Knightly §III-B; ns-3.37's factor 3).
const INFERENCE_RTTS: f64 = 3.0;
/// Share of d_max − d_min above d_min that indicates congestion, percent (paper's δ = 0.15).
const THRESHOLD_PERCENT: u32 = 15;

/// TCP-LP's state; delays in milliseconds, d_s scaled by 8 as ns-3.37 keeps it.
#[derive(Clone, Copy, Debug)]
pub struct Lp {
    s_owd_x8: u32,
    owd_min_ms: u32,
    owd_max_ms: u32,
    owd_max_rsv_ms: u32,
    /// Time of the last early-congestion reduction, seconds (0: none).
    last_drop_s: f64,
    inference_s: f64,
    within_inference: bool,
    timestamps: bool,
    pending: WindowUpdate,
    segment_bytes: u32,
}

impl Lp {
    /// ns-3.37 `TcpLp::RttSample`: d_min, d_max (with its reserve) and the smoothed delay.
    fn owd_sample(&mut self, owd_ms: u32) {
        if owd_ms == 0 {
            return;
        }
        self.owd_min_ms = self.owd_min_ms.min(owd_ms);
        if owd_ms > self.owd_max_ms {
            if owd_ms > self.owd_max_rsv_ms {
                self.owd_max_ms = if self.owd_max_rsv_ms == 0 {
                    owd_ms
                } else {
                    self.owd_max_rsv_ms
                };
                self.owd_max_rsv_ms = owd_ms;
            } else {
                self.owd_max_ms = owd_ms;
            }
        }
        // d_s ← ⅞ d_s + ⅛ d, kept as 8 d_s.
        if self.s_owd_x8 != 0 {
            let step = owd_ms.wrapping_sub(self.s_owd_x8 >> 3);
            self.s_owd_x8 = self.s_owd_x8.wrapping_add(step);
        } else {
            self.s_owd_x8 = owd_ms << 3;
        }
    }

    /// Paper eq. (1) in ns-3.37's unsigned arithmetic: d_s ≤ d_min + 15 % (d_max − d_min).
    fn within_threshold(&self) -> bool {
        let spread = self.owd_max_ms.wrapping_sub(self.owd_min_ms);
        let limit = self
            .owd_min_ms
            .wrapping_add(THRESHOLD_PERCENT.wrapping_mul(spread) / 100);
        self.s_owd_x8 >> 3 <= limit
    }
}

impl Controller for Lp {
    fn new(cfg: &TcpConfig) -> Self {
        Lp {
            s_owd_x8: 0,
            owd_min_ms: u32::MAX,
            owd_max_ms: 0,
            owd_max_rsv_ms: 0,
            last_drop_s: 0.0,
            inference_s: 0.0,
            within_inference: false,
            timestamps: cfg.timestamps,
            pending: WindowUpdate::default(),
            segment_bytes: cfg.payload_bytes(),
        }
    }

    /// ns-3.37 `TcpLp::PktsAcked`: the delay sample, the inference time, and the early
    /// congestion test with its cut.
    fn on_pkts_acked(&mut self, info: &AckedInfo, cwnd_pkts: f64, _ssthresh: f64) -> Option<f64> {
        let now_s = info.now_s;
        match (self.timestamps, info.rtt_sample_s) {
            (true, Some(rtt_s)) => {
                self.owd_sample((rtt_s * 1e3).round() as u32);
                self.inference_s = INFERENCE_RTTS * rtt_s;
            }
            (false, _) if now_s >= 1e-3 => self.inference_s = INFERENCE_RTTS * now_s,
            _ => {}
        }
        self.within_inference =
            self.last_drop_s != 0.0 && now_s - self.last_drop_s < self.inference_s;
        if self.within_threshold() {
            return None;
        }
        self.owd_min_ms = self.s_owd_x8 >> 3;
        self.owd_max_ms = self.s_owd_x8 >> 2;
        self.owd_max_rsv_ms = self.s_owd_x8 >> 2;
        let cwnd = if self.within_inference {
            1.0
        } else {
            let mss = f64::from(self.segment_bytes);
            let halved_bytes = (ns3_whole_bytes(cwnd_pkts, self.segment_bytes) / 2.0).floor();
            halved_bytes.max(mss) / mss
        };
        self.pending.cwnd_pkts = Some(cwnd);
        self.last_drop_s = now_s;
        None
    }

    /// ns-3.37 `TcpNewReno::IncreaseWindow` with TCP-LP's avoidance: none within the
    /// inference time.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        ns3_increase_window_with(cwnd_pkts, ssthresh_pkts, info.acked_pkts, |cwnd, acked| {
            if self.within_inference {
                cwnd
            } else {
                ns3_congestion_avoidance(cwnd, acked, self.segment_bytes)
            }
        })
    }

    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        ssthresh_after_loss(flight_pkts)
    }

    fn take_window_update(&mut self) -> WindowUpdate {
        std::mem::take(&mut self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lp() -> Lp {
        Lp::new(&TcpConfig::ns3())
    }

    fn ack(now_s: f64, rtt_ms: f64) -> AckedInfo {
        AckedInfo {
            now_s,
            rtt_sample_s: Some(rtt_ms * 1e-3),
            ..AckedInfo::of_segments(1)
        }
    }

    #[test]
    fn the_delay_is_smoothed_by_an_eighth() {
        let mut l = lp();
        l.owd_sample(100);
        assert_eq!(
            (l.s_owd_x8, l.owd_min_ms, l.owd_max_ms, l.owd_max_rsv_ms),
            (800, 100, 100, 100)
        );
        l.owd_sample(180);
        // 8 d_s = 800 + 180 − 100 = 880 (d_s = 110); d_max keeps its reserve.
        assert_eq!(
            (l.s_owd_x8, l.owd_max_ms, l.owd_max_rsv_ms),
            (880, 100, 180)
        );
        l.owd_sample(60);
        assert_eq!((l.s_owd_x8, l.owd_min_ms), (880 + 60 - 110, 60));
    }

    #[test]
    fn a_rising_delay_halves_then_collapses_the_window() {
        let mut l = lp();
        l.on_pkts_acked(&ack(1.0, 100.0), 20.0, 10.0);
        assert_eq!(l.take_window_update(), WindowUpdate::default());
        // d = 300 ms: d_s = 125 ms > d_min + 15 % (d_max − d_min) = 100 (d_max still 100, the
        // 300 held in reserve): the first indication halves cwnd.
        l.on_pkts_acked(&ack(1.1, 300.0), 20.0, 10.0);
        assert_eq!(l.take_window_update().cwnd_pkts, Some(10.0));
        assert_eq!((l.owd_min_ms, l.owd_max_ms, l.last_drop_s), (125, 250, 1.1));
        // d = 2 s within 3 RTTs of that cut: cwnd one segment.
        l.on_pkts_acked(&ack(1.2, 2000.0), 10.0, 10.0);
        assert!(l.within_inference);
        assert_eq!(l.take_window_update().cwnd_pkts, Some(1.0));
    }

    #[test]
    fn the_first_cut_halves_whole_bytes() {
        let mut l = lp();
        l.owd_sample(100);
        l.owd_sample(300);
        l.s_owd_x8 = 8 * 200;
        l.on_pkts_acked(&ack(2.0, 0.0), 21.0, 10.0);
        let mss = 948.0;
        assert_eq!(
            l.take_window_update().cwnd_pkts,
            Some((21.0 * mss / 2.0_f64).floor() / mss)
        );
        assert_eq!(l.last_drop_s, 2.0);
    }

    #[test]
    fn no_growth_within_the_inference_time() {
        let mut l = lp();
        l.within_inference = true;
        assert_eq!(l.increase_window(&ack(1.0, 100.0), 20.0, 10.0), 20.0);
        assert_eq!(l.increase_window(&ack(1.0, 100.0), 5.0, 10.0), 6.0);
        l.within_inference = false;
        assert!(l.increase_window(&ack(1.0, 100.0), 20.0, 10.0) > 20.0);
    }

    #[test]
    fn without_timestamps_it_never_fires() {
        let cfg = TcpConfig {
            timestamps: false,
            ..TcpConfig::ns3()
        };
        let mut l = Lp::new(&cfg);
        for i in 1..100 {
            l.on_pkts_acked(&ack(f64::from(i), 100.0 * f64::from(i)), 20.0, 10.0);
        }
        assert_eq!(l.take_window_update(), WindowUpdate::default());
        assert_eq!(l.inference_s, 3.0 * 99.0);
    }
}
