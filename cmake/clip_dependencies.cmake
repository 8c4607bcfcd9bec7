# Optional dependencies, one switch each: CLIP_WITH_<NAME> = AUTO | ON | OFF.
#   AUTO (default)  use it when found, leave it out when not
#   ON              required: configuration stops with the reason when it is not found
#   OFF             left out even when installed (how CI proves the build needs none of them)
# Every decision is collected and printed once at the end of configuration, so what a build
# lacks is never a surprise at run time.

# Declares CLIP_WITH_<name>; `what` says what the dependency adds.
function(clip_dependency_option name what)
  set(CLIP_WITH_${name} AUTO CACHE STRING "${what}: AUTO (when found), ON (required), OFF")
  set_property(CACHE CLIP_WITH_${name} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${CLIP_WITH_${name}}" value)
  if(NOT value MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "CLIP_WITH_${name}=${CLIP_WITH_${name}}: expected AUTO, ON or OFF")
  endif()
  set_property(GLOBAL PROPERTY CLIP_DEP_WHAT_${name} "${what}")
endfunction()

# Sets `out` (in the caller) to TRUE unless CLIP_WITH_<name> is OFF: look for it only then.
function(clip_dependency_wanted name out)
  string(TOUPPER "${CLIP_WITH_${name}}" value)
  if(value STREQUAL "OFF")
    set(${out} FALSE PARENT_SCOPE)
  else()
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()

# Records whether <name> is used: sets CLIP_HAVE_<name> in the caller. `found` is the result of
# the search (ignored when OFF); `package` names what to install for it, for the ON error.
function(clip_dependency_resolve name found package)
  string(TOUPPER "${CLIP_WITH_${name}}" value)
  get_property(what GLOBAL PROPERTY CLIP_DEP_WHAT_${name})
  if(value STREQUAL "OFF")
    set(have FALSE)
    set(line "- ${name}: ${what}: left out (CLIP_WITH_${name}=OFF)")
  elseif(found)
    set(have TRUE)
    set(line "+ ${name}: ${what}")
  elseif(value STREQUAL "ON")
    message(FATAL_ERROR "CLIP_WITH_${name}=ON, but ${name} was not found (Debian: apt-get install "
                        "${package}); set CLIP_WITH_${name}=AUTO or OFF to build without ${what}")
  else()
    set(have FALSE)
    set(line "- ${name}: ${what}: left out (not found, Debian: ${package})")
  endif()
  set(CLIP_HAVE_${name} ${have} PARENT_SCOPE)
  set_property(GLOBAL APPEND PROPERTY CLIP_DEP_SUMMARY "${line}")
endfunction()

# A dependency that is one library and one header, found by name (CLFFT_LIBRARY and
# CLFFT_INCLUDE_DIR for name CLFFT), then resolved as above.
function(clip_dependency_library name library header package)
  clip_dependency_wanted(${name} want)
  set(found FALSE)
  if(want)
    find_library(${name}_LIBRARY ${library})
    find_path(${name}_INCLUDE_DIR ${header})
    if(${name}_LIBRARY AND ${name}_INCLUDE_DIR)
      set(found TRUE)
    endif()
  endif()
  clip_dependency_resolve(${name} "${found}" "${package}")
  set(CLIP_HAVE_${name} ${CLIP_HAVE_${name}} PARENT_SCOPE)
endfunction()

# Prints one line per optional dependency, in the order they were resolved.
function(clip_dependency_summary)
  get_property(lines GLOBAL PROPERTY CLIP_DEP_SUMMARY)
  message(STATUS "clip: optional dependencies (+ used, - left out; CLIP_WITH_<NAME>=AUTO|ON|OFF)")
  foreach(line IN LISTS lines)
    message(STATUS "  ${line}")
  endforeach()
endfunction()
