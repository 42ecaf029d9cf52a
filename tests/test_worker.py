"""Report workers forked before the analysis (issue 17): the summary and the workbook
they write are those written in turn, and a failure in a worker is never lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import DESIGNS, ROOT

AWS = DESIGNS / "aws_nvl36x2.yaml"
HGX = DESIGNS / "hgx_b300_su.yaml"


def _infra(*args, env=None):
    return subprocess.run([sys.executable, "-m", "infra.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "COLUMNS": "100", **(env or {})})


def _py(script: str):
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT)


def test_summary_printed_by_a_worker_is_the_summary_alone(tmp_path):
    both = _infra("design", str(AWS), "--full", "--report", "json", "-o", str(tmp_path))
    from click.testing import CliRunner

    from infra.cli.main import cli

    # CliRunner captures stdout in memory: no worker can be forked, the summary prints here
    alone = CliRunner().invoke(cli, ["design", str(AWS), "--full"], env={"COLUMNS": "100"})
    assert both.returncode == 0 and alone.exit_code == 0, both.stderr + alone.output
    assert both.stdout == alone.output and "Blast radius" in both.stdout
    assert both.stderr.strip() == f"wrote {tmp_path / 'aws_nvl36x2.json'}"
    assert json.loads((tmp_path / "aws_nvl36x2.json").read_text())["metrics"]["gpus"] == 72


def test_workbooks_written_by_a_worker_are_those_written_in_turn(tmp_path):
    """Two designs through one workbook worker (pictures sent to it after the sheets) give
    the bytes the in-process writer gives; the files are listed in the order asked."""
    from infra.analysis.summary import analyze_file
    from infra.models.catalog import load_catalog
    from infra.reports.writer import write_reports

    r = _infra("design", str(AWS), str(HGX), "--report", "xlsx", "--report", "json",
               "-o", str(tmp_path / "cli"))
    assert r.returncode == 0, r.stderr
    wrote = [line.split()[-1] for line in r.stderr.splitlines() if line.startswith("wrote ")]
    assert [os.path.basename(p) for p in wrote] == [
        "aws_nvl36x2.xlsx", "aws_nvl36x2.json", "hgx_b300_su.xlsx", "hgx_b300_su.json"]
    cat = load_catalog()
    for f in (AWS, HGX):
        a = analyze_file(f, cat)
        write_reports(a.as_dict(), f.stem, ("xlsx",), tmp_path / "api", analysis=a)
        assert (tmp_path / "cli" / f"{f.stem}.xlsx").read_bytes() == \
            (tmp_path / "api" / f"{f.stem}.xlsx").read_bytes()


def test_a_job_that_fails_raises_in_the_parent_and_the_worker_goes_on():
    r = _py("from infra.reports import worker\n"
            "import operator\n"
            "w = worker.start()\n"
            "w.submit(operator.truediv, 1, 0)\n"
            "try:\n    w.result()\nexcept ZeroDivisionError as e:\n    print('raised', e)\n"
            "w.submit(operator.add, 2, 3)\n"
            "print('then', w.result())\n"
            "w.close()\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["raised division by zero", "then 5"]


def test_an_error_that_does_not_pickle_comes_back_as_its_text():
    r = _py("from infra.reports import worker\n"
            "class Odd(Exception):\n"
            "    def __init__(self, a, b):\n        super().__init__(a)\n"
            "def job():\n    raise Odd('strange', 2)\n"
            "import __main__; __main__.job = job\n"
            "w = worker.start()\n"
            "w.submit(job)\n"
            "try:\n    w.result()\nexcept worker.WorkerError as e:\n    print('raised', e)\n"
            "w.close()\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("raised Odd: strange (not sendable:")


def test_a_worker_that_dies_is_an_error_not_a_hang():
    r = _py("from infra.reports import worker\n"
            "import os\n"
            "w = worker.start()\n"
            "w.submit(os._exit, 3)\n"
            "try:\n    w.result()\nexcept worker.WorkerError as e:\n    print('raised', e)\n"
            "w.close()\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "raised a report worker died (EOFError)"


def test_a_failing_summary_fails_the_run_after_the_reports(tmp_path, monkeypatch):
    """A bug in the printer: exit 3 with the internal-error line, the reports still there."""
    r = _py("import sys\n"
            "import infra.reports.terminal as t\n"
            "def boom(view, **kw):\n    raise ValueError('boom')\n"
            "t.print_summary = boom\n"
            "from infra.cli.main import main\n"
            f"sys.argv = ['infra', 'design', {str(AWS)!r}, '--report', 'json', '-o', "
            f"{str(tmp_path)!r}]\n"
            "main()\n")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "internal error" in r.stderr and "ValueError: boom" in r.stderr
    assert (tmp_path / "aws_nvl36x2.json").exists()


def test_without_a_real_stdout_no_worker_is_forked(capsys):
    from infra.reports import worker

    assert not worker.can_fork() and worker.start() is None


def test_diagrams_are_the_same_whatever_the_hash_seed(tmp_path):
    """Legends list kinds by rank, then by name: never in a set's (hash-seeded) order, so
    a diagram, and the workbook picture it becomes, is the same in every process (with
    seeds 1 and 2 the HGX workbook's legends came out in two orders before)."""
    books = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        r = _infra("design", str(AWS), str(HGX), "--report", "xlsx", "-o", str(out), "-q",
                   env={"PYTHONHASHSEED": seed})
        assert r.returncode == 0, r.stderr
        books.append((out / "hgx_b300_su.xlsx").read_bytes())
    assert books[0] == books[1]


def test_ctrl_c_ends_the_workers_with_the_parent(tmp_path):
    """SIGINT reaches the whole process group: the workers end too, none is left behind
    running the parent's code."""
    import signal
    import time

    script = ("import sys, time\n"
              "from infra.reports import worker\n"
              "w = worker.start()\n"
              "print(w.pid, flush=True)\n"
              "time.sleep(30)\n")
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                         cwd=ROOT, start_new_session=True)
    child = int(p.stdout.readline())
    time.sleep(0.3)
    os.killpg(p.pid, signal.SIGINT)
    p.wait(timeout=10)
    assert p.returncode != 0
    for _ in range(50):  # the worker, an orphan now, is reaped by init once it exits
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        with open(f"/proc/{child}/stat") as f:
            assert f.read().split()[2] == "Z", "the worker is still running"


def test_workers_gone_before_their_job_the_run_does_it_itself(tmp_path):
    """Workers killed (say by the OOM killer) before they are sent anything: the summary
    prints and the workbook is written in the parent, exit 0."""
    r = _py("import os, signal, sys, time\n"
            "from infra.reports import worker\n"
            "start = worker.start\n"
            "def doomed(preload=None):\n"
            "    w = start(preload)\n"
            "    os.kill(w.pid, signal.SIGKILL)\n"
            "    time.sleep(0.2)\n"
            "    return w\n"
            "worker.start = doomed\n"
            "from infra.cli.main import main\n"
            f"sys.argv = ['infra', 'design', {str(AWS)!r}, '--full', '--report', 'xlsx', "
            f"'--report', 'json', '-o', {str(tmp_path)!r}]\n"
            "main()\n")
    assert r.returncode == 0, r.stderr
    assert "Blast radius" in r.stdout
    assert (tmp_path / "aws_nvl36x2.xlsx").stat().st_size > 10_000
    assert (tmp_path / "aws_nvl36x2.json").exists()
