"""The regularized incomplete beta function I_x(a, b) of BetaRED against scipy.

`aqmlab._core.betainc` must match `scipy.special.betainc` to 1e-9 relative for a, b in
[0.01, 1e5] and every x in [0, 1]. One caveat about the reference: below about 1e-250
scipy (Boost's ibeta) loses accuracy, by up to 10% and down to returning 0 for true values
near 1e-260 (cases with b < 40), so the comparison with scipy is relative only above
SCIPY_FLOOR and the deep tail is checked against high-precision values instead.
"""

import math

import numpy as np
import pytest
from scipy.special import betainc as scipy_betainc

from aqmlab._core import betainc, betainc_many

REL_TOL = 1e-9
SCIPY_FLOOR = 1e-240

# Both parameters log-spaced over the range BetaRED can reach.
PARAMS = np.logspace(-2, 5, 40)

FIXED_X = [0.0, 1.0, 1e-300, 1e-12, 1e-6, 0.01, 0.1, 0.5, 0.9, 0.99, 1 - 1e-6, 1 - 1e-12]


def near_mean(a, b):
    """Mean ± k standard deviations of Beta(a, b), k = −6..6, clipped into [0, 1]."""
    s = a + b
    mean = a / s
    sd = math.sqrt(a * b / (s * s * (s + 1)))
    return [min(max(mean + k * sd, 0.0), 1.0) for k in range(-6, 7)]


def compare(a, b, x):
    """Return (ours, scipy's) on equal-length arrays, after checking them against each other."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    x = np.asarray(x, dtype=float)
    ours = np.array(betainc_many(a.tolist(), b.tolist(), x.tolist()))
    ref = scipy_betainc(a, b, x)
    assert not np.isnan(ref).any()
    assert not np.isnan(ours).any()
    assert ((ours >= 0.0) & (ours <= 1.0)).all()
    above = ref >= SCIPY_FLOOR
    rel = np.abs(ours[above] - ref[above]) / ref[above]
    worst = int(np.argmax(rel))
    assert rel[worst] <= REL_TOL, (
        f"rel err {rel[worst]:.3e} at a={a[above][worst]!r} b={b[above][worst]!r} "
        f"x={x[above][worst]!r}: {ours[above][worst]!r} vs scipy {ref[above][worst]!r}"
    )
    # Below the floor both are essentially 0.
    assert (np.abs(ours[~above] - ref[~above]) <= SCIPY_FLOOR).all()
    return ours, ref


def test_dense_grid_against_scipy():
    rows = [(a, b, x) for a in PARAMS for b in PARAMS for x in FIXED_X + near_mean(a, b)]
    a, b, x = np.array(rows).T
    ours, _ = compare(a, b, x)
    # Exact at the ends of [0, 1].
    assert (ours[x == 0.0] == 0.0).all()
    assert (ours[x == 1.0] == 1.0).all()


def test_switch_point_and_tiny_shape_parameters():
    """Around (a+1)/(a+b+2), where the method changes sides, with a or b near 0.01."""
    rows = []
    for a in [0.01, 0.05, 0.3, 1.0, 10.0, 1e3, 1e5]:
        for b in [0.01, 0.05, 0.3, 1.0, 10.0, 1e3, 1e5]:
            switch = (a + 1) / (a + b + 2)
            for t in [0.5, 0.9, 0.99, 1.0, 1.01, 1.1, 2.0]:
                rows.append((a, b, min(switch * t, 1.0)))
                rows.append((a, b, max(1 - (1 - switch) * t, 0.0)))
    a, b, x = np.array(rows).T
    compare(a, b, x)


def betared_shape(mu, theta):
    """BetaRED's Beta(α, β) from mean μ and relative spread θ: σ = θ√(μ(1−μ))."""
    var = mu * (1 - mu)
    sigma = theta * math.sqrt(var)
    k = var / sigma**2 - 1
    return mu * k, (1 - mu) * k


@pytest.mark.parametrize("theta", [0.005, 0.01, 0.05, 0.1, 0.3, 1 / math.sqrt(3), 0.9])
@pytest.mark.parametrize("mu", [0.001, 1 / 1000, 0.25, 0.5, 0.75, 1 - 1 / 1000, 0.999])
def test_betared_parametrisation(mu, theta):
    alpha, beta = betared_shape(mu, theta)
    z = list(np.linspace(0.0, 1.0, 201)) + near_mean(alpha, beta)
    z += [1e-300, 1e-12, 1 - 1e-12]
    compare([alpha] * len(z), [beta] * len(z), z)


# (a, b, x, I_x(a, b)) in the deep lower tail, where scipy is off (or 0): the continued
# fraction of DLMF 8.17.22 summed at 60 digits with mpmath, which agrees there with
# mpmath.betainc to 1e-41.
DEEP_TAIL = [
    (1060.8183551394482, 17.012542798525892, 0.5, 1.0374828892106388e-289),
    (1905.35, 39.5052, 0.6784156155996547, 8.6121873192889096e-260),
    (1448.91, 27.9, 0.5972139495998354, 1.8694033223635374e-278),
    (557.156, 16.2264, 0.2633344990769517, 4.3221350851056904e-296),
    (11397.7, 13.5189, 0.9367753966324225, 1.7422489322829762e-297),
    (5174.82, 39.694, 0.8657082752149091, 1.3788428314991898e-260),
    (2737.55, 38.3003, 0.7602789229364756, 5.6886087603491181e-265),
    (24325.2, 36.8426, 0.9695983694187007, 2.4173489870726888e-265),
    (12579.3, 39.434, 0.9439130945447206, 6.0748670452000826e-252),
    (3.5, 0.5, 1e-85, 9.2030559276776285e-299),
]


@pytest.mark.parametrize("a,b,x,want", DEEP_TAIL)
def test_deep_tail_reference_values(a, b, x, want):
    assert betainc(a, b, x) == pytest.approx(want, rel=REL_TOL, abs=0.0)


def test_uniform_is_identity():
    z = np.concatenate([[1e-300, 1e-12, 1 - 1e-12], np.linspace(0.0, 1.0, 1001)])
    ours = np.array(betainc_many([1.0] * z.size, [1.0] * z.size, z.tolist()))
    np.testing.assert_allclose(ours, z, rtol=1e-13, atol=0.0)


def test_symmetry():
    """I_x(a, b) = 1 − I_{1−x}(b, a), with x ≥ ½ so that 1 − x is exact."""
    rows = []
    for a in PARAMS[::3]:
        for b in PARAMS[::3]:
            for x in near_mean(a, b) + [0.5, 0.75, 0.999, 1 - 1e-12]:
                x = max(x, 0.5)
                rows.append((a, b, x))
    a, b, x = np.array(rows).T
    p = np.array(betainc_many(a.tolist(), b.tolist(), x.tolist()))
    q = np.array(betainc_many(b.tolist(), a.tolist(), (1 - x).tolist()))
    np.testing.assert_allclose(p, 1 - q, rtol=REL_TOL, atol=1e-15)


def test_invalid_arguments_give_nan():
    for a, b, x in [
        (0.0, 1.0, 0.5),
        (1.0, -1.0, 0.5),
        (1.0, 1.0, -0.1),
        (1.0, 1.0, 1.1),
        (math.nan, 1.0, 0.5),
        (1.0, 1.0, math.nan),
    ]:
        assert math.isnan(betainc(a, b, x))


def test_unequal_lengths_rejected():
    with pytest.raises(ValueError):
        betainc_many([1.0, 2.0], [1.0], [0.5, 0.5])
