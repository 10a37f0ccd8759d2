//! DCTCP, Data Center TCP (Alizadeh et al. 2010; RFC 8257), as ns-3.37's `TcpDctcp` runs it:
//! - the sender estimates α, the fraction of its bytes that met congestion, once per window of
//!   data: F = bytes acknowledged by ACKs carrying ECE / bytes acknowledged, and
//!   α ← (1 − g)·α + g·F (RFC 8257 §3.3 steps 3–8);
//! - on an ECN echo (at most once per RTT, the sender's CWR state) and on a loss, ssthresh =
//!   (1 − α/2)·cwnd (RFC 8257 §3.3 step 9), reached through the sender's window-reduction
//!   path as for any algorithm;
//! - window growth is Linux Reno's ([`super::linux_reno`]), ns-3's parent class of TcpDctcp;
//! - it needs ECN with per-CE feedback (the receiver's side of RFC 8257 §3.2 is in
//!   `tcp/receiver.rs`), sending ECT(0) unless configured for ECT(1) (ns-3's UseEct0).
//!
//! On a loss (fast retransmit or timeout) ns-3.37 applies the same (1 − α/2), and so does this
//! model by default, to compare with ns-3; `tcp.dctcp_halve_on_loss = true` halves instead, as
//! RFC 8257 §3.5 asks and Linux's `dctcp_react_to_loss` does (ssthresh = max(cwnd/2, 2)).

use super::controller::{AckedInfo, Controller, EcnUse};
use super::linux_reno::LinuxReno;
use crate::tcp::config::{EcnFeedback, EctCodepoint, TcpConfig};

/// DCTCP's state (ns-3.37 `TcpDctcp`).
#[derive(Clone, Copy, Debug)]
pub struct Dctcp {
    /// Window growth, Linux Reno's.
    growth: LinuxReno,
    /// Estimation gain g (RFC 8257 §3.3 step 7).
    g: f64,
    /// α: the estimated fraction of bytes marked, in [0, 1].
    alpha: f64,
    /// Segments acknowledged in the current observation window.
    acked_pkts: u64,
    /// Of those, segments acknowledged by ACKs that carried ECE.
    acked_ece_pkts: u64,
    /// The observation window ends when this segment is acknowledged (ns-3's m_nextSeq); None
    /// before the first ACK.
    window_end: Option<u32>,
    /// A loss halves the window (RFC 8257 §3.5) instead of taking α/2 of it.
    halve_on_loss: bool,
}

impl Dctcp {
    /// The current estimate α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl Controller for Dctcp {
    const ECN_USE: EcnUse = EcnUse::Required {
        codepoint: EctCodepoint::Ect0,
        feedback: EcnFeedback::PerCe,
    };

    fn new(cfg: &TcpConfig) -> Self {
        Dctcp {
            growth: LinuxReno::new(cfg),
            g: cfg.dctcp_g,
            alpha: cfg.dctcp_alpha_init,
            acked_pkts: 0,
            acked_ece_pkts: 0,
            window_end: None,
            halve_on_loss: cfg.dctcp_halve_on_loss,
        }
    }

    /// ns-3.37 `TcpDctcp::PktsAcked`: count the ACK's segments (and, with ECE, its marked
    /// ones); once the window that was outstanding at the last update is acknowledged,
    /// α ← (1 − g)·α + g·F (RFC 8257 §3.3 eq. in step 8) and a new window starts at the next
    /// segment to send.
    fn on_pkts_acked(
        &mut self,
        info: &AckedInfo,
        _cwnd_pkts: f64,
        _ssthresh_pkts: f64,
    ) -> Option<f64> {
        self.acked_pkts += u64::from(info.acked_pkts);
        if info.ece {
            self.acked_ece_pkts += u64::from(info.acked_pkts);
        }
        let window_end = *self.window_end.get_or_insert(info.snd_max);
        if info.snd_una >= window_end {
            let marked_fraction = if self.acked_pkts > 0 {
                self.acked_ece_pkts as f64 / self.acked_pkts as f64
            } else {
                0.0
            };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * marked_fraction;
            self.window_end = Some(info.snd_max);
            self.acked_pkts = 0;
            self.acked_ece_pkts = 0;
        }
        None
    }

    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        self.growth.increase_window(info, cwnd_pkts, ssthresh_pkts)
    }

    /// ns-3.37 `TcpDctcp::GetSsThresh` (RFC 8257 §3.3 step 9): (1 − α/2)·cwnd.
    fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, _flight_pkts: u32) -> f64 {
        (1.0 - self.alpha / 2.0) * cwnd_pkts
    }

    /// A loss: ns-3.37's (1 − α/2)·cwnd, or with `halve_on_loss` RFC 8257 §3.5's answer as
    /// Linux `dctcp_react_to_loss` gives it, max(cwnd/2, 2).
    fn ssthresh_after_loss(&mut self, cwnd_pkts: f64, flight_pkts: u32) -> f64 {
        if self.halve_on_loss {
            (cwnd_pkts / 2.0).max(2.0)
        } else {
            self.ssthresh_after_congestion(cwnd_pkts, flight_pkts)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked_pkts: u32, snd_una: u32, snd_max: u32, ece: bool) -> AckedInfo {
        AckedInfo {
            snd_una,
            snd_max,
            ece,
            ..AckedInfo::of_segments(acked_pkts)
        }
    }

    #[test]
    fn a_loss_takes_alpha_as_ns3_or_halves_as_rfc8257() {
        let mut ns3 = Dctcp::new(&TcpConfig::ns3());
        ns3.alpha = 0.2;
        assert_eq!(ns3.ssthresh_after_loss(40.0, 40), 36.0);
        let cfg = TcpConfig {
            dctcp_halve_on_loss: true,
            ..TcpConfig::ns3()
        };
        let mut rfc = Dctcp::new(&cfg);
        rfc.alpha = 0.2;
        assert_eq!(rfc.ssthresh_after_loss(40.0, 40), 20.0);
        assert_eq!(rfc.ssthresh_after_loss(3.0, 3), 2.0);
        // An ECN echo still takes α/2.
        assert_eq!(rfc.ssthresh_after_congestion(40.0, 40), 36.0);
    }

    #[test]
    fn alpha_starts_at_one_and_cuts_like_reno_until_estimated() {
        let mut d = Dctcp::new(&TcpConfig::ns3());
        assert_eq!(d.alpha(), 1.0);
        assert_eq!(d.ssthresh_after_congestion(40.0, 40), 20.0);
    }

    #[test]
    fn alpha_moves_by_g_towards_the_marked_fraction_once_per_window() {
        let mut d = Dctcp::new(&TcpConfig::ns3());
        // The first ACK opens a window ending at segment 20.
        d.on_pkts_acked(&ack(2, 2, 20, false), 10.0, 1e9);
        assert_eq!(d.window_end, Some(20));
        // 18 more segments, 6 of them under ECE: F = 6/20 at the window's end.
        for i in 0..9u32 {
            let una = 4 + 2 * i;
            d.on_pkts_acked(&ack(2, una, 30, i < 3), 10.0, 1e9);
        }
        let expected = (1.0 - 1.0 / 16.0) + (1.0 / 16.0) * (6.0 / 20.0);
        assert!((d.alpha() - expected).abs() < 1e-12, "{}", d.alpha());
        assert_eq!(d.window_end, Some(30));
        assert_eq!((d.acked_pkts, d.acked_ece_pkts), (0, 0));
        // ssthresh = (1 − α/2)·cwnd.
        let cut = d.ssthresh_after_congestion(100.0, 100);
        assert!((cut - (1.0 - expected / 2.0) * 100.0).abs() < 1e-9);
    }

    #[test]
    fn without_marks_alpha_decays_geometrically() {
        let mut cfg = TcpConfig::ns3();
        cfg.dctcp_g = 0.5;
        let mut d = Dctcp::new(&cfg);
        let mut una = 0;
        for _ in 0..3 {
            una += 10;
            d.on_pkts_acked(&ack(10, una, una, false), 10.0, 1e9);
        }
        assert_eq!(d.alpha(), 0.125);
    }

    #[test]
    fn it_needs_ecn_with_per_ce_feedback() {
        assert_eq!(
            Dctcp::ECN_USE,
            EcnUse::Required {
                codepoint: EctCodepoint::Ect0,
                feedback: EcnFeedback::PerCe
            }
        );
    }
}
