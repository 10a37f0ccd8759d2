//! CUBIC congestion control as ns-3.37's TcpCubic runs it (itself modelled on Linux 3.14),
//! against RFC 9438: the cubic window W_cubic(t) = C(t − K)³ + W_max (§4.2), an optional
//! Reno-friendly region (§4.3), β_cubic = 0.7 (§4.6), fast convergence (§4.7), the reset
//! after a timeout (§4.8), and slow start with HyStart (§4.10 recommends HyStart++, RFC 9406;
//! ns-3.37 runs the original HyStart, see `hystart.rs`).
//!
//! Where ns-3.37 departs from the RFC we follow ns-3.37:
//! - The window is counted in whole segments (⌊cwnd⌋) and grows by one whole segment once
//!   `cnt` segments have been acknowledged, `cnt` = ⌊cwnd/(target − cwnd)⌋ (the RFC adds
//!   (target − cwnd)/cwnd per ACK).
//! - The target is W_cubic one *minimum* delay ahead (the RFC: one RTT ahead), truncated to
//!   whole segments, with no lower clamp at cwnd: below cwnd it still grows by one segment
//!   per 100·cwnd acknowledged. Its upper clamp is `cnt` ≥ 2, half a segment per segment
//!   acknowledged (the RFC clamps the target to 1.5·cwnd).
//! - While W_max is 0 (no loss yet, or since a timeout) `cnt` is at most 20 (ns-3's
//!   CntClamp), so cwnd grows at least 5 % per RTT.
//! - ssthresh is β·cwnd, as in Linux (RFC 9438 §4.6 takes β·FlightSize).
//! - Slow start grows by the segments acknowledged (RFC 3465 byte counting), one ACK never
//!   both ends slow start and grows in congestion avoidance.
//! - ns-3.37 has no Reno-friendly region; `cubic_friendliness` adds RFC 9438's, with
//!   α_cubic = 3(1 − β)/(1 + β) throughout (the RFC's switch to α = 1 is not modelled).

use super::controller::{AckedInfo, Controller};
use super::hystart::HyStart;
use crate::tcp::config::TcpConfig;
use crate::time::{ns_to_s, s_to_ns};

/// With W_max unknown (0), at most this many segments acknowledged per segment of growth
/// (ns-3.37's CntClamp).
const CNT_CLAMP_PKTS: u32 = 20;
/// Delay samples within this time after an epoch starts are ignored, ns (ns-3.37's
/// CubicDelta, 10 ms, as Linux after a recovery).
const EPOCH_SETTLE_NS: u64 = 10_000_000;
/// A window this close below a whole number of segments counts as that number (rounding
/// noise of fractional window arithmetic; far below one byte).
const WHOLE_SEGMENT_SLACK_PKTS: f64 = 1e-6;

/// Whole segments in a window, as ns-3.37 divides cwnd bytes by the segment size.
fn whole_segments(cwnd_pkts: f64) -> u32 {
    (cwnd_pkts + WHOLE_SEGMENT_SLACK_PKTS).floor().max(0.0) as u32
}

/// One congestion-avoidance epoch: from the first ACK after a reduction.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    start_ns: u64,
    /// K, seconds: when W_cubic returns to the origin.
    k_s: f64,
    /// The origin of the cubic curve (W_max, or cwnd when it was above W_max), segments.
    origin_pkts: u32,
    /// W_est, the Reno-friendly estimate, segments.
    w_est_pkts: f64,
}

/// CUBIC's state between congestion events.
#[derive(Clone, Debug)]
pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    friendliness: bool,
    /// W_max: whole segments before the last reduction; 0 before the first and after a
    /// timeout.
    w_max_pkts: u32,
    epoch: Option<Epoch>,
    /// Segments acknowledged in congestion avoidance not yet turned into growth.
    acked_unused_pkts: u32,
    /// Smallest delay fed so far (since the last timeout), ns.
    delay_min_ns: Option<u64>,
    /// HyStart, when enabled.
    hystart: Option<HyStart>,
}

impl Cubic {
    /// α_cubic = 3(1 − β)/(1 + β), RFC 9438 §4.3.
    fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// `cnt`: segments to acknowledge per segment of growth at window `seg_cwnd`.
    fn acks_per_segment(&mut self, seg_cwnd: u32, now_ns: u64, acked_pkts: u32) -> u32 {
        let alpha = self.alpha();
        let (c, w_max) = (self.c, self.w_max_pkts);
        let epoch = self.epoch.get_or_insert_with(|| {
            // A new epoch, RFC 9438 §4.2 eq. (2): K = ∛((W_max − cwnd)/C) below W_max; at or
            // above it K = 0 and the curve starts from cwnd (as after a timeout, §4.8).
            let (k_s, origin_pkts) = if w_max > seg_cwnd {
                ((f64::from(w_max - seg_cwnd) / c).cbrt(), w_max)
            } else {
                (0.0, seg_cwnd)
            };
            Epoch {
                start_ns: now_ns,
                k_s,
                origin_pkts,
                w_est_pkts: f64::from(seg_cwnd),
            }
        });
        // W_cubic(t + d_min) = C(t + d_min − K)³ + origin, RFC 9438 eq. (1), with t since the
        // epoch start and the minimum delay for the RFC's RTT; the cube truncated to whole
        // segments.
        let t_s = ns_to_s(now_ns.saturating_sub(epoch.start_ns) + self.delay_min_ns.unwrap_or(0));
        let delta_pkts = (c * (t_s - epoch.k_s).abs().powi(3)) as u32;
        let target_pkts = if t_s < epoch.k_s {
            epoch.origin_pkts.saturating_sub(delta_pkts)
        } else {
            epoch.origin_pkts.saturating_add(delta_pkts)
        };
        let mut cnt = if target_pkts > seg_cwnd {
            seg_cwnd / (target_pkts - seg_cwnd)
        } else {
            seg_cwnd.saturating_mul(100)
        };
        if w_max == 0 {
            cnt = cnt.min(CNT_CLAMP_PKTS);
        }
        if self.friendliness {
            // Reno-friendly region, RFC 9438 §4.3 eq. (4): W_est += α·acked/cwnd; where W_est
            // is ahead of cwnd, grow at least as fast as reaching it within one window.
            epoch.w_est_pkts += alpha * f64::from(acked_pkts) / f64::from(seg_cwnd.max(1));
            let w_est_whole = epoch.w_est_pkts.floor() as u32;
            if w_est_whole > seg_cwnd {
                cnt = cnt.min(seg_cwnd / (w_est_whole - seg_cwnd));
            }
        }
        cnt.max(2)
    }

    /// W_max, whole segments (0 before the first loss and after a timeout).
    pub fn w_max_pkts(&self) -> u32 {
        self.w_max_pkts
    }
}

impl Controller for Cubic {
    /// CUBIC with the configuration's C, β, fast convergence, Reno-friendliness and HyStart.
    fn new(cfg: &TcpConfig) -> Self {
        Cubic {
            c: cfg.cubic_c,
            beta: cfg.cubic_beta,
            fast_convergence: cfg.fast_convergence,
            friendliness: cfg.cubic_friendliness,
            w_max_pkts: 0,
            epoch: None,
            acked_unused_pkts: 0,
            delay_min_ns: None,
            hystart: cfg
                .hystart
                .then(|| HyStart::new(cfg.hystart_low_window_pkts)),
        }
    }

    /// Every ACK of new data: keep the minimum delay and run HyStart. The delay is the
    /// smoothed RTT, as ns-3.37 passes its latest estimate, not the raw sample; an ACK before
    /// any estimate, or within 10 ms of an epoch's start, gives none. Returns the new
    /// ssthresh (= cwnd) when HyStart ends slow start.
    fn on_pkts_acked(
        &mut self,
        info: &AckedInfo,
        cwnd_pkts: f64,
        ssthresh_pkts: f64,
    ) -> Option<f64> {
        let now_ns = s_to_ns(info.now_s);
        if self
            .epoch
            .is_some_and(|e| now_ns.saturating_sub(e.start_ns) < EPOCH_SETTLE_NS)
        {
            return None;
        }
        let delay_ns = s_to_ns(info.srtt_s?);
        let delay_min_ns = self.delay_min_ns.map_or(delay_ns, |m| m.min(delay_ns));
        self.delay_min_ns = Some(delay_min_ns);
        let hystart = self.hystart.as_mut()?;
        hystart
            .on_delay(now_ns, cwnd_pkts, ssthresh_pkts, delay_ns, delay_min_ns)
            .then_some(cwnd_pkts)
    }

    /// Window growth on an ACK of new data outside recovery. Slow start (cwnd < ssthresh):
    /// HyStart's round bookkeeping, then cwnd += segments acknowledged (RFC 5681 §3.1 with
    /// RFC 3465 counting, as ns-3.37's CUBIC). Congestion avoidance: one segment once `cnt`
    /// segments have been acknowledged since the last one (RFC 9438 §4.2–4.5 in ns-3.37's
    /// form). Returns the new cwnd.
    fn increase_window(&mut self, info: &AckedInfo, cwnd_pkts: f64, ssthresh_pkts: f64) -> f64 {
        let now_ns = s_to_ns(info.now_s);
        if cwnd_pkts < ssthresh_pkts {
            if let Some(h) = &mut self.hystart {
                h.on_slow_start_ack(now_ns, info.snd_una, info.snd_max);
            }
            return cwnd_pkts + f64::from(info.acked_pkts);
        }
        if info.acked_pkts == 0 {
            return cwnd_pkts;
        }
        self.acked_unused_pkts = self.acked_unused_pkts.saturating_add(info.acked_pkts);
        let cnt = self.acks_per_segment(whole_segments(cwnd_pkts), now_ns, info.acked_pkts);
        if self.acked_unused_pkts >= cnt {
            self.acked_unused_pkts -= cnt;
            cwnd_pkts + 1.0
        } else {
            cwnd_pkts
        }
    }

    /// ssthresh after a loss or ECN echo: max(⌊β·cwnd⌋, 2) from the whole segments of cwnd,
    /// RFC 9438 §4.6 (which takes the flight size; ns-3.37 takes cwnd). W_max becomes cwnd,
    /// or with fast convergence ⌊cwnd·(1 + β)/2⌋ when cwnd is below the previous W_max
    /// (§4.7), and the epoch ends.
    fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, _flight_pkts: u32) -> f64 {
        let seg_cwnd = whole_segments(cwnd_pkts);
        self.w_max_pkts = if self.fast_convergence && seg_cwnd < self.w_max_pkts {
            (f64::from(seg_cwnd) * (1.0 + self.beta) / 2.0) as u32
        } else {
            seg_cwnd
        };
        self.epoch = None;
        f64::from(((f64::from(seg_cwnd) * self.beta) as u32).max(2))
    }

    /// A retransmission timeout (after the ssthresh reduction): W_max and the minimum delay
    /// are forgotten, so the next epoch starts from cwnd with K = 0 (RFC 9438 §4.8), and
    /// HyStart is armed again. As in ns-3.37, an epoch still running (a second timeout with
    /// no reduction in between) keeps its start but loses its origin and K.
    fn on_timeout(&mut self) {
        self.w_max_pkts = 0;
        self.delay_min_ns = None;
        if let Some(e) = &mut self.epoch {
            e.k_s = 0.0;
            e.origin_pkts = 0;
        }
        if let Some(h) = &mut self.hystart {
            h.on_timeout();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(friendliness: bool) -> TcpConfig {
        TcpConfig {
            cubic_friendliness: friendliness,
            hystart: false,
            ..TcpConfig::ns3()
        }
    }

    fn ack(now_s: f64, acked_pkts: u32) -> AckedInfo {
        AckedInfo {
            rtt_sample_s: Some(0.1),
            now_s,
            srtt_s: Some(0.1),
            ..AckedInfo::of_segments(acked_pkts)
        }
    }

    #[test]
    fn whole_segments_floor_with_slack() {
        assert_eq!(whole_segments(10.0), 10);
        assert_eq!(whole_segments(10.99), 10);
        assert_eq!(whole_segments(10.999_999_9), 11);
        assert_eq!(whole_segments(0.5), 0);
    }

    #[test]
    fn reduction_is_beta_of_whole_cwnd_with_fast_convergence() {
        let mut c = Cubic::new(&cfg(false));
        assert_eq!(c.ssthresh_after_congestion(100.7, 0), 70.0);
        assert_eq!(c.w_max_pkts(), 100);
        // 80 < 100: W_max = ⌊80·1.7/2⌋ = 68; ssthresh ⌊56⌋.
        assert_eq!(c.ssthresh_after_congestion(80.0, 0), 56.0);
        assert_eq!(c.w_max_pkts(), 68);
        // ⌊3·0.7⌋ = 2; ⌊2·0.7⌋ = 1 → 2.
        assert_eq!(c.ssthresh_after_congestion(3.0, 0), 2.0);
        assert_eq!(c.ssthresh_after_congestion(2.0, 0), 2.0);
    }

    #[test]
    fn cnt_follows_the_cubic_target() {
        let mut c = Cubic::new(&cfg(false));
        c.ssthresh_after_congestion(143.0, 0); // W_max 143
        c.delay_min_ns = Some(100_000_000);
        // cwnd 100: K = ∛(43/0.4) ≈ 4.755 s; at t = 0.1 s the target is
        // 143 − ⌊0.4·4.655³⌋ = 143 − 40 = 103, so cnt = ⌊100/3⌋ = 33.
        assert_eq!(c.acks_per_segment(100, 0, 1), 33);
        // Past K + 1 s − 0.1 s: target 143 + ⌊0.4·1⌋ = 143, cnt = ⌊100/43⌋ = 2.
        let later_ns = s_to_ns((43.0f64 / 0.4).cbrt() + 0.9);
        assert_eq!(c.acks_per_segment(100, later_ns, 1), 2);
    }

    #[test]
    fn growth_is_at_most_half_a_segment_per_segment_acked() {
        let mut c = Cubic::new(&cfg(false));
        c.ssthresh_after_congestion(20.0, 0);
        let mut cwnd = 10.0;
        // The epoch starts at 0 s; 100 s later the target is huge and cnt floors at 2: 40
        // segments acknowledged one by one give 20 segments of growth.
        cwnd = c.increase_window(&ack(0.0, 1), cwnd, 5.0);
        for i in 1..40 {
            cwnd = c.increase_window(&ack(100.0 + f64::from(i) * 1e-3, 1), cwnd, 5.0);
        }
        assert_eq!(cwnd, 30.0);
    }

    #[test]
    fn window_returns_to_w_max_after_k_seconds() {
        let mut c = Cubic::new(&cfg(false));
        let mut cwnd = c.ssthresh_after_congestion(100.0, 0);
        // K = ∛(30/0.4) ≈ 4.217 s; one ACK per segment, a window per 100 ms.
        let k = 75f64.cbrt();
        let mut t = 0.0;
        while t < k {
            let per_ack_s = 0.1 / cwnd;
            cwnd = c.increase_window(&ack(t, 1), cwnd, 70.0);
            t += per_ack_s;
        }
        assert!(
            (cwnd - 100.0).abs() <= 2.0,
            "cwnd {cwnd} near W_max at t = K"
        );
    }

    #[test]
    fn delay_samples_settle_after_an_epoch_starts() {
        let mut c = Cubic::new(&cfg(false));
        c.ssthresh_after_congestion(100.0, 0);
        c.increase_window(&ack(1.0, 1), 70.0, 70.0);
        let mut quick = ack(1.005, 1);
        quick.srtt_s = Some(0.05);
        c.on_pkts_acked(&quick, 70.0, 70.0);
        assert_eq!(c.delay_min_ns, None);
        let mut settled = ack(1.011, 1);
        settled.srtt_s = Some(0.05);
        c.on_pkts_acked(&settled, 70.0, 70.0);
        assert_eq!(c.delay_min_ns, Some(50_000_000));
    }
}
