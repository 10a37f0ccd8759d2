//! The event loop: pops events in (time, sequence) order and hands each to the part of the
//! simulation that reacts to it. Building a run is in `build.rs`, the flows' endpoints in
//! `endpoints.rs`, the ports and their AQMs in `ports.rs`, the result tables in `finish.rs`.

mod build;
mod early;
mod endpoints;
mod finish;
mod hops;
mod ports;
#[cfg(test)]
mod shortcut_tests;

use crate::events::{Event, EventQueue};
use crate::flow::Flow;
use crate::metrics::counts::PacketCounts;
use crate::metrics::port_series::PortSeries;
use crate::metrics::series::Series;
use crate::metrics::window::Window;
use crate::net::built::MeasuredPort;
use crate::net::network::Network;
use crate::packet::Packet;
use crate::result::RunResult;
use crate::scenario::{Scenario, ScenarioError};
use crate::time::ns_to_s;
use aqm::Aqm;

/// Events between two calls of the progress callback at the most (about 0.1 s of work).
pub const PROGRESS_EVENTS: u64 = 1 << 20;

/// A simulation of one scenario.
pub struct Simulation {
    scenario: Scenario,
    now_ns: u64,
    end_ns: u64,
    events: EventQueue,
    net: Network,
    /// Goodput delivered ahead of the sample that counts it (`early.rs`).
    ahead: early::Ahead,
    /// Ports with a managed queue.
    measured: Vec<MeasuredPort>,
    /// The one of `measured` the summary and `series` describe (`Scenario::summary_port`).
    summary_port: usize,
    flows: Vec<Flow>,
    /// Packets produced by the endpoint being run, sent right after.
    outbox: Vec<Packet>,
    /// Packets a late port started, with the ends of their transmissions (`ports.rs`).
    departed: Vec<(Packet, u64)>,
    counts: PacketCounts,
    window: Window,
    /// The series of the port the summary describes, and the cwnd traces.
    series: Series,
    /// Every measured port's series.
    port_series: PortSeries,
    sample_step_ns: u64,
    probe_buf: Vec<f64>,
    /// Per measured port: sum and count of the AQM's averaged queue over samples in the window.
    aqm_avg: Vec<(f64, u64)>,
    active_flows: u32,
    events_processed: u64,
    /// An endpoint is taking a packet ahead of its arrival (`early.rs`).
    taking_early: bool,
    /// Packets put on a link by any port (every hop).
    link_transmissions: u64,
}

impl Simulation {
    /// Build the network, the flows and the initial events of `scenario`, with the AQMs the
    /// scenario names on its ports. A scenario built in code is checked as one read from text
    /// is.
    pub fn new(scenario: Scenario) -> Result<Self, ScenarioError> {
        crate::scenario::validate(&scenario)?;
        Self::build(scenario, None)
    }

    /// Like [`Simulation::new`], with any [`Aqm`] on the port the summary describes
    /// ([`Scenario::summary_port`], the dumbbell's bottleneck), for algorithms that are not,
    /// or not yet, part of the scenario format.
    pub fn with_aqm(scenario: Scenario, aqm: Box<dyn Aqm>) -> Result<Self, ScenarioError> {
        crate::scenario::validate(&scenario)?;
        Self::build(scenario, Some(aqm))
    }

    /// Run to the end. `progress(sim_time_s)` is called every 1/200 of the simulated time
    /// and every [`PROGRESS_EVENTS`] events, so that a caller can stop a long run within a
    /// fraction of a second; an `Err` from it aborts the run and is returned.
    pub fn run<E>(
        mut self,
        mut progress: impl FnMut(f64) -> Result<(), E>,
    ) -> Result<RunResult, E> {
        let step = (self.end_ns / 200).max(1);
        let mut next_progress = step;
        while let Some((t, event)) = self.events.pop_until(self.end_ns) {
            self.now_ns = t;
            self.events_processed += 1;
            let by_time = t >= next_progress;
            if by_time || self.events_processed % PROGRESS_EVENTS == 0 {
                progress(ns_to_s(t))?;
                if by_time {
                    next_progress = t + step;
                }
            }
            self.dispatch(event);
        }
        self.now_ns = self.end_ns;
        for port in 0..self.net.ports.len() as u32 {
            self.depart_until_now(port);
        }
        self.ahead.flush(&mut self.series);
        progress(ns_to_s(self.end_ns))?;
        Ok(self.finish())
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::Arrive { node, pkt } => self.arrive(node, pkt),
            Event::TxDone { port } => self.tx_done(port),
            Event::AqmTimer { port } => self.aqm_timer(port),
            Event::FlowStart { flow } => self.start_flow(flow),
            Event::FlowStop { flow } => self.stop_flow(flow),
            Event::Rto { flow } => self.rto(flow),
            Event::DelAck { flow } => self.delack(flow),
            Event::Pace { flow } => self.pace(flow),
            Event::Emit { flow } => self.emit(flow),
            Event::Sample => self.sample(),
        }
    }
}
