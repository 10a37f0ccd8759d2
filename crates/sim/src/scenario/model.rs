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
    /// The dumbbell network.
    pub topology: Dumbbell,
    /// The bottleneck queue and its AQM.
    pub queue: QueueSpec,
    /// TCP settings of every flow.
    pub tcp: TcpConfig,
    /// When flows start and stop.
    pub traffic: Traffic,
    /// What is measured, and over which window.
    pub measure: Measure,
}

/// N senders → R1 → R2 → N receivers, one sender and one receiver per flow.
#[derive(Clone, Debug, PartialEq)]
pub struct Dumbbell {
    /// Capacity C of the bottleneck R1 → R2, Mb/s.
    pub bottleneck_rate_mbps: f64,
    /// One-way propagation delay of the bottleneck, ms.
    pub bottleneck_delay_ms: f64,
    /// Capacity of every access link, Mb/s.
    pub access_rate_mbps: f64,
    /// Propagation delay of each sender's access link, ms.
    pub sender_delay_ms: DelaySpec,
    /// Propagation delay of each receiver's access link, ms.
    pub receiver_delay_ms: DelaySpec,
    /// Drop-tail buffer of every router port except the bottleneck's, packets.
    pub router_buffer_pkts: u32,
    /// Drop-tail buffer of every host's network interface, packets.
    pub host_buffer_pkts: u32,
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
    /// The keys the group sets on top of `[tcp]`, as written.
    pub tcp_overrides: Table,
    /// The group's TCP: `[tcp]` with those keys replaced.
    pub tcp: TcpConfig,
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
}

/// Names of the schedule kinds.
pub const SCHEDULE_NAMES: &[&str] = &["constant", "betared_steps", "events", "random"];

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
}
