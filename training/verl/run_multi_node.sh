#!/usr/bin/env bash
# The same run on a Ray cluster of NODES nodes with GPUS GPUs each.
#   head:    ray start --head --port=6379
#   workers: ray start --address=<head-ip>:6379
#   head:    MODEL=/path/to/D-SFT NODES=4 GPUS=8 training/verl/run_multi_node.sh [overrides...]
# The repository and the SFT checkpoint must be at the same path on every node (shared disk);
# SYMPLAN_* variables reach the driver actor through Ray's runtime environment.
set -euo pipefail
cd "$(dirname "$0")/../.."
export RAY_ADDRESS=${RAY_ADDRESS:-auto}
export NODES=${NODES:?set NODES}
exec training/verl/run_single_node.sh \
    +ray_kwargs.ray_init.runtime_env.env_vars.SYMPLAN_LENGTH_MODE="${SYMPLAN_LENGTH_MODE:-group_adapt}" \
    +ray_kwargs.ray_init.runtime_env.env_vars.SYMPLAN_REWARD_STATE_DIR="${SYMPLAN_REWARD_STATE_DIR:-$PWD/runs/verl/reward_state}" \
    "$@"
