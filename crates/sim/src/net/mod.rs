//! The network: nodes, point-to-point links with output ports, static routes, and the
//! dumbbell builder.

pub mod dumbbell;
pub mod fifo_port;
pub mod managed_port;
pub mod network;
pub mod routing;
