# `import ptxdwarf`: the pybind11 extension and its package, built when
# Python's headers and pybind11 are found (PTXDWARF_PYTHON, default ON: then
# a machine without them builds everything else and says why not this).
#
# The interpreter is the `python3` first on PATH (the one a user runs), or
# -DPython_EXECUTABLE=/path/to/python to choose another.
option(PTXDWARF_PYTHON "Build the Python package (python/) when Python's headers and pybind11 are found" ON)
option(PTXDWARF_REQUIRE_PYTHON "Fail the configure step when the Python package cannot be built" OFF)

set(PTXDWARF_PYTHON_BUILT OFF)
set(PTXDWARF_PYTHON_WHY_NOT "")
if(NOT PTXDWARF_PYTHON)
  set(PTXDWARF_PYTHON_WHY_NOT "PTXDWARF_PYTHON is OFF")
elseif(PTXDWARF_SANITIZE OR PTXDWARF_TSAN OR PTXDWARF_FUZZ)
  # An instrumented extension cannot be loaded by an interpreter that is not.
  set(PTXDWARF_PYTHON_WHY_NOT "a sanitizer or fuzzer build cannot be loaded by an uninstrumented interpreter")
else()
  if(NOT Python_EXECUTABLE)
    # pyenv's `python3` is a shim script: ask it for the interpreter it runs.
    find_program(PTXDWARF_PYTHON3_ON_PATH python3)
    if(PTXDWARF_PYTHON3_ON_PATH)
      execute_process(COMMAND ${PTXDWARF_PYTHON3_ON_PATH} -c "import sys; print(sys.executable)"
        OUTPUT_VARIABLE _ptxdwarf_python RESULT_VARIABLE _ptxdwarf_python_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(_ptxdwarf_python_rc EQUAL 0 AND EXISTS "${_ptxdwarf_python}")
        set(Python_EXECUTABLE "${_ptxdwarf_python}" CACHE FILEPATH "The Python interpreter the package is built for")
      endif()
    endif()
  endif()
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module)
  if(NOT Python_Development.Module_FOUND)
    set(PTXDWARF_PYTHON_WHY_NOT "Python's headers were not found for ${Python_EXECUTABLE} (Debian: python3-dev)")
  else()
    find_package(pybind11 2.6 CONFIG QUIET)
    if(NOT pybind11_FOUND)
      set(PTXDWARF_PYTHON_WHY_NOT "pybind11 was not found (Debian: pybind11-dev)")
    else()
      set(PTXDWARF_PYTHON_BUILT ON)
    endif()
  endif()
endif()

if(PTXDWARF_PYTHON_BUILT)
  message(STATUS "python: building `import ptxdwarf` for ${Python_EXECUTABLE} (${Python_VERSION})")
  add_subdirectory(${CMAKE_CURRENT_LIST_DIR} ${PROJECT_BINARY_DIR}/python)
else()
  if(PTXDWARF_REQUIRE_PYTHON)
    message(FATAL_ERROR "python: the package cannot be built: ${PTXDWARF_PYTHON_WHY_NOT}")
  endif()
  message(STATUS "python: not building `import ptxdwarf`: ${PTXDWARF_PYTHON_WHY_NOT}")
endif()
