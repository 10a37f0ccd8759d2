//! A scenario as the simulator uses it: every value resolved, validated, with units in names.

use crate::tcp::config::TcpConfig;
use toml::Table;

/// One complete, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Short name (free text).
    pub name: String,
    /// Free-text description.
    pub description: String,
    /// Simulated time, seconds.
    pub duration_s: f64,
    /// Seed of every random stream of the run.
    pub seed: u64,
    /// The network.
    pub topology: Topology,
    /// The bottleneck queue and its AQM (`[queue]`): the dumbbell's, and what each chain
    /// link's `queue` amends.
    pub queue: QueueSpec,
    /// TCP settings of every flow.
    pub tcp: TcpConfig,
    /// When flows start and stop.
    pub traffic: Traffic,
    /// What is measured, and over which window.
    pub measure: Measure,
}

/// The network a scenario runs on.
#[derive(Clone, Debug, PartialEq)]
pub enum Topology {
    /// One bottleneck between two routers.
    Dumbbell(Dumbbell),
    /// Routers in a line (a parking lot), each flow group entering and leaving at its own;
    /// link i joins routers i and i + 1.
    Chain(RouterNet),
    /// Any connected graph of routers and links, routed by the fewest hops.
    Network(RouterNet),
}

/// Names of the topology kinds.
pub const TOPOLOGY_NAMES: &[&str] = &["dumbbell", "chain", "network"];

impl Topology {
    /// The topology's default sender and receiver access delays, ms.
    pub fn access_delays_ms(&self) -> (&DelaySpec, &DelaySpec) {
        let a = match self {
            Topology::Dumbbell(d) => &d.access,
            Topology::Chain(n) | Topology::Network(n) => &n.access,
        };
        (&a.sender_delay_ms, &a.receiver_delay_ms)
    }

    /// The named routers and links of a chain or a network (None for the dumbbell).
    pub fn router_net(&self) -> Option<&RouterNet> {
        match self {
            Topology::Dumbbell(_) => None,
            Topology::Chain(n) | Topology::Network(n) => Some(n),
        }
    }

    /// The names of the measured ports (those with a managed queue), in port order: the
    /// dumbbell's [`DUMBBELL_PORT`]; a chain's or a network's links, each forward then
    /// reverse when it has a `reverse_queue`.
    pub fn port_names(&self) -> Vec<String> {
        match self {
            Topology::Dumbbell(_) => vec![DUMBBELL_PORT.to_string()],
            Topology::Chain(n) | Topology::Network(n) => {
                let mut names = Vec::new();
                for (i, l) in n.links.iter().enumerate() {
                    names.push(n.port_name(i, false));
                    if l.reverse_queue.is_some() {
                        names.push(n.port_name(i, true));
                    }
                }
                names
            }
        }
    }
}

/// The name of the dumbbell's bottleneck port, its one measured port.
pub const DUMBBELL_PORT: &str = "R1->R2";

impl RouterNet {
    /// The name of link `i`'s forward port (`"<from>-><to>"` by router names), or of its
    /// reverse port (`"<to>-><from>"`) when `reverse`.
    pub fn port_name(&self, i: usize, reverse: bool) -> String {
        let (a, b) = self.links[i].ends;
        let (from, to) = if reverse { (b, a) } else { (a, b) };
        format!("{}->{}", self.routers[from], self.routers[to])
    }
}

impl Scenario {
    /// Every managed queue of the network with the path it is read at and its link rate
    /// (b/s), in port order: the dumbbell's bottleneck; a chain's or a network's links, each
    /// forward then reverse when it has one.
    pub fn queues(&self) -> Vec<(String, &QueueSpec, f64)> {
        match &self.topology {
            Topology::Dumbbell(d) => {
                vec![("queue".into(), &self.queue, d.bottleneck_rate_mbps * 1e6)]
            }
            Topology::Chain(n) | Topology::Network(n) => {
                let mut out = Vec::new();
                for (i, l) in n.links.iter().enumerate() {
                    let rate_bps = l.rate_mbps * 1e6;
                    out.push((format!("topology.links[{i}].queue"), &l.queue, rate_bps));
                    if let Some((q, _)) = &l.reverse_queue {
                        out.push((format!("topology.links[{i}].reverse_queue"), q, rate_bps));
                    }
                }
                out
            }
        }
    }

    /// The place, among the measured ports (the order of [`Scenario::queues`] and
    /// [`Topology::port_names`]), of the port the summary and the main time series describe:
    /// the one `measure.port` names; without it the first (the dumbbell's bottleneck, a
    /// chain's first link) on a dumbbell or a chain, and on a network the one of the lowest
    /// link rate, the first in port order (the order of the links) among equals.
    pub fn summary_port(&self) -> usize {
        if let Some(name) = &self.measure.port {
            if let Some(k) = self.topology.port_names().iter().position(|n| n == name) {
                return k;
            }
        }
        match &self.topology {
            Topology::Dumbbell(_) | Topology::Chain(_) => 0,
            Topology::Network(_) => self
                .queues()
                .iter()
                .enumerate()
                .min_by(|(_, a), (_, b)| a.2.total_cmp(&b.2))
                .map_or(0, |(k, _)| k),
        }
    }
}

/// N senders → R1 → R2 → N receivers, one sender and one receiver per flow.
#[derive(Clone, Debug, PartialEq)]
pub struct Dumbbell {
    /// Capacity C of the bottleneck R1 → R2, Mb/s (both ways): the rate the run starts with,
    /// and the one its AQM is built for.
    pub bottleneck_rate_mbps: f64,
    /// Later rates of the bottleneck, both ways (empty: fixed).
    pub bottleneck_rate_schedule: Vec<RateChange>,
    /// One-way propagation delay of the bottleneck, ms.
    pub bottleneck_delay_ms: f64,
    /// The access links and the drop-tail buffers of every other port.
    pub access: AccessLinks,
}

/// The hosts' links and the plain drop-tail buffers of a topology.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessLinks {
    /// Capacity of every access link, Mb/s.
    pub access_rate_mbps: f64,
    /// Propagation delay of each sender's access link, ms (a group may set its own).
    pub sender_delay_ms: DelaySpec,
    /// Propagation delay of each receiver's access link, ms (a group may set its own).
    pub receiver_delay_ms: DelaySpec,
    /// Drop-tail buffer of every router port without a managed queue, packets.
    pub router_buffer_pkts: u32,
    /// Drop-tail buffer of every host's network interface, packets.
    pub host_buffer_pkts: u32,
}

/// Named routers joined by links (a chain's link i joins routers i and i + 1; a network's
/// join any two); each flow's sender and receiver hang off its group's ingress and egress
/// routers by their own access links.
#[derive(Clone, Debug, PartialEq)]
pub struct RouterNet {
    /// Router names (unique); a chain's in order along it.
    pub routers: Vec<String>,
    /// The links between routers.
    pub links: Vec<RouterLink>,
    /// The access links and the drop-tail buffers of every other port.
    pub access: AccessLinks,
}

/// One link between two routers, with the queue of its forward port (`from` → `to`) and,
/// optionally, of its reverse port.
#[derive(Clone, Debug, PartialEq)]
pub struct RouterLink {
    /// The routers it joins, as indices into `routers`: (from, to).
    pub ends: (usize, usize),
    /// Capacity, Mb/s (both ways): the rate the run starts with, and the one its AQMs are
    /// built for.
    pub rate_mbps: f64,
    /// Later rates of the link, both ways (empty: fixed).
    pub rate_schedule: Vec<RateChange>,
    /// One-way propagation delay, ms.
    pub delay_ms: f64,
    /// The forward port's queue: `[queue]` amended by the link's `queue` keys.
    pub queue: QueueSpec,
    /// The keys the link's `queue` table sets, as written.
    pub queue_overrides: Table,
    /// The reverse port's queue, when the link sets `reverse_queue` (`[queue]` amended by
    /// it, with the keys as written); without it the reverse port is plain drop tail.
    pub reverse_queue: Option<(QueueSpec, Table)>,
}

/// A change of a link's rate during the run: the packets whose transmission starts at `t_s`
/// or later are sent at `rate_mbps` (a packet already on the wire finishes at the old rate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateChange {
    /// When the change takes effect, seconds from the start of the run.
    pub t_s: f64,
    /// The new rate, Mb/s.
    pub rate_mbps: f64,
}

/// A value drawn per flow: a link delay, or a flow's duration.
#[derive(Clone, Debug, PartialEq)]
pub enum DelaySpec {
    /// The same for every flow.
    Constant(f64),
    /// Uniform in [lo, hi], drawn once per flow.
    Uniform(f64, f64),
    /// Flow i gets item i mod len.
    List(Vec<f64>),
}

/// The bottleneck port's buffer and AQM.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSpec {
    /// Algorithm in force: a name of [`aqm::registry::names`].
    pub aqm: &'static str,
    /// Buffer size B, packets.
    pub limit_pkts: u32,
    /// Buffer size in bytes; 0 counts packets only.
    pub limit_bytes: u64,
    /// Mark ECN-capable packets instead of dropping them on early (unforced) signals.
    pub ecn: bool,
    /// Every AQM's parameters, resolved and validated: its `[queue.<aqm>]` table with every
    /// key, in the registry's order (drop tail has none and no table).
    pub params: Vec<(&'static str, Table)>,
    /// A token-bucket shaper in front of the discipline (`[queue.tbf]`; off at rate 0).
    pub tbf: TbfSpec,
    /// Strict priority over bands, each running the AQM (`[queue.prio]`; off at 0 bands).
    pub prio: PrioSpec,
}

/// Strict priority over bands (ns-3.37 `PrioQueueDisc`; Linux `sch_prio`): a packet joins
/// band `priomap[priority]` of its flow's socket priority, and the lowest-numbered band with a
/// packet sends first. Each band runs the queue's AQM with the queue's limits.
#[derive(Clone, Debug, PartialEq)]
pub struct PrioSpec {
    /// Bands, 2 to 16; 0 is no priority scheduler (the default).
    pub bands: u32,
    /// Band of each socket priority 0 to 15 (Linux's and ns-3's default
    /// 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1).
    pub priomap: [u8; 16],
}

/// A token bucket filter in front of a queue discipline (ns-3.37 `TbfQueueDisc`; Linux
/// `sch_tbf`): a packet leaves only when the bucket of `burst_bytes`, filled at `rate_mbps`,
/// holds its size (and, with a peak rate, the bucket of `mtu_bytes` filled at
/// `peak_rate_mbps` too).
#[derive(Clone, Debug, PartialEq)]
pub struct TbfSpec {
    /// Token rate, Mb/s; 0 is no shaper (the default).
    pub rate_mbps: f64,
    /// Bucket size, bytes (ns-3 `Burst`, 125000).
    pub burst_bytes: u64,
    /// Peak rate, Mb/s; 0 is no peak bucket (ns-3 `PeakRate`).
    pub peak_rate_mbps: f64,
    /// Peak bucket size, bytes (ns-3 `Mtu`): with a peak rate, at least the largest packet.
    pub mtu_bytes: u64,
}

impl QueueSpec {
    /// The resolved parameter table of the AQM called `name` (empty when it has none).
    pub fn params_of(&self, name: &str) -> Option<&Table> {
        self.params.iter().find(|(n, _)| *n == name).map(|(_, t)| t)
    }
}

/// Traffic: groups of long-lived bulk TCP flows, each started and stopped by its schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    /// The groups, in order; flow ids count through them (group 0's flows first).
    pub groups: Vec<FlowGroup>,
    /// The file gave one `[traffic.schedule]` rather than `[[traffic.groups]]` (and the
    /// canonical text keeps that form).
    pub single: bool,
}

/// Flows that share a schedule, access delays and TCP settings.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowGroup {
    /// Name, unique in the scenario.
    pub name: String,
    /// When the group's flows are added and removed.
    pub schedule: Schedule,
    /// Each started flow waits a uniform random time in [0, this] first, seconds.
    pub start_jitter_s: f64,
    /// The group's sender access delays (None: the topology's).
    pub sender_delay_ms: Option<DelaySpec>,
    /// The group's receiver access delays (None: the topology's).
    pub receiver_delay_ms: Option<DelaySpec>,
    /// How long each flow runs before it stops, seconds, drawn per flow (None: as its
    /// schedule says).
    pub flow_duration_s: Option<DelaySpec>,
    /// Ingress and egress routers of a chain or a network (None: its first and last router;
    /// always None on a dumbbell).
    pub path: Option<[String; 2]>,
    /// What the group's flows send.
    pub source: Source,
    /// The socket priority of the group's flows, 0 to 15 (Linux `SO_PRIORITY`, ns-3
    /// `SocketPriorityTag`): which band of a priority queue their packets join.
    pub priority: u8,
    /// The keys the group sets on top of `[tcp]`, as written.
    pub tcp_overrides: Table,
    /// The group's TCP: `[tcp]` with those keys replaced.
    pub tcp: TcpConfig,
}

/// What each flow of a group sends, and over which transport.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// TCP with unlimited data (a long-lived bulk transfer).
    TcpBulk,
    /// TCP carrying one object of a size drawn per flow; the flow completes when all of it is
    /// acknowledged.
    TcpFinite { size: SizeSpec },
    /// UDP at a constant bit rate (ns-2's `Application/Traffic/CBR`).
    UdpCbr {
        rate_kbps: f64,
        packet_bytes: u32,
        /// Each gap is varied by a uniform ±50 % (ns-2's `random_`).
        random: bool,
    },
    /// UDP with exponential ON and OFF periods (ns-2's `Application/Traffic/Exponential`).
    UdpOnOff {
        rate_kbps: f64,
        packet_bytes: u32,
        on_mean_s: f64,
        off_mean_s: f64,
    },
    /// A latency probe (flent's ping in the RRUL test): a request of `packet_bytes` every
    /// `interval_ms`, answered at once by the receiving host with a response of the same size.
    UdpProbe { interval_ms: f64, packet_bytes: u32 },
}

impl Source {
    /// Whether the flows run TCP.
    pub fn is_tcp(&self) -> bool {
        matches!(self, Source::TcpBulk | Source::TcpFinite { .. })
    }
}

/// Names of the transports.
pub const TRANSPORT_NAMES: &[&str] = &["tcp", "udp"];

/// The size of a finite TCP flow's object, drawn per flow.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeSpec {
    /// Every flow the same, bytes.
    Fixed { bytes: u64 },
    /// Exponential with the given mean, bytes.
    Exponential { mean_bytes: f64 },
    /// Pareto with the given mean and shape (> 1), bytes.
    Pareto { mean_bytes: f64, shape: f64 },
}

/// How the number of active flows evolves.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// `flows` flows for the whole run.
    Constant { flows: u32 },
    /// The BetaRED paper's scenario 2: n_base, n_mid, n_max, n_mid, n_base over five phases.
    BetaredSteps {
        n_base: u32,
        n_mid: u32,
        n_max: u32,
        phase_s: f64,
    },
    /// An explicit list of changes.
    Events(Vec<FlowChange>),
    /// `flows` flows, each starting (and optionally stopping) at a uniform random time.
    Random {
        flows: u32,
        start_window_s: [f64; 2],
        stop_window_s: Option<[f64; 2]>,
    },
    /// `initial` flows at 0, then `add` flows started (or `remove` stopped) every `every_s`
    /// from `from_s` to `to_s` (both included).
    Periodic {
        initial: u32,
        add: u32,
        remove: u32,
        every_s: f64,
        from_s: f64,
        to_s: f64,
    },
    /// New flows arriving as a Poisson process of `rate_per_s` over `window_s`.
    Poisson { rate_per_s: f64, window_s: [f64; 2] },
}

/// The steps of a periodic schedule: at from_s + k·every_s for k = 0, 1, … up to to_s.
pub fn periodic_steps(every_s: f64, from_s: f64, to_s: f64) -> u64 {
    (((to_s - from_s) / every_s).floor() as u64).saturating_add(1)
}

/// Names of the schedule kinds.
pub const SCHEDULE_NAMES: &[&str] = &[
    "constant",
    "betared_steps",
    "events",
    "random",
    "periodic",
    "poisson",
];

/// At `t_s`, start `add` new flows and stop the `remove` most recently started ones.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowChange {
    /// Time of the change, seconds.
    pub t_s: f64,
    /// Flows started.
    pub add: u32,
    /// Flows stopped (most recently started first).
    pub remove: u32,
}

/// Measurement settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// Summary metrics cover [start, end], seconds: `measure.window` resolved over the run.
    pub window_s: [f64; 2],
    /// Step of the time series, ms.
    pub sample_interval_ms: f64,
    /// Flows whose congestion window is traced, each below the number of flows of the run.
    pub cwnd_flows: Vec<u32>,
    /// Queue target for the settling time, packets (none: no settling time).
    pub target_queue_pkts: Option<f64>,
    /// Settled means the 1-s mean queue stays within ±this fraction of the target.
    pub settle_band: f64,
    /// Upper edges of the size bins of the flow-completion-time table, bytes (increasing; a
    /// last bin takes every larger flow).
    pub fct_bins_bytes: Vec<u64>,
    /// The port the summary and the main time series describe, by name, as written (None:
    /// the default rule of [`Scenario::summary_port`]).
    pub port: Option<String>,
}
