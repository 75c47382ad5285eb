// A state's layout: its fixed parts in one block of memory, copied,
// compared and restored part by part. Its encoding is state_bytes.cpp,
// its fingerprint state_hash.cpp.
#include "checker/state.hpp"

#include <compare>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace pc::check {

namespace {

template <class T>
void copy_part(std::vector<T>& to, const std::vector<T>& from) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (to.size() != from.size()) {
    to = from;
    return;
  }
  if (!from.empty()) std::memcpy(to.data(), from.data(), sizeof(T) * from.size());
}

template <class T>
std::size_t words_of(std::size_t n) {
  static_assert(alignof(T) <= alignof(std::uint64_t) && std::is_trivially_copyable_v<T>);
  return (n * sizeof(T) + 7) / 8;
}

std::size_t words_for(const Shape& sh) {
  return words_of<AgentState>(sh.agents) + words_of<std::int64_t>(sh.vars) + words_of<std::uint32_t>(sh.last_seen) +
         words_of<spec::mbarrier::State>(sh.mbars) + words_of<spec::named::State>(sh.named) + words_of<spec::amd::Barrier>(sh.amd) +
         words_of<spec::tmem::Cta>(sh.tmem) + words_of<std::int32_t>(sh.values);
}

}  // namespace

void State::point(std::uint64_t* at) {
  auto place = [&at](auto& part) {
    using T = std::remove_reference_t<decltype(part[0])>;
    part.p_ = part.n_ == 0 ? nullptr : reinterpret_cast<T*>(at);
    at += words_of<T>(part.n_);
  };
  place(agents);
  place(vars);
  place(last_seen);
  place(mbars);
  place(named);
  place(amd);
  place(tmem);
  place(values);
}

void State::allocate(const Shape& sh) {
  words_ = words_for(sh);
  owned_words_ = words_of<AgentState>(sh.agents) + words_of<std::int64_t>(sh.vars) + words_of<std::uint32_t>(sh.last_seen);
  block_.reset(words_ == 0 ? nullptr : new std::uint64_t[words_]());
  agents.n_ = sh.agents;
  vars.n_ = sh.vars;
  last_seen.n_ = sh.last_seen;
  mbars.n_ = sh.mbars;
  named.n_ = sh.named;
  amd.n_ = sh.amd;
  tmem.n_ = sh.tmem;
  values.n_ = sh.values;
  point(block_.get());
}

void State::reshape(const Shape& sh) {
  allocate(sh);
  // Each element its default value (not every type's is all zero bits).
  auto fill = [](auto& part) {
    using T = std::remove_reference_t<decltype(part[0])>;
    for (T& x : part) x = T{};
  };
  fill(agents);
  fill(mbars);
  fill(named);
  fill(amd);
  fill(tmem);
}

State::State(const State& o)
    : cluster(o.cluster), clc(o.clc), pending(o.pending), mem(o.mem), cta_exited(o.cta_exited) {
  allocate(o.shape());
  if (words_ > 0) std::memcpy(block_.get(), o.block_.get(), words_ * 8);
}

State::State(State&& o) noexcept { *this = std::move(o); }

State& State::operator=(State&& o) noexcept {
  if (this == &o) return *this;
  // The parts point into the block, which moves as it is: they move with it.
  block_ = std::move(o.block_);
  words_ = std::exchange(o.words_, 0);
  owned_words_ = std::exchange(o.owned_words_, 0);
  agents = std::exchange(o.agents, {});
  vars = std::exchange(o.vars, {});
  last_seen = std::exchange(o.last_seen, {});
  mbars = std::exchange(o.mbars, {});
  named = std::exchange(o.named, {});
  amd = std::exchange(o.amd, {});
  tmem = std::exchange(o.tmem, {});
  values = std::exchange(o.values, {});
  cluster = o.cluster;
  clc = o.clc;
  pending = std::move(o.pending);
  mem = std::move(o.mem);
  cta_exited = o.cta_exited;
  return *this;
}

State& State::operator=(const State& o) {
  if (this == &o) return *this;
  // Every member of State is copied here: one added must be added here too.
  // (The size of State's members as they are today on a 64-bit target.)
  static_assert(sizeof(void*) != 8 || sizeof(State) == 232, "State changed: copy the new member in State::operator=");
  if (words_ != o.words_ || shape() != o.shape()) reshape(o.shape());
  if (words_ > 0) std::memcpy(block_.get(), o.block_.get(), words_ * 8);
  cluster = o.cluster;
  clc = o.clc;
  copy_part(pending, o.pending);
  mem.buffers = o.mem.buffers;
  copy_part(mem.events, o.mem.events);
  cta_exited = o.cta_exited;
  return *this;
}

bool State::operator==(const State& o) const { return (*this <=> o) == 0; }

std::strong_ordering State::operator<=>(const State& o) const {
  // Member by member, in the order they are declared (as a defaulted
  // comparison would).
  if (auto c = agents <=> o.agents; c != 0) return c;
  if (auto c = vars <=> o.vars; c != 0) return c;
  if (auto c = last_seen <=> o.last_seen; c != 0) return c;
  if (auto c = mbars <=> o.mbars; c != 0) return c;
  if (auto c = named <=> o.named; c != 0) return c;
  if (auto c = cluster <=> o.cluster; c != 0) return c;
  if (auto c = amd <=> o.amd; c != 0) return c;
  if (auto c = tmem <=> o.tmem; c != 0) return c;
  if (auto c = clc <=> o.clc; c != 0) return c;
  if (auto c = values <=> o.values; c != 0) return c;
  if (auto c = pending <=> o.pending; c != 0) return c;
  if (auto c = mem <=> o.mem; c != 0) return c;
  return cta_exited <=> o.cta_exited;
}

void restore(State& t, const State& s, const Owners& o, int a) {
  // Every member of State is copied here or is an agent's part: one added
  // must be added here too (as in operator=).
  static_assert(sizeof(void*) != 8 || sizeof(State) == 232, "State changed: copy the new member in restore");
  if (a >= 0) {
    const auto i = static_cast<std::size_t>(a);
    t.agents[i] = s.agents[i];
    const auto [v0, v1] = o.vars_of(i, s.vars.size());
    for (std::size_t k = v0; k < v1; ++k) t.vars[k] = s.vars[k];
    const auto m = static_cast<std::size_t>(o.phases);
    for (std::size_t k = i * m; k < (i + 1) * m; ++k) t.last_seen[k] = s.last_seen[k];
  }
  // The parts no agent owns (the barriers, tensor memory, the CLC values)
  // lie together after the agents' in the block.
  if (t.words_ > t.owned_words_)
    std::memcpy(t.block_.get() + t.owned_words_, s.block_.get() + s.owned_words_, (t.words_ - t.owned_words_) * 8);
  t.cluster = s.cluster;
  t.clc = s.clc;
  copy_part(t.pending, s.pending);
  t.mem.buffers = s.mem.buffers;
  copy_part(t.mem.events, s.mem.events);
  t.cta_exited = s.cta_exited;
}

}  // namespace pc::check
