//! Active queue management algorithms as plain state machines.
//!
//! Nothing here knows about the packet simulator: an AQM sees the time, the arriving or
//! departing packet, a snapshot of its queue and a random source handed in by its host. The
//! same code therefore drives the packet simulator, the discrete-time model and hand-stepped
//! experiments from Python. The contract is in [`contract`]; each algorithm lives in a file of
//! its own, and [`registry`] lists them by name.

pub mod abetared;
pub mod adaptive_beta;
pub mod an_aqm;
pub mod ared;
pub mod beta_bounds;
pub mod beta_curve;
pub mod betared;
pub mod codel;
pub mod contract;
pub mod dbetared;
pub mod drop_decision;
pub mod droptail;
pub mod fapidnn;
pub mod iapi;
pub mod math;
pub mod neuron_learning;
pub mod neuron_pid;
pub mod nrl;
pub mod param_doc;
pub mod pi;
pub mod pie;
pub mod red;
pub mod red_average;
pub mod red_core;
pub mod red_tuning;
pub mod registry;
pub mod rem;
pub mod rng;
pub mod self_tuning_red;

pub use abetared::{ABetaRed, ABetaRedParams};
pub use adaptive_beta::LinkContext;
pub use an_aqm::{AnAqm, AnAqmParams};
pub use ared::{AdaptAt, Ared, AredParams};
pub use beta_curve::BetaCurve;
pub use betared::{BetaRed, BetaRedParams};
pub use codel::{CoDel, CoDelParams};
pub use contract::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, ParamError, QueueView};
pub use dbetared::{DBetaRed, DBetaRedParams};
pub use drop_decision::Spacing;
pub use droptail::{DropTail, DropTailParams};
pub use fapidnn::{Fapidnn, FapidnnParams};
pub use iapi::{Iapi, IapiParams};
pub use neuron_pid::{NeuronPid, NeuronPidParams};
pub use nrl::{Nrl, NrlParams};
pub use param_doc::ParamDoc;
pub use pi::{Pi, PiParams};
pub use pie::{BurstRule, Pie, PieParams, ShortQueueRule};
pub use red::{Red, RedParams};
pub use registry::{AqmParams, ParamsVisitor};
pub use rem::{Rem, RemParams};
pub use rng::Rng;
pub use self_tuning_red::{SelfTuningRed, SelfTuningRedParams};
