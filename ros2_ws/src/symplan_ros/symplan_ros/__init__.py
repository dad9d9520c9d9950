"""SymPlan ROS 2 runtime: verified planning as a lifecycle node."""
