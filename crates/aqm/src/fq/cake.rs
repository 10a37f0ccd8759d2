//! CAKE, Common Applications Kept Enhanced (Høiland-Jørgensen, Täht & Morton, "Piece of CAKE:
//! A Comprehensive Queue Management Solution for Home Gateways", IEEE LANMAN 2018; Linux
//! `net/sched/sch_cake.c`; tc-cake(8)): a deficit-mode shaper (§3.1), flow queueing with
//! 8-way set-associative hashing, sparse/bulk/decaying flow sets and per-host fairness (§4.1,
//! §4.2), and a COBALT on each flow queue (§4.3). The scheduler and the shaper run in the host
//! (`crates/sim/src/net/qdisc/cake.rs`); this file states the parameters (tc-cake's names and
//! defaults) and derives what the host is told, [`CakeSettings`], as Linux's `cake_set_rate`
//! and `cake_reconfigure` derive them. One tin: every simulated packet is unmarked, which
//! `diffserv3` (tc-cake's default) puts in its Best Effort tin.

use crate::contract::{Aqm, LinkContext, ParamError};
use crate::delay::cobalt::{Cobalt, CobaltParams};
use crate::params::{AqmParams, Bound, ParamDoc, Range, Scheduler};
use serde::{Deserialize, Serialize};

/// Flow queues of a tin (Linux `CAKE_QUEUES`).
pub const CAKE_QUEUES: u32 = 1024;

/// Ways of a set of the flow hash (Linux `CAKE_SET_WAYS`).
pub const CAKE_SET_WAYS: u32 = 8;

/// The MTU of a simulated link, bytes: Linux's `psched_mtu` of the device (a point-to-point
/// link here carries no link-layer header; Linux's Ethernet gives 1514).
pub const MTU_BYTES: u32 = 1500;

/// The slowest shaper, bytes per second (Linux `cake_set_rate`'s `MIN_RATE`, "so it will
/// always unwedge in reasonable time").
const MIN_RATE_BYTES_PER_S: f64 = 64.0;

/// How flows and hosts are told apart (tc-cake's flow isolation keywords; Linux
/// `CAKE_FLOW_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// One flow queue per flow (5-tuple), no host fairness.
    Flows,
    /// One queue per source host.
    Srchost,
    /// One queue per destination host.
    Dsthost,
    /// One queue per (source, destination) host pair.
    Hosts,
    /// Per-flow queues, fairness between source hosts.
    DualSrchost,
    /// Per-flow queues, fairness between destination hosts.
    DualDsthost,
    /// Per-flow queues, fairness between source hosts and between destination hosts.
    TripleIsolate,
}

/// Names of [`Isolation`] as written in scenarios.
pub const ISOLATION_NAMES: &[&str] = &[
    "flows",
    "srchost",
    "dsthost",
    "hosts",
    "dual-srchost",
    "dual-dsthost",
    "triple-isolate",
];

impl Isolation {
    /// Source hosts' bulk flows count against each other (Linux `cake_dsrc`).
    pub fn counts_src(self) -> bool {
        matches!(self, Isolation::DualSrchost | Isolation::TripleIsolate)
    }

    /// Destination hosts' bulk flows count against each other (Linux `cake_ddst`).
    pub fn counts_dst(self) -> bool {
        matches!(self, Isolation::DualDsthost | Isolation::TripleIsolate)
    }
}

/// CAKE parameters (keys of `[queue.cake]`; tc-cake's options of the same meaning).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CakeParams {
    /// The shaper's rate, Mb/s; 0 is tc-cake's `unlimited` (no shaper, the link paces).
    pub rate_mbps: f64,
    /// tc-cake `rtt`: COBALT's interval, and 20 times its target, milliseconds.
    pub rtt_ms: f64,
    /// Flow and host isolation (tc-cake's `flows`, `srchost`, …, `triple-isolate`).
    pub isolation: Isolation,
    /// tc-cake `memlimit`, bytes; 0 is Linux's rule ([`CakeSettings::buffer_limit_bytes`]).
    pub memory_limit_bytes: u32,
}

impl Default for CakeParams {
    /// tc-cake's defaults: `unlimited`, `rtt 100ms` (`internet`), `triple-isolate`, no
    /// `memlimit`.
    fn default() -> Self {
        CakeParams {
            rate_mbps: 0.0,
            rtt_ms: 100.0,
            isolation: Isolation::TripleIsolate,
            memory_limit_bytes: 0,
        }
    }
}

/// What the host runs CAKE with ([`Scheduler::Cake`]), derived from [`CakeParams`].
#[derive(Clone, Debug, PartialEq)]
pub struct CakeSettings {
    /// The shaper's rate, b/s; 0 unshaped.
    pub rate_bps: f64,
    /// Flow and host isolation.
    pub isolation: Isolation,
    /// DRR quantum of a flow before the host-load division, bytes (`flow_quantum`).
    pub flow_quantum: u32,
    /// The COBALT of each flow queue: Linux's `cparams` (target, interval, `p_inc`, `p_dec`).
    pub cobalt: CobaltParams,
    /// Serialisation time of an MTU at the shaped rate, ns (`cparams.mtu_time`; 0 unshaped).
    pub mtu_time_ns: u64,
    /// The `rtt` in whole microseconds (Linux `q->interval`), for the buffer rule.
    pub rtt_us: u64,
    /// `memlimit`, bytes, 0 when not set.
    pub memory_limit_bytes: u32,
}

impl CakeSettings {
    /// Serialisation time of `bytes` at the shaped rate, ns, truncated (Linux
    /// `cake_advance_shaper`: `len·rate_ns >> rate_shft`); 0 when unshaped.
    pub fn shaper_ns(&self, bytes: u32) -> u64 {
        if self.rate_bps > 0.0 {
            (f64::from(bytes) * 1e9 / (self.rate_bps / 8.0).max(MIN_RATE_BYTES_PER_S)) as u64
        } else {
            0
        }
    }

    /// Bytes the discipline may hold for a queue of `limit_pkts` packets (Linux
    /// `cake_reconfigure`): `memlimit` when set; else, shaped, 4·rate·rtt but at least 4 MiB;
    /// unshaped, unlimited; in each case at most `max(limit_pkts·MTU, memlimit)`.
    pub fn buffer_limit_bytes(&self, limit_pkts: u32) -> u64 {
        let config = u64::from(self.memory_limit_bytes);
        let rule = if config > 0 {
            config
        } else if self.rate_bps > 0.0 {
            let t = (self.rate_bps / 8.0 * self.rtt_us as f64 / 250_000.0) as u64;
            t.max(4 << 20).min(u64::from(u32::MAX))
        } else {
            u64::MAX
        };
        rule.min((u64::from(limit_pkts) * u64::from(MTU_BYTES)).max(config))
    }

    /// A fresh COBALT for one flow queue.
    pub fn cobalt(&self) -> Cobalt {
        Cobalt::new(self.cobalt.clone())
            .expect("CAKE derives valid COBALT parameters")
            .with_mtu_time_ns(self.mtu_time_ns)
    }
}

impl CakeParams {
    /// The host's settings (Linux `cake_set_rate` for the one tin, from tc-cake's `rtt`:
    /// target = rtt/20 in whole µs, at least 1 µs). Unshaped: target and interval as given,
    /// quantum 1514. Shaped at R bytes/s: MTU time = MTU/R, target = max(1.5·MTU time,
    /// rtt/20), interval = max(rtt + target − rtt/20, 2·target) (kept below 2^32 ns, the
    /// interval COBALT's 32-bit scaling allows), quantum = R/4096 within [300, 1514]; R is at
    /// least 64 bytes/s, as in Linux.
    pub fn settings(&self) -> CakeSettings {
        let rtt_us = ((self.rtt_ms * 1000.0).round() as u64).max(1);
        let target_ns = (rtt_us / 20).max(1) * 1000;
        let rtt_ns = rtt_us * 1000;
        let rate_bps = self.rate_mbps * 1e6;
        let (target, interval, mtu_time_ns, flow_quantum) = if rate_bps > 0.0 {
            let bytes_per_s = (rate_bps / 8.0).max(MIN_RATE_BYTES_PER_S);
            let mtu_time = (f64::from(MTU_BYTES) * 1e9 / bytes_per_s) as u64;
            let target = (mtu_time * 3 / 2).max(target_ns);
            let interval = (rtt_ns + target - target_ns).max(2 * target);
            let quantum = (bytes_per_s as u64 >> 12).clamp(300, 1514) as u32;
            (target, interval, mtu_time, quantum)
        } else {
            (target_ns, rtt_ns, 0, 1514)
        };
        CakeSettings {
            rate_bps,
            isolation: self.isolation,
            flow_quantum,
            cobalt: CobaltParams {
                target_ms: target as f64 / 1e6,
                interval_ms: interval.min(u64::from(u32::MAX)) as f64 / 1e6,
                increment: 1.0 / 256.0,
                decrement: 1.0 / 4096.0,
                // Linux has no BlueThreshold rule: a threshold no sojourn time reaches.
                blue_threshold_ms: 1e9,
                ce_threshold_ms: 0.0,
                p_drop_initial: 0.0,
                ns3_blue_timer_wrap: false,
            },
            mtu_time_ns,
            rtt_us,
            memory_limit_bytes: self.memory_limit_bytes,
        }
    }
}

impl AqmParams for CakeParams {
    const AQM: &'static str = "cake";
    const TITLE: &'static str = "CAKE";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "rate_mbps",
            "Mb/s",
            Range::Joint(
                &Range::Above(Bound::closed(0.0)),
                "with rate_mbps at most the link's rate (0: unlimited)",
            ),
            "rate of the built-in shaper (tc-cake bandwidth); 0: unlimited",
        ),
        ParamDoc::new(
            "rtt_ms",
            "ms",
            Range::Noted(
                &Range::Number(Bound::closed(0.001), Bound::closed(4294.967)),
                "1 us to 2^32 - 1 ns",
            ),
            "tc-cake rtt: COBALT interval; target = rtt/20",
        ),
        ParamDoc::new(
            "isolation",
            "",
            Range::Choice(ISOLATION_NAMES),
            "flow and host isolation (tc-cake flow isolation keywords)",
        ),
        ParamDoc::new(
            "memory_limit_bytes",
            "bytes",
            Range::Count(0),
            "tc-cake memlimit; 0: Linux's rule (4 MiB or 4*rate*rtt when shaped; at most limit_pkts*MTU)",
        ),
    ];

    /// One flow queue's COBALT; refuses a shaper faster than the link.
    fn build(self, link: LinkContext) -> Result<Box<dyn Aqm>, ParamError> {
        let rate_bps = self.rate_mbps * 1e6;
        if rate_bps > link.rate_bps {
            return Err(ParamError::new(
                "rate_mbps",
                format!(
                    "must be at most the link's rate, {} Mb/s, got {}",
                    link.rate_bps / 1e6,
                    self.rate_mbps
                ),
            ));
        }
        let settings = self.settings();
        let cobalt = Cobalt::new(settings.cobalt).map_err(|e| {
            ParamError::new("rtt_ms", format!("gives COBALT {}: {}", e.field, e.message))
        })?;
        Ok(Box::new(cobalt.with_mtu_time_ns(settings.mtu_time_ns)))
    }

    fn scheduler(&self) -> Scheduler {
        Scheduler::Cake(self.settings())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_follow_cake_set_rate() {
        let unshaped = CakeParams::default().settings();
        assert_eq!(unshaped.cobalt.target_ms, 5.0);
        assert_eq!(unshaped.cobalt.interval_ms, 100.0);
        assert_eq!((unshaped.flow_quantum, unshaped.mtu_time_ns), (1514, 0));
        assert_eq!(unshaped.buffer_limit_bytes(1000), 1_500_000);
        // 1 Mb/s: MTU time 12 ms, target 18 ms, interval 100 + 18 - 5 = 113 ms, quantum 300.
        let slow = CakeParams {
            rate_mbps: 1.0,
            ..CakeParams::default()
        }
        .settings();
        assert_eq!(slow.mtu_time_ns, 12_000_000);
        assert_eq!(slow.cobalt.target_ms, 18.0);
        assert_eq!(slow.cobalt.interval_ms, 113.0);
        assert_eq!(slow.flow_quantum, 300);
        // 4·rate·rtt = 50 kB < 4 MiB; then at most limit_pkts·MTU.
        assert_eq!(slow.buffer_limit_bytes(100_000), 4 << 20);
        assert_eq!(slow.buffer_limit_bytes(1000), 1_500_000);
        // 100 Mb/s: 4·12.5 MB/s·0.1 s = 5 MB.
        let fast = CakeParams {
            rate_mbps: 100.0,
            ..CakeParams::default()
        }
        .settings();
        assert_eq!(fast.buffer_limit_bytes(100_000), 5_000_000);
        assert_eq!(fast.flow_quantum, 1514);
        assert_eq!(fast.shaper_ns(1500), 120_000);
    }

    #[test]
    fn a_shaper_faster_than_the_link_is_refused() {
        let p = CakeParams {
            rate_mbps: 20.0,
            ..CakeParams::default()
        };
        let link = LinkContext {
            rate_bps: 10e6,
            buffer_pkts: 100,
        };
        let e = p.build(link).err().expect("refused");
        assert_eq!(e.field, "rate_mbps");
        assert!(
            e.message.contains("at most the link's rate"),
            "{}",
            e.message
        );
    }
}
