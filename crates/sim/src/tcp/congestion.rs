//! The congestion-control algorithm of a sender: Reno or CUBIC behind one interface.

use super::config::{CcKind, TcpConfig};
use super::cubic::Cubic;
use super::reno;

/// Congestion control of one flow.
#[derive(Clone, Debug)]
pub enum CongestionControl {
    /// Reno/NewReno.
    Reno,
    /// CUBIC.
    Cubic(Cubic),
}

impl CongestionControl {
    /// The algorithm the configuration asks for.
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.cc {
            CcKind::Reno => CongestionControl::Reno,
            CcKind::Cubic => CongestionControl::Cubic(Cubic::new(
                cfg.cubic_c,
                cfg.cubic_beta,
                cfg.fast_convergence,
            )),
        }
    }

    /// Window growth in congestion avoidance.
    pub fn on_ack_avoidance(&mut self, cwnd: f64, acked: u32, now_s: f64, rtt_s: f64) -> f64 {
        match self {
            CongestionControl::Reno => reno::on_ack_avoidance(cwnd, acked),
            CongestionControl::Cubic(c) => c.on_ack_avoidance(cwnd, acked, now_s, rtt_s),
        }
    }

    /// ssthresh after a loss or ECN echo, given the window and the flight size.
    pub fn ssthresh_after_congestion(&mut self, cwnd: f64, flight_pkts: u32) -> f64 {
        match self {
            CongestionControl::Reno => reno::ssthresh_after_loss(flight_pkts),
            CongestionControl::Cubic(c) => c.on_congestion(cwnd),
        }
    }
}
