"""Release check: >= 10,000 malformed inputs, classified (issue 18).

Each case (``tests/fuzzing.py``: mutated designs, catalog parts, rates, prices, raw
bytes, command-line arguments; ``tests/fuzz_surfaces.py``: inventory dumps, sweep grids,
export options and design names, price files through ``--prices``, ``infra new``) runs in a forked child of a warm parent, with a CPU-time
limit (``--timeout``, RLIMIT_CPU: the work a case does, whatever the machine's load),
a wall-clock backstop for cases that block without working (``--wall-timeout``, e.g. a
read from a FIFO; SIGKILL) and a memory cap (RLIMIT_AS; a MemoryError counts as ``e``
too). All three are class ``e``. Prints the class counts per family, the CPU seconds of
the slowest cases, and the cases that are not ``a`` or ``n``.

Usage::

    nice -n 19 python benchmarks/fuzz_run.py --cases 10000 --surface-cases 3000 \
        --workers 2 --json out.json

Cases are split evenly over the families (class ``s``: a security finding); ``--max-minutes`` stops early (the counts say
how many ran) and ``--skip N`` resumes such a run after its first N cases.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import fuzzing  # noqa: E402

CLASSES = "abcdefns"


def _child(case, work: Path, cat: Path, fd: int, mem_bytes: int, cpu_s: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    cpu = max(1, round(cpu_s))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL
    try:
        o = fuzzing.run_case(case, work, cat)
        res = {"klass": o.klass, "exit": o.exit_code, "message": o.message}
        if o.klass == "c" and "MemoryError" in o.message:
            res["klass"] = "e"
    except MemoryError:
        res = {"klass": "e", "exit": None, "message": "MemoryError"}
    except BaseException as exc:  # noqa: BLE001 - the harness must report, not die
        res = {"klass": "c", "exit": None, "message": f"harness: {type(exc).__name__}: {exc}"}
    os.write(fd, json.dumps(res).encode()[:60000])
    os._exit(0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=10_000,
                    help="cases over the design, part, rates, prices, bytes and cli families")
    ap.add_argument("--surface-cases", type=int, default=3_000,
                    help="cases over inventory, sweep, export, pricefile and new (issue 31)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=10.0, help="CPU seconds per case")
    ap.add_argument("--wall-timeout", type=float, default=120.0,
                    help="wall seconds per case (a case blocked without using CPU)")
    ap.add_argument("--mem-gb", type=float, default=3.0)
    ap.add_argument("--mix", type=float, default=None,
                    help="classic cases run per surface case (default: --cases / "
                         "--surface-cases, so a run stopped early has covered both in "
                         "proportion)")
    ap.add_argument("--max-minutes", type=float, default=600.0)
    ap.add_argument("--skip", type=int, default=0,
                    help="skip the first N cases (resume a run stopped by --max-minutes)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    from click.testing import CliRunner  # warm the parent: children fork from it

    from infra.cli.main import cli
    from infra.models.catalog import load_catalog

    load_catalog()
    CliRunner().invoke(cli, ["validate", str(fuzzing.SMALL[0])], obj={})
    import infra.analysis.reliability.failure_review  # noqa: F401
    import infra.reports.writer  # noqa: F401

    base = Path(tempfile.mkdtemp(prefix="fuzz-run-"))
    os.environ["INFRA_CATALOG_CACHE"] = str(base / "catalog-cache")  # never the user's
    os.environ["XDG_CACHE_HOME"] = str(base / "xdg-cache")
    cats = [fuzzing.catalog_copy(base / f"cat{i}") for i in range(args.workers)]
    per = -(-args.cases // len(fuzzing.FAMILIES))
    classic = [(f, s) for s in range(per) for f in fuzzing.FAMILIES][: args.cases]
    per_s = -(-args.surface_cases // len(fuzzing.SURFACE_FAMILIES))
    surface = [(f, s) for s in range(per_s)
               for f in fuzzing.SURFACE_FAMILIES][: args.surface_cases]
    # interleaved (one surface case after every few classic ones), so a run stopped by
    # --max-minutes has covered both in proportion
    step = max(1, round(args.mix) if args.mix else len(classic) // max(1, len(surface)))
    queue: list[tuple[str, int]] = []
    for i in range(max(len(classic), len(surface) * step)):
        if i < len(classic):
            queue.append(classic[i])
        if i % step == step - 1 and i // step < len(surface):
            queue.append(surface[i // step])
    queue = queue[args.skip:]
    counts: Counter = Counter()
    cpu_times: list[tuple] = []
    bad: list[dict] = []
    running: dict[int, tuple] = {}
    free = list(range(args.workers))
    t0 = time.time()
    deadline = t0 + args.max_minutes * 60
    done = 0
    while queue or running:
        while queue and free and time.time() < deadline:
            fam, seed = queue.pop(0)
            case = fuzzing.make_case(fam, seed)
            slot = free.pop()
            work = Path(tempfile.mkdtemp(dir=base))
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                os.setpgid(0, 0)
                _child(case, work, cats[slot], w, int(args.mem_gb * 2**30), args.timeout)
            os.close(w)
            running[pid] = (fam, seed, case, slot, r, time.time(), work)
        if not running:
            break
        time.sleep(0.005)
        for pid, (fam, seed, case, slot, r, started, work) in list(running.items()):
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
            timed_out = wpid == 0 and time.time() - started > args.wall_timeout
            if wpid == 0 and not timed_out:
                continue
            if timed_out:
                os.killpg(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                res = {"klass": "e", "exit": None,
                       "message": f"over {args.wall_timeout:g} s wall"}
            elif os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU,
                                                                    signal.SIGKILL):
                res = {"klass": "e", "exit": None, "message": f"over {args.timeout:g} s CPU"}
            else:
                raw = b""
                while chunk := os.read(r, 65536):
                    raw += chunk
                res = json.loads(raw) if raw else {"klass": "c", "exit": status,
                                                   "message": "child died"}
            os.close(r)
            cpu_times.append((usage.ru_utime + usage.ru_stime, fam, seed, case.op))
            if case.catalog_file:  # a killed child cannot restore its part file
                (cats[slot] / case.catalog_file).write_bytes(
                    (fuzzing.CATALOG / case.catalog_file).read_bytes())
            del running[pid]
            shutil.rmtree(work, ignore_errors=True)  # /tmp stays small over 13,000 cases
            free.append(slot)
            done += 1
            counts[(fam, res["klass"])] += 1
            if res["klass"] not in "an":
                bad.append({"family": fam, "seed": seed, "op": case.op, "args": case.args,
                            **res})
            if done % 100 == 0:
                print(f"{done} cases, {time.time() - t0:.0f} s, load {os.getloadavg()[0]:.1f}, "
                      + " ".join(f"{k}:{sum(n for (f, kk), n in counts.items() if kk == k)}"
                                 for k in CLASSES), file=sys.stderr, flush=True)
        if time.time() >= deadline:
            queue.clear()
    elapsed = time.time() - t0
    _print(counts, done, elapsed, bad)
    cpu_times.sort(reverse=True)
    total_cpu = sum(c[0] for c in cpu_times)
    print(f"CPU per case: mean {total_cpu / max(done, 1):.3f} s, slowest:")
    for c, fam, seed, op in cpu_times[:10]:
        print(f"  {c:6.2f} s  {fam}#{seed} {op}")
    if args.json:
        args.json.write_text(json.dumps({
            "cases": done, "seconds": round(elapsed, 1), "cpu_seconds": round(total_cpu, 1),
            "load_average": os.getloadavg(),
            "slowest_cpu": [[round(c, 2), f, s, o] for c, f, s, o in cpu_times[:20]],
            "counts": {f"{f}:{k}": n for (f, k), n in sorted(counts.items())},
            "not_a_or_n": bad}, indent=1))


def _print(counts: Counter, done: int, elapsed: float, bad: list[dict]) -> None:
    print(f"{done:,} cases in {elapsed:.0f} s")
    print("| family | " + " | ".join(CLASSES) + " | total |")
    print("|---|" + "---:|" * (len(CLASSES) + 1))
    for fam in fuzzing.FAMILIES + fuzzing.SURFACE_FAMILIES + ("all",):
        row = [sum(n for (f, k), n in counts.items() if k == c and fam in (f, "all"))
               for c in CLASSES]
        print(f"| {fam} | " + " | ".join(f"{n:,}" for n in row) + f" | {sum(row):,} |")
    for b in bad[:40]:
        print(f"{b['klass']} {b['family']}#{b['seed']} {b['op']}: {b['message'][:200]!r}")


if __name__ == "__main__":
    main()
