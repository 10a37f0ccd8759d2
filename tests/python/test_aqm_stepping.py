"""Every AQM built and stepped by hand from Python through `_core.AqmStepper`."""

import math

import pytest

from aqmlab import _core

FLOW_QUEUEING = _core.catalog()["flow_queueing"]
ALL_AQMS = [name for name in _core.catalog()["aqms"] if name not in FLOW_QUEUEING]
"""The single-queue AQMs: the stepper runs one queue."""


def test_flow_queueing_disciplines_are_refused_in_one_line():
    assert {"fq_codel", "fq_pie"} <= set(FLOW_QUEUEING)
    for name in FLOW_QUEUEING:
        with pytest.raises(_core.ScenarioError) as info:
            _core.AqmStepper(name, {})
        assert str(info.value) == (
            f"aqm: {name} is a multi-queue discipline (flow queueing, CAKE or DualPI2), "
            "which runs only inside aqmlab's simulator; choose a single-queue AQM"
        )


def test_every_aqm_can_be_built_and_stepped():
    for name in ALL_AQMS:
        q = _core.AqmStepper(name, {}, rate_mbps=50.0, limit_pkts=1000, seed=2)
        assert q.name == name
        verdicts = set()
        t = 0.0
        for i in range(2000):
            t += 0.00016
            verdicts.add(q.enqueue(t, queue_pkts=300 + i % 50))
            if q.next_timer_s is not None and q.next_timer_s <= t:
                q.timer(t, queue_pkts=300)
            verdicts.add(q.dequeue(t, sojourn_s=min(t, 0.06), queue_pkts=300))
        assert verdicts <= {"accept", "early_drop", "forced_drop", "deliver"}
        state = q.state
        assert all(math.isfinite(v) for v in state.values()), (name, state)
        if "p" in state:
            assert 0.0 <= state["p"] <= 1.0


def test_dbetared_update_by_hand():
    # mu = 0.25 at q_target = 250 of B = 1000; with q_avg held at 350 (w = 1) one update moves
    # the virtual target by delta = 0.25 * 0.75 * (250 - 350) = -18.75.
    q = _core.AqmStepper("dbetared", {"w": 1.0}, rate_mbps=50.0, limit_pkts=1000)
    assert q.next_timer_s == pytest.approx(0.5)
    q.enqueue(0.4, queue_pkts=350)
    assert q.state["q_avg"] == 350.0
    q.timer(0.5, queue_pkts=350)
    s = q.state
    assert s["q_target_virtual"] == pytest.approx(231.25)
    assert s["mu"] == pytest.approx(0.23125)
    assert s["sigma"] == pytest.approx(0.1 * math.sqrt(0.23125 * 0.76875))
    assert s["p_max"] == 1.0
    assert q.next_timer_s == pytest.approx(1.0)


def test_abetared_update_by_hand():
    q = _core.AqmStepper("abetared", {"w": 1.0}, rate_mbps=50.0, limit_pkts=1000)
    q.enqueue(0.1, queue_pkts=350)
    q.timer(0.5, queue_pkts=350)
    assert q.state["p_max"] == pytest.approx(0.5 + 0.5 * 0.5 * 0.1)


def test_rem_update_by_hand():
    # 40 Mb/s, 1000-byte packets: c = 0.002 * 40e6 / 8000 = 10 packets per 2 ms interval.
    # 15 arrivals, q = 320: price = 0.001 * (0.1 * (320 - 300) + 15 - 10) = 0.007.
    q = _core.AqmStepper("rem", {}, rate_mbps=40.0, limit_pkts=900)
    assert q.next_timer_s == pytest.approx(0.002)
    for _ in range(15):
        assert q.enqueue(0.001, queue_pkts=0) == "accept"
    q.timer(0.002, queue_pkts=320)
    s = q.state
    assert s["price"] == pytest.approx(0.007)
    assert s["p"] == pytest.approx(1.0 - 1.001**-0.007)
    assert s["input_rate_pkts_per_s"] == pytest.approx(7500.0)
    assert q.next_timer_s == pytest.approx(0.004)


def test_pi_update_by_hand():
    # p = 1.822e-5 * (400 - 300) - 1.816e-5 * (0 - 300) = 7.27e-3 after a first sample of 0.
    q = _core.AqmStepper("pi", {}, rate_mbps=45.0, limit_pkts=900)
    assert q.next_timer_s == 0.0
    q.timer(0.0, queue_pkts=0)
    assert q.state["p"] == 0.0
    q.timer(q.next_timer_s, queue_pkts=400)
    assert q.state["p"] == pytest.approx(7.27e-3)
    assert q.state["queue_error_pkts"] == 100.0


def test_drop_curves():
    red = _core.AqmStepper("red", {"q_min_pkts": 100, "q_max_pkts": 300, "p_max": 0.2})
    expected = [0, 0.1, 0.2, 1]
    assert red.drop_probability([50, 200, 299.999, 300]) == pytest.approx(expected, abs=1e-5)
    # BetaRED with theta = 1/sqrt(3) and the target mid-way is the same line.
    beta = _core.AqmStepper(
        "betared",
        {
            "q_min_pkts": 100,
            "q_max_pkts": 300,
            "q_target_pkts": 200,
            "p_max": 0.2,
            "theta": 1 / math.sqrt(3),
        },
    )
    qs = [100 + 2 * i for i in range(100)]
    assert beta.drop_probability(qs) == pytest.approx(red.drop_probability(qs), abs=1e-12)
    # A small theta concentrates the rise around the target.
    sharp = _core.AqmStepper("betared", {"theta": 0.05})
    p = sharp.drop_probability([200, 250, 300])
    assert p[0] < 0.01 and 0.3 < p[1] < 0.7 and p[2] > 0.98
    with pytest.raises(ValueError, match="has no drop-probability curve"):
        _core.AqmStepper("codel", {}).drop_probability([1.0])


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(_core.ScenarioError, match=r"^betared\.theta: must be in \[0\.005, 1\)$"):
        _core.AqmStepper("betared", {"theta": 1.5})
    with pytest.raises(_core.ScenarioError, match=r"^betared\.q_target_pkts: must be in"):
        _core.AqmStepper("betared", {"q_target_pkts": 0})
    with pytest.raises(_core.ScenarioError, match=r"^red\.gentel: unknown key"):
        _core.AqmStepper("red", {"gentel": True})
    with pytest.raises(_core.ScenarioError, match=r"^aqm: unknown value \"blue\""):
        _core.AqmStepper("blue", {})
    with pytest.raises(ValueError, match="now_s"):
        _core.AqmStepper("red", {}).enqueue(-1.0, queue_pkts=3)


def test_same_seed_same_decisions():
    def decisions(seed):
        q = _core.AqmStepper("red", {"w": 1.0, "q_min_pkts": 0, "q_max_pkts": 1000}, seed=seed)
        return [q.enqueue(i * 1e-3, queue_pkts=500) for i in range(500)]

    assert decisions(5) == decisions(5)
    assert decisions(5) != decisions(6)


def test_repr_names_the_aqm_and_every_parameter_in_force():
    q = _core.AqmStepper("red", {"p_max": 0.2, "q_min_pkts": 50}, rate_mbps=10, seed=7)
    text = repr(q)
    assert text.startswith(
        "AqmStepper('red', limit_pkts=1000, rate_mbps=10.0, seed=7, q_min_pkts=50.0, "
        "q_max_pkts=300.0, p_max=0.2, w=0.002, gentle=False, spacing='none', "
    )
    assert text.endswith("mean_pkt_bytes=1000.0, ns_small_queue_guard=True, mark_p_max=1.0)")
    assert q.params["p_max"] == 0.2 and q.params["spacing"] == "none"
    assert repr(_core.AqmStepper("droptail", {})) == (
        "AqmStepper('droptail', limit_pkts=1000, rate_mbps=50.0, seed=1)"
    )
    for name in ALL_AQMS:
        assert repr(_core.AqmStepper(name, {})).startswith(f"AqmStepper('{name}', ")


def test_time_must_not_go_backwards_across_calls():
    q = _core.AqmStepper("ared", {"adapt_at": "timer"})
    q.enqueue(2.0, queue_pkts=3)
    with pytest.raises(ValueError, match=r"^now_s: time went backwards \(1\.0 s after 2\.0 s\)$"):
        q.enqueue(1.0, queue_pkts=3)
    with pytest.raises(ValueError, match=r"^now_s: time went backwards \(1\.5 s after 2\.0 s\)$"):
        q.dequeue(1.5, sojourn_s=0.1, queue_pkts=2)
    with pytest.raises(ValueError, match=r"^now_s: time went backwards"):
        q.timer(0.5, queue_pkts=2)
    assert q.enqueue(2.0, queue_pkts=3) == "accept"  # the same time again is fine
    q.timer(2.5, queue_pkts=3)
    with pytest.raises(ValueError, match=r"\(2\.25 s after 2\.5 s\)"):
        q.enqueue(2.25, queue_pkts=3)


def test_failed_calls_change_nothing():
    q = _core.AqmStepper("red", {"w": 1.0})
    q.enqueue(1.0, queue_pkts=10)
    with pytest.raises(ValueError):
        q.enqueue(5.0, queue_pkts=5000)  # bad queue: time does not move on to 5 s
    q.enqueue(2.0, queue_pkts=20)
    assert q.state["q_avg"] == 20.0


def test_queue_within_its_limit_and_bytes_consistent():
    q = _core.AqmStepper("red", {}, limit_pkts=50)
    assert q.enqueue(0.0, queue_pkts=50) in ("accept", "early_drop", "forced_drop")
    with pytest.raises(
        ValueError,
        match=r"^queue_pkts: must be an integer in 0\.\.50 \(at most "
        r"limit_pkts\), got 51$",
    ):
        q.enqueue(0.0, queue_pkts=51)
    ared = _core.AqmStepper("ared", {"adapt_at": "timer"}, limit_pkts=50)
    with pytest.raises(ValueError, match=r"^queue_pkts: .* got 51$"):
        ared.timer(0.5, queue_pkts=51)
    with pytest.raises(ValueError, match=r"^queue_bytes: must be an integer in 0\.\.0 "):
        q.enqueue(0.0, queue_pkts=0, queue_bytes=100)
    with pytest.raises(ValueError, match=r"^size_bytes: must be an integer in 1\.\.2\^32-1, got 0"):
        q.enqueue(0.0, queue_pkts=1, size_bytes=0)


def test_timer_runs_only_when_due():
    red = _core.AqmStepper("red", {})
    with pytest.raises(ValueError, match=r"^timer: red has no timer \(next_timer_s is None\)$"):
        red.timer(1.0, queue_pkts=0)
    ared = _core.AqmStepper("ared", {"adapt_at": "timer"})
    assert ared.next_timer_s == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"^now_s: the timer is due at 0\.5 s, got 0\.4 s$"):
        ared.timer(0.4, queue_pkts=0)
    ared.timer(0.5, queue_pkts=0)
    assert ared.next_timer_s == pytest.approx(1.0)


def test_sojourn_within_now_and_drop_curve_inputs():
    q = _core.AqmStepper("codel", {})
    with pytest.raises(ValueError, match=r"^sojourn_s: must be a time in seconds in \[0, now_s\]"):
        q.dequeue(1.0, sojourn_s=1.5, queue_pkts=0)
    assert q.dequeue(1.0, sojourn_s=1.0, queue_pkts=0) == "deliver"
    red = _core.AqmStepper("red", {})
    for bad, shown in ((math.nan, "nan"), (-1.0, "-1.0"), (math.inf, "inf")):
        with pytest.raises(
            ValueError,
            match=rf"^q_avg_pkts: must be finite numbers >= 0, "
            rf"got {shown} at index 1$",
        ):
            red.drop_probability([1.0, bad])
    with pytest.raises(ValueError, match="has no drop-probability curve"):
        _core.AqmStepper("pie", {}).drop_probability([])


def test_iapi_update_by_hand():
    # k_p = b = 0.001, k_i0 = (a - b)·w = 0.2, T = 0.01 s, e* = 10. At t = 0 with q = 100:
    # e = 0 after e(k-1) = -100, k_i = 0.2·(1 - 10/20) = 0.1, p = 0.001·100 = 0.1.
    params = {"q_ref_pkts": 100, "a": 0.003, "b": 0.001, "sample_hz": 100, "e_star_pkts": 10}
    q = _core.AqmStepper("iapi", params)
    assert q.next_timer_s == 0.0
    q.timer(0.0, queue_pkts=100)
    assert q.state == pytest.approx({"p": 0.1, "k_i": 0.1})
    # q = 130: e = 30, k_i = 0.2·(1 + 20/20) = 0.4, p = 0.1 + 0.001·30 + 0.4·0.01·30 = 0.25.
    q.timer(0.01, queue_pkts=130)
    assert q.state == pytest.approx({"p": 0.25, "k_i": 0.4})
    # An arrival finding 400 packets is dropped with p' = 400/100·0.25 = 1, one finding none never.
    assert {q.enqueue(0.015, queue_pkts=400) for _ in range(50)} == {"early_drop"}
    assert {q.enqueue(0.015, queue_pkts=0) for _ in range(50)} == {"accept"}


def test_neuron_pid_step_by_hand():
    # From rest, q = 110 against q_ref 100: e = 10, x = [10, 10, 10], p = 0.01·30/3 = 0.1;
    # each weight learns 1e-4·10·0.1·10 = 1e-3.
    q = _core.AqmStepper("neuron_pid", {"q_ref_pkts": 100, "d1": 1e-4, "d2": 1e-4, "d3": 1e-4})
    assert q.next_timer_s == pytest.approx(0.001)
    q.timer(0.001, queue_pkts=110)
    assert q.state == pytest.approx({"p": 0.1, "w1": 1.001, "w2": 1.001, "w3": 1.001})


def test_an_aqm_rate_mismatch_by_hand():
    # 8 Mb/s link: two 1000-byte arrivals in 1 ms are r = 16 Mb/s, gamma = 1. With q = 110,
    # e = 10: x = [10, 10, 10, 1, 1, 1], p = 0.01·33/6 = 0.055.
    zero = {f"d{i}": 0.0 for i in range(1, 7)}
    q = _core.AqmStepper("an_aqm", {"q_ref_pkts": 100, **zero}, rate_mbps=8.0)
    q.enqueue(0.0002, queue_pkts=0, size_bytes=1000)
    q.enqueue(0.0004, queue_pkts=1, size_bytes=1000)
    q.timer(0.001, queue_pkts=110)
    s = q.state
    assert s["gamma"] == pytest.approx(1.0)
    assert s["p"] == pytest.approx(0.055)
    assert [s[f"w{i}"] for i in range(1, 7)] == [1.0] * 6


def test_fapidnn_first_sample_by_hand():
    # 8 Mb/s, B = 1000, q_ref = 300: u = (500 - 300)/1000 = 0.2 feeds the P-, I- and D-neurons,
    # so p = (0.1 + 0.2 + 0.05) * 0.2 = 0.07; the gains do not move at the first sample.
    q = _core.AqmStepper(
        "fapidnn", {"k_p": 0.1, "k_i": 0.2, "k_d": 0.05}, rate_mbps=8.0, limit_pkts=1000
    )
    assert q.next_timer_s == 0.0
    q.timer(0.0, queue_pkts=500)
    s = q.state
    assert s["p"] == pytest.approx(0.07)
    assert (s["k_p"], s["k_i"], s["k_d"]) == (0.1, 0.2, 0.05)
    assert q.next_timer_s == pytest.approx(0.001)


def test_nrl_first_sample_by_hand():
    # C = 1000 packets/s; 3 arrivals in the first ms and q = 320: e1 = 20, e2 = 2000,
    # z = 0.01 * 20 + 0.001 * 2000 = 2.2, p = tanh(1.1); r = 10 * 20 + 0.02 * 2000 = 240.
    q = _core.AqmStepper(
        "nrl",
        {"w1_initial": 0.01, "w2_initial": 0.001, "normalised_inputs": False},
        rate_mbps=8.0,
        limit_pkts=1000,
    )
    for _ in range(3):
        q.enqueue(0.0, queue_pkts=320, size_bytes=1000)
    q.timer(0.0, queue_pkts=320)
    s = q.state
    assert s["p"] == pytest.approx(math.tanh(1.1))
    assert s["r"] == pytest.approx(240.0)
    assert (s["w1"], s["w2"]) == (0.01, 0.001)


def test_self_tuning_red_p_max_by_hand():
    # w = 1 (q_avg = q), δt = 1 s, C/M = 37 500 packets/s. Arrivals finding 2000 packets at
    # 0.5 s and 2500 at 1.0 s, then 2000 at 1.5 s closes the period: q̃ = 6500/3 and
    # p_max = 0.01·(q̃ − 750)/750·(0.15 + q̃/37500)/0.19 = 0.0206563.
    q = _core.AqmStepper(
        "self_tuning_red", {"w": 1.0, "delta_t_s": 1.0}, rate_mbps=150.0, limit_pkts=7500
    )
    for t, n in ((0.5, 2000), (1.0, 2500)):
        q.enqueue(t, queue_pkts=n, size_bytes=500)
    assert q.state["p_max"] == pytest.approx(0.01)
    q.enqueue(1.5, queue_pkts=2000, size_bytes=500)
    assert q.state["p_max"] == pytest.approx(0.0206563, abs=1e-6)
