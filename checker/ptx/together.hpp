// Buffers always accessed together, one buffer (docs/ptx.md, "Bytes always
// accessed together"). The front end gives each distinct byte range the
// warps touch a buffer of its own, and a warp's vector store names one range
// per lane: a Triton partition that stages a 32 x 64 tile of floats in shared
// memory writes it in 16 stores of 32 ranges each and reads it back in one
// load of all 512, and its stores of the result to global memory name 32
// ranges each, none touched again. Each range is a buffer the model keeps
// happens-before for in every state, so the states grow with the ranges
// where the synchronization has a few dozen steps.
//
// Two buffers are joined when every operation that names one names the
// other, with the same CTA, and each is a plain read, write or consume (no
// value stored or returned, no ordering of its own) of one element of a
// buffer nothing aliases and no mbarrier lies in. Why it keeps every
// verdict: every step applies to the two buffers the same access by the same
// threads, so their parts of the state are equal in every reachable state,
// and a race or misuse the model finds on one it finds on the other at the
// same step; the joined kernel's states are the written kernel's with one of
// two equal parts left out, one for one, with the same steps enabled. The
// joined buffer is named after its first range, with how many more it holds.
//
// Checked against the kernel as written on generated kernels
// (tests/ptx_coalesce_test.cpp); `--no-reduction` turns it off.
#pragma once

#include "checker/ir.hpp"

namespace pc::ptx {

// Joins the kernel's buffers that are always accessed together; returns the
// buffers removed.
int join_buffers(ir::Kernel& k);

}  // namespace pc::ptx
