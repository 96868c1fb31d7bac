// The options of `ablate run` (run_flags.h).
#include "bench/run/run_flags.h"

namespace ablate::bench::run {

const std::vector<FlagSpec>& run_flags() {
  static const std::vector<FlagSpec> flags = {
      {"framework", "NAME", "caffe (default), tensorflow, torch, theano: picks the preset"},
      {"dataset", "NAME", "fashion-mnist (default), mnist, cifar10, synthetic, synthetic-cifar10, folder[:HxW] (your images)"},
      {"data", "DIR", "directory of the data files (default: where Debian installs fashion-mnist)"},
      {"preset", "NAME|FILE", "training recipe (default: FRAMEWORK-FAMILY, e.g. caffe-mnist)"},
      {"model", "NAME|FILE", "model file or zoo name (default: the preset's)"},
      {"strategy", "NAME", "layerwise (Caffe), dynamic (Torch), static (TensorFlow, Theano); default: the preset's"},
      {"backend", "NAME", "reference, eigen, openblas, onednn (default: the preset's)"},
      {"plan", "auto|FILE|off", "a backend per layer: auto times every host backend, lowering and threading per layer on this "
                            "run's shapes and takes the fastest (cached per CPU, threads, model, shapes, dtype, "
                            "strategy, version); FILE replays a plan; off: every layer on --backend (default) (docs/plan.md)"},
      {"plan-cache", "DIR", "--plan auto: the plan cache folder (default ~/.cache/ablate/plans)"},
      {"plan-threading", "measure|run", "--plan auto: who owns the threads (library, openmp_images, openmp_frames) "
                                        "chosen per layer too (measure, default) or the run's --threading for every layer (run)"},
      {"threads", "N", "intra-op threads for OpenMP, the BLAS and oneDNN (default: the preset's; 'all')"},
      {"precision", "f32|f64", "floating-point type of the run"},
      {"iterations", "N", "training iterations (overrides the preset's length)"},
      {"epochs", "X", "training length in epochs of the training set"},
      {"scale", "X", "multiply the training length (the preset's or the flags') by X, e.g. 0.05"},
      {"batch", "N", "training batch size"},
      {"lr", "X", "base learning rate"},
      {"lr-policy", "NAME", "fixed, inv, step, multistep, exp_staircase, torch_decay, warmup_cosine"},
      {"optimizer", "NAME", "caffe_sgd, torch_sgd, adam, adamw (decoupled weight decay), gd"},
      {"warmup", "N", "warmup_cosine: iterations of linear warm-up"},
      {"max-iter", "N", "warmup_cosine: the iteration where the cosine reaches 0"},
      {"momentum", "X", "momentum"},
      {"weight-decay", "X", "weight decay (L2)"},
      {"transform", "SPEC", "training preprocessing rule (datasets/transforms.h), e.g. scale:1/255"},
      {"test-transform", "SPEC", "evaluation preprocessing rule (default: the training one)"},
      {"test-interval", "N", "test every N iterations (0: only at the end)"},
      {"test-interval-epochs", "X", "test every X epochs instead (Torch: 1)"},
      {"test-batch", "N", "test batch size"},
      {"test-iterations", "N", "test batches per test pass (0: the whole test set)"},
      {"validation-count", "N", "hold out the last N training images for validation (TF 5000, Theano 10000)"},
      {"validation-interval", "N", "validate every N iterations (0: never)"},
      {"patience", "N", "Theano's early stopping: stop once the iteration reaches the patience (0: off)"},
      {"patience-increase", "X", "on a clear improvement patience becomes iteration x X (Theano: 2)"},
      {"improvement-threshold", "X", "a clear improvement is an error below X x the best (Theano: 0.995)"},
      {"target-accuracy", "X", "report the training time at which a test first reaches X (0: none)"},
      {"train-accuracy-interval", "N", "evaluate the batch about to be trained every N steps (TF MNIST: 100)"},
      {"timing", "uniform|framework", "which training/testing times to print; both are recorded"},
      {"weight-average", "DECAY", "evaluate with an exponential moving average of the weights (TF: 0.9999; 0: off)"},
      {"caching-allocator", "on|off", "dynamic strategy: reuse freed blocks by size, as PyTorch"},
      {"malloc", "system|keep", "glibc malloc: its defaults (large freed blocks go back to the system: page faults every step) or keep them mapped"},
      {"huge-pages", "system|madvise", "host tensors as malloc gives them, or blocks of 2 MiB and more 2 MiB-aligned and marked for transparent huge pages"},
      {"per-sample", "", "dynamic strategy: forward/backward one sample at a time (Torch's CIFAR-10 script)"},
      {"blocked-layout", "on|off", "layerwise and dynamic strategies: channel-blocked activations between the layers the "
                                   "backend runs blocked (oneDNN's nChw16c, NHWC where 16 does not divide the channels; "
                                   "Intel Caffe's MKL-DNN engine, PyTorch's to_mkldnn); default off (NCHW)"},
      {"passes", "SPEC", "static strategy: all, all,-cse,-elementwise_fusion, or a list to keep"},
      {"executor", "NAME", "static strategy: sequential or parallel (inter-op pool)"},
      {"inter-op-threads", "N", "static strategy: the parallel executor's threads ('all')"},
      {"seed", "N", "seed of initialization, shuffling and dropout"},
      {"distributed", "", "data-parallel over MPI ranks (mpirun -np N ablate run ...): --batch is the global batch"},
      {"allreduce", "mpi|ring", "distributed: gradient all-reduce, MPI_Allreduce or our ring (default mpi)"},
      {"bucket-mb", "X", "distributed: gradients are all-reduced in buckets of X MiB (default 25)"},
      {"out", "FILE", "append the result record (one JSON line) to FILE"},
      {"profile", "FILE", "write a Chrome trace (Perfetto, chrome://tracing) of every op and step to FILE"},
      {"no-memory-check", "", "train even if the memory estimate exceeds the available memory"},
      {"conv-mode", "NAME", "eigen, openblas, onednn: convolution as per_image, batched, omp_per_image (default) or omp_batched im2col + GEMM"},
      {"conv-lowering", "NAME", "eigen, openblas, onednn: per_image_gemm, batched_gemm, eigen_spatial (eigen), direct (onednn), tiled_gemm (eigen: ablate's own GEMM) or omp_per_image (default; onednn: direct)"},
      {"threading", "NAME", "eigen, openblas, onednn: who owns the threads: library, openmp_images, openmp_frames (Torch7) or intra_inter (TensorFlow)"},
      {"onednn-conv-layout", "NAME", "onednn: convolution layout autotune (default), plain, nhwc or blocked"},
      {"pool-gradient", "first|all", "max pooling's gradient to the first maximum (default) or to every tied maximum (Theano)"},
      {"deterministic", "", "bit-identical repeated runs (same seed): an error if the backend cannot promise it"},
      {"check-gradients", "on|off", "stop as diverged when a gradient holds NaN or inf (default on)"},
      {"snapshot-every", "N", "write a snapshot every N iterations and at the end (default: only on SIGINT/SIGTERM)"},
      {"snapshot", "FILE", "the snapshot file (default: ablate-snapshot.ckpt)"},
      {"resume", "FILE", "continue the run saved in snapshot FILE (same configuration)"},
      {"snapshot-initial", "FILE", "write the initial weights (before step 1) as a snapshot to FILE"},
      {"no-random", "", "random parts off: no shuffling, dropout keeps all, a random training transform "
                        "replaced by the test transform (for step-by-step checks)"},
      {"curve-every", "N", "record the loss of step 1 and of every N-th step (default 10)"},
      {"curve-points", "N", "besides the recipe's tests, test at N evenly spaced points of the run, the last the final "
                            "test; outside every training time (default 0: the recipe's only; compare: 8)"},
      {"quiet", "", "print only the summary"},
  };
  return flags;
}

const FlagSpec* find_run_flag(const std::string& name) {
  for (const FlagSpec& f : run_flags())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace ablate::bench::run
