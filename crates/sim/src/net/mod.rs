//! The network: nodes, point-to-point links with output ports, static routes, and the
//! topology builders (dumbbell; chain and network) that lay a scenario's network out.

pub mod built;
pub mod dumbbell;
pub mod fifo_port;
pub mod link_rate;
pub mod managed_port;
pub mod network;
pub mod qdisc;
pub mod routers;
pub mod routing;
