//! TCP: a sender and a receiver per flow, with Reno/NewReno and CUBIC congestion control.
//! Sequence numbers count whole segments; every data packet carries one full segment.

pub mod config;
pub mod congestion;
pub mod cubic;
pub mod receiver;
pub mod reno;
pub mod rtt;
pub mod rtt_ns2;
pub mod sender;
