"""Diagrams of a design analysis, one module per diagram, built as DOT text.

Builders return :class:`Diagram` objects (a file name and DOT source) and never render;
:mod:`infra.reports.diagrams.render` turns them into SVG/PNG. Figures come from the
analysis (:class:`infra.analysis.summary.DesignAnalysis`); styles from :mod:`.style`;
:class:`Diagram` and the name helpers from :mod:`.base`, which the builders import (not
this package, which imports them).
"""

from __future__ import annotations

from infra.reports.diagrams.base import Diagram


def build_diagrams(analysis, data: dict, highlight: str | None = None,
                   elevation_pages: int | None = None) -> tuple[list[Diagram], list[str]]:
    """Every diagram of ``analysis``; returns (diagrams, notes on what was not drawn).

    ``elevation_pages``: draw only that many rack elevation pages (the others are named,
    with empty ``source``): a workbook embeds at most the first.
    """
    import graphviz  # noqa: F401  (fail here, not half-way, if the package is missing)

    from infra.reports.diagrams import elevation, fabric, failure, scaleup, tray

    diagrams: list[Diagram] = []
    notes: list[str] = []
    diagrams += elevation.rack_elevation_diagrams(analysis, build=elevation_pages)
    diagrams += scaleup.domain_diagrams(analysis)
    diagrams += tray.tray_diagrams(analysis)
    diagrams += fabric.fabric_diagrams(analysis)  # none when the design has no fabric
    diagrams.append(failure.failure_diagram(analysis, highlight))
    return diagrams, notes
