"""Exports of a design to the systems that build and run the cluster.

Each target formats what the analyses computed and checks its output against the
format's documented rules before returning it (:class:`~infra.exports.common.Export`);
:func:`write_export` writes the files atomically. A design that cannot be exported to
a target raises :class:`~infra.exports.common.ExportError` (CLI exit code 2).

Examples
--------
>>> from infra.models.resolve import load_design
>>> ex = export_design(load_design("designs/gb200_nvl72.yaml"), "k8s")
>>> [f.path for f in ex.files]
['k8s/labels.json', 'k8s/label-nodes.sh']
"""

from __future__ import annotations

from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN
from infra.exports.common import Export, ExportError, ExportFile, write_export
from infra.models.resolve import ResolvedDesign

TARGETS = ("slurm", "nccl", "k8s", "netbox", "graphml", "cabling")


def export_design(rd: ResolvedDesign, to: str, pattern: str = DEFAULT_HOST_PATTERN,
                  scope: str = "fabric", geometry=None,
                  names: dict[str, str] | None = None) -> Export:
    """Export ``rd`` to target ``to`` (one of :data:`TARGETS`).

    Parameters
    ----------
    rd : ResolvedDesign
    to : str
        ``slurm`` | ``nccl`` | ``k8s`` | ``netbox`` | ``graphml`` | ``cabling``.
    pattern : str
        Host-name pattern (:mod:`infra.analysis.layout.identity`).
    scope : str
        GraphML scope (:mod:`infra.exports.graphml`).
    geometry : infra.analysis.layout.placement.Geometry, optional
        Floor geometry for cable lengths (``cabling``; default: the stated one).
    names : dict, optional
        The site's host names by node path (``su0/r3/t1`` -> ``a01-p1-dgx-01-c01``), e.g.
        :func:`infra.ingest.site_names.site_names` of a ``--host-map``; the nodes it does
        not name keep the pattern's (``slurm``, ``k8s``, ``netbox``, ``cabling``).
    """
    if to == "slurm":
        from infra.exports.slurm import slurm_export

        return slurm_export(rd, pattern, names)
    if to == "k8s":
        from infra.exports.k8s import k8s_export

        return k8s_export(rd, pattern, names)
    if to == "graphml":
        from infra.exports.graphml import graphml_export

        return graphml_export(rd, scope)
    if to == "nccl":
        from infra.exports.nccl import nccl_export

        return nccl_export(rd)
    if to == "cabling":
        from infra.exports.cabling import cabling_export

        return cabling_export(rd, pattern, geometry, names)
    if to == "netbox":
        from infra.exports.netbox import netbox_export

        return netbox_export(rd, pattern, names)
    raise ExportError(f"unknown export target {to!r}", hint=f"use one of {', '.join(TARGETS)}")


__all__ = ["TARGETS", "Export", "ExportError", "ExportFile", "export_design", "write_export"]
