# libFuzzer targets: -DABLATE_FUZZ=ON with CMAKE_CXX_COMPILER=clang++-14 (libFuzzer is
# clang's; the main build uses g++). Builds one executable per reader in fuzz/, each linked
# with -fsanitize=fuzzer; cmake/sanitizers.cmake (included after this file) then adds
# AddressSanitizer, UBSan and the coverage instrumentation to them and to the code they reach.
# `make fuzzers` builds them all; scripts/fuzz.sh builds and runs them.
#
# The readers live in datasets/ and models/, which include only kernels/tensor.h and
# kernels/op_params.h of the kernels; the fuzz targets link those folders' sources with just
# those two kernel files (ablate_fuzz_readers), not the whole ablate_kernels library: clang 14
# cannot compile parts of kernels/ (lambdas capturing structured bindings, C++20, which clang
# accepts from version 16), and the backends are no part of what is fuzzed.

option(ABLATE_FUZZ "Build the libFuzzer targets of fuzz/ (needs clang)" OFF)

if(ABLATE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ABLATE_FUZZ=ON needs clang (libFuzzer), got ${CMAKE_CXX_COMPILER_ID}: "
                        "configure with -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  add_library(ablate_fuzz_readers STATIC ${ABLATE_DATASET_SOURCES} ${ABLATE_MODEL_SOURCES} ${ABLATE_EMBEDDED_CPP}
              kernels/tensor.cpp kernels/op_params.cpp)
  target_include_directories(ablate_fuzz_readers PRIVATE ${STB_INCLUDE_DIR})
  target_link_libraries(ablate_fuzz_readers PUBLIC ZLIB::ZLIB Threads::Threads)
  add_library(ablate_fuzz_support STATIC fuzz/memory_file.cpp fuzz/gzip_bytes.cpp)
  target_link_libraries(ablate_fuzz_support PUBLIC ZLIB::ZLIB)
  add_custom_target(fuzzers)
  # fuzz/NAME_fuzzer.cpp -> fuzz_NAME
  foreach(name idx cifar10 image_folder model_spec preset checkpoint)
    # The layer types register themselves (models/layer_type.h): compiled into each fuzzer
    # itself, not taken from the readers' archive, so the linker keeps them.
    add_executable(fuzz_${name} fuzz/${name}_fuzzer.cpp ${ABLATE_MODEL_LAYER_SOURCES})
    target_link_libraries(fuzz_${name} PRIVATE ablate_fuzz_readers ablate_fuzz_support)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    add_dependencies(fuzzers fuzz_${name})
  endforeach()
  target_sources(fuzz_checkpoint PRIVATE graph/checkpoint_file.cpp)  # the reader itself, kernels/tensor.cpp and zlib
endif()
