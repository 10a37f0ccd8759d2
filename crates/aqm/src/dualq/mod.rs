//! DualQ Coupled AQMs (RFC 9332): two queues, L for L4S traffic (ECT(1) and CE, RFC 9331
//! §5.1) and C for Classic traffic, whose AQMs are coupled so that flows in either queue share
//! the link as if there were one queue. The AQM crate holds no packets: [`dualpi2`] states
//! the parameters and the PI2 controller with its coupled probabilities; the two queues and the
//! scheduler between them run in the host (`crates/sim/src/net/qdisc/dualpi2.rs`,
//! [`crate::params::Scheduler::DualPi2`]).

pub mod dualpi2;

pub use dualpi2::{DualPi2Params, EcnMask, Pi2, Signal};
