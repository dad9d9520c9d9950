"""The robot runtime without ROS: the planning session, its scene sources, the camera frame
buffer and the verifier-in-the-loop repair loop (which evaluation shares)."""
