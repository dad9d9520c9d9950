"""`symplan_camera_sim`: an RGB-D camera driver stand-in that streams a rendered BEHAVIOR task.

The picture is a real task's ``:init`` laid out as fiducial-tagged boxes and rendered by
``symplan_core.perception.rigs.render_task`` (the evaluation renderer): colour (``rgb8``), depth
(``16UC1`` millimetres, REP 118) and ``CameraInfo``, stamped with the node clock and published
with sensor-data QoS on the topics a RealSense-style driver uses. The fiducial map a lab would
print is written to ``map_file`` so the planner's ``fiducial:MAP`` detector can read the tags.
A few distinct frames (``frames``, with the ``noise`` setting) are rendered once and cycled.

With ``world_topic`` set (the skill simulator's ``~/world``), the camera shows the world as the
skill simulator changed it: each world message (a BDDL problem of the simulator's state) is
re-rendered, every thing keeping its tag id (``symplan_core.sim.world.WorldCamera``), and
``~/rendered`` then carries the world's version line, so the skill simulator reports success only
once the camera shows its result (a real camera sees a change at once).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import String
from symplan_ros.plumbing import LATCHED, spin_until_shutdown

DEFAULT_TASK = "b1k/attach_a_camera_to_a_tripod"


def camera_info_msg(intrinsics: Any, header: Any) -> CameraInfo:
    k = intrinsics.matrix()
    return CameraInfo(header=header, height=intrinsics.height, width=intrinsics.width,
                      distortion_model="plumb_bob", d=[0.0] * 5, k=k.reshape(-1).tolist(),
                      r=np.eye(3).reshape(-1).tolist(), p=np.hstack([k, np.zeros((3, 1))]).reshape(-1).tolist())


def _depth(depth: np.ndarray | None) -> np.ndarray:
    if depth is None:  # the renderer gives every frame its depth
        raise ValueError("a rendered frame without depth")
    return depth


def image_msg(array: np.ndarray, encoding: str, header: Any) -> Image:
    from symplan_core.rosio.images import numpy_to_image_fields

    return Image(header=header, **numpy_to_image_fields(array, encoding))


class CameraSimNode(Node):
    def __init__(self, node_name: str = "symplan_camera_sim", **kwargs: Any) -> None:
        super().__init__(node_name, **kwargs)
        p = self.declare_parameter
        p("task", DEFAULT_TASK, ParameterDescriptor(description="BEHAVIOR task whose :init is rendered"))
        p("seed", 0, ParameterDescriptor(description="layout and noise seed"))
        p("noise", "none", ParameterDescriptor(description="none, default, or a factor of the default noise"))
        p("frames", 4, ParameterDescriptor(description="distinct frames rendered and cycled"))
        p("rate_hz", 5.0, ParameterDescriptor(description="publish rate"))
        p("rgb_topic", "camera/color/image_raw", ParameterDescriptor(description="colour topic (rgb8)"))
        p("depth_topic", "camera/depth/image_raw", ParameterDescriptor(description="depth topic (16UC1 mm)"))
        p("info_topic", "camera/color/camera_info", ParameterDescriptor(description="CameraInfo topic"))
        p("frame_id", "camera_color_optical_frame", ParameterDescriptor(description="header frame id"))
        p("map_file", "", ParameterDescriptor(description="write the fiducial map here (empty: do not)"))
        p("world_topic", "", ParameterDescriptor(
            description="the skill simulator's world (std_msgs/String BDDL) to show as it changes (empty: static)"))
        self.world_version = ""
        self.shown, self._frames = self._render()
        map_file = self.get_parameter("map_file").value
        if map_file:
            Path(map_file).parent.mkdir(parents=True, exist_ok=True)
            self.shown.fiducial_map.dump(map_file)
        self._rgb = self.create_publisher(Image, self.get_parameter("rgb_topic").value, qos_profile_sensor_data)
        self._depth = self.create_publisher(Image, self.get_parameter("depth_topic").value, qos_profile_sensor_data)
        self._info = self.create_publisher(CameraInfo, self.get_parameter("info_topic").value, qos_profile_sensor_data)
        self.published = 0
        self.rendered = 0  # world messages shown
        self._rendered_pub = self.create_publisher(String, "~/rendered", LATCHED)
        world_topic = self.get_parameter("world_topic").value
        if world_topic:
            self.create_subscription(String, world_topic, self._on_world, LATCHED)
        self._timer = self.create_timer(1.0 / float(self.get_parameter("rate_hz").value), self.publish_frame)

    def _noise(self) -> Any:
        from symplan_core.perception.rigs import NoiseConfig

        noise_setting = str(self.get_parameter("noise").value)
        return (None if noise_setting == "none" else NoiseConfig.default() if noise_setting == "default"
                else NoiseConfig.default().scaled(float(noise_setting)))

    def _render(self) -> tuple[Any, list[tuple[np.ndarray, np.ndarray]]]:
        from symplan_core.sim.world import WorldCamera
        from symplan_core.tasks import load_problem

        self.world = WorldCamera(load_problem(self.get_parameter("task").value),
                                 seed=int(self.get_parameter("seed").value))
        return self.world.shown, self._frames_of(self.world.shown)

    def _frames_of(self, shown: Any) -> list[tuple[np.ndarray, np.ndarray]]:
        frames = shown.frames(max(1, int(self.get_parameter("frames").value)), self._noise())
        depth_mm = [np.nan_to_num(_depth(f.depth) * 1000.0, nan=0.0).clip(0, 65535).round().astype(np.uint16)
                    for f in frames]
        return [(f.rgb, d) for f, d in zip(frames, depth_mm, strict=True)]

    def _on_world(self, msg: String) -> None:
        """Show the skill simulator's changed world; ~/rendered then carries its version line."""
        from symplan_ros.messages import read_markers

        from symplan_core.bddl import parse_problem
        from symplan_core.errors import SymPlanError

        version = msg.data.split("\n", 1)[0]
        try:
            shown = self.world.show(parse_problem(msg.data, filename="<world>"), read_markers(msg.data))
            frames = self._frames_of(shown)
        except (SymPlanError, ValueError) as exc:  # a world it cannot draw leaves the picture as it was
            self.get_logger().error(f"cannot render the world: {type(exc).__name__}: {exc}")
            return
        self.shown, self._frames, self.world_version = shown, frames, version
        self.rendered += 1
        self._rendered_pub.publish(String(data=version))

    def publish_frame(self) -> None:
        rgb, depth = self._frames[self.published % len(self._frames)]
        header = Image().header
        header.stamp = self.get_clock().now().to_msg()
        header.frame_id = self.get_parameter("frame_id").value
        self._info.publish(camera_info_msg(self.shown.intrinsics, header))
        self._depth.publish(image_msg(depth, "16UC1", header))
        self._rgb.publish(image_msg(rgb, "rgb8", header))
        self.published += 1


def perceiving_parameters(camera: CameraSimNode) -> list[Any]:
    """Planner parameter overrides that perceive this simulator's stream (needs its ``map_file``)."""
    from rclpy.parameter import Parameter

    get = camera.get_parameter
    return [Parameter("scene.source", value="camera"),
            Parameter("perception.detector", value=f"fiducial:{get('map_file').value}"),
            *(Parameter(f"camera.{name}_topic", value=get(f"{name}_topic").value) for name in ("rgb", "depth", "info"))]


def main(argv: list[str] | None = None) -> int:
    rclpy.init(args=list(sys.argv if argv is None else argv))
    node = CameraSimNode()
    node.get_logger().info(f"streaming {node.get_parameter('task').value} at {node.get_parameter('rate_hz').value} Hz")
    spin_until_shutdown(node)
    return 0


if __name__ == "__main__":
    sys.exit(main())
