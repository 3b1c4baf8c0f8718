# Default CUDA architectures: the GPU in this machine when one is visible, else a fixed list.
# CMake's own `native` fails on machines without a GPU (CI), so we only ask for it when
# nvidia-smi reports a device. Presets or -DCMAKE_CUDA_ARCHITECTURES=... always win.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

set(_cudalabs_fallback_archs "80;90")
find_program(_cudalabs_nvidia_smi nvidia-smi)
if(_cudalabs_nvidia_smi)
  execute_process(COMMAND "${_cudalabs_nvidia_smi}" -L
    RESULT_VARIABLE _smi_rc OUTPUT_VARIABLE _smi_out ERROR_QUIET TIMEOUT 20)
  if(_smi_rc EQUAL 0 AND _smi_out MATCHES "GPU 0")
    set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures")
    message(STATUS "cudalabs: GPU visible, building for CUDA architecture 'native'")
    return()
  endif()
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_cudalabs_fallback_archs}" CACHE STRING "CUDA architectures")
message(STATUS "cudalabs: no GPU visible, building for CUDA architectures ${_cudalabs_fallback_archs}")
