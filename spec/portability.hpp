#pragma once

// Functions of spec/ that a GPU kernel also calls (the software mbarrier of
// spec/sw_mbarrier.hpp) are marked PC_HOST_DEVICE. Under nvcc or hipcc they
// compile for both host and device, so the kernel and the model share one
// definition; under a plain host compiler the macro expands to nothing and
// spec/ stays standard C++.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define PC_HOST_DEVICE __host__ __device__
#else
#define PC_HOST_DEVICE
#endif
