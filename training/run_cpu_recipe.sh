#!/usr/bin/env bash
# The paper's recipe at CPU scale, in order (issue 25; training/README.md, "Qwen 0.5B student on
# CPU", says what each step costs here): teacher Qwen2.5-Coder-1.5B with guided decoding and
# engine rejection sampling plus reference-planner gold -> the SFT mix -> LoRA SFT of the Qwen 0.5B
# student -> GGUF export -> B-1K test eval of base and student (free and guided) -> RL steps.
#
#   training/run_cpu_recipe.sh [--out DIR] [--dry-run] [--from STEP] [--until STEP]
#       [--teacher-prompts N] [--k K] [--rows N] [--episodes N] [--rl-steps N] [--threads N]
#       [--teacher MODEL] [--student MODEL] [--port PORT]
#
# Steps: prompts, train-prompts, gold, teacher, mix, sft, export, eval-base-free, eval-base-guided,
# eval-student-free, eval-student-guided, rl. Each runs under `nice -n 15`, logs to
# DIR/logs/STEP.log and appends "step, exit status, seconds, load at start, command" to
# DIR/steps.tsv. A step that succeeded leaves DIR/done/STEP holding its command; a re-run skips
# it while the command is the same (change an option and the step runs again), and the steps
# that can continue do (data sft, eval, sft.py from its last checkpoint, rl.py --resume). The
# first failing step stops the run (the later ones need its output); run again to resume.
# `serve MODEL PORT COMMAND...` in a step is this script's helper: llama.cpp's server for MODEL (a
# registry name or a .gguf file) on 127.0.0.1:PORT while COMMAND runs, as issue 20's evals serve it.
# --dry-run prints the steps' commands (and which would be skipped) and touches nothing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

OUT=runs/cpu-recipe
DRY=0
FROM=""
UNTIL=""
TEACHER=qwen2.5-coder-1.5b
STUDENT=qwen2.5-coder-0.5b
TEACHER_PROMPTS=33   # ~5.4 min per prompt at K = 4: ~3 h
K=4
ROWS=280             # ~37 s per row: ~3 h of SFT
EPISODES=""          # all 96 B-1K test episodes
RL_STEPS=3
THREADS=1
PORT=8790
STEPS=(prompts train-prompts gold teacher mix sft export eval-base-free eval-base-guided
       eval-student-free eval-student-guided rl)
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --out) OUT=$2; shift 2 ;;
        --dry-run) DRY=1; shift ;;
        --from) FROM=$2; shift 2 ;;
        --until) UNTIL=$2; shift 2 ;;
        --teacher) TEACHER=$2; shift 2 ;;
        --student) STUDENT=$2; shift 2 ;;
        --teacher-prompts) TEACHER_PROMPTS=$2; shift 2 ;;
        --k) K=$2; shift 2 ;;
        --rows) ROWS=$2; shift 2 ;;
        --episodes) EPISODES=$2; shift 2 ;;
        --rl-steps) RL_STEPS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --port) PORT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "error: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for name in "$FROM" "$UNTIL"; do
    if [[ -n $name && " ${STEPS[*]} " != *" $name "* ]]; then
        echo "error: no step $name (steps: ${STEPS[*]})" >&2; exit 2
    fi
done
for value in "$TEACHER_PROMPTS" "$K" "$ROWS" "$RL_STEPS" "$THREADS" "$PORT" ${EPISODES:+"$EPISODES"}; do
    [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "error: $value is not a positive whole number" >&2; exit 2; }
done

PY=${PY:-$ROOT/.venv/bin/python}
[[ -x $PY ]] || PY=python3
SYMPLAN=${SYMPLAN:-$ROOT/.venv/bin/symplan}
[[ -x $SYMPLAN ]] || SYMPLAN=symplan
[[ $OUT == /* ]] || OUT=$ROOT/$OUT
q() { printf '%q' "$1"; }
O=$(q "$OUT")
P=$(q "$PY")
S=$(q "$SYMPLAN")
API="'openai:http://127.0.0.1:$PORT/v1?concurrency=1&timeout=900'"
# The teacher's prompts: the B-1K train rows (never a test row), in a seeded random order, so that
# --teacher-prompts N takes N activities of every kind rather than the first N alphabetically.
SHUFFLE='import json, random, sys; rows = [line for line in open(sys.argv[1]) if json.loads(line)["split"] == "train"]; random.Random(0).shuffle(rows); open(sys.argv[2], "w").writelines(rows); print(len(rows), "train prompt rows")'
LIMIT=${EPISODES:+ --limit $EPISODES}

# serve MODEL PORT COMMAND...: llama.cpp's server for MODEL while COMMAND runs; COMMAND's status.
serve() {
    local model=$1 port=$2 gguf=$1 pid status
    shift 2
    if [[ $model != *.gguf ]]; then
        gguf=$("$PY" -m symplan_core.llm.models path "$model") || { echo "error: model $model is not installed" >&2; return 1; }
    fi
    if curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null; then
        echo "error: something already answers on port $port (another server?): use --port" >&2
        return 1
    fi
    "$PY" -m llama_cpp.server --model "$gguf" --host 127.0.0.1 --port "$port" --n_ctx 4096 \
        --n_threads "$THREADS" >"$OUT/logs/server-$port.log" 2>&1 &
    pid=$!
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || { echo "error: llama.cpp server exited: $OUT/logs/server-$port.log" >&2; return 1; }
        curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break
        sleep 1
    done
    "$@"
    status=$?
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return $status
}

command_of() {  # the command line of a step, as run and as printed
    case $1 in
        prompts) echo "$S data build --out $O/data --no-progress" ;;
        train-prompts) echo "$P -c '$SHUFFLE' $O/data/prompts.jsonl $O/data/train_prompts.jsonl" ;;
        gold) echo "$S data sft --teacher reference --k 1 --prompts $O/data/prompts.jsonl --tokenizer $STUDENT --no-progress --out $O/gold" ;;
        teacher) echo "serve $TEACHER $PORT $S data sft --teacher $API --decoding guided --k $K --prompts $O/data/train_prompts.jsonl --limit $TEACHER_PROMPTS --concurrency 1 --max-tokens 1024 --tokenizer $STUDENT --no-progress --out $O/teacher" ;;
        mix) echo "$P training/select_rows.py --teacher $O/teacher/sft.jsonl --gold $O/gold/sft.jsonl --model $STUDENT --max-length 2048 --rows $ROWS --out $O/mix.jsonl" ;;
        sft) echo "$P training/sft.py --config training/configs/sft_qwen0.5b_cpu.yaml --set model=$STUDENT --set train_file=$O/mix.jsonl --set output_dir=$O/sft --set threads=$THREADS" ;;
        export) echo "$P training/export_gguf.py $O/sft/final --out $O/student-q4_k_m.gguf --threads $THREADS --check" ;;
        eval-*-*)
            local who=${1#eval-} model
            who=${who%-*}
            model=$STUDENT
            [[ $who == student ]] && model=$O/student-q4_k_m.gguf
            echo "serve $model $PORT $S eval run --benchmark b1k --split test --planner $API --decoding ${1##*-} --temperature 0 --max-tokens 1024 --concurrency 1$LIMIT --no-progress --out $O/$1" ;;
        rl) echo "$P training/rl.py --config training/configs/rl_qwen0.5b_cpu.yaml --set model=$O/sft/final --set threads=$THREADS --set grpo.max_steps=$RL_STEPS --train-file $O/mix.jsonl --out $O/rl \$(compgen -G $O/rl/checkpoint-\\* >/dev/null && echo --resume)" ;;
    esac
}

if [[ $DRY -eq 0 ]]; then
    mkdir -p "$OUT/logs" "$OUT/done" || exit 2
    [[ -s $OUT/steps.tsv ]] || printf 'step\tstatus\tseconds\tload\tcommand\n' >"$OUT/steps.tsv"
fi
active=0
[[ -z $FROM ]] && active=1
for name in "${STEPS[@]}"; do
    [[ $name == "$FROM" ]] && active=1
    if [[ $active -eq 1 ]]; then
        cmd=$(command_of "$name")
        if [[ -f $OUT/done/$name && $(cat "$OUT/done/$name") == "$cmd" ]]; then
            echo "== $name: done, skipped ($OUT/done/$name)"
        elif [[ $DRY -eq 1 ]]; then
            echo "== $name: $cmd"
        else
            load=$(cut -d' ' -f1-3 /proc/loadavg)
            echo "== $name: $cmd"
            echo "   started $(date -u +%H:%M:%S) UTC, load $load, log $OUT/logs/$name.log"
            started=$SECONDS
            ( renice -n 15 -p "$BASHPID" >/dev/null; eval "$cmd" ) >>"$OUT/logs/$name.log" 2>&1
            status=$?
            seconds=$((SECONDS - started))
            printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$seconds" "$load" "$cmd" >>"$OUT/steps.tsv"
            if [[ $status -ne 0 ]]; then
                echo "   FAILED with $status after $seconds s: $OUT/logs/$name.log" >&2
                exit "$status"
            fi
            echo "$cmd" >"$OUT/done/$name"
            echo "   ok ($seconds s)"
        fi
    fi
    [[ $name == "$UNTIL" ]] && break
done
exit 0
