// The compact state encoding (checker/state.cpp) is exact: along random
// schedules of every corpus kernel, each state read back from its bytes equals
// the state, and equal states give equal bytes, also where a successor's
// events are copied from the bytes of the state it came from; and the
// search's fingerprint of a state, hashed from its fields (hash_state),
// tells apart exactly the states their bytes tell apart.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "checker/builder.hpp"
#include "checker/dsl/parser.hpp"
#include "tests/corpus_files.hpp"
#include "checker/program.hpp"
#include "checker/state.hpp"
#include "checker/step.hpp"

using namespace pc;

// agent_parts finds each agent's part where serialize_agent writes it, and
// the parts no agent owns where serialize_shared does: a state's bytes are
// those in turn.
namespace {
void parts_where_written(const check::State& s, const std::string& bytes, const check::Owners& owners, const check::PartShape& shape) {
  std::vector<std::uint32_t> at(s.agents.size() + 1);
  check::agent_parts(bytes.data(), shape, at.data());
  check::Bytes part, shared;
  for (std::size_t a = 0; a < s.agents.size(); ++a) {
    check::serialize_agent(s, owners, a, part);
    REQUIRE(std::string_view(bytes).substr(at[a], at[a + 1] - at[a]) == part.view());
  }
  check::serialize_shared(s, shared);
  REQUIRE(std::string_view(bytes).substr(at.back()) == shared.view());
}
}  // namespace

TEST_CASE("state encoding: deserialize(serialize(s)) == s along random schedules of the corpus") {
  const std::vector<std::string> files = corpus_files();
  std::mt19937 rng(7);
  std::size_t checked = 0, events = 0, successors = 0, successor_events = 0, distinct = 0;
  check::State assigned;
  std::size_t last_events = 0, last_agents = 0, same_size = 0;
  for (const std::string& file : files) {
    CAPTURE(file);
    // Of this kernel's states met: the fingerprint of each encoding, and the
    // encoding of each fingerprint. A field hash_state left out would give
    // two states one fingerprint (a successor differing from its state only
    // in that field), a field hashed that is not part of the value two
    // fingerprints to one state.
    std::map<std::string, std::uint64_t> hash_of;
    std::map<std::uint64_t, std::string> bytes_of;
    auto same_hash_same_state = [&](const check::State& x, const std::string& x_bytes, const check::Owners& owners) {
      const std::uint64_t h = check::hash_state(x, owners);
      const auto [at, added] = hash_of.emplace(x_bytes, h);
      REQUIRE(at->second == h);
      const auto [back_at, back_added] = bytes_of.emplace(h, x_bytes);
      REQUIRE(back_at->second == x_bytes);
      distinct += added;
    };
    const CorpusProgram kernel(file);
    const check::Program& prog = kernel.prog;
    // A describing stepper: its states keep the phases seen (the search's keep none).
    const check::Stepper st(prog, true);
    const check::Owners owners{prog.var_base, st.phases_kept()};
    const check::State start = st.initial();
    const check::PartShape shape(start, owners);
    for (int walk = 0; walk < 20; ++walk) {
      check::State s = st.initial();
      std::string bytes, again;
      // One buffer for every successor of the walk, as the search reuses its
      // own: a shorter state after a longer one must not keep its tail.
      check::Bytes reused;
      for (int step = 0; step < 300; ++step) {
        check::serialize(s, owners, bytes);
        check::State back = st.initial();
        check::EventBytes where;
        check::deserialize(bytes.data(), owners, back, &where);
        REQUIRE(back == s);
        REQUIRE(where.at.size() == s.mem.events.size() + 1);
        check::serialize(back, owners, again);
        REQUIRE(again == bytes);
        parts_where_written(s, bytes, owners, shape);
        same_hash_same_state(back, bytes, owners);
        // Every agent's hash at once (the search's, as it loads a state) is
        // each agent's agent_hash, and their sum.
        std::vector<std::uint64_t> each(s.agents.size());
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < each.size(); ++i) sum += check::agent_hash(s, owners, static_cast<int>(i));
        REQUIRE(check::agent_hashes(s, owners, each.data()) == sum);
        for (std::size_t i = 0; i < each.size(); ++i) REQUIRE(each[i] == check::agent_hash(s, owners, static_cast<int>(i)));
        ++checked;
        events += s.mem.events.size();
        // One enabled step, chosen at random; stop at a violation or the end.
        const int total = static_cast<int>(s.agents.size() + s.pending.size());
        std::vector<int> order(static_cast<std::size_t>(total));
        for (int i = 0; i < total; ++i) order[static_cast<std::size_t>(i)] = i;
        std::shuffle(order.begin(), order.end(), rng);
        bool moved = false;
        int next = -1;
        check::State chosen;
        for (int a : order) {
          check::State t = s;
          const bool agent = a < static_cast<int>(s.agents.size());
          if (agent && t.agents[static_cast<std::size_t>(a)].exited) continue;
          const check::StepInfo info =
              agent ? st.agent_step(t, a) : st.pending_step(t, a - static_cast<int>(s.agents.size()));
          if (!info.enabled || info.violation != spec::Violation::none) continue;
          // Every successor serialises to the same bytes whether or not its
          // unchanged events are copied from the bytes of the state it came from.
          std::string fresh;
          check::serialize(t, owners, fresh);
          check::serialize(t, owners, reused, &back, &where);
          REQUIRE(reused.view() == fresh);
          same_hash_same_state(t, fresh, owners);
          // No step writes a builtin variable (cta, instance, warp): the
          // fingerprint leaves them out (agent_hash).
          for (std::size_t i = 0; i < t.agents.size(); ++i)
            for (int v = 0; v < ir::num_builtin_vars; ++v) {
              const auto at = static_cast<std::size_t>(prog.var_base[i] + v);
              REQUIRE(t.vars[at] == start.vars[at]);
            }
          // State's copy assignment (memcpy where a part keeps its length)
          // into a buffer that held states of this and earlier kernels.
          assigned = t;
          REQUIRE(assigned == t);
          same_size += assigned.mem.events.size() == last_events && assigned.agents.size() == last_agents;
          last_events = t.mem.events.size();
          last_agents = t.agents.size();
          ++successors;
          successor_events += t.mem.events.size();
          if (next < 0) {
            next = a;
            chosen = std::move(t);
          }
        }
        if (next >= 0) {
          s = std::move(chosen);
          moved = true;
        }
        if (!moved) break;
      }
    }
  }
  MESSAGE(checked << " states read back, " << events << " happens-before events among them; " << successors
                  << " successors serialised both ways; " << distinct << " distinct states hashed");
  CHECK(checked > 10000);
  CHECK(events > 10000);
  CHECK(successors > checked);
  CHECK(successor_events > 10000);
  CHECK(distinct > 10000);
  // Both ways of State's copy assignment were taken.
  CHECK(same_size > 1000);
  CHECK(same_size < successors);
}

// Each field of the state, changed alone, changes the fingerprint: the
// fields hash_state reads are every field of the value. Checked on states of
// the corpus met along random schedules, each field that the state has.
// Variables and phases seen take one byte each while every value fits
// (-128..127, 0..255) and the long form otherwise (state.cpp, write_state):
// values at the edges of both forms, one at a time and all at once, read
// back as they were, each value its own bytes.
TEST_CASE("state encoding: variables and phases seen at the edges of the one-byte form") {
  std::size_t checked = 0;
  for (const std::string& file : corpus_files()) {
    const CorpusProgram kernel(file);
    const check::Stepper st(kernel.prog, true);  // describing: its states keep the phases seen
    const check::State init = st.initial();
    if (init.vars.size() < 2 || init.last_seen.size() < 2) continue;
    CAPTURE(file);
    const check::Owners owners{kernel.prog.var_base, st.phases_kept()};
    // The variables a step may write: not the builtins (cta, instance, warp),
    // which serialize leaves out.
    std::vector<std::size_t> own_vars;
    for (std::size_t a = 0; a < init.agents.size(); ++a) {
      const auto [v0, v1] = owners.vars_of(a, init.vars.size());
      for (std::size_t k = v0 + ir::num_builtin_vars; k < v1; ++k) own_vars.push_back(k);
    }
    if (own_vars.empty()) continue;
    std::set<std::string> seen;
    std::set<check::State> states;
    auto round_trip = [&](const check::State& x) {
      std::string bytes;
      check::serialize(x, owners, bytes);
      check::State back = init;
      check::deserialize(bytes.data(), owners, back);
      CHECK(back == x);
      parts_where_written(x, bytes, owners, check::PartShape(init, owners));
      seen.insert(bytes);
      states.insert(x);
    };
    const std::int64_t vars[] = {0, -1, 1, -128, 127, -129, 128, 255, 256, std::int64_t{1} << 40, -(std::int64_t{1} << 62)};
    const std::uint32_t phases[] = {0, 1, 255, 256, 65535, 0xffffffffu};
    for (std::int64_t v : vars)
      for (std::size_t at : {own_vars.front(), own_vars.back()}) {
        check::State x = init;
        x.vars[at] = v;
        round_trip(x);
        for (std::size_t k : own_vars) x.vars[k] = v;
        round_trip(x);
      }
    for (std::uint32_t v : phases)
      for (std::size_t at : {std::size_t{0}, init.last_seen.size() - 1}) {
        check::State x = init;
        x.last_seen[at] = v;
        x.vars[own_vars.front()] = 200;  // both long forms at once
        round_trip(x);
      }
    // Distinct states, distinct bytes.
    CHECK(seen.size() == states.size());
    CHECK(states.size() > 40);
    checked += states.size();
    if (checked > 500) break;
  }
  CHECK(checked > 100);
}

TEST_CASE("state encoding: changing any one field of a state changes its fingerprint") {
  // One change per field (for a vector, of its last element; `shift`
  // touches the high half of a 128-bit thread mask).
  static const std::vector<std::pair<const char*, void (*)(check::State&)>> changes = {
      {"agent pc", [](check::State& x) { ++x.agents.back().pc; }},
      {"agent stage", [](check::State& x) { x.agents.back().stage ^= 1; }},
      {"agent exited", [](check::State& x) { x.agents.back().exited ^= true; }},
      {"agent wgmma_fenced", [](check::State& x) { x.agents.back().wgmma_fenced ^= true; }},
      {"agent tc_synced", [](check::State& x) { x.agents.back().tc_synced ^= true; }},
      {"agent wgmma_regs", [](check::State& x) { x.agents.back().wgmma_regs ^= 2; }},
      {"agent ticket", [](check::State& x) { ++x.agents.back().ticket; }},
      {"agent collectives", [](check::State& x) { ++x.agents.back().collectives; }},
      {"agent cluster_ticket", [](check::State& x) { ++x.agents.back().cluster_ticket; }},
      {"wave lds_outstanding", [](check::State& x) { ++x.agents.back().wave.lds_outstanding; }},
      {"wave signaled", [](check::State& x) { x.agents.back().wave.signaled ^= true; }},
      {"wave joined", [](check::State& x) { ++x.agents.back().wave.joined; }},
      {"wave vm_issued", [](check::State& x) { ++x.agents.back().wave.vm_issued; }},
      {"wave vm_done", [](check::State& x) { ++x.agents.back().wave.vm_done; }},
      {"bulk committed", [](check::State& x) { ++x.agents.back().bulk.committed; }},
      {"bulk issued", [](check::State& x) { ++x.agents.back().bulk.issued; }},
      {"bulk retired", [](check::State& x) { ++x.agents.back().bulk.retired; }},
      {"mma committed", [](check::State& x) { ++x.agents.back().mma.committed; }},
      {"mma issued", [](check::State& x) { ++x.agents.back().mma.issued; }},
      {"mma retired", [](check::State& x) { ++x.agents.back().mma.retired; }},
      {"cp committed", [](check::State& x) { ++x.agents.back().cp.committed; }},
      {"cp issued", [](check::State& x) { ++x.agents.back().cp.issued; }},
      {"cp retired", [](check::State& x) { ++x.agents.back().cp.retired; }},
      {"last seen phase", [](check::State& x) { if (!x.last_seen.empty()) ++x.last_seen.back(); }},
      {"mbarrier status", [](check::State& x) { if (!x.mbars.empty()) x.mbars.back().status = x.mbars.back().status == spec::mbarrier::Status::live ? spec::mbarrier::Status::uninitialized : spec::mbarrier::Status::live; }},
      {"mbarrier phase", [](check::State& x) { if (!x.mbars.empty()) ++x.mbars.back().phase; }},
      {"mbarrier expected", [](check::State& x) { if (!x.mbars.empty()) ++x.mbars.back().expected; }},
      {"mbarrier pending", [](check::State& x) { if (!x.mbars.empty()) ++x.mbars.back().pending; }},
      {"mbarrier tx", [](check::State& x) { if (!x.mbars.empty()) --x.mbars.back().tx; }},
      {"named arrived", [](check::State& x) { if (!x.named.empty()) ++x.named.back().arrived; }},
      {"named last_or", [](check::State& x) { if (!x.named.empty()) x.named.back().last_or ^= 1; }},
      {"amd generation", [](check::State& x) { if (!x.amd.empty()) ++x.amd.back().generation; }},
      {"tmem used", [](check::State& x) { if (!x.tmem.empty()) ++x.tmem.back().used; }},
      {"tmem allocated", [](check::State& x) { if (!x.tmem.empty()) ++x.tmem.back().allocated; }},
      {"tmem relinquished", [](check::State& x) { if (!x.tmem.empty()) x.tmem.back().relinquished ^= true; }},
      {"tmem pair", [](check::State& x) { if (!x.tmem.empty()) x.tmem.back().pair = x.tmem.back().pair == spec::tmem::PairOp::none ? spec::tmem::PairOp::dealloc : spec::tmem::PairOp::none; }},
      {"tmem pair_which", [](check::State& x) { if (!x.tmem.empty()) ++x.tmem.back().pair_which; }},
      {"clc queue", [](check::State& x) { ++x.clc.queue; }},
      {"clc requests", [](check::State& x) { ++x.clc.requests; }},
      {"clc failed_seen", [](check::State& x) { x.clc.failed_seen ^= 2; }},
      {"clc value", [](check::State& x) { if (!x.values.empty()) x.values.back() ^= 1; }},
      {"cluster generation", [](check::State& x) { ++x.cluster.generation; }},
      {"cluster arrived", [](check::State& x) { ++x.cluster.arrived; }},
      {"cta exited", [](check::State& x) { x.cta_exited ^= 1; }},
      {"pending added", [](check::State& x) { x.pending.push_back(check::Pending{}); }},
      {"event added", [](check::State& x) { x.mem.events.push_back(spec::hb::Event{}); }},
      {"event buf", [](check::State& x) { if (!x.mem.events.empty()) ++x.mem.events.back().buf; }},
      {"event write", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().write ^= true; }},
      {"event atomic", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().atomic ^= true; }},
      {"event thread", [](check::State& x) { if (!x.mem.events.empty()) ++x.mem.events.back().thread; }},
      {"event proxy", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().proxy = x.mem.events.back().proxy == spec::hb::Proxy::async ? spec::hb::Proxy::generic : spec::hb::Proxy::async; }},
      {"event spread", [](check::State& x) { if (!x.mem.events.empty()) ++x.mem.events.back().spread; }},
      {"event group", [](check::State& x) { if (!x.mem.events.empty()) ++x.mem.events.back().group; }},
      {"event mma", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().mma ^= 1; }},
      {"event after (high half)", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().after ^= spec::hb::Threads{1} << 100; }},
      {"event after_async", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().after_async ^= 1; }},
      {"event after_async (high half)", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().after_async ^= spec::hb::Threads{1} << 64; }},
      {"event after_weak", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().after_weak ^= 1; }},
      {"event after_weak (high half)", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().after_weak ^= spec::hb::Threads{1} << 127; }},
      {"event released", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().released ^= 1; }},
      {"event released_async", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().released_async ^= 1; }},
      {"event visible", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().visible ^= 1; }},
      {"event visible_async", [](check::State& x) { if (!x.mem.events.empty()) x.mem.events.back().visible_async ^= 1; }},
  };
  // Pending events: each field of the last one.
  static const std::vector<std::pair<const char*, void (*)(check::Pending&)>> pending_changes = {
      {"pending kind", [](check::Pending& p) { p.kind = p.kind == check::PendingKind::st_async ? check::PendingKind::tma_load : check::PendingKind::st_async; }},
      {"pending agent", [](check::Pending& p) { ++p.agent; }},
      {"pending pc", [](check::Pending& p) { ++p.pc; }},
      {"pending mbar", [](check::Pending& p) { ++p.mbar; }},
      {"pending buf", [](check::Pending& p) { ++p.buf; }},
      {"pending bytes", [](check::Pending& p) { ++p.bytes; }},
      {"pending noinc", [](check::Pending& p) { p.noinc ^= true; }},
      {"pending group", [](check::Pending& p) { ++p.group; }},
      {"pending slot", [](check::Pending& p) { ++p.slot; }},
      {"pending canceled", [](check::Pending& p) { p.canceled ^= true; }},
  };
  std::mt19937 rng(11);
  std::size_t tried = 0;
  std::map<std::string, int> changed;  // per change: the states it was tried on
  for (const std::string& file : corpus_files()) {
    CAPTURE(file);
    const CorpusProgram kernel(file);
    const check::Program& prog = kernel.prog;
    // A describing stepper: its states keep the phases seen (the search's keep none).
    const check::Stepper st(prog, true);
    const check::Owners owners{prog.var_base, st.phases_kept()};
    check::State s = st.initial();
    for (int step = 0; step < 60; ++step) {
      if (step % 10 == 9) {
        const std::uint64_t h = check::hash_state(s, owners);
        std::string bytes;
        check::serialize(s, owners, bytes);
        auto differs = [&](const char* what, const check::State& x) {
          CAPTURE(what);
          std::string xb;
          check::serialize(x, owners, xb);
          if (xb == bytes) return;  // the change left the value as it was (an empty vector)
          CHECK(check::hash_state(x, owners) != h);
          ++changed[what];
          ++tried;
        };
        for (const auto& [what, change] : changes) {
          check::State x = s;
          change(x);
          differs(what, x);
        }
        // Each agent's variables other than its builtins (cta, instance,
        // warp: no step writes them, the fingerprint leaves them out; the
        // test below holds that no step does).
        for (std::size_t a = 0; a < s.agents.size(); ++a) {
          const auto [v0, v1] = owners.vars_of(a, s.vars.size());
          for (std::size_t v = v0 + ir::num_builtin_vars; v < v1; ++v) {
            check::State x = s;
            ++x.vars[v];
            differs("variable", x);
          }
        }
        if (!s.pending.empty())
          for (const auto& [what, change] : pending_changes) {
            check::State x = s;
            change(x.pending.back());
            differs(what, x);
          }
      }
      const int total = static_cast<int>(s.agents.size() + s.pending.size());
      bool moved = false;
      for (int tries = 0; tries < 3 * total && !moved; ++tries) {
        const int a = static_cast<int>(rng() % static_cast<unsigned>(total));
        check::State t = s;
        const bool is_agent = a < static_cast<int>(s.agents.size());
        if (is_agent && t.agents[static_cast<std::size_t>(a)].exited) continue;
        const check::StepInfo info = is_agent ? st.agent_step(t, a) : st.pending_step(t, a - static_cast<int>(s.agents.size()));
        if (!info.enabled || info.violation != spec::Violation::none) continue;
        s = std::move(t);
        moved = true;
      }
      if (!moved) break;
    }
  }
  // Every change met a state it applies to.
  CHECK(changed["variable"] > 0);
  for (const auto& [what, change] : changes) CHECK_MESSAGE(changed[what] > 0, what);
  for (const auto& [what, change] : pending_changes) CHECK_MESSAGE(changed[what] > 0, what);
  CHECK(tried > 1000);
}

// The fingerprint takes an event's high halves of its thread masks (threads
// 64 and up) as a block of their own, only where one is set: each of the
// three is hashed, beside another that is set too, and the states of one
// event with and without high halves differ.
TEST_CASE("state encoding: the high halves of an event's thread masks, each in the fingerprint") {
  const check::Owners owners{std::span<const int>{}, 0};
  check::State base;
  spec::hb::Event e;
  e.after = spec::hb::Threads{1} << 100 | 3;
  e.after_async = spec::hb::Threads{1} << 70;
  e.after_weak = spec::hb::Threads{1} << 64;
  base.mem.events = {e, e};
  const std::uint64_t h = check::hash_state(base, owners);
  std::set<std::uint64_t> seen{h};
  spec::hb::Threads spec::hb::Event::*masks[] = {&spec::hb::Event::after, &spec::hb::Event::after_async, &spec::hb::Event::after_weak};
  for (auto m : masks)
    for (const int bit : {0, 63, 64, 90, 127})
      for (const std::size_t i : {std::size_t{0}, std::size_t{1}}) {
        check::State x = base;
        x.mem.events[i].*m ^= spec::hb::Threads{1} << bit;
        CAPTURE(bit);
        CAPTURE(i);
        CHECK(seen.insert(check::hash_state(x, owners)).second);
      }
  // No high half at all: the event takes two blocks, not three.
  check::State low = base;
  for (spec::hb::Event& ev : low.mem.events) ev.after = ev.after_async = ev.after_weak = 1;
  const std::uint64_t hl = check::hash_state(low, owners);
  CHECK(seen.insert(hl).second);
  low.mem.events[1].after_weak = 3;
  CHECK(check::hash_state(low, owners) != hl);
  CHECK(seen.size() == 3 * 5 * 2 + 2);
}

// The fixed parts of a state lie in one block (State::reshape): a copy owns
// a block of its own, a move takes the block along, comparison reads every
// part, and each element starts at its type's default value.
TEST_CASE("state storage: the fixed parts in one block, copied, moved and compared as values") {
  check::Shape sh;
  sh.agents = 3;
  sh.vars = 7;
  sh.last_seen = 5;
  sh.mbars = 2;
  sh.named = 2;
  sh.amd = 1;
  sh.tmem = 1;
  sh.values = 3;
  check::State a;
  a.reshape(sh);
  CHECK(a.shape() == sh);
  CHECK(a.named[1].acc_and == 1);  // not all of a default element is zero
  CHECK(a.named[1].last_and == 1);
  CHECK(a.vars[6] == 0);
  a.vars[6] = -5;
  a.last_seen[4] = 9;
  a.values[2] = 1;
  a.pending.push_back(check::Pending{});

  check::State b = a;  // a block of its own
  CHECK(b == a);
  CHECK(b.vars.data() != a.vars.data());
  b.vars[6] = 4;
  CHECK(a.vars[6] == -5);
  CHECK(b != a);
  CHECK((a < b) == (a.vars[6] < b.vars[6]));

  // Each part and member, changed alone, makes the states differ.
  const std::vector<void (*)(check::State&)> changes = {
      [](check::State& x) { ++x.agents[2].pc; },      [](check::State& x) { ++x.vars[0]; },
      [](check::State& x) { ++x.last_seen[0]; },      [](check::State& x) { ++x.mbars[1].phase; },
      [](check::State& x) { ++x.named[0].arrived; },  [](check::State& x) { ++x.amd[0].generation; },
      [](check::State& x) { ++x.tmem[0].used; },      [](check::State& x) { x.values[0] ^= 1; },
      [](check::State& x) { ++x.cluster.arrived; },   [](check::State& x) { ++x.clc.requests; },
      [](check::State& x) { ++x.pending[0].bytes; },  [](check::State& x) { x.cta_exited ^= 1; },
      [](check::State& x) { x.mem.events.push_back(spec::hb::Event{}); },
  };
  for (auto change : changes) {
    check::State x = a;
    change(x);
    CHECK(x != a);
    CHECK((x < a) != (a < x));
    x = a;  // the same shape: one memcpy of the block
    CHECK(x == a);
  }

  // Assigned into a state of another shape, and moved.
  check::State other;
  check::Shape small;
  small.agents = 1;
  other.reshape(small);
  other = a;
  CHECK(other == a);
  CHECK(other.shape() == sh);
  check::State moved = std::move(other);
  CHECK(moved == a);
  CHECK(other.agents.empty());  // NOLINT(bugprone-use-after-move): a moved-from state is empty
  CHECK(other.shape() == check::Shape{});
  other = moved;  // and can be assigned again
  CHECK(other == a);
  moved.vars[0] = 11;
  CHECK(other.vars[0] == 0);
}

// The fingerprint leaves each agent's builtin variables out, so no kernel may
// write one: the .bk parser rejects such an assignment, and instantiate a
// kernel built otherwise (an assignment, a loop variable, an operation's
// destination), at the statement's place.
TEST_CASE("state encoding: a kernel that writes a builtin variable is rejected at instantiation") {
  using namespace ir;
  for (int how = 0; how < 3; ++how)
    for (int builtin = 0; builtin < num_builtin_vars; ++builtin) {
      CAPTURE(how);
      CAPTURE(builtin);
      KernelBuilder kb("writes_builtin");
      const int bar = kb.mbarrier("bar", 1, 1);
      Role& r = kb.role("worker", Granularity::warp);
      const Loc at{7, 3};
      if (how == 0) r.body.push_back(KernelBuilder::assign(builtin, kb.c(1), at));
      if (how == 1) r.body.push_back(KernelBuilder::for_loop(builtin, kb.c(0), kb.c(2), {}, at));
      if (how == 2) {
        r.body.push_back(KernelBuilder::op(OpCode::mbar_arrive, at).bar(bar).one().dest(builtin));
      }
      const Kernel k = kb.build();
      try {
        (void)check::instantiate(k);
        FAIL("instantiated");
      } catch (const check::KernelError& e) {
        CHECK(std::string(e.what()).find("is a builtin and cannot be assigned") != std::string::npos);
        CHECK(e.loc.line == 7);
      }
    }
  // Its own variable it may write.
  KernelBuilder kb("writes_own");
  Role& r = kb.role("worker", Granularity::warp);
  const int k = KernelBuilder::var(r, "k");
  r.body.push_back(KernelBuilder::assign(k, kb.c(1)));
  CHECK_NOTHROW((void)check::instantiate(kb.build()));
}
