//! LEDBAT (RFC 6817) as ns-3.37's `TcpLedbat` implements it on top of `TcpNewReno`:
//! - delays: the current delay is the lowest of the last few samples (the noise filter,
//!   RFC 6817 §3.4.2), the base delay the lowest of the per-minute minima of the last ten
//!   minutes (§3.4.1);
//! - slow start: NewReno's, allowed until the first congestion-avoidance step and again
//!   whenever cwnd falls to one segment;
//! - congestion avoidance: cwnd += GAIN · off_target · acked · MSS / cwnd, off_target =
//!   (TARGET − queuing delay)/TARGET (§2.4.2), capped at the flight plus the segments
//!   acknowledged and at least MIN_CWND = 2 segments; when cwnd is at or below ssthresh,
//!   ssthresh = cwnd − 1 byte. Without delay samples (no timestamps) it is NewReno's;
//! - on congestion: NewReno's max(flight/2, 2).
//!
//! ns-3.37 measures one-way delay as TSval − TSecr of the ACK in milliseconds (the data
//! segment's forward delay plus the receiver's delayed-ACK hold). aqmlab's ACKs carry only
//! the echoed timestamp, so the delay here is the RTT sample from the timestamp echo, in
//! whole milliseconds (a reconstruction): the reverse path's constant delay adds the same
//! amount to the current and the base delay and cancels from the queuing delay; a queue on
//! the reverse path would count here and not in ns-3. As in ns-3.37, the buffers keep one
//! sample fewer than their lengths, a new base-delay slot opens when more than 60 whole
//! seconds have passed since the last one, and the segments of duplicate ACKs are not
//! sampled (ns-3 samples them; aqmlab gives them no RTT). Attribute defaults of ns-3.37:
//! TargetDelay 100 ms and Gain 1 (`tcp.ledbat_target_ms`, `tcp.ledbat_gain`: RFC 7928 §5.4
//! suggests 5 ms and 10), BaseHistoryLen 10, NoiseFilterLen 4, slow start on, MinCwnd 2.

use super::controller::{AckedInfo, Controller, WindowUpdate};
use super::reno::{ns3_congestion_avoidance, ns3_whole_bytes, ssthresh_after_loss};
use crate::tcp::config::TcpConfig;

/// ns-3.37 `TcpLedbat::BaseHistoryLen` (RFC 6817 BASE_HISTORY).
const BASE_HISTORY_LEN: usize = 10;
/// ns-3.37 `TcpLedbat::NoiseFilterLen` (RFC 6817 CURRENT_FILTER).
const NOISE_FILTER_LEN: usize = 4;
/// ns-3.37 `TcpLedbat::MinCwnd` (RFC 6817 MIN_CWND), segments.
const MIN_CWND_PKTS: f64 = 2.0;
/// A new base-delay slot opens after more than this many whole seconds (RFC 6817 §3.4.1:
/// one minimum per minute).
const ROLLOVER_S: u64 = 60;

/// Delay samples, milliseconds, with the index of the lowest (ns-3.37's OwdCircBuf).
#[derive(Clone, Debug, Default)]
struct DelayBuffer {
    samples: Vec<u32>,
    min: usize,
}

impl DelayBuffer {
    /// The lowest sample, u32::MAX when empty.
    fn min_ms(&self) -> u32 {
        self.samples.get(self.min).copied().unwrap_or(u32::MAX)
    }

    /// ns-3.37 `AddDelay`: append; at `max_len` samples drop the oldest.
    fn add(&mut self, owd_ms: u32, max_len: usize) {
        self.samples.push(owd_ms);
        if self.samples[self.min] > owd_ms {
            self.min = self.samples.len() - 1;
        }
        if self.samples.len() >= max_len {
            self.samples.remove(0);
            self.min = (0..self.samples.len())
                .min_by_key(|&i| (self.samples[i], i))
                .unwrap_or(0);
        }
    }
}

/// LEDBAT's state.
#[derive(Clone, Debug)]
pub struct Ledbat {
    base_history: DelayBuffer,
    noise_filter: DelayBuffer,
    /// Whole seconds at the last base-delay slot.
    last_rollover_s: u64,
    /// Slow start is still allowed.
    can_ss: bool,
    /// Delay samples exist (timestamps on).
    valid_owd: bool,
    pending: WindowUpdate,
    segment_bytes: u32,
    /// TARGET, milliseconds (`tcp.ledbat_target_ms`).
    target_ms: f64,
    /// GAIN (`tcp.ledbat_gain`).
    gain: f64,
}

impl Ledbat {
    /// ns-3.37 `UpdateBaseDelay`: a new slot once a minute, else a lower sample replaces the
    /// newest slot's.
    fn update_base_delay(&mut self, owd_ms: u32, now_s: f64) {
        let history = &mut self.base_history;
        if history.samples.is_empty() {
            history.add(owd_ms, BASE_HISTORY_LEN);
            return;
        }
        let now_whole_s = now_s as u64;
        if now_whole_s - self.last_rollover_s > ROLLOVER_S {
            self.last_rollover_s = now_whole_s;
            history.add(owd_ms, BASE_HISTORY_LEN);
        } else {
            let last = history.samples.len() - 1;
            if owd_ms < history.samples[last] {
                history.samples[last] = owd_ms;
                if owd_ms < history.samples[history.min] {
                    history.min = last;
                }
            }
        }
    }

    /// ns-3.37 `TcpLedbat::CongestionAvoidance` (RFC 6817 §2.4.2).
    fn congestion_avoidance(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh: f64) -> f64 {
        let acked = info.acked_pkts;
        if !self.valid_owd {
            return ns3_congestion_avoidance(cwnd_pkts, acked, self.segment_bytes);
        }
        let current = i64::from(self.noise_filter.min_ms());
        let base = i64::from(self.base_history.min_ms());
        let offset = self.gain * (self.target_ms - (current - base) as f64);
        let mss = f64::from(self.segment_bytes);
        let cwnd_bytes = ns3_whole_bytes(cwnd_pkts, self.segment_bytes);
        let snd_cwnd_cnt = (offset * f64::from(acked) * mss) as i32;
        let inc = f64::from(snd_cwnd_cnt) / (self.target_ms * cwnd_bytes);
        let max_bytes = f64::from(info.snd_max - info.snd_una + acked) * mss;
        let new_bytes = (cwnd_bytes + inc * mss)
            .floor()
            .min(max_bytes)
            .max(MIN_CWND_PKTS * mss);
        let cwnd = new_bytes / mss;
        if cwnd <= ssthresh {
            self.pending.ssthresh_pkts = Some((new_bytes - 1.0) / mss);
        }
        cwnd
    }
}

impl Controller for Ledbat {
    fn new(cfg: &TcpConfig) -> Self {
        Ledbat {
            base_history: DelayBuffer::default(),
            noise_filter: DelayBuffer::default(),
            last_rollover_s: 0,
            can_ss: true,
            valid_owd: cfg.timestamps,
            pending: WindowUpdate::default(),
            segment_bytes: cfg.payload_bytes(),
            target_ms: cfg.ledbat_target_ms,
            gain: cfg.ledbat_gain,
        }
    }

    /// ns-3.37 `TcpLedbat::PktsAcked`: a delay sample into the noise filter and the base
    /// history.
    fn on_pkts_acked(&mut self, info: &AckedInfo, _cwnd: f64, _ssthresh: f64) -> Option<f64> {
        if let (true, Some(rtt_s)) = (self.valid_owd, info.rtt_sample_s) {
            let owd_ms = (rtt_s * 1e3).round() as u32;
            self.noise_filter.add(owd_ms, NOISE_FILTER_LEN);
            self.update_base_delay(owd_ms, info.now_s);
        }
        None
    }

    /// ns-3.37 `TcpLedbat::IncreaseWindow`.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        if cwnd_pkts <= 1.0 {
            self.can_ss = true;
        }
        if cwnd_pkts <= ssthresh_pkts && self.can_ss {
            if info.acked_pkts >= 1 {
                cwnd_pkts + 1.0
            } else {
                cwnd_pkts
            }
        } else {
            self.can_ss = false;
            self.congestion_avoidance(info, cwnd_pkts, ssthresh_pkts)
        }
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

    const MSS: f64 = 948.0;

    fn ledbat() -> Ledbat {
        Ledbat::new(&TcpConfig::ns3())
    }

    fn ack(now_s: f64, acked_pkts: u32, rtt_ms: f64) -> AckedInfo {
        AckedInfo {
            now_s,
            snd_una: 0,
            snd_max: 1000,
            rtt_sample_s: Some(rtt_ms * 1e-3),
            ..AckedInfo::of_segments(acked_pkts)
        }
    }

    #[test]
    fn buffers_keep_the_lowest_of_their_last_samples() {
        let mut b = DelayBuffer::default();
        assert_eq!(b.min_ms(), u32::MAX);
        for ms in [50, 40, 60] {
            b.add(ms, NOISE_FILTER_LEN);
        }
        assert_eq!(b.min_ms(), 40);
        // The fourth sample drops the oldest: three are kept.
        b.add(70, NOISE_FILTER_LEN);
        assert_eq!((b.samples.clone(), b.min_ms()), (vec![40, 60, 70], 40));
        b.add(80, NOISE_FILTER_LEN);
        assert_eq!(b.min_ms(), 60);
    }

    #[test]
    fn base_delay_keeps_one_minimum_per_minute() {
        let mut l = ledbat();
        l.on_pkts_acked(&ack(1.0, 1, 120.0), 10.0, 5.0);
        l.on_pkts_acked(&ack(2.0, 1, 100.0), 10.0, 5.0);
        assert_eq!(l.base_history.samples, vec![100]);
        l.on_pkts_acked(&ack(61.5, 1, 130.0), 10.0, 5.0);
        assert_eq!(l.base_history.samples, vec![100, 130]);
        assert_eq!(l.base_history.min_ms(), 100);
    }

    #[test]
    fn avoidance_steers_the_queue_to_the_target() {
        // Base 100 ms, current 150 ms: off_target = (100 − 50)/100, so an ACK of one segment
        // at cwnd 10 adds 0.5 · MSS / 10 segments of bytes: 50 · 948 / (100 · 9480) · 948.
        let mut l = ledbat();
        l.can_ss = false;
        l.on_pkts_acked(&ack(1.0, 1, 100.0), 10.0, 5.0);
        for _ in 0..3 {
            l.on_pkts_acked(&ack(1.0, 1, 150.0), 10.0, 5.0);
        }
        let cwnd = l.increase_window(&ack(1.0, 1, 150.0), 10.0, 5.0);
        let inc_bytes = (9480.0 + 50.0 * MSS / (100.0 * 9480.0) * MSS).floor();
        assert_eq!(cwnd, inc_bytes / MSS);
        // Current 300 ms: off_target −1, one segment of bytes over cwnd taken off.
        for _ in 0..3 {
            l.on_pkts_acked(&ack(1.0, 1, 300.0), 10.0, 5.0);
        }
        let cwnd = l.increase_window(&ack(1.0, 1, 300.0), 10.0, 5.0);
        let dec_bytes = (9480.0 - 100.0 * MSS / (100.0 * 9480.0) * MSS).floor();
        assert_eq!(cwnd, dec_bytes / MSS);
        assert_eq!(l.take_window_update(), WindowUpdate::default());
        // At or below ssthresh, ssthresh follows one byte under cwnd; never under 2 segments.
        let cwnd = l.increase_window(&ack(1.0, 1, 300.0), 2.0, 5.0);
        assert_eq!(cwnd, 2.0);
        assert_eq!(
            l.take_window_update().ssthresh_pkts,
            Some((2.0 * MSS - 1.0) / MSS)
        );
    }

    #[test]
    fn target_and_gain_come_from_the_configuration() {
        // RFC 7928 §5.4's LEDBAT: TARGET 5 ms, GAIN 10. Base 100 ms, current 103 ms:
        // offset = 10 · (5 − 3) = 20, so one segment acked at cwnd 10 adds
        // 20 · 948 / (5 · 9480) segments of bytes; at 110 ms (offset −50) it takes them off.
        let cfg = TcpConfig {
            ledbat_target_ms: 5.0,
            ledbat_gain: 10.0,
            ..TcpConfig::ns3()
        };
        let mut l = Ledbat::new(&cfg);
        l.can_ss = false;
        l.on_pkts_acked(&ack(1.0, 1, 100.0), 10.0, 5.0);
        for _ in 0..3 {
            l.on_pkts_acked(&ack(1.0, 1, 103.0), 10.0, 5.0);
        }
        let cwnd = l.increase_window(&ack(1.0, 1, 103.0), 10.0, 5.0);
        assert_eq!(
            cwnd,
            (9480.0 + 20.0 * MSS / (5.0 * 9480.0) * MSS).floor() / MSS
        );
        for _ in 0..3 {
            l.on_pkts_acked(&ack(1.0, 1, 110.0), 10.0, 5.0);
        }
        let cwnd = l.increase_window(&ack(1.0, 1, 110.0), 10.0, 5.0);
        assert_eq!(
            cwnd,
            (9480.0 - 50.0 * MSS / (5.0 * 9480.0) * MSS).floor() / MSS
        );
    }

    #[test]
    fn slow_start_until_the_first_avoidance_step() {
        let mut l = ledbat();
        assert_eq!(l.increase_window(&ack(1.0, 2, 100.0), 5.0, 5.0), 6.0);
        l.increase_window(&ack(1.0, 1, 100.0), 6.0, 5.0);
        assert!(!l.can_ss);
        assert!(l.increase_window(&ack(1.0, 1, 100.0), 3.0, 5.0) < 4.0);
        l.increase_window(&ack(1.0, 1, 100.0), 1.0, 5.0);
        assert!(l.can_ss, "cwnd at one segment allows slow start again");
    }

    #[test]
    fn without_timestamps_it_is_newreno() {
        let cfg = TcpConfig {
            timestamps: false,
            ..TcpConfig::ns3()
        };
        let mut l = Ledbat::new(&cfg);
        l.can_ss = false;
        l.on_pkts_acked(&ack(1.0, 1, 300.0), 10.0, 5.0);
        assert!(l.noise_filter.samples.is_empty());
        let cwnd = l.increase_window(&ack(1.0, 1, 300.0), 10.0, 5.0);
        assert_eq!(cwnd, 10.0 + 94.0 / MSS);
        assert_eq!(l.ssthresh_after_congestion(10.0, 10), 5.0);
    }
}
