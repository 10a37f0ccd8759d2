//! TCP: a sender and a receiver per flow, with Reno/NewReno and CUBIC congestion control,
//! SACK loss recovery (RFC 6675) with PRR (RFC 6937), ns-2's Sack1, or cumulative-ACK recovery
//! (NewReno, classic Reno). Sequence numbers count whole segments; every data packet carries one full
//! segment.

pub mod config;
pub mod congestion;
pub mod cubic;
pub mod hystart;
pub mod prr;
pub mod receiver;
mod recovery_newreno;
mod recovery_sack;
mod recovery_sack1;
pub mod reno;
pub mod rtt;
pub mod rtt_ns2;
pub mod sack_list;
pub mod scoreboard;
pub mod sender;
