//! Pacing as ns-3.37's TcpSocketBase does it (`EnablePacing`): once the initial window is out
//! (PaceInitialWindow false), every segment put on the wire starts a timer of one segment's
//! payload at the pacing rate, and no further segment leaves while it runs; when it expires
//! the sender tries again. Without a rate-based congestion control the rate follows cwnd
//! after every ACK (UpdatePacingRate); with one (BBR) the algorithm sets it.

use super::config::TcpConfig;
use crate::time::s_to_ns;

/// ns-3.37's MaxPacingRate default, bits per second (tcp-socket-state.cc: 4 Gb/s).
pub const MAX_PACING_RATE_BPS: f64 = 4e9;

/// A sender's pacing state.
#[derive(Clone, Debug)]
pub struct Pacer {
    /// The pacing rate, segments per second.
    rate_pkts_per_s: f64,
    /// Segments a release may send back to back (1: one segment per timer, as ns-3).
    burst_pkts: u32,
    /// When the last release's burst went out, and how many segments it holds.
    burst_start_ns: u64,
    burst_sent_pkts: u32,
    /// When the pacing timer expires (it runs while now < this).
    release_ns: u64,
    /// A segment was held back by the running timer: the sender wants a wake-up at
    /// `release_ns`.
    held: bool,
}

impl Pacer {
    /// The pacer of a sender with `cfg`: the rate starts at MaxPacingRate (ns-3 sets
    /// m_pacingRate = m_maxPacingRate when the socket is made).
    pub fn new(cfg: &TcpConfig) -> Self {
        Pacer {
            rate_pkts_per_s: Self::max_rate_pkts_per_s(cfg),
            burst_pkts: 1,
            burst_start_ns: 0,
            burst_sent_pkts: 0,
            release_ns: 0,
            held: false,
        }
    }

    /// MaxPacingRate in segments of `cfg`'s payload per second.
    pub fn max_rate_pkts_per_s(cfg: &TcpConfig) -> f64 {
        MAX_PACING_RATE_BPS / (8.0 * f64::from(cfg.payload_bytes()))
    }

    /// The pacing rate, segments per second.
    pub fn rate_pkts_per_s(&self) -> f64 {
        self.rate_pkts_per_s
    }

    /// Set the pacing rate (a rate-based congestion control's choice), segments per second.
    pub fn set_rate_pkts_per_s(&mut self, rate_pkts_per_s: f64) {
        self.rate_pkts_per_s = rate_pkts_per_s;
    }

    /// Segments a release may send back to back.
    pub fn burst_pkts(&self) -> u32 {
        self.burst_pkts
    }

    /// Set the burst a release may send (a congestion control's GSO burst size), at least 1.
    pub fn set_burst_pkts(&mut self, burst_pkts: u32) {
        self.burst_pkts = burst_pkts.max(1);
    }

    /// ns-3.37's UpdatePacingRate: rate = factor · max(cwnd, in flight) / RTT, with factor
    /// PacingSsRatio while cwnd < ssthresh/2 and PacingCaRatio otherwise, RTT the latest
    /// estimate (m_lastRtt holds the smoothed RTT), capped by MaxPacingRate. Before the first
    /// RTT estimate ns-3 divides by zero, which the cap turns into MaxPacingRate.
    pub fn update_rate(
        &mut self,
        cwnd_pkts: f64,
        ssthresh_pkts: f64,
        in_flight_pkts: u32,
        srtt_s: Option<f64>,
        cfg: &TcpConfig,
    ) {
        let max = Self::max_rate_pkts_per_s(cfg);
        let factor = if cwnd_pkts < ssthresh_pkts / 2.0 {
            cfg.pacing_ss_ratio
        } else {
            cfg.pacing_ca_ratio
        };
        self.rate_pkts_per_s = match srtt_s {
            Some(rtt_s) if rtt_s > 0.0 => {
                (cwnd_pkts.max(f64::from(in_flight_pkts)) * factor / rtt_s).min(max)
            }
            _ => max,
        };
    }

    /// Whether the pacing timer holds segments back at `now_ns`: it runs, and no burst
    /// released at this instant has room left.
    pub fn holds(&self, now_ns: u64) -> bool {
        now_ns < self.release_ns && !self.burst_open(now_ns)
    }

    /// A burst went out at `now_ns` and may take more segments.
    fn burst_open(&self, now_ns: u64) -> bool {
        now_ns == self.burst_start_ns && self.burst_sent_pkts < self.burst_pkts
    }

    /// A segment went on the wire at `now_ns`: with the timer stopped it starts a burst and
    /// the timer for one segment at the pacing rate (ns-3's SendDataPacket,
    /// CalculateBytesTxTime); one more segment of the burst released at this instant runs the
    /// timer one segment longer, from the burst's start (Linux: the burst's length over the
    /// rate). A segment sent while the timer runs otherwise leaves it alone.
    pub fn on_sent(&mut self, now_ns: u64) {
        if now_ns >= self.release_ns {
            self.burst_start_ns = now_ns;
            self.burst_sent_pkts = 1;
        } else if self.burst_open(now_ns) {
            self.burst_sent_pkts += 1;
        } else {
            return;
        }
        let burst_s = f64::from(self.burst_sent_pkts) / self.rate_pkts_per_s;
        self.release_ns = self.burst_start_ns + s_to_ns(burst_s);
    }

    /// The sender wanted to send at `now_ns` while the timer ran.
    pub fn hold(&mut self) {
        self.held = true;
    }

    /// When the sender wants to be woken (the timer's expiry), if a segment was held back.
    pub fn wake_ns(&self) -> Option<u64> {
        self.held.then_some(self.release_ns)
    }

    /// The timer expired (ns-3's NotifyPacingPerformed): the sender tries to send again.
    pub fn on_wake(&mut self) {
        self.held = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> TcpConfig {
        TcpConfig::preset("ns3").unwrap()
    }

    #[test]
    fn rate_follows_cwnd_over_rtt_with_the_phase_factor() {
        let c = cfg();
        let mut p = Pacer::new(&c);
        // Slow start (10 < 100/2): 2.0 · 10 / 0.1 s = 200 segments/s.
        p.update_rate(10.0, 100.0, 4, Some(0.1), &c);
        assert!((p.rate_pkts_per_s() - 200.0).abs() < 1e-9);
        // Avoidance (60 ≥ 50): 1.2 · max(60, 70) / 0.1 s = 840 segments/s.
        p.update_rate(60.0, 100.0, 70, Some(0.1), &c);
        assert!((p.rate_pkts_per_s() - 840.0).abs() < 1e-9);
        // No RTT yet: MaxPacingRate, 4 Gb/s over 948-byte payloads.
        p.update_rate(60.0, 100.0, 70, None, &c);
        assert!((p.rate_pkts_per_s() - 4e9 / (8.0 * 948.0)).abs() < 1e-6);
    }

    #[test]
    fn one_segment_per_interval() {
        let c = cfg();
        let mut p = Pacer::new(&c);
        p.set_rate_pkts_per_s(1000.0);
        assert!(!p.holds(5));
        p.on_sent(5);
        assert!(p.holds(5) && p.holds(1_000_004) && !p.holds(1_000_005));
        // A second segment while the timer runs does not restart it.
        p.on_sent(10);
        assert!(!p.holds(1_000_005));
        assert_eq!(p.wake_ns(), None);
        p.hold();
        assert_eq!(p.wake_ns(), Some(1_000_005));
        p.on_wake();
        assert_eq!(p.wake_ns(), None);
    }

    #[test]
    fn a_burst_goes_out_at_once_and_holds_the_next_for_its_length() {
        let c = cfg();
        let mut p = Pacer::new(&c);
        p.set_rate_pkts_per_s(1000.0);
        p.set_burst_pkts(2);
        p.on_sent(5);
        // Room for a second segment at the same instant, not later.
        assert!(!p.holds(5) && p.holds(6));
        p.on_sent(5);
        assert!(p.holds(5) && p.holds(2_000_004) && !p.holds(2_000_005));
        // A release where the window lets one segment out: the timer runs for that one.
        p.on_sent(2_000_005);
        assert!(p.holds(2_000_006) && !p.holds(3_000_005));
        // A segment sent outside the burst while the timer runs leaves it alone.
        p.on_sent(2_500_000);
        assert!(!p.holds(3_000_005));
    }
}
