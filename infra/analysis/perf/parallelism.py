"""A training job's parallelism: the keys a user gives (``tp=8,pp=16,...``), their
parsing and the split the step model times (:mod:`infra.analysis.perf.training`)."""

from __future__ import annotations

from dataclasses import dataclass

RECOMPUTE = ("none", "selective", "full")
KEYS = ("tp", "pp", "dp", "cp", "ep", "mb", "vpp", "recompute", "fsdp", "rl", "epo")
FLAGS = {  # the 0/1 keys and what each means
    "fsdp": "fsdp=1 shards weights and gradients over data parallelism, fsdp=0 does not",
    "epo": "epo=1 overlaps the expert all-to-alls with another micro-batch's compute, "
           "epo=0 does not",
}


@dataclass(frozen=True)
class Parallelism:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    mb: int = 1  # micro-batch, sequences
    vpp: int = 1  # interleaved (virtual) stages per GPU
    recompute: str = "selective"
    fsdp: int = 0  # 1: weights and gradients sharded over data parallelism (ZeRO-3)
    rl: int = 0  # with full recompute: layers per stage recomputed whole (0: all)
    epo: int = 0  # 1: expert all-to-alls overlapped with another micro-batch's compute

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp * self.cp

    def text(self) -> str:
        out = ",".join(f"{k}={getattr(self, k)}" for k in KEYS if k not in ("rl", "epo"))
        out += f",rl={self.rl}" if self.recompute == "full" and self.rl else ""
        return out + (f",epo={self.epo}" if self.epo else "")


def parse_parallelism(text: str | None) -> dict:
    """``tp=8,pp=16,dp=64,recompute=full`` -> a dict of the keys given.

    Examples
    --------
    >>> parse_parallelism("tp=8, pp=16,recompute=full")
    {'tp': 8, 'pp': 16, 'recompute': 'full'}
    """
    from infra.errors import InfraError

    out: dict = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if key in out:
            raise InfraError(f"parallelism key {key!r} given twice", hint="give each key once")
        if key not in KEYS:
            raise InfraError(f"unknown parallelism key {key!r}",
                             hint=f"use {', '.join(KEYS)}, e.g. tp=8,pp=16,dp=64")
        if key in FLAGS:
            if value not in ("0", "1"):
                raise InfraError(f"{key}={value!r}", hint=FLAGS[key])
            out[key] = int(value)
            continue
        if key == "recompute":
            if value not in RECOMPUTE:
                raise InfraError(f"recompute={value!r}", hint=f"choose {', '.join(RECOMPUTE)}")
            out[key] = value
            continue
        if not value.isdigit() or not 1 <= int(value) <= 1_000_000:
            raise InfraError(f"{key}={value!r} is not a count", hint=f"e.g. {key}=8")
        out[key] = int(value)
    if out.get("fsdp") and out.get("pp", 1) > 1:
        raise InfraError("fsdp=1 with pp > 1: FSDP is modelled without pipeline stages",
                         hint="give pp=1 with fsdp=1, or fsdp=0")
    if "rl" in out and out.get("recompute", "full") != "full":
        raise InfraError(f"rl={out['rl']} (layers recomputed whole) needs recompute=full",
                         hint="give recompute=full,rl=N or leave rl out")
    return out


__all__ = ["KEYS", "RECOMPUTE", "Parallelism", "parse_parallelism"]
