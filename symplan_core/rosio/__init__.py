"""ROS 2 camera data without a ROS install: message decoding, stamp pairing, bags and replay.

* :mod:`~symplan_core.rosio.images` - ``sensor_msgs/Image`` / ``CompressedImage`` -> numpy;
* :mod:`~symplan_core.rosio.sync` - colour/depth pairing by stamp (``message_filters`` is not on PyPI);
* :mod:`~symplan_core.rosio.stream` - messages -> perception frames (the node and replay share it);
* :mod:`~symplan_core.rosio.bags` - rosbag2 (sqlite3, MCAP) reading and camera-bag writing via ``rosbags``;
* :mod:`~symplan_core.rosio.replay` - ``symplan replay``: bag + instruction -> verified BDDL (+ plan).

Duck-typed on message fields: rclpy messages and rosbags' decoded messages both work. Nothing here
imports rclpy; the bag modules need the ``bags`` extra and the stream/replay the ``vision`` extra.
"""
