/*===- tessel_mamba2.h - C API of libtessel_mamba2 ------------------------===*
 *
 * The Mamba-2 forward pass (SSD, chunked; ../../../shared/MAMBA2.md) on
 * device pointers: the kernels (chunk_cumsum; chunk_state + state_passing
 * or fwd_pass_state; chunk_cb where it pays, then compute_out) compiled
 * ahead of time by tessel for
 * sm_90a, sm_100a and sm_103a, launched on the caller's CUDA stream. The
 * library links only libcuda; it uses the calling thread's current CUDA
 * context (the one PyTorch or the CUDA runtime made current).
 *
 *   tessel_mamba2_forward_args a;
 *   tessel_mamba2_args_init(&a);
 *   a.x = ...; a.dt = ...; a.A = ...; a.B = ...; a.C = ...; a.y = ...;
 *   a.chunk_size = 256;
 *   size_t bytes;
 *   if (tessel_mamba2_workspace_size(&a, &bytes)) error();
 *   a.workspace = <bytes of device memory>; a.workspace_bytes = bytes;
 *   if (tessel_mamba2_forward(&a)) puts(tessel_mamba2_last_error());
 *
 * Every argument is validated before anything is launched; a bad one returns
 * TESSEL_MAMBA2_INVALID_ARGUMENT and a message naming it, and no output is
 * written. Besides shapes and dtypes: x, B, C, z and y have 16-byte aligned
 * data, unit stride in the last dimension and positive strides that are
 * multiples of 16 bytes in the others (a dimension of size 1 may have any
 * stride), so p and n are multiples of 8; at most 65535 chunks
 * (ceil(L / chunk_size)) and b h <= 65535; no output (y, final_states)
 * shares memory with another tensor, nor the workspace with any.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TESSEL_MAMBA2_H
#define TESSEL_MAMBA2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TESSEL_MAMBA2_API __attribute__((visibility("default")))
#else
#define TESSEL_MAMBA2_API
#endif

#define TESSEL_MAMBA2_MAX_RANK 5

typedef enum tessel_mamba2_status {
  TESSEL_MAMBA2_OK = 0,
  /** A bad argument (shape, dtype, stride, alignment, null pointer, size). */
  TESSEL_MAMBA2_INVALID_ARGUMENT = 1,
  /** Valid but not supported by this build: no image for the device, or the
   *  library already in use from another CUDA context (one device per
   *  process). Sizes and dtypes outside what the header documents are
   *  INVALID_ARGUMENT. */
  TESSEL_MAMBA2_UNSUPPORTED = 2,
  /** A CUDA driver call failed (the message names it). */
  TESSEL_MAMBA2_CUDA_ERROR = 3
} tessel_mamba2_status;

typedef enum tessel_mamba2_dtype {
  TESSEL_MAMBA2_NONE = 0,
  TESSEL_MAMBA2_BF16 = 1,
  TESSEL_MAMBA2_F16 = 2,
  TESSEL_MAMBA2_F32 = 3,
  TESSEL_MAMBA2_I32 = 4
} tessel_mamba2_dtype;

/** A strided tensor in device memory. An optional tensor is absent when
 *  `data` is NULL (then its other fields are ignored). */
typedef struct tessel_mamba2_tensor {
  void *data;
  int32_t dtype; /* a tessel_mamba2_dtype */
  int32_t rank;
  int64_t sizes[TESSEL_MAMBA2_MAX_RANK];
  int64_t strides[TESSEL_MAMBA2_MAX_RANK]; /* in elements */
} tessel_mamba2_tensor;

/** Shapes use b (batch), L (sequence), h (heads), p (head dim), n (state
 *  dim), g (groups, dividing h). */
typedef struct tessel_mamba2_forward_args {
  /* Inputs. */
  tessel_mamba2_tensor x;  /* (b, L, h, p) bf16 or f16 */
  tessel_mamba2_tensor dt; /* (b, L, h) bf16, f16 or f32 */
  tessel_mamba2_tensor A;  /* (h) f32 */
  tessel_mamba2_tensor B;  /* (b, L, g, n), dtype of x */
  tessel_mamba2_tensor C;  /* (b, L, g, n), dtype of x */
  /* Optional inputs. */
  tessel_mamba2_tensor D;              /* (h) or (h, p) f32 */
  tessel_mamba2_tensor z;              /* (b, L, h, p), dtype of x */
  tessel_mamba2_tensor dt_bias;        /* (h) f32 */
  tessel_mamba2_tensor initial_states; /* (b, h, p, n) f32 */
  tessel_mamba2_tensor seq_idx;        /* (b, L) i32, nondecreasing per row:
                                          packed sequences; the state is reset
                                          where the value changes, and the
                                          token before token 0 counts as
                                          sequence 0 (initial_states reach a
                                          leading sequence 0 only), as in
                                          mamba_ssm. Not checked on the
                                          device. */
  /* Outputs. */
  tessel_mamba2_tensor y;            /* (b, L, h, p), dtype of x */
  tessel_mamba2_tensor final_states; /* optional, (b, h, p, n) f32; with
                                        chunk_size 128 or 256 each chunk's
                                        contribution passes through x's
                                        16-bit type on the way (the sum is
                                        f32) */
  /* Options. */
  int64_t chunk_size; /* 64, 128 or 256 (args_init leaves it 0: set it) */
  int32_t dt_softplus;
  double dt_limit_lo, dt_limit_hi; /* default 0 and +inf; 0 <= lo <= hi,
                                      hi > 0, lo finite, both within
                                      float's range (hi may be +inf) */
  /* Device memory for the intermediates (dt, dA_cumsum, chunk states, the
   * 16-bit per-chunk states when the forward computes them, and chunk_cb's
   * 16-bit C·Bᵀ blocks when it stores them), of at least
   * tessel_mamba2_workspace_size bytes, 256-byte aligned. A smaller
   * workspace that still holds what the other ways need makes the forward
   * take them (the chunk states walked in order, C·Bᵀ formed in
   * compute_out), whatever the environment forces. */
  void *workspace;
  size_t workspace_bytes;
  /* A CUstream (= cudaStream_t); NULL is the legacy default stream. */
  void *stream;
} tessel_mamba2_forward_args;

/** Zeroes `args` and sets the defaults (dt_limit = (0, +inf)). */
TESSEL_MAMBA2_API void tessel_mamba2_args_init(tessel_mamba2_forward_args *args);

/** Validates `args` (workspace excepted) and stores the workspace size the
 *  forward pass needs in *bytes (it depends on the sizes, the chunk size
 *  and TESSEL_MAMBA2_STATE_PATH, which decide how the chunk states are
 *  computed, and on heads per group and TESSEL_MAMBA2_CB, which decide
 *  whether C·Bᵀ is stored). */
TESSEL_MAMBA2_API int tessel_mamba2_workspace_size(const tessel_mamba2_forward_args *args,
                                 size_t *bytes);

/** Validates `args` and enqueues the forward pass on args->stream: y, and
 *  final_states when given. Returns a tessel_mamba2_status. */
TESSEL_MAMBA2_API int tessel_mamba2_forward(const tessel_mamba2_forward_args *args);

/** The message of the last failing call on this thread ("" if none). */
TESSEL_MAMBA2_API const char *tessel_mamba2_last_error(void);

/** Timing is per thread (off by default). Per-stage device times in ms of
 *  the last timed forward call on this thread: out[0..2] = chunk_cumsum,
 *  the chunk states (chunk_state + state_passing, or fwd_pass_state),
 *  compute_out (with chunk_cb, which stores the C·Bᵀ blocks compute_out
 *  reads, when the forward launches it). Timing records CUDA events around
 *  each stage;
 *  tessel_mamba2_last_times waits for them. Returns a status. */
TESSEL_MAMBA2_API void tessel_mamba2_set_timing(int on);
TESSEL_MAMBA2_API int tessel_mamba2_last_times(float out[3]);
/** The same call's per-kernel device times in ms: out[0..3] = chunk_cumsum,
 *  chunk_state (or fwd_pass_state), state_passing (about 0: two events in a
 *  row, when the chunk states took fwd_pass_state), compute_out (with
 *  chunk_cb). Returns a status. */
TESSEL_MAMBA2_API int tessel_mamba2_last_kernel_times(float out[4]);

/** Tuning (tessel-tune uses these; per thread). Every kernel launches, by
 *  default, the configuration that the tuned table compiled into this build
 *  gives for its variant and the nearest tuned shape on this device, else its
 *  default configuration.
 *
 *  tessel_mamba2_set_tunables("compute_out", "BLOCK_M=64,num_warps=8")
 *  makes the following forward calls on this thread launch that compiled
 *  configuration instead (tunables not named take the launched variant's
 *  defaults, which for some differ by variant: compute_out's BLOCK_M is 128
 *  at chunk 256 without seq_idx and 64 otherwise; a forward
 *  whose variant lacks it fails with TESSEL_MAMBA2_UNSUPPORTED, listing those
 *  compiled); NULL or "" goes back to the tuned choice. The kernels:
 *  chunk_cumsum, chunk_state, state_passing, fwd_pass_state, chunk_cb,
 *  compute_out.
 *  Returns a status (INVALID_ARGUMENT for an unknown kernel or tunable). */
TESSEL_MAMBA2_API int tessel_mamba2_set_tunables(const char *kernel,
                                                 const char *tunables);
/** The kernels the last timed forward call on this thread launched, one
 *  line each: "kernel<TAB>variant<TAB>shape key<TAB>tunables<TAB>
 *  compiled", where compiled lists (separated by ';') the tunables this build
 *  holds for that variant on this device. "" before any timed call. */
TESSEL_MAMBA2_API const char *tessel_mamba2_last_launches(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_MAMBA2_H */
