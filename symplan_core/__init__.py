"""SymPlan core: BDDL, symbolic engine, planners, data and perception."""

__version__ = "0.1.0"
