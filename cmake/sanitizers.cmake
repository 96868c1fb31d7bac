# Sanitizer builds: -DABLATE_SANITIZE=ON (= address,undefined) or any list that
# -fsanitize= accepts ("address", "undefined", "address,undefined"). Included at the end of the
# top CMakeLists.txt, it adds the flags to every C++ target defined so far, in this directory and
# below, so one switch covers the libraries, the ablate program, the tests and the fuzz targets.
# UndefinedBehaviorSanitizer does not recover: the first finding aborts, so a test fails.
# scripts/sanitize.sh is the one-command run; the suppressions for system libraries (not for
# the project) are in cmake/sanitizer_suppressions/.

set(ABLATE_SANITIZE "OFF" CACHE STRING "Sanitizers for every target: OFF, ON (= address,undefined) or a -fsanitize= list")
if(ABLATE_FUZZ AND ABLATE_SANITIZE STREQUAL "OFF")
  set(ABLATE_SANITIZE "ON")  # libFuzzer finds little without AddressSanitizer and UBSan
endif()

if(NOT ABLATE_SANITIZE STREQUAL "OFF")
  set(ablate_sanitizers "${ABLATE_SANITIZE}")
  if(ABLATE_SANITIZE STREQUAL "ON")
    set(ablate_sanitizers "address,undefined")
  endif()
  set(ablate_sanitize_compile -fsanitize=${ablate_sanitizers} -fno-omit-frame-pointer)
  if(ablate_sanitizers MATCHES "undefined")
    list(APPEND ablate_sanitize_compile -fno-sanitize-recover=undefined)
  endif()
  if(ABLATE_FUZZ)
    # Coverage feedback for libFuzzer in every library the fuzz targets reach.
    list(APPEND ablate_sanitize_compile -fsanitize=fuzzer-no-link)
  endif()
  message(STATUS "ablate: sanitizers ${ablate_sanitizers}")

  # Every target of `dir` and of its sub-directories.
  function(ablate_sanitize_targets dir)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target ${targets})
      get_target_property(type ${target} TYPE)
      if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
        target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${ablate_sanitize_compile}>)
        if(NOT type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY)$")
          target_link_options(${target} PRIVATE -fsanitize=${ablate_sanitizers})
        endif()
      endif()
    endforeach()
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    foreach(subdir ${subdirs})
      ablate_sanitize_targets(${subdir})
    endforeach()
  endfunction()
  ablate_sanitize_targets(${CMAKE_SOURCE_DIR})
endif()
