//! The retransmission timer of a sender: RTT sampling and the RTO, either per RFC 6298 (a
//! sample from every ACK of new data, floating-point SRTT/RTTVAR, [`rfc6298`]) or as ns-2 does
//! ([`ns2`]), behind one interface that picks the estimator the configuration names. Both
//! apply Karn's rule: no sample from a retransmitted segment.

pub mod ns2;
pub mod rfc6298;

use crate::tcp::config::{RttEstimatorKind, TcpConfig};
use ns2::Ns2Estimator;
use rfc6298::Rfc6298Estimator;

/// The RTT estimator and retransmission timeout of one sender.
#[derive(Clone, Debug)]
pub enum RttEstimator {
    /// RFC 6298.
    Rfc6298(Rfc6298Estimator),
    /// ns-2's tick-based estimator.
    Ns2(Ns2Estimator),
}

impl RttEstimator {
    /// The estimator the configuration asks for.
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.rtt_estimator {
            RttEstimatorKind::Rfc6298 => RttEstimator::Rfc6298(Rfc6298Estimator::new(cfg)),
            RttEstimatorKind::Ns2 => RttEstimator::Ns2(Ns2Estimator::new(cfg)),
        }
    }

    /// Segment `seq` went on the wire at `now_ns`; `new_data` is false for a retransmission.
    pub fn on_transmit(&mut self, seq: u32, new_data: bool, now_ns: u64) {
        if let RttEstimator::Ns2(e) = self {
            e.on_transmit(seq, new_data, now_ns);
        }
    }

    /// An ACK of new data arrived: everything below `ackno` is acknowledged. `karn_sample_s` is
    /// the RTT of the newest segment it acknowledges when that segment was sent only once.
    /// Returns whether an RTT sample was taken. A sample ends the back-off unless
    /// `keep_backoff` (ns-2 while echoes keep cwnd at one segment).
    pub fn on_new_ack(
        &mut self,
        ackno: u32,
        now_ns: u64,
        karn_sample_s: Option<f64>,
        keep_backoff: bool,
    ) -> bool {
        match self {
            RttEstimator::Rfc6298(e) => match karn_sample_s {
                Some(r_s) => {
                    e.sample_with_backoff(r_s, keep_backoff);
                    true
                }
                None => false,
            },
            RttEstimator::Ns2(e) => e.on_new_ack(ackno, now_ns, keep_backoff),
        }
    }

    /// Take a sample outside the ACK clock (the SYN's round trip); ns-2's estimator times only
    /// its own segments and ignores it.
    pub fn sample(&mut self, r_s: f64) {
        if let RttEstimator::Rfc6298(e) = self {
            e.sample(r_s);
        }
    }

    /// End the back-off: the timeout is recomputed from SRTT and RTTVAR (ns-3 does so whenever
    /// a new ACK restarts the timer; ns-2's Sack1 at a partial ACK, t_backoff_ = 1).
    pub fn clear_backoff(&mut self) {
        match self {
            RttEstimator::Rfc6298(e) => e.clear_backoff(),
            RttEstimator::Ns2(e) => e.clear_backoff(),
        }
    }

    /// A partial ACK during NewReno's fast recovery: RFC 6298 takes the Karn sample as on any
    /// ACK of new data; ns-2's estimator (partialnewack) ends the timing of a segment the ACK
    /// covers without a sample, and then the back-off. Returns whether a sample was taken.
    pub fn on_partial_ack(&mut self, ackno: u32, now_ns: u64, karn_sample_s: Option<f64>) -> bool {
        match self {
            RttEstimator::Rfc6298(_) => self.on_new_ack(ackno, now_ns, karn_sample_s, false),
            RttEstimator::Ns2(e) => {
                e.end_timing(ackno);
                false
            }
        }
    }

    /// Double the timeout after an expiry.
    pub fn back_off(&mut self) {
        match self {
            RttEstimator::Rfc6298(e) => e.back_off(),
            RttEstimator::Ns2(e) => e.back_off(),
        }
    }

    /// The timeout in force, back-off included, seconds.
    pub fn rto_s(&self) -> f64 {
        match self {
            RttEstimator::Rfc6298(e) => e.rto_s(),
            RttEstimator::Ns2(e) => e.rto_s(),
        }
    }

    /// Smoothed RTT, seconds, if measured.
    pub fn srtt_s(&self) -> Option<f64> {
        match self {
            RttEstimator::Rfc6298(e) => e.srtt_s(),
            RttEstimator::Ns2(e) => e.srtt_s(),
        }
    }
}
