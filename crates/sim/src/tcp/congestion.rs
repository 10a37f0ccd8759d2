//! The congestion-control algorithm of a sender: Reno or CUBIC behind one interface, called
//! at the points where ns-3.37's TcpSocketBase calls its congestion operations (PktsAcked,
//! IncreaseWindow, GetSsThresh, and the entry into the loss state).

use super::config::{CcKind, TcpConfig, WindowGrowth, WindowReduction};
use super::cubic::Cubic;
use super::reno;

/// What the sender knows when an ACK acknowledges new data.
#[derive(Clone, Copy, Debug)]
pub struct AckedInfo {
    /// Segments this ACK newly acknowledges (cumulatively).
    pub acked_pkts: u32,
    /// Oldest unacknowledged segment after the ACK.
    pub snd_una: u32,
    /// One past the highest segment sent.
    pub snd_max: u32,
    /// The RTT sample this ACK gave, seconds (None under Karn's rule).
    pub rtt_sample_s: Option<f64>,
    /// Time of the ACK, seconds.
    pub now_s: f64,
    /// Smoothed RTT after this ACK, seconds (None before the first sample). CUBIC and
    /// HyStart take their delays from it, as ns-3.37 passes its latest RTT estimate.
    pub srtt_s: Option<f64>,
}

/// Congestion control of one flow.
#[derive(Clone, Debug)]
pub enum CongestionControl {
    /// Reno/NewReno, with its growth and reduction rules.
    Reno {
        growth: WindowGrowth,
        reduction: WindowReduction,
    },
    /// CUBIC.
    Cubic(Cubic),
}

impl CongestionControl {
    /// The algorithm the configuration asks for.
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.cc {
            CcKind::Reno => CongestionControl::Reno {
                growth: cfg.window_growth,
                reduction: cfg.window_reduction,
            },
            CcKind::Cubic => CongestionControl::Cubic(Cubic::new(cfg)),
        }
    }

    /// Every ACK of new data, in any state (ns-3's PktsAcked), before any window change it
    /// brings. Returns Some(new ssthresh, segments) when HyStart ends slow start (the sender
    /// sets ssthresh to it: the current cwnd).
    pub fn on_pkts_acked(
        &mut self,
        info: &AckedInfo,
        cwnd_pkts: f64,
        ssthresh_pkts: f64,
    ) -> Option<f64> {
        match self {
            CongestionControl::Reno { .. } => None,
            CongestionControl::Cubic(c) => c.on_pkts_acked(info, cwnd_pkts, ssthresh_pkts),
        }
    }

    /// Window growth on an ACK of new data outside loss recovery: slow start below ssthresh,
    /// congestion avoidance above (ns-3's IncreaseWindow). Returns the new cwnd in segments.
    pub fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        match self {
            CongestionControl::Reno { growth, .. } => {
                let counted = match growth {
                    WindowGrowth::PerSegment => info.acked_pkts,
                    WindowGrowth::PerAck => 1,
                };
                reno::increase_window(cwnd_pkts, ssthresh_pkts, counted)
            }
            CongestionControl::Cubic(c) => c.increase_window(info, cwnd_pkts, ssthresh_pkts),
        }
    }

    /// ssthresh after a loss or ECN echo (ns-3's GetSsThresh): for Reno from the flight size
    /// (RFC 5681) or from cwnd (ns-2), for CUBIC from cwnd.
    pub fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        match self {
            CongestionControl::Reno {
                reduction: WindowReduction::Flight,
                ..
            } => reno::ssthresh_after_loss(flight_pkts),
            CongestionControl::Reno {
                reduction: WindowReduction::Cwnd,
                ..
            } => reno::ssthresh_from_cwnd(cwnd_pkts),
            CongestionControl::Cubic(c) => c.ssthresh_after_congestion(cwnd_pkts),
        }
    }

    /// cwnd right after a cut to `ssthresh_pkts`, before any fast-recovery inflation: ssthresh
    /// itself (RFC 5681 §3.2 step 2, CUBIC), or half of cwnd for Reno reducing from cwnd (ns-2's
    /// slowdown with precisionReduce_, which keeps the fraction ssthresh drops).
    pub fn cwnd_after_congestion(&self, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        match self {
            CongestionControl::Reno {
                reduction: WindowReduction::Cwnd,
                ..
            } => cwnd_pkts / 2.0,
            _ => ssthresh_pkts,
        }
    }

    /// Whether the ACK that ends fast recovery also grows the window (Reno growing per ACK,
    /// as ns-2's opencwnd runs on every ACK of new data).
    pub fn grows_on_recovery_exit(&self) -> bool {
        matches!(
            self,
            CongestionControl::Reno {
                growth: WindowGrowth::PerAck,
                ..
            }
        )
    }

    /// A retransmission timeout happened (ns-3 enters CA_LOSS: CUBIC resets its epoch state
    /// and HyStart). Call it after `ssthresh_after_congestion` for the same timeout, as
    /// ns-3.37 reduces ssthresh before it enters the loss state.
    pub fn on_timeout(&mut self) {
        match self {
            CongestionControl::Reno { .. } => {}
            CongestionControl::Cubic(c) => c.on_timeout(),
        }
    }
}
