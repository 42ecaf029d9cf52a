"""Reliability: blast radius, availability, failures over time, checkpoint and goodput."""
