//! The control-theoretic AQMs, which steer a drop probability from the queue (and, for some,
//! the input rate) by a feedback law updated on a timer: REM's price, PI and IAPI (a PI
//! controller with an adaptive integral gain), and the neural controllers Neuron PID and
//! AN-AQM (one adaptive neuron, [`neuron_learning`]), FAPIDNN (a PID neural network with a
//! fuzzy learning rate) and NRL (a neuron trained by reinforcement learning).

pub mod an_aqm;
pub mod fapidnn;
pub mod iapi;
pub mod neuron_learning;
pub mod neuron_pid;
pub mod nrl;
pub mod pi;
pub mod rem;

pub use an_aqm::{AnAqm, AnAqmParams};
pub use fapidnn::{Fapidnn, FapidnnParams};
pub use iapi::{Iapi, IapiParams};
pub use neuron_pid::{NeuronPid, NeuronPidParams};
pub use nrl::{Nrl, NrlParams};
pub use pi::{Pi, PiParams};
pub use rem::{Rem, RemParams};
