#!/usr/bin/env bash
# DAPO + Short-RL + GroupAdapt on one node with verl 0.9.1 (needs GPUs; `pip install -e ".[verl-gpu]"`).
#   MODEL=/path/to/D-SFT GPUS=8 training/verl/run_single_node.sh [hydra overrides...]
set -euo pipefail
cd "$(dirname "$0")/../.."
export SYMPLAN_LENGTH_MODE=${SYMPLAN_LENGTH_MODE:-group_adapt}    # none | short_rl | group_adapt
export SYMPLAN_TAU=${SYMPLAN_TAU:-0.5} SYMPLAN_DELTA_BASE=${SYMPLAN_DELTA_BASE:-200}
export SYMPLAN_MAX_RESPONSE=${SYMPLAN_MAX_RESPONSE:-8192} SYMPLAN_OVERLONG_BUFFER=${SYMPLAN_OVERLONG_BUFFER:-1048}
export SYMPLAN_REWARD_STATE_DIR=${SYMPLAN_REWARD_STATE_DIR:-runs/verl/reward_state}
python -m training.verl.main_symplan \
    actor_rollout_ref.model.path="${MODEL:?set MODEL to the SFT checkpoint}" \
    trainer.n_gpus_per_node="${GPUS:-8}" trainer.nnodes="${NODES:-1}" \
    trainer.default_local_dir=runs/verl/checkpoints "$@"
