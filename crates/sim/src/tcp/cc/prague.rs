//! TCP Prague, the L4S scalable congestion control (draft-briscoe-iccrg-prague-congestion-control;
//! the L4S team's Linux `net/ipv4/tcp_prague.c`, version 0.6). There is no other simulator's
//! Prague to compare with, so where the two sources leave a gap this file says what it chose
//! (marked "reconstruction"). It owns cwnd and the pacing rate, as Linux's `cong_control`:
//! - **ECN**: ECT(1) with per-CE feedback (the information AccECN carries; see docs/tcp.md).
//! - **α**: the fraction F of segments delivered CE-marked over a round, α ← (1 − g)·α + g·F
//!   with g = 1/16, starting at 1 and updated only once a CE mark has been seen
//!   (`prague_update_alpha`); a round ends when the segment that was next at its start is
//!   acknowledged and, once RTT-independent, not before the target RTT has passed
//!   (`prague_should_update_ewma`).
//! - **Window**: a fractional window W (`frac_cwnd`). Each ACK adds acked·a/cwnd for the
//!   segments it delivered unmarked (a = 1, or (RTT/RTT_target)² once RTT-independent,
//!   `prague_rate_scaled_ai_ack_increase`); entering CWR takes W·α/2 off at most once per RTT
//!   (per target RTT once RTT-independent, `prague_enter_cwr`); fast recovery or a timeout
//!   halves W and stops growth until the state is Open again (`prague_enter_loss`). cwnd moves
//!   one segment per ACK towards ⌈W⌉, never below 2 when it falls; a fall sets ssthresh = cwnd
//!   (`prague_update_cwnd`).
//! - **RTT independence** (RTT_CONTROL_RATE, the module default): after 500 rounds out of
//!   slow start a flow with an RTT below the 25 ms target grows as if its RTT were the target.
//! - **Classic ECN fall-back** ([`super::prague_classic`]): behind a classic AQM the reduction
//!   uses at least 0.625 instead of α. The detector reads the accurate RTT of each ACK's
//!   newest acknowledged segment (`ca_rtt_us`), not the timestamp sample. The Linux module
//!   ships with it off (`prague_ecn_fallback = 0`); RFC 9331 §4.3 asks for it, so
//!   `tcp.prague_ecn_fallback` is true by default here (false: Linux's default, and every
//!   kernel before the detector).
//! - **Pacing**: rate = W/SRTT, doubled while cwnd < ssthresh/2 (`prague_update_pacing_rate`).
//!   Each pacing release sends a GSO burst of up to max(⌊rate · 2⁻¹² s⌋, 1) segments, the
//!   segments of about 250 µs at the pacing rate (`prague_burst_shift` 12), and never fewer
//!   than `tcp.prague_min_tso_segs` (Linux's `tcp_min_tso_segs`, 2) (`prague_tso_segs`).
//!
//! Reconstruction: Linux grows `snd_cwnd` in slow start without touching W; here W follows
//! cwnd during slow start, so the window Prague leaves slow start with is the one it keeps
//! (otherwise the first ACKs of avoidance would step cwnd back down to W). Linux's pacing
//! credit for a late release (`tcp_update_skb_after_send` shortens the next gap by up to half)
//! and `prague_max_tso_segs` (0, no cap) are not modelled.

use super::controller::{AckedInfo, CongControlState, CongEvent, CongState, Controller, EcnUse};
use super::prague_classic::ClassicDetector;
use crate::tcp::config::{EcnFeedback, EctCodepoint, TcpConfig};

/// EWMA gain g of α (PRAGUE_SHIFT_G = 4).
const ALPHA_GAIN: f64 = 1.0 / 16.0;
/// The smallest cwnd a reduction leaves (MIN_CWND).
const MIN_CWND_PKTS: f64 = 2.0;
/// RTT scaling target (prague_rtt_target, 25 ms).
const RTT_TARGET_S: f64 = 0.025;
/// Rounds after slow start before a flow becomes RTT-independent (prague_rtt_transition).
const RTT_TRANSITION_ROUNDS: u32 = 500;
/// RTTs above this are not scaled (MAX_SCALED_RTT, 100 ms).
const MAX_SCALED_RTT_S: f64 = 0.1;
/// A GSO burst lasts at most 2⁻¹² s at the pacing rate (prague_burst_shift = 12, ~244 µs).
const BURST_S: f64 = 1.0 / 4096.0;
/// The most segments one GSO burst holds (Linux GSO_MAX_SEGS).
const GSO_MAX_SEGS: f64 = 65_535.0;

/// TCP Prague's state.
#[derive(Clone, Debug)]
pub struct Prague {
    /// α, in [0, 1].
    alpha: f64,
    /// The fractional window W, segments.
    frac_cwnd_pkts: f64,
    /// The additive increase per unmarked segment acknowledged, before the division by cwnd.
    ai_per_ack: f64,
    /// A CE mark has been seen: there is an AQM on the path.
    saw_ce: bool,
    /// In a reduction caused by loss: no growth.
    in_loss: bool,
    /// Rounds since slow start was left.
    round: u32,
    /// The round ends when this segment is acknowledged.
    round_end_seq: u32,
    /// Segments delivered, and of those CE-marked, in the current round.
    round_delivered_pkts: u64,
    round_ce_pkts: u64,
    /// When α was last updated, and when the last CWR reduction was taken, s.
    alpha_stamp_s: f64,
    cwr_stamp_s: Option<f64>,
    /// ssthresh as the sender last handed it over, segments.
    ssthresh_pkts: f64,
    /// The classic-bottleneck detector.
    classic: ClassicDetector,
    /// Whether a reduction takes the detector's floor on α (`prague_ecn_fallback`).
    ecn_fallback: bool,
    /// The floor of the GSO burst, segments (`tcp_min_tso_segs`).
    min_tso_segs: u32,
}

impl Prague {
    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The fractional window W, segments.
    pub fn frac_cwnd_pkts(&self) -> f64 {
        self.frac_cwnd_pkts
    }

    fn in_slow_start(st: &CongControlState) -> bool {
        st.cwnd_pkts < st.ssthresh_pkts
    }

    /// Whether the flow behaves RTT-independently (`prague_is_rtt_indep`).
    fn rtt_independent(&self, st: &CongControlState) -> bool {
        !Self::in_slow_start(st) && self.round >= RTT_TRANSITION_ROUNDS
    }

    /// `prague_ai_ack_increase` with RTT_CONTROL_RATE: (RTT/target)² below the target once
    /// the transition is over, else 1.
    fn update_ai_per_ack(&mut self, srtt_s: Option<f64>) {
        self.ai_per_ack = match srtt_s {
            Some(rtt) if self.round >= RTT_TRANSITION_ROUNDS && rtt > 0.0 => {
                if rtt > MAX_SCALED_RTT_S || rtt >= RTT_TARGET_S {
                    1.0
                } else {
                    (rtt / RTT_TARGET_S).powi(2)
                }
            }
            _ => 1.0,
        };
    }

    /// `prague_new_round`.
    fn new_round(&mut self, st: &CongControlState, snd_max: u32) {
        self.round_end_seq = snd_max;
        self.round_delivered_pkts = 0;
        self.round_ce_pkts = 0;
        if !Self::in_slow_start(st) {
            self.round = self.round.saturating_add(1);
        }
        self.update_ai_per_ack(st.srtt_s);
    }

    /// `prague_update_cwnd` for one ACK that delivered `acked` segments, `marked` of them
    /// CE-marked.
    fn update_cwnd(&mut self, st: &mut CongControlState, acked: u32, marked: u32) {
        if marked > 0 {
            self.saw_ce = true;
        }
        let unmarked = f64::from(acked.saturating_sub(marked));
        let cwnd_limited = f64::from(st.in_flight_pkts) + unmarked >= st.cwnd_pkts;
        if unmarked > 0.0 && !self.in_loss && cwnd_limited {
            let mut left = unmarked;
            if Self::in_slow_start(st) {
                let grown = (st.cwnd_pkts + left).min(st.ssthresh_pkts);
                left -= grown - st.cwnd_pkts;
                st.cwnd_pkts = grown;
                self.frac_cwnd_pkts = grown;
            }
            if left > 0.0 {
                self.frac_cwnd_pkts += left * self.ai_per_ack / st.cwnd_pkts.ceil().max(1.0);
            }
        }
        let target = self.frac_cwnd_pkts.ceil().max(1.0);
        if st.cwnd_pkts > target && st.cwnd_pkts > MIN_CWND_PKTS {
            st.cwnd_pkts -= 1.0;
            st.ssthresh_pkts = st.cwnd_pkts;
        } else if st.cwnd_pkts < target {
            st.cwnd_pkts += 1.0;
        }
    }

    /// `prague_update_alpha`, at the end of a round.
    fn update_alpha(&mut self, st: &CongControlState) {
        if self.saw_ce {
            if let Some(min_rtt) = st.min_rtt_s {
                self.classic.on_round(min_rtt * 1e6);
            }
            let fraction = if self.round_delivered_pkts > 0 {
                self.round_ce_pkts as f64 / self.round_delivered_pkts as f64
            } else {
                0.0
            };
            self.alpha = ((1.0 - ALPHA_GAIN) * self.alpha + ALPHA_GAIN * fraction).min(1.0);
            self.alpha_stamp_s = st.now_s();
        }
    }

    /// `prague_enter_cwr`: W ← W − α·W/2, at most once per target RTT when RTT-independent.
    fn enter_cwr(&mut self, st: &CongControlState) {
        let now_s = st.now_s();
        if self.rtt_independent(st) {
            if let Some(stamp) = self.cwr_stamp_s {
                if now_s - stamp < RTT_TARGET_S {
                    return;
                }
            }
        }
        self.cwr_stamp_s = Some(now_s);
        let alpha = if self.ecn_fallback {
            self.classic.alpha_for_reduction(self.alpha)
        } else {
            self.alpha
        };
        self.frac_cwnd_pkts -= alpha * self.frac_cwnd_pkts / 2.0;
    }

    /// `prague_enter_loss`: W halved, growth held until Open.
    fn enter_loss(&mut self) {
        self.frac_cwnd_pkts -= self.frac_cwnd_pkts / 2.0;
        self.in_loss = true;
    }

    /// `prague_update_pacing_rate`: W per smoothed RTT, twice that early in slow start; and
    /// the GSO burst, the segments of 2⁻¹² s at that rate (at least one), never fewer than
    /// `tcp_min_tso_segs` (`prague_tso_segs`).
    fn set_pacing_rate(&self, st: &mut CongControlState) {
        if let Some(srtt) = st.srtt_s.filter(|r| *r > 0.0) {
            let factor = if st.cwnd_pkts < st.ssthresh_pkts / 2.0 {
                2.0
            } else {
                1.0
            };
            st.pacing_rate_pkts_per_s =
                (factor * self.frac_cwnd_pkts / srtt).min(st.max_pacing_rate_pkts_per_s);
        }
        let burst_pkts = (st.pacing_rate_pkts_per_s * BURST_S)
            .floor()
            .clamp(1.0, GSO_MAX_SEGS);
        st.pacing_burst_pkts = (burst_pkts as u32).max(self.min_tso_segs);
    }
}

impl Controller for Prague {
    const ECN_USE: EcnUse = EcnUse::Required {
        codepoint: EctCodepoint::Ect1,
        feedback: EcnFeedback::PerCe,
    };
    const HAS_CONG_CONTROL: bool = true;
    /// Only the segments each ACK delivered are read (`acked_sacked_pkts`).
    const NEEDS_RATE_SAMPLE: bool = false;
    /// The classic-ECN detector reads the accurate RTT (`prague_pkts_acked`).
    const NEEDS_NEWEST_RTT: bool = true;

    fn new(cfg: &TcpConfig) -> Self {
        Prague {
            alpha: 1.0,
            frac_cwnd_pkts: f64::from(cfg.initial_cwnd_pkts),
            ai_per_ack: 1.0,
            saw_ce: false,
            in_loss: false,
            round: 0,
            round_end_seq: 0,
            round_delivered_pkts: 0,
            round_ce_pkts: 0,
            alpha_stamp_s: 0.0,
            cwr_stamp_s: None,
            ssthresh_pkts: f64::INFINITY,
            classic: ClassicDetector::default(),
            ecn_fallback: cfg.prague_ecn_fallback,
            min_tso_segs: cfg.prague_min_tso_segs,
        }
    }

    /// The accurate RTT of the newest segment acknowledged feeds the classic-bottleneck
    /// detector (`prague_pkts_acked` with `ca_rtt_us`; Linux's comment: not the RFC 6298
    /// sample, "which includes delay accumulated between two successive segments at the
    /// receiver").
    fn on_pkts_acked(
        &mut self,
        info: &AckedInfo,
        _cwnd_pkts: f64,
        _ssthresh_pkts: f64,
    ) -> Option<f64> {
        if let Some(rtt) = info.newest_rtt_s {
            self.classic.on_rtt_sample(rtt * 1e6);
        }
        None
    }

    /// Unused: Prague sets cwnd itself.
    fn increase_window(&mut self, _info: &AckedInfo, cwnd_pkts: f64, _ssthresh_pkts: f64) -> f64 {
        cwnd_pkts
    }

    /// `prague_ssthresh`: ssthresh stays (the reduction is Prague's own); the classic
    /// detector's gains follow it.
    fn ssthresh_after_congestion(&mut self, _cwnd_pkts: f64, _flight_pkts: u32) -> f64 {
        self.classic.on_ssthresh(self.ssthresh_pkts);
        self.ssthresh_pkts
    }

    /// `prague_state`: fast recovery or a timeout halves W (`prague_enter_loss`, and
    /// CA_EVENT_LOSS), the open state lets it grow again (`prague_ca_open`).
    fn on_state_change(&mut self, state: CongState, _snd_max: u32) {
        match state {
            CongState::Recovery | CongState::Loss => self.enter_loss(),
            CongState::Open => self.in_loss = false,
            CongState::Disorder | CongState::Cwr => {}
        }
    }

    fn cong_control(&mut self, st: &mut CongControlState, event: CongEvent<'_>) {
        match event {
            CongEvent::Start => {
                self.frac_cwnd_pkts = st.cwnd_pkts;
                self.new_round(st, st.snd_max);
            }
            CongEvent::Ack(rs, _) => {
                let marked = if st.ece { rs.acked_sacked_pkts } else { 0 };
                self.round_delivered_pkts += u64::from(rs.acked_sacked_pkts);
                self.round_ce_pkts += u64::from(marked);
                self.update_cwnd(st, rs.acked_sacked_pkts, marked);
                let rtt_elapsed = st.snd_una >= self.round_end_seq;
                let target_elapsed =
                    !self.rtt_independent(st) || st.now_s() - self.alpha_stamp_s >= RTT_TARGET_S;
                if rtt_elapsed && target_elapsed {
                    self.update_alpha(st);
                    self.new_round(st, st.snd_max);
                }
                self.set_pacing_rate(st);
            }
            CongEvent::EnterCwr => self.enter_cwr(st),
            // Handled by `on_state_change`, as Linux's set_state does.
            CongEvent::EnterRecovery { .. }
            | CongEvent::EnterLoss
            | CongEvent::CompleteCwr
            | CongEvent::TxStart => {}
        }
        self.ssthresh_pkts = st.ssthresh_pkts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::PRAGUE_MIN_TSO_SEGS;
    use crate::tcp::rate_sample::{RateConnection, RateSample};

    fn state(cwnd: f64, ssthresh: f64, srtt_s: f64) -> CongControlState {
        CongControlState {
            cwnd_pkts: cwnd,
            ssthresh_pkts: ssthresh,
            pacing_rate_pkts_per_s: 0.0,
            max_pacing_rate_pkts_per_s: 1e9,
            pacing_burst_pkts: 1,
            in_flight_pkts: cwnd as u32,
            in_recovery: false,
            initial_cwnd_pkts: 10,
            now_ns: 1_000_000_000,
            srtt_s: Some(srtt_s),
            min_rtt_s: Some(srtt_s),
            snd_una: 0,
            snd_max: 100,
            ece: false,
        }
    }

    /// One ACK of `acked` segments (CE-marked when `ece`).
    fn ack(p: &mut Prague, st: &mut CongControlState, acked: u32, ece: bool) {
        let rs = RateSample {
            acked_sacked_pkts: acked,
            ..RateSample::default()
        };
        st.ece = ece;
        p.cong_control(st, CongEvent::Ack(&rs, &RateConnection::default()));
    }

    fn started(cwnd: f64, ssthresh: f64) -> (Prague, CongControlState) {
        let mut p = Prague::new(&TcpConfig::ns3());
        let mut st = state(cwnd, ssthresh, 0.02);
        p.cong_control(&mut st, CongEvent::Start);
        (p, st)
    }

    #[test]
    fn it_is_an_l4s_sender_that_sets_its_own_window() {
        assert_eq!(
            Prague::ECN_USE,
            EcnUse::Required {
                codepoint: EctCodepoint::Ect1,
                feedback: EcnFeedback::PerCe
            }
        );
        const { assert!(Prague::HAS_CONG_CONTROL && !Prague::NEEDS_RATE_SAMPLE) };
    }

    #[test]
    fn unmarked_acks_grow_the_fractional_window_by_one_over_cwnd() {
        let (mut p, mut st) = started(10.0, 10.0);
        ack(&mut p, &mut st, 2, false);
        assert!((p.frac_cwnd_pkts() - 10.2).abs() < 1e-12);
        // cwnd steps up to ⌈W⌉ = 11 at once (one segment per ACK).
        assert_eq!(st.cwnd_pkts, 11.0);
        // A marked ACK grows nothing, and shows an AQM on the path.
        let before = p.frac_cwnd_pkts();
        ack(&mut p, &mut st, 2, true);
        assert_eq!(p.frac_cwnd_pkts(), before);
        assert!(p.saw_ce);
    }

    #[test]
    fn a_cwr_takes_alpha_halves_of_the_window_and_cwnd_follows_a_segment_per_ack() {
        let (mut p, mut st) = started(20.0, 20.0);
        p.alpha = 0.5;
        p.cong_control(&mut st, CongEvent::EnterCwr);
        assert!((p.frac_cwnd_pkts() - 15.0).abs() < 1e-12);
        ack(&mut p, &mut st, 1, true);
        assert_eq!((st.cwnd_pkts, st.ssthresh_pkts), (19.0, 19.0));
        for _ in 0..10 {
            ack(&mut p, &mut st, 1, true);
        }
        assert_eq!(st.cwnd_pkts, 15.0);
    }

    #[test]
    fn the_classic_fallback_floors_alpha_only_when_switched_on() {
        for (fallback, want) in [(true, 20.0 - 20.0 * 0.625 / 2.0), (false, 19.0)] {
            let cfg = TcpConfig {
                prague_ecn_fallback: fallback,
                ..TcpConfig::ns3()
            };
            let mut p = Prague::new(&cfg);
            let mut st = state(20.0, 20.0, 0.02);
            p.cong_control(&mut st, CongEvent::Start);
            p.alpha = 0.1;
            // A deep, varying queue: the detector reads a classic bottleneck.
            p.classic.on_ssthresh(20.0);
            for i in 0..5000 {
                p.classic
                    .on_rtt_sample(if i % 2 == 0 { 20_000.0 } else { 40_000.0 });
            }
            for _ in 0..6 {
                p.classic.on_round(10_000.0);
            }
            p.cong_control(&mut st, CongEvent::EnterCwr);
            assert!((p.frac_cwnd_pkts() - want).abs() < 1e-12, "{fallback}");
        }
    }

    #[test]
    fn alpha_moves_once_per_round_towards_the_marked_fraction() {
        let (mut p, mut st) = started(10.0, 10.0);
        // The round ends when segment 100 (snd_max at its start) is acknowledged.
        ack(&mut p, &mut st, 5, true);
        ack(&mut p, &mut st, 15, false);
        assert_eq!(p.alpha(), 1.0, "no update before the round ends");
        st.snd_una = 100;
        st.snd_max = 130;
        ack(&mut p, &mut st, 0, false);
        let expected = (1.0 - ALPHA_GAIN) + ALPHA_GAIN * 5.0 / 20.0;
        assert!((p.alpha() - expected).abs() < 1e-12, "{}", p.alpha());
        assert_eq!(p.round_end_seq, 130);
    }

    #[test]
    fn a_loss_halves_the_window_and_holds_growth_until_open() {
        let (mut p, mut st) = started(20.0, 20.0);
        p.on_state_change(CongState::Recovery, 100);
        assert_eq!(p.frac_cwnd_pkts(), 10.0);
        ack(&mut p, &mut st, 4, false);
        assert_eq!(p.frac_cwnd_pkts(), 10.0);
        p.on_state_change(CongState::Open, 100);
        ack(&mut p, &mut st, 4, false);
        assert!(p.frac_cwnd_pkts() > 10.0);
    }

    #[test]
    fn rtt_independence_scales_the_increase_after_the_transition() {
        let (mut p, st) = started(10.0, 10.0);
        p.round = RTT_TRANSITION_ROUNDS;
        p.update_ai_per_ack(Some(0.005));
        assert!((p.ai_per_ack - 0.04).abs() < 1e-12);
        p.update_ai_per_ack(Some(0.05));
        assert_eq!(p.ai_per_ack, 1.0);
        assert!(p.rtt_independent(&st));
    }

    #[test]
    fn the_pacing_rate_is_the_window_per_rtt() {
        let (mut p, mut st) = started(10.0, 10.0);
        ack(&mut p, &mut st, 0, false);
        assert!((st.pacing_rate_pkts_per_s - 10.0 / 0.02).abs() < 1e-9);
        // Twice that early in slow start.
        let (mut p, mut st) = started(10.0, 100.0);
        ack(&mut p, &mut st, 0, false);
        assert!((st.pacing_rate_pkts_per_s - 2.0 * 10.0 / 0.02).abs() < 1e-9);
    }

    #[test]
    fn the_gso_burst_is_250_us_at_the_pacing_rate_and_at_least_tcp_min_tso_segs() {
        // 10 segments per 20 ms, 500 segments/s: under one segment per 2⁻¹² s, so the floor.
        let (mut p, mut st) = started(10.0, 10.0);
        ack(&mut p, &mut st, 0, false);
        assert_eq!(st.pacing_burst_pkts, PRAGUE_MIN_TSO_SEGS);
        // 1000 segments per 20 ms: 50 000 segments/s, ⌊50 000 / 4096⌋ = 12 per release.
        let (mut p, mut st) = started(1000.0, 1000.0);
        ack(&mut p, &mut st, 0, false);
        assert_eq!(st.pacing_burst_pkts, 12);
        // With a floor of 1 a slow flow paces one segment at a time.
        let mut cfg = TcpConfig::ns3();
        cfg.prague_min_tso_segs = 1;
        let mut p = Prague::new(&cfg);
        let mut st = state(10.0, 10.0, 0.02);
        p.cong_control(&mut st, CongEvent::Start);
        ack(&mut p, &mut st, 0, false);
        assert_eq!(st.pacing_burst_pkts, 1);
    }
}
