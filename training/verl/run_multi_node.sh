#!/usr/bin/env bash
# The same run on a Ray cluster of NODES nodes with GPUS GPUs each. Every node needs the verl-gpu
# environment (pip install -c constraints/gpu-verl.txt -e ".[verl-gpu]", see run_single_node.sh).
#   head:    ray start --head --port=6379
#   workers: ray start --address=<head-ip>:6379
#   head:    MODEL=/path/to/D-SFT NODES=4 GPUS=8 training/verl/run_multi_node.sh [overrides...]
# The repository and the SFT checkpoint must be at the same path on every node (shared disk);
# SYMPLAN_* variables reach the driver actor through Ray's runtime environment.
set -euo pipefail
cd "$(dirname "$0")/../.."
export RAY_ADDRESS=${RAY_ADDRESS:-auto}
export NODES=${NODES:?set NODES}
# The SYMPLAN_* settings run_single_node.sh sets (the workers' own environment is that of `ray start`).
env_vars=ray_kwargs.ray_init.runtime_env.env_vars
exec training/verl/run_single_node.sh \
    +$env_vars.SYMPLAN_LENGTH_MODE="${SYMPLAN_LENGTH_MODE:-group_adapt}" \
    +$env_vars.SYMPLAN_TAU="${SYMPLAN_TAU:-0.5}" +$env_vars.SYMPLAN_DELTA_BASE="${SYMPLAN_DELTA_BASE:-200}" \
    +$env_vars.SYMPLAN_MAX_RESPONSE="${SYMPLAN_MAX_RESPONSE:-8192}" \
    +$env_vars.SYMPLAN_OVERLONG_BUFFER="${SYMPLAN_OVERLONG_BUFFER:-1048}" \
    +$env_vars.SYMPLAN_REWARD_STATE_DIR="${SYMPLAN_REWARD_STATE_DIR:-$PWD/runs/verl/reward_state}" \
    "$@"
