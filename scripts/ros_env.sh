# shellcheck shell=bash
# Source me (bash/zsh): puts the colcon-built SymPlan ROS workspace on the search paths.
#   source scripts/ros_env.sh     (after scripts/setup_ros.sh)
# Works with `set -u` callers; safe to source more than once (no duplicate entries).
_symplan_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
_symplan_venv="${VENV:-$_symplan_root/.venv}"
_symplan_install="$_symplan_root/ros2_ws/install"
_symplan_pyver="$("$_symplan_venv/bin/python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")' 2>/dev/null || echo 3.11)"

_symplan_prepend() {  # VAR DIR: prepend DIR to VAR unless already present (bash and zsh)
  local cur
  eval "cur=\${$1:-}"
  case ":$cur:" in *":$2:"*) ;; *) export "$1=$2${cur:+:$cur}" ;; esac
}
_symplan_prepend AMENT_PREFIX_PATH "$_symplan_venv"
_symplan_prepend AMENT_PREFIX_PATH "$_symplan_install"
_symplan_prepend LD_LIBRARY_PATH "$_symplan_install/lib"
_symplan_prepend PYTHONPATH "$_symplan_install/lib/python$_symplan_pyver/site-packages"
_symplan_prepend PYTHONPATH "$_symplan_root"
# Keep DDS traffic on this host unless the caller chose otherwise.
export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"
unset -f _symplan_prepend
unset _symplan_root _symplan_venv _symplan_install _symplan_pyver
