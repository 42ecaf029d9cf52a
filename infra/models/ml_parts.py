"""Catalog types for training: model architectures (``catalogs/models``) and the
training framework's memory and overlap figures (``catalogs/training``).

A model entry holds its architecture as its model card or paper states it; parameter
counts and FLOPs per token are computed from it (:mod:`infra.analysis.perf.model_flops`)
and checked against the published totals in tests.
"""

# No ``from __future__ import annotations`` (see infra/models/parts.py).

from typing import Annotated, Literal

from pydantic import Field

from infra.models.base import NonNegFloat, PositiveCount, PosFloat, Strict
from infra.models.parts import Part

Fraction = Annotated[float, Field(ge=0, le=1.0)]


class MoeSpec(Strict):
    """Mixture-of-experts feed-forward layers."""

    experts: PositiveCount = Field(description="Routed experts per MoE layer.")
    active_experts: PositiveCount = Field(description="Routed experts each token uses (top-k).")
    shared_experts: int = Field(0, ge=0, le=64, description="Experts every token uses besides the routed ones.")
    expert_ffn_size: PositiveCount = Field(description="Intermediate size of one expert's FFN.")
    dense_layers: int = Field(0, ge=0, le=1000, description="Leading layers with a dense FFN (ffn_size) instead of experts.")


class MlaSpec(Strict):
    """Multi-head latent attention (DeepSeek-V2/V3): low-rank query and key-value projections."""

    q_lora_rank: PositiveCount = Field(description="Rank of the query down-projection.")
    kv_lora_rank: PositiveCount = Field(description="Rank of the joint key-value down-projection.")
    qk_nope_head_dim: PositiveCount = Field(description="Per-head query/key dimension without rotary embedding.")
    qk_rope_head_dim: PositiveCount = Field(description="Per-head query/key dimension with rotary embedding.")
    v_head_dim: PositiveCount = Field(description="Per-head value dimension.")


class ModelArch(Part):
    """A model to train: a decoder-only transformer's shape."""

    kind: Literal["model"] = "model"
    layers: PositiveCount = Field(description="Transformer layers.")
    hidden_size: PositiveCount = Field(description="Model (embedding) dimension.")
    ffn_size: PositiveCount = Field(description="Intermediate size of a dense FFN layer.")
    ffn_kind: Literal["swiglu", "gelu"] = Field(
        "swiglu", description="swiglu: three matrices per FFN (gate, up, down); gelu: two.")
    heads: PositiveCount = Field(description="Attention (query) heads.")
    kv_heads: PositiveCount = Field(description="Key-value heads (grouped-query attention); = heads for MHA.")
    head_dim: PositiveCount | None = Field(None, description="Per-head dimension; unset: hidden_size / heads.")
    vocab_size: PositiveCount = Field(description="Vocabulary size (embedding rows).")
    sequence_length: PositiveCount = Field(description="Training sequence length (tokens) of the main pre-training phase.")
    tied_embeddings: bool = Field(False, description="Input embedding and output head share one matrix.")
    moe: MoeSpec | None = Field(None, description="Mixture-of-experts FFN; unset: dense.")
    mla: MlaSpec | None = Field(None, description="Multi-head latent attention; unset: standard (grouped-query) attention.")
    mtp_depth: int = Field(
        0, ge=0, le=16, description="Multi-token-prediction modules trained beside the main "
                                    "head (DeepSeek-V3: 1), each one transformer layer, a "
                                    "2h x h projection and a pass through the shared output "
                                    "head; 0: none. Not counted in the parameter totals.")
    global_batch_tokens: PositiveCount | None = Field(
        None, description="Tokens per optimizer step as published; unset: the training "
                          "framework entry's default_batch_tokens (an assumption, stated).")
    params_published_b: PosFloat = Field(description="Total parameters (billions) as the model card states.")
    active_params_published_b: PosFloat | None = Field(
        None, description="Parameters active per token (billions) as published (MoE).")


class TrainingFramework(Part):
    """What a training framework keeps in memory and how much communication it hides."""

    kind: Literal["training_framework"] = "training_framework"
    weight_bytes_per_param: PosFloat = Field(description="Bytes per parameter of the BF16 weights.")
    grad_bytes_per_param: PosFloat = Field(description="Bytes per parameter of the gradients (FP32 main grads).")
    optimizer_bytes_per_param: PosFloat = Field(
        description="Bytes per parameter of the optimizer state (FP32 master weights + Adam m and v).")
    activation_bytes_selective: PosFloat = Field(
        description="Activation bytes per layer per token per hidden unit with selective recompute "
                    "(Korthikanti et al. 2022: 34 s b h / t).")
    activation_bytes_attention: PosFloat = Field(
        description="Extra activation factor without recompute: 5 a s / h per token per hidden unit.")
    activation_bytes_full_recompute: PosFloat = Field(
        description="Activation bytes per layer per token per hidden unit kept with full recompute (2).")
    compute_efficiency_fraction: Fraction = Field(
        description="Share of the GPU's measured achievable matmul rate (MAMF) a whole "
                    "transformer step sustains: non-matmul kernels, attention, optimizer and "
                    "launch gaps included.")
    grads_sharded: bool = Field(
        False, description="Gradients are reduce-scattered into data-parallel shards (ZeRO-2/FSDP); "
                           "false: every rank keeps its full gradient buffer (Megatron DDP).")
    hbm_usable_fraction: Fraction = Field(
        description="Share of HBM the model state and activations may use (the rest: allocator, "
                    "workspaces, communication buffers).")
    dp_overlap_fraction: Fraction = Field(description="Share of data-parallel communication hidden behind compute.")
    tp_overlap_fraction: Fraction = Field(description="Share of tensor-parallel communication hidden behind compute.")
    cp_overlap_fraction: Fraction = Field(description="Share of context-parallel communication hidden behind compute.")
    ep_overlap_fraction: Fraction = Field(description="Share of expert-parallel all-to-all hidden behind compute.")
    default_batch_tokens: PositiveCount = Field(
        description="Tokens per optimizer step for a model whose entry publishes none.")
    max_virtual_stages: PositiveCount = Field(
        description="Most interleaved (virtual) pipeline stages per GPU the chooser uses.")
    memory_bound_bytes_per_token_hidden: NonNegFloat = Field(
        0.0, description="HBM bytes moved per token per layer by the memory-bound kernels "
                         "(norms, residual adds, rotary, activation functions), forward and "
                         "backward, per hidden unit (BF16).")
    memory_bound_bytes_per_token_ffn: NonNegFloat = Field(
        0.0, description="The same per FFN unit (gated activation: read gate and up, write "
                         "the product; backward twice that).")
    fp8_cast_bytes_per_token_hidden: NonNegFloat = Field(
        0.0, description="Extra bytes per token per layer per hidden unit to quantise GEMM "
                         "inputs and output gradients to FP8 (read BF16, write FP8).")
    fp8_cast_bytes_per_token_ffn: NonNegFloat = Field(
        0.0, description="The same per FFN unit.")
    loss_bytes_per_vocab: NonNegFloat = Field(
        0.0, description="Bytes per token per vocabulary entry of the output softmax and "
                         "cross-entropy (FP32 logits written, read, gradient written).")
    memory_bound_efficiency_fraction: Fraction = Field(
        1.0, description="Share of the GPU's HBM bandwidth the memory-bound kernels sustain.")
    fsdp: bool = Field(
        False, description="The framework can shard weights and gradients over data "
                           "parallelism (ZeRO-3 / FSDP); the chooser then tries it where "
                           "there is no pipeline parallelism.")
    moe_overhead_fraction: NonNegFloat = Field(
        0.0, description="Time an MoE layer adds beyond its GEMMs, attention and "
                         "elementwise kernels, as a share of that layer's time at BF16: "
                         "routing, token permutation, grouped GEMMs over each expert's few "
                         "tokens, the all-to-all's synchronisation and the many small "
                         "kernels a dense layer does not have; none of it speeds up with "
                         "FP8 GEMMs (0: as fast as a dense layer of its FLOPs).")
    fp8_output_layer: bool = Field(
        False, description="In an FP8 run the output head's GEMMs run in FP8 too; false: in "
                           "BF16 (Megatron-Core's output layer is not a Transformer Engine "
                           "module, so FP8 autocast leaves it alone).")
    pipeline_layout: Literal["auto", "balanced", "even"] = Field(
        "auto", description="How layers are split over pipeline stages. even: layers / pp on "
                            "every stage, the output head on top of the last (Megatron's "
                            "default split); balanced: whole layers placed so the busiest "
                            "stage, with the head (and MTP) on the last, carries the least "
                            "(Megatron's pipeline layout); auto: even where the layers divide "
                            "pp x vpp, balanced where a layout must be given anyway.")


__all__ = ["MlaSpec", "ModelArch", "MoeSpec", "TrainingFramework"]
