"""Step time of training a model on a design: memory, compute, exposed communication,
pipeline bubble, and the parallelism that makes it fastest.

For a parallelism ``tp x cp x pp x dp`` (x ``ep`` inside data parallelism for MoE), a
micro-batch, a recompute policy and ``v`` interleaved stages (Megatron's rank order:
tensor fastest, then context, data, pipeline):

- **Memory per GPU** = weights + gradients (bytes per parameter of the framework) of the
  GPU's share of the parameters + the optimizer state sharded over data parallelism +
  activations (Korthikanti et al.: ``34 s b h / t`` per layer with selective recompute,
  ``+ 5 a s / h`` without, ``2 s b h / t`` with full recompute; the first pipeline stage
  holds ``min(m, pp)`` micro-batches, ``x (1 + (pp-1)/(pp v))`` interleaved) + FP32
  logits; it must fit the GPU's HBM x the framework's usable share.
- **Compute** = FLOPs per GPU at the GPU's measured achievable matmul rate (MAMF; FP8
  matmuls at MAMF x FP8/BF16 peak), recomputed forward passes included.
- **Exposed communication**, each call timed by :mod:`infra.analysis.perf.collectives`
  on the placement it has: TP (per layer and micro-batch 4 all-reduce-equivalents of
  ``b s h`` BF16, 6 with full recompute), CP (all-gather of K and V forward,
  reduce-scatter backward), EP (4 all-to-alls of the routed tokens per MoE layer), PP
  (activations and gradients between stages), DP (FP32 gradient reduce-scatter and BF16
  parameter all-gather per step), each times ``1 - overlap`` from the framework entry.
- **The busiest pipeline stage** sets the pace: whole layers per stage, the output head
  (BF16 in an FP8 run unless the framework says otherwise), its loss and the MTP layers
  on the last stage (:func:`stage_split`); MoE layers add the framework's MoE overhead,
  a share of their time at BF16 (shown as ``moe_overhead_s``).
- **Bubble** = ``(pp - 1) / (m v)`` x the busiest stage's compute (interleaved 1F1B).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from infra.analysis.perf.collectives import predict
from infra.analysis.perf.inputs import DesignTiers, Placement
from infra.analysis.perf.model_flops import ModelFigures
from infra.analysis.perf.parallelism import KEYS, RECOMPUTE, Parallelism, parse_parallelism
from infra.models.ml_parts import ModelArch, TrainingFramework


@dataclass(frozen=True)
class Chip:
    """The per-GPU figures the step model needs (from the catalog, once)."""

    # HBM in 10^9 bytes (Gpu.hbm_gbyte: the vendor's "80 GB" is 80 GiB, 85.9e9 bytes),
    # the unit every byte count here is in; the framework's hbm_usable_fraction of it
    hbm_gb: float
    peak_bf16_tflops: float
    achievable_bf16_tflops: float
    fp8_speedup: float  # FP8 / BF16 dense peak (0: no FP8)
    hbm_tbyte_s: float = 0.0  # HBM bandwidth (0: memory-bound kernels not timed)


@dataclass(frozen=True)
class Step:
    parallelism: Parallelism
    micro_batches: int
    memory_gb: float
    memory: dict
    step_time_s: float
    breakdown: dict
    model_flops_per_gpu: float

    def as_dict(self) -> dict:
        d = asdict(self)
        d["parallelism"] = self.parallelism.text()
        return d


def memory_per_gpu(arch: ModelArch, fig: ModelFigures, fw: TrainingFramework, p: Parallelism,
                   m: int, stage_layers: int | None = None) -> dict[str, float]:
    """Bytes per GPU by kind (weights and gradients, optimizer, activations, logits)."""
    moe_layers = arch.layers - arch.moe.dense_layers if arch.moe else 0
    routed = moe_layers * (arch.moe.experts * fig.expert_params) if arch.moe else 0.0
    dense = fig.params - routed
    shard = p.tp * p.pp
    per_dense, per_expert = dense / shard, routed / (p.pp * p.ep)
    # expert data parallelism: the stage's tp x dp x cp ranks over the ep holding each
    # expert (expert tensor parallelism 1, Megatron's MoE parallel folding)
    shard_d, shard_e = p.dp * p.cp, max(1, p.tp * p.dp * p.cp // p.ep)
    if p.fsdp:  # sharded, plus two layers gathered whole (the one computing, the next)
        gathered = 2 * max(fig.dense_layer_params, fig.moe_layer_params / p.ep) / p.tp
        weights = ((per_dense / shard_d + per_expert / shard_e + gathered)
                   * fw.weight_bytes_per_param)
        grads = (per_dense / shard_d + per_expert / shard_e + gathered) * fw.grad_bytes_per_param
    else:
        weights = (per_dense + per_expert) * fw.weight_bytes_per_param
        grads = (per_dense / (shard_d if fw.grads_sharded else 1)
                 + per_expert / (shard_e if fw.grads_sharded else 1)) * fw.grad_bytes_per_param
    states = weights + grads
    optim = (per_dense / shard_d + per_expert / shard_e) * fw.optimizer_bytes_per_param
    s = fig.sequence_length / p.cp
    h = arch.hidden_size
    layers = stage_layers or math.ceil(arch.layers / p.pp)  # the rank holding the most
    sel, full = fw.activation_bytes_selective, fw.activation_bytes_full_recompute
    if p.recompute == "none":
        kept = layers * (sel + fw.activation_bytes_attention * arch.heads * s / h)
    elif p.recompute == "selective":
        kept = layers * sel
    else:  # full recompute of rl layers (all when 0), selective for the rest
        rl = min(p.rl or layers, layers)
        kept = rl * full + (layers - rl) * sel
    inflight = min(m, p.pp) * (1 + (p.pp - 1) / (p.pp * p.vpp) if p.vpp > 1 else 1)
    logits = 4 * s * p.mb * arch.vocab_size / p.tp
    return {"weights_and_grads": states, "optimizer": optim,
            "activations": kept * s * p.mb * h / p.tp * inflight, "logits": logits}


def recompute_layers(arch: ModelArch, fig: ModelFigures, fw: TrainingFramework,
                     p: Parallelism, m: int, usable_bytes: float,
                     stage_layers: int | None = None) -> int:
    """Fewest layers per stage to recompute whole (Megatron's ``--recompute-num-layers``)
    so the split fits ``usable_bytes``; all of the stage's layers when none suffice."""
    layers = stage_layers or math.ceil(arch.layers / p.pp)
    whole = memory_per_gpu(arch, fig, fw, replace(p, rl=layers), m, layers)
    per_layer = (memory_per_gpu(arch, fig, fw, replace(p, rl=0, recompute="selective"), m,
                                layers)["activations"] - whole["activations"]) / layers
    over = sum(memory_per_gpu(arch, fig, fw, replace(p, recompute="selective"), m,
                              layers).values()) - usable_bytes
    if per_layer <= 0 or over <= 0:
        return 1
    return max(1, min(layers, math.ceil(over / per_layer)))


def memory_bound_bytes(arch: ModelArch, fw: TrainingFramework, precision: str,
                       part: str = "all") -> float:
    """HBM bytes per token of the memory-bound kernels: ``part`` "layers" (the
    transformer layers), "extra" (the loss of each output head and the MTP layers, all on
    the last pipeline stage), "mtp" (the MTP layers alone) or "all"."""
    h = arch.hidden_size
    bh = fw.memory_bound_bytes_per_token_hidden + (
        fw.fp8_cast_bytes_per_token_hidden if precision == "fp8" else 0.0)
    bf = fw.memory_bound_bytes_per_token_ffn + (
        fw.fp8_cast_bytes_per_token_ffn if precision == "fp8" else 0.0)
    if arch.moe is None:
        ffn, last_ffn = arch.layers * arch.ffn_size, arch.ffn_size
    else:
        e = arch.moe
        last_ffn = (e.active_experts + e.shared_experts) * e.expert_ffn_size
        ffn = e.dense_layers * arch.ffn_size + (arch.layers - e.dense_layers) * last_ffn
    layers = arch.layers * bh * h + bf * ffn
    mtp = arch.mtp_depth * (bh * h + bf * last_ffn)
    extra = mtp + (1 + arch.mtp_depth) * fw.loss_bytes_per_vocab * arch.vocab_size
    return {"layers": layers, "extra": extra, "mtp": mtp, "all": layers + extra}[part]


def stage_split(layers: int, pp: int, layer_s: float, last_s: float, layout: str = "auto",
                vpp: int = 1) -> tuple[float, int]:
    """(work of the busiest pipeline rank, most layers any rank holds) for ``layers`` whole
    layers of ``layer_s`` each and ``last_s`` more on the last rank (output head, loss,
    MTP). ``even``: ``layers / pp`` a rank (Megatron's default split, which needs the
    layers to divide ``pp x vpp``), the last rank's extra on top; ``balanced``: the split
    of whole layers that makes the busiest rank lightest, the last rank taking fewer
    (Megatron's ``--pipeline-model-parallel-layout``); ``auto``: even where the layers
    divide ``pp x vpp``, balanced where a layout must be given anyway.

    Examples
    --------
    >>> stage_split(96, 8, 1.0, 0.35)          # 12 layers a rank, the head on the last
    (12.35, 12)
    >>> stage_split(96, 8, 1.0, 1.5, "balanced")  # 13 on seven ranks, 5 + 1.5 on the last
    (13.0, 13)
    """
    if pp <= 1:
        return layers * layer_s + last_s, layers
    if layout == "auto":
        layout = "even" if layers % (pp * vpp) == 0 else "balanced"
    k0 = math.ceil(layers / pp)
    if layout == "even":
        rest = max(0, layers - (pp - 1) * k0)
        return max(k0 * layer_s, rest * layer_s + last_s), k0
    best, most = math.inf, k0
    for last in range(0, k0 + 1):  # layers on the last rank; the others share the rest
        k = math.ceil((layers - last) / (pp - 1))
        work = max(k * layer_s, last * layer_s + last_s)
        if work < best - 1e-12 or (work <= best + 1e-12 and max(k, last) < most):
            best, most = min(best, work), max(k, last)
    return best, most


def _placement(gpus: int, ppn: int, job: Placement) -> Placement:
    ppn = max(1, min(ppn, gpus))
    nodes = math.ceil(gpus / ppn)
    if nodes == 1:
        return Placement(gpus, ppn, 1, 1, 0, "none", 1.0)
    return Placement(gpus, ppn, nodes, job.fabric_nodes, job.leaves, job.top_tier,
                     job.oversubscription)


def _call(t: DesignTiers, op: str, pl: Placement, size: float) -> float:
    if pl.gpus <= 1 or size <= 0:
        return 0.0
    return predict(t, op, pl, max(1, int(size))).time_s


def step(t: DesignTiers, arch: ModelArch, fig: ModelFigures, fw: TrainingFramework, chip: Chip,
         p: Parallelism, batch_tokens: int, precision: str, job: Placement,
         skip_above: float = math.inf) -> Step:
    """Memory and step time of one parallelism (see the module's rules).

    A split that does not fit HBM, or whose compute and bubble alone take ``skip_above``
    seconds or more (the chooser's best so far), comes back with an infinite step time
    and its communication never timed: the chooser cannot pick it either way."""
    seqs = max(1, batch_tokens // fig.sequence_length)
    m = max(1, seqs // (p.dp * p.mb))
    tokens = m * p.mb * p.dp * fig.sequence_length  # tokens per step as run
    n = p.gpus
    share = tokens / n  # tokens per GPU were the work spread evenly
    matmul = share * fig.matmul_flops_per_token
    attn = share * fig.attention_flops_per_token
    rate = chip.achievable_bf16_tflops * 1e12 * fw.compute_efficiency_fraction
    mrate = rate * (chip.fp8_speedup if precision == "fp8" and chip.fp8_speedup else 1.0)
    hrate = mrate if fw.fp8_output_layer else rate  # the output head's GEMMs
    membw = chip.hbm_tbyte_s * 1e12 * fw.memory_bound_efficiency_fraction
    per_byte = share / membw if membw else 0.0  # seconds per byte moved for each token
    bytes_layers = memory_bound_bytes(arch, fw, precision, "layers")
    bytes_extra = memory_bound_bytes(arch, fw, precision, "extra")
    head, mtp = share * fig.head_flops_per_token, share * fig.mtp_flops_per_token
    mtp_attn = share * fig.mtp_attention_flops_per_token
    # the transformer layers' work, and what only the last pipeline stage carries. An MoE
    # layer (and an MTP one of an MoE model) adds the framework's MoE overhead: a share of
    # the layer's time at BF16 (routing, permutation, small grouped GEMMs, launches and
    # synchronisation do not speed up with FP8 GEMMs)
    moe = (arch.layers - arch.moe.dense_layers) / arch.layers if arch.moe else 0.0
    extra = fw.moe_overhead_fraction if arch.moe else 0.0
    layers_raw = ((matmul - head - mtp) / mrate + (attn - mtp_attn) / rate
                  + per_byte * bytes_layers)
    mtp_bytes = memory_bound_bytes(arch, fw, precision, "mtp")
    mtp_raw = mtp / mrate + mtp_attn / rate + per_byte * mtp_bytes
    layers_bf16 = ((matmul - head - mtp + attn - mtp_attn) / rate
                   + per_byte * memory_bound_bytes(arch, fw, "bf16", "layers"))
    mtp_bf16 = (mtp + mtp_attn) / rate + per_byte * memory_bound_bytes(arch, fw, "bf16", "mtp")
    layers_s = layers_raw + extra * moe * layers_bf16
    last_s = head / hrate + per_byte * (bytes_extra - mtp_bytes) + mtp_raw + extra * mtp_bf16
    moe_overhead = extra * (moe * layers_bf16 + mtp_bf16)
    elementwise = per_byte * (bytes_layers + bytes_extra)
    compute = layers_s + last_s
    # whole layers per pipeline rank, the head, loss and MTP on the last (the layout)
    layout = fw.pipeline_layout
    _, stage_layers = stage_split(arch.layers, p.pp, layers_s * p.pp / arch.layers,
                                  last_s * p.pp, layout, p.vpp)
    if p.recompute == "full" and p.rl:  # at most the layers the busiest rank holds
        p = replace(p, rl=min(p.rl, stage_layers))
    elif p.recompute == "full":
        p = replace(p, rl=recompute_layers(arch, fig, fw, p, m, usable_gb(chip, fw) * 1e9,
                                           stage_layers))
    mem = memory_per_gpu(arch, fig, fw, p, m, stage_layers)
    whole = min(1.0, p.rl / stage_layers) if p.recompute == "full" else 0.0
    recompute = {"none": 0.0, "selective": (attn - mtp_attn) / 3 / rate,
                 "full": whole * ((matmul - head - mtp) / mrate + per_byte * bytes_layers
                                  + extra * moe * layers_bf16) / 3
                 + (attn - mtp_attn) / 3 / rate}[p.recompute]
    # the busiest pipeline rank sets the pace
    busiest, _ = stage_split(arch.layers, p.pp, (layers_s + recompute) * p.pp / arch.layers,
                             last_s * p.pp, layout, p.vpp)
    imbalance = max(0.0, busiest - (compute + recompute))
    bubble = (p.pp - 1) / (m * p.vpp) * busiest
    if (sum(mem.values()) / 1e9 > usable_gb(chip, fw)
            or busiest + bubble >= skip_above):
        return Step(p, m, sum(mem.values()) / 1e9, {k: v / 1e9 for k, v in mem.items()},
                    math.inf, {"compute_s": compute, "recompute_s": recompute,
                               "stage_imbalance_s": imbalance, "bubble_s": bubble},
                    matmul + attn)
    d, h = t.domain_gpus, arch.hidden_size
    layers = stage_layers
    s_local = fig.sequence_length / p.cp
    act = p.mb * s_local * h * 2
    tp_calls = 4 + 2 * whole
    tp_t = tp_calls * layers * m * _call(t, "all_reduce", _placement(p.tp, d, job), act)
    cp_t = 0.0
    if p.cp > 1:
        kv = (2 * arch.kv_heads * (arch.head_dim or h // arch.heads) if arch.mla is None
              else arch.mla.kv_lora_rank + arch.mla.qk_rope_head_dim)
        cpl = _placement(p.cp, d // p.tp, job)
        size = p.mb * fig.sequence_length * kv * 2
        calls = 2 + whole
        cp_t = calls / 2 * layers * m * (_call(t, "all_gather", cpl, size)
                                         + _call(t, "reduce_scatter", cpl, size))
    ep_t = 0.0
    if arch.moe and p.ep > 1:
        moe_layers = math.ceil((arch.layers - arch.moe.dense_layers) / p.pp)
        size = p.mb * s_local / p.tp * arch.moe.active_experts * h * 2
        # an expert group wider than data x context parallelism folds over the tensor
        # ranks (Megatron's MoE parallel folding, expert TP 1): ep neighbouring GPUs
        folded = p.ep > p.dp * p.cp or (p.dp * p.cp) % p.ep > 0
        epl = _placement(p.ep, d if folded else d // (p.tp * p.cp), job)
        # dispatch and combine, forward and backward; a layer recomputed whole runs its
        # forward pair again
        ep_t = (4 + 2 * whole) * moe_layers * m * _call(t, "all_to_all", epl, size)
    pp_t = 0.0
    if p.pp > 1:
        cross = p.tp * p.cp * p.dp >= d  # stage neighbours in other domains
        bw = (t.net_gbit_s_effective / 8 * t.model.net_efficiency if cross
              else t.links_per_gpu * t.model.scale_up_link_gbyte_s)
        pp_t = 2 * m * p.vpp * (act / p.tp) / (bw * 1e9)
    dp_ranks = p.dp * p.cp
    dpl = _placement(dp_ranks, d // p.tp, job)
    per_gpu_params = (fig.params / (p.tp * p.pp))
    dp_t = (_call(t, "reduce_scatter", dpl, per_gpu_params * fw.grad_bytes_per_param)
            + _call(t, "all_gather", dpl, per_gpu_params * fw.weight_bytes_per_param))
    ep_x = ep_t * (1 - fw.ep_overlap_fraction)
    if p.epo:  # Megatron's --overlap-moe-expert-parallel-comm: one micro-batch's all-to-alls
        # run under another's compute; what the busiest stage's compute cannot cover stays
        # exposed (the step is then the longer of the two, never shorter for faster compute)
        ep_x = max(0.0, ep_x - busiest)
    exposed = {"tp_s": tp_t * (1 - fw.tp_overlap_fraction),
               "cp_s": cp_t * (1 - fw.cp_overlap_fraction),
               "ep_s": ep_x, "pp_s": pp_t,
               "dp_s": dp_t * (1 - fw.dp_overlap_fraction)}
    if p.fsdp:  # weights gathered for forward and backward of every micro-batch, and the
        # sharded gradients reduce-scattered after each (not once a step)
        ag = _call(t, "all_gather", dpl, per_gpu_params * fw.weight_bytes_per_param)
        rs = _call(t, "reduce_scatter", dpl, per_gpu_params * fw.grad_bytes_per_param)
        exposed["dp_s"] += (2 * (m - 1) * ag + (m - 1) * rs) * (1 - fw.dp_overlap_fraction) + ag
    breakdown = {"compute_s": compute - elementwise - moe_overhead,
                 "memory_bound_s": elementwise, "moe_overhead_s": moe_overhead,
                 "recompute_s": recompute, "stage_imbalance_s": imbalance, "bubble_s": bubble,
                 **exposed}
    total = sum(breakdown.values())
    return Step(p, m, sum(mem.values()) / 1e9, {k: v / 1e9 for k, v in mem.items()}, total,
                breakdown, (matmul + attn))


def state_bytes_per_param(fw: TrainingFramework) -> float:
    """Weights, gradients and optimizer state per parameter, unsharded (18 in Megatron)."""
    return fw.weight_bytes_per_param + fw.grad_bytes_per_param + fw.optimizer_bytes_per_param


def usable_gb(chip: Chip, fw: TrainingFramework) -> float:
    """HBM per GPU the model state and activations may use."""
    return chip.hbm_gb * fw.hbm_usable_fraction


def fits(s: Step, chip: Chip, fw: TrainingFramework) -> bool:
    return s.memory_gb <= usable_gb(chip, fw)


def _pow2(limit: int) -> list[int]:
    return [2**k for k in range(0, 20) if 2**k <= limit]


def candidates(t: DesignTiers, arch: ModelArch, fig: ModelFigures, fw: TrainingFramework,
               gpus: int, batch_tokens: int, given: dict) -> list[Parallelism]:
    """Every parallelism the chooser tries (``given`` fixes any of :data:`KEYS`)."""
    seqs = max(1, batch_tokens // fig.sequence_length)
    out = []
    tps = [x for x in _pow2(t.domain_gpus) if arch.heads % x == 0 and t.domain_gpus % x == 0]
    for tp in ([given["tp"]] if "tp" in given else tps):
        for cp in ([given["cp"]] if "cp" in given else _pow2(max(1, fig.sequence_length // 4096))):
            for pp in ([given["pp"]] if "pp" in given else _pow2(arch.layers)):
                if gpus % (tp * cp * pp) or pp > arch.layers:
                    continue
                dp = gpus // (tp * cp * pp)
                if "dp" in given and given["dp"] != dp or dp > seqs:
                    continue
                eps = [1] if not arch.moe else [x for x in _pow2(arch.moe.experts)
                                                if (dp * cp) % x == 0]
                for ep in ([given["ep"]] if "ep" in given else eps):
                    if ep > 1 and (not arch.moe or arch.moe.experts % ep
                                   or (tp * dp * cp) % ep):
                        continue  # experts split evenly, the group inside the job's ranks
                    for mb in ([given["mb"]] if "mb" in given else [1, 2]):
                        layers = math.ceil(arch.layers / pp)
                        vs = [v for v in _pow2(fw.max_virtual_stages) if v <= layers] if pp > 1 else [1]
                        fs = [0, 1] if fw.fsdp and pp == 1 and dp * cp > 1 else [0]
                        # whole-layer recompute: the layers given (rl), all of a stage's when
                        # the user asks for recompute=full (Megatron's meaning), else the
                        # fewest that fit (0: chosen in step())
                        rl = given.get("rl", arch.layers if given.get("recompute") == "full"
                                       else 0)
                        for v in ([given["vpp"]] if "vpp" in given else vs):
                            for rc in ([given["recompute"]] if "recompute" in given else RECOMPUTE):
                                for f in ([given["fsdp"]] if "fsdp" in given else fs):
                                    out.append(Parallelism(tp, pp, dp, cp, ep, mb, v, rc, f,
                                                           rl if rc == "full"
                                                           else 0, given.get("epo", 0)))
    return out


def choose(t: DesignTiers, arch: ModelArch, fig: ModelFigures, fw: TrainingFramework, chip: Chip,
           gpus: int, batch_tokens: int, precision: str, job: Placement,
           given: dict) -> tuple[Step | None, Step | None, int]:
    """(fastest step that fits, the smallest-memory step tried, candidates tried)."""
    best = smallest = None
    tried = 0
    for p in candidates(t, arch, fig, fw, gpus, batch_tokens, given):
        s = step(t, arch, fig, fw, chip, p, batch_tokens, precision, job,
                 best.step_time_s if best is not None else math.inf)
        tried += 1
        if smallest is None or s.memory_gb < smallest.memory_gb:
            smallest = s
        if fits(s, chip, fw) and s.step_time_s < (best.step_time_s if best else math.inf):
            best = s
    return best, smallest, tried


__all__ = ["KEYS", "RECOMPUTE", "Chip", "Parallelism", "Step", "candidates", "choose", "fits",
           "stage_split",
           "memory_bound_bytes", "memory_per_gpu", "parse_parallelism",
           "recompute_layers", "state_bytes_per_param", "step",
           "usable_gb"]
