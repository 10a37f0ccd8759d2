//! Flow queueing: the disciplines that hash packets into flow queues, serve them by deficit
//! round robin and manage each with its own AQM instance. What the host's scheduler is told is
//! [`crate::params::FlowQueueing`]; each discipline's file holds its parameters and builds the
//! AQM of one flow queue. CAKE ([`cake`]) adds its shaper and host isolation, and the host runs
//! it as a discipline of its own ([`crate::params::Scheduler::Cake`]).

pub mod cake;
pub mod fq_cobalt;
pub mod fq_codel;
pub mod fq_pie;

pub use cake::{CakeParams, CakeSettings, Isolation};
pub use fq_cobalt::FqCobaltParams;
pub use fq_codel::FqCoDelParams;
pub use fq_pie::FqPieParams;
