"""Parameters and training FLOPs per token of a model, from its architecture.

Per layer: attention projections (grouped-query: Q and O ``h x heads x d``, K and V
``h x kv_heads x d``; multi-head latent attention: the low-rank down- and up-projections)
and the FFN (SwiGLU three matrices, GELU two; MoE: every expert counted in the total, the
shared and ``top-k`` routed ones in the active count, plus the router). Embeddings:
``vocab x h``, twice unless tied.

Training FLOPs per token (PaLM's convention, Chowdhery et al. 2022, appendix B, the one
the Llama 3 paper's MFU uses): ``6 x N_active`` for the matmuls (forward 2, backward 4;
the input embedding is a lookup, the output head a matmul) plus, per layer, ``3 x 2 x s
x (q.k width + v width)`` for the attention scores and their weighted sum over a
sequence of ``s`` (non-causal; with multi-head attention ``12 L H Q s``), shown apart.
Multi-token prediction (``mtp_depth``, DeepSeek-V3's D = 1) adds per depth one layer, a
``2h x h`` projection and another pass through the output head (``6 V h``) to both; its
weights are not in the parameter totals (as the model card counts them).

Examples
--------
>>> from infra.models.catalog import load_catalog
>>> f = model_figures(load_catalog().get("llama-3-405b"))
>>> round(f.params / 1e9, 1), round(f.matmul_flops_per_token / 1e12, 3)
(405.8, 2.422)
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.models.ml_parts import ModelArch


@dataclass(frozen=True)
class ModelFigures:
    params: float  # total
    active_params: float  # per token
    embedding_params: float  # input embedding (a lookup: no FLOPs)
    dense_layer_params: float  # one dense layer (attention + FFN)
    moe_layer_params: float  # one MoE layer, all experts (0 for dense models)
    expert_params: float  # one routed expert
    attention_params: float  # one layer's attention projections
    matmul_flops_per_token: float  # training, 6 x active matmul params (MTP included)
    attention_flops_per_token: float  # training, attention scores at sequence_length
    sequence_length: int
    head_flops_per_token: float = 0.0  # output head passes (1 + MTP depth) x 6 V h, in matmul
    mtp_flops_per_token: float = 0.0  # MTP layers and projections (heads apart), in matmul
    mtp_attention_flops_per_token: float = 0.0  # MTP layers' attention, in attention

    @property
    def flops_per_token(self) -> float:
        return self.matmul_flops_per_token + self.attention_flops_per_token


def _attention(m: ModelArch) -> tuple[float, float]:
    """(projection parameters of one layer, q.k + v width per token summed over heads)."""
    h = m.hidden_size
    if m.mla is not None:
        a = m.mla
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        params = (h * a.q_lora_rank + a.q_lora_rank * m.heads * qk
                  + h * (a.kv_lora_rank + a.qk_rope_head_dim)
                  + a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim)
                  + m.heads * a.v_head_dim * h)
        return params, m.heads * (qk + a.v_head_dim)
    d = m.head_dim or h // m.heads
    params = 2 * h * m.heads * d + 2 * h * m.kv_heads * d
    return params, m.heads * d * 2


def model_figures(m: ModelArch, sequence_length: int | None = None) -> ModelFigures:
    """Parameters and FLOPs per token of ``m`` (at ``sequence_length``, default the model's)."""
    s = sequence_length or m.sequence_length
    h = m.hidden_size
    mats = 3 if m.ffn_kind == "swiglu" else 2
    attn, width = _attention(m)
    dense_ffn = mats * h * m.ffn_size
    emb = m.vocab_size * h
    head = 0 if m.tied_embeddings else emb
    if m.moe is None:
        dense_layers, moe_layers = m.layers, 0
        moe_total = moe_active = expert = 0.0
    else:
        e = m.moe
        dense_layers, moe_layers = e.dense_layers, m.layers - e.dense_layers
        expert = mats * h * e.expert_ffn_size
        moe_total = (e.experts + e.shared_experts) * expert + h * e.experts
        moe_active = (e.active_experts + e.shared_experts) * expert + h * e.experts
    dense_layer = attn + dense_ffn
    total = emb + head + dense_layers * dense_layer + moe_layers * (attn + moe_total)
    active = emb + head + dense_layers * dense_layer + moe_layers * (attn + moe_active)
    matmul_active = active - emb if not m.tied_embeddings else active
    # multi-token prediction: per depth one more layer (an MoE one where the model has
    # experts), a 2h x h projection and a pass through the shared output head
    mtp_layer = (attn + moe_active) if moe_layers else dense_layer
    mtp = 6 * m.mtp_depth * (mtp_layer + 2 * h * h)
    heads = 6 * (1 + m.mtp_depth) * emb
    mtp_attn = 6 * m.mtp_depth * s * width
    return ModelFigures(total, active, emb, dense_layer, attn + moe_total if moe_layers else 0.0,
                        expert, attn, 6 * matmul_active + mtp + 6 * m.mtp_depth * emb,
                        6 * m.layers * s * width + mtp_attn, s, heads, mtp, mtp_attn)


__all__ = ["ModelFigures", "model_figures"]
