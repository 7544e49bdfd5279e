#!/usr/bin/env bash
# The twenty-second session's device calls ran the twenty-first session's call script as it is
# (its header lists the env: TESTS, TRAIN with TRAIN_RECIPES / TRAIN_ARGS / TRAIN_TIMEOUT, ...).
exec bash "$(dirname "$0")/../h200-2026-11-27-block-cast/gpu-run.sh" "$@"
