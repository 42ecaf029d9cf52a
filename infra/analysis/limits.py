"""The sizes ``infra`` supports, checked once before any analysis (issue 18).

A design must have at least one GPU (every figure is per GPU or about GPUs), at most
:data:`~infra.models.base.MAX_GPUS` (10^8) GPUs and :data:`~infra.models.base.MAX_COUNT`
(10^12) racks: counts stay exact Python integers and every float figure stays finite far
beyond that, but no facility of that size exists (10^8 GPUs is ten times what the 10 GW
site bound powers), so a larger count is a typo (a pod multiplied once too often).
"""

from __future__ import annotations

from infra.analysis.compute import gpu_cpu_counts
from infra.errors import LOCATE, DesignError
from infra.models.base import MAX_COUNT, MAX_GPUS
from infra.models.resolve import ResolvedDesign


def check_design_size(rd: ResolvedDesign) -> int:
    """Return the design's GPU count; raise if it is 0 or over 10^8 (or its racks over 10^12).

    Examples
    --------
    >>> from infra.models.resolve import load_design
    >>> from infra.models.catalog import DEFAULT_CATALOG_DIR
    >>> check_design_size(load_design(DEFAULT_CATALOG_DIR.parent / "designs" / "gb200_nvl72.yaml"))
    72
    """
    build = ("build",)
    where = {"file": str(rd.file), "path": build, "line": LOCATE}
    racks = sum(rd.rack_counts.values())
    if racks > MAX_COUNT:
        raise DesignError(f"{racks:,} racks: beyond the {MAX_COUNT:,} this tool supports",
                          **where, hint="check the build and pod counts")
    gpus = sum(gpu_cpu_counts(rd)[0].values())
    if gpus == 0:
        raise DesignError("the design has no GPUs (no rack holds a compute tray with GPUs)",
                          **where, hint="add compute trays to a rack layout that is built")
    if gpus > MAX_GPUS:
        raise DesignError(f"{gpus:,} GPUs: beyond the {MAX_GPUS:,} this tool supports (ten "
                          "times what a 10 GW site powers)", **where,
                          hint="check the build and pod counts")
    return gpus
