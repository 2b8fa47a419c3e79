#!/usr/bin/env bash
# `gpubench collective` through real MPI on a machine without a GPU: two ranks start, agree that
# neither has a GPU, and both stop with exit 1, rank 0 saying why for every rank; alone it asks for mpirun;
# `list` marks the pairs that run one process per GPU and `run` points them to `collective`.
#
#   tests/mpi/collective_cli_test.sh MPIEXEC GPUBENCH
set -uo pipefail
mpiexec=$1
gb=$2
fail() { echo "collective_cli_test: FAILED: $*" >&2; exit 1; }
passed=0

out=$("$gb" collective --quick 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "found 1 process: launch it with \`mpirun -np 2 gpubench collective" <<<"$out" ||
  fail "alone: exit $rc: $out"
passed=$((passed + 1))

if "$gb" device >/dev/null 2>&1; then
  echo "collective_cli_test: this machine has a GPU; the no-GPU case is not tested here"
else
  out=$(timeout 120 "$mpiexec" -n 2 "$gb" collective --quick 2>&1); rc=$?
  [ "$rc" -eq 1 ] || fail "two ranks without a GPU: exit $rc, not 1: $out"
  grep -q "gpubench: error: every rank: No CUDA device found" <<<"$out" || fail "the ranks' reason is not named: $out"
  [ "$(grep -c "gpubench: error:" <<<"$out")" -eq 1 ] || fail "more than rank 0 printed the error: $out"
  passed=$((passed + 1))
fi

# With NCCL the pairs are built and marked; without it they are listed as absent, with the reason.
out=$(COLUMNS=200 "$gb" list --chapter 8 2>&1)  # each line whole, as a wide terminal shows it
if grep -q "allreduce_ranks.*" <<<"$out" && grep -q "NOT IN THIS BUILD: NCCL was not found" <<<"$out"; then
  nccl=0
else
  nccl=1
  grep -q "launch:   one process per GPU: mpirun -np N gpubench collective --pair allreduce_ranks" <<<"$out" ||
    fail "list does not mark allreduce_ranks: $out"
fi
passed=$((passed + 1))

out=$("$gb" run --pair allreduce_ranks 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "run --pair allreduce_ranks: exit $rc: $out"
if [ "$nccl" = 1 ]; then
  grep -q "runs one process per GPU: launch it with \`mpirun -np 2 gpubench collective --pair allreduce_ranks\`" <<<"$out" ||
    fail "run --pair allreduce_ranks: $out"
fi
passed=$((passed + 1))

echo "collective_cli_test: $passed passed, 0 failed"
