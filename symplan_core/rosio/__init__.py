"""ROS 2 camera data without a ROS install: message decoding, stamp pairing and bags.

* :mod:`~symplan_core.rosio.images` - ``sensor_msgs/Image`` / ``CompressedImage`` -> numpy;
* :mod:`~symplan_core.rosio.sync` - colour/depth pairing by stamp (``message_filters`` is not on PyPI);
* :mod:`~symplan_core.rosio.stream` - messages -> perception frames (the node and ``symplan replay``,
  :mod:`symplan_core.runtime.replay`, share it);
* :mod:`~symplan_core.rosio.bags` - rosbag2 (sqlite3, MCAP) reading and camera-bag writing via ``rosbags``;

Duck-typed on message fields: rclpy messages and rosbags' decoded messages both work. Nothing here
imports rclpy; the bag modules need the ``bags`` extra and the stream the ``vision`` extra.
"""
