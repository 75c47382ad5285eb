// The search's two shortcuts through the stepper take the same steps as the
// plain way, along random schedules of every corpus kernel:
//   - local control flow (assignments, jumps, branches) run by control_step,
//     without a StepInfo, leaves the state agent_step leaves;
//   - a barrier whose memory no op writes (Program::mbar_memory_written)
//     has no event on it in any state the walks reach;
//   - an agent the search skips as surely blocked has no enabled step and
//     raises no error;
//   - a StepInfo reused across steps (agent_step into one that is cleared
//     first) holds what a fresh one would, strings and notes included (the
//     stepper describes, so every field is filled);
//   - the search's successors, each stepped from its state in one buffer
//     that is restored between actions (restore), are the plain steps'; and
//     a successor's fingerprint found from its parent's agent hashes, the
//     moving agent's alone hashed again, is the one hash_state gives it.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "checker/model.hpp"
#include "checker/program.hpp"
#include "checker/reduce/local.hpp"
#include "checker/successors.hpp"
#include "checker/state.hpp"
#include "checker/step.hpp"
#include "tests/corpus_files.hpp"

using namespace pc;

namespace {

void same_info(const check::StepInfo& a, const check::StepInfo& b) {
  CHECK(a.enabled == b.enabled);
  CHECK(a.violation == b.violation);
  CHECK(a.message == b.message);
  CHECK(a.text == b.text);
  CHECK(a.completed == b.completed);
  CHECK(a.acquired == b.acquired);
  CHECK(a.warning == b.warning);
  CHECK(a.warning_message == b.warning_message);
  CHECK(a.loc.line == b.loc.line);
  CHECK(a.loc.col == b.loc.col);
  REQUIRE(a.accesses.size() == b.accesses.size());
  for (std::size_t i = 0; i < a.accesses.size(); ++i) {
    CHECK(a.accesses[i].threads == b.accesses[i].threads);
    CHECK(a.accesses[i].buf == b.accesses[i].buf);
    CHECK(a.accesses[i].write == b.accesses[i].write);
    CHECK(a.accesses[i].proxy == b.accesses[i].proxy);
  }
  CHECK(a.race_buf == b.race_buf);
  CHECK(a.race_other == b.race_other);
  CHECK(a.race_other_write == b.race_other_write);
  CHECK(a.race_other_proxy == b.race_other_proxy);
}

// Runs agent a's local steps the plain way: every one through agent_step.
void plain_local_steps(const check::Stepper& st, check::State& s, int a, bool private_ops) {
  while (st.next_is_local(s, a, private_ops)) (void)st.agent_step(s, a);
}

}  // namespace

TEST_CASE("step shortcuts: control flow without a StepInfo, and a reused StepInfo, as the plain step") {
  std::mt19937 rng(5);
  std::size_t local_runs = 0, control_ran = 0, reused = 0, described = 0, init_events = 0, unwritten_seen = 0;
  std::size_t surely = 0, blocked = 0;
  check::StepInfo kept;  // reused across every step of every kernel
  for (const std::string& file : corpus_files()) {
    CAPTURE(file);
    const CorpusProgram kernel(file);
    const check::Program& prog = kernel.prog;
    const check::Stepper st(prog, true);
    for (int walk = 0; walk < 4; ++walk) {
      check::State s = st.initial();
      for (int step = 0; step < 200; ++step) {
        const int agents = static_cast<int>(s.agents.size());
        // The premise of init_use_of's shortcut: a barrier no op of the
        // kernel initialises or invalidates has no event on its memory.
        for (const spec::hb::Event& e : s.mem.events) {
          if (e.buf < prog.num_buffers() || e.buf >= prog.num_buffers() + prog.num_mbars()) continue;  // data, a CTA's start
          const int m = e.buf - prog.num_buffers();
          REQUIRE(m < prog.num_mbars());
          REQUIRE(prog.mbar_memory_written[static_cast<std::size_t>(m)] != 0);
          ++init_events;
        }
        for (int m = 0; m < prog.num_mbars(); ++m) unwritten_seen += prog.mbar_memory_written[static_cast<std::size_t>(m)] == 0;
        // Local steps of each agent, both ways, with and without the
        // agents' private operations.
        for (int a = 0; a < agents; ++a)
          for (bool private_ops : {false, true}) {
            check::State fast = s, plain = s;
            try {
              check::run_local_steps(st, fast, private_ops, a);
            } catch (const check::KernelError&) {
              continue;  // a loop with no operation, or an arithmetic error: both ways throw (below)
            }
            plain_local_steps(st, plain, a, private_ops);
            REQUIRE(fast == plain);
            ++local_runs;
            control_ran += fast.agents[static_cast<std::size_t>(a)].pc != s.agents[static_cast<std::size_t>(a)].pc;
          }
        // One step of each agent, into the reused StepInfo and into a fresh one.
        std::vector<int> enabled;
        for (int a = 0; a < agents; ++a) {
          if (s.agents[static_cast<std::size_t>(a)].exited) continue;
          check::State x = s, y = s;
          bool threw_reused = false, threw_fresh = false;
          try {
            st.agent_step(x, a, kept);
          } catch (const check::KernelError&) {
            threw_reused = true;
          }
          check::StepInfo fresh;
          try {
            fresh = st.agent_step(y, a);
          } catch (const check::KernelError&) {
            threw_fresh = true;
          }
          REQUIRE(threw_reused == threw_fresh);
          // The search skips an agent surely_blocked names without stepping
          // it: such a step is never enabled and never raises an error.
          const bool skipped = st.surely_blocked(s, a);
          if (skipped) {
            REQUIRE(!threw_fresh);
            REQUIRE(!fresh.enabled);
            ++surely;
          }
          if (threw_fresh) continue;
          blocked += !fresh.enabled;
          REQUIRE(x == y);
          same_info(kept, fresh);
          ++reused;
          described += !fresh.text.empty();
          if (fresh.enabled && fresh.violation == spec::Violation::none) enabled.push_back(a);
        }
        // Pending events complete too (numbered after the agents).
        for (int i = 0; i < static_cast<int>(s.pending.size()); ++i) {
          check::State x = s;
          const check::StepInfo info = st.pending_step(x, i);
          if (info.enabled && info.violation == spec::Violation::none) enabled.push_back(agents + i);
        }
        if (enabled.empty()) break;
        const int a = enabled[rng() % enabled.size()];
        if (a >= agents) {
          (void)st.pending_step(s, a - agents);
          continue;
        }
        (void)st.agent_step(s, a);
        try {
          check::run_local_steps(st, s, true, a);
        } catch (const check::KernelError&) {
          break;
        }
      }
    }
  }
  MESSAGE(local_runs << " local-step runs compared, " << control_ran << " of them moved; " << reused
                     << " steps into a reused StepInfo, " << described << " described; " << init_events
                     << " events on a barrier's memory, " << unwritten_seen << " barriers seen that no op writes; "
                     << blocked << " steps not enabled, " << surely << " of them known so beforehand (surely_blocked)");
  CHECK(surely > 1000);
  CHECK(surely * 2 > blocked);
  CHECK(init_events > 1000);
  CHECK(unwritten_seen > 1000);
  CHECK(local_runs > 10000);
  CHECK(control_ran > 1000);
  CHECK(reused > 10000);
  CHECK(described > 1000);
}

TEST_CASE("step shortcuts: successors in a restored buffer, and fingerprints from the agent hashes, as the plain way") {
  std::mt19937 rng(9);
  std::size_t compared = 0, by_event = 0, kernels = 0;
  for (const std::string& file : corpus_files()) {
    CAPTURE(file);
    std::string src;
    const dsl::Parsed parsed = dsl::parse_file(file, src);
    REQUIRE(parsed.ok());
    const check::Model m(parsed.kernel, false);
    const check::Program& prog = m.program();
    const check::Owners owners{prog.var_base, m.stepper().phases_kept()};
    // Without reductions the search takes its fingerprints from the agent
    // hashes; with them too where the kernel has no symmetry.
    for (const bool reduction : {false, true}) {
      check::Options opt;
      opt.reduction = reduction;
      const check::Successors next(m, opt);
      check::Worker w;
      const check::State init = next.initial(nullptr);
      w.s = init;
      w.t = init;
      check::State s = init;
      std::string bytes;
      for (int step = 0; step < 150; ++step) {
        check::serialize(s, next.owners(), bytes);
        w.load(bytes);
        std::vector<std::string> succ;
        try {
          next.expand(w, 0, 0, [&](std::uint64_t fp, check::Action a, auto&& queued) {
            const std::string_view q = queued();
            // The plain step from a copy of s, and its local steps.
            check::State plain = s;
            check::StepInfo info;
            REQUIRE(m.apply(plain, a, info));
            if (a < m.agents()) next.local_steps(plain, a);
            std::string plain_bytes;
            check::serialize(plain, next.owners(), plain_bytes);
            REQUIRE(plain_bytes == q);
            check::State x = init;
            check::deserialize(q.data(), next.owners(), x);
            // The whole state hashed (with symmetry, its representative).
            REQUIRE(fp == next.fingerprint(x));
            if (!reduction) REQUIRE(fp == check::hash_state(x, owners));
            ++compared;
            by_event += a >= m.agents();
            succ.emplace_back(q);
          });
        } catch (const check::KernelError&) {
          break;
        }
        if (w.found.any || succ.empty()) break;
        check::deserialize(succ[rng() % succ.size()].data(), next.owners(), s);
      }
      w.found = {};
    }
    ++kernels;
  }
  MESSAGE(compared << " successors and their fingerprints compared over " << kernels << " kernels, " << by_event << " of them after an async event");
  CHECK(compared > 10000);
  CHECK(by_event > 100);
}
