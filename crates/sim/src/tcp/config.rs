//! TCP settings and the two presets that reproduce the reference simulators' defaults.

use serde::Serialize;

/// Congestion-control algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    /// Reno/NewReno AIMD (RFC 5681, RFC 6582).
    Reno,
    /// CUBIC (RFC 9438).
    Cubic,
}

/// Every TCP knob of a run. Window sizes are in segments; a segment is one full-size packet.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpConfig {
    /// Preset the values started from: `ns3` or `ns2`.
    pub preset: String,
    /// Congestion control.
    pub cc: CcKind,
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
    /// Lower bound on the retransmission timeout, seconds (RFC 6298 (2.4)).
    pub min_rto_s: f64,
    /// Retransmission timeout before the first RTT sample, seconds.
    pub initial_rto_s: f64,
    /// Upper bound on the backed-off retransmission timeout, seconds.
    pub max_rto_s: f64,
    /// Clock granularity G of RFC 6298 (2.3), seconds.
    pub clock_granularity_s: f64,
    /// Delayed acknowledgements (true) or one ACK per data packet (false).
    pub delayed_ack: bool,
    /// With delayed ACKs: acknowledge at the latest every this many in-order segments.
    pub delack_count: u32,
    /// With delayed ACKs: acknowledge at the latest this long after an unacknowledged segment.
    pub delack_timeout_ms: f64,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// ECN-capable senders (RFC 3168): marks instead of drops where the AQM allows.
    pub ecn: bool,
    /// CUBIC scaling constant C (RFC 9438 §4.2).
    pub cubic_c: f64,
    /// CUBIC multiplicative decrease factor β_cubic (RFC 9438 §4.6).
    pub cubic_beta: f64,
    /// CUBIC fast convergence (RFC 9438 §4.7).
    pub fast_convergence: bool,
}

/// Names of the presets.
pub const PRESETS: &[&str] = &["ns3", "ns2"];

impl TcpConfig {
    /// ns-3.37's defaults (tcp-socket.cc, tcp-socket-base.cc, tcp-cubic.cc, rtt-estimator.cc):
    /// TcpCubic, InitialCwnd 10, DelAckCount 2 / DelAckTimeout 200 ms, MinRto 1 s,
    /// InitialEstimation 1 s, ClockGranularity 1 ms, ReTxThreshold 3, UseEcn off, RcvBufSize
    /// 131072 B, Cubic C 0.4, Beta 0.7, FastConvergence on; 1000-byte IP packets as the
    /// BetaRED paper used.
    pub fn ns3() -> Self {
        TcpConfig {
            preset: "ns3".into(),
            cc: CcKind::Cubic,
            packet_bytes: 1000,
            header_bytes: 40,
            ack_bytes: 40,
            initial_cwnd_pkts: 10,
            rwnd_pkts: 131_072 / 960,
            min_rto_s: 1.0,
            initial_rto_s: 1.0,
            max_rto_s: 60.0,
            clock_granularity_s: 0.001,
            delayed_ack: true,
            delack_count: 2,
            delack_timeout_ms: 200.0,
            dupack_threshold: 3,
            ecn: false,
            cubic_c: 0.4,
            cubic_beta: 0.7,
            fast_convergence: true,
        }
    }

    /// ns-2.35's defaults (tcl/lib/ns-default.tcl, Agent/TCP): Reno, an ACK for every
    /// packet, packetSize_ 1000 B of payload plus 40 B of headers, windowInit_ 2, window_ 20,
    /// minrto_ 0.2 s, rtxcur_init_ 3 s, maxrto_ 60 s, tcpTick_ 10 ms, numdupacks_ 3, ECN off.
    pub fn ns2() -> Self {
        TcpConfig {
            preset: "ns2".into(),
            cc: CcKind::Reno,
            packet_bytes: 1040,
            header_bytes: 40,
            ack_bytes: 40,
            initial_cwnd_pkts: 2,
            rwnd_pkts: 20,
            min_rto_s: 0.2,
            initial_rto_s: 3.0,
            max_rto_s: 60.0,
            clock_granularity_s: 0.01,
            delayed_ack: false,
            delack_count: 1,
            delack_timeout_ms: 100.0,
            dupack_threshold: 3,
            ecn: false,
            cubic_c: 0.4,
            cubic_beta: 0.7,
            fast_convergence: true,
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

    /// Payload bytes of a full segment.
    pub fn payload_bytes(&self) -> u32 {
        self.packet_bytes - self.header_bytes
    }
}
