//! The fuzzy controller of FAPIDNN that sets the learning rate η(k) of the PID neural
//! network from the queue error and its change (Li et al. 2014 §2.7, Fig. 4; Yan & Lei 2011).
//!
//! **Reconstruction.** Neither the 2014 comparison nor any public text of Yan & Lei gives the
//! membership functions or the rule table, so this is a standard two-input Mamdani-style
//! controller: inputs E = (q − q_ref)/q_ref and EC = Δq/(C·T) (the change of the queue over
//! one sample, relative to the most the link can drain in a sample), each clipped to [−1, 1]
//! and covered by five triangular sets NB, NS, ZE, PS, PB centred at −1, −½, 0, ½, 1 (the
//! end sets saturate); product inference and centroid defuzzification over singleton outputs
//! give a factor in [¼, 2] that multiplies the base rate η. The rules follow the usual
//! heuristic for learning-rate schedules: learn fast when the error is large or growing,
//! slowly when it is small or already shrinking.

/// Singleton output factors VS, S, M, B, VB.
const VS: f64 = 0.25;
const S: f64 = 0.5;
const M: f64 = 1.0;
const B: f64 = 1.5;
const VB: f64 = 2.0;

/// Rule table: row = set of E (NB, NS, ZE, PS, PB), column = set of EC (same order).
/// E and EC of the same sign (the error growing) get the larger factors.
pub const RULES: [[f64; 5]; 5] = [
    [VB, VB, B, M, S],
    [B, B, M, S, S],
    [M, S, VS, S, M],
    [S, S, M, B, B],
    [S, M, B, VB, VB],
];

/// Centres of the five triangular sets NB, NS, ZE, PS, PB on [−1, 1].
const CENTRES: [f64; 5] = [-1.0, -0.5, 0.0, 0.5, 1.0];

/// Memberships of `x` (clipped to [−1, 1]) in the five sets: triangles of half-width ½
/// centred on [`CENTRES`]; they sum to 1 and at most two are non-zero.
pub fn memberships(x: f64) -> [f64; 5] {
    let x = x.clamp(-1.0, 1.0);
    let mut mu = [0.0; 5];
    for (m, c) in mu.iter_mut().zip(CENTRES) {
        *m = (1.0 - (x - c).abs() / 0.5).max(0.0);
    }
    mu
}

/// The factor by which the base learning rate is multiplied for normalised error `e` and
/// normalised change `ec`: Σ_ij μ_i(e)·μ_j(ec)·RULES[i][j] / Σ_ij μ_i(e)·μ_j(ec) (product
/// inference, centroid of the singleton consequents). Always in [¼, 2].
pub fn eta_factor(e: f64, ec: f64) -> f64 {
    let me = memberships(e);
    let mc = memberships(ec);
    let mut num = 0.0;
    let mut den = 0.0;
    for (i, row) in RULES.iter().enumerate() {
        for (j, out) in row.iter().enumerate() {
            let w = me[i] * mc[j];
            num += w * out;
            den += w;
        }
    }
    num / den
}
