// An AgentState read as words: the state's encoding (state_bytes.cpp) and
// its fingerprint (state_hash.cpp) both write an agent's rarer fields only
// when one of its words but the first is set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "checker/state.hpp"

namespace pc::check::state_words {

// An agent is seven words with no padding: its common fields (pc, stage and
// the flags) in the first, the rarer ones in the other six.
static_assert(std::has_unique_object_representations_v<AgentState> && sizeof(AgentState) == 56);
static_assert(offsetof(AgentState, ticket) == 8 && offsetof(AgentState, wave) + offsetof(spec::amd::Wave, signaled) == 32);
constexpr int agent_words = 7;

inline std::uint64_t load_word(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

}  // namespace pc::check::state_words
