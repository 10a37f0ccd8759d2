//! Active queue management algorithms as plain state machines.
//!
//! Nothing here knows about the packet simulator: an AQM sees the time, the arriving or
//! departing packet, a snapshot of its queue and a random source handed in by its host. The
//! same code therefore drives the packet simulator, the discrete-time model and hand-stepped
//! experiments from Python.
//!
//! At the top is what every algorithm shares: the contract ([`contract`]), the parameter
//! machinery with each parameter's allowed values stated once ([`params`]), the list of
//! algorithms by name ([`registry`]), the random source ([`rng`]) and special functions
//! ([`math`]). The algorithms live in family folders, one file each: [`red`] (RED, Adaptive
//! RED, self-tuning RED and the core they share), [`beta`] (BetaRED, ABetaRED, DBetaRED),
//! [`control`] (REM, PI, IAPI and the neural controllers), [`delay`] (CoDel, PIE, COBALT),
//! [`fq`] (flow queueing: FQ-CoDel, FQ-PIE, FQ-COBALT, CAKE), [`dualq`] (the coupled dual
//! queue DualPI2) and [`passive`] (drop tail).

pub mod beta;
pub mod contract;
pub mod control;
pub mod delay;
pub mod dualq;
pub mod fq;
pub mod math;
pub mod params;
pub mod passive;
pub mod red;
pub mod registry;
pub mod rng;

pub use beta::beta_curve;
pub use beta::{
    ABetaRed, ABetaRedParams, BetaCurve, BetaRed, BetaRedParams, DBetaRed, DBetaRedParams,
};
pub use contract::{
    Aqm, DequeueVerdict, EnqueueVerdict, LinkContext, PacketView, ParamError, QueueView,
};
pub use control::{
    AnAqm, AnAqmParams, Fapidnn, FapidnnParams, Iapi, IapiParams, NeuronPid, NeuronPidParams, Nrl,
    NrlParams, Pi, PiParams, Rem, RemParams,
};
pub use delay::{
    BurstRule, CoDel, CoDelParams, Cobalt, CobaltParams, CobaltStats, Pie, PieParams,
    ShortQueueRule,
};
pub use dualq::{DualPi2Params, EcnMask, Pi2, Signal};
pub use fq::{CakeParams, CakeSettings, FqCoDelParams, FqCobaltParams, FqPieParams, Isolation};
pub use params::{AqmParams, FlowQueueing, ParamDoc, Range, Scheduler};
pub use passive::{DropTail, DropTailParams};
pub use red::red_tuning;
pub use red::{
    AdaptAt, Ared, AredParams, Red, RedParams, SelfTuningRed, SelfTuningRedParams, Spacing,
    StepMarking, StepMarkingParams,
};
pub use registry::ParamsVisitor;
pub use rng::Rng;
