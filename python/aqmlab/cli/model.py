"""`aqmlab model ...`: the discrete-time TCP/AQM model from the command line.

    aqmlab model fixed-point    [--drop D] [--set KEY=VALUE ...]
    aqmlab model bifurcation    [--param w --from 0.12 --to 0.2 --points 1000] ...
    aqmlab model lyapunov       [--param w --from 0.12 --to 0.2 --points 1000] ...
    aqmlab model stability-map  [--x theta --x-from ... --y w ...] [--color lyapunov|period]
    aqmlab model reproduce self-tuning-red
    aqmlab model bridge         [--quick] [--jobs N]

Each command prints a short table and writes PNG + SVG figures and Parquet + CSV tables into
--out (default results/model/<command>). Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.memory import check_rows
from ..engine.outdir import check_target, staged
from ..engine.parquet import write_table
from ..engine.tables import render_table
from ..model.names import DROP_FUNCTIONS
from .arg_types import add_memory_option, finite_float, float_list

if TYPE_CHECKING:
    import numpy as np

    from ..model import api as model

RESULTS_DIR = Path("results") / "model"

BYTES_PER_ROW = 64
"""Estimated bytes per row of a result table, its copies while written and drawn included."""

ErrorType = Callable[[str], Exception]


def _error_type(args: argparse.Namespace) -> ErrorType:
    return args.model_error


def parse_sets(items: Sequence[str], drop: str | None) -> dict[str, Any]:
    """`--set key=value` items (and `--drop`) as a parameter mapping with canonical names;
    ValueError with a one-line message on a bad item."""
    from ..model import api as model

    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key:
            raise ValueError(f"--set {item!r}: expected key=value")
        if key == "drop":
            params["drop"] = text
        elif key == "p_max_from_target":
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError("p_max_from_target: must be true or false")
            params[key] = text.lower() in ("true", "1")
        else:
            name = model.canonical(key)
            try:
                params[name] = float(text)
            except ValueError:
                raise ValueError(f"{name}: must be a number, got {text!r}") from None
    if drop is not None:
        params["drop"] = drop
    return params


def _values(args: argparse.Namespace, prefix: str = "") -> np.ndarray:
    """The sweep values of --values, or of --from/--to/--points (with `prefix` `x_` or `y_`
    for a stability map's axes)."""
    import numpy as np

    listed = getattr(args, f"{prefix}values")
    if listed is not None:
        return np.asarray(listed, dtype=float)
    lo = getattr(args, f"{prefix}from" if prefix else "from_")
    hi, points = getattr(args, f"{prefix}to"), getattr(args, f"{prefix}points")
    return np.linspace(lo, hi, points) if points > 1 else np.asarray([lo], dtype=float)


def _out_dir(args: argparse.Namespace, command: str) -> Path:
    """The output folder, checked before any work (`aqmlab.engine.outdir`)."""
    out_dir = Path(args.out) if args.out is not None else RESULTS_DIR / command
    return check_target(out_dir, "model", args.overwrite)


def _check_memory(args: argparse.Namespace, rows: int, what: str) -> None:
    """Refuse a request whose result tables would hold `rows` rows when they would need more
    than the memory budget (`aqmlab.engine.memory`); `what` names the options that set `rows`."""
    check_rows(rows, BYTES_PER_ROW, what, args.max_memory)


def _count_values(args: argparse.Namespace, prefix: str = "") -> int:
    """How many values --values or --points give (before any is computed)."""
    listed = getattr(args, f"{prefix}values")
    return len(listed) if listed is not None else getattr(args, f"{prefix}points")


def _bound_for_plot(params: dict[str, Any], param: str) -> float | None:
    """The stability bound on w of the fixed point, to mark on a sweep over w."""
    from ..model import api as model

    if param != "w":
        return None
    fp = model.fixed_points(params)
    return float(fp["w_bound"].iloc[0]) if len(fp) == 1 else None


def cmd_fixed_point(args: argparse.Namespace) -> int:
    import numpy as np

    from ..model import api as model
    from ..model.plots import plot_map
    from ..model.text import describe, fixed_point_table

    params = parse_sets(args.set, args.drop)
    out_dir = _out_dir(args, "fixed-point")
    eq = model.equilibrium(params)
    fp = model.fixed_points(params)
    orbit = model.orbit(params, args.q0, args.steps)
    curve = model.map_curve(params)
    print(describe(params))
    print(
        f"C·d/M = {eq['bdp_pkts']:.4g} pkts, p1 = {eq['p1']:.5g}, p2 = {eq['p2']:.5g}, "
        f"q1 = {eq['q1_pkts']:.4f}, q2 = {eq['q2_pkts']:.4f} "
        "(where p reaches p1, p2; eq. (2.3))\n"
    )
    if len(fp):
        print(fixed_point_table(fp))
    else:
        print(
            "no fixed point: the equilibrium falls on the drop function's jump at "
            + ", ".join(f"q = {q:g}" for q in eq["jumps_pkts"])
            + " (the orbit oscillates around it)"
        )
    center = float(fp["q_avg_pkts"].iloc[0]) if len(fp) else float(np.mean(eq["jumps_pkts"]))
    q_orbit = orbit["q_avg_pkts"].to_numpy()
    span = max(50.0, 1.2 * float(np.max(np.abs(q_orbit - center))))
    b = float(curve["q_avg_pkts"].max())
    lo, hi = max(0.0, center - span), min(b, center + span)
    with staged(out_dir, "model", args.overwrite) as tmp:
        write_table(fp, tmp, "fixed_points")
        write_table(orbit, tmp, "orbit")
        write_table(curve, tmp, "map")
        plot_map(
            curve,
            orbit,
            fp,
            tmp,
            q_range=(lo, hi),
            title=f"The map f(q) and an orbit from q0 = {q_orbit[0]:g} ({args.steps} steps)",
        )
    print(f"\nresults: {out_dir}/fixed_points, orbit, map (.parquet, .csv), map.png, map.svg")
    return 0


def _sweep(args: argparse.Namespace, keep: int) -> tuple[dict[str, Any], model.Bifurcation, float]:
    from ..model import api as model

    params = parse_sets(args.set, args.drop)
    count = _count_values(args)
    _check_memory(args, count, "--points" if args.values is None else "--values")
    if keep:
        _check_memory(args, count * keep, "values × --keep")
    values = _values(args)
    t0 = time.perf_counter()
    bif = model.bifurcation(
        args.param,
        values,
        params,
        iterations=args.iterations,
        transient=args.transient,
        keep=keep,
        q0_pkts=args.q0,
        threads=args.threads,
    )
    return params, bif, time.perf_counter() - t0


def cmd_bifurcation(args: argparse.Namespace) -> int:
    from ..model.plots import plot_bifurcation
    from ..model.text import describe, regimes

    out_dir = _out_dir(args, "bifurcation")
    params, bif, wall = _sweep(args, args.keep)
    print(describe(params))
    print(
        f"{len(bif.summary)} values of {bif.param}, {args.iterations} iterations each: "
        f"{wall:.2f} s\n"
    )
    print(regimes(bif.summary))
    with staged(out_dir, "model", args.overwrite) as tmp:
        write_table(bif.points, tmp, "bifurcation")
        write_table(bif.summary, tmp, "bifurcation_summary")
        plot_bifurcation(
            bif,
            tmp,
            title=f"Bifurcation diagram over {bif.param}",
            queue=args.queue,
            w_bound=_bound_for_plot(params, bif.param),
        )
    print(f"\nresults: {out_dir}/bifurcation.png|svg|parquet|csv, bifurcation_summary.*")
    return 0


def cmd_lyapunov(args: argparse.Namespace) -> int:
    from ..model.plots import plot_lyapunov
    from ..model.text import describe, regimes

    out_dir = _out_dir(args, "lyapunov")
    params, bif, wall = _sweep(args, 0)
    print(describe(params))
    print(
        f"{len(bif.summary)} values of {bif.param}, {args.iterations} iterations each: "
        f"{wall:.2f} s\n"
    )
    print(regimes(bif.summary))
    with staged(out_dir, "model", args.overwrite) as tmp:
        write_table(bif.summary, tmp, "lyapunov")
        plot_lyapunov(
            bif.summary,
            bif.param,
            tmp,
            title=f"Lyapunov exponent over {bif.param}",
            w_bound=_bound_for_plot(params, bif.param),
        )
    print(f"\nresults: {out_dir}/lyapunov.png|svg|parquet|csv")
    return 0


def cmd_stability_map(args: argparse.Namespace) -> int:
    from ..model import api as model
    from ..model.plots import plot_stability_map
    from ..model.text import describe

    params = parse_sets(args.set, args.drop)
    drop = params.get("drop", model.defaults()["drop"])
    x = args.x or ("theta" if drop == "betared" else "p_max")
    if args.x_values is None and args.x_from is None:
        args.x_from, args.x_to = (0.02, 0.98) if model.canonical(x) == "theta" else (0.01, 1.0)
    if args.x_values is None and (args.x_from is None or args.x_to is None):
        raise ValueError("--x-from and --x-to: both needed (or --x-values)")
    if args.y_values is None and (args.y_from is None or args.y_to is None):
        raise ValueError("--y-from and --y-to: both needed (or --y-values)")
    _check_memory(
        args, _count_values(args, "x_") * _count_values(args, "y_"), "x values × y values"
    )
    out_dir = _out_dir(args, "stability-map")
    xs, ys = _values(args, "x_"), _values(args, "y_")
    t0 = time.perf_counter()
    df = model.stability_map(
        x,
        xs,
        args.y,
        ys,
        params,
        iterations=args.iterations,
        transient=args.transient,
        q0_pkts=args.q0,
        threads=args.threads,
    )
    wall = time.perf_counter() - t0
    xn, yn = model.canonical(x), model.canonical(args.y)
    print(describe(params))
    print(
        f"{len(xs)} × {len(ys)} grid of {xn} × {yn}, {args.iterations} iterations each: "
        f"{wall:.2f} s\n"
    )
    counts = df["period"].map(lambda p: f"period {p}" if p else "no period").value_counts()
    chaotic = int(((df["period"] == 0) & (df["lyapunov"] > 0)).sum())
    rows = [[k, str(v)] for k, v in counts.head(12).items()]
    rows.append(["positive Lyapunov exponent", str(chaotic)])
    print(render_table(["orbit", "cells"], rows))
    with staged(out_dir, "model", args.overwrite) as tmp:
        write_table(df, tmp, "stability_map")
        plot_stability_map(
            df,
            xn,
            yn,
            tmp,
            color=args.color,
            title=f"Stability map, coloured by the {args.color}",
            drop=drop,
        )
    print(f"\nresults: {out_dir}/stability_map.png|svg|parquet|csv")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from ..model.reproduce import reproduce_self_tuning_red

    _check_memory(args, args.points * 200, "--points × 200 iterates drawn")
    out_dir = _out_dir(args, f"reproduce-{args.paper}")
    with staged(out_dir, "model", args.overwrite) as tmp:
        outcome = reproduce_self_tuning_red(tmp, points=args.points, threads=args.threads)
    print(outcome.summary)
    print(f"\nreport: {out_dir / outcome.report.name}")
    return 0 if outcome.ok else 1


def cmd_bridge(args: argparse.Namespace) -> int:
    from ..model.bridge import run_bridge

    name = "bridge" + ("-quick" if args.quick else "")
    out_dir = Path(args.out) if args.out is not None else RESULTS_DIR / name
    outcome = run_bridge(
        out_dir,
        quick=args.quick,
        jobs=args.jobs,
        progress=not args.quiet,
        overwrite=args.overwrite,
    )
    print(outcome.text)
    print(f"\nresults: {outcome.figure} (and .svg), bridge.parquet|csv, bridge.md in {out_dir}")
    return 0 if not outcome.failed else 1


def _guard(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn a ValueError (bad model parameter) into the CLI's one-line usage error."""

    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except ValueError as e:
            raise _error_type(args)(str(e)) from None

    return run


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--drop",
        choices=DROP_FUNCTIONS,
        help="drop function (default gentle, as the self-tuning-RED paper)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a model parameter, e.g. --set w=0.1 --set N=300 (repeatable)",
    )
    p.add_argument(
        "--out", metavar="DIR", help="output directory (default results/model/<command>)"
    )
    p.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    add_memory_option(p)
    p.add_argument(
        "--q0", type=finite_float, help="initial q_avg, packets (default (q_min + q_max)/2)"
    )


def _orbit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--iterations",
        type=_positive,
        default=10_000,
        help="iterations per point, transient included (default 10000)",
    )
    p.add_argument("--transient", type=_count, help="iterations discarded (default half)")
    p.add_argument("--threads", type=_count, default=0, help="threads (default: all cores)")


def _count(text: str) -> int:
    """A non-negative integer."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"invalid count {text!r}: expected an integer >= 0")
    return n


def _positive(text: str) -> int:
    """A positive integer."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"invalid count {text!r}: expected an integer >= 1")
    return n


def _sweep_options(p: argparse.ArgumentParser, default_from: float, default_to: float) -> None:
    p.add_argument("--param", default="w", help="the swept parameter (default w)")
    p.add_argument(
        "--from",
        dest="from_",
        metavar="X",
        type=finite_float,
        default=default_from,
        help=f"first value (default {default_from:g})",
    )
    p.add_argument(
        "--to",
        type=finite_float,
        metavar="X",
        default=default_to,
        help=f"last value (default {default_to:g})",
    )
    p.add_argument("--points", type=_positive, default=1000, help="number of values (default 1000)")
    p.add_argument(
        "--values", type=float_list, metavar="LIST", help="explicit values, comma-separated"
    )


OVERWRITE_HELP = "replace an earlier aqmlab result in the output folder"


def add_parser(commands: Any, error: ErrorType) -> argparse.ArgumentParser:
    """Add `model` and its subcommands to the `aqmlab` parser's subcommands; `error` is the
    exception class the CLI reports as a one-line usage error."""
    p_model = commands.add_parser(
        "model", help="the discrete-time TCP/AQM model: fixed points, bifurcations, Lyapunov"
    )
    p_model.set_defaults(model_error=error)
    sub = p_model.add_subparsers(dest="model_command", required=True, metavar="MODEL_COMMAND")

    p = sub.add_parser("fixed-point", help="fixed point(s), eigenvalue and the bound on w")
    _common(p)
    p.add_argument("--steps", type=_count, default=60, help="steps of the orbit drawn (default 60)")
    p.set_defaults(func=_guard(cmd_fixed_point))

    p = sub.add_parser("bifurcation", help="bifurcation diagram over one parameter")
    _common(p)
    _sweep_options(p, 0.12, 0.2)
    _orbit_options(p)
    p.add_argument(
        "--keep", type=_positive, default=200, help="iterates drawn per value (default 200)"
    )
    p.add_argument("--queue", action="store_true", help="add a panel with the instantaneous queue")
    p.set_defaults(func=_guard(cmd_bifurcation))

    p = sub.add_parser("lyapunov", help="Lyapunov exponent and period over one parameter")
    _common(p)
    _sweep_options(p, 0.12, 0.2)
    _orbit_options(p)
    p.set_defaults(func=_guard(cmd_lyapunov))

    p = sub.add_parser("stability-map", help="Lyapunov exponent or period over two parameters")
    _common(p)
    _orbit_options(p)
    p.add_argument("--x", help="x parameter (default theta for betared, else p_max)")
    p.add_argument(
        "--x-from", type=finite_float, help="first x (default 0.02 for theta, else 0.01)"
    )
    p.add_argument("--x-to", type=finite_float, help="last x (default 0.98 for theta, else 1)")
    p.add_argument("--x-points", type=_positive, default=60, help="x values (default 60)")
    p.add_argument("--x-values", type=float_list, metavar="LIST", help="explicit x values")
    p.add_argument("--y", default="w", help="y parameter (default w)")
    p.add_argument("--y-from", type=finite_float, default=0.01, help="first y (default 0.01)")
    p.add_argument("--y-to", type=finite_float, default=1.0, help="last y (default 1)")
    p.add_argument("--y-points", type=_positive, default=60, help="y values (default 60)")
    p.add_argument("--y-values", type=float_list, metavar="LIST", help="explicit y values")
    p.add_argument(
        "--color",
        choices=("lyapunov", "period"),
        default="lyapunov",
        help="colour the map by (default lyapunov)",
    )
    p.set_defaults(func=_guard(cmd_stability_map))

    p = sub.add_parser("reproduce", help="the self-tuning-RED paper's model results (Figs. 3, 4)")
    p.add_argument("paper", choices=("self-tuning-red",), help="the paper: self-tuning-red")
    p.add_argument(
        "--out", metavar="DIR", help="output directory (default results/model/reproduce-<PAPER>)"
    )
    p.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    p.add_argument(
        "--points", type=_positive, default=1000, help="values per diagram (default 1000)"
    )
    p.add_argument("--threads", type=_count, default=0, help="threads (default: all cores)")
    add_memory_option(p)
    p.set_defaults(func=_guard(cmd_reproduce))

    p = sub.add_parser(
        "bridge", help="model equilibrium vs simulated average queue on the BetaRED dumbbell"
    )
    p.add_argument("--out", metavar="DIR", help="output directory (default results/model/bridge)")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an earlier result of another kind (an earlier bridge is resumed)",
    )
    p.add_argument("--quick", action="store_true", help="100 s runs measured over the last 50 s")
    p.add_argument("--jobs", type=_positive, help="worker processes (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_guard(cmd_bridge))
    return p_model
