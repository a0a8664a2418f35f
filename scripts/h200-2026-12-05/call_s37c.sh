set -u
CALL=call_s37c_h100; W=/tmp/lead; O=$W/$CALL; mkdir -p "$O"
. scripts/gpu/steps.sh
env_line; cat "$O/env.txt"
unpack dist/m37/pack.tar.xz "$W/new"; use_host "$W/new"
for tb in reading_c_gpu:every_sample_starts_from_the_initial_c_and_gives_the_same_bits gemm_check_gpu:every_variant_and_cublas_pass_at_every_size; do
  bin=${tb%%:*}; n=${tb#*:}
  step 200 150 $bin.log "$W/new/tests/$bin" --ignored --exact --test-threads 1 --nocapture $n
  echo "$bin: $(grep -h -E "^test result|panicked" "$O/$bin.log" | head -2 | cut -c1-200) $(tail -1 "$O/$bin.log")"
done
unpack dist/w11/pack.tar.xz "$W/w11"; use_host "$W/w11"
step 300 150 w11_awkward.log "$W/w11/tests/wgemm_gpu" --ignored --exact --test-threads 1 --nocapture every_wgemm_line_passes_the_check_at_awkward_sizes
grep -h -E "W11|FAILED|test result|panicked|rc=" "$O/w11_awkward.log" | cut -c1-300 | head
date -u; save
