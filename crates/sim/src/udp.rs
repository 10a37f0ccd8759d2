//! UDP sources: constant bit rate (ns-2's `Application/Traffic/CBR`) and exponential ON/OFF
//! (ns-2's `Application/Traffic/Exponential`), sending fixed-size packets that nobody
//! acknowledges. The receiving side only counts (see the per-flow statistics).
//!
//! Timing follows ns-2.35's `tools/cbr_traffic.cc` and `tools/expoo.cc`:
//! - CBR sends its first packet when started, then one every `interval = size·8 / rate`
//!   (with `random`, each gap is `interval·(1 + U(−0.5, 0.5))`).
//! - ON/OFF draws, at the start of each burst, its length in packets as an exponential of
//!   mean `on_mean / interval` rounded to the nearest integer (at least 1) and an idle time
//!   exponential of mean `off_mean`; the gap before the burst's first packet is
//!   `interval + idle`, the gaps inside it `interval`. The first packet therefore comes one
//!   idle period (plus an interval) after the start.

use crate::packet::Packet;
use crate::scenario::Source;
use crate::time::s_to_ns;
use aqm::Rng;

/// Which pattern a source follows.
#[derive(Clone, Debug)]
enum Pattern {
    Cbr {
        random: bool,
    },
    OnOff {
        burst_mean_pkts: f64,
        off_mean_s: f64,
    },
}

/// One UDP flow's sender.
#[derive(Clone, Debug)]
pub struct UdpSource {
    flow: u32,
    dst_node: u32,
    packet_bytes: u32,
    /// Gap between packets at the source's rate, seconds.
    interval_s: f64,
    pattern: Pattern,
    /// Packets left in the current ON burst (ns-2's rem_).
    burst_left: u32,
    rng: Rng,
    next_seq: u32,
    running: bool,
    /// Packets sent.
    pub packets_sent: u64,
}

impl UdpSource {
    /// The sender of UDP flow `flow` toward `dst_node` as `source` describes it; its random
    /// draws come from stream "udp"/`flow`. Panics on a TCP source (the caller dispatches).
    pub fn new(flow: u32, dst_node: u32, source: &Source, seed: u64) -> Self {
        let (rate_kbps, packet_bytes, pattern) = match *source {
            Source::UdpCbr {
                rate_kbps,
                packet_bytes,
                random,
            } => (rate_kbps, packet_bytes, Pattern::Cbr { random }),
            Source::UdpOnOff {
                rate_kbps,
                packet_bytes,
                on_mean_s,
                off_mean_s,
            } => {
                let interval_s = f64::from(packet_bytes) * 8.0 / (rate_kbps * 1e3);
                (
                    rate_kbps,
                    packet_bytes,
                    Pattern::OnOff {
                        burst_mean_pkts: on_mean_s / interval_s,
                        off_mean_s,
                    },
                )
            }
            Source::TcpBulk | Source::TcpFinite { .. } | Source::UdpProbe { .. } => {
                unreachable!("a UDP source")
            }
        };
        UdpSource {
            flow,
            dst_node,
            packet_bytes,
            interval_s: f64::from(packet_bytes) * 8.0 / (rate_kbps * 1e3),
            pattern,
            burst_left: 0,
            rng: Rng::stream(seed, "udp", flow.into()),
            next_seq: 0,
            running: false,
            packets_sent: 0,
        }
    }

    /// Size of each packet on the wire, bytes.
    pub fn packet_bytes(&self) -> u32 {
        self.packet_bytes
    }

    /// Start at `now_ns`: the time of the first packet.
    pub fn start(&mut self, now_ns: u64) -> u64 {
        self.running = true;
        match self.pattern {
            Pattern::Cbr { .. } => now_ns,
            Pattern::OnOff { .. } => now_ns.saturating_add(s_to_ns(self.next_gap_s())),
        }
    }

    /// Stop: no packet after this.
    pub fn stop(&mut self) {
        self.running = false;
    }

    /// Send the packet due at `now_ns` into `out`; returns when the next one is due (None
    /// once stopped).
    pub fn emit(&mut self, now_ns: u64, out: &mut Vec<Packet>) -> Option<u64> {
        if !self.running {
            return None;
        }
        out.push(Packet::data(
            self.flow,
            self.next_seq,
            self.dst_node,
            self.packet_bytes,
            now_ns,
            0,
        ));
        self.next_seq = self.next_seq.wrapping_add(1);
        self.packets_sent += 1;
        Some(now_ns.saturating_add(s_to_ns(self.next_gap_s()).max(1)))
    }

    /// The gap to the next packet, seconds (ns-2's next_interval).
    fn next_gap_s(&mut self) -> f64 {
        match self.pattern {
            Pattern::Cbr { random: false } => self.interval_s,
            Pattern::Cbr { random: true } => {
                self.interval_s * (1.0 + self.rng.uniform_in(-0.5, 0.5))
            }
            Pattern::OnOff {
                burst_mean_pkts,
                off_mean_s,
            } => {
                let mut gap = self.interval_s;
                if self.burst_left == 0 {
                    let len = (self.rng.exponential(burst_mean_pkts) + 0.5).floor();
                    self.burst_left = (len.min(f64::from(u32::MAX)) as u32).max(1);
                    gap += self.rng.exponential(off_mean_s);
                }
                self.burst_left -= 1;
                gap
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cbr() -> Source {
        Source::UdpCbr {
            rate_kbps: 300.0,
            packet_bytes: 500,
            random: false,
        }
    }

    #[test]
    fn cbr_sends_at_once_then_every_interval() {
        let mut s = UdpSource::new(3, 9, &cbr(), 1);
        let mut out = Vec::new();
        let t0 = s.start(1_000);
        assert_eq!(t0, 1_000);
        // 500 B at 300 kb/s: 4000 bits / 300 000 b/s = 13.333 ms.
        let t1 = s.emit(t0, &mut out).unwrap();
        assert_eq!(t1 - t0, 13_333_333);
        assert_eq!(out[0].flow, 3);
        assert_eq!(out[0].dst, 9);
        assert_eq!(out[0].bytes(), 500);
        assert!(!out[0].is_ack());
        s.stop();
        assert_eq!(s.emit(t1, &mut out), None);
        assert_eq!(s.packets_sent, 1);
    }

    #[test]
    fn onoff_bursts_average_the_on_and_off_means() {
        // 64 kb/s, 500 B: 62.5 ms per packet, 8 packets per 0.5 s burst on average.
        let src = Source::UdpOnOff {
            rate_kbps: 64.0,
            packet_bytes: 500,
            on_mean_s: 0.5,
            off_mean_s: 0.5,
        };
        let mut s = UdpSource::new(0, 1, &src, 7);
        let mut out = Vec::new();
        let mut t = s.start(0);
        assert!(t >= 62_500_000, "the first packet waits an idle period");
        while t < s_to_ns(2000.0) {
            t = s.emit(t, &mut out).unwrap();
        }
        // A cycle is a burst of n packets, one interval each, and one idle period: the
        // long-run rate is rate·on/(on + off) = 32 kb/s.
        let rate_bps = out.len() as f64 * 500.0 * 8.0 / 2000.0;
        let expected = 64e3 * 0.5 / (0.5 + 0.5);
        assert!(
            (rate_bps / expected - 1.0).abs() < 0.1,
            "{rate_bps} vs {expected}"
        );
        let gaps: Vec<u64> = out
            .windows(2)
            .map(|w| w[1].sent_ns - w[0].sent_ns)
            .collect();
        assert!(gaps.iter().all(|&g| g >= 62_500_000));
        assert!(gaps.iter().filter(|&&g| g == 62_500_000).count() > gaps.len() / 2);
    }
}
