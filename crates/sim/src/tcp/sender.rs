//! The TCP sender: what both loss-recovery paths share. The connection set-up (a SYN with
//! ns-3's ConnTimeout back-off), putting segments on the wire, RTT sampling (RFC 6298 with
//! Karn's rule, or RFC 7323 timestamps), the retransmission timer with DataRetries, the burst
//! limit per ACK (ns-2's maxburst_), and the dispatch of each ACK and timeout to the SACK path
//! ([`super::recovery_sack`], RFC 6675 as ns-3.37 runs it), ns-2's Sack1
//! ([`super::recovery_sack1`]) or the cumulative-ACK path ([`super::recovery_newreno`],
//! NewReno or classic Reno).

pub use super::cc::CongState;
use super::cc::{AckedInfo, CongestionControl, Controller};
use super::config::{RecoveryKind, TcpConfig};
use super::pacing::Pacer;
use super::prr::Prr;
use super::rate_sample::RateEstimator;
use super::receiver::SYN_OPTION_BYTES;
use super::rtt::RttEstimator;
use super::sack1_state::Sack1State;
use super::scoreboard::Scoreboard;
use crate::packet::{flags, Packet};
use crate::time::{ns_to_s, s_to_ns};

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    /// Data packets put on the wire, retransmissions included.
    pub data_sent: u64,
    /// Retransmitted data packets.
    pub retransmits: u64,
    /// Retransmission-timer expiries.
    pub timeouts: u64,
    /// Entries into fast recovery.
    pub fast_recoveries: u64,
    /// Window reductions in response to ECN echoes.
    pub ecn_reductions: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
    /// SYNs sent again after ConnTimeout.
    pub syn_retransmits: u64,
    /// 1 when the connection was abandoned (no answer to `conn_retries` SYNs, or
    /// `data_retries` timeouts of one segment in a row).
    pub aborted: u64,
}

/// Which loss-recovery path handles a sender's ACKs and timeouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPath {
    /// RFC 6675 with SACK, as ns-3.37 ([`super::recovery_sack`]).
    Sack,
    /// ns-2's Agent/TCP/Sack1 ([`super::recovery_sack1`]).
    Sack1,
    /// Cumulative ACKs only: NewReno or classic Reno ([`super::recovery_newreno`]).
    Cumulative,
}

impl AckPath {
    fn of(cfg: &TcpConfig) -> Self {
        match (cfg.sack, cfg.recovery) {
            (true, RecoveryKind::Sack1) => AckPath::Sack1,
            (true, _) => AckPath::Sack,
            (false, _) => AckPath::Cumulative,
        }
    }
}

/// Where the connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connection {
    /// The application has not started.
    Idle,
    /// SYNs sent (how many, the first when), no answer yet.
    SynSent { syns: u32, first_ns: u64 },
    /// Data may flow.
    Established,
    /// Abandoned; nothing more is sent.
    Aborted,
}

/// One flow's sending side. Sequence numbers count segments from 0.
#[derive(Clone, Debug)]
pub struct Sender {
    pub(super) flow: u32,
    pub(super) dst_node: u32,
    /// The unacknowledged segments `una..high`, with the SACK scoreboard.
    pub(super) board: Scoreboard,
    /// Next segment to send on the cumulative-ACK path (go-back-N after a timeout).
    pub(super) snd_nxt: u32,
    /// Segments the application offers (unbounded while it runs).
    pub(super) app_limit: u32,
    /// Congestion window, segments.
    pub(super) cwnd_pkts: f64,
    /// Slow-start threshold, segments.
    pub(super) ssthresh_pkts: f64,
    pub(super) dupacks: u32,
    pub(super) state: CongState,
    /// RFC 6582's / RFC 6675's `recover`: the highest segment sent when the last episode began.
    pub(super) recover: u32,
    /// Whether `recover` still guards against a new episode (ns-3's m_recoverActive).
    pub(super) recover_active: bool,
    /// The next partial ACK restarts the retransmission timer (ns-3 restarts it only on the
    /// first partial ACK of an episode).
    pub(super) first_partial_ack: bool,
    pub(super) prr: Prr,
    /// The SACK path's ECN guard: no second reduction until this segment is acknowledged.
    pub(super) ecn_recover: u32,
    /// The cumulative path's last window cut answered an ECN echo (ns-2's
    /// last_cwnd_action_ == CWND_ACTION_ECN).
    pub(super) last_cut_ecn: bool,
    /// An echo already found cwnd at one segment or less (ns-2's ecn_backoff_).
    pub(super) ecn_backoff: bool,
    /// The cumulative path's window in fast recovery before inflation (ns-2's cwnd_ while
    /// dupwnd_ counts the duplicates), where recovery leaves it.
    pub(super) recovery_cwnd_pkts: f64,
    /// ns-2 Sack1's own recovery state.
    pub(super) sack1: Sack1State,
    /// Set CWR on the next data packet.
    pub(super) cwr_pending: bool,
    /// The ACK being processed carries ECN-Echo (what congestion control is told).
    pub(super) ack_ece: bool,
    /// The ACK being processed: its newest-segment RTT (`AckedInfo::newest_rtt_s`), seconds;
    /// looked up only when congestion control reads it (`wants_newest_rtt`).
    pub(super) ack_newest_rtt_s: Option<f64>,
    pub(super) wants_newest_rtt: bool,
    pub(super) rtt: RttEstimator,
    /// When the retransmission (or SYN) timer expires, if running.
    pub(super) rto_deadline_ns: Option<u64>,
    /// Timeouts still allowed before the connection is abandoned (DataRetries).
    pub(super) retries_left: u32,
    pub(super) connection: Connection,
    pub(super) cc: CongestionControl,
    /// Congestion control sets cwnd and pacing from rate samples (ns-3's HasCongControl).
    pub(super) rate_based: bool,
    /// Delivery-rate records and samples, for a rate-based algorithm that reads them (BBR;
    /// Prague reads only the scoreboard's delivered count).
    pub(super) rate: Option<RateEstimator>,
    /// The pacing rate and timer (used with `pacing`).
    pub(super) pacer: Pacer,
    /// The smallest RTT estimate so far (ns-3's m_minRtt).
    pub(super) min_rtt_s: Option<f64>,
    /// Segments in flight as ns-3 computes them before ProcessAck (m_bytesInFlight).
    pub(super) in_flight_at_ack_pkts: u32,
    /// Counters.
    pub stats: SenderStats,
}

impl Sender {
    /// A sender for `flow` whose segments go to `dst_node`.
    pub fn new(flow: u32, dst_node: u32, cfg: &TcpConfig) -> Self {
        let rate =
            (cfg.cc.has_cong_control() && cfg.cc.needs_rate_sample()).then(RateEstimator::default);
        let mut board = Scoreboard::new(cfg.dupack_threshold);
        if cfg.cc.has_cong_control() && rate.is_none() {
            board.count_deliveries(); // the count, without the estimator's records
        }
        Sender {
            flow,
            dst_node,
            board,
            snd_nxt: 0,
            app_limit: 0,
            cwnd_pkts: f64::from(cfg.initial_cwnd_pkts),
            ssthresh_pkts: f64::INFINITY,
            dupacks: 0,
            state: CongState::Open,
            recover: 0,
            recover_active: false,
            first_partial_ack: true,
            prr: Prr::default(),
            ecn_recover: 0,
            last_cut_ecn: false,
            ecn_backoff: false,
            recovery_cwnd_pkts: f64::from(cfg.initial_cwnd_pkts),
            cwr_pending: false,
            ack_ece: false,
            ack_newest_rtt_s: None,
            wants_newest_rtt: cfg.cc.needs_newest_rtt(),
            sack1: Sack1State::default(),
            rtt: RttEstimator::new(cfg),
            rto_deadline_ns: None,
            retries_left: cfg.data_retries,
            connection: Connection::Idle,
            cc: CongestionControl::new(cfg),
            rate_based: cfg.cc.has_cong_control(),
            rate,
            pacer: Pacer::new(cfg),
            min_rtt_s: None,
            in_flight_at_ack_pkts: 0,
            stats: SenderStats::default(),
        }
    }

    /// The application starts offering unlimited data: open the connection (a SYN, when the
    /// configuration asks for a handshake) or start sending.
    pub fn start(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.start_object(u32::MAX, now_ns, cfg, out);
    }

    /// Like [`Sender::start`], with the application offering `segments` segments in all
    /// (`u32::MAX`: unlimited).
    pub fn start_object(
        &mut self,
        segments: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        self.app_limit = segments;
        if cfg.handshake {
            self.connection = Connection::SynSent {
                syns: 0,
                first_ns: now_ns,
            };
            self.send_syn(now_ns, cfg, out);
        } else {
            self.connection = Connection::Established;
            self.on_established(now_ns, cfg);
            self.try_send(now_ns, cfg, out);
        }
    }

    /// Give congestion control the flow's own random stream.
    pub fn seed(&mut self, rng: aqm::Rng) {
        self.cc.seed(rng);
    }

    /// The application stops offering new data. What it had already written into the send
    /// buffer, whole segments from the oldest unacknowledged one up to `send_buffer_bytes`,
    /// is still sent (as a socket sends what its application wrote before closing it;
    /// nothing is written before the connection is established); what was sent is delivered
    /// reliably either way.
    pub fn stop(&mut self, cfg: &TcpConfig) {
        let buffered = match self.connection {
            Connection::Established => cfg.send_buffer_bytes / cfg.payload_bytes(),
            _ => 0,
        };
        let written = self
            .board
            .high()
            .max(self.board.una().saturating_add(buffered));
        self.app_limit = self.app_limit.min(written);
    }

    /// Every segment the application offered is acknowledged (never for unlimited data).
    pub fn all_acked(&self) -> bool {
        self.board.una() >= self.app_limit
    }

    /// Congestion window, segments.
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd_pkts
    }

    /// Slow-start threshold, segments (infinite before the first loss).
    pub fn ssthresh_pkts(&self) -> f64 {
        self.ssthresh_pkts
    }

    /// Where the connection stands.
    pub fn connection(&self) -> Connection {
        self.connection
    }

    /// When the retransmission timer expires, if it runs.
    pub fn rto_deadline_ns(&self) -> Option<u64> {
        self.rto_deadline_ns
    }

    /// The retransmission timeout in force, back-off included, seconds.
    pub fn rto_s(&self) -> f64 {
        self.rtt.rto_s()
    }

    /// Payload bytes of one segment (the unit PRR counts in, as ns-3 does).
    pub(super) fn segment_bytes(cfg: &TcpConfig) -> u64 {
        u64::from(cfg.payload_bytes())
    }

    pub(super) fn arm_timer(&mut self, now_ns: u64) {
        self.rto_deadline_ns = Some(now_ns + s_to_ns(self.rtt.rto_s()));
    }

    /// Send a SYN and arm its timer: ConnTimeout doubled for each SYN already sent (ns-3).
    fn send_syn(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let Connection::SynSent { syns, first_ns } = self.connection else {
            return;
        };
        let size = cfg.ack_bytes + SYN_OPTION_BYTES;
        out.push(Packet::data(
            self.flow,
            0,
            self.dst_node,
            size,
            now_ns,
            flags::SYN | cfg.control_ecn_bits(),
        ));
        let wait_s = cfg.conn_timeout_s * f64::from(1u32 << syns.min(30));
        self.rto_deadline_ns = Some(now_ns + s_to_ns(wait_s));
        self.connection = Connection::SynSent {
            syns: syns + 1,
            first_ns,
        };
    }

    /// The SYN-ACK arrived: the connection is open. When only one SYN was sent it gives the
    /// first RTT sample (ns-3 times the SYN like a data segment).
    fn on_syn_ack(&mut self, ack: &Packet, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        let Connection::SynSent { syns, first_ns } = self.connection else {
            return;
        };
        if syns == 1 {
            let r_s = if cfg.timestamps {
                Self::timestamp_sample_s(ack.sent_ns, now_ns, cfg)
            } else {
                ns_to_s(now_ns - first_ns)
            };
            self.rtt.sample(r_s);
            self.count_sample(Some(r_s), true);
        }
        self.connection = Connection::Established;
        self.rto_deadline_ns = None;
        self.on_established(now_ns, cfg);
        self.try_send(now_ns, cfg, out);
    }

    /// An RTT sample from the timestamp echo: the difference of two readings of a clock that
    /// ticks every `clock_granularity_s` (ns-3's timestamps count milliseconds), at least 1 µs.
    pub(super) fn timestamp_sample_s(echo_ns: u64, now_ns: u64, cfg: &TcpConfig) -> f64 {
        let tick_ns = s_to_ns(cfg.clock_granularity_s).max(1);
        let ticks = now_ns / tick_ns - echo_ns.min(now_ns) / tick_ns;
        ns_to_s(ticks * tick_ns).max(1e-6)
    }

    /// The RTT sample an ACK of new data offers: from its timestamp echo (every ACK, a
    /// retransmission's included, RFC 7323 §4), else from the newest segment it acknowledges
    /// when that was sent only once (Karn).
    fn offered_sample_s(
        &self,
        ack: &Packet,
        ackno: u32,
        now_ns: u64,
        cfg: &TcpConfig,
    ) -> Option<f64> {
        if cfg.timestamps {
            Some(Self::timestamp_sample_s(ack.sent_ns, now_ns, cfg))
        } else {
            let (sent_ns, resent) = self.board.sent_record(ackno - 1);
            (!resent).then(|| ns_to_s(now_ns - sent_ns))
        }
    }

    /// Take the RTT sample an ACK of new data gives. A sample ends the timer's back-off unless
    /// `keep_backoff`. Returns the sample, if one was taken.
    pub(super) fn sample_rtt(
        &mut self,
        ack: &Packet,
        ackno: u32,
        now_ns: u64,
        keep_backoff: bool,
        cfg: &TcpConfig,
    ) -> Option<f64> {
        let sample_s = self.offered_sample_s(ack, ackno, now_ns, cfg);
        let taken = self.rtt.on_new_ack(ackno, now_ns, sample_s, keep_backoff);
        self.count_sample(sample_s, taken)
    }

    /// The same for a partial ACK of NewReno's fast recovery, which ns-2's estimator does not
    /// sample ([`RttEstimator::on_partial_ack`]).
    pub(super) fn sample_partial_ack(
        &mut self,
        ack: &Packet,
        ackno: u32,
        now_ns: u64,
        cfg: &TcpConfig,
    ) -> Option<f64> {
        let sample_s = self.offered_sample_s(ack, ackno, now_ns, cfg);
        let taken = self.rtt.on_partial_ack(ackno, now_ns, sample_s);
        self.count_sample(sample_s, taken)
    }

    /// Count a sample the estimator took and lower the smallest RTT estimate with the new one,
    /// as ns-3.37's `TcpSocketBase::EstimateRtt` sets m_minRtt after each measurement (the
    /// handshake's included), before the ACK reaches congestion control.
    fn count_sample(&mut self, sample_s: Option<f64>, taken: bool) -> Option<f64> {
        if taken {
            self.stats.rtt_samples += 1;
            if let Some(srtt_s) = self.rtt.srtt_s() {
                self.min_rtt_s = Some(self.min_rtt_s.map_or(srtt_s, |m| m.min(srtt_s)));
            }
        }
        sample_s.filter(|_| taken)
    }

    /// What congestion control is told about an ACK that acknowledged `acked` segments.
    pub(super) fn acked_info(&self, acked: u32, sample_s: Option<f64>, now_ns: u64) -> AckedInfo {
        AckedInfo {
            acked_pkts: acked,
            snd_una: self.board.una(),
            snd_max: self.board.high(),
            rtt_sample_s: sample_s,
            newest_rtt_s: self.ack_newest_rtt_s,
            now_s: ns_to_s(now_ns),
            srtt_s: self.rtt.srtt_s(),
            min_rtt_s: self.min_rtt_s,
            ece: self.ack_ece,
        }
    }

    /// Tell congestion control about acknowledged data (ns-3's PktsAcked); HyStart may end
    /// slow start here.
    pub(super) fn pkts_acked(&mut self, info: &AckedInfo) {
        if let Some(ssthresh) = self
            .cc
            .on_pkts_acked(info, self.cwnd_pkts, self.ssthresh_pkts)
        {
            self.ssthresh_pkts = ssthresh;
        }
        self.apply_window_update();
    }

    /// Window growth on an ACK of new data (ns-3's IncreaseWindow), with any ssthresh the
    /// algorithm set while growing.
    pub(super) fn grow_window(&mut self, info: &AckedInfo) {
        self.cwnd_pkts = self
            .cc
            .increase_window(info, self.cwnd_pkts, self.ssthresh_pkts);
        self.apply_window_update();
    }

    fn apply_window_update(&mut self) {
        let update = self.cc.take_window_update();
        if let Some(cwnd) = update.cwnd_pkts {
            self.cwnd_pkts = cwnd;
        }
        if let Some(ssthresh) = update.ssthresh_pkts {
            self.ssthresh_pkts = ssthresh;
        }
    }

    /// Enter congestion state `state`, telling congestion control of a change (ns-3's
    /// CongestionStateSet), except into CWR or from CWR back to Open, where ns-3.37 does not.
    pub(super) fn set_state(&mut self, state: CongState) {
        let silent =
            state == CongState::Cwr || (self.state == CongState::Cwr && state == CongState::Open);
        if state != self.state && !silent {
            self.cc.on_state_change(state, self.board.high());
        }
        self.state = state;
    }

    /// Put segment `seq` on the wire: a retransmission when it was sent before.
    pub(super) fn transmit(
        &mut self,
        seq: u32,
        now_ns: u64,
        cfg: &TcpConfig,
        out: &mut Vec<Packet>,
    ) {
        let new_data = seq >= self.board.high();
        self.on_transmit_paced(seq, now_ns, cfg);
        self.rtt.on_transmit(seq, new_data, now_ns);
        if new_data {
            debug_assert_eq!(seq, self.board.high(), "segments are sent in order");
            self.board.on_sent_new(now_ns);
        } else {
            self.board.on_retransmit(seq, now_ns);
            self.stats.retransmits += 1;
        }
        let mut f = if cfg.ecn {
            cfg.ect_codepoint.ecn().flag_bits()
        } else {
            0
        };
        if self.cwr_pending {
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        out.push(Packet::data(
            self.flow,
            seq,
            self.dst_node,
            cfg.packet_bytes,
            now_ns,
            f,
        ));
        self.stats.data_sent += 1;
        if matches!(self.state, CongState::Recovery | CongState::Cwr) {
            self.prr.on_sent(Self::segment_bytes(cfg));
        }
        if self.rto_deadline_ns.is_none() {
            self.arm_timer(now_ns);
        }
    }

    /// Send what the window allows, by the path the configuration uses.
    pub(super) fn try_send(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        if self.connection != Connection::Established {
            return;
        }
        match AckPath::of(cfg) {
            AckPath::Sack => self.send_by_pipe(now_ns, cfg, out),
            AckPath::Sack1 => self.send_sack1(now_ns, cfg, out),
            AckPath::Cumulative => self.send_cumulative(now_ns, cfg, out),
        }
    }

    /// React to an acknowledgement (a SYN-ACK included).
    #[inline]
    pub fn on_ack(&mut self, ack: &Packet, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        self.cc.at_time(ns_to_s(now_ns));
        if ack.has(flags::SYN) {
            self.on_syn_ack(ack, now_ns, cfg, out);
            return;
        }
        if self.connection != Connection::Established || ack.seq > self.board.high() {
            return;
        }
        self.ack_ece = cfg.ecn && ack.has(flags::ECE);
        match AckPath::of(cfg) {
            AckPath::Sack => self.on_ack_sack(ack, now_ns, cfg, out),
            AckPath::Sack1 => self.on_ack_sack1(ack, now_ns, cfg, out),
            AckPath::Cumulative => self.on_ack_cumulative(ack, now_ns, cfg, out),
        }
        self.try_send(now_ns, cfg, out);
    }

    /// The retransmission (or SYN) timer fired at `now_ns` (stale calls are ignored).
    pub fn on_rto(&mut self, now_ns: u64, cfg: &TcpConfig, out: &mut Vec<Packet>) {
        match self.rto_deadline_ns {
            Some(deadline) if deadline <= now_ns => {}
            _ => return,
        }
        self.rto_deadline_ns = None;
        self.cc.at_time(ns_to_s(now_ns));
        match self.connection {
            Connection::SynSent { syns, .. } if syns >= cfg.conn_retries => self.abort(),
            Connection::SynSent { .. } => {
                self.stats.syn_retransmits += 1;
                self.send_syn(now_ns, cfg, out);
            }
            Connection::Established if self.board.outstanding() == 0 && self.cwnd_pkts < 1.0 => {
                self.on_window_stall_timeout(now_ns, cfg, out);
            }
            Connection::Established if self.board.outstanding() > 0 => {
                // ns-3's DataRetries: give up after that many timeouts without a new ACK.
                if cfg.data_retries > 0 {
                    if self.retries_left == 0 {
                        self.abort();
                        return;
                    }
                    self.retries_left -= 1;
                }
                self.stats.timeouts += 1;
                match AckPath::of(cfg) {
                    AckPath::Sack => self.on_timeout_sack(now_ns, cfg, out),
                    AckPath::Sack1 => self.on_timeout_sack1(now_ns, cfg, out),
                    AckPath::Cumulative => self.on_timeout_cumulative(now_ns, cfg, out),
                }
            }
            _ => {}
        }
    }

    /// A new ACK arrived: the retry budget is whole again (ns-3's NewAck).
    pub(super) fn on_progress(&mut self, cfg: &TcpConfig) {
        self.retries_left = cfg.data_retries;
    }

    fn abort(&mut self) {
        self.connection = Connection::Aborted;
        self.rto_deadline_ns = None;
        self.stats.aborted = 1;
    }

    /// Whether PRR sets the window during recovery.
    pub(super) fn uses_prr(cfg: &TcpConfig) -> bool {
        cfg.recovery == RecoveryKind::Prr
    }
}
