set -u
TESSEL_MAMBA2_LIBRARY=/tmp/t/h2.so python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -2
for lib in h1 h2 co_p32 co_p32_occ4; do
  echo "== $lib"
  TESSEL_MAMBA2_LIBRARY=/tmp/t/$lib.so python3 bench/mamba2.py --shape 1,65536,80,128,1,256 --shape 1,4096,80,128,1,256 --shape 1,65536,80,128,8,256 --runs 20 --warmup 5 2>&1 | grep -E "^b=.*bf16/dt bf16"
done
