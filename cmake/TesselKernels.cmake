# tessel_add_kernels(<name>
#                    KERNELS <kernel>...
#                    [TARGETS sm_90a sm_100a sm_103a]
#                    [DEFINES NAME=VALUE...]
#                    [NAMESPACE <ns>]
#                    [VARIANTS]
#                    [SWEEP NAME=V1,V2...]
#                    [TUNED <table>])
#
# Compiles registered tessel kernels ahead of time, at build time, with
# tesselc, and makes a static library <name> of the generated launchers and
# embedded cubins: `#include "<name>.h"` and call <ns>::<kernel>(...). The
# library links only the tessel runtime (CUDA driver API).
#
# Needs TESSEL_TESSELC (the tesselc executable) and the target
# tessel::runtime, both provided by find_package(Tessel) or by tessel's own
# build. VARIANTS compiles every combination of the kernels' variant
# constants (dtypes, chunk lengths) that DEFINES does not fix; the launchers
# then take a <kernel>_variant to choose one. SWEEP also compiles every
# point of the listed tunables' values (tessel-tune's search space: the
# launchers take a <kernel>_tunables to choose one). TUNED compiles the
# configurations of a tuned table (tessel-tune's output) and makes the
# launchers pick them by shape on the table's targets.
function(tessel_add_kernels name)
  cmake_parse_arguments(ARG "VARIANTS" "NAMESPACE;TUNED"
    "TARGETS;DEFINES;KERNELS;SWEEP" ${ARGN})
  if(NOT ARG_KERNELS)
    message(FATAL_ERROR "tessel_add_kernels(${name}): no KERNELS given")
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS sm_103a)
  endif()
  if(NOT ARG_NAMESPACE)
    set(ARG_NAMESPACE ${name})
  endif()
  if(NOT TESSEL_TESSELC)
    message(FATAL_ERROR "tessel_add_kernels: TESSEL_TESSELC is not set")
  endif()
  string(REPLACE ";" "," targets "${ARG_TARGETS}")
  set(defines)
  foreach(d ${ARG_DEFINES})
    list(APPEND defines -D ${d})
  endforeach()
  if(ARG_VARIANTS)
    list(APPEND defines --variants)
  endif()
  foreach(s ${ARG_SWEEP})
    list(APPEND defines --sweep ${s})
  endforeach()
  set(tuned_depends)
  if(ARG_TUNED)
    get_filename_component(tuned ${ARG_TUNED} ABSOLUTE)
    list(APPEND defines --tuned ${tuned})
    set(tuned_depends ${tuned})
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name})
  add_custom_command(
    OUTPUT ${dir}/${name}.h ${dir}/${name}.cpp
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${TESSEL_TESSELC} --target=${targets} -o ${dir} --library ${name}
            --namespace ${ARG_NAMESPACE} ${defines} ${ARG_KERNELS}
    DEPENDS ${TESSEL_TESSELC} ${tuned_depends}
    COMMENT "tesselc: ${ARG_KERNELS} for ${targets} -> ${name}"
    VERBATIM)
  add_library(${name} STATIC ${dir}/${name}.cpp)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PUBLIC ${dir})
  target_link_libraries(${name} PUBLIC tessel::runtime)
  target_compile_features(${name} PUBLIC cxx_std_20)
endfunction()
