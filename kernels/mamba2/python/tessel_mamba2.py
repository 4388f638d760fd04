"""ctypes binding of libtessel_mamba2 (the Mamba-2 SSD forward pass compiled by tessel).

No compiled extension, no build step: this file declares the C structures of
../tessel_mamba2.h and calls the shared library on PyTorch CUDA tensors.

    from tessel_mamba2 import mamba_chunk_scan_combined
    y = mamba_chunk_scan_combined(x, dt, A, B, C, chunk_size=256, D=D,
                                  dt_bias=dt_bias, dt_softplus=True)

`mamba_chunk_scan_combined` has the meaning, shapes and return values of
mamba_ssm's forward function of the same name (see ../../../shared/MAMBA2.md).
Tensors are passed exactly as given (pointer, dtype, sizes, strides): nothing is
made contiguous or cast; the library validates every argument and rejects a bad
one with a message that names it (raised here as `InvalidArgument`).

The library is found, in this order, at
  1. $TESSEL_MAMBA2_LIBRARY (a path to the .so),
  2. libtessel_mamba2.so next to this file,
  3. <repo>/build/gpu/libtessel_mamba2.so (../../../build/gpu from this file).
"""

import ctypes
import operator
import os
import struct

import torch

__all__ = [
    "mamba_chunk_scan_combined",
    "workspace_bytes",
    "set_timing",
    "last_times",
    "last_kernel_times",
    "set_tunables",
    "last_launches",
    "TesselMamba2Error",
    "InvalidArgument",
    "Unsupported",
    "CudaError",
    "LIBRARY_PATH",
]

# --------------------------------------------------------------------------
# Errors.


class TesselMamba2Error(RuntimeError):
    """A tessel_mamba2 call failed; `.status` is the tessel_mamba2_status."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class InvalidArgument(TesselMamba2Error, ValueError):
    """TESSEL_MAMBA2_INVALID_ARGUMENT: a bad shape, dtype, stride, alignment,
    pointer or size (also raised here for a tensor on the wrong device)."""


class Unsupported(TesselMamba2Error):
    """TESSEL_MAMBA2_UNSUPPORTED: valid, but not compiled into this build."""


class CudaError(TesselMamba2Error):
    """TESSEL_MAMBA2_CUDA_ERROR: a CUDA driver call failed."""


STATUS_OK = 0
STATUS_INVALID_ARGUMENT = 1
STATUS_UNSUPPORTED = 2
STATUS_CUDA_ERROR = 3

_ERROR_CLASSES = {
    STATUS_INVALID_ARGUMENT: InvalidArgument,
    STATUS_UNSUPPORTED: Unsupported,
    STATUS_CUDA_ERROR: CudaError,
}

# --------------------------------------------------------------------------
# The C structures, field for field as in tessel_mamba2.h.

MAX_RANK = 5  # TESSEL_MAMBA2_MAX_RANK

# tessel_mamba2_dtype; any other torch dtype is passed as 0 (NONE) so that
# the library rejects it with its own message.
_DTYPE_CODES = {
    torch.bfloat16: 1,  # TESSEL_MAMBA2_BF16
    torch.float16: 2,  # TESSEL_MAMBA2_F16
    torch.float32: 3,  # TESSEL_MAMBA2_F32
    torch.int32: 4,  # TESSEL_MAMBA2_I32
}


class TesselMamba2Tensor(ctypes.Structure):
    """tessel_mamba2_tensor."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("sizes", ctypes.c_int64 * MAX_RANK),
        ("strides", ctypes.c_int64 * MAX_RANK),  # in elements
    ]


_TENSOR_FIELDS = (
    "x", "dt", "A", "B", "C",  # inputs
    "D", "z", "dt_bias", "initial_states", "seq_idx",  # optional inputs
    "y", "final_states",  # outputs
)


class TesselMamba2ForwardArgs(ctypes.Structure):
    """tessel_mamba2_forward_args."""

    _fields_ = [(name, TesselMamba2Tensor) for name in _TENSOR_FIELDS] + [
        ("chunk_size", ctypes.c_int64),
        ("dt_softplus", ctypes.c_int32),
        ("dt_limit_lo", ctypes.c_double),
        ("dt_limit_hi", ctypes.c_double),
        ("workspace", ctypes.c_void_p),
        ("workspace_bytes", ctypes.c_size_t),
        ("stream", ctypes.c_void_p),
    ]


# Whole tensor structs and groups of scalars are written with struct.pack_into
# at the field offsets (one C call each instead of a dozen ctypes setattrs).
# Native mode ('@') uses the C alignment rules, the same as ctypes.
_TENSOR_PACK = struct.Struct("@Pii%dq%dq" % (MAX_RANK, MAX_RANK))
_OPTIONS_PACK = struct.Struct("@qidd")  # chunk_size, dt_softplus, dt_limit_lo, dt_limit_hi
_WORKSPACE_PACK = struct.Struct("@PNP")  # workspace, workspace_bytes, stream
_OFF = {name: getattr(TesselMamba2ForwardArgs, name).offset for name, _ in TesselMamba2ForwardArgs._fields_}
_PAD = tuple((0,) * (MAX_RANK - r) for r in range(MAX_RANK + 1))


def _check_layout():
    T, A = TesselMamba2Tensor, TesselMamba2ForwardArgs
    ptr = ctypes.sizeof(ctypes.c_void_p)
    if _TENSOR_PACK.size != ctypes.sizeof(T) or ctypes.sizeof(T) != ptr + 8 + 16 * MAX_RANK:
        raise ImportError("tessel_mamba2: unexpected size of tessel_mamba2_tensor")
    o = _OFF
    ok = (
        all(o[name] == i * ctypes.sizeof(T) for i, name in enumerate(_TENSOR_FIELDS))
        and o["chunk_size"] == len(_TENSOR_FIELDS) * ctypes.sizeof(T)
        and o["dt_softplus"] == o["chunk_size"] + 8
        and o["dt_limit_lo"] == o["chunk_size"] + 16
        and o["dt_limit_hi"] == o["dt_limit_lo"] + 8
        and o["workspace"] == o["chunk_size"] + _OPTIONS_PACK.size
        and o["workspace_bytes"] == o["workspace"] + ptr
        and o["stream"] == o["workspace_bytes"] + ctypes.sizeof(ctypes.c_size_t)
        and ctypes.sizeof(A) == o["stream"] + ptr
        and _WORKSPACE_PACK.size == ctypes.sizeof(A) - o["workspace"]
    )
    if not ok:
        raise ImportError("tessel_mamba2: unexpected layout of tessel_mamba2_forward_args")


_check_layout()

# --------------------------------------------------------------------------
# The library.


def _library_candidates():
    env = os.environ.get("TESSEL_MAMBA2_LIBRARY")
    if env:
        return [env]  # explicit: no fallback to another copy
    here = os.path.dirname(os.path.abspath(__file__))
    return [
        os.path.join(here, "libtessel_mamba2.so"),
        os.path.normpath(os.path.join(here, "..", "..", "..", "build", "gpu", "libtessel_mamba2.so")),
    ]


def _load_library():
    candidates = _library_candidates()
    for path in candidates:
        if os.path.exists(path):
            return ctypes.CDLL(path), path
    raise OSError(
        "tessel_mamba2: libtessel_mamba2.so not found; looked at: "
        + ", ".join(candidates)
        + " (set TESSEL_MAMBA2_LIBRARY to the library's path)"
    )


_lib, LIBRARY_PATH = _load_library()

_ARGS_P = ctypes.POINTER(TesselMamba2ForwardArgs)

_args_init = _lib.tessel_mamba2_args_init
_args_init.argtypes = [_ARGS_P]
_args_init.restype = None

_workspace_size = _lib.tessel_mamba2_workspace_size
_workspace_size.argtypes = [_ARGS_P, ctypes.POINTER(ctypes.c_size_t)]
_workspace_size.restype = ctypes.c_int

_forward = _lib.tessel_mamba2_forward
_forward.argtypes = [_ARGS_P]
_forward.restype = ctypes.c_int

_last_error = _lib.tessel_mamba2_last_error
_last_error.argtypes = []
_last_error.restype = ctypes.c_char_p

_set_timing = _lib.tessel_mamba2_set_timing
_set_timing.argtypes = [ctypes.c_int]
_set_timing.restype = None

_last_times = _lib.tessel_mamba2_last_times
_last_times.argtypes = [ctypes.POINTER(ctypes.c_float)]
_last_times.restype = ctypes.c_int
_last_kernel_times = _lib.tessel_mamba2_last_kernel_times
_last_kernel_times.argtypes = [ctypes.POINTER(ctypes.c_float)]
_last_kernel_times.restype = ctypes.c_int
_set_tunables = _lib.tessel_mamba2_set_tunables
_set_tunables.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
_set_tunables.restype = ctypes.c_int
_last_launches = _lib.tessel_mamba2_last_launches
_last_launches.argtypes = []
_last_launches.restype = ctypes.c_char_p


def _make_template():
    a = TesselMamba2ForwardArgs()
    _args_init(ctypes.byref(a))
    # A cheap ABI check: args_init zeroes everything and sets dt_limit = (0, +inf).
    # With a field order different from the library's, +inf lands elsewhere.
    if not (a.dt_limit_lo == 0.0 and a.dt_limit_hi == float("inf") and a.chunk_size == 0
            and a.dt_softplus == 0 and not a.workspace and a.workspace_bytes == 0 and not a.stream
            and all(not getattr(a, name).data for name in _TENSOR_FIELDS)):
        raise ImportError(
            "tessel_mamba2: tessel_mamba2_args_init did not produce the expected defaults; "
            "the structures declared here do not match " + LIBRARY_PATH)
    return bytes(a)


_TEMPLATE = _make_template()
_from_template = TesselMamba2ForwardArgs.from_buffer_copy

try:  # the raw cudaStream_t of the current stream, without building a Stream object
    _raw_stream = torch._C._cuda_getCurrentRawStream
except AttributeError:  # pragma: no cover
    def _raw_stream(index):
        return torch.cuda.current_stream(index).cuda_stream

_Tensor = torch.Tensor
_pack_tensor = _TENSOR_PACK.pack_into
_pack_options = _OPTIONS_PACK.pack_into
_pack_workspace = _WORKSPACE_PACK.pack_into
_codes_get = _DTYPE_CODES.get
_uint8 = torch.uint8
_float32 = torch.float32


def _raise(status):
    message = _last_error()
    message = message.decode("utf-8", "replace") if message else ""
    cls = _ERROR_CLASSES.get(status, TesselMamba2Error)
    raise cls(message or ("tessel_mamba2 failed with status %d" % status), status)


def _check_tensor(t, name, device_index):
    """A torch CUDA tensor on the device of x: checked here, in Python, because
    the library only sees a pointer."""
    if not isinstance(t, _Tensor):
        raise TypeError("tessel_mamba2: %s must be a torch.Tensor, got %s" % (name, type(t).__name__))
    index = t.get_device()
    if index != device_index:
        if index < 0:
            where = "a %s tensor" % t.device.type
        else:
            where = "on cuda:%d" % index
        raise InvalidArgument(
            "tessel_mamba2: %s is %s; every tensor must be a CUDA tensor on x's device (cuda:%d)"
            % (name, where, device_index), STATUS_INVALID_ARGUMENT)
    _check_elements(t, name)


def _check_elements(t, name):
    """A tensor without elements has a null data_ptr(), which the library
    reads as an optional tensor left out."""
    if t.numel() == 0:
        raise InvalidArgument("tessel_mamba2: %s has no elements (shape %s)"
                              % (name, tuple(t.shape)), STATUS_INVALID_ARGUMENT)


def _pack(args, name, t):
    rank = t.dim()
    if rank <= MAX_RANK:
        pad = _PAD[rank]
        _pack_tensor(args, _OFF[name], t.data_ptr(), _codes_get(t.dtype, 0), rank,
                     *t.shape, *pad, *t.stride(), *pad)
    else:  # the library rejects the rank; it still gets the first sizes
        _pack_tensor(args, _OFF[name], t.data_ptr(), _codes_get(t.dtype, 0), rank,
                     *t.shape[:MAX_RANK], *t.stride()[:MAX_RANK])


# Where workspace_bytes describes outputs it does not allocate: 256-byte
# aligned and never dereferenced (the size query reads descriptions only).
_UNALLOCATED = 256


def _describe(args, name, dtype, shape):
    """Packs a contiguous tensor description of `shape` at _UNALLOCATED."""
    rank = len(shape)
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    strides.reverse()
    pad = _PAD[rank]
    _pack_tensor(args, _OFF[name], _UNALLOCATED, _codes_get(dtype, 0), rank,
                 *shape, *pad, *strides, *pad)


def _prepare(x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states, seq_idx,
             dt_softplus, dt_limit, return_final_states, out, final_states_out,
             allocate=True):
    """Checks what Python must (tensors, devices, numbers), packs the argument
    struct and asks the library for the workspace size. Returns (args, y,
    final_states, x's device index, workspace bytes). Without `allocate`
    (workspace_bytes), the outputs are described, not allocated: y and
    final_states come back None."""
    if not isinstance(x, _Tensor):
        raise TypeError("tessel_mamba2: x must be a torch.Tensor, got %s" % type(x).__name__)
    dev = x.get_device()
    if dev < 0:
        raise InvalidArgument(
            "tessel_mamba2: x is a %s tensor; the inputs must be CUDA tensors" % x.device.type,
            STATUS_INVALID_ARGUMENT)
    _check_elements(x, "x")
    optional = (("D", D), ("z", z), ("dt_bias", dt_bias),
                ("initial_states", initial_states), ("seq_idx", seq_idx))
    for name, t in (("dt", dt), ("A", A), ("B", B), ("C", C)):
        _check_tensor(t, name, dev)
    for name, t in optional:
        if t is not None:
            _check_tensor(t, name, dev)
    if out is not None:
        _check_tensor(out, "out (y)", dev)
    if final_states_out is not None:
        _check_tensor(final_states_out, "final_states_out (final_states)", dev)

    try:
        chunk_size = operator.index(chunk_size)
    except TypeError:
        raise TypeError("tessel_mamba2: chunk_size must be an integer, got %s"
                        % type(chunk_size).__name__) from None
    if not -(1 << 63) <= chunk_size < (1 << 63):
        raise InvalidArgument("tessel_mamba2: chunk_size %d is out of range" % chunk_size,
                              STATUS_INVALID_ARGUMENT)
    try:
        lo, hi = dt_limit
        lo = float(lo)
        hi = float(hi)
    except (TypeError, ValueError):
        raise TypeError("tessel_mamba2: dt_limit must be a pair of numbers (lo, hi), got %r"
                        % (dt_limit,)) from None

    device = x.device
    # The outputs' shapes (other ranks the library rejects, and says so).
    y_shape = tuple(x.shape) if x.dim() == 4 else (0,)
    if x.dim() == 4 and B.dim() >= 1:
        b, _, h, p = x.shape
        fs_shape = (b, h, p, B.shape[-1])
    else:
        fs_shape = (0,)
    with torch.cuda.device(dev):
        args = _from_template(_TEMPLATE)
        for name, t in (("x", x), ("dt", dt), ("A", A), ("B", B), ("C", C)) + optional:
            if t is not None:
                _pack(args, name, t)
        if allocate:
            y = out if out is not None else torch.empty(y_shape, dtype=x.dtype, device=device)
            final_states = final_states_out
            if final_states is None and return_final_states:
                final_states = torch.empty(fs_shape, dtype=_float32, device=device)
            _pack(args, "y", y)
            if final_states is not None:
                _pack(args, "final_states", final_states)
        else:
            y = final_states = None
            _describe(args, "y", x.dtype, y_shape)
            if return_final_states:
                _describe(args, "final_states", _float32, fs_shape)
        _pack_options(args, _OFF["chunk_size"], chunk_size, 1 if dt_softplus else 0, lo, hi)

        nbytes = ctypes.c_size_t(0)
        status = _workspace_size(args, ctypes.byref(nbytes))
        if status:
            _raise(status)
        nbytes = nbytes.value
    return args, y, final_states, dev, nbytes


def mamba_chunk_scan_combined(x, dt, A, B, C, chunk_size, D=None, z=None, dt_bias=None,
                              initial_states=None, seq_idx=None, dt_softplus=False,
                              dt_limit=(0.0, float("inf")), return_final_states=False,
                              *, out=None, final_states_out=None, workspace=None):
    """The Mamba-2 chunked SSD forward pass (mamba_ssm's mamba_chunk_scan_combined).

    x: (b, L, h, p) bf16/fp16; dt: (b, L, h) bf16/fp16/fp32; A: (h) fp32;
    B, C: (b, L, g, n) in x's dtype; D: (h) or (h, p) fp32; z: (b, L, h, p) in
    x's dtype; dt_bias: (h) fp32; initial_states: (b, h, p, n) fp32;
    seq_idx: (b, L) int32, nondecreasing per row; chunk_size: 64, 128 or 256.

    Returns y (b, L, h, p) in x's dtype, or (y, final_states) with final_states
    (b, h, p, n) fp32 when return_final_states.

    Keyword-only extensions: `out` (y, preallocated) and `final_states_out`
    (final states, preallocated fp32 (b, h, p, n)) are written in place and
    returned instead of fresh tensors. `final_states_out` is written even when
    return_final_states is False (then only y is returned). `workspace` (a
    contiguous CUDA tensor on x's device, 256-byte aligned, at least
    workspace_bytes(...) bytes; e.g. kept across calls or captured in a CUDA
    graph) holds the intermediates instead of a fresh allocation. The kernels
    use it on the current stream after the call returns: it must not be
    reused or freed out of that stream's order (record_stream it when it was
    allocated on another). A smaller one than workspace_bytes names may still
    run, on a path that needs less (the walk over chunks in order, or C·Bᵀ
    formed per head), or be refused.

    Runs on torch.cuda.current_stream(x.device). Raises InvalidArgument (a
    ValueError) for a bad argument, TypeError for an argument that is not a
    tensor, Unsupported / CudaError for the other failures.
    """
    args, y, final_states, dev, nbytes = _prepare(
        x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states, seq_idx, dt_softplus,
        dt_limit, return_final_states, out, final_states_out)
    with torch.cuda.device(dev):
        if workspace is not None:
            _check_tensor(workspace, "workspace", dev)
            if not workspace.is_contiguous():
                raise InvalidArgument("tessel_mamba2: workspace must be contiguous",
                                      STATUS_INVALID_ARGUMENT)
            wptr = workspace.data_ptr()
            nbytes = workspace.numel() * workspace.element_size()
        elif nbytes:
            workspace = torch.empty(nbytes, dtype=_uint8, device=x.device)
            wptr = workspace.data_ptr()
            assert wptr % 256 == 0, "torch returned a workspace that is not 256-byte aligned"
        else:
            workspace = None
            wptr = 0
        _pack_workspace(args, _OFF["workspace"], wptr, nbytes, _raw_stream(dev))
        status = _forward(args)
        # A workspace allocated here is released here; the caching allocator
        # reuses it only in the order of the current stream, on which the
        # kernels were enqueued. (The library checks a given one's size and
        # alignment.)
        del workspace
        if status:
            _raise(status)

    if return_final_states:
        return y, final_states
    return y


def workspace_bytes(x, dt, A, B, C, chunk_size, D=None, z=None, dt_bias=None,
                    initial_states=None, seq_idx=None, dt_softplus=False,
                    dt_limit=(0.0, float("inf")), return_final_states=False):
    """The workspace, in bytes, that mamba_chunk_scan_combined needs for these
    arguments (its `workspace`); checks them as that call does."""
    # (y and final_states are described, as the call would allocate them,
    # not allocated: the library checks every argument's description before
    # it sizes the workspace.)
    return _prepare(x, dt, A, B, C, chunk_size, D, z, dt_bias, initial_states, seq_idx,
                    dt_softplus, dt_limit, return_final_states, None, None,
                    allocate=False)[4]


def set_timing(on):
    """Per-kernel device timing of the following forward calls on this thread
    (CUDA events around each kernel; adds some overhead)."""
    _set_timing(1 if on else 0)


def last_times():
    """(chunk_cumsum_ms, states_ms, compute_out_ms) of the last forward
    call on this thread made with timing on (states_ms: chunk_state +
    state_passing, or fwd_pass_state); waits for its events."""
    out = (ctypes.c_float * 3)()
    status = _last_times(out)
    if status:
        _raise(status)
    return (out[0], out[1], out[2])


def last_kernel_times():
    """(chunk_cumsum_ms, chunk_state_ms, state_passing_ms, compute_out_ms) of
    the last timed forward call on this thread; when the chunk states took
    fwd_pass_state, its time is chunk_state_ms and state_passing_ms is about
    0 (two events in a row)."""
    out = (ctypes.c_float * 4)()
    status = _last_kernel_times(out)
    if status:
        _raise(status)
    return (out[0], out[1], out[2], out[3])


def set_tunables(kernel, tunables=None):
    """Forces `kernel`'s tunables ("NAME=VALUE,..."; None: the tuned choice
    again) for the following forward calls on this thread (tessel-tune)."""
    status = _set_tunables(kernel.encode(), tunables.encode() if tunables else None)
    if status:
        _raise(status)


def last_launches():
    """What the last timed forward call on this thread launched: a list of
    (kernel, variant, shape key, tunables, [compiled tunables of the
    variant on this device])."""
    out = []
    for line in (_last_launches() or b"").decode().splitlines():
        kernel, variant, shape, tunables, compiled = line.split("\t")
        out.append((kernel, variant, shape, tunables, compiled.split(";") if compiled else []))
    return out
