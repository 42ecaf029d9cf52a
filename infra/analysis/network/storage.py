"""Storage the design's nodes reach: GB/s per GPU, per job size, and checkpoint times.

Bounds, per direction, GB/s (10^9 bytes/s):

- GPU side: a node's NIC ports whose tray ``network:`` tag is one of the storage's
  ``networks``, x port rate / 8, shared by the node's GPUs (the tray type with the least
  per GPU binds). When the storage attaches to a design fabric, that fabric's per-GPU
  bandwidth above every tier bounds it too (the path may cross the top tier).
- Storage side: units x read (or write) throughput, and units x ports x rate / 8 where
  the units' ports are stated.

A job of ``N`` GPUs alone on the storage moves ``min(N x GPU side, storage side)``; its
checkpoint of ``B`` bytes takes ``B / that`` seconds (:func:`checkpoint_seconds`), the
figure the training model uses for a checkpoint write and, reading, a restart's load
(``infra train``; ``infra failures``, which knows no model size, keeps the rate table's
assumed times). Metadata, small-file and protocol overheads are not modelled: a lower
bound on the time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from infra.errors import LOCATE, TopologyError
from infra.models.resolve import ResolvedDesign

if TYPE_CHECKING:
    from infra.analysis.network.fabric import FabricResult

GB = 1e9


@dataclass(frozen=True)
class StorageResult:
    """One storage entry of a design, resolved (see the module's bounds)."""

    name: str
    slug: str
    units: int
    networks: tuple[str, ...]
    fabric: str | None
    gpus: int  # GPUs whose nodes reach the storage
    gpu_side_gbyte_s: float  # per GPU: its share of the node's storage NICs (and fabric)
    gpu_side_basis: str  # what binds the GPU side
    read_gbyte_s: float  # whole storage, after its ports
    write_gbyte_s: float
    peak_gbyte_s: float | None  # published burst, whole storage (not used in the bounds)

    def job_gbyte_s(self, gpus: int, write: bool = False) -> float:
        """GB/s a job of ``gpus`` GPUs moves to (``write``) or from the storage, alone on it."""
        _check_gpus(self, gpus)
        side = self.write_gbyte_s if write else self.read_gbyte_s
        return min(gpus * self.gpu_side_gbyte_s, side)

    def per_gpu_gbyte_s(self, gpus: int, write: bool = False) -> float:
        """GB/s per GPU for a job of ``gpus`` GPUs."""
        return self.job_gbyte_s(gpus, write) / gpus

    def binds(self, gpus: int, write: bool = False) -> str:
        """What bounds a job of ``gpus`` GPUs: the GPU side's basis, or the storage."""
        side = self.write_gbyte_s if write else self.read_gbyte_s
        if gpus * self.gpu_side_gbyte_s < side:
            return self.gpu_side_basis
        return f"storage ({side:,.0f} GB/s)"


def _check_gpus(s: StorageResult, gpus: int) -> None:
    if gpus < 1 or gpus > s.gpus:
        raise TopologyError(f"a job of {gpus:,} GPUs on storage {s.name!r}: between 1 and {s.gpus:,} "
                            "GPUs reach it", hint=f"give a job size between 1 and {s.gpus:,}")


def checkpoint_seconds(storage: StorageResult, total_bytes: float, gpus: int,
                       write: bool = True) -> float:
    """Seconds to write (or, ``write=False``, read back) a checkpoint of ``total_bytes``
    from ``gpus`` GPUs at the storage's bound (:meth:`StorageResult.job_gbyte_s`).

    Examples
    --------
    Llama 3 on Meta's Tectonic: 16,384 GPUs x 4 GB (the largest per-GPU state Meta gives)
    at the 2 TB/s sustained figure:

    >>> from infra.models.resolve import load_design
    >>> s = design_storage(load_design("designs/meta_h100_24k.yaml"))[0]
    >>> round(checkpoint_seconds(s, 16_384 * 4e9, 16_384), 2)
    32.77
    """
    if total_bytes < 0:
        raise ValueError("checkpoint bytes must be >= 0")
    return total_bytes / (storage.job_gbyte_s(gpus, write) * GB)


def design_storage(rd: ResolvedDesign, fabrics: list[FabricResult] | None = None) -> list[StorageResult]:
    """Every storage entry of ``rd`` resolved (cached on the design)."""
    if "_storage" not in rd.__dict__:
        if fabrics is None and any(s.fabric for s in rd.design.storage.values()):
            from infra.analysis.network.fabric import design_fabrics

            fabrics = design_fabrics(rd)
        by_name = {f.name: f for f in fabrics or []}
        rd.__dict__["_storage"] = [_resolve(rd, n, s, by_name) for n, s in rd.design.storage.items()]
    return rd.__dict__["_storage"]


def _resolve(rd: ResolvedDesign, name: str, spec, fabrics: dict) -> StorageResult:
    path = ("storage", name)

    def err(msg: str, sub: tuple = (), hint: str | None = None) -> TopologyError:
        p = path + sub
        return TopologyError(msg, file=str(rd.file), path=p, line=LOCATE, hint=hint)

    part = rd.part(spec.type, "storage_system", path=path + ("type",))
    per_gpu, basis, gpus = None, "", 0
    for slug, n in rd.tray_counts().items():
        lay = rd.tray_layout(slug)
        g = lay.count("gpu")
        gbit = sum(p.gbit_s for i in lay.of_kind("nic") if i.component.network in spec.networks
                   for p in i.part.ports)  # type: ignore[attr-defined]
        if not g or not gbit:
            continue
        gpus += n * g
        v = gbit / 8 / g
        if per_gpu is None or v < per_gpu:
            per_gpu, basis = v, f"{'/'.join(spec.networks)} NICs, {gbit:g} Gb/s per {g} GPUs"
    if per_gpu is None:
        raise err(f"no tray with GPUs has a NIC on networks {list(spec.networks)}", ("networks",),
                  hint="check the trays' components 'network:' tags (front_end, scale_out, ...)")
    if spec.fabric:
        f = fabrics.get(spec.fabric)
        if f is None:
            raise err(f"fabric {spec.fabric!r} is not a fabric of this design", ("fabric",),
                      hint=f"fabrics: {sorted(fabrics)}")
        if not set(spec.networks) & set(f.spec.networks):
            raise err(f"fabric {spec.fabric!r} carries networks {list(f.spec.networks)}, the storage's "
                      f"traffic is on {list(spec.networks)}", ("networks",))
        worst = min(v for k, v in f.per_gpu_gbit_s.items() if k != "all_to_all_bound") / 8
        if worst < per_gpu:
            per_gpu, basis = worst, f"fabric {f.name}, {worst * 8:g} Gb/s per GPU"
    read, write = spec.count * part.read_gbyte_s, spec.count * part.write_gbyte_s  # type: ignore[attr-defined]
    ports = part.port_gbyte_s  # type: ignore[attr-defined]
    if ports is not None:
        read, write = min(read, spec.count * ports), min(write, spec.count * ports)
    peak = part.peak_gbyte_s  # type: ignore[attr-defined]
    return StorageResult(name, part.slug, spec.count, tuple(spec.networks), spec.fabric, gpus,
                         per_gpu, basis, read, write, None if peak is None else spec.count * peak)


def job_sizes(gpus: int, gpus_per_node: int = 8) -> list[int]:
    """Job sizes a storage table shows: one node, then x8 steps, and every GPU.

    >>> job_sizes(24_576)
    [8, 64, 512, 4096, 24576]
    """
    out, n = [], max(1, gpus_per_node)
    while n < gpus:
        out.append(n)
        n *= 8
    return out + [gpus]


def storage_rows(storage: list[StorageResult]) -> list[dict]:
    """The ``storage`` report table: per storage entry and job size, read and write GB/s
    (job and per GPU), what binds, and the seconds a checkpoint of 1 GB per GPU takes to write."""
    rows = []
    for s in storage:
        for n in job_sizes(s.gpus):
            r, w = s.job_gbyte_s(n), s.job_gbyte_s(n, write=True)
            rows.append({"storage": s.name, "type": s.slug, "units": s.units,
                         "fabric": s.fabric or "not modelled", "gpus": n,
                         "read_gbyte_s": round(r, 3), "write_gbyte_s": round(w, 3),
                         "read_gbyte_s_per_gpu": round(r / n, 4),
                         "write_gbyte_s_per_gpu": round(w / n, 4),
                         "write_binds": s.binds(n, write=True),
                         "checkpoint_write_per_gpu_gigabyte_seconds": round(n / w, 4)})
    return rows


__all__ = ["StorageResult", "checkpoint_seconds", "design_storage", "job_sizes", "storage_rows"]
