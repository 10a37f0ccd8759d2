//! The discrete-time TCP/AQM model of Ranjan, Abed & La (IEEE/ACM ToN 12(6), 2004) as the
//! self-tuning-RED paper writes it out (Chen, Hu & Ji, Math. Probl. Eng. 2011, §2–3,
//! eq. (2.1)–(3.12)), generalised to any drop function of the AQM crate (RED, gentle RED,
//! BetaRED), as the BetaRED authors generalise it with the Beta drop function.
//!
//! The state is the router's averaged queue once per round trip, q_(n+1) = f(q_n) with
//! f(q) = (1 − w)·q + w·Q(p(q)) ([`map`]), with p_max set for a desired fixed point when asked
//! ([`tuning`]). From it: the fixed points, their eigenvalue and the stability bound on w
//! ([`fixed_point`]), orbits ([`orbit`]), the settled behaviour of an orbit ([`attractor`],
//! [`period`], [`lyapunov`]), sweeps over one parameter ([`bifurcation`]) and two-parameter
//! stability maps ([`stability_map`]).
//!
//! ```
//! use model::{equilibria, Model, ModelParams};
//! let m = Model::new(&ModelParams::default()).unwrap(); // the paper's reference case
//! let fp = equilibria(&m).fixed_points[0];
//! assert!((fp.q_avg_pkts - 345.1).abs() < 0.05);          // §3.3: q* = 345.1
//! assert!((fp.w_bound - 0.1578).abs() < 1e-4);            // eq. (3.12): w < 0.1578
//! ```

pub mod attractor;
pub mod bifurcation;
pub mod drop_function;
pub mod fixed_point;
pub mod lyapunov;
pub mod map;
pub mod network;
pub mod orbit;
pub mod parallel;
pub mod params;
pub mod period;
pub mod stability_map;
pub mod stop;
pub mod tuning;

pub use aqm::ParamError;
pub use attractor::{attractor, Attractor, OrbitOptions};
pub use bifurcation::{sweep, SweepPoint};
pub use drop_function::{DropFunction, DropKind};
pub use fixed_point::{equilibria, Equilibria, FixedPoint};
pub use lyapunov::lyapunov;
pub use map::Model;
pub use network::Network;
pub use orbit::{orbit, Orbit};
pub use params::{ModelParams, Param};
pub use stability_map::{stability_map, MapCell};
pub use stop::{ModelError, Stop};
