"""The terminal summary printed on a second core while reports are written (issue 17):
the same output as one after the other, and a failure in the printer is not lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import DESIGNS, ROOT

AWS = DESIGNS / "aws_nvl36x2.yaml"


def _infra(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "infra.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "COLUMNS": "100"})


def test_summary_beside_the_reports_is_the_summary_alone(tmp_path):
    both = _infra("design", str(AWS), "--report", "json", "-o", str(tmp_path))
    alone = _infra("design", str(AWS))  # no report: printed in process, nothing forked
    assert both.returncode == 0 and alone.returncode == 0, both.stderr + alone.stderr
    assert both.stdout == alone.stdout and "Blast radius" in both.stdout
    assert both.stderr.strip() == f"wrote {tmp_path / 'aws_nvl36x2.json'}"
    assert json.loads((tmp_path / "aws_nvl36x2.json").read_text())["metrics"]["gpus"] == 72


def test_a_failing_printer_fails_the_run_after_the_work(tmp_path):
    script = (
        "from infra.reports.beside import beside, SummaryWorkerError\n"
        "import pathlib\n"
        "def show():\n    raise ValueError('boom')\n"
        f"def work():\n    pathlib.Path({str(tmp_path / 'done')!r}).write_text('x')\n"
        "    return 7\n"
        "try:\n    beside(show, work)\nexcept SummaryWorkerError as e:\n    print('raised:', e)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "internal error while printing the summary: ValueError: boom" in r.stderr
    assert r.stdout.startswith("raised: the terminal summary could not be printed")
    assert (tmp_path / "done").read_text() == "x"  # the reports were still written


def test_without_a_real_stdout_it_runs_in_turn(capsys):
    from infra.reports.beside import beside

    order = []
    assert beside(lambda: order.append("show"), lambda: order.append("work") or 3) == 3
    assert order == ["show", "work"]
