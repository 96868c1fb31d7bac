# Optional MPI support (data-parallel training): ABLATE_MPI=AUTO|ON|OFF as ABLATE_CUDA.
# graph/distributed/ always builds; with MPI it defines ABLATE_HAVE_MPI and links Open MPI, without
# it a distributed run is an error naming the missing library. tests/distributed/ runs under
# mpiexec with 2 ranks on loopback (--oversubscribe; root allowed through Open MPI's variables),
# and is a skipped test with a message when MPI is absent; distributed_two_hosts runs it again
# with the ranks in two network namespaces over TCP (skipped where they cannot be made).
set(ABLATE_MPI "AUTO" CACHE STRING "Build MPI data-parallel training (graph/distributed): ON, OFF or AUTO")
set_property(CACHE ABLATE_MPI PROPERTY STRINGS ON OFF AUTO)
set(ABLATE_HAVE_MPI OFF)
if(NOT ABLATE_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS CXX QUIET)  # the C API, found through the C++ compiler
  if(MPI_CXX_FOUND)
    set(ABLATE_HAVE_MPI ON)
  elseif(ABLATE_MPI STREQUAL "ON")
    message(FATAL_ERROR "ABLATE_MPI=ON but no MPI was found (Debian: apt-get install openmpi-bin libopenmpi-dev)")
  endif()
endif()
message(STATUS "ablate: MPI ${ABLATE_HAVE_MPI}")

file(GLOB ABLATE_DISTRIBUTED_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/graph/distributed/*.cpp)
target_sources(ablate_graph PRIVATE ${ABLATE_DISTRIBUTED_SOURCES})
if(ABLATE_HAVE_MPI)
  target_link_libraries(ablate_graph PUBLIC MPI::MPI_CXX)
  target_compile_definitions(ablate_graph PUBLIC ABLATE_HAVE_MPI=1 PRIVATE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)  # C API only
endif()

if(ABLATE_TESTS)
  if(ABLATE_HAVE_MPI)
    file(GLOB ABLATE_DISTRIBUTED_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/distributed/*.cpp)
    add_executable(test_distributed ${ABLATE_DISTRIBUTED_TESTS})
    target_link_libraries(test_distributed PRIVATE ablate_bench GTest::gtest)
    target_compile_definitions(test_distributed PRIVATE ABLATE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
    add_test(NAME distributed_2_ranks
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:test_distributed> ${MPIEXEC_POSTFLAGS})
    # CI runs as root; Open MPI refuses root unless both variables are set.
    set_tests_properties(distributed_2_ranks PROPERTIES TIMEOUT 120
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1")
    # The same tests with the ranks on two "hosts" (network namespaces over a veth
    # pair, Open MPI over TCP); skipped with the reason where namespaces cannot be made.
    add_test(NAME distributed_two_hosts
             COMMAND bash ${CMAKE_SOURCE_DIR}/tests/distributed/two_hosts_test.sh $<TARGET_FILE:test_distributed>)
    set_tests_properties(distributed_two_hosts PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1")
  else()
    add_test(NAME distributed_2_ranks
             COMMAND sh -c "echo 'skipped: this build has no MPI (apt-get install openmpi-bin libopenmpi-dev, then reconfigure)'; exit 77")
    set_tests_properties(distributed_2_ranks PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()
