"""Benchmarks and the synthetic fleet of the history store (issue 26).

    python benchmarks/bench_history.py rates [--seeds 10] [--db URL]
        A synthetic 10,000-GPU fleet (1,250 hosts of 8 GPUs, 32 leaf and 16 spine switches)
        observed monthly for one year, failing at known rates for 11 component kinds
        (Poisson, uniform in time); a GPU with a `replaced` event is swapped in the next
        monthly snapshot. The posterior of each kind is compared with the truth: mean
        within +-20 % where >= 30 events occurred, and how many 90 % intervals cover it.
    python benchmarks/bench_history.py scale [--nodes 10000] [--db URL]
        Record a 10,000-node snapshot (host + 8 GPUs + 8 adapters + 8 cables a node:
        250,000 parts), then swap every GPU and adapter four times over (1,000,000+ change
        records), then time point-in-time queries (a host, a rack, the whole fleet's GPUs).

--db: a SQLAlchemy URL (default: a SQLite file in a temporary directory); for
PostgreSQL give an empty database, e.g. postgresql://postgres@/bench?host=/tmp/pg.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infra.history.db import connect, iso, to_ts  # noqa: E402
from infra.history.events import EventRow, insert_events  # noqa: E402
from infra.history.fleet_rates import site_rates  # noqa: E402
from infra.history.query import installed_at  # noqa: E402
from infra.history.recorder import record_state  # noqa: E402
from infra.history.state import Component, State  # noqa: E402

YEAR_S = 365 * 86400
START = to_ts("2025-01-01T00:00:00Z")
HOSTS, GPUS, NICS, LEAVES, SPINES = 1250, 8, 8, 32, 16
PARTS = {"cpu": 2, "nic": NICS, "pcie_switch": 4, "power_shelf": 0.25}  # per host
# True rates (events per component-year), set apart from the catalog's on purpose
# (catalog in brackets): a fleet that fails unlike Llama 3's in both directions.
TRUE = {"gpu": 0.12, "hbm": 0.02, "software": 0.035, "compute_tray": 0.20, "cpu": 0.006,
        "nic": 0.005, "pcie_switch": 0.002, "leaf_switch": 0.08, "spine_switch": 0.05,
        "power_shelf": 0.06, "rack": 0.0}
# gpu [0.0809] hbm [0.0297] software [0.026] compute_tray [0.1386] cpu [0.0033]
# nic [0.0029] pcie_switch [0.00083] leaf [0.04] spine [0.10] power_shelf [0.03]
REPLACED_SHARE = 0.5  # of GPU failures, the part is swapped


def fleet(gpu_ids: dict[tuple[str, int], str], month: int) -> State:
    comps = []
    for h in range(HOSTS):
        host = f"r{h // 16 + 1:03d}n{h % 16 + 1:02d}"
        rack = f"r{h // 16}"
        comps.append(Component("host", host, host, rack, host, {"parts": PARTS}))
        for g in range(GPUS):
            comps.append(Component("gpu", gpu_ids[(host, g)], host, rack, f"gpu module {g + 1}",
                                   {"product": "H100"}))
    for s in range(LEAVES):
        comps.append(Component("switch", f"0xleaf{s:04d}", None, None, f"leaf{s}",
                               {"role": "leaf_switch"}))
    for s in range(SPINES):
        comps.append(Component("switch", f"0xspine{s:04d}", None, None, f"spine{s}",
                               {"role": "spine_switch"}))
    return State(tuple(comps), frozenset(c.host for c in comps if c.host), True, f"month {month}")


def units(kind: str) -> float:
    per_host = {"gpu": GPUS, "hbm": GPUS, "software": GPUS, "compute_tray": 1, **PARTS}
    if kind in per_host:
        return HOSTS * per_host[kind]
    return {"leaf_switch": LEAVES, "spine_switch": SPINES, "rack": HOSTS / 16}[kind]


def poisson(rng: random.Random, lam: float) -> int:
    if lam > 50:  # normal approximation is too rough in the tails: sum of smaller draws
        return sum(poisson(rng, lam / math.ceil(lam / 50)) for _ in range(math.ceil(lam / 50)))
    k, p, limit = 0, 1.0, math.exp(-lam)
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def run_rates(db: str, seed: int) -> list[dict]:
    rng = random.Random(seed)
    gpu_ids = {(f"r{h // 16 + 1:03d}n{h % 16 + 1:02d}", g): f"GPU-{seed}-{h}-{g}-0"
               for h in range(HOSTS) for g in range(GPUS)}
    evs: list[EventRow] = []
    swaps: dict[int, list[tuple[str, int]]] = {}
    for kind, rate in TRUE.items():
        n = poisson(rng, rate * units(kind))  # one year of exposure
        for i in range(n):
            t = START + rng.randrange(YEAR_S)
            h = rng.randrange(HOSTS)
            host = f"r{h // 16 + 1:03d}n{h % 16 + 1:02d}"
            evs.append(EventRow(t, host, None, kind, "failure", f"synthetic {kind} {i}", "bench"))
            if kind == "gpu" and rng.random() < REPLACED_SHARE:
                g = rng.randrange(GPUS)
                evs.append(EventRow(t, host, gpu_ids[(host, g)], "gpu", "replaced",
                                    f"swap {i}", "bench"))
                month = min(12, (t - START) * 12 // YEAR_S + 1)
                swaps.setdefault(month, []).append((host, g))
    with connect(db, write=True) as conn:
        for month in range(13):  # 2025-01-01 ... 2026-01-01, monthly
            for host, g in swaps.get(month, []):
                old = gpu_ids[(host, g)]
                gpu_ids[(host, g)] = old.rsplit("-", 1)[0] + f"-{int(old.rsplit('-', 1)[1]) + 1}"
            record_state(conn, fleet(gpu_ids, month), START + month * YEAR_S // 12)
        insert_events(conn, evs, "bench")
        res = site_rates(conn)
    out = []
    for r in res.rows:
        if r["kind"] not in TRUE or r["posterior_rate_per_year"] is None or not TRUE[r["kind"]]:
            continue
        truth = TRUE[r["kind"]]
        out.append({"kind": r["kind"], "events": r["events"], "years": r["exposure_years"],
                    "truth": truth, "posterior": r["posterior_rate_per_year"],
                    "error": r["posterior_rate_per_year"] / truth - 1,
                    "covered": r["posterior_low_per_year"] <= truth <= r["posterior_high_per_year"],
                    "low": r["posterior_low_per_year"], "high": r["posterior_high_per_year"],
                    "prior": r["prior_rate_per_year"]})
    return out


def cmd_rates(args) -> None:
    allrows = []
    for seed in range(args.seeds):
        db = args.db or f"sqlite:///{tempfile.mkdtemp()}/fleet{seed}.db"
        if args.db and seed:
            raise SystemExit("--db holds one run: use --seeds 1 with --db")
        t0 = time.perf_counter()
        rows = run_rates(db, seed)
        dt = time.perf_counter() - t0
        allrows += rows
        big = [r for r in rows if r["events"] >= 30]
        print(f"seed {seed}: {len(rows)} kinds, {sum(r['covered'] for r in rows)} covered; "
              f"{len(big)} with >= 30 events, worst |error| "
              f"{max(abs(r['error']) for r in big):.1%} ({dt:.1f} s)")
        if seed == 0:
            print(f"  {'kind':14s} {'events':>6s} {'years':>9s} {'truth':>8s} {'prior':>8s} "
                  f"{'posterior':>9s} {'error':>7s} {'90 % interval':>19s} covered")
            for r in rows:
                print(f"  {r['kind']:14s} {r['events']:6d} {r['years']:9.1f} {r['truth']:8.4f} "
                      f"{r['prior']:8.4f} {r['posterior']:9.4f} {r['error']:+7.1%} "
                      f"{r['low']:9.4f}..{r['high']:<8.4f} {'yes' if r['covered'] else 'NO'}")
    print("per kind over the seeds: covered / runs, mean events")
    for kind in dict.fromkeys(r["kind"] for r in allrows):
        rs = [r for r in allrows if r["kind"] == kind]
        print(f"  {kind:14s} {sum(r['covered'] for r in rs):3d}/{len(rs):<3d} "
              f"{sum(r['events'] for r in rs) / len(rs):8.1f}")
    big = [r for r in allrows if r["events"] >= 30]
    within = sum(abs(r["error"]) <= 0.20 for r in big)
    print(f"all seeds: {within}/{len(big)} kind-runs with >= 30 events within +-20 % "
          f"(worst {max(abs(r['error']) for r in big):.1%}); 90 % intervals covered the truth "
          f"in {sum(r['covered'] for r in allrows)}/{len(allrows)} "
          f"({sum(r['covered'] for r in allrows) / len(allrows):.0%})")


def scale_state(nodes: int, gen: int) -> State:
    comps = []
    for n in range(nodes):
        host = f"r{n // 16 + 1:04d}n{n % 16 + 1:02d}"
        rack = f"r{n // 16}"
        comps.append(Component("host", host, host, rack, host, {"driver": "580.105.08"}))
        for g in range(8):
            comps.append(Component("gpu", f"GPU-{n}-{g}-{gen}", host, rack, f"gpu module {g + 1}",
                                   {"serial": f"S{n}{g}{gen}", "vbios": "96.00.99.00.01"}))
            comps.append(Component("nic", f"0x{n:08x}{g:02x}{gen:02x}", host, rack, f"mlx5_{g}",
                                   {"guid": f"0x{n:08x}{g:02x}{gen:02x}"}))
            link = f"leaf{(n * 8 + g) // 64}/{(n * 8 + g) % 64 + 1}"
            comps.append(Component("link", link, host, rack, link, {"host": host, "hca": f"mlx5_{g}"}))
    return State(tuple(comps), frozenset(c.host for c in comps if c.host), True, f"gen {gen}")


def cmd_scale(args) -> None:
    db = args.db or f"sqlite:///{tempfile.mkdtemp()}/scale.db"
    print(f"database: {db.split('?')[0]}")
    t0 = time.perf_counter()
    st = scale_state(args.nodes, 0)
    print(f"state of {args.nodes:,} nodes: {len(st.components):,} parts "
          f"({time.perf_counter() - t0:.1f} s to build)")
    day = 86400
    with connect(db, write=True) as conn:
        t0 = time.perf_counter()
        r = record_state(conn, st, START)
    print(f"first snapshot: {sum(r.counts.values()):,} installs in {time.perf_counter() - t0:.1f} s")
    with connect(db) as conn:
        t0 = time.perf_counter()
        r = record_state(conn, st, START + day)
    print(f"same state again: unchanged={r.unchanged} in {time.perf_counter() - t0:.1f} s")
    total = args.nodes * 25
    for gen in range(1, args.generations + 1):
        st = scale_state(args.nodes, gen)
        with connect(db) as conn:
            t0 = time.perf_counter()
            r = record_state(conn, st, START + (gen + 1) * 30 * day)
        total += sum(r.counts.values())
        print(f"snapshot {gen + 1}: {dict(r.counts)} in {time.perf_counter() - t0:.1f} s "
              f"({total:,} change records in all)")
    mid = START + 45 * day
    for label, kw in (("one host", {"host": "r0001n01"}), ("one rack (16 hosts)", {"rack": "r7"}),
                      ("every GPU", {"kind": "gpu"})):
        times = []
        for _ in range(5):
            with connect(db) as conn:
                t0 = time.perf_counter()
                res = installed_at(conn, mid, **kw)
                times.append(time.perf_counter() - t0)
        print(f"at {iso(mid)}, {label}: {len(res.rows):,} parts, median "
              f"{sorted(times)[2] * 1000:.0f} ms of 5 (open + query + rows)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("rates")
    a.add_argument("--seeds", type=int, default=10)
    a.add_argument("--db", default=None)
    b = sub.add_parser("scale")
    b.add_argument("--nodes", type=int, default=10_000)
    b.add_argument("--generations", type=int, default=4)
    b.add_argument("--db", default=None)
    args = ap.parse_args()
    (cmd_rates if args.cmd == "rates" else cmd_scale)(args)


if __name__ == "__main__":
    main()
