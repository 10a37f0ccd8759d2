//! Passive queue management: no decision of its own, the buffer's limit drops what does not
//! fit. Drop tail is the baseline every AQM study compares with.

pub mod droptail;

pub use droptail::{DropTail, DropTailParams};
