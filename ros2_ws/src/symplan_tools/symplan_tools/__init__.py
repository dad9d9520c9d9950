"""Tools that drive and watch a SymPlan planner: the blocking Python client (``client``), waits,
the bag recorder (``recorder``), and the soak's audit of published subgoals (``audit``) and child
process supervision (``supervise``)."""
