"""Evaluation: harness (SP/EP/GCR/Err, pass@k), verifier-in-the-loop repair, splits, reports."""
