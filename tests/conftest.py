"""Shared fixtures: the shipped catalog, design paths, and a CLI runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
DESIGNS = ROOT / "designs"
CATALOGS = ROOT / "catalogs"


@pytest.fixture(scope="session", autouse=True)
def _diagram_cache(tmp_path_factory):
    """Rendered diagrams and parsed catalogs are cached per test session, never in the
    user's ~/.cache."""
    import os

    os.environ["INFRA_DIAGRAM_CACHE"] = str(tmp_path_factory.mktemp("diagram-cache"))
    os.environ["INFRA_CATALOG_CACHE"] = str(tmp_path_factory.mktemp("catalog-cache"))


def write_hall(n: int, directory: Path) -> Path:
    """``directory/hall<n>.yaml``: the benchmark's hall of ``n`` distinct rack layouts
    (``benchmarks/bench_hetero.py``), for tests of many-layout designs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_hetero",
                                                  ROOT / "benchmarks" / "bench_hetero.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    f = Path(directory) / f"hall{n}.yaml"
    f.write_text(mod.hall(n))
    return f


@pytest.fixture(scope="session")
def catalog():
    from infra.models.catalog import load_catalog

    return load_catalog(CATALOGS)


@pytest.fixture()
def run_cli():
    """Run ``infra ARGS`` in-process; returns the click Result."""
    from infra.cli.main import cli

    def _run(*args: str):
        return CliRunner().invoke(cli, list(args), obj={})

    return _run


def _analysis(name: str):
    @pytest.fixture(scope="session")
    def fixture(catalog):
        from infra.analysis.summary import analyze_file

        return analyze_file(DESIGNS / f"{name}.yaml", catalog)

    return fixture


aws = _analysis("aws_nvl36x2")  # analysed shipped designs, shared by the test modules
nvl72 = _analysis("gb200_nvl72")
dgx = _analysis("dgx_h100_su")
