// The compact state encoding (checker/state.cpp) is exact: along random
// schedules of every corpus kernel, each state read back from its bytes equals
// the state, and equal states give equal bytes, also where a successor's
// events are copied from the bytes of the state it came from.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "checker/dsl/parser.hpp"
#include "tests/corpus_files.hpp"
#include "checker/program.hpp"
#include "checker/state.hpp"
#include "checker/step.hpp"

using namespace pc;

TEST_CASE("state encoding: deserialize(serialize(s)) == s along random schedules of the corpus") {
  const std::vector<std::string> files = corpus_files();
  std::mt19937 rng(7);
  std::size_t checked = 0, events = 0, successors = 0, successor_events = 0;
  for (const std::string& file : files) {
    CAPTURE(file);
    std::string src;
    const dsl::Parsed parsed = dsl::parse_file(file, src);
    REQUIRE(parsed.ok());
    const check::Program prog = check::instantiate(parsed.kernel);
    const check::Stepper st(prog, false);
    for (int walk = 0; walk < 20; ++walk) {
      check::State s = st.initial();
      std::string bytes, again;
      for (int step = 0; step < 300; ++step) {
        check::serialize(s, bytes);
        check::State back = st.initial();
        check::EventBytes where;
        check::deserialize(bytes.data(), back, &where);
        REQUIRE(back == s);
        REQUIRE(where.at.size() == s.mem.events.size() + 1);
        check::serialize(back, again);
        REQUIRE(again == bytes);
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
          std::string fresh, reused;
          check::serialize(t, fresh);
          check::serialize(t, reused, &back, &where);
          REQUIRE(reused == fresh);
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
                  << " successors serialised both ways");
  CHECK(checked > 10000);
  CHECK(events > 10000);
  CHECK(successors > checked);
  CHECK(successor_events > 10000);
}
