"""Make a colcon-built workspace usable from a plain interpreter (pip-wheel ROS, no sourcing).

On a normal ROS install (`source install/setup.bash`) none of this is needed and
`ensure_workspace` is a no-op. With ROS from PyPI wheels, the interface package built into
`ros2_ws/install` is importable once its site-packages dir is on `sys.path`, but rosidl
dlopen()s the typesupport libraries by bare file name, and the dynamic loader reads
LD_LIBRARY_PATH only at process start. Pre-loading those libraries (RTLD_GLOBAL) makes the
later dlopen() by name resolve to the already-loaded copy.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path


def _default_install() -> Path:
    here = Path(__file__).resolve()
    # Source tree: ros2_ws/src/symplan_ros/symplan_ros/workspace.py -> ros2_ws/install.
    # Merged install: install/lib/pythonX.Y/site-packages/symplan_ros/workspace.py -> install.
    for candidate in (here.parents[3] / "install", here.parents[4]):
        if (candidate / "lib").is_dir():
            return candidate
    return here.parents[3] / "install"


def install_dir() -> Path:
    """The colcon install directory: ``$SYMPLAN_ROS_INSTALL``, else the one beside this package."""
    return Path(os.environ.get("SYMPLAN_ROS_INSTALL", _default_install()))


def ensure_workspace(install: Path | None = None) -> bool:
    """Put `install` on sys.path and preload its libraries; True if a workspace was found."""
    install = install or install_dir()
    libdir = install / "lib"
    site = libdir / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    if not site.is_dir():
        return False
    if str(site) not in sys.path:
        sys.path.insert(0, str(site))
    ld_path = os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)
    if str(libdir) not in ld_path:
        for lib in sorted(libdir.glob("lib*.so")):
            ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)
    return True
