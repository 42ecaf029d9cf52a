"""Design synthesis: candidate designs from a budget (power, capex, GPUs, a training
target), pruned by cheap bounds, analysed in full, kept on a Pareto front
(:func:`~infra.synthesis.synthesize.synthesize`)."""

from infra.synthesis.synthesize import Budget, SynthesisResult, synthesize

__all__ = ["Budget", "SynthesisResult", "synthesize"]
