# serialcheck_reference_library(<room> [DEPS <target>...] [PRIVATE_DEPS <target>...])
#
# The library sc_<room> of the folder reference/<room>/, in the manner of
# abseil's absl_cc_library: its sources are every .cpp of the folder and of
# its internal/ folder (a new file is picked up by the next build), and its
# dependencies are stated.
#
#   DEPS          the rooms below it whose headers it includes (sc_<room>)
#                 and the packages its headers include; PUBLIC.
#   PRIVATE_DEPS  packages only its sources use.
#
# A room may include headers of its own folder and of the rooms its DEPS
# name, nothing else from reference/: scripts/check-layers (ctest
# build.layers) reads these lists and fails on any other include.
# The sources of every room are collected in the global property
# SC_REFERENCE_SOURCES (the Python module compiles them once more,
# position-independent).
function(serialcheck_reference_library room)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "DEPS;PRIVATE_DEPS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "serialcheck_reference_library(${room}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  file(GLOB sources CONFIGURE_DEPENDS
       ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/internal/*.cpp)
  set(target sc_${room})
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${target} PUBLIC ${ARG_DEPS})
    if(ARG_PRIVATE_DEPS)
      target_link_libraries(${target} PRIVATE ${ARG_PRIVATE_DEPS})
    endif()
    serialcheck_warnings(${target})
  else()
    # Headers only, so far.
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${target} INTERFACE ${ARG_DEPS} ${ARG_PRIVATE_DEPS})
  endif()
  set_property(GLOBAL APPEND PROPERTY SC_REFERENCE_SOURCES ${sources})
endfunction()
