//! BBR version 1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00), as ns-3.37's TcpBbr runs it, in segments.
//! A model of the path: the bottleneck bandwidth BtlBw, the maximum delivery rate over the
//! last 10 rounds (`bbr_filter.rs`), and the round-trip propagation time RTprop, the minimum
//! RTT over 10 s. Pacing rate = pacing_gain · BtlBw, cwnd target = cwnd_gain · BtlBw · RTprop
//! plus three send quanta. The states: Startup (both gains 2.89 ≈ 2/ln 2) until BtlBw grows
//! by less than 25 % in three rounds, Drain (pacing gain 1/2.89) until the flight is at most
//! one BDP, ProbeBW (cwnd gain 2, pacing gains 5/4, 3/4, 1 ×6 cycled once per RTprop from a
//! random phase), and ProbeRTT (cwnd 4 segments for 200 ms and a round when RTprop has not
//! been refreshed for 10 s). Loss recovery: packet conservation for the first round of fast
//! recovery, cwnd − lost per ACK, cwnd restored when recovery ends.
//!
//! ns-3.37 specifics kept: RTprop is taken from the smoothed RTT (m_lastRtt) rather than the
//! rate sample's RTT; rounds only count on ACKs with a nonzero delivery rate; the ACK
//! aggregation allowance measures its epoch in whole seconds and restarts it every 4096 bytes
//! acknowledged (AckEpochAckedResetThresh); ssthresh is set to one BDP when Startup ends and
//! otherwise left alone; GetSsThresh only saves cwnd.

use super::bbr_filter::MaxFilter;
use super::controller::{AckedInfo, CongControlState, CongEvent, Controller};
use crate::tcp::config::TcpConfig;
use crate::tcp::rate_sample::RateSample;
use crate::time::s_to_ns;
use aqm::Rng;

/// Startup's pacing and cwnd gain, 2/ln 2 rounded up (ns-3's HighGain 2.89).
const HIGH_GAIN: f64 = 2.89;
/// ProbeBW's pacing gains, one phase per RTprop (ns-3.37 PACING_GAIN_CYCLE).
const PACING_GAIN_CYCLE: [f64; 8] = [5.0 / 4.0, 3.0 / 4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// ProbeBW's cwnd gain.
const PROBE_BW_CWND_GAIN: f64 = 2.0;
/// Rounds of the bandwidth filter (BwWindowLength).
const BW_WINDOW_ROUNDS: u64 = 10;
/// Lifetime of an RTprop estimate (RttWindowLength), ns.
const RTPROP_WINDOW_NS: u64 = 10_000_000_000;
/// Time in ProbeRTT at the minimum window (ProbeRttDuration), ns.
const PROBE_RTT_DURATION_NS: u64 = 200_000_000;
/// The smallest cwnd outside loss, and ProbeRTT's window, segments (4 · SMSS).
const MIN_PIPE_CWND_PKTS: f64 = 4.0;
/// Send quantum, segments (ns-3: one segment).
const SEND_QUANTUM_PKTS: f64 = 1.0;
/// Rounds an ACK-aggregation maximum is kept (ExtraAckedRttWindowLength).
const EXTRA_ACKED_WINDOW_ROUNDS: u32 = 5;
/// The ACK-aggregation epoch restarts once this many bytes are acknowledged in it
/// (AckEpochAckedResetThresh).
const ACK_EPOCH_RESET_BYTES: f64 = 4096.0;
/// Gain on the ACK-aggregation allowance (m_extraAckedGain).
const EXTRA_ACKED_GAIN: f64 = 1.0;
/// The allowance is at most this much time at BtlBw, s.
const EXTRA_ACKED_MAX_S: f64 = 0.1;
/// Full-pipe detection: BtlBw must grow by this factor per round...
const FULL_BW_GROWTH: f64 = 1.25;
/// ...or Startup ends after this many rounds.
const FULL_BW_ROUNDS: u32 = 3;

/// BBR's state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Doubling the delivery rate each round.
    Startup,
    /// Draining the queue Startup built.
    Drain,
    /// Cycling the pacing gain around 1.
    ProbeBw,
    /// Cwnd at 4 segments to measure RTprop.
    ProbeRtt,
}

/// BBR v1 (ns-3.37 TcpBbr).
#[derive(Clone, Debug)]
pub struct Bbr {
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    max_bw: MaxFilter,
    /// RTprop, ns (None until the first RTT estimate).
    rt_prop_ns: Option<u64>,
    rt_prop_stamp_ns: u64,
    rt_prop_expired: bool,
    /// A rate has been set from a real RTT (m_hasSeenRtt).
    has_seen_rtt: bool,
    pipe_filled: bool,
    full_bw: f64,
    full_bw_count: u32,
    round_count: u64,
    round_start: bool,
    next_round_delivered_pkts: u64,
    /// Connection's delivered count at the last ACK (m_delivered).
    delivered_pkts: u64,
    probe_rtt_done_ns: Option<u64>,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    prior_cwnd_pkts: f64,
    idle_restart: bool,
    /// Set in ProbeRTT (m_appLimited); a later start from idle restarts the phase.
    app_limited_pkts: u64,
    target_cwnd_pkts: f64,
    cycle_index: usize,
    cycle_stamp_ns: u64,
    /// ssthresh as BBR keeps it (ns-3's m_ssThresh, which only BBR writes).
    ssthresh_pkts: f64,
    /// Whether the sender is in fast recovery, for SaveCwnd.
    in_recovery: bool,
    extra_acked_pkts: [f64; 2],
    extra_acked_idx: usize,
    extra_acked_win_rounds: u32,
    ack_epoch_ns: u64,
    ack_epoch_acked_pkts: f64,
    ack_epoch_reset_pkts: f64,
    rng: Rng,
}

impl Controller for Bbr {
    const HAS_CONG_CONTROL: bool = true;

    fn new(cfg: &TcpConfig) -> Self {
        Bbr {
            mode: Mode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            max_bw: MaxFilter::new(BW_WINDOW_ROUNDS, 0.0, 0),
            rt_prop_ns: None,
            rt_prop_stamp_ns: 0,
            rt_prop_expired: false,
            has_seen_rtt: false,
            pipe_filled: false,
            full_bw: 0.0,
            full_bw_count: 0,
            round_count: 0,
            round_start: false,
            next_round_delivered_pkts: 0,
            delivered_pkts: 0,
            probe_rtt_done_ns: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prior_cwnd_pkts: 0.0,
            idle_restart: false,
            app_limited_pkts: 0,
            target_cwnd_pkts: 0.0,
            cycle_index: 0,
            cycle_stamp_ns: 0,
            ssthresh_pkts: f64::INFINITY,
            in_recovery: false,
            extra_acked_pkts: [0.0; 2],
            extra_acked_idx: 0,
            extra_acked_win_rounds: 0,
            ack_epoch_ns: 0,
            ack_epoch_acked_pkts: 0.0,
            ack_epoch_reset_pkts: ACK_EPOCH_RESET_BYTES / f64::from(cfg.payload_bytes()),
            rng: Rng::from_seed(0),
        }
    }

    /// cwnd only changes in [`Controller::cong_control`] (ns-3's TcpBbr has no
    /// IncreaseWindow).
    fn increase_window(&mut self, _info: &AckedInfo, cwnd_pkts: f64, _ssthresh: f64) -> f64 {
        cwnd_pkts
    }

    /// ns-3.37 GetSsThresh: save cwnd, leave ssthresh as it is.
    fn ssthresh_after_congestion(&mut self, cwnd_pkts: f64, _flight_pkts: u32) -> f64 {
        self.save_cwnd(cwnd_pkts);
        self.ssthresh_pkts
    }

    fn cong_control(&mut self, st: &mut CongControlState, event: CongEvent<'_>) {
        match event {
            CongEvent::Start => self.start(st),
            CongEvent::Ack(rs, rc) => {
                self.delivered_pkts = rc.delivered_pkts;
                self.update_model_and_state(st, rs);
                self.set_pacing_rate(st, self.pacing_gain);
                self.set_cwnd(st, rs);
            }
            CongEvent::EnterRecovery { delivered_pkts } => {
                self.save_cwnd(st.cwnd_pkts);
                st.cwnd_pkts = f64::from(st.in_flight_pkts) + f64::from(delivered_pkts.max(1));
                self.packet_conservation = true;
                self.in_recovery = true;
            }
            CongEvent::EnterLoss => {
                self.save_cwnd(st.cwnd_pkts);
                self.round_start = true;
                self.in_recovery = false;
            }
            CongEvent::CompleteCwr => {
                self.packet_conservation = false;
                self.in_recovery = false;
                self.restore_cwnd(st);
            }
            CongEvent::TxStart => self.tx_start(st),
            // ns-3.37's EnterCwr does not tell the congestion control.
            CongEvent::EnterCwr => {}
        }
        st.ssthresh_pkts = self.ssthresh_pkts;
    }

    fn seed(&mut self, rng: Rng) {
        self.rng = rng;
    }
}

impl Bbr {
    /// The state machine's state.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The current pacing and cwnd gains.
    pub fn gains(&self) -> (f64, f64) {
        (self.pacing_gain, self.cwnd_gain)
    }

    /// The bottleneck-bandwidth estimate, segments per second.
    pub fn btl_bw_pkts_per_s(&self) -> f64 {
        self.max_bw.best()
    }

    /// The connection opens (ns-3's first CongestionStateSet(CA_OPEN)): RTprop from the RTT
    /// estimate if there is one, Startup, the pacing rate from the initial window.
    fn start(&mut self, st: &mut CongControlState) {
        self.rt_prop_ns = st.srtt_s.map(s_to_ns);
        self.rt_prop_stamp_ns = st.now_ns;
        self.prior_cwnd_pkts = st.cwnd_pkts;
        self.target_cwnd_pkts = st.cwnd_pkts;
        self.next_round_delivered_pkts = 0;
        self.round_start = false;
        self.round_count = 0;
        self.pipe_filled = false;
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.enter_startup();
        self.init_pacing_rate(st);
        self.ack_epoch_ns = st.now_ns;
        self.extra_acked_win_rounds = 0;
        self.extra_acked_idx = 0;
        self.ack_epoch_acked_pkts = 0.0;
        self.extra_acked_pkts = [0.0; 2];
    }

    /// ns-3.37 InitPacingRate: nominal bandwidth = cwnd / max(min RTT in whole ms, 1 ms)
    /// (1 ms before any RTT), the pacing rate its pacing-gain multiple, and the bandwidth
    /// filter restarted at it.
    fn init_pacing_rate(&mut self, st: &mut CongControlState) {
        let rtt_s = match st.min_rtt_s {
            Some(min_s) => {
                self.has_seen_rtt = true;
                (min_s * 1e3).floor().max(1.0) / 1e3
            }
            None => 1e-3,
        };
        let nominal = st.cwnd_pkts / rtt_s;
        st.pacing_rate_pkts_per_s = self.pacing_gain * nominal;
        self.max_bw = MaxFilter::new(BW_WINDOW_ROUNDS, nominal, 0);
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    fn enter_drain(&mut self) {
        self.mode = Mode::Drain;
        self.pacing_gain = 1.0 / HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    /// ProbeBW from a random phase other than 3/4: ns-3.37 draws the index before the
    /// advance as 7 − ⌊U(0, 6)⌋ from the flow's stream.
    fn enter_probe_bw(&mut self, now_ns: u64) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = PROBE_BW_CWND_GAIN;
        let draw = self.rng.uniform_in(0.0, 6.0).floor() as usize;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - draw;
        self.advance_cycle_phase(now_ns);
    }

    fn enter_probe_rtt(&mut self) {
        self.mode = Mode::ProbeRtt;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 1.0;
    }

    fn advance_cycle_phase(&mut self, now_ns: u64) {
        self.cycle_stamp_ns = now_ns;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    /// The flight `gain` BDPs make (ns-3.37 InFlight): gain · BtlBw · RTprop + 3 send quanta,
    /// 2 segments more in ProbeBW's 5/4 phase; the initial window before any RTprop.
    fn in_flight_target(&self, gain: f64, st: &CongControlState) -> f64 {
        let Some(rt_prop_ns) = self.rt_prop_ns else {
            return f64::from(st.initial_cwnd_pkts);
        };
        let bdp = self.max_bw.best() * rt_prop_ns as f64 * 1e-9;
        let target = gain * bdp + 3.0 * SEND_QUANTUM_PKTS;
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            target + 2.0
        } else {
            target
        }
    }

    /// ns-3.37 SaveCwnd: remember cwnd, or the larger of it and the one saved while in
    /// recovery or ProbeRTT.
    fn save_cwnd(&mut self, cwnd_pkts: f64) {
        if !self.in_recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd_pkts = cwnd_pkts;
        } else {
            self.prior_cwnd_pkts = self.prior_cwnd_pkts.max(cwnd_pkts);
        }
    }

    fn restore_cwnd(&self, st: &mut CongControlState) {
        st.cwnd_pkts = st.cwnd_pkts.max(self.prior_cwnd_pkts);
    }

    /// ns-3.37 UpdateModelAndState.
    fn update_model_and_state(&mut self, st: &mut CongControlState, rs: &RateSample) {
        self.update_btl_bw(rs);
        self.update_ack_aggregation(st, rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(st, rs) {
            self.advance_cycle_phase(st.now_ns);
        }
        self.check_full_pipe(rs);
        self.check_drain(st);
        self.update_rt_prop(st);
        self.check_probe_rtt(st, rs);
    }

    /// A round ends when a segment sent after the previous round's end is delivered; the
    /// delivery rate enters the filter unless it is app-limited and below the maximum.
    fn update_btl_bw(&mut self, rs: &RateSample) {
        if rs.delivery_rate_pkts_per_s == 0.0 {
            return;
        }
        if rs.prior_delivered_pkts >= self.next_round_delivered_pkts {
            self.next_round_delivered_pkts = self.delivered_pkts;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        } else {
            self.round_start = false;
        }
        if rs.delivery_rate_pkts_per_s >= self.max_bw.best() || !rs.is_app_limited {
            self.max_bw
                .update(rs.delivery_rate_pkts_per_s, self.round_count);
        }
    }

    /// ns-3.37 UpdateAckAggregation: the segments acknowledged beyond what BtlBw explains
    /// since the epoch began (elapsed time in whole seconds, as ns-3 truncates it), the
    /// maximum of each 5-round window kept.
    fn update_ack_aggregation(&mut self, st: &CongControlState, rs: &RateSample) {
        if rs.acked_sacked_pkts == 0 || rs.delivered_pkts < 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rounds = (self.extra_acked_win_rounds + 1).min(31);
            if self.extra_acked_win_rounds >= EXTRA_ACKED_WINDOW_ROUNDS {
                self.extra_acked_win_rounds = 0;
                self.extra_acked_idx = 1 - self.extra_acked_idx;
                self.extra_acked_pkts[self.extra_acked_idx] = 0.0;
            }
        }
        let epoch_s = ((st.now_ns - self.ack_epoch_ns) / 1_000_000_000) as f64;
        let mut expected = self.max_bw.best() * epoch_s;
        let acked = f64::from(rs.acked_sacked_pkts);
        if self.ack_epoch_acked_pkts <= expected
            || self.ack_epoch_acked_pkts + acked >= self.ack_epoch_reset_pkts
        {
            self.ack_epoch_acked_pkts = 0.0;
            self.ack_epoch_ns = st.now_ns;
            expected = 0.0;
        }
        self.ack_epoch_acked_pkts += acked;
        let extra = (self.ack_epoch_acked_pkts - expected).min(st.cwnd_pkts);
        let slot = &mut self.extra_acked_pkts[self.extra_acked_idx];
        *slot = slot.max(extra);
    }

    /// ns-3.37 IsNextCyclePhase: a phase lasts an RTprop; 5/4 also until a loss or the flight
    /// reaches 5/4 BDP, 3/4 at most until the flight is down to one BDP.
    fn is_next_cycle_phase(&self, st: &CongControlState, rs: &RateSample) -> bool {
        let full_length = self
            .rt_prop_ns
            .is_some_and(|rt| st.now_ns - self.cycle_stamp_ns > rt);
        let prior = f64::from(rs.prior_in_flight_pkts);
        if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length
                && (rs.lost_pkts > 0 || prior >= self.in_flight_target(self.pacing_gain, st))
        } else {
            full_length || prior <= self.in_flight_target(1.0, st)
        }
    }

    /// The pipe is full once BtlBw has grown by less than 25 % in three rounds in a row
    /// (Cardwell et al. 2016), judged at round starts on non-app-limited samples.
    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.pipe_filled || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw.best() >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = self.max_bw.best();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= FULL_BW_ROUNDS {
            self.pipe_filled = true;
        }
    }

    /// Startup → Drain when the pipe is full (ssthresh = one BDP), Drain → ProbeBW once the
    /// flight is down to one BDP.
    fn check_drain(&mut self, st: &CongControlState) {
        if self.mode == Mode::Startup && self.pipe_filled {
            self.enter_drain();
            self.ssthresh_pkts = self.in_flight_target(1.0, st);
        }
        if self.mode == Mode::Drain
            && f64::from(st.in_flight_pkts) <= self.in_flight_target(1.0, st)
        {
            self.enter_probe_bw(st.now_ns);
        }
    }

    /// RTprop: the latest RTT estimate when it is no larger, or when RTprop is 10 s old.
    fn update_rt_prop(&mut self, st: &CongControlState) {
        self.rt_prop_expired = st.now_ns > self.rt_prop_stamp_ns + RTPROP_WINDOW_NS;
        if let Some(rtt_s) = st.srtt_s {
            let rtt_ns = s_to_ns(rtt_s);
            if self.rt_prop_expired || self.rt_prop_ns.is_none_or(|rt| rtt_ns <= rt) {
                self.rt_prop_ns = Some(rtt_ns);
                self.rt_prop_stamp_ns = st.now_ns;
            }
        }
    }

    /// ns-3.37 CheckProbeRTT and HandleProbeRTT: enter when RTprop expired; once the flight
    /// is at most 4 segments, stay 200 ms and at least one round, then restore cwnd and
    /// return to ProbeBW (or Startup if the pipe was never full).
    fn check_probe_rtt(&mut self, st: &mut CongControlState, rs: &RateSample) {
        if self.mode != Mode::ProbeRtt && self.rt_prop_expired && !self.idle_restart {
            self.enter_probe_rtt();
            self.save_cwnd(st.cwnd_pkts);
            self.probe_rtt_done_ns = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.app_limited_pkts = (self.delivered_pkts + u64::from(st.in_flight_pkts)).max(1);
            match self.probe_rtt_done_ns {
                None if f64::from(st.in_flight_pkts) <= MIN_PIPE_CWND_PKTS => {
                    self.probe_rtt_done_ns = Some(st.now_ns + PROBE_RTT_DURATION_NS);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered_pkts = self.delivered_pkts;
                }
                None => {}
                Some(done_ns) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && st.now_ns > done_ns {
                        self.exit_probe_rtt(st);
                    }
                }
            }
        }
        if rs.delivered_pkts != 0 {
            self.idle_restart = false;
        }
    }

    fn exit_probe_rtt(&mut self, st: &mut CongControlState) {
        self.rt_prop_stamp_ns = st.now_ns;
        self.restore_cwnd(st);
        if self.pipe_filled {
            self.enter_probe_bw(st.now_ns);
        } else {
            self.enter_startup();
        }
    }

    /// ns-3.37 SetPacingRate: gain · BtlBw, capped by MaxPacingRate; lowered only once the
    /// pipe is full. The first RTT estimate re-initialises the rate and the filter.
    fn set_pacing_rate(&mut self, st: &mut CongControlState, gain: f64) {
        let rate = (gain * self.max_bw.best()).min(st.max_pacing_rate_pkts_per_s);
        if !self.has_seen_rtt && st.min_rtt_s.is_some() {
            self.init_pacing_rate(st);
        }
        if self.pipe_filled || rate > st.pacing_rate_pkts_per_s {
            st.pacing_rate_pkts_per_s = rate;
        }
    }

    /// The ACK-aggregation allowance once the pipe is full: the larger window maximum,
    /// at most 100 ms at BtlBw.
    fn ack_aggregation_cwnd(&self) -> f64 {
        if !self.pipe_filled {
            return 0.0;
        }
        let max_aggr = self.max_bw.best() * EXTRA_ACKED_MAX_S;
        (EXTRA_ACKED_GAIN * self.extra_acked_pkts[0].max(self.extra_acked_pkts[1])).min(max_aggr)
    }

    /// ns-3.37 SetCwnd: in fast recovery cwnd loses what was marked lost and, in the first
    /// round, is at least the flight plus what this ACK delivered (packet conservation);
    /// otherwise it grows by what was delivered up to cwnd_gain BDPs (without the cap before
    /// the pipe is full), never below 4 segments; ProbeRTT holds it at 4.
    fn set_cwnd(&mut self, st: &mut CongControlState, rs: &RateSample) {
        let acked = f64::from(rs.acked_sacked_pkts);
        if acked > 0.0 && !(st.in_recovery && self.modulate_cwnd_for_recovery(st, rs)) {
            self.target_cwnd_pkts =
                self.in_flight_target(self.cwnd_gain, st) + self.ack_aggregation_cwnd();
            if self.pipe_filled {
                st.cwnd_pkts = (st.cwnd_pkts + acked).min(self.target_cwnd_pkts);
            } else if st.cwnd_pkts < self.target_cwnd_pkts
                || self.delivered_pkts < u64::from(st.initial_cwnd_pkts)
            {
                st.cwnd_pkts += acked;
            }
            st.cwnd_pkts = st.cwnd_pkts.max(MIN_PIPE_CWND_PKTS);
        }
        if self.mode == Mode::ProbeRtt {
            st.cwnd_pkts = st.cwnd_pkts.min(MIN_PIPE_CWND_PKTS);
        }
    }

    /// Returns true when packet conservation set cwnd.
    fn modulate_cwnd_for_recovery(&self, st: &mut CongControlState, rs: &RateSample) -> bool {
        if rs.lost_pkts > 0 {
            st.cwnd_pkts = (st.cwnd_pkts - f64::from(rs.lost_pkts)).max(1.0);
        }
        if self.packet_conservation {
            st.cwnd_pkts = st
                .cwnd_pkts
                .max(f64::from(st.in_flight_pkts) + f64::from(rs.acked_sacked_pkts));
            return true;
        }
        false
    }

    /// ns-3.37 CwndEvent(CA_EVENT_TX_START) after ProbeRTT marked the flow app-limited: a
    /// restart from idle, which in ProbeBW paces at BtlBw and ends a finished ProbeRTT.
    fn tx_start(&mut self, st: &mut CongControlState) {
        if self.app_limited_pkts == 0 {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_ns = st.now_ns;
        self.ack_epoch_acked_pkts = 0.0;
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(st, 1.0),
            Mode::ProbeRtt => {
                if self.probe_rtt_round_done
                    && self.probe_rtt_done_ns.is_some_and(|d| st.now_ns > d)
                {
                    self.exit_probe_rtt(st);
                }
            }
            Mode::Startup | Mode::Drain => {}
        }
    }
}

#[cfg(test)]
#[path = "bbr_tests.rs"]
mod tests;
