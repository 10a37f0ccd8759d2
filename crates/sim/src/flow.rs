//! One flow of a run: its group, ends, plan, the transport agent that sends and receives its
//! packets, its pending timers and its statistics.

use crate::metrics::flow_stats::FlowStats;
use crate::net::built::FlowEnds;
use crate::probe::ProbeSource;
use crate::scenario::Source;
use crate::tcp::config::TcpConfig;
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::Sender;
use crate::traffic::FlowPlan;
use crate::udp::UdpSource;

/// The transport endpoints of a flow. TCP, the common case, is held inline (boxing it would
/// add a pointer chase to every packet); a UDP flow leaves the difference unused.
#[allow(clippy::large_enum_variant)]
pub enum Agent {
    /// A TCP connection: the sender and receiver.
    Tcp { sender: Sender, receiver: Receiver },
    /// A UDP source; its receiver only counts (in the flow's statistics).
    Udp(UdpSource),
    /// A latency probe: the sender's requests and the receiving host's responses.
    Probe(ProbeSource),
}

/// One flow.
pub struct Flow {
    /// Index of its group.
    pub group: u32,
    /// Sender and receiver hosts.
    pub ends: FlowEnds,
    /// When it starts and stops, and its size if finite.
    pub plan: FlowPlan,
    /// Its endpoints.
    pub agent: Agent,
    /// Time of the pending sender event (TCP: Rto; UDP and probes: Emit), if one is queued.
    pub sender_event_ns: Option<u64>,
    /// Time of the pending DelAck event, if one is queued.
    pub delack_event_ns: Option<u64>,
    /// Time of the pending Pace event (a paced TCP sender's wake-up), if one is queued.
    pub pace_event_ns: Option<u64>,
    /// Time of the last arrival event queued for a packet to the sender's host, if any
    /// (`simulator::early`: no acknowledgement is taken early while one is pending).
    pub ack_event_ns: Option<u64>,
    /// Started, and neither stopped nor completed.
    pub active: bool,
    /// When a finite flow's last byte was acknowledged, ns.
    pub completed_ns: Option<u64>,
    /// Receiver-side statistics.
    pub stats: FlowStats,
}

impl Flow {
    /// Flow `id` of `group` from `ends.sender` to `ends.receiver`, sending as `source` says
    /// with TCP settings `tcp`; UDP draws come from `seed`'s stream "udp"/`id`, BBR's from
    /// "bbr"/`id`.
    pub fn new(
        id: u32,
        group: u32,
        ends: FlowEnds,
        plan: FlowPlan,
        source: &Source,
        tcp: &TcpConfig,
        seed: u64,
    ) -> Self {
        let agent = if source.is_tcp() {
            let mut sender = Sender::new(id, ends.receiver, tcp);
            if tcp.cc.has_cong_control() {
                sender.seed(aqm::Rng::stream(seed, "bbr", u64::from(id)));
            }
            Agent::Tcp {
                sender,
                receiver: Receiver::new(id, ends.sender),
            }
        } else if let Source::UdpProbe { .. } = source {
            Agent::Probe(ProbeSource::new(id, ends.sender, ends.receiver, source))
        } else {
            Agent::Udp(UdpSource::new(id, ends.receiver, source, seed))
        };
        Flow {
            group,
            ends,
            plan,
            agent,
            sender_event_ns: None,
            delack_event_ns: None,
            pace_event_ns: None,
            ack_event_ns: None,
            active: false,
            completed_ns: None,
            stats: FlowStats::default(),
        }
    }

    /// The TCP sender, if the flow runs TCP.
    pub fn tcp_sender(&self) -> Option<&Sender> {
        match &self.agent {
            Agent::Tcp { sender, .. } => Some(sender),
            Agent::Udp(_) | Agent::Probe(_) => None,
        }
    }

    /// Segments a finite flow of `size_bytes` carries with `tcp`'s payload (at least 1).
    pub fn segments(size_bytes: u64, tcp: &TcpConfig) -> u32 {
        let payload = u64::from(tcp.payload_bytes());
        u32::try_from(size_bytes.div_ceil(payload).max(1)).unwrap_or(u32::MAX - 1)
    }
}
