// Each finding located at its cause (issue 63): a CTA's exit with an
// operation in flight at that operation, a shared-memory overflow at the
// declaration that takes the CTA past the limit, a deadlocked wait's
// arrive_expect_tx as a related location with the bytes expected and
// delivered; and the small ones: a whole wave's access named as the wave's,
// a binary file as one error, a misspelt `# expect:` with a suggestion, a
// barrier nobody arrives on named in the deadlock's message.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/cli_support.hpp"
#include "tests/json_mini.hpp"

namespace {

using namespace cli_support;

std::string kernel_file(const std::string& name, const std::string& text) { return temp_file("cli_locate", name, text); }

Run check(const std::string& args) { return cli_support::run("cli_locate", args); }

// The number of times `what` occurs in `s`.
int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

jsonmini::Value json_of(const std::string& text) {
  jsonmini::Value v;
  REQUIRE(jsonmini::Reader(text).parse(v));
  return v;
}

const jsonmini::Value& violation_of(const jsonmini::Value& doc) {
  const jsonmini::Value* ks = doc.get("kernels");
  REQUIRE(ks != nullptr);
  REQUIRE(ks->a.size() == 1);
  const jsonmini::Value* v = ks->a[0].get("violation");
  REQUIRE(v != nullptr);
  return *v;
}

int line_of(const jsonmini::Value& loc) {
  const jsonmini::Value* l = loc.get("line");
  REQUIRE(l != nullptr);
  return static_cast<int>(l->n);
}

}  // namespace

TEST_CASE("locate: a CTA's exit with a TMA store, a wgmma or a cp.async in flight is at that operation, the exit a note") {
  struct Case {
    std::string name, body;
    int line;  // the operation never waited for
  };
  const std::vector<Case> cases = {
      {"store", "role producer warp:\n  one: write out[0]\n  fence_proxy_async\n  tma_store out[0]\n  commit_group\n", 9},
      {"mma", "role mma warpgroup:\n  wgmma_fence\n  wgmma read out[0]\n  wgmma_commit\n", 8},
      {"copy", "role loader warp:\n  one: cp_async out[0]\n  one: cp_async_commit\n", 7},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string file = kernel_file(c.name + ".bk", "# expect: exit_with_pending\nkernel " + c.name +
                                                             "\n\nsmem out[1] bytes 4096\n\n" + c.body);
    const Run r = check(file);
    CHECK(r.status == 1);
    INFO(r.out);
    CHECK(r.out.find("VIOLATION exit_with_pending") != std::string::npos);
    CHECK(r.out.find("  " + file + ":" + std::to_string(c.line) + ":3: CTA 0 exits while") != std::string::npos);
    CHECK(r.out.find(file + ":6:6: note: CTA 0 exits here") != std::string::npos);  // the role's header
    const jsonmini::Value doc = json_of(check(file + " --json").out);
    const jsonmini::Value& v = violation_of(doc);
    CHECK(line_of(*v.get("location")) == c.line);
    REQUIRE(v.get("related") != nullptr);
    CHECK(line_of(*v.get("related")->a.at(0).get("location")) == 6);
  }
}

TEST_CASE("locate: a shared-memory overflow is at the declaration past the limit, the others related") {
  const std::string file = kernel_file("big.bk",
                                       "# expect: smem_overflow\n"
                                       "kernel big\n"
                                       "\n"
                                       "smem a[1] bytes 131072\n"
                                       "mbarrier full[2] count 1\n"
                                       "smem b[1] bytes 131072\n"
                                       "smem c[1] bytes 1024\n"
                                       "\n"
                                       "role r warp:\n"
                                       "  all: read a[0]\n");
  const Run r = check(file);
  CHECK(r.status == 1);
  INFO(r.out);
  CHECK(r.out.find("  " + file + ":6:6: the shared memory of a CTA is 263184 bytes") != std::string::npos);
  CHECK(r.out.find("b[1] (131072 bytes) takes it past the limit") != std::string::npos);
  CHECK(r.out.find(file + ":4:6: note: a[1]: 131072 bytes") != std::string::npos);
  CHECK(r.out.find(file + ":5:10: note: mbarrier full[2]: 16 bytes") != std::string::npos);
  CHECK(r.out.find(file + ":7:6: note: c[1]: 1024 bytes") != std::string::npos);
  const jsonmini::Value root = json_of(check(file + " --json").out);  // (v points into it)
  const jsonmini::Value& v = violation_of(root);
  CHECK(line_of(*v.get("location")) == 6);
  REQUIRE(v.get("related") != nullptr);
  CHECK(v.get("related")->a.size() == 3);
  // SARIF: each a relatedLocation.
  const std::string sarif = check(file + " --sarif").out;
  CHECK(sarif.find("\"relatedLocations\"") != std::string::npos);
  CHECK(count(sarif, "\"id\": ") >= 3);
}

TEST_CASE("locate: a deadlock on a tx-count that never reaches zero names the bytes and the arrive_expect_tx") {
  const std::string file = src + "/kernels/bugs/expect_tx_mismatch.bk";
  const Run r = check(file);
  CHECK(r.status == 1);
  INFO(r.out);
  CHECK(r.out.find("VIOLATION deadlock") != std::string::npos);
  // The wait stays the primary location; the message says which bytes.
  CHECK(r.out.find("full[0]'s tx-count stays at 8192: 24576 bytes expected (line 15), 16384 delivered (line 16)") !=
        std::string::npos);
  CHECK(r.out.find(file + ":15:3: note: expects 24576 bytes on full[0] of phase 0; 16384 of the 24576 bytes expected are delivered: the cause") !=
        std::string::npos);
  const jsonmini::Value root = json_of(check(file + " --json").out);  // (v points into it)
  const jsonmini::Value& v = violation_of(root);
  REQUIRE(v.get("related") != nullptr);
  CHECK(line_of(*v.get("related")->a.at(0).get("location")) == 15);
  const std::string sarif = check(file + " --sarif").out;
  CHECK(sarif.find("expects 24576 bytes on full[0]") != std::string::npos);
}

TEST_CASE("locate: a deadlock on arrivals that never reach the count names the arrivals made") {
  const std::string file = kernel_file("arrivals.bk",
                                       "# expect: deadlock\n"
                                       "kernel arrivals\n"
                                       "\n"
                                       "mbarrier done[1] count 2\n"
                                       "\n"
                                       "role producer warp:\n"
                                       "  one: arrive done[0]\n"
                                       "\n"
                                       "role consumer warp:\n"
                                       "  wait done[0] parity 0\n");
  const Run r = check(file);
  INFO(r.out);
  CHECK(r.out.find("done[0] has 1 of the 2 arrivals of phase 0 (line 7)") != std::string::npos);
  CHECK(r.out.find(file + ":7:3: note: arrives on done[0] of phase 0") != std::string::npos);
  CHECK(r.out.find("hint:") == std::string::npos);
}

TEST_CASE("locate: a deadlock on a barrier no operation arrives on says so") {
  const std::string file = kernel_file("nobody.bk",
                                       "# expect: deadlock\n"
                                       "kernel nobody\n"
                                       "\n"
                                       "smem tile[1] bytes 4096\n"
                                       "mbarrier full[2] count 1\n"
                                       "\n"
                                       "role producer warp:\n"
                                       "  one: tma_load tile[0] -> full[1]\n"
                                       "\n"
                                       "role consumer warp:\n"
                                       "  wait full[0] parity 0\n");
  const Run r = check(file);
  CHECK(r.status == 1);
  INFO(r.out);
  CHECK(r.out.find("hint: no operation in the kernel arrives on full") != std::string::npos);
}

TEST_CASE("locate: an AMD wave's all-lane access is the whole wave's, not its leader lane's") {
  const std::string file = kernel_file("wave.bk",
                                       "# expect: data_race\n"
                                       "kernel wave\n"
                                       "target amd gfx942\n"
                                       "\n"
                                       "smem s[1] bytes 256\n"
                                       "\n"
                                       "role w warp x 2:\n"
                                       "  if instance == 0:\n"
                                       "    all: write s[0]\n"
                                       "  else:\n"
                                       "    all: read s[0]\n");
  const Run r = check(file);
  CHECK(r.status == 1);
  INFO(r.out);
  CHECK(r.out.find("VIOLATION data_race") != std::string::npos);
  CHECK(r.out.find("leader lane") == std::string::npos);
  CHECK(r.out.find("(the whole wave)") != std::string::npos);
  CHECK(r.out.find("the earlier access: step 1") != std::string::npos);
}

TEST_CASE("locate: a binary file is one 'not a text file' error at 1:1, exit 2") {
  std::string bytes = "\x7f" "ELF\x02\x01\x01";
  bytes += std::string(9, '\0');
  for (int i = 0; i < 4000; ++i) bytes += static_cast<char>((i * 37 + 11) % 256);
  for (int i = 0; i < 40; ++i) bytes += "role x warp:\n  ??? \x01\x02\n";
  const std::string file = kernel_file("binary.bk", bytes);
  const Run r = check(file);
  CHECK(r.status == 2);
  INFO(r.err);
  CHECK(r.err.find(file + ":1:1: error: not a text file") != std::string::npos);
  CHECK(count(r.err, "error:") == 1);
  CHECK(r.err.find("ELF") == std::string::npos);  // the bytes are not echoed
}

TEST_CASE("locate: a misspelt '# expect:' suggests the nearest outcome") {
  const std::string file = kernel_file("typo.bk",
                                       "# expect: data_rase\n"
                                       "kernel typo\n"
                                       "\n"
                                       "smem t[1] bytes 16\n"
                                       "\n"
                                       "role r warp:\n"
                                       "  all: read t[0]\n");
  const Run r = check(file);
  CHECK(r.status == 2);
  INFO(r.err);
  CHECK(r.err.find(file + ":1:1: error: '# expect: data_rase': expected 'verified' or a violation name") != std::string::npos);
  CHECK(r.err.find("(did you mean 'data_race'?)") != std::string::npos);
}
