//! TCP settings and the two presets that reproduce the reference simulators' defaults.

use super::cc::registry::CcKind;
use crate::packet::Ecn;
use serde::Serialize;

/// Loss recovery after a fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryKind {
    /// NewReno (RFC 6582): partial ACKs retransmit the next hole and stay in recovery.
    NewReno,
    /// Classic Reno (RFC 5681 §3.2): the first ACK of new data, even a partial one, ends
    /// recovery; a second loss in the window usually waits for the retransmission timer.
    Reno,
    /// Proportional Rate Reduction (RFC 6937, ns-3's TcpPrrRecovery): the window falls to
    /// ssthresh over one RTT in step with the data delivered; recovery ends as NewReno's.
    Prr,
    /// ns-2.35's Agent/TCP/Sack1 (Fall & Floyd 1996): SACK recovery that sends while its
    /// estimate `pipe` of the packets in flight is below cwnd, resends each hole below the
    /// highest SACKed segment once, and after a timeout forgets the SACK information.
    Sack1,
}

impl RecoveryKind {
    /// Names as written in scenarios.
    pub const NAMES: &'static [&'static str] = &["newreno", "reno", "prr", "sack1"];

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryKind::NewReno => "newreno",
            RecoveryKind::Reno => "reno",
            RecoveryKind::Prr => "prr",
            RecoveryKind::Sack1 => "sack1",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "newreno" => Some(RecoveryKind::NewReno),
            "reno" => Some(RecoveryKind::Reno),
            "prr" => Some(RecoveryKind::Prr),
            "sack1" => Some(RecoveryKind::Sack1),
            _ => None,
        }
    }
}

/// How Reno's congestion window grows on an ACK of new data (CUBIC has its own rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowGrowth {
    /// By the segments the ACK acknowledges (RFC 5681 §3.1 with RFC 3465 byte counting):
    /// +acked in slow start, +acked/cwnd in congestion avoidance.
    PerSegment,
    /// By ACK, whatever it covers (ns-2's opencwnd): +1 in slow start, +1/cwnd in congestion
    /// avoidance, the ACK that ends fast recovery included.
    PerAck,
}

impl WindowGrowth {
    /// Names as written in scenarios.
    pub const NAMES: &'static [&'static str] = &["per_segment", "per_ack"];

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            WindowGrowth::PerSegment => "per_segment",
            WindowGrowth::PerAck => "per_ack",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "per_segment" => Some(WindowGrowth::PerSegment),
            "per_ack" => Some(WindowGrowth::PerAck),
            _ => None,
        }
    }
}

/// What Reno halves on a loss or an ECN echo (CUBIC has its own rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowReduction {
    /// The flight size (RFC 5681 eq. (4)): ssthresh = max(FlightSize/2, 2), cwnd = ssthresh.
    Flight,
    /// The window (ns-2's slowdown with precisionReduce_): cwnd = cwnd/2 and
    /// ssthresh = max(⌊cwnd/2⌋, 2), cwnd capped by the receiver's window first.
    Cwnd,
}

impl WindowReduction {
    /// Names as written in scenarios.
    pub const NAMES: &'static [&'static str] = &["flight", "cwnd"];

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            WindowReduction::Flight => "flight",
            WindowReduction::Cwnd => "cwnd",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "flight" => Some(WindowReduction::Flight),
            "cwnd" => Some(WindowReduction::Cwnd),
            _ => None,
        }
    }
}

/// The window NewReno's fast recovery ends with, on the cumulative-ACK path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryExit {
    /// The window reduced at the entry (RFC 6582 §3.2 step 3, option 2: cwnd = ssthresh).
    Ssthresh,
    /// What partial ACKs left of it: a partial ACK deflates the inflation first and, once
    /// that is used up, the reduced window itself (ns-2's partial_window_deflation_, where
    /// dupwnd_ and cwnd_ are deflated in that order and recovery ends at cwnd_).
    Deflated,
}

impl RecoveryExit {
    /// Names as written in scenarios.
    pub const NAMES: &'static [&'static str] = &["ssthresh", "deflated"];

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryExit::Ssthresh => "ssthresh",
            RecoveryExit::Deflated => "deflated",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "ssthresh" => Some(RecoveryExit::Ssthresh),
            "deflated" => Some(RecoveryExit::Deflated),
            _ => None,
        }
    }
}

/// How a sender without SACK answers ECN echoes beyond RFC 3168's reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EcnResponse {
    /// RFC 3168 §6.1.2: reduce as for a loss; cwnd never below one segment.
    Rfc3168,
    /// ns-2.35's Agent/TCP: an ACK that carries ECE does not grow the window; an echo at
    /// cwnd ≤ 1 halves it below one segment, so nothing is sent until the retransmission timer
    /// fires (which then sets cwnd to 1 without a further cut), and a second such echo in a row
    /// doubles the timer.
    Ns2,
}

impl EcnResponse {
    /// Names as written in scenarios.
    pub const NAMES: &'static [&'static str] = &["rfc3168", "ns2"];

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            EcnResponse::Rfc3168 => "rfc3168",
            EcnResponse::Ns2 => "ns2",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc3168" => Some(EcnResponse::Rfc3168),
            "ns2" => Some(EcnResponse::Ns2),
            _ => None,
        }
    }
}

/// The ECN-capable codepoint a sender puts on its packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EctCodepoint {
    /// ECT(0): classic ECN (RFC 3168).
    Ect0,
    /// ECT(1): the L4S identifier (RFC 9331 §4); an L4S queue classifies the packet into its
    /// low-latency queue.
    Ect1,
}

impl EctCodepoint {
    /// Names as written in scenarios.
    pub const NAMES: &'static [&'static str] = &["ect0", "ect1"];

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            EctCodepoint::Ect0 => "ect0",
            EctCodepoint::Ect1 => "ect1",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "ect0" => Some(EctCodepoint::Ect0),
            "ect1" => Some(EctCodepoint::Ect1),
            _ => None,
        }
    }

    /// The packet's ECN field for this codepoint.
    pub fn ecn(self) -> Ecn {
        match self {
            EctCodepoint::Ect0 => Ecn::Ect0,
            EctCodepoint::Ect1 => Ecn::Ect1,
        }
    }
}

/// How a receiver echoes the CE marks it sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnFeedback {
    /// RFC 3168 §6.1.3: ECE on every ACK from a CE mark until a CWR arrives (at most one
    /// congestion signal per RTT).
    Classic,
    /// Per-CE feedback (RFC 8257 §3.2, ns-3.37's DctcpEcn mode): an ACK carries ECE exactly
    /// when the segments it acknowledges were CE-marked; a delayed ACK is sent at once when
    /// the CE state of arriving segments changes, so that no ACK covers both. Without ACK loss
    /// the sender learns the mark of every segment, the information AccECN's counters give
    /// (RFC 9331 §4.2 requires such feedback of L4S senders).
    PerCe,
}

impl EcnFeedback {
    /// Names as written in scenarios.
    pub const NAMES: &'static [&'static str] = &["classic", "per_ce"];

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            EcnFeedback::Classic => "classic",
            EcnFeedback::PerCe => "per_ce",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "classic" => Some(EcnFeedback::Classic),
            "per_ce" => Some(EcnFeedback::PerCe),
            _ => None,
        }
    }
}

/// How RTT samples are taken and the retransmission timeout computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RttEstimatorKind {
    /// RFC 6298 in floating point, a sample from every ACK of new data (Karn's rule).
    Rfc6298,
    /// ns-2's estimator: one timed segment per RTT, a coarse clock of `clock_granularity_s`
    /// ticks, and Jacobson's scaled-integer SRTT/RTTVAR.
    Ns2,
}

impl RttEstimatorKind {
    /// Names as written in scenarios.
    pub const NAMES: &'static [&'static str] = &["rfc6298", "ns2"];

    /// The name as written in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            RttEstimatorKind::Rfc6298 => "rfc6298",
            RttEstimatorKind::Ns2 => "ns2",
        }
    }

    /// The kind called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rfc6298" => Some(RttEstimatorKind::Rfc6298),
            "ns2" => Some(RttEstimatorKind::Ns2),
            _ => None,
        }
    }
}

/// Every TCP knob of a run. Window sizes are in segments; a segment is one full-size packet.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpConfig {
    /// Preset the values started from: `ns3` or `ns2`.
    pub preset: String,
    /// Congestion control, one of the algorithms registered in `cc/registry.rs`.
    pub cc: CcKind,
    /// How the window evolves during loss recovery: NewReno, classic Reno, PRR or ns-2's Sack1.
    pub recovery: RecoveryKind,
    /// The window NewReno's recovery ends with on the cumulative-ACK path.
    pub recovery_exit: RecoveryExit,
    /// Selective acknowledgements (RFC 2018) with RFC 6675 loss recovery: the receiver reports
    /// the blocks it holds above a hole and the sender resends only what is missing.
    pub sack: bool,
    /// Limited transmit (RFC 3042): the first two duplicate ACKs each let one new segment out.
    pub limited_transmit: bool,
    /// A fast retransmit restarts the retransmission timer (ns-2's reset_rtx_timer; Linux
    /// rearms it when it resends the head). Otherwise the timer runs on from the last ACK of
    /// new data (ns-3), so a retransmission that takes longer than the RTO to be acknowledged
    /// ends in a timeout.
    pub fast_retransmit_restarts_timer: bool,
    /// Reno's window growth: per segment acknowledged or per ACK.
    pub window_growth: WindowGrowth,
    /// Reno's window cut on loss or ECN: from the flight size or from cwnd.
    pub window_reduction: WindowReduction,
    /// The timestamps option (RFC 7323): every ACK gives an RTT sample, retransmissions
    /// included; its 12 bytes are counted in `header_bytes` and `ack_bytes`.
    pub timestamps: bool,
    /// A connection opens with a SYN / SYN-ACK exchange before the first data segment.
    pub handshake: bool,
    /// Wait before resending an unanswered SYN, seconds (ns-3's ConnTimeout).
    pub conn_timeout_s: f64,
    /// SYNs sent without answer before the connection is abandoned (ns-3's ConnCount).
    pub conn_retries: u32,
    /// Consecutive timeouts of one segment after which the connection is abandoned (ns-3's
    /// DataRetries); 0 means never.
    pub data_retries: u32,
    /// RTT sampling and RTO computation: RFC 6298 or ns-2's.
    pub rtt_estimator: RttEstimatorKind,
    /// IP packet size of a full data segment, bytes (headers included).
    pub packet_bytes: u32,
    /// TCP/IP header bytes inside `packet_bytes` (the rest is payload).
    pub header_bytes: u32,
    /// Size of a pure acknowledgement, bytes.
    pub ack_bytes: u32,
    /// Initial congestion window, segments.
    pub initial_cwnd_pkts: u32,
    /// Receiver's advertised window, segments (caps the flight size).
    pub rwnd_pkts: u32,
    /// The socket's send buffer, bytes: the unacknowledged and the unsent data the
    /// application keeps written ahead (ns-3's `TcpSocket::SndBufSize`). When the flow
    /// stops, the whole segments it holds are still sent; 0: a stopping flow only completes
    /// what it sent.
    pub send_buffer_bytes: u32,
    /// Lower bound on the retransmission timeout, seconds (RFC 6298 (2.4)).
    pub min_rto_s: f64,
    /// Retransmission timeout before the first RTT sample, seconds.
    pub initial_rto_s: f64,
    /// Upper bound on the backed-off retransmission timeout, seconds.
    pub max_rto_s: f64,
    /// Clock granularity G of RFC 6298 (2.3), seconds; with the ns-2 estimator, its clock
    /// tick (tcpTick_).
    pub clock_granularity_s: f64,
    /// Delayed acknowledgements (true) or one ACK per data packet (false).
    pub delayed_ack: bool,
    /// With delayed ACKs: acknowledge at the latest every this many in-order segments.
    pub delack_count: u32,
    /// With delayed ACKs: acknowledge at the latest this long after an unacknowledged segment.
    pub delack_timeout_ms: f64,
    /// At most this many new segments sent in response to one ACK (ns-2's maxburst_);
    /// 0 means no limit.
    pub max_burst_pkts: u32,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// ECN-capable senders (RFC 3168): marks instead of drops where the AQM allows.
    pub ecn: bool,
    /// The cumulative-ACK path's answer to ECN echoes: RFC 3168's or ns-2's.
    pub ecn_response: EcnResponse,
    /// The ECN-capable codepoint of the packets sent, with `ecn`.
    pub ect_codepoint: EctCodepoint,
    /// How the receiver echoes CE marks, with `ecn`.
    pub ecn_feedback: EcnFeedback,
    /// DCTCP's estimation gain g (RFC 8257 §3.3 step 7; ns-3.37 DctcpShiftG).
    pub dctcp_g: f64,
    /// DCTCP's α before the first estimate (ns-3.37 DctcpAlphaOnInit, Linux
    /// dctcp_alpha_on_init).
    pub dctcp_alpha_init: f64,
    /// DCTCP answers a loss by halving ssthresh, as RFC 8257 §3.5 and Linux's
    /// `dctcp_react_to_loss` do; false: by (1 − α/2), as ns-3.37's TcpDctcp does for any cut.
    pub dctcp_halve_on_loss: bool,
    /// TCP Prague falls back to a classic response behind a classic ECN AQM (Linux
    /// `prague_ecn_fallback` 1; RFC 9331 §4.3).
    pub prague_ecn_fallback: bool,
    /// The fewest segments TCP Prague sends back to back at a pacing release, its GSO burst's
    /// floor (Linux `net.ipv4.tcp_min_tso_segs`, 2, which `prague_tso_segs` reads; 1 paces
    /// one segment at a time).
    pub prague_min_tso_segs: u32,
    /// LEDBAT's target queueing delay TARGET, milliseconds (RFC 6817 §2.4.2; ns-3.37
    /// `TcpLedbat::TargetDelay`, 100).
    pub ledbat_target_ms: f64,
    /// LEDBAT's GAIN, the window's growth per RTT at zero queueing delay in segments (RFC 6817
    /// §2.4.2; ns-3.37 `TcpLedbat::Gain`, 1).
    pub ledbat_gain: f64,
    /// CUBIC scaling constant C (RFC 9438 §4.2).
    pub cubic_c: f64,
    /// CUBIC multiplicative decrease factor β_cubic (RFC 9438 §4.6).
    pub cubic_beta: f64,
    /// CUBIC fast convergence (RFC 9438 §4.7).
    pub fast_convergence: bool,
    /// CUBIC's TCP-friendly (Reno-friendly) region (RFC 9438 §4.3).
    pub cubic_friendliness: bool,
    /// HyStart (Ha & Rhee 2011): CUBIC leaves slow start early on an ACK train or a delay rise.
    pub hystart: bool,
    /// HyStart acts only once cwnd is at least this many segments (ns-3's HyStartLowWindow).
    pub hystart_low_window_pkts: u32,
    /// Pacing (ns-3.37's EnablePacing): after the initial window, one segment per
    /// payload/pacing-rate interval.
    pub pacing: bool,
    /// Pacing rate factor over cwnd/RTT while cwnd < ssthresh/2 (ns-3's PacingSsRatio, 200 %).
    pub pacing_ss_ratio: f64,
    /// Pacing rate factor over cwnd/RTT otherwise (ns-3's PacingCaRatio, 120 %).
    pub pacing_ca_ratio: f64,
}

/// Names of the presets.
pub const PRESETS: &[&str] = &["ns3", "ns2"];

/// ns-3.37 `TcpLedbat::TargetDelay`, milliseconds: `ledbat_target_ms`'s default.
pub const LEDBAT_TARGET_MS: f64 = 100.0;
/// Linux's `net.ipv4.tcp_min_tso_segs` default, the floor of TCP Prague's GSO burst.
pub const PRAGUE_MIN_TSO_SEGS: u32 = 2;
/// ns-3.37 `TcpLedbat::Gain`: `ledbat_gain`'s default.
pub const LEDBAT_GAIN: f64 = 1.0;

impl TcpConfig {
    /// ns-3.37's defaults (tcp-socket.cc, tcp-socket-base.cc, tcp-cubic.cc, rtt-estimator.cc):
    /// TcpCubic with HyStart (HyStartLowWindow 16) and without a TCP-friendly region (ns-3.37's
    /// TcpCubic has none; its TcpFriendliness attribute came later), SACK, TcpPrrRecovery,
    /// limited transmit, timestamps, a SYN handshake (ConnTimeout 3 s, ConnCount 6),
    /// DataRetries 6, InitialCwnd 10, DelAckCount 2 / DelAckTimeout 200 ms, MinRto 1 s,
    /// InitialEstimation 1 s, ClockGranularity 1 ms, ReTxThreshold 3, UseEcn off (ECT(0) and
    /// classic feedback when on), DCTCP's DctcpShiftG 1/16 and DctcpAlphaOnInit 1, RcvBufSize
    /// 131072 B, Cubic C 0.4, Beta 0.7, FastConvergence on, an RFC 6298 estimator, no burst
    /// limit; SegmentSize 948 B so that with 52 B of TCP/IP headers (timestamps included) a data
    /// packet is 1000 B at IP, as the BetaRED paper's M; a pure ACK is 52 B.
    pub fn ns3() -> Self {
        TcpConfig {
            preset: "ns3".into(),
            cc: CcKind::Cubic,
            recovery: RecoveryKind::Prr,
            recovery_exit: RecoveryExit::Ssthresh,
            sack: true,
            limited_transmit: true,
            fast_retransmit_restarts_timer: false,
            window_growth: WindowGrowth::PerSegment,
            window_reduction: WindowReduction::Flight,
            timestamps: true,
            handshake: true,
            conn_timeout_s: 3.0,
            conn_retries: 6,
            data_retries: 6,
            rtt_estimator: RttEstimatorKind::Rfc6298,
            packet_bytes: 1000,
            header_bytes: 52,
            ack_bytes: 52,
            initial_cwnd_pkts: 10,
            rwnd_pkts: 131_072 / 948,
            send_buffer_bytes: 0,
            min_rto_s: 1.0,
            initial_rto_s: 1.0,
            max_rto_s: 60.0,
            clock_granularity_s: 0.001,
            delayed_ack: true,
            delack_count: 2,
            delack_timeout_ms: 200.0,
            max_burst_pkts: 0,
            dupack_threshold: 3,
            ecn: false,
            ecn_response: EcnResponse::Rfc3168,
            ect_codepoint: EctCodepoint::Ect0,
            ecn_feedback: EcnFeedback::Classic,
            dctcp_g: 1.0 / 16.0,
            dctcp_alpha_init: 1.0,
            dctcp_halve_on_loss: false,
            prague_ecn_fallback: true,
            prague_min_tso_segs: PRAGUE_MIN_TSO_SEGS,
            ledbat_target_ms: LEDBAT_TARGET_MS,
            ledbat_gain: LEDBAT_GAIN,
            cubic_c: 0.4,
            cubic_beta: 0.7,
            fast_convergence: true,
            cubic_friendliness: false,
            hystart: true,
            hystart_low_window_pkts: 16,
            pacing: false,
            pacing_ss_ratio: 2.0,
            pacing_ca_ratio: 1.2,
        }
    }

    /// ns-2.35's defaults (tcl/lib/ns-default.tcl, Agent/TCP/Reno and TCPSink): Reno with
    /// classic Reno recovery, an ACK for every packet, packetSize_ 1000 B of payload plus 40 B
    /// of headers, windowInit_ 2, window_ 20, maxburst_ 0, minrto_ 0.2 s, rtxcur_init_ 3 s,
    /// maxrto_ 60 s, tcpTick_ 10 ms with ns-2's RTT estimator, numdupacks_ 3, ECN off;
    /// singledup_ 1 (limited transmit), the timer restarted by a fast retransmit
    /// (reset_rtx_timer), growth per ACK (opencwnd), precisionReduce_ true (cwnd halved,
    /// ssthresh its integer half), and ns-2's answer to ECN echoes. With `recovery = "newreno"`
    /// it is Agent/TCP/Newreno (partial_window_deflation_ 1, newreno_changes1_ 1), with
    /// `sack = true, recovery = "sack1"` Agent/TCP/Sack1 with TCPSink/Sack1.
    pub fn ns2() -> Self {
        TcpConfig {
            preset: "ns2".into(),
            cc: CcKind::Reno,
            recovery: RecoveryKind::Reno,
            recovery_exit: RecoveryExit::Deflated,
            sack: false,
            limited_transmit: true,
            fast_retransmit_restarts_timer: true,
            window_growth: WindowGrowth::PerAck,
            window_reduction: WindowReduction::Cwnd,
            timestamps: false,
            handshake: false,
            conn_timeout_s: 3.0,
            conn_retries: 6,
            data_retries: 0,
            rtt_estimator: RttEstimatorKind::Ns2,
            packet_bytes: 1040,
            header_bytes: 40,
            ack_bytes: 40,
            initial_cwnd_pkts: 2,
            rwnd_pkts: 20,
            send_buffer_bytes: 0,
            min_rto_s: 0.2,
            initial_rto_s: 3.0,
            max_rto_s: 60.0,
            clock_granularity_s: 0.01,
            delayed_ack: false,
            delack_count: 1,
            delack_timeout_ms: 100.0,
            max_burst_pkts: 0,
            dupack_threshold: 3,
            ecn: false,
            ecn_response: EcnResponse::Ns2,
            ect_codepoint: EctCodepoint::Ect0,
            ecn_feedback: EcnFeedback::Classic,
            dctcp_g: 1.0 / 16.0,
            dctcp_alpha_init: 1.0,
            dctcp_halve_on_loss: false,
            prague_ecn_fallback: true,
            prague_min_tso_segs: PRAGUE_MIN_TSO_SEGS,
            ledbat_target_ms: LEDBAT_TARGET_MS,
            ledbat_gain: LEDBAT_GAIN,
            cubic_c: 0.4,
            cubic_beta: 0.7,
            fast_convergence: true,
            cubic_friendliness: true,
            hystart: false,
            hystart_low_window_pkts: 16,
            pacing: false,
            pacing_ss_ratio: 2.0,
            pacing_ca_ratio: 1.2,
        }
    }

    /// The preset called `name`.
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "ns3" => Some(Self::ns3()),
            "ns2" => Some(Self::ns2()),
            _ => None,
        }
    }

    /// The ECN field of control packets (SYN, SYN-ACK, pure ACKs): ECN-capable with per-CE
    /// feedback, as ns-3.37's DctcpEcn mode sends every packet, so that a step-marking queue
    /// marks them instead of dropping; Not-ECT otherwise (RFC 3168 §6.1.1 keeps them Not-ECT).
    pub fn control_ecn_bits(&self) -> u8 {
        if self.ecn && self.ecn_feedback == EcnFeedback::PerCe {
            self.ect_codepoint.ecn().flag_bits()
        } else {
            0
        }
    }

    /// Payload bytes of a full segment.
    pub fn payload_bytes(&self) -> u32 {
        self.packet_bytes - self.header_bytes
    }
}
