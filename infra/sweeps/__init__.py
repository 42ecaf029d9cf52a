"""Scenario sweeps: a grid of inputs over a base design, run locally or on Dask.

Public API: :func:`sweep`, :func:`diff_designs`, :func:`diff_scenarios`,
:class:`SweepResult`, :func:`load_grid`.
"""

from infra.sweeps.grid import Grid, Scenario, load_grid, scenarios
from infra.sweeps.sweep import SweepResult, diff_designs, diff_scenarios, sweep

__all__ = ["Grid", "Scenario", "SweepResult", "diff_designs", "diff_scenarios", "load_grid",
           "scenarios", "sweep"]
