"""SymPlan's simulators for trying the planner without a robot: the skill controller
(``skill_sim``) and an RGB-D camera streaming a rendered BEHAVIOR scene (``camera_sim``)."""
