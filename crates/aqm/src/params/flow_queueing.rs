//! How a host schedules the flow queues of a flow-queueing discipline: the settings FQ-CoDel,
//! FQ-PIE and FQ-COBALT share (RFC 8290 §4–§5; ns-3.37 `FqCoDelQueueDisc`, `FqPieQueueDisc`
//! and `FqCobaltQueueDisc` attributes; Linux `sch_fq_codel` and `sch_fq_pie` options).
//!
//! The AQM crate holds no packets, so the scheduler itself (hashing into flow queues, deficit
//! round robin over the new-flow and old-flow lists, dropping from the fattest flow queue when
//! the discipline is full) runs in the host; here is only what it is told. Each flow queue is
//! managed by its own instance of the discipline's AQM ([`crate::AqmParams::build`]). The
//! disciplines themselves are in [`crate::fq`].

use crate::contract::ParamError;
use serde::{Deserialize, Serialize};

/// The scheduler a host runs an AQM under ([`crate::AqmParams::scheduler`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Scheduler {
    /// One FIFO queue managed by the AQM: every AQM of the BetaRED, Li and Chen papers.
    SingleQueue,
    /// Flow queueing: one flow queue per hash bucket, each with its own AQM instance.
    FlowQueues(FlowQueueing),
    /// CAKE: its shaper, set-associative flow queues with host isolation and a COBALT per
    /// flow queue ([`crate::fq::cake`]).
    Cake(crate::fq::CakeSettings),
    /// DualPI2: an L and a C queue, coupled by the PI2 controller, served by weighted round
    /// robin ([`crate::dualq::dualpi2`]).
    DualPi2(crate::dualq::DualPi2Params),
}

/// Flow-queueing settings (keys of `[queue.fq_codel]` and its siblings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowQueueing {
    /// Number of flow queues (hash buckets): ns-3 `Flows`, Linux `flows`.
    pub flows: u32,
    /// DRR quantum, bytes a flow queue may send per round (RFC 8290 §4.2): ns-3 `Quantum`
    /// (0 there means the device MTU, 1500 on a point-to-point link), Linux `quantum`
    /// (default the interface MTU plus the link header, 1514 on Ethernet).
    pub quantum_bytes: u32,
    /// When the discipline is full, at most this many packets are dropped at once from the
    /// fattest flow queue (ns-3 `DropBatchSize`, Linux `drop_batch`).
    pub drop_batch_size: u32,
    /// Seed of the flow hash (ns-3 `Perturbation`; Linux draws a random one).
    pub perturbation: u32,
    /// Map flows to queues with an 8-way (`set_ways`) set-associative hash instead of a direct
    /// one, as ns-3's `EnableSetAssociativeHash` and CAKE do.
    pub set_associative_hash: bool,
    /// Ways of a set of the set-associative hash (ns-3 `SetWays`).
    pub set_ways: u32,
    /// Most bytes the discipline holds (Linux `memory_limit`, 32 MiB; ns-3 has none): above it
    /// the fattest flow queue is cut as when the packet limit is reached. At least 65535
    /// bytes, the largest packet a scenario may send, so that one packet always fits.
    pub memory_limit_bytes: u32,
    /// Mark ECN-capable packets whose sojourn time exceeds this at dequeue, milliseconds;
    /// 0 is off (ns-3 `CeThreshold`, Linux `ce_threshold`). Not a key of its own here: each
    /// discipline states it with its AQM's keys and sets it in [`crate::AqmParams::scheduler`].
    #[serde(skip)]
    pub ce_threshold_ms: f64,
    /// The flow queue cut by an overlimit drop tells its AQM ([`crate::Aqm::on_overflow`]), as
    /// Linux CAKE's `cake_drop` calls `cobalt_queue_full`; ns-3.37's FQ disciplines do not. Set
    /// by the discipline, not a key.
    #[serde(skip)]
    pub overlimit_tells_aqm: bool,
}

impl Default for FlowQueueing {
    /// ns-3.37's defaults (Linux's where ns-3 has no such setting): 1024 flow queues, quantum
    /// 1500 bytes (the MTU of ns-3's point-to-point device), drop batch 64, perturbation 0,
    /// direct hashing (8 ways when set-associative), a 32 MiB memory limit, no CE threshold.
    fn default() -> Self {
        FlowQueueing {
            flows: 1024,
            quantum_bytes: 1500,
            drop_batch_size: 64,
            perturbation: 0,
            set_associative_hash: false,
            set_ways: 8,
            memory_limit_bytes: 32 << 20,
            ce_threshold_ms: 0.0,
            overlimit_tells_aqm: false,
        }
    }
}

impl FlowQueueing {
    /// The joint condition the ranges cannot state: with the set-associative hash, the ways
    /// divide the flow queues into whole sets (ns-3's `CheckConfig` refuses otherwise).
    pub fn validate_joint(&self) -> Result<(), ParamError> {
        if self.set_associative_hash && self.flows % self.set_ways != 0 {
            return Err(ParamError::new(
                "set_ways",
                format!(
                    "must divide flows ({}) when set_associative_hash is true",
                    self.flows
                ),
            ));
        }
        Ok(())
    }
}

/// The [`crate::ParamDoc`] entries of [`FlowQueueing`]'s keys, after `$doc`s: the `PARAMS`
/// table of an FQ discipline's parameter struct (its own keys come first).
#[macro_export]
macro_rules! with_flow_queueing_docs {
    ($($doc:expr),* $(,)?) => {
        &[
            $($doc,)*
            $crate::ParamDoc::new(
                "flows",
                "queues",
                $crate::Range::CountIn(1, 65536),
                "flow queues (hash buckets)",
            ),
            $crate::ParamDoc::new(
                "quantum_bytes",
                "bytes",
                $crate::Range::Count(1),
                "DRR quantum: bytes a flow queue sends per round",
            ),
            $crate::ParamDoc::new(
                "drop_batch_size",
                "packets",
                $crate::Range::Count(1),
                "most packets dropped at once from the fattest flow queue when full",
            ),
            $crate::ParamDoc::new(
                "perturbation",
                "",
                $crate::Range::Count(0),
                "seed of the flow hash",
            ),
            $crate::ParamDoc::new(
                "set_associative_hash",
                "",
                $crate::Range::Flag,
                "map flows with a set-associative hash (set_ways ways)",
            ),
            $crate::ParamDoc::new(
                "set_ways",
                "ways",
                $crate::Range::CountIn(1, 65536),
                "ways of a set of the set-associative hash",
            ),
            $crate::ParamDoc::new(
                "memory_limit_bytes",
                "bytes",
                $crate::Range::Count(65535),
                "most bytes held (at least one packet of the largest size); above it the fattest flow queue is cut",
            ),
        ]
    };
}

/// The [`crate::ParamDoc`] of a flow-queueing discipline's CE threshold
/// ([`FlowQueueing::ce_threshold_ms`]).
pub const CE_THRESHOLD_DOC: crate::ParamDoc = crate::ParamDoc::new(
    "ce_threshold_ms",
    "ms",
    crate::Range::Noted(
        &crate::Range::Number(super::Bound::closed(0.0), super::Bound::closed(1e9)),
        "0 is off",
    ),
    "mark ECN-capable packets whose sojourn exceeds this",
);
