"""SymPlan's planner node: ROS glue around ``symplan_core.runtime`` (the node, its parameters,
message conversion, QoS profiles and executors)."""
