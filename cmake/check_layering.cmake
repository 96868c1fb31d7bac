# The layering test (ctest -R layering): each folder includes only folders below it in the
# house of DESIGN.md (kernels -> datasets -> models -> graph -> bench), and inside bench/ the
# command line sits on the experiments, which sit on the run itself (cli -> experiments -> run).
# Fails naming every file and include that reaches upwards.
#   cmake -DROOT=<source dir> -P cmake/check_layering.cmake

# FOLDER|FOLDERS IT MUST NOT INCLUDE (a regular expression over the include path)
set(rules
  "kernels|(datasets|models|graph|bench)/"
  "datasets|(models|graph|bench)/"
  "models|(graph|bench)/"
  "graph|bench/"
  "bench/run|bench/(experiments|cli)/"
  "bench/experiments|bench/cli/")

set(violations "")
foreach(rule ${rules})
  string(REPLACE "|" ";" parts "${rule}")
  list(GET parts 0 folder)
  list(SUBLIST parts 1 -1 above)
  string(REPLACE ";" "|" above "${above}")
  file(GLOB_RECURSE files "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.cu" "${ROOT}/${folder}/*.cuh")
  foreach(file ${files})
    file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"(${above})")
    foreach(line ${lines})
      file(RELATIVE_PATH relative "${ROOT}" "${file}")
      string(APPEND violations "  ${relative}: ${line}\n")
    endforeach()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "includes that reach up the house (DESIGN.md; bench: cli -> experiments -> run):\n${violations}")
endif()
message(STATUS "layering: every folder includes only those below it")
