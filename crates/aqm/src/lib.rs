//! Active queue management algorithms as plain state machines.
//!
//! Nothing here knows about the packet simulator: an AQM sees the time, the arriving or
//! departing packet, a snapshot of its queue and a random source handed in by its host. The
//! same code therefore drives the packet simulator, the discrete-time model and hand-stepped
//! experiments from Python. The contract is in [`contract`]; each algorithm lives in a file of
//! its own.

pub mod contract;
pub mod droptail;
pub mod red;
pub mod rng;

pub use contract::{Aqm, DequeueVerdict, EnqueueVerdict, PacketView, ParamError, QueueView};
pub use droptail::DropTail;
pub use red::{Red, RedParams};
pub use rng::Rng;
